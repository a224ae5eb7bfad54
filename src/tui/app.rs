//! The screen's state and the one place it changes: [`App::update`].
//!
//! Drawing reads `&App` only. Slow work (opening, rebuilding, asking) goes to the worker as a
//! numbered request through [`Jobs`]; its replies come back as actions and are accepted only when
//! they answer the newest request. Moving `m` or the budget replans the current trace at once
//! through the engine (`OpenCorpus::replan`, microseconds, no I/O).

mod answer;
mod board;
mod bundle;
mod calibration;
mod choices;
mod doc_view;
mod evaluation;
mod list_cursor;
mod lists;
mod navigate;
pub mod page_state;
pub mod picker;
mod pinned;
mod query_box;
mod replies;
mod saving;
mod sliders;
mod step_mode;
mod traced;

#[cfg(test)]
mod board_tests;
#[cfg(test)]
mod measure_tests;
#[cfg(test)]
mod progressive_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use ratatui::layout::Rect;
use seamscope::eval::questions::Question;
use seamscope::retrieve::QuerySettings;
use seamscope::session::OpenCorpus;
use seamscope::settings::Settings;

pub use answer::Answer;
pub use board::{BoardState, EvalView};
pub use calibration::CalibrationState;
pub use doc_view::{DocView, TextGeometry};
pub use evaluation::{EvalState, Rescore};
pub use list_cursor::ListCursor;
pub use lists::{Lists, compare_rows, comparison};
pub use page_state::PageStates;
pub use pinned::{AppSent, Pinned, PinnedRows, PinnedSide, settings_label};
pub use query_box::QueryBox;
pub use sliders::SliderValues;
pub use traced::TracesGiven;

use super::action::{Action, CalibrationAction, EvalAction, Page, Pane};
use super::doc_atoms::DocAtoms;
use super::doc_rows::{DocRows, GUTTER};
use super::gold::GoldQuestions;
use super::highlight::Highlights;
use super::jobs::Jobs;
use super::layout_params::LayoutParams;
use super::screen::{Areas, Arrange};
use super::share::{Effect, ViewFile};
use super::step::{Reveal, Step, steps};
use super::theme::Theme;

/// The corpus on screen: what the newest finished layout job delivered.
#[derive(Clone)]
pub struct Shown {
    /// The layout job that built it.
    pub generation: u64,
    /// Corpus, layout and indexes.
    pub open: Arc<OpenCorpus>,
    /// Syntax classes of every document.
    pub highlights: Arc<Highlights>,
    /// The atoms of every document.
    pub atoms: Arc<DocAtoms>,
    /// The chunking settings it was built with.
    pub params: LayoutParams,
    /// The corpus' own question set, for the picker.
    pub questions: Arc<GoldQuestions>,
    /// While only the first documents are laid out: how many the corpus has.
    pub coming: Option<usize>,
}

/// A short message on the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// What to say.
    pub text: String,
    /// Whether it reports a failure.
    pub error: bool,
}

