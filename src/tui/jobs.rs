//! Background jobs as the screen sees them: requests to the worker, each numbered with a
//! generation by its kind's [`JobSlot`], so that the newest request wins and a stale result is
//! dropped.
//!
//! The newest generations are shared with the worker ([`Generations`]): a layout job whose
//! generation is no longer the newest stops at its next progress report (the engine's cancel
//! hook), and the worker skips queued requests that were superseded before they started.

mod slot;

use std::sync::Arc;

use seamscope::board::BoardOptions;
use seamscope::board::map::MapOptions;
use seamscope::eval::grid::GridSettings;
use seamscope::retrieve::QuerySettings;
use tokio::sync::mpsc::UnboundedSender;

use super::action::{JobProgress, Page};
use super::background::BackgroundProgress;
use super::layout_params::LayoutParams;
use super::page_work::PageWork;

pub use slot::{Generations, JobKind, JobSlot};

/// What the screen asks the worker to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Open the corpus, or rebuild its layout and indexes, with these chunking settings.
    Open {
        /// The job's generation.
        generation: u64,
        /// Chunk size and seam half-width.
        params: LayoutParams,
        /// The question to re-ask on the new layout, if one was asked.
        question: Option<String>,
        /// The query settings for that question.
        query: QuerySettings,
        /// Read the files again instead of reusing the documents in memory.
        reload: bool,
    },
    /// Compare the files on disk with the corpus shown; reply only when they differ.
    CheckChanges {
        /// The layout generation shown.
        generation: u64,
    },
    /// Run a question on the current layout.
    Ask {
        /// The query's generation.
        generation: u64,
        /// The question.
        question: String,
        /// The query settings.
        query: QuerySettings,
    },
    /// Calibrate `m` on the current layout, and scan `k`.
    Calibrate {
        /// The job's generation.
        generation: u64,
        /// Depth and RRF constant of the searches, and the budget every margin is scored at.
        query: QuerySettings,
        /// Use the corpus' questions.jsonl (gold evidence) when there is one.
        gold: bool,
    },
    /// Run the strategy comparison on the current layout's question set.
    Evaluate {
        /// The job's generation.
        generation: u64,
        /// Budget, `m`, depth and RRF constant (the chunk size comes from the layout).
        grid: GridSettings,
        /// Seam half-width of the Seams strategy.
        k: usize,
    },
    /// Prepare and search Seams again at a new `k` on the last evaluation's question set.
    PrepareSeams {
        /// The job's generation (an evaluation generation).
        generation: u64,
        /// The new half-width.
        k: usize,
        /// The settings of the evaluation.
        grid: GridSettings,
    },
    /// Run a page's measurement on the current layout.
    PageWork {
        /// The job's generation.
        generation: u64,
        /// The page and what it measures.
        job: PageJob,
    },
    /// Run the strategy board or draw the evidence-length map on the current layout.
    Board {
        /// The job's generation.
        generation: u64,
        /// What to measure, with its knobs (boxed: the options are large).
        job: Box<BoardJob>,
        /// The final budget every row is scored at (the slider's).
        budget: usize,
    },
}

/// A page's measurement as a request carries it.
#[derive(Debug, Clone)]
pub struct PageJob {
    /// The page that asked.
    pub page: Page,
    /// What it measures.
    pub work: Arc<dyn PageWork>,
}

impl PartialEq for PageJob {
    /// Two requests are the same when they come from the same page with the same work.
    fn eq(&self, other: &Self) -> bool {
        self.page == other.page && Arc::ptr_eq(&self.work, &other.work)
    }
}

/// What a board job measures.
#[derive(Debug, Clone, PartialEq)]
pub enum BoardJob {
    /// Every boundary strategy on the corpus's gold questions (`tune --strategies all`).
    Strategies(BoardOptions),
    /// The evidence-length map on passages drawn at several lengths (`tune --map`).
    Map(MapOptions),
}

impl BoardJob {
    /// Which kind of board job this is.
    pub fn kind(&self) -> BoardJobKind {
        match self {
            BoardJob::Strategies(_) => BoardJobKind::Strategies,
            BoardJob::Map(_) => BoardJobKind::Map,
        }
    }
}

/// The kind of a board job, as the screen shows it while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardJobKind {
    /// The strategy board.
    Strategies,
    /// The evidence-length map.
    Map,
}

/// What an evaluation job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalJobKind {
    /// The whole comparison.
    Grid,
    /// Seams again at a new `k`.
    Seams {
        /// The new half-width.
        k: usize,
    },
}

