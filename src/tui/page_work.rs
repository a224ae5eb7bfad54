//! What a page on the pane model measures in the background, as the worker, the job slots and
//! the replies see it: plain engine work and an opaque result, below the screen's state and its
//! pages (`panes.rs`), so that neither the worker nor `App` needs to know the pages.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use seamscope::session::{Engine, OpenCorpus};

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

/// A page's result, whatever its type: the page that asked for it downcasts it
/// ([`PageOutput::get`]).
#[derive(Clone)]
pub struct PageOutput(Arc<dyn Any + Send + Sync>);

impl PageOutput {
    /// Wrap a page's result.
    pub fn new<T: Any + Send + Sync>(value: T) -> PageOutput {
        PageOutput(Arc::new(value))
    }

    /// The result, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl fmt::Debug for PageOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PageOutput(..)")
    }
}