/// Everything the screen shows.
pub struct App {
    /// The corpus folder's name, for the header.
    pub corpus_name: String,
    /// The embedder, for the header, when it is not the pinned default.
    pub embedder_label: Option<String>,
    /// Styles by meaning.
    pub theme: Theme,
    /// The terminal's size.
    pub size: Rect,
    /// The page shown.
    pub page: Page,
    /// The pane with the keyboard focus (on the explore page).
    pub focus: Pane,
    /// Whether keys go into the query box.
    pub typing: bool,
    /// The help overlay, while it is open: its first row shown (it scrolls when taller than
    /// the screen).
    pub help: Option<u16>,
    /// Whether seamscope should leave.
    pub quit: bool,
    /// Whether the event loop should give the terminal back and stop (Ctrl-Z), taken by it.
    pub suspend: bool,
    /// The query box.
    pub query: QueryBox,
    /// The sliders as the user set them.
    pub sliders: SliderValues,
    /// Query settings that have no slider (depth, c), from the settings file.
    pub base_query: QuerySettings,
    /// Requests to the worker.
    pub jobs: Jobs,
    /// The corpus on screen, once opened.
    pub shown: Option<Shown>,
    /// The current question's result on the corpus shown.
    pub answer: Option<Answer>,
    /// The question last run (re-asked after a rebuild).
    pub asked: Option<String>,
    /// Step mode's position in the current result's decisions.
    pub step: Option<usize>,
    /// The document view.
    pub view: DocView,
    /// The cursors of the list panes.
    pub lists: Lists,
    /// Lines from first-run setup.
    pub setup_log: Vec<String>,
    /// Why the corpus could not be opened, when nothing is shown.
    pub open_error: Option<String>,
    /// A message on the status line.
    pub notice: Option<Notice>,
    /// The calibration page.
    pub calibration: CalibrationState,
    /// Rows the page shown is scrolled, where a compact screen draws it as one column taller
    /// than the screen (the calibration page, the evidence-length map); 0 on another page or
    /// view.
    pub scroll: u16,
    /// The evaluation page.
    pub evaluation: EvalState,
    /// The evaluation page's strategy board and evidence-length map.
    pub board: BoardState,
    /// The state of the pages built on the pane model (the doctor's): result, cursor.
    pub pages: PageStates,
    /// The side-drop threshold `d` switches on (the setting's, or the default).
    pub side_drop_threshold: f32,
    /// The gold question picked from the question set (its evidence is shaded and judged).
    pub gold: Option<Question>,
    /// The question picker's cursor, while it is open.
    pub picker: Option<ListCursor>,
    /// The pane shown alone over the whole main area (`z`).
    pub zoom: Option<Pane>,
    /// Settings pinned for comparison with the current ones (`P`).
    pub pinned: Option<Pinned>,
    /// The corpus folder or file, as given.
    pub corpus_path: std::path::PathBuf,
    /// Files to write and copies to make, for the event loop to carry out.
    pub effects: Vec<Effect>,
    /// A view file being restored (`--open`): its question and step wait for the corpus.
    pub restoring: Option<ViewFile>,
    /// Whether the corpus is a bundle opened read-only (`--bundle`): its layout cannot change.
    pub read_only: bool,
    /// The traces `--traces` named, for the traces page to read (none: the page says how to
    /// give them).
    pub traces: Option<TracesGiven>,
    /// A page's measurement to start once the corpus is shown with its vectors (`--traces`
    /// reads and judges the traces at once).
    pub waiting_work: Option<(Page, Arc<dyn crate::tui::page_work::PageWork>)>,
    /// The shown document's rows, kept between frames: (layout generation, document, width).
    doc_rows: Option<((u64, seamscope::corpus::DocId, usize), Arc<DocRows>)>,
}

impl App {
    /// A screen for the corpus called `corpus_name`, with settings, theme and a worker link.
    pub fn new(corpus_name: String, settings: &Settings, theme: Theme, jobs: Jobs) -> App {
        App {
            corpus_name,
            embedder_label: embedder_label(settings),
            theme,
            size: Rect::new(0, 0, 200, 60),
            page: Page::Explore,
            focus: Pane::Query,
            typing: false,
            help: None,
            quit: false,
            suspend: false,
            query: QueryBox::default(),
            sliders: SliderValues::from_settings(settings),
            base_query: settings.query_settings(),
            jobs,
            shown: None,
            answer: None,
            asked: None,
            step: None,
            view: DocView::default(),
            lists: Lists::default(),
            setup_log: Vec::new(),
            open_error: None,
            notice: None,
            calibration: CalibrationState::default(),
            scroll: 0,
            evaluation: EvalState::default(),
            board: BoardState::default(),
            pages: PageStates::default(),
            side_drop_threshold: settings
                .side_drop
                .unwrap_or(seamscope::retrieve::DEFAULT_SIDE_DROP),
            gold: None,
            picker: None,
            zoom: None,
            pinned: None,
            corpus_path: std::path::PathBuf::new(),
            effects: Vec::new(),
            restoring: None,
            read_only: false,
            traces: None,
            waiting_work: None,
            doc_rows: None,
        }
    }

    /// The query settings in force: the sliders' `m` and budget, the shown layout's `k`.
    pub fn query_settings(&self) -> QuerySettings {
        let k = self.shown.as_ref().map_or(self.sliders.k, |s| s.params.k);
        QuerySettings {
            k: k as u32,
            m: self.sliders.m,
            budget: self.sliders.budget,
            ..self.base_query
        }
    }

    /// The screen's rectangles at the current size (`None` when the terminal is too small).
    pub fn areas(&self) -> Option<Areas> {
        Areas::compute(self.size, &self.arrange())
    }

