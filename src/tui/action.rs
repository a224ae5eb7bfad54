//! Every change to the screen's state is one of these actions, handled by `App::update`.
//!
//! Keys and mouse events become actions in `input.rs`; the background worker reports with
//! actions too. Nothing else changes the state, which is what makes the screen testable
//! without a terminal.

use std::fmt;
use std::sync::Arc;

use seamscope::index::BuildStage;
use seamscope::index::lineage::CorpusChanges;
use seamscope::retrieve::QueryInput;
use seamscope::session::{OpenCorpus, QueryTimings};

use super::background::{BackgroundProgress, BoardDone, Calibrated, Evaluated, SeamsPrepared};
use super::doc_atoms::DocAtoms;
use super::gold::GoldQuestions;
use super::highlight::Highlights;
use super::layout_params::LayoutParams;

/// A page of the screen: the query explorer, or one of the two measuring pages. Each is a
/// component in `panes/` (`panes::PagePane::pane`): its keys, drawing and help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Page {
    /// Documents, text, ranking, fire test and budget fill: one question at a time.
    Explore,
    /// Calibrating `m`: head-start histograms and the recommended margin.
    Calibration,
    /// The strategy comparison on the corpus's question set.
    Evaluation,
    /// The doctor: what is wrong with the cuts, before any question.
    Diagnose,
    /// An application's traced queries, ranked by how likely a cut caused a miss.
    Traces,
}

impl Page {
    /// Pages in key order (`1`, `2`, `3`, `4`, `5`).
    pub const ALL: [Page; 5] = [
        Page::Explore,
        Page::Calibration,
        Page::Evaluation,
        Page::Diagnose,
        Page::Traces,
    ];
}

/// A pane of the screen that can hold the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    /// The list of documents.
    Documents,
    /// The document's text with cuts and seam windows.
    Text,
    /// The query box.
    Query,
    /// The fused ranking.
    Ranking,
    /// The fire test of each seam.
    Fire,
    /// The budget fill, step by step.
    Budget,
    /// The context with and without Seams.
    Compare,
}

impl Pane {
    /// Panes in Tab order.
    pub const ORDER: [Pane; 7] = [
        Pane::Query,
        Pane::Documents,
        Pane::Text,
        Pane::Ranking,
        Pane::Fire,
        Pane::Budget,
        Pane::Compare,
    ];

    /// The pane's short name, for a compact screen's strip.
    pub fn label(self) -> &'static str {
        match self {
            Pane::Query => "query",
            Pane::Documents => "docs",
            Pane::Text => "text",
            Pane::Ranking => "ranking",
            Pane::Fire => "fire",
            Pane::Budget => "budget",
            Pane::Compare => "compare",
        }
    }
}

/// A setting with a slider on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slider {
    /// Seam half-width in tokens (rebuilds seams in the background).
    K,
    /// Fire margin in places (replans at once).
    M,
    /// Final budget in chunks (replans at once).
    Budget,
    /// Tokens per chunk (rebuilds everything in the background).
    ChunkTokens,
}

impl Slider {
    /// Sliders in screen order.
    pub const ALL: [Slider; 4] = [Slider::M, Slider::Budget, Slider::K, Slider::ChunkTokens];
}

/// What a background job is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStage {
    /// Installing the model and runtime (first run only).
    Setup,
    /// Fetching pdfium for a corpus that holds PDFs (first run only).
    SetupPdf,
    /// Loading the tokenizer and model.
    LoadModel,
    /// Reading the documents, counting tokens, cutting chunks and seams.
    Layout,
    /// Opening or building the indexes.
    Build(BuildStage),
    /// Highlighting code and Markdown.
    Highlight,
}

impl JobStage {
    /// What the stage is called on screen.
    pub fn label(self) -> &'static str {
        match self {
            JobStage::Setup => "installing the model (first run)",
            JobStage::SetupPdf => "fetching pdfium, the PDF engine (first run)",
            JobStage::LoadModel => "loading the model",
            JobStage::Layout => "reading, chunking and cutting seams",
            JobStage::Build(stage) => stage.describe(),
            JobStage::Highlight => "highlighting",
        }
    }

    /// The unit of `done` and `total` for this stage.
    pub fn unit(self) -> &'static str {
        match self {
            JobStage::Build(BuildStage::EmbedChunks | BuildStage::EmbedSeams) => "tokens",
            JobStage::Highlight | JobStage::Layout => "documents",
            JobStage::Build(BuildStage::UploadVectors) => "vectors",
            _ => "",
        }
    }
}

