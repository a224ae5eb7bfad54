//! The worker's side of a page's own measurement ([`crate::tui::panes::PageWork`]): run on the
//! corpus shown with the engine, as a job of the worker's wrapper ([`super::job`]).

use super::Worker;
use super::job::Job;
use crate::tui::page_work::{PageOutput, PageWork};

impl Worker<'_> {
    /// Run `work` on the layout shown.
    pub(super) fn page_work(
        &mut self,
        job: &mut Job<'_>,
        work: &dyn PageWork,
    ) -> Result<Option<PageOutput>, String> {
        let (_, open) = self.shown().map_err(str::to_string)?;
        let engine = self.engine.as_mut().ok_or("the model is not loaded")?;
        work.run(engine, &open, &mut |what, done, total| {
            job.report(what, done, total);
            job.current()
        })
    }
}
