//! The worker's side of a page's own measurement ([`crate::tui::panes::PageWork`]): run on the
//! corpus shown with the engine, progress at most every 100 ms, no reply once superseded.

use std::sync::Arc;

use super::Worker;
use super::measure::{Progress, guarded};
use crate::tui::action::{Action, PageDone};
use crate::tui::jobs::{JobKind, PageJob};

impl Worker<'_> {
    /// Run `job` on the layout shown and send what it found (or why it could not).
    pub(super) fn page_work(&mut self, generation: u64, job: PageJob) {
        if !self.gens.is_current(JobKind::Page, generation) {
            return;
        }
        let layout_generation = self.current.as_ref().map_or(0, |(g, _, _)| *g);
        let result = guarded(
            || {
                let (_, open) = self.shown().map_err(str::to_string)?;
                let gens = Arc::clone(&self.gens);
                let mut progress = Progress::new(self.send, generation, Action::PageProgress);
                let engine = self.engine.as_mut().ok_or("the model is not loaded")?;
                job.work.run(engine, &open, &mut |what, done, total| {
                    progress.report(what, done, total);
                    gens.is_current(JobKind::Page, generation)
                })
            },
            || "internal error while measuring (see the message printed on exit)".to_string(),
        );
        if !self.gens.is_current(JobKind::Page, generation) {
            return;
        }
        let result = match result {
            Ok(Some(output)) => Ok(output),
            // Stopped early without being superseded: nothing to show.
            Ok(None) => return,
            Err(e) => Err(e),
        };
        (self.send)(Action::PageDone(Box::new(PageDone {
            generation,
            page: job.page,
            layout_generation,
            result,
        })));
    }
}