/// Progress of the layout job with generation `generation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobProgress {
    /// The job's generation.
    pub generation: u64,
    /// What it is doing.
    pub stage: JobStage,
    /// Units done.
    pub done: usize,
    /// Units in all (0 when unknown).
    pub total: usize,
    /// Time left at the stage's rate so far, once there is one.
    pub eta: Option<std::time::Duration>,
}

/// What the worker found for one question: the searched lists, reranker scores and side scores
/// the stages after search start from. The screen plans them itself, under whatever sliders are
/// set when they arrive.
#[derive(Debug, Clone)]
pub struct Searched {
    /// The question and everything its slow steps produced.
    pub input: QueryInput,
    /// Time per step (`stages`: reranking and side scoring; the screen's plan takes
    /// microseconds).
    pub timings: QueryTimings,
    /// Whether it ran on the keyword lists alone because the vectors were still being embedded
    /// (it is asked again when they arrive).
    pub dense_pending: bool,
}

/// A corpus the worker opened or rebuilt, with what the screen needs to show it.
pub struct Opened {
    /// The layout job's generation.
    pub generation: u64,
    /// The corpus, layout and indexes.
    pub open: Arc<OpenCorpus>,
    /// Syntax classes of every document.
    pub highlights: Arc<Highlights>,
    /// The atoms (fences, tables, rows, figure sentences) of every document.
    pub atoms: Arc<DocAtoms>,
    /// The chunking settings used.
    pub params: LayoutParams,
    /// The current question searched on the new layout, so both arrive together; shown the way
    /// an [`Answered`] question is.
    pub searched: Option<Searched>,
    /// The corpus' own question set (loaded once: the documents do not change with the layout).
    pub questions: Arc<GoldQuestions>,
    /// While only the first documents are laid out: how many the corpus has (more deliveries
    /// of the same job follow, each with more of them). `None` once every document is in.
    pub coming: Option<usize>,
}

impl fmt::Debug for Opened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opened")
            .field("generation", &self.generation)
            .field("params", &self.params)
            .field("chunks", &self.open.layout.chunks.len())
            .field("coming", &self.coming)
            .field(
                "searched",
                &self.searched.as_ref().map(|s| &s.input.question),
            )
            .finish()
    }
}

/// A page's background measurement's end.
#[derive(Debug)]
pub struct PageDone {
    /// The job's generation.
    pub generation: u64,
    /// The page that asked.
    pub page: Page,
    /// The layout generation it measured.
    pub layout_generation: u64,
    /// The result, or what went wrong.
    pub result: Result<super::page_work::PageOutput, String>,
}

/// A traced query to replay on the explore page, with what the app sent pinned beside
/// seamscope's answer.
#[derive(Debug, Clone)]
pub struct TracedReplay {
    /// The query as the traces page judged it: its question, what the app sent, its suspects.
    pub verdict: seamscope::traces::QueryVerdict,
    /// The searches the judged replay fused: the answer on the explore page keeps the same.
    pub search: seamscope::traces::ReplaySearch,
    /// The layout shown is not the one the query was judged on: lay the app's cuts out again
    /// (chunker `given`) before asking.
    pub relayout: bool,
}

/// The worker's reply to a question.
#[derive(Debug)]
pub struct Answered {
    /// The query's generation.
    pub generation: u64,
    /// The layout generation it ran on.
    pub layout_generation: u64,
    /// What the searches found, or a message saying what went wrong.
    pub result: Result<Searched, String>,
}

