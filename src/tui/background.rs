//! What the measuring jobs report back: calibration of `m` and the strategy comparison. Each
//! reply carries the generation of the request it answers, so a stale one is dropped.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use seamscope::board::Board;
use seamscope::board::map::EvidenceMap;
use seamscope::calibrate::CalibrationReport;
use seamscope::eval::grid::GridSettings;
use seamscope::eval::questions::Question;
use seamscope::eval::rescore::SearchedStrategy;
use seamscope::session::OpenCorpus;

use super::layout_params::LayoutParams;

/// Progress of a calibration or an evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundProgress {
    /// The job's generation.
    pub generation: u64,
    /// What it is doing, e.g. `asking questions` or `Seams k=150: searching`.
    pub what: String,
    /// Units done.
    pub done: usize,
    /// Units in all (0 when unknown).
    pub total: usize,
}

/// A calibration's end.
#[derive(Debug)]
pub struct Calibrated {
    /// The job's generation.
    pub generation: u64,
    /// The report, or what went wrong.
    pub result: Result<Arc<CalibrationReport>, String>,
    /// The best row at each scanned `k` (same questions, budget and margins), best first.
    pub k_scan: Vec<seamscope::tune::TuneRow>,
    /// The report is shown while the quick board's other strategies are still being scored
    /// beside it: a second `Calibrated` of the same generation brings them and ends the job.
    pub partial: bool,
}

/// Why an evaluation could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalProblem {
    /// The corpus has no question set at this path.
    MissingQuestions(PathBuf),
    /// The question set has problems, one message per line.
    BadQuestions {
        /// The file.
        path: PathBuf,
        /// What is wrong, line by line.
        errors: Vec<String>,
    },
    /// Anything else (the model, the cache, an empty set).
    Failed(String),
}

impl From<String> for EvalProblem {
    /// Anything else that went wrong.
    fn from(why: String) -> EvalProblem {
        EvalProblem::Failed(why)
    }
}

/// Every strategy of the comparison searched once over the question set: enough to score them
/// again at any `m` or budget without searching.
pub struct EvalRun {
    /// The corpus and layout the strategies were prepared on.
    pub open: Arc<OpenCorpus>,
    /// That layout's chunking settings.
    pub params: LayoutParams,
    /// The question file.
    pub questions_path: PathBuf,
    /// The questions, with their gold spans.
    pub questions: Arc<Vec<Question>>,
    /// Depth, RRF constant and chunk size the searches ran with (and `m`, budget at the time).
    pub settings: GridSettings,
    /// Each strategy with its kept searches, in table order (Seams last).
    pub strategies: Vec<SearchedStrategy>,
}

impl fmt::Debug for EvalRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EvalRun")
            .field("params", &self.params)
            .field("questions", &self.questions.len())
            .field(
                "strategies",
                &self.strategies.iter().map(|s| &s.label).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// An evaluation's end.
#[derive(Debug)]
pub struct Evaluated {
    /// The job's generation.
    pub generation: u64,
    /// The run, or why there is none.
    pub result: Result<EvalRun, EvalProblem>,
}

/// Seams prepared and searched again for a new `k`, on the evaluation's question set.
#[derive(Debug)]
pub struct SeamsPrepared {
    /// The job's generation.
    pub generation: u64,
    /// The Seams strategy with its kept searches, or what went wrong.
    pub result: Result<SearchedStrategy, String>,
}

/// What a board job brought back.
#[derive(Debug, Clone)]
pub enum BoardResult {
    /// The strategy board.
    Board(Arc<Board>),
    /// The evidence-length map.
    Map(Arc<EvidenceMap>),
}

/// A board job's end.
#[derive(Debug)]
pub struct BoardDone {
    /// The job's generation.
    pub generation: u64,
    /// The board or map, or what went wrong and what to do.
    pub result: Result<BoardResult, String>,
}

/// What the board says when the corpus has no usable question set.
pub const NEEDS_GOLD: &str = "the strategy board needs gold questions (questions.jsonl in the \
     corpus folder, see the manual's question file format in docs/src/introduction.md); v draws the evidence-length map, \
     which needs none";
