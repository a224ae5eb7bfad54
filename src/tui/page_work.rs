//! What a page on the pane model measures in the background, as the worker, the job slots and
//! the replies see it: plain engine work and a typed result, one [`PageOutput`] variant per
//! measuring page, below the screen's state and its pages (`panes.rs`), so that neither the
//! worker nor `App` needs to know the pages.

use std::fmt;
use std::sync::Arc;

use seamscope::doctor::DoctorReport;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::traces::TracesReport;

/// What a page measures in the background: the worker runs it on the corpus shown, with the
/// engine, and the page reads the result it returns from its [`PageState`](crate::tui::app::page_state::PageState).
pub trait PageWork: Send + Sync + fmt::Debug {
    /// Measure `open`; report progress as (what, done, total) and stop early (`Ok(None)`) when
    /// `progress` returns false (a newer request or a cancel).
    fn run(
        &self,
        engine: &mut Engine,
        open: &OpenCorpus,
        progress: &mut dyn FnMut(&str, usize, usize) -> bool,
    ) -> Result<Option<PageOutput>, String>;
}

/// A page's result: one variant per page that measures in the background.
#[derive(Debug, Clone)]
pub enum PageOutput {
    /// The diagnose page's: the doctor's report.
    Doctor(Arc<DoctorReport>),
    /// The traces page's: the traces judged against the cuts.
    Traces(Arc<TracesPage>),
}

/// What the traces page shows: the report and how it was made.
#[derive(Debug)]
pub struct TracesPage {
    /// The source, as messages name it (made safe).
    pub source: String,
    /// The queries, most suspect first, and the figures over them.
    pub report: TracesReport,
    /// Chunks of the layout the replay ran on (the app's cuts).
    pub chunks: usize,
    /// Whether that layout is the one the screen showed (else it was indexed apart, and Enter
    /// lays it out on the screen first).
    pub on_shown: bool,
    /// Whether the cuts came from `--cuts` rather than from the traces.
    pub given_cuts: bool,
}

/// A page's result type, as the page reads it back from a [`PageOutput`].
pub trait PageResult: Sized {
    /// The result, if `output` holds one of this type.
    fn read(output: &PageOutput) -> Option<&Self>;
}

impl From<DoctorReport> for PageOutput {
    fn from(report: DoctorReport) -> PageOutput {
        PageOutput::Doctor(Arc::new(report))
    }
}

impl PageResult for DoctorReport {
    fn read(output: &PageOutput) -> Option<&DoctorReport> {
        match output {
            PageOutput::Doctor(report) => Some(report),
            PageOutput::Traces(_) => None,
        }
    }
}

impl From<TracesPage> for PageOutput {
    fn from(page: TracesPage) -> PageOutput {
        PageOutput::Traces(Arc::new(page))
    }
}

impl PageResult for TracesPage {
    fn read(output: &PageOutput) -> Option<&TracesPage> {
        match output {
            PageOutput::Traces(page) => Some(page),
            PageOutput::Doctor(_) => None,
        }
    }
}