/// Everything that can change the screen's state. Handled by `App::update`.
#[derive(Debug)]
pub enum Action {
    /// Leave seamscope.
    Quit,
    /// Give the terminal back to the shell and stop (Ctrl-Z; `fg` brings the screen back).
    Suspend,
    /// Show or hide the help overlay.
    ToggleHelp,
    /// Scroll the help overlay by rows (it scrolls when taller than the screen).
    ScrollHelp(i32),
    /// Scroll the page shown to this row, where a compact screen draws it as one column
    /// taller than the screen (the calibration page, the evidence-length map).
    ScrollPage(u16),
    /// Move the keyboard focus to a pane.
    Focus(Pane),
    /// Move the focus to the next pane in Tab order.
    FocusNext,
    /// Move the focus to the previous pane in Tab order.
    FocusPrev,
    /// Start typing in the query box.
    StartTyping,
    /// Stop typing; the query text stays.
    StopTyping,
    /// Type one character at the query cursor.
    InsertChar(char),
    /// Pasted text (bracketed paste): goes into the query box as typed text, one line, never
    /// run as commands and never run as a question by a newline inside it.
    Paste(String),
    /// Delete the character before the query cursor.
    DeleteBack,
    /// Delete the character at the query cursor.
    DeleteForward,
    /// Move the query cursor by this many characters.
    MoveQueryCursor(i32),
    /// Move the query cursor to the start (false) or end (true).
    QueryCursorEdge(bool),
    /// Empty the query box.
    ClearQuery,
    /// Run the question in the query box.
    RunQuery,
    /// Open the corpus (or reopen it) with the sliders' chunk size and `k`, in the background.
    Open,
    /// Move the cursor of the focused pane by this many rows.
    MoveSelection(i32),
    /// Move the cursor of the focused pane to its first (false) or last (true) row.
    SelectEdge(bool),
    /// Put the cursor of a pane on a row of its list (a mouse click), counted from the top row shown.
    ClickRow(Pane, u16),
    /// Scroll a pane by this many rows without moving its cursor (the mouse wheel).
    Scroll(Pane, i32),
    /// Put the text cursor on the next chunk of the document.
    NextChunk,
    /// Put the text cursor on the previous chunk of the document.
    PrevChunk,
    /// Put the text cursor on the next cut (its seam).
    NextCut,
    /// Put the text cursor on the previous cut (its seam).
    PrevCut,
    /// Move a slider by this many steps.
    AdjustSlider(Slider, i32),
    /// Set a slider to a value (clamped to its range and step).
    SetSlider(Slider, usize),
    /// Enter or leave step mode.
    ToggleStepMode,
    /// Step mode: the next decision.
    StepForward,
    /// Step mode: the previous decision.
    StepBack,
    /// Switch to the next built-in theme.
    CycleTheme,
    /// Open the question picker over the corpus' `questions.jsonl`.
    OpenPicker,
    /// Move the picker's cursor by this many rows.
    PickerMove(i32),
    /// Put the picker's cursor on the first (false) or last (true) question.
    PickerEdge(bool),
    /// Ask the question under the picker's cursor, with its gold evidence shaded and judged.
    PickQuestion,
    /// Close the picker without asking.
    ClosePicker,
    /// Pin the current result (explore) or rows (evaluation) to compare with later settings,
    /// or drop the pin.
    TogglePin,
    /// Show the focused pane alone over the whole main area, or go back to all panes.
    ToggleZoom,
    /// Write the current trace as `seamscope query --json` writes it.
    SaveTrace,
    /// Write a view file (corpus, settings, question, step) that `seamscope --open` restores.
    SaveView,
    /// Copy the context's text to the clipboard (OSC 52), and to a file.
    CopyContext,
    /// The event loop carried out an effect: what to say about it.
    EffectDone {
        /// The notice.
        text: String,
        /// Whether it failed.
        error: bool,
    },
    /// Show a page: explore, calibration or evaluation.
    ShowPage(Page),
    /// Pick the next (1) or previous (-1) chunker; rebuilds everything in the background.
    CycleChunker(i32),
    /// Switch heading-path prefixes in search texts on or off; rebuilds the indexes.
    ToggleHeadingPrefix,
    /// While typing: show an older (-1) or newer (+1) question from this session's history.
    RecallQuery(i32),
    /// Switch side drop on or off (a fired seam whose one half scores below the threshold brings
    /// only the other chunk).
    ToggleSideDrop,
    /// Stop the calibration, evaluation, board or map running for the page shown.
    CancelJob,
    /// The terminal now has this size (columns, rows).
    Resize(u16, u16),
    /// The worker's progress on a layout job.
    Progress(JobProgress),
    /// A line from first-run setup.
    SetupLog(String),
    /// A layout job's documents and cuts are ready, with keyword indexes only: shown at once
    /// while the job goes on embedding.
    Previewed(Box<Opened>),
    /// A layout job finished: a corpus opened or rebuilt, its vectors in.
    Opened(Box<Opened>),
    /// A layout job failed.
    OpenFailed {
        /// The job's generation.
        generation: u64,
        /// What went wrong and what to do.
        error: String,
    },
    /// A question finished.
    Answered(Box<Answered>),
    /// The screen has the focus again: ask the worker whether the files changed.
    CheckCorpus,
    /// The files on disk differ from the corpus shown (or cannot be read).
    CorpusChanged {
        /// The check's layout generation (the corpus it compared against).
        generation: u64,
        /// Which files were added, modified or removed, or why they could not be read.
        changes: Result<CorpusChanges, String>,
    },
    /// Read the files again and rebuild (only what changed is embedded).
    Reload,
    /// The calibration page's own: its runs, its recommendation and the worker's replies.
    Calibration(CalibrationAction),
    /// The evaluation page's own: the comparison, the board and the map, and the worker's
    /// replies.
    Evaluation(EvalAction),
    /// Run a measurement in the background for the page shown.
    RunPageWork(std::sync::Arc<dyn super::page_work::PageWork>),
    /// Move the page shown's cursor by `delta` rows, within its `rows`.
    PageCursor {
        /// Rows to move (negative: up).
        delta: i32,
        /// Rows the page lists.
        rows: usize,
    },
    /// Show a place of the text on the explore page: its document, scrolled to it, the cursor on
    /// the chunk that holds it.
    GoTo {
        /// The document.
        doc: seamscope::corpus::DocId,
        /// A byte offset in it.
        byte: usize,
    },
    /// The worker's progress on a page's measurement.
    PageProgress(BackgroundProgress),
    /// A page's measurement finished or failed.
    PageDone(Box<PageDone>),
    /// Ask a traced query on the explore page, on the app's cuts, with what the app sent pinned
    /// beside the answer ("your app sent" · "with Seams").
    ReplayTraced(Box<TracedReplay>),
}

