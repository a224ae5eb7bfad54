//! Background jobs as the screen sees them: requests to the worker, each numbered with a
//! generation, so that the newest request wins and a stale result is dropped.
//!
//! The generation counters are shared with the worker: a layout job whose generation is no
//! longer the newest stops at its next progress report (the engine's cancel hook), and the
//! worker skips queued requests that were superseded before they started.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use seamscope::eval::grid::GridSettings;
use seamscope::retrieve::QuerySettings;
use tokio::sync::mpsc::UnboundedSender;

use super::action::JobProgress;
use super::background::BackgroundProgress;
use super::layout_params::LayoutParams;

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
}

/// The newest generation of each kind of job, shared between the screen and the worker.
#[derive(Debug, Default)]
pub struct Generations {
    layout: AtomicU64,
    query: AtomicU64,
    calibration: AtomicU64,
    eval: AtomicU64,
    shutdown: AtomicBool,
}

impl Generations {
    /// Whether a layout job is still the newest one (and seamscope is not quitting).
    pub fn layout_is_current(&self, generation: u64) -> bool {
        !self.shutting_down() && self.layout.load(Ordering::SeqCst) == generation
    }

    /// Whether a query is still the newest one.
    pub fn query_is_current(&self, generation: u64) -> bool {
        !self.shutting_down() && self.query.load(Ordering::SeqCst) == generation
    }

    /// Whether a calibration is still the newest one (not cancelled, not quitting).
    pub fn calibration_is_current(&self, generation: u64) -> bool {
        !self.shutting_down() && self.calibration.load(Ordering::SeqCst) == generation
    }

    /// Whether an evaluation job is still the newest one (not cancelled, not quitting).
    pub fn eval_is_current(&self, generation: u64) -> bool {
        !self.shutting_down() && self.eval.load(Ordering::SeqCst) == generation
    }

    /// Tell every job to stop: seamscope is quitting.
    pub fn shut_down(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
    }

    /// Whether seamscope is quitting.
    pub fn shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }
}

/// A layout job in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutJob {
    /// Its generation.
    pub generation: u64,
    /// What it builds.
    pub params: LayoutParams,
    /// Its latest progress report.
    pub progress: Option<JobProgress>,
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

/// A calibration or evaluation in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundJob {
    /// Its generation.
    pub generation: u64,
    /// What an evaluation job does (always `Grid` for a calibration).
    pub kind: EvalJobKind,
    /// Its latest progress report.
    pub progress: Option<BackgroundProgress>,
}

/// The screen's side of the worker: numbers requests and remembers which are in flight.
#[derive(Debug)]
pub struct Jobs {
    tx: UnboundedSender<Request>,
    gens: Arc<Generations>,
    next_gen: u64,
    /// The newest layout job, while it runs.
    pub layout: Option<LayoutJob>,
    /// The newest question's generation, while it runs.
    pub query: Option<u64>,
    /// The calibration, while it runs.
    pub calibration: Option<BackgroundJob>,
    /// The evaluation job, while it runs.
    pub eval: Option<BackgroundJob>,
}

impl Jobs {
    /// Jobs that send requests on `tx` and share `gens` with the worker.
    pub fn new(tx: UnboundedSender<Request>, gens: Arc<Generations>) -> Jobs {
        Jobs {
            tx,
            gens,
            next_gen: 0,
            layout: None,
            query: None,
            calibration: None,
            eval: None,
        }
    }

