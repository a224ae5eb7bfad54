//! The real screen without a terminal: the worker thread, `App::update` and the views, driven by
//! code instead of keys. `seamscope screenshots` pictures it; `seamscope bench open` times it.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::action::Action;
use super::app::App;
use super::jobs::{Generations, Jobs};
use super::theme::{Theme, theme_dirs};
use super::{Options, views, worker};

/// A screen and its worker, opening `options.corpus` from the moment it starts.
pub struct Headless {
    /// The screen's state.
    pub app: App,
    replies: UnboundedReceiver<Action>,
    thread: Option<JoinHandle<()>>,
}

impl Headless {
    /// Start the worker and the screen at `width` x `height`, and ask for the corpus, as
    /// `seamscope <folder>` does on its first frame.
    pub fn start(options: &Options, width: u16, height: u16) -> anyhow::Result<Headless> {
        let dirs = theme_dirs(&seamscope::places::Places::of(&options.settings).config_dir);
        let theme = Theme::resolve(options.theme.as_deref(), &dirs, false)?;
        let (request_tx, request_rx) = unbounded_channel();
        let (reply_tx, replies) = unbounded_channel();
        let gens = Arc::new(Generations::default());
        let setup = worker::WorkerSetup {
            corpus: options.corpus.clone(),
            settings: options.settings.clone(),
            bundle: options.bundle,
        };
        let worker_gens = Arc::clone(&gens);
        let thread = std::thread::Builder::new()
            .name("seamscope-headless-worker".into())
            .spawn(move || {
                let send = move |action: Action| {
                    let _ = reply_tx.send(action);
                };
                worker::run(setup, request_rx, &send, worker_gens);
            })?;
        let jobs = Jobs::new(request_tx, Arc::clone(&gens));
        let name = super::corpus_name(&options.corpus);
        let mut app = App::new(name, &options.settings, theme, jobs);
        app.corpus_path = options.corpus.clone();
        app.set_read_only(options.bundle);
        super::open_traces(&mut app, options.traces.clone());
        app.update(Action::Resize(width, height));
        app.update(Action::Open);
        Ok(Headless {
            app,
            replies,
            thread: Some(thread),
        })
    }

    /// Apply `action` and whatever it leads to.
    pub(crate) fn apply(&mut self, action: Action) {
        let mut next = Some(action);
        while let Some(a) = next {
            next = self.app.update(a);
        }
    }

    /// Move the text to the next cut, as `]` does.
    pub fn apply_next_cut(&mut self) {
        self.apply(Action::NextCut);
    }

    /// Type `question` into the query box and run it, as a user does.
    pub fn ask(&mut self, question: &str) {
        self.apply(Action::StartTyping);
        self.apply(Action::ClearQuery);
        self.apply(Action::Paste(question.to_string()));
        self.apply(Action::RunQuery);
    }

    /// Apply the worker's replies until `done` holds; an error if the corpus fails to open, the
    /// worker stops, or `patience` runs out first.
    pub fn pump(
        &mut self,
        what: &str,
        patience: Duration,
        done: &dyn Fn(&App) -> bool,
    ) -> anyhow::Result<()> {
        let start = Instant::now();
        while !done(&self.app) {
            if let Some(error) = &self.app.open_error {
                anyhow::bail!("the corpus did not open: {error}");
            }
            let left = patience.saturating_sub(start.elapsed());
            anyhow::ensure!(
                !left.is_zero(),
                "gave up waiting for {what} after {} s",
                patience.as_secs()
            );
            // A reply, or none within the patience left (checked again above).
            let deadline = Instant::now() + left.min(Duration::from_millis(200));
            let reply = loop {
                match self.replies.try_recv() {
                    Ok(action) => break Ok(Some(action)),
                    Err(TryRecvError::Disconnected) => break Err(()),
                    Err(TryRecvError::Empty) if Instant::now() >= deadline => break Ok(None),
                    Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(2)),
                }
            };
            match reply {
                Ok(Some(action)) => self.apply(action),
                Ok(None) => {}
                Err(()) => anyhow::bail!("the worker stopped while waiting for {what}"),
            }
        }
        Ok(())
    }

    /// Draw one frame as a terminal of the screen's size would show it.
    pub fn draw(&self) -> anyhow::Result<Terminal<TestBackend>> {
        let size = self.app.size;
        let mut terminal = Terminal::new(TestBackend::new(size.width, size.height))?;
        terminal.draw(|frame| views::draw(&self.app, frame))?;
        Ok(terminal)
    }

    /// The frame as text, one quoted line per row (the test backend's own rendering).
    pub fn screen_text(&self) -> anyhow::Result<String> {
        Ok(self.draw()?.backend().to_string())
    }

    /// Quit: the worker stops at its next request or progress report.
    pub fn finish(mut self) {
        self.app.update(Action::Quit);
        self.app.jobs.shut_down();
        let thread = self.thread.take();
        drop(self);
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real worker over a folder of files (the installed tokenizer lays them out): the
    /// first frame holds the first document while the files after it are still unread, so a
    /// folder of long PDFs is drawn before the rest are extracted.
    #[test]
    fn tui_the_first_document_is_shown_before_the_rest_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        std::fs::create_dir(&corpus).unwrap();
        for name in ["a.md", "b.md", "c.md"] {
            let body = format!("# {name}\n\n{}\n", "Words of one paragraph. ".repeat(120));
            std::fs::write(corpus.join(name), body).unwrap();
        }
        // Read last: an empty file is a skip, and the first frame cannot know it yet.
        std::fs::write(corpus.join("z-empty.txt"), "").unwrap();
        let options = crate::tui::Options {
            corpus,
            settings: seamscope::settings::Settings {
                cache_dir: Some(dir.path().join("cache")),
                ..seamscope::settings::Settings::default()
            },
            theme: None,
            view: None,
            bundle: false,
            traces: None,
        };
        let mut screen = Headless::start(&options, 200, 40).unwrap();
        let patience = Duration::from_secs(120);
        screen
            .pump("the first document", patience, &|a| a.shown.is_some())
            .unwrap();
        let shown = screen.app.shown.as_ref().unwrap();
        let paths: Vec<&str> = shown
            .open
            .corpus
            .documents
            .iter()
            .map(|d| d.path.as_str())
            .collect();
        assert_eq!(
            paths,
            ["a.md"],
            "the first frame holds the first document alone"
        );
        assert_eq!(shown.coming, Some(4), "of the four files found");
        assert!(
            shown.open.corpus.skipped.is_empty(),
            "the empty file, read after the first frame, is not known yet"
        );
        let text = screen.screen_text().unwrap();
        assert!(text.contains("Documents · 1 of 4"), "{text}");
        screen
            .pump("every document", patience, &|a| {
                a.shown.as_ref().is_some_and(|s| s.coming.is_none())
            })
            .unwrap();
        let shown = screen.app.shown.as_ref().unwrap();
        assert_eq!(shown.open.corpus.documents.len(), 3);
        assert_eq!(shown.open.corpus.skipped.len(), 1, "the empty file, named");
        screen.finish();
    }
}