impl Action {
    /// Whether the user caused this action (a key, a click), rather than the worker or the
    /// terminal. Every variant is named, so a new one must be placed on one side.
    pub fn is_from_user(&self) -> bool {
        match self {
            Action::Calibration(action) => action.is_from_user(),
            Action::Evaluation(action) => action.is_from_user(),
            Action::Resize(..)
            | Action::Progress(_)
            | Action::SetupLog(_)
            | Action::Previewed(_)
            | Action::Opened(_)
            | Action::OpenFailed { .. }
            | Action::Answered(_)
            | Action::CorpusChanged { .. }
            | Action::PageProgress(_)
            | Action::PageDone(_)
            | Action::EffectDone { .. } => false,
            Action::Quit
            | Action::Suspend
            | Action::ToggleHelp
            | Action::ScrollHelp(_)
            | Action::ScrollPage(_)
            | Action::Focus(_)
            | Action::FocusNext
            | Action::FocusPrev
            | Action::StartTyping
            | Action::StopTyping
            | Action::InsertChar(_)
            | Action::Paste(_)
            | Action::DeleteBack
            | Action::DeleteForward
            | Action::MoveQueryCursor(_)
            | Action::QueryCursorEdge(_)
            | Action::ClearQuery
            | Action::RunQuery
            | Action::Open
            | Action::MoveSelection(_)
            | Action::SelectEdge(_)
            | Action::ClickRow(..)
            | Action::Scroll(..)
            | Action::NextChunk
            | Action::PrevChunk
            | Action::NextCut
            | Action::PrevCut
            | Action::AdjustSlider(..)
            | Action::SetSlider(..)
            | Action::ToggleStepMode
            | Action::StepForward
            | Action::StepBack
            | Action::CycleTheme
            | Action::OpenPicker
            | Action::PickerMove(_)
            | Action::PickerEdge(_)
            | Action::PickQuestion
            | Action::ClosePicker
            | Action::TogglePin
            | Action::ToggleZoom
            | Action::SaveTrace
            | Action::SaveView
            | Action::CopyContext
            | Action::ShowPage(_)
            | Action::CycleChunker(_)
            | Action::ToggleHeadingPrefix
            | Action::RecallQuery(_)
            | Action::ToggleSideDrop
            | Action::CancelJob
            | Action::CheckCorpus
            | Action::Reload
            | Action::RunPageWork(_)
            | Action::PageCursor { .. }
            | Action::GoTo { .. }
            | Action::ReplayTraced(_) => true,
        }
    }
}

