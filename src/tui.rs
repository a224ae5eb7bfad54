//! The terminal screen: watch a question cross the seams.
//!
//! - [`action`]: the one `Action` enum; [`app`]: the state and `App::update`, the only place it
//!   changes; [`views`]: drawing from `&App`; [`input`]: keys and mouse to actions.
//! - [`jobs`] and [`worker`]: background work on the engine, numbered so the newest request wins;
//!   [`background`]: what the measuring jobs (calibration, evaluation) report back.
//! - [`screen`], [`doc_rows`], [`doc_atoms`], [`step`], [`highlight`], [`theme`], [`widgets`]: the
//!   pieces.
//!
//! This module sets up the terminal, starts the worker and the input reader, and runs the event
//! loop: one channel of messages in, one redraw per batch of messages that changed something.

mod action;
mod app;
mod background;
mod chrome;
mod doc_atoms;
mod doc_rows;
mod family;
mod gold;
pub mod headless;
mod highlight;
mod input;
mod job_control;
mod jobs;
mod layout_params;
mod map_svg;
mod page_work;
mod panes;
mod screen;
pub mod screenshots;
pub mod share;
mod step;
mod svg;
mod theme;
mod views;
mod widgets;
mod worker;

#[cfg(test)]
mod fixture;

use std::io::{IsTerminal, stdout};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use crossterm::event::{
    self, DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, Event,
};
use crossterm::execute;
use ratatui::DefaultTerminal;
use seamscope::settings::Settings;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

pub use app::TracesGiven;
pub use screen::{MIN_HEIGHT, MIN_WIDTH};

use action::Action;
use app::App;
use jobs::{Generations, Jobs};
use theme::{Theme, theme_dirs};

/// The worker thread's name; a panic there is reported on screen instead of tearing it down.
const WORKER_THREAD: &str = "seamscope-worker";

/// Whether the screen holds the terminal: a suspension gives it back and takes it again only
/// then (a stop before the screen opens or after it closed leaves the terminal alone).
static SCREEN_ON: AtomicBool = AtomicBool::new(false);

/// The event loop gave the terminal back before stopping the whole job (Ctrl-Z): the signal
/// watcher stops without giving it back again.
static GIVEN_BACK: AtomicBool = AtomicBool::new(false);

/// A worker panic's message, printed once the terminal is restored.
static WORKER_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// What `seamscope <folder>` needs to open the screen.
pub struct Options {
    /// The corpus folder or file.
    pub corpus: PathBuf,
    /// Resolved settings.
    pub settings: Settings,
    /// `--theme`: a built-in name, a name in a themes folder, or a file.
    pub theme: Option<String>,
    /// `--open FILE`: a saved view to restore (its settings are already in `settings`).
    pub view: Option<share::ViewFile>,
    /// `--bundle`: `corpus` is a bundle folder, opened read-only (its settings are already in
    /// `settings`).
    pub bundle: bool,
    /// `--traces`: the traces page shows them, read and judged once the corpus is shown.
    pub traces: Option<TracesGiven>,
}

/// One message for the event loop.
enum Message {
    /// A terminal event.
    Input(Event),
    /// A report from the worker.
    Worker(Action),
    /// Back from a suspension (SIGCONT): the terminal is the screen's again, and what was on it
    /// is gone, so the whole frame is drawn anew.
    Resumed,
}

/// Open the screen on a corpus and run until the user quits.
pub fn run(options: Options) -> anyhow::Result<()> {
    anyhow::ensure!(
        options.corpus.exists(),
        "cannot open corpus at {}: no such file or folder",
        options.corpus.display()
    );
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dirs = theme_dirs(&seamscope::places::Places::of(&options.settings).config_dir);
    let theme = Theme::resolve(options.theme.as_deref(), &dirs, no_color)?;
    anyhow::ensure!(
        stdout().is_terminal(),
        "`seamscope <folder>` opens an interactive screen and needs a terminal; for scripts use `seamscope query` or `seamscope index`"
    );
    let corpus_name = corpus_name(&options.corpus);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(WORKER_THREAD)
        .build()
        .context("cannot start the background worker")?;
    let (request_tx, request_rx) = unbounded_channel();
    let (message_tx, mut message_rx) = unbounded_channel();
    let gens = Arc::new(Generations::default());
    let setup = worker::WorkerSetup {
        corpus: options.corpus.clone(),
        settings: options.settings.clone(),
        bundle: options.bundle,
    };
    let worker_tx = message_tx.clone();
    let message_tx_for_signals = message_tx.clone();
    let worker_gens = Arc::clone(&gens);
    runtime.spawn_blocking(move || {
        let send = move |action: Action| {
            let _ = worker_tx.send(Message::Worker(action));
        };
        worker::run(setup, request_rx, &send, worker_gens);
    });
    let stop_input = Arc::new(AtomicBool::new(false));
    let input = spawn_input_reader(message_tx, Arc::clone(&stop_input))?;

    let jobs = Jobs::new(request_tx, Arc::clone(&gens));
    let mut app = App::new(corpus_name, &options.settings, theme, jobs);
    app.corpus_path = options.corpus.clone();
    app.set_read_only(options.bundle);
    app.restoring = options.view;
    open_traces(&mut app, options.traces);
    let signals = SignalWatch::start(message_tx_for_signals)?;
    let mut terminal = start_terminal()?;
    SCREEN_ON.store(true, Ordering::SeqCst);
    let result = event_loop(&mut terminal, &mut app, &mut message_rx);
    SCREEN_ON.store(false, Ordering::SeqCst);
    // Stop reading keys before giving the terminal back, so what is typed next goes to the shell.
    stop_input.store(true, Ordering::SeqCst);
    let _ = input.join();
    stop_terminal();
    signals.stop();

    gens.shut_down();
    drop(app);
    runtime.shutdown_timeout(Duration::from_secs(2));
    if let Ok(mut panic) = WORKER_PANIC.lock()
        && let Some(message) = panic.take()
    {
        eprintln!(
            "seamscope: the background worker failed: {}",
            seamscope::text::safe(&message)
        );
    }
    result
}

