//! The JSON record of one query (`seamscope query --json`, and the screen's `e`): the trace plus
//! the chunks and seams it names, so the file stands alone.

use serde::Serialize;

use super::{OpenCorpus, QueryTimings};
use crate::index::vectors::SearchMode;
use crate::retrieve::Trace;

pub use crate::layout::records::{ChunkInfo, SeamInfo, SeamRecord};

/// A query's trace with the layout it names.
#[derive(Debug, Clone, Serialize)]
pub struct QueryReport<'a> {
    /// Every stage of the query.
    pub trace: &'a Trace,
    /// Time per stage.
    pub timings: QueryTimings,
    /// Exact or approximate dense search.
    pub dense_search: SearchMode,
    /// Where dense search ran: `"embedded"`, or `{"chroma": {"url", "collections"}}`.
    pub dense_store: crate::index::DenseStore,
    /// Every chunk of the layout.
    pub chunks: Vec<ChunkInfo>,
    /// Every seam of the layout.
    pub seams: Vec<SeamInfo>,
    /// The question's vector as dense search used it, when the caller adds it
    /// ([`QueryReport::with_question_vector`]): with an exported bundle's vectors it reproduces
    /// the dense list. Absent when not added (and when dense search did not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_vector: Option<Vec<f32>>,
}

impl<'a> QueryReport<'a> {
    /// The report of `trace`, which ran on `open`.
    pub fn new(open: &OpenCorpus, trace: &'a Trace, timings: QueryTimings) -> Self {
        QueryReport {
            trace,
            timings,
            dense_search: open.indexes.search_mode,
            dense_store: open.indexes.store.clone(),
            chunks: open
                .layout
                .chunks
                .iter()
                .map(|c| ChunkInfo::of(c, &open.corpus))
                .collect(),
            seams: open
                .layout
                .seams
                .iter()
                .map(|s| SeamRecord::of(s, &open.corpus).brief())
                .collect(),
            question_vector: None,
        }
    }

    /// The same report recording the question's vector.
    pub fn with_question_vector(mut self, vector: Vec<f32>) -> Self {
        self.question_vector = Some(vector);
        self
    }
}
