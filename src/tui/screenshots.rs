//! `seamscope screenshots`: the real screen, driven without a terminal, written as SVG pictures
//! for the README (`assets/`). The same worker, the same `App::update`, the same views as
//! `seamscope <folder>`; only the terminal is a test buffer.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::action::{Action, CalibrationAction, EvalAction, Page, Slider};
use super::app::App;
use super::headless::Headless;
use super::step::Step;
use super::{Options, svg, views};

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
    /// Passages per band of the evidence-length map drawn as `evidence-map.svg` (`None`: no
    /// map).
    pub map_per_band: Option<usize>,
    /// Traces of an application over the corpus: the traces page and a replay are pictured on
    /// a second screen opened on the app's cuts (`None`: not pictured).
    pub traces: Option<seamscope::traces::TracesSource>,
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
    let traces_options = shots.traces.clone().map(|source| Options {
        corpus: options.corpus.clone(),
        settings: options.settings.clone(),
        theme: options.theme.clone(),
        view: None,
        bundle: false,
        traces: Some(super::TracesGiven::new(source, None)),
    });
    std::fs::create_dir_all(&shots.out)
        .with_context(|| format!("cannot create {}", shots.out.display()))?;
    let corpus_name = options.corpus.file_name().map_or_else(
        || "the corpus".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut s = Shooting {
        screen: Headless::start(&options, shots.width, shots.height)?,
        shots,
        written: Vec::new(),
    };
    s.pump("the corpus to open", &|a| {
        a.shown.is_some() && a.jobs.layout.in_flight().is_none()
    })?;
    s.worked_example(&options)?;
    s.presenter()?;
    s.pinned()?;
    s.measuring_pages()?;
    let map_shot = match shots.map_per_band {
        Some(per_band) => Some(s.evidence_map(per_band, &corpus_name)?),
        None => None,
    };
    s.screen.app.update(Action::ShowPage(Page::Explore));
    s.screen.app.update(Action::ToggleHelp);
    s.shoot("help.svg")?;
    let Shooting {
        screen,
        mut written,
        ..
    } = s;
    screen.finish();
    written.extend(map_shot);
    if let Some(options) = traces_options {
        written.extend(traces(options, shots)?);
    }
    Ok(written)
}

/// The traces page on a screen opened on the app's cuts, as `seamscope <folder> --traces`
/// opens it (the traces read and judged once the corpus is shown), then its first query
/// replayed on the explore page beside what the app sent.
fn traces(mut options: Options, shots: &Shots) -> anyhow::Result<Vec<Shot>> {
    let Some(given) = &options.traces else {
        return Ok(Vec::new());
    };
    let docs = seamscope::corpus::Corpus::load(
        &options.corpus,
        &seamscope::places::load_options(&options.settings),
    )?;
    let cache_dir = seamscope::places::Places::of(&options.settings).cache_dir;
    let (cuts, read) = seamscope::traces::source::recover_cuts(&docs, &given.source, &cache_dir)?;
    options.traces = Some(given.clone().with_read(read));
    options.settings.chunker = seamscope::chunk::ChunkerKind::Given;
    options.settings.cuts_file = Some(cuts);
    let mut s = Shooting {
        screen: Headless::start(&options, shots.width, shots.height)?,
        shots,
        written: Vec::new(),
    };
    s.pump("the traces judged", &|a| {
        a.waiting_work.is_none()
            && a.jobs.page.in_flight().is_none()
            && a.page_state(Page::Traces)
                .is_some_and(|p| p.output.is_some())
    })?;
    if let Some(Err(e)) = s
        .screen
        .app
        .page_state(Page::Traces)
        .and_then(|p| p.output.clone())
    {
        anyhow::bail!("the traces could not be judged: {e}");
    }
    s.shoot("traces.svg")?;
    {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

        use super::panes::PagePane;
        let app = &mut s.screen.app;
        let enter = Page::Traces
            .pane()
            .handle_key(app, &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        if let Some(enter) = enter {
            app.update(enter);
        }
    }
    s.pump("the traced query replayed", &|a| {
        a.answer.is_some() && a.jobs.query.in_flight().is_none()
    })?;
    s.shoot("traces-replay.svg")?;
    let Shooting {
        screen, written, ..
    } = s;
    screen.finish();
    Ok(written)
}

/// A screen being pictured: the headless screen, what to picture, and the pictures so far.
struct Shooting<'a> {
    screen: Headless,
    shots: &'a Shots,
    written: Vec<Shot>,
}