/// `--traces`: the screen starts on the traces page, which judges them once the corpus is shown.
pub(crate) fn open_traces(app: &mut App, traces: Option<TracesGiven>) {
    let Some(given) = traces else { return };
    app.page = action::Page::Traces;
    app.typing = false;
    let work = panes::traces::work(given.clone(), app.sliders.m);
    app.waiting_work = Some((action::Page::Traces, work));
    app.traces = Some(given);
}

fn corpus_name(path: &std::path::Path) -> String {
    let name = path
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| path.display().to_string());
    seamscope::text::safe_name(&name)
}

/// A thread that gives the terminal back and exits when the process is told to stop (SIGTERM,
/// SIGHUP, SIGINT, SIGQUIT), as the panic hook does on a panic: otherwise `kill` or a closed
/// terminal window leaves the shell in raw mode on the alternate screen with the mouse captured.
/// On SIGTSTP (Ctrl-Z, or `kill -TSTP`) it gives the terminal back and stops the process; on
/// SIGCONT (`fg`) it takes the terminal again and has the event loop draw the whole screen.
struct SignalWatch {
    handle: signal_hook::iterator::Handle,
    thread: std::thread::JoinHandle<()>,
}

impl SignalWatch {
    fn start(messages: UnboundedSender<Message>) -> anyhow::Result<SignalWatch> {
        use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
        let mut signals = signal_hook::iterator::Signals::new([
            SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT,
        ])
        .context("cannot watch for termination signals")?;
        let handle = signals.handle();
        let thread = std::thread::Builder::new()
            .name("seamscope-signals".into())
            .spawn(move || {
                // Set when the SIGTSTP branch has been continued and has taken the terminal
                // again: the SIGCONT that continued it is reported next, and handling it too would
                // drop raw mode for a moment after the screen was drawn (a key typed then was
                // lost, or echoed by the terminal's line editing).
                let mut continued_here = false;
                for signal in signals.forever() {
                    match signal {
                        SIGTSTP => {
                            // Hold stdout so no frame is drawn over the shell's screen.
                            let stdout = stdout().lock();
                            let screen = SCREEN_ON.load(Ordering::SeqCst);
                            if screen && !GIVEN_BACK.swap(false, Ordering::SeqCst) {
                                stop_terminal();
                            }
                            // Stops the whole process here until SIGCONT.
                            let _ = signal_hook::low_level::emulate_default_handler(SIGTSTP);
                            if screen && SCREEN_ON.load(Ordering::SeqCst) {
                                resume_terminal();
                            }
                            drop(stdout);
                            continued_here = true;
                            let _ = messages.send(Message::Resumed);
                        }
                        // The SIGCONT that continued the stop above: already handled there.
                        SIGCONT if std::mem::take(&mut continued_here) => {}
                        // Continued after a stop this thread did not make (SIGSTOP): take the
                        // terminal again in case the shell reset it, and draw it all.
                        SIGCONT if SCREEN_ON.load(Ordering::SeqCst) => {
                            {
                                let _stdout = stdout().lock();
                                let _ = crossterm::terminal::disable_raw_mode();
                                resume_terminal();
                            }
                            let _ = messages.send(Message::Resumed);
                        }
                        SIGCONT => {}
                        _ => {
                            // Hold stdout so no frame is drawn over the restored terminal
                            // before exit.
                            let _stdout = stdout().lock();
                            stop_terminal();
                            std::process::exit(128 + signal);
                        }
                    }
                }
            })
            .context("cannot start the signal watcher")?;
        Ok(SignalWatch { handle, thread })
    }

    /// Stop watching (the screen is closed: the terminal is already given back).
    fn stop(self) {
        self.handle.close();
        let _ = self.thread.join();
    }
}