    fn next(&mut self) -> u64 {
        self.next_gen += 1;
        self.next_gen
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

    /// Ask the worker whether the files on disk still match layout `generation`.
    pub fn check_changes(&mut self, generation: u64) {
        self.send(Request::CheckChanges { generation });
    }

    fn start_layout_job(
        &mut self,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
        reload: bool,
    ) -> u64 {
        let generation = self.next();
        self.gens.layout.store(generation, Ordering::SeqCst);
        self.layout = Some(LayoutJob {
            generation,
            params,
            progress: None,
        });
        self.send(Request::Open {
            generation,
            params,
            question,
            query,
            reload,
        });
        generation
    }

    /// Start a question; any older one is superseded. Returns its generation.
    pub fn start_query(&mut self, question: String, query: QuerySettings) -> u64 {
        let generation = self.next();
        self.gens.query.store(generation, Ordering::SeqCst);
        self.query = Some(generation);
        self.send(Request::Ask {
            generation,
            question,
            query,
        });
        generation
    }

    fn send(&mut self, request: Request) {
        // The worker only goes away when seamscope quits; a request sent then has no one to do it.
        let _ = self.tx.send(request);
    }

    /// The layout job `generation` is over (finished or failed); a newer one stays in flight.
    pub fn finish_layout(&mut self, generation: u64) {
        if self.is_current_layout(generation) {
            self.layout = None;
        }
    }

    /// The question `generation` is over; a newer one stays in flight.
    pub fn finish_query(&mut self, generation: u64) {
        if self.is_current_query(generation) {
            self.query = None;
        }
    }

    /// Whether `generation` is the layout job in flight.
    pub fn is_current_layout(&self, generation: u64) -> bool {
        self.layout
            .as_ref()
            .is_some_and(|job| job.generation == generation)
    }

    /// Whether `generation` is the question in flight.
    pub fn is_current_query(&self, generation: u64) -> bool {
        self.query == Some(generation)
    }

    /// Record progress of the current layout job; reports of older jobs are ignored.
    pub fn record_progress(&mut self, progress: JobProgress) -> bool {
        match &mut self.layout {
            Some(job) if job.generation == progress.generation => {
                job.progress = Some(progress);
                true
            }
            _ => false,
        }
    }

    /// Start a calibration; any older one is superseded. Returns its generation.
    pub fn start_calibration(&mut self, query: QuerySettings, gold: bool) -> u64 {
        let generation = self.next();
        self.gens.calibration.store(generation, Ordering::SeqCst);
        self.calibration = Some(BackgroundJob {
            generation,
            kind: EvalJobKind::Grid,
            progress: None,
        });
        self.send(Request::Calibrate {
            generation,
            query,
            gold,
        });
        generation
    }

    /// Start the comparison; any older evaluation job is superseded. Returns its generation.
    pub fn start_eval(&mut self, grid: GridSettings, k: usize) -> u64 {
        let generation = self.next_eval(EvalJobKind::Grid);
        self.send(Request::Evaluate {
            generation,
            grid,
            k,
        });
        generation
    }

    /// Prepare Seams again at `k`; any older evaluation job is superseded. Returns its generation.
    pub fn start_seams(&mut self, grid: GridSettings, k: usize) -> u64 {
        let generation = self.next_eval(EvalJobKind::Seams { k });
        self.send(Request::PrepareSeams {
            generation,
            k,
            grid,
        });
        generation
    }

    fn next_eval(&mut self, kind: EvalJobKind) -> u64 {
        let generation = self.next();
        self.gens.eval.store(generation, Ordering::SeqCst);
        self.eval = Some(BackgroundJob {
            generation,
            kind,
            progress: None,
        });
        generation
    }

    /// Whether `generation` is the calibration in flight.
    pub fn is_current_calibration(&self, generation: u64) -> bool {
        self.calibration
            .as_ref()
            .is_some_and(|job| job.generation == generation)
    }

    /// Whether `generation` is the evaluation job in flight.
    pub fn is_current_eval(&self, generation: u64) -> bool {
        self.eval
            .as_ref()
            .is_some_and(|job| job.generation == generation)
    }

    /// The calibration `generation` is over; a newer one stays in flight.
    pub fn finish_calibration(&mut self, generation: u64) {
        if self.is_current_calibration(generation) {
            self.calibration = None;
        }
    }

    /// The evaluation job `generation` is over; a newer one stays in flight.
    pub fn finish_eval(&mut self, generation: u64) {
        if self.is_current_eval(generation) {
            self.eval = None;
        }
    }

    /// Stop the calibration in flight; returns whether one was running.
    pub fn cancel_calibration(&mut self) -> bool {
        self.gens.calibration.store(0, Ordering::SeqCst);
        self.calibration.take().is_some()
    }

    /// Stop the evaluation job in flight; returns whether one was running.
    pub fn cancel_eval(&mut self) -> bool {
        self.gens.eval.store(0, Ordering::SeqCst);
        self.eval.take().is_some()
    }

    /// Record progress of the calibration in flight; older reports are ignored.
    pub fn record_calibration_progress(&mut self, progress: BackgroundProgress) {
        if let Some(job) = &mut self.calibration
            && job.generation == progress.generation
        {
            job.progress = Some(progress);
        }
    }

    /// Record progress of the evaluation job in flight; older reports are ignored.
    pub fn record_eval_progress(&mut self, progress: BackgroundProgress) {
        if let Some(job) = &mut self.eval
            && job.generation == progress.generation
        {
            job.progress = Some(progress);
        }
    }

    /// Tell the worker to stop what it is doing: seamscope is quitting.
    pub fn shut_down(&self) {
        self.gens.shut_down();
    }
}
