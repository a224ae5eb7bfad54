//! Background jobs as the screen sees them: requests to the worker, each numbered with a
//! generation, so that the newest request wins and a stale result is dropped.
//!
//! The generation counters are shared with the worker: a layout job whose generation is no
//! longer the newest stops at its next progress report (the engine's cancel hook), and the
//! worker skips queued requests that were superseded before they started.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use seamscope::retrieve::QuerySettings;
use tokio::sync::mpsc::UnboundedSender;

use super::action::{JobProgress, LayoutParams};

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
}

/// The newest generation of each kind of job, shared between the screen and the worker.
#[derive(Debug, Default)]
pub struct Generations {
    layout: AtomicU64,
    query: AtomicU64,
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

    /// Tell the worker to stop what it is doing: seamscope is quitting.
    pub fn shut_down(&self) {
        self.gens.shut_down();
    }
}