/// Raw mode, the alternate screen, mouse capture and bracketed paste, with a panic hook that
/// undoes them first.
fn start_terminal() -> anyhow::Result<DefaultTerminal> {
    let terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let restore_and_report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some(WORKER_THREAD) {
            // The worker catches its own panics and reports them on screen; keep the message.
            if let Ok(mut slot) = WORKER_PANIC.lock() {
                *slot = Some(info.to_string());
            }
            return;
        }
        let _ = execute!(
            stdout(),
            DisableMouseCapture,
            DisableBracketedPaste,
            DisableFocusChange,
            crossterm::cursor::Show
        );
        restore_and_report(info);
    }));
    execute!(stdout(), EnableMouseCapture).context("cannot enable the mouse")?;
    // A paste arrives as one event: its newlines do not run the question and its letters are
    // not commands.
    execute!(stdout(), EnableBracketedPaste).context("cannot enable bracketed paste")?;
    // Focus reports: coming back from an editor checks whether the files changed.
    execute!(stdout(), EnableFocusChange).context("cannot enable focus reports")?;
    Ok(terminal)
}

/// Take the terminal again after a suspension: raw mode, the alternate screen, mouse capture,
/// bracketed paste and focus reports, as [`start_terminal`] set them (best effort: the next
/// frame is drawn whatever fails).
fn resume_terminal() {
    let _ = crossterm::terminal::enable_raw_mode();
    let _ = execute!(
        stdout(),
        crossterm::terminal::EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        EnableFocusChange,
        crossterm::cursor::Hide
    );
}

/// Give the terminal back as it was. The cursor is shown here: ratatui shows it only when the
/// `Terminal` is dropped, which never happens on the way out from a signal (`process::exit`).
fn stop_terminal() {
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        DisableFocusChange,
        crossterm::cursor::Show
    );
    ratatui::restore();
}

fn spawn_input_reader(
    tx: UnboundedSender<Message>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("seamscope-input".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                match event::poll(Duration::from_millis(100)) {
                    Ok(true) => match event::read() {
                        Ok(ev) => {
                            if tx.send(Message::Input(ev)).is_err() {
                                break;
                            }
                        }
                        Err(_) => break,
                    },
                    Ok(false) => {}
                    Err(_) => break,
                }
            }
        })
        .context("cannot start the input reader")
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    messages: &mut UnboundedReceiver<Message>,
) -> anyhow::Result<()> {
    let size = terminal.size()?;
    apply(app, Action::Resize(size.width, size.height));
    apply(app, Action::Open);
    terminal.draw(|frame| views::draw(app, frame))?;
    while !app.quit {
        let Some(message) = messages.blocking_recv() else {
            break;
        };
        let mut resumed = false;
        let mut note = |message: Message, app: &mut App| match message {
            Message::Resumed => {
                resumed = true;
                true
            }
            message => handle(app, message),
        };
        let mut changed = note(message, app);
        while !app.quit {
            match messages.try_recv() {
                Ok(message) => changed |= note(message, app),
                Err(_) => break,
            }
        }
        if std::mem::take(&mut app.suspend) {
            match job_control::suspend_choice() {
                // The whole job stops (so a parent such as `bash -c` or `cargo run` stops too
                // and the shell takes the terminal back); the signal watcher gives the terminal
                // back first, stops, and reports when resumed.
                job_control::Suspend::StopGroup => {
                    // The terminal goes back first: the shell takes it as soon as a parent of
                    // the job stops, and a process that then changes the terminal's modes from
                    // the background is itself stopped (SIGTTOU) half-way, on the screen.
                    {
                        let _stdout = stdout().lock();
                        stop_terminal();
                        GIVEN_BACK.store(true, Ordering::SeqCst);
                    }
                    job_control::stop_group();
                    // No frame until the job is continued (Message::Resumed draws it all): the
                    // signal reaches the watcher thread a moment later, and a frame drawn
                    // meanwhile would hide the cursor on the shell's screen.
                    changed = false;
                }
                // Stopped, nothing would ever continue it: keep running and say why.
                job_control::Suspend::Refuse(why) => {
                    app.notice = Some(app::Notice {
                        text: format!("Ctrl-Z: {why}; seamscope keeps running (q quits)"),
                        error: false,
                    });
                    changed = true;
                }
            }
        }
        if resumed {
            // The terminal may have changed size while stopped, and its screen holds the
            // shell's text: forget the last frame and draw it all.
            terminal.clear()?;
            let size = terminal.size()?;
            apply(app, Action::Resize(size.width, size.height));
        }
        if changed && !app.quit {
            terminal.draw(|frame| views::draw(app, frame))?;
        }
    }
    Ok(())
}

/// Turn a message into actions and apply them; returns whether anything happened.
fn handle(app: &mut App, message: Message) -> bool {
    let action = match message {
        Message::Input(event) => input::action_for(app, &event),
        Message::Worker(action) => Some(action),
        Message::Resumed => None,
    };
    match action {
        Some(action) => {
            apply(app, action);
            true
        }
        None => false,
    }
}

/// Apply an action and every follow-up it returns, then carry out the effects it queued.
fn apply(app: &mut App, action: Action) {
    let mut next = Some(action);
    while let Some(action) = next {
        next = app.update(action);
    }
    for effect in std::mem::take(&mut app.effects) {
        let (text, error) = share::perform(&effect, &mut stdout());
        app.update(Action::EffectDone { text, error });
    }
}