/// The calibration page's actions (`2`): what its keys ask for and what the worker answers.
#[derive(Debug)]
pub enum CalibrationAction {
    /// Calibrate `m` on the corpus shown, in the background.
    Run,
    /// Set `k` and `m` to the calibration's recommendation (through the sliders: `m` replans
    /// every pane, a new `k` rebuilds the seams in the background).
    ApplyRecommended,
    /// Switch the calibration between the corpus' gold question set and sampled passages, and
    /// run it again.
    ToggleQuestions,
    /// The worker's progress on a calibration.
    Progress(BackgroundProgress),
    /// A calibration finished or failed.
    Done(Box<Calibrated>),
}

impl CalibrationAction {
    /// Whether the user caused it (a key), rather than the worker.
    pub fn is_from_user(&self) -> bool {
        match self {
            CalibrationAction::Run
            | CalibrationAction::ApplyRecommended
            | CalibrationAction::ToggleQuestions => true,
            CalibrationAction::Progress(_) | CalibrationAction::Done(_) => false,
        }
    }
}

/// The evaluation page's actions (`3`): the comparison, the strategy board and the
/// evidence-length map, what their keys ask for and what the worker answers.
#[derive(Debug)]
pub enum EvalAction {
    /// Run the strategy comparison on the corpus's question set, in the background.
    RunComparison,
    /// Run the strategy board (every boundary strategy on the corpus's gold questions, with a
    /// verdict) in the background, and show it.
    RunBoard,
    /// Draw the evidence-length map (passages at several lengths, no gold needed) in the
    /// background, and show it.
    RunMap,
    /// Show the next (1) or previous (-1) view of the evaluation page: comparison, board, map.
    CycleView(i32),
    /// Move the board's row cursor by this many rows.
    BoardMove(i32),
    /// Apply the board row under the cursor: a Seams row sets `k`, `m` and side drop on the
    /// sliders; any other row's deployment settings go to the status line.
    ApplyBoardRow,
    /// Change one of the strategy board's constraints (its verdict is judged again among the
    /// rows that satisfy them).
    CycleConstraint(BoardConstraint),
    /// The worker's progress on an evaluation (the grid, or Seams again for a new `k`).
    Progress(BackgroundProgress),
    /// An evaluation finished or could not run.
    Evaluated(Box<Evaluated>),
    /// Seams were prepared and searched again for a new `k` on the evaluation's question set.
    SeamsPrepared(Box<SeamsPrepared>),
    /// The worker's progress on a board or map.
    BoardProgress(BackgroundProgress),
    /// A board or map finished or could not run.
    BoardDone(Box<BoardDone>),
}

impl EvalAction {
    /// Whether the user caused it (a key), rather than the worker.
    pub fn is_from_user(&self) -> bool {
        match self {
            EvalAction::RunComparison
            | EvalAction::RunBoard
            | EvalAction::RunMap
            | EvalAction::CycleView(_)
            | EvalAction::BoardMove(_)
            | EvalAction::ApplyBoardRow
            | EvalAction::CycleConstraint(_) => true,
            EvalAction::Progress(_)
            | EvalAction::Evaluated(_)
            | EvalAction::SeamsPrepared(_)
            | EvalAction::BoardProgress(_)
            | EvalAction::BoardDone(_) => false,
        }
    }
}

/// A constraint the strategy board's view toggles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardConstraint {
    /// Only strategies that store each passage once (`o`).
    Once,
    /// At most so many vectors per chunk: off, 2×, 1.5× (`V`).
    MaxVectors,
    /// At most so much of the context sent twice: off, 0%, 5%, 10% (`D`).
    MaxDuplicateShare,
}