/// The screen's side of the worker: one slot per kind of job, and the channel requests go on.
#[derive(Debug)]
pub struct Jobs {
    tx: UnboundedSender<Request>,
    gens: Arc<Generations>,
    /// The newest layout job (the chunking settings it builds), while it runs.
    pub layout: JobSlot<LayoutParams, JobProgress>,
    /// The newest question, while it runs.
    pub query: JobSlot<(), ()>,
    /// The calibration, while it runs.
    pub calibration: JobSlot<(), BackgroundProgress>,
    /// The evaluation job, while it runs.
    pub eval: JobSlot<EvalJobKind, BackgroundProgress>,
    /// The strategy board or evidence-length map, while it runs.
    pub board: JobSlot<BoardJobKind, BackgroundProgress>,
    /// A page's own measurement (which page asked), while it runs.
    pub page: JobSlot<Page, BackgroundProgress>,
}

impl Jobs {
    /// Jobs that send requests on `tx` and share `gens` with the worker.
    pub fn new(tx: UnboundedSender<Request>, gens: Arc<Generations>) -> Jobs {
        Jobs {
            tx,
            layout: JobSlot::new(JobKind::Layout, Arc::clone(&gens)),
            query: JobSlot::new(JobKind::Query, Arc::clone(&gens)),
            calibration: JobSlot::new(JobKind::Calibration, Arc::clone(&gens)),
            eval: JobSlot::new(JobKind::Eval, Arc::clone(&gens)),
            board: JobSlot::new(JobKind::Board, Arc::clone(&gens)),
            page: JobSlot::new(JobKind::Page, Arc::clone(&gens)),
            gens,
        }
    }

    /// Start a layout job; any older one is superseded and will stop. Returns its generation.
    pub fn start_layout(
        &mut self,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
    ) -> u64 {
        self.start_layout_job(params, question, query, false)
    }

    /// Start a layout job that reads the files again first (`R`, after they changed on disk).
    pub fn start_reload(
        &mut self,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
    ) -> u64 {
        self.start_layout_job(params, question, query, true)
    }

    fn start_layout_job(
        &mut self,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
        reload: bool,
    ) -> u64 {
        let generation = self.layout.start(params);
        self.send(Request::Open {
            generation,
            params,
            question,
            query,
            reload,
        });
        generation
    }

    /// Ask the worker whether the files on disk still match layout `generation`.
    pub fn check_changes(&mut self, generation: u64) {
        self.send(Request::CheckChanges { generation });
    }

    /// Start a question; any older one is superseded. Returns its generation.
    pub fn start_query(&mut self, question: String, query: QuerySettings) -> u64 {
        let generation = self.query.start(());
        self.send(Request::Ask {
            generation,
            question,
            query,
        });
        generation
    }

    /// Start a calibration; any older one is superseded. Returns its generation.
    pub fn start_calibration(&mut self, query: QuerySettings, gold: bool) -> u64 {
        let generation = self.calibration.start(());
        self.send(Request::Calibrate {
            generation,
            query,
            gold,
        });
        generation
    }

    /// Start the comparison; any older evaluation job is superseded. Returns its generation.
    pub fn start_eval(&mut self, grid: GridSettings, k: usize) -> u64 {
        let generation = self.eval.start(EvalJobKind::Grid);
        self.send(Request::Evaluate {
            generation,
            grid,
            k,
        });
        generation
    }

    /// Prepare Seams again at `k`; any older evaluation job is superseded. Returns its generation.
    pub fn start_seams(&mut self, grid: GridSettings, k: usize) -> u64 {
        let generation = self.eval.start(EvalJobKind::Seams { k });
        self.send(Request::PrepareSeams {
            generation,
            k,
            grid,
        });
        generation
    }

    /// Start a board or map; any older board job is superseded. Returns its generation.
    pub fn start_board(&mut self, job: BoardJob, budget: usize) -> u64 {
        let generation = self.board.start(job.kind());
        self.send(Request::Board {
            generation,
            job: Box::new(job),
            budget,
        });
        generation
    }

    /// Start a page's measurement; any older one (of any page) is superseded. Returns its
    /// generation.
    pub fn start_page_work(&mut self, page: Page, work: Arc<dyn PageWork>) -> u64 {
        let generation = self.page.start(page);
        self.send(Request::PageWork {
            generation,
            job: PageJob { page, work },
        });
        generation
    }

    fn send(&mut self, request: Request) {
        // The worker only goes away when seamscope quits; a request sent then has no one to do it.
        let _ = self.tx.send(request);
    }

    /// Tell the worker to stop what it is doing: seamscope is quitting.
    pub fn shut_down(&self) {
        self.gens.shut_down();
    }
}