impl Shooting<'_> {
    /// Apply the screen's actions until `done` holds (or give up after [`PATIENCE`]).
    fn pump(&mut self, what: &str, done: &dyn Fn(&App) -> bool) -> anyhow::Result<()> {
        self.screen.pump(what, PATIENCE, done)
    }

    /// Draw the screen as it is into `file`, timing the frames asked for.
    fn shoot(&mut self, file: &str) -> anyhow::Result<()> {
        let (shots, app) = (self.shots, &self.screen.app);
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
        seamscope::files::write_output(&path, picture.as_bytes())?;
        let mut frames = Vec::with_capacity(shots.time_frames);
        for _ in 0..shots.time_frames {
            let start = Instant::now();
            terminal.draw(|frame| views::draw(app, frame))?;
            frames.push(start.elapsed());
        }
        self.written.push(Shot { path, frames });
        Ok(())
    }

    /// The worked example: the gold question, picked as a user picks it, and its answer.
    fn worked_example(&mut self, options: &Options) -> anyhow::Result<()> {
        self.screen.app.update(Action::OpenPicker);
        let id = &self.shots.question_id;
        let index = self
            .screen
            .app
            .gold_questions()
            .and_then(|g| g.list().iter().position(|q| &q.id == id))
            .with_context(|| {
                format!(
                    "questions.jsonl of {} holds no question {id}",
                    options.corpus.display(),
                )
            })?;
        self.screen.app.update(Action::PickerMove(index as i32));
        self.shoot("picker.svg")?;
        self.screen.app.update(Action::PickQuestion);
        self.pump("the answer", &|a| {
            a.answer.is_some() && a.jobs.query.in_flight().is_none()
        })?;
        self.screen.app.notice = None;
        self.shoot("explore.svg")
    }

    /// Presenter mode: the first list, fusion, the first fire test and the closing comparison.
    fn presenter(&mut self) -> anyhow::Result<()> {
        self.screen.app.update(Action::ToggleStepMode);
        let all = self
            .screen
            .app
            .current_step()
            .map(|(all, _)| all)
            .unwrap_or_default();
        let first_fire = all.iter().position(|s| matches!(s, Step::Fire(_)));
        let fuse = all.iter().position(|s| matches!(s, Step::Fuse));
        for (index, file) in [
            (Some(0), "presenter-1-dense.svg"),
            (fuse, "presenter-2-fusion.svg"),
            (first_fire, "presenter-3-fire-test.svg"),
            (all.len().checked_sub(1), "presenter-4-with-vs-without.svg"),
        ] {
            if let Some(i) = index {
                while self.screen.app.step.is_some_and(|s| s < i) {
                    self.screen.app.update(Action::StepForward);
                }
                self.shoot(file)?;
            }
        }
        self.screen.app.update(Action::ToggleStepMode);
        Ok(())
    }

    /// Pinned settings beside a larger `m`, then back as they were.
    fn pinned(&mut self) -> anyhow::Result<()> {
        let app = &mut self.screen.app;
        app.update(Action::TogglePin);
        app.update(Action::AdjustSlider(Slider::M, 4));
        app.notice = None;
        self.shoot("pinned.svg")?;
        let app = &mut self.screen.app;
        app.update(Action::AdjustSlider(Slider::M, -4));
        app.update(Action::TogglePin);
        app.notice = None;
        Ok(())
    }

    /// The calibration and evaluation pages, each run through the screen's own job.
    fn measuring_pages(&mut self) -> anyhow::Result<()> {
        self.screen.app.update(Action::ShowPage(Page::Calibration));
        self.screen
            .app
            .update(Action::Calibration(CalibrationAction::Run));
        self.pump("the calibration", &|a| {
            a.jobs.calibration.in_flight().is_none()
                && (a.calibration.report.is_some() || a.calibration.error.is_some())
        })?;
        self.shoot("calibration.svg")?;
        self.screen.app.update(Action::ShowPage(Page::Evaluation));
        self.screen
            .app
            .update(Action::Evaluation(EvalAction::RunComparison));
        self.pump("the evaluation", &|a| {
            a.jobs.eval.in_flight().is_none()
                && (!a.evaluation.rows.is_empty() || a.evaluation.problem.is_some())
        })?;
        self.shoot("evaluation.svg")?;
        self.diagnose()
    }

    /// The diagnose page, the doctor run through the page's own key (`r`).
    fn diagnose(&mut self) -> anyhow::Result<()> {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

        use super::panes::PagePane;
        let app = &mut self.screen.app;
        app.update(Action::ShowPage(Page::Diagnose));
        let run = Page::Diagnose
            .pane()
            .handle_key(app, &KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
        if let Some(run) = run {
            app.update(run);
        }
        self.pump("the diagnosis", &|a| {
            a.jobs.page.in_flight().is_none()
                && a.page_state(Page::Diagnose)
                    .is_some_and(|s| s.output.is_some())
        })?;
        self.shoot("diagnose.svg")
    }

    /// The evidence-length map through the screen's own job (`v`): the page's map view, and
    /// the map drawn as a line chart (`evidence-map.svg`, returned).
    fn evidence_map(&mut self, per_band: usize, corpus_name: &str) -> anyhow::Result<Shot> {
        self.screen.app.board.map_per_band = per_band;
        self.screen
            .app
            .update(Action::Evaluation(EvalAction::RunMap));
        self.pump("the evidence-length map", &|a| {
            a.jobs.board.in_flight().is_none()
                && (a.board.map.is_some() || a.board.problem.is_some())
        })?;
        let Some(map) = self.screen.app.board.map.clone() else {
            let why = self.screen.app.board.problem.as_ref().map(|p| p.1.clone());
            anyhow::bail!(
                "the evidence-length map could not be drawn: {}",
                why.unwrap_or_default()
            );
        };
        self.shoot("evaluation-map.svg")?;
        let path = self.shots.out.join("evidence-map.svg");
        seamscope::files::write_output(
            &path,
            super::map_svg::render(&map, corpus_name).as_bytes(),
        )?;
        Ok(Shot {
            path,
            frames: Vec::new(),
        })
    }
}

fn svg_colour(color: ratatui::style::Color, default: &str) -> String {
    match color {
        ratatui::style::Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        _ => default.to_string(),
    }
}
