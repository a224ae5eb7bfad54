//! The worker's side of every background job, written once: a job that is no longer the newest
//! does not start, its work sees whether it still is and sends progress at most every 100 ms, a
//! panic in it comes back as that job's error, and it replies only while it is still the newest
//! (a newer request or a cancel owns the screen otherwise). Each job is then just its own work.

use std::sync::Arc;
use std::time::Instant;

use super::{PROGRESS_EVERY, Worker};
use crate::tui::action::{Action, CalibrationAction, EvalAction};
use crate::tui::background::BackgroundProgress;
use crate::tui::jobs::{Generations, JobKind};

/// Sends progress at most every [`PROGRESS_EVERY`], and always the last step.
struct Progress<'a> {
    send: &'a dyn Fn(Action),
    /// The action that carries the job's progress; none for opening a corpus and asking a
    /// question, which report their stages themselves (`Reporter`).
    wrap: Option<fn(BackgroundProgress) -> Action>,
    generation: u64,
    last: Option<Instant>,
}

impl Progress<'_> {
    fn report(&mut self, what: &str, done: usize, total: usize) {
        let Some(wrap) = self.wrap else { return };
        let due = self.last.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY) || done >= total;
        if due {
            self.last = Some(Instant::now());
            (self.send)(wrap(BackgroundProgress {
                generation: self.generation,
                what: what.to_string(),
                done,
                total,
            }));
        }
    }
}

/// Which job this is: its slot, its generation there, how its progress reaches the screen, and
/// what it does (for the message a panic leaves).
#[derive(Clone, Copy)]
pub(super) struct JobId {
    kind: JobKind,
    generation: u64,
    progress: Option<fn(BackgroundProgress) -> Action>,
    doing: &'static str,
}

impl JobId {
    /// Job `generation` of slot `kind`, doing `doing`; its progress goes out as that slot's
    /// background progress (opening and asking report their stages themselves).
    pub fn new(kind: JobKind, generation: u64, doing: &'static str) -> JobId {
        let progress: Option<fn(BackgroundProgress) -> Action> = match kind {
            JobKind::Calibration => Some(|p| Action::Calibration(CalibrationAction::Progress(p))),
            JobKind::Eval => Some(|p| Action::Evaluation(EvalAction::Progress(p))),
            JobKind::Board => Some(|p| Action::Evaluation(EvalAction::BoardProgress(p))),
            JobKind::Page => Some(Action::PageProgress),
            JobKind::Layout | JobKind::Query => None,
        };
        JobId {
            kind,
            generation,
            progress,
            doing,
        }
    }
}

/// A running job as its work sees it.
pub(super) struct Job<'a> {
    id: JobId,
    gens: Arc<Generations>,
    send: &'a dyn Fn(Action),
    progress: Progress<'a>,
    /// What the job is doing, for the message a panic leaves ("internal error while …").
    doing: &'static str,
}

impl Job<'_> {
    /// The job's generation.
    pub fn generation(&self) -> u64 {
        self.id.generation
    }

    /// Whether the job is still the newest of its slot (not superseded, not cancelled): work
    /// asks between steps and stops when it is not.
    pub fn current(&self) -> bool {
        self.gens.is_current(self.id.kind, self.id.generation)
    }

    /// Report progress (throttled): what it is doing, and how far.
    pub fn report(&mut self, what: &str, done: usize, total: usize) {
        self.progress.report(what, done, total);
    }

    /// Send a part of the result before the rest, if the job is still the newest.
    pub fn send_partial(&self, action: Action) {
        if self.current() {
            (self.send)(action);
        }
    }

    /// From here on, a panic is reported as an internal error while `doing`.
    pub fn now_doing(&mut self, doing: &'static str) {
        self.doing = doing;
    }
}

impl<'a> Worker<'a> {
    /// Run one job: not at all once a newer request superseded it; `work` with the job, a panic
    /// in it reported as an internal error while `doing`; and `reply` with its result unless it
    /// stopped early (`Ok(None)`) or is no longer the newest.
    pub(super) fn run_job<T, E: From<String>>(
        &mut self,
        id: JobId,
        work: impl FnOnce(&mut Self, &mut Job<'a>) -> Result<Option<T>, E>,
        reply: impl FnOnce(Result<T, E>) -> Action,
    ) {
        if !self.gens.is_current(id.kind, id.generation) {
            return;
        }
        let mut job = Job {
            id,
            gens: Arc::clone(&self.gens),
            send: self.send,
            progress: Progress {
                send: self.send,
                wrap: id.progress,
                generation: id.generation,
                last: None,
            },
            doing: id.doing,
        };
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(self, &mut job)))
                .unwrap_or_else(|_| Err(E::from(format!("internal error while {}", job.doing))));
        // Stopped (`Ok(None)`): a newer request owns the screen, so say nothing.
        let Some(result) = result.transpose() else {
            return;
        };
        if job.current() {
            (self.send)(reply(result));
        }
    }
}