    /// What shapes the screen now: presenter mode, pinned settings, the zoom, the query's lines.
    pub fn arrange(&self) -> Arrange {
        let pinned = self.pinned.is_some() && self.step.is_none() && self.page == Page::Explore;
        let zoom = if self.page != Page::Explore {
            None
        } else if self.is_compact() {
            Some(self.compact_pane(pinned))
        } else {
            self.zoom
        };
        Arrange {
            step: self.step.is_some(),
            pinned,
            zoom,
            query_lines: self.query_lines(),
        }
    }

    /// Whether the terminal is too small to show every pane at once (see [`Areas::compute`]).
    pub fn is_compact(&self) -> bool {
        Areas::is_compact(self.size)
    }

    /// The one pane a compact screen shows: presenter mode's stage, else the focused pane
    /// (the zoomed one, or the text, while the query box has the focus). Pinned settings show
    /// the fire test and the budget fill in the compare pane.
    fn compact_pane(&self, pinned: bool) -> Pane {
        let pane = match self.current_step() {
            Some((all, i)) => match all.get(i) {
                Some(Step::Search(_) | Step::Fuse) | None => Pane::Ranking,
                Some(Step::Fire(_)) => Pane::Fire,
                Some(Step::Fill(_)) => Pane::Budget,
                Some(Step::Compare) => Pane::Compare,
            },
            None if self.focus != Pane::Query => self.focus,
            None => self.zoom.unwrap_or(Pane::Text),
        };
        match pane {
            Pane::Fire | Pane::Budget if pinned => Pane::Compare,
            pane => pane,
        }
    }

    /// The query box's lines: 0 when the question fits on one line beside the sliders, else
    /// the lines it takes across the whole width (at most 3), so the whole question shows.
    pub fn query_lines(&self) -> u16 {
        // The measuring pages keep their rows: the question is the explore page's.
        if self.page != Page::Explore {
            return 0;
        }
        let wide = usize::from(self.size.width.saturating_sub(2));
        if self.is_compact() {
            // The query box has the whole width already.
            return self.query.line_count(wide).min(3) as u16;
        }
        let narrow = self
            .size
            .width
            .saturating_sub(Areas::sliders_width(self.size.width) + 2);
        if self.query.line_count(usize::from(narrow)) <= 1 {
            return 0;
        }
        self.query.line_count(wide).min(3) as u16
    }

    /// Columns and rows of the document view.
    pub fn text_geometry(&self) -> TextGeometry {
        match self.areas() {
            Some(a) => {
                let body = a.body(Pane::Text);
                TextGeometry {
                    width: usize::from(body.width).saturating_sub(GUTTER),
                    height: usize::from(body.height),
                }
            }
            None => TextGeometry {
                width: 60,
                height: 20,
            },
        }
    }

    /// Rows a pane's list shows.
    pub fn list_height(&self, pane: Pane) -> usize {
        self.areas().map_or(10, |a| a.body_height(pane))
    }

    /// Step mode's decisions for the current result, and the one under test.
    pub fn current_step(&self) -> Option<(Vec<Step>, usize)> {
        let index = self.step?;
        let answer = self.answer.as_ref()?;
        Some((steps(&answer.trace), index))
    }

    /// How much of the current result the panes show: everything, or what presenter mode has
    /// reached (`None` without a result).
    pub fn reveal(&self) -> Option<Reveal> {
        let answer = self.answer.as_ref()?;
        Some(match self.current_step() {
            Some((all, i)) => match all.get(i) {
                Some(step) => Reveal::at(&answer.trace, *step),
                None => Reveal::all(&answer.trace),
            },
            None => Reveal::all(&answer.trace),
        })
    }

    /// The search list the ranking pane shows instead of the fused ranking (presenter mode's
    /// search steps).
    pub fn ranking_list(&self) -> Option<usize> {
        match self.current_step() {
            Some((all, i)) => match all.get(i) {
                Some(Step::Search(list)) => Some(*list),
                _ => None,
            },
            None => None,
        }
    }

    /// Apply one action; returns a follow-up action to apply next, if any.
    pub fn update(&mut self, action: Action) -> Option<Action> {
        let next = self.apply(action);
        self.refresh_doc_rows();
        next
    }

