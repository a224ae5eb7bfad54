//! `seamscope screenshots`: the real screen, driven without a terminal, written as SVG pictures
//! for the README (`assets/`). The same worker, the same `App::update`, the same views as
//! `seamscope <folder>`; only the terminal is a test buffer.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc::unbounded_channel;

use super::action::{Action, Page, Slider};
use super::app::App;
use super::jobs::{Generations, Jobs};
use super::step::Step;
use super::theme::{Theme, theme_dirs};
use super::{Options, svg, views, worker};

/// How long one stage may take before the run gives up.
const PATIENCE: Duration = Duration::from_secs(900);

/// What to picture.
pub struct Shots {
    /// The screen's size in cells.
    pub width: u16,
    /// Rows.
    pub height: u16,
    /// The folder the pictures go to.
    pub out: PathBuf,
    /// The gold question of the worked example (its id in `questions.jsonl`).
    pub question_id: String,
    /// Frames to draw and time per picture (0: just the picture).
    pub time_frames: usize,
}

/// One picture written, with the time each timed frame took to draw.
pub struct Shot {
    /// The SVG file.
    pub path: PathBuf,
    /// Draw times of the timed frames.
    pub frames: Vec<Duration>,
}

/// Drive the screen on `options.corpus` and write one SVG per page and presenter stage; returns
/// the files written (with draw times when asked).
pub fn run(options: Options, shots: &Shots) -> anyhow::Result<Vec<Shot>> {
    std::fs::create_dir_all(&shots.out)
        .with_context(|| format!("cannot create {}", shots.out.display()))?;
    let dirs = theme_dirs(&options.settings.places().config_dir);
    let theme = Theme::resolve(options.theme.as_deref(), &dirs, false)?;
    let (request_tx, request_rx) = unbounded_channel();
    let (reply_tx, mut replies) = unbounded_channel();
    let gens = Arc::new(Generations::default());
    let setup = worker::WorkerSetup {
        corpus: options.corpus.clone(),
        settings: options.settings.clone(),
    };
    let worker_gens = Arc::clone(&gens);
    let thread = std::thread::spawn(move || {
        let send = move |action: Action| {
            let _ = reply_tx.send(action);
        };
        worker::run(setup, request_rx, &send, worker_gens);
    });
    let jobs = Jobs::new(request_tx, Arc::clone(&gens));
    let name = super::corpus_name(&options.corpus);
    let mut app = App::new(name, &options.settings, theme, jobs);
    app.corpus_path = options.corpus.clone();
    app.update(Action::Resize(shots.width, shots.height));
    app.update(Action::Open);
    let mut pump = |app: &mut App, what: &str, done: &dyn Fn(&App) -> bool| {
        let start = Instant::now();
        while !done(app) {
            anyhow::ensure!(
                start.elapsed() < PATIENCE,
                "gave up waiting for {what} after {} s",
                PATIENCE.as_secs()
            );
            if let Some(error) = &app.open_error {
                anyhow::bail!("the corpus did not open: {error}");
            }
            match replies.blocking_recv() {
                Some(action) => {
                    let mut next = Some(action);
                    while let Some(a) = next {
                        next = app.update(a);
                    }
                }
                None => anyhow::bail!("the worker stopped while waiting for {what}"),
            }
        }
        Ok(())
    };
    let mut written: Vec<Shot> = Vec::new();
    let mut shoot = |app: &App, file: &str| -> anyhow::Result<()> {
        let mut terminal = Terminal::new(TestBackend::new(shots.width, shots.height))?;
        terminal.draw(|frame| views::draw(app, frame))?;
        let background = app
            .theme
            .background
            .bg
            .unwrap_or(ratatui::style::Color::Black);
        let picture = svg::render(
            terminal.backend().buffer(),
            &svg_colour(background, "#000000"),
            &svg_colour(
                app.theme.text.fg.unwrap_or(ratatui::style::Color::White),
                "#ffffff",
            ),
        );
        let path = shots.out.join(file);
        std::fs::write(&path, picture)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut frames = Vec::with_capacity(shots.time_frames);
        for _ in 0..shots.time_frames {
            let start = Instant::now();
            terminal.draw(|frame| views::draw(app, frame))?;
            frames.push(start.elapsed());
        }
        written.push(Shot { path, frames });
        Ok(())
    };

    pump(&mut app, "the corpus to open", &|a| {
        a.shown.is_some() && a.jobs.layout.is_none()
    })?;
    // The worked example: the gold question, picked as a user picks it.
    app.update(Action::OpenPicker);
    let index = app
        .gold_questions()
        .and_then(|g| g.list().iter().position(|q| q.id == shots.question_id))
        .with_context(|| {
            format!(
                "questions.jsonl of {} holds no question {}",
                options.corpus.display(),
                shots.question_id
            )
        })?;
    app.update(Action::PickerMove(index as i32));
    shoot(&app, "picker.svg")?;
    app.update(Action::PickQuestion);
    pump(&mut app, "the answer", &|a| {
        a.answer.is_some() && a.jobs.query.is_none()
    })?;
    app.notice = None;
    shoot(&app, "explore.svg")?;

    app.update(Action::ToggleStepMode);
    let all = app.current_step().map(|(all, _)| all).unwrap_or_default();
    let first_fire = all.iter().position(|s| matches!(s, Step::Fire(_)));
    let fuse = all.iter().position(|s| matches!(s, Step::Fuse));
    for (index, file) in [
        (Some(0), "presenter-1-dense.svg"),
        (fuse, "presenter-2-fusion.svg"),
        (first_fire, "presenter-3-fire-test.svg"),
        (all.len().checked_sub(1), "presenter-4-with-vs-without.svg"),
    ] {
        if let Some(i) = index {
            while app.step.is_some_and(|s| s < i) {
                app.update(Action::StepForward);
            }
            shoot(&app, file)?;
        }
    }
    app.update(Action::ToggleStepMode);

    app.update(Action::TogglePin);
    app.update(Action::AdjustSlider(Slider::M, 4));
    app.notice = None;
    shoot(&app, "pinned.svg")?;
    app.update(Action::AdjustSlider(Slider::M, -4));
    app.update(Action::TogglePin);
    app.notice = None;

    app.update(Action::ShowPage(Page::Calibration));
    app.update(Action::RunCalibration);
    pump(&mut app, "the calibration", &|a| {
        a.jobs.calibration.is_none()
            && (a.calibration.report.is_some() || a.calibration.error.is_some())
    })?;
    shoot(&app, "calibration.svg")?;

    app.update(Action::ShowPage(Page::Evaluation));
    app.update(Action::RunEvaluation);
    pump(&mut app, "the evaluation", &|a| {
        a.jobs.eval.is_none() && (!a.evaluation.rows.is_empty() || a.evaluation.problem.is_some())
    })?;
    shoot(&app, "evaluation.svg")?;

    app.update(Action::ShowPage(Page::Explore));
    app.update(Action::ToggleHelp);
    shoot(&app, "help.svg")?;

    app.update(Action::Quit);
    drop(app);
    let _ = thread.join();
    Ok(written)
}

fn svg_colour(color: ratatui::style::Color, default: &str) -> String {
    match color {
        ratatui::style::Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        _ => default.to_string(),
    }
}
