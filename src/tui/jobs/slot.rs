//! One slot per kind of background job: it numbers the requests of that kind, tells the worker
//! which one is the newest, and remembers the one in flight with its latest progress. A reply or
//! a progress report for any other generation is stale and is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The kinds of background job, each with its own slot and its own newest generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Opening the corpus, or rebuilding its layout and indexes.
    Layout,
    /// Running a question.
    Query,
    /// Calibrating `m`.
    Calibration,
    /// The strategy comparison, or Seams prepared again for a new `k`.
    Eval,
    /// The strategy board or the evidence-length map.
    Board,
    /// A page's own measurement (the doctor's).
    Page,
}

impl JobKind {
    fn index(self) -> usize {
        match self {
            JobKind::Layout => 0,
            JobKind::Query => 1,
            JobKind::Calibration => 2,
            JobKind::Eval => 3,
            JobKind::Board => 4,
            JobKind::Page => 5,
        }
    }
}

/// The newest generation of each kind of job, shared between the screen and the worker: a job
/// that is no longer the newest stops at its next check, and a queued request that was
/// superseded before it started is skipped.
#[derive(Debug, Default)]
pub struct Generations {
    newest: [AtomicU64; 6],
    shutdown: AtomicBool,
}

impl Generations {
    /// Whether `generation` is still the newest job of its kind (not superseded, not cancelled,
    /// and seamscope is not quitting).
    pub fn is_current(&self, kind: JobKind, generation: u64) -> bool {
        !self.shutting_down() && self.newest[kind.index()].load(Ordering::SeqCst) == generation
    }

    fn set_newest(&self, kind: JobKind, generation: u64) {
        self.newest[kind.index()].store(generation, Ordering::SeqCst);
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

/// The job of a slot that is in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct InFlight<J, P> {
    /// Its generation.
    pub generation: u64,
    /// What it does (the layout it builds, the kind of evaluation).
    pub what: J,
    /// Its latest progress report.
    pub progress: Option<P>,
}

/// The screen's side of one kind of job: `J` says what a job does, `P` is its progress report.
/// The newest job wins: starting one supersedes the one in flight.
#[derive(Debug)]
pub struct JobSlot<J, P> {
    kind: JobKind,
    gens: Arc<Generations>,
    /// The last generation handed out (generations start at 1; 0 means none).
    last: u64,
    in_flight: Option<InFlight<J, P>>,
}

impl<J, P> JobSlot<J, P> {
    /// An empty slot for jobs of `kind`, sharing `gens` with the worker.
    pub fn new(kind: JobKind, gens: Arc<Generations>) -> JobSlot<J, P> {
        JobSlot {
            kind,
            gens,
            last: 0,
            in_flight: None,
        }
    }

    /// Start a job that does `what`; the one in flight, if any, is superseded and the worker will
    /// drop it. Returns the new job's generation.
    pub fn start(&mut self, what: J) -> u64 {
        self.last += 1;
        self.gens.set_newest(self.kind, self.last);
        self.in_flight = Some(InFlight {
            generation: self.last,
            what,
            progress: None,
        });
        self.last
    }

    /// Whether `generation` is the job in flight.
    pub fn is_current(&self, generation: u64) -> bool {
        self.in_flight
            .as_ref()
            .is_some_and(|job| job.generation == generation)
    }

    /// Job `generation` is over (finished or failed). Returns whether it was the job in flight; a
    /// newer one stays in flight.
    pub fn finish(&mut self, generation: u64) -> bool {
        let current = self.is_current(generation);
        if current {
            self.in_flight = None;
        }
        current
    }

    /// Record progress of job `generation`; reports of older jobs are ignored.
    pub fn record(&mut self, generation: u64, progress: P) {
        if let Some(job) = &mut self.in_flight
            && job.generation == generation
        {
            job.progress = Some(progress);
        }
    }

    /// Stop the job in flight: the worker sees it is no longer current. Returns whether one was
    /// running.
    pub fn cancel(&mut self) -> bool {
        self.gens.set_newest(self.kind, 0);
        self.in_flight.take().is_some()
    }

    /// The job in flight, if any.
    pub fn in_flight(&self) -> Option<&InFlight<J, P>> {
        self.in_flight.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_job_wins_and_a_cancelled_one_is_no_longer_current() {
        let gens = Arc::new(Generations::default());
        let mut slot: JobSlot<&str, usize> = JobSlot::new(JobKind::Eval, Arc::clone(&gens));
        let older = slot.start("grid");
        let newer = slot.start("seams");
        assert!(newer > older);
        assert!(!slot.is_current(older) && !gens.is_current(JobKind::Eval, older));
        assert!(slot.is_current(newer) && gens.is_current(JobKind::Eval, newer));
        assert!(!gens.is_current(JobKind::Layout, newer), "kinds are apart");
        slot.record(older, 5);
        assert_eq!(
            slot.in_flight().and_then(|j| j.progress),
            None,
            "an older report is ignored"
        );
        slot.record(newer, 7);
        assert_eq!(slot.in_flight().and_then(|j| j.progress), Some(7));
        assert!(
            !slot.finish(older),
            "an older reply does not end the newer job"
        );
        assert!(slot.in_flight().is_some());
        assert!(slot.cancel());
        assert!(!gens.is_current(JobKind::Eval, newer));
        assert!(slot.in_flight().is_none() && !slot.cancel());
        let again = slot.start("grid");
        assert!(again > newer, "generations are never reused");
        gens.shut_down();
        assert!(!gens.is_current(JobKind::Eval, again));
    }
}