    /// The rows of document `doc` at `width` columns: the ones kept for the document shown, or
    /// built now for any other.
    pub fn doc_rows(&self, doc: seamscope::corpus::DocId, width: usize) -> Arc<DocRows> {
        match (&self.doc_rows, &self.shown) {
            (Some((key, rows)), Some(shown)) if *key == (shown.generation, doc, width) => {
                Arc::clone(rows)
            }
            (_, Some(shown)) => Arc::new(match shown.open.corpus.documents.get(doc.0 as usize) {
                Some(d) => DocRows::build(&d.text, &shown.open.layout, doc, width),
                None => DocRows::default(),
            }),
            _ => Arc::new(DocRows::default()),
        }
    }

    /// Keep the shown document's rows for drawing: rebuilt only when the layout, the document or
    /// the text pane's width changes, not on every frame.
    fn refresh_doc_rows(&mut self) {
        let Some(shown) = &self.shown else {
            self.doc_rows = None;
            return;
        };
        let width = self.text_geometry().width;
        let key = (shown.generation, self.view.doc, width);
        if self.doc_rows.as_ref().is_some_and(|(k, _)| *k == key) {
            return;
        }
        let rows = match shown.open.corpus.documents.get(self.view.doc.0 as usize) {
            Some(d) => DocRows::build(&d.text, &shown.open.layout, self.view.doc, width),
            None => DocRows::default(),
        };
        self.doc_rows = Some((key, Arc::new(rows)));
    }

    /// Route an action to the part of the state it changes. One match names every action (the
    /// pages' own actions go to the page's match, which names each of them too): an action
    /// added to the enum and routed nowhere does not compile. No arm here or in the pages'
    /// matches is `_` (`tests/architecture/actions_routed.rs` keeps it so).
    fn apply(&mut self, action: Action) -> Option<Action> {
        if action.is_from_user() {
            self.notice = None;
        }
        match action {
            // Quitting, the help, the theme, the page, the size, pinning and saving.
            Action::Quit => self.quit(),
            Action::Suspend => self.suspend = true,
            Action::ToggleHelp => self.help = if self.help.is_some() { None } else { Some(0) },
            Action::ScrollHelp(delta) => {
                if let Some(row) = &mut self.help {
                    *row = (i32::from(*row) + delta).clamp(0, 1000) as u16;
                }
            }
            Action::ScrollPage(row) => self.scroll = row,
            Action::CycleTheme => self.cycle_theme(),
            Action::ShowPage(page) => self.show_page(page),
            Action::Resize(width, height) => self.resize(width, height),
            Action::EffectDone { text, error } => self.notice = Some(Notice { text, error }),
            Action::TogglePin => self.toggle_pin(),
            Action::SaveTrace => self.save_trace(),
            Action::SaveView => self.save_view(),
            Action::CopyContext => self.copy_context(),
            // The query box and the question picker.
            Action::StartTyping => self.start_typing(),
            Action::StopTyping => self.typing = false,
            Action::InsertChar(c) => self.query.insert(c),
            Action::Paste(text) => self.paste(&text),
            Action::DeleteBack => self.query.delete_back(),
            Action::DeleteForward => self.query.delete_forward(),
            Action::MoveQueryCursor(delta) => self.query.move_cursor(delta),
            Action::QueryCursorEdge(end) => self.query.move_to_edge(end),
            Action::ClearQuery => self.query.clear(),
            Action::RecallQuery(delta) => self.query.recall(delta),
            Action::RunQuery => self.run_typed_query(),
            Action::OpenPicker => self.open_picker(),
            Action::PickerMove(delta) => self.picker_move(delta),
            Action::PickerEdge(end) => self.picker_edge(end),
            Action::PickQuestion => self.pick_question(),
            Action::ClosePicker => self.picker = None,
            // The explore page: focus, zoom, lists, the document view and presenter mode.
            Action::Focus(pane) => self.focus(pane),
            Action::FocusNext => self.cycle_focus(1),
            Action::FocusPrev => self.cycle_focus(-1),
            Action::ToggleZoom => self.toggle_zoom(),
            Action::MoveSelection(delta) => self.move_selection(delta),
            Action::SelectEdge(end) => self.select_edge(end),
            Action::ClickRow(pane, row) => self.click_row(pane, row),
            Action::Scroll(pane, delta) => self.scroll(pane, delta),
            Action::NextChunk => self.with_view(|v, open, geo| v.step_chunk(1, open, geo)),
            Action::PrevChunk => self.with_view(|v, open, geo| v.step_chunk(-1, open, geo)),
            Action::NextCut => self.with_view(|v, open, geo| v.step_cut(1, open, geo)),
            Action::PrevCut => self.with_view(|v, open, geo| v.step_cut(-1, open, geo)),
            Action::ToggleStepMode => self.toggle_step_mode(),
            Action::StepForward => self.step_by(1),
            Action::StepBack => self.step_by(-1),
            // The sliders and chunking.
            Action::AdjustSlider(slider, steps) => self.adjust_slider(slider, steps),
            Action::SetSlider(slider, value) => self.set_slider(slider, value),
            Action::CycleChunker(steps) => self.cycle_chunker(steps),
            Action::ToggleHeadingPrefix => self.toggle_heading_prefix(),
            Action::ToggleSideDrop => self.toggle_side_drop(),
            Action::CancelJob => self.cancel_job(),
            // The measuring pages' own actions.
            Action::Calibration(action) => return self.apply_calibration(action),
            Action::Evaluation(action) => self.apply_evaluation(action),
            // The pages on the pane model: their work, cursor and places in the text.
            Action::RunPageWork(work) => self.run_page_work(work),
            Action::PageCursor { delta, rows } => self.page_cursor(delta, rows),
            Action::GoTo { doc, byte } => self.go_to(doc, byte),
            Action::PageProgress(progress) => self.jobs.page.record(progress.generation, progress),
            Action::PageDone(done) => self.page_done(*done),
            Action::ReplayTraced(replay) => self.replay_traced(*replay),
            // Opening and asking, the worker's replies, and the corpus folder's changes.
            Action::Open => self.start_layout(),
            Action::Progress(progress) => self.jobs.layout.record(progress.generation, progress),
            Action::SetupLog(line) => self.log_setup(&line),
            Action::Previewed(opened) => return self.opened(*opened, false),
            Action::Opened(opened) => return self.opened(*opened, true),
            Action::CheckCorpus => self.check_corpus(),
            Action::CorpusChanged {
                generation,
                changes,
            } => self.corpus_changed(generation, changes),
            Action::Reload => self.reload(),
            Action::OpenFailed { generation, error } => self.open_failed(generation, error),
            Action::Answered(answered) => self.answered(*answered),
        }
        None
    }

    /// The calibration page's actions.
    fn apply_calibration(&mut self, action: CalibrationAction) -> Option<Action> {
        match action {
            CalibrationAction::Run => self.run_calibration(),
            CalibrationAction::ApplyRecommended => return self.apply_recommended_m(),
            CalibrationAction::ToggleQuestions => self.toggle_calibration_questions(),
            CalibrationAction::Progress(progress) => {
                self.jobs.calibration.record(progress.generation, progress)
            }
            CalibrationAction::Done(calibrated) => self.calibrated(*calibrated),
        }
        None
    }

    /// The evaluation page's actions: the comparison, the board and the map.
    fn apply_evaluation(&mut self, action: EvalAction) {
        match action {
            EvalAction::RunComparison => {
                self.board.view = EvalView::Comparison;
                self.run_evaluation()
            }
            EvalAction::RunBoard => self.run_board(),
            EvalAction::RunMap => self.run_map(),
            EvalAction::CycleView(step) => self.cycle_eval_view(step),
            EvalAction::BoardMove(delta) => self.board_move(delta),
            EvalAction::ApplyBoardRow => self.apply_board_row(),
            EvalAction::CycleConstraint(c) => self.cycle_constraint(c),
            EvalAction::Progress(progress) => self.jobs.eval.record(progress.generation, progress),
            EvalAction::Evaluated(evaluated) => self.evaluated(*evaluated),
            EvalAction::SeamsPrepared(prepared) => self.seams_prepared(*prepared),
            EvalAction::BoardProgress(progress) => {
                self.jobs.board.record(progress.generation, progress)
            }
            EvalAction::BoardDone(done) => self.board_done(*done),
        }
    }

    fn focus(&mut self, pane: Pane) {
        self.focus = pane;
        self.typing = pane == Pane::Query;
    }

    /// Leave seamscope, telling the worker to stop.
    fn quit(&mut self) {
        self.quit = true;
        self.jobs.shut_down();
    }

    /// The terminal's new size: lists keep their cursors on screen.
    fn resize(&mut self, width: u16, height: u16) {
        self.size = Rect::new(0, 0, width, height);
        self.clamp_lists();
    }

    /// Pasted text goes into the query box as typed text.
    fn paste(&mut self, text: &str) {
        self.start_typing();
        self.query.insert_str(text);
    }

    /// Show a page; the keyboard leaves the query box.
    fn show_page(&mut self, page: Page) {
        if page != self.page {
            self.scroll = 0;
        }
        self.page = page;
        self.typing = false;
    }

    /// Put the keyboard into the query box, on the explore page.
    fn start_typing(&mut self) {
        self.page = Page::Explore;
        self.focus(Pane::Query);
    }

    /// Show the focused pane alone (the text when the query box has the focus), or all panes.
    fn toggle_zoom(&mut self) {
        self.zoom = match self.zoom {
            Some(_) => None,
            None if self.focus != Pane::Query => Some(self.focus),
            None => Some(Pane::Text),
        };
        if let Some(pane) = self.zoom {
            self.focus = pane;
            self.typing = false;
        }
        self.clamp_lists();
    }

    /// Switch to the next built-in theme and say which.
    fn cycle_theme(&mut self) {
        self.theme = self.theme.next_builtin();
        self.notice = Some(Notice {
            text: format!("theme: {}", self.theme.name),
            error: false,
        });
    }

    /// Calibrate on the other question source (gold set or sampled passages).
    fn toggle_calibration_questions(&mut self) {
        self.calibration.sampled = !self.calibration.sampled;
        self.run_calibration();
    }

    /// Keep the last lines of first-run setup, made safe for the terminal.
    fn log_setup(&mut self, line: &str) {
        self.setup_log.push(seamscope::text::safe(line));
        let excess = self.setup_log.len().saturating_sub(8);
        self.setup_log.drain(..excess);
    }

    fn cycle_focus(&mut self, step: i32) {
        // Under a zoom, Tab zooms the next pane; on a compact screen it shows the next pane (the
        // query box included, which stays on screen); otherwise only panes on screen take the
        // focus (pinned settings hide the budget fill).
        let areas = self.areas();
        let compact = self.is_compact();
        let zoomed = self.zoom.is_some() && !compact;
        let order: Vec<Pane> = Pane::ORDER
            .into_iter()
            .filter(|p| {
                let hidden_by_pin = self.arrange().pinned && matches!(p, Pane::Budget | Pane::Fire);
                if compact {
                    !hidden_by_pin
                } else if zoomed {
                    *p != Pane::Query && !hidden_by_pin
                } else {
                    areas.is_none_or(|a| a.is_shown(*p))
                }
            })
            .collect();
        if order.is_empty() {
            return;
        }
        let at = order.iter().position(|p| *p == self.focus).unwrap_or(0) as i32;
        let next = (at + step).rem_euclid(order.len() as i32) as usize;
        let pane = order[next];
        if self.zoom.is_some() && pane != Pane::Query {
            self.zoom = Some(pane);
        }
        self.focus(pane);
    }

    /// Run the question in the query box (Enter).
    fn run_typed_query(&mut self) {
        // A question typed by hand is not the picked gold question any more.
        if self.query.question().as_deref().map(str::trim)
            != self.gold.as_ref().map(|g| g.question.trim())
        {
            self.gold = None;
        }
        self.run_query();
    }

    fn run_query(&mut self) {
        let Some(question) = self.query.question() else {
            self.notice = Some(Notice {
                text: "type a question first, then press Enter".into(),
                error: true,
            });
            return;
        };
        if let Err(e) = seamscope::session::check_question(&question) {
            self.notice = Some(Notice {
                text: e.to_string(),
                error: true,
            });
            return;
        }
        self.query.remember(&question);
        self.asked = Some(question.clone());
        self.typing = false;
        self.focus = Pane::Ranking;
        self.notice = None;
        if self.shown.is_some() {
            let query = self.query_settings();
            self.jobs.start_query(question, query);
        } else {
            self.notice = Some(Notice {
                text: "the question runs as soon as the corpus is open".into(),
                error: false,
            });
        }
    }
}

/// The embedder as the header names it: `None` for the pinned default; never credentials.
pub fn embedder_label(settings: &Settings) -> Option<String> {
    seamscope::embed::spec::EmbedderSpec::parse(settings.embedder.as_deref().unwrap_or(""))
        .ok()
        .and_then(|spec| spec.label(settings.embed_model.as_deref()))
        .map(|label| seamscope::text::safe_name(&label))
}
