//! The JSON record of one query (`seamscope query --json`, and the screen's `e`): the trace plus
//! the chunks and seams it names, so the file stands alone.

use serde::Serialize;

use super::{OpenCorpus, QueryTimings};
use crate::index::vectors::SearchMode;
use crate::retrieve::Trace;

/// One chunk as the report lists it.
#[derive(Debug, Clone, Serialize)]
pub struct ChunkInfo {
    /// Its id.
    pub id: u32,
    /// Its document's path.
    pub doc: String,
    /// Its place in the document.
    pub ordinal: u32,
    /// First byte in the document.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Its token count.
    pub tokens: u32,
}

/// One seam as the report lists it.
#[derive(Debug, Clone, Serialize)]
pub struct SeamInfo {
    /// Its id.
    pub id: u32,
    /// The chunk that ends at the cut.
    pub left: u32,
    /// The chunk that starts at the cut.
    pub right: u32,
    /// First byte of the window.
    pub start: usize,
    /// One past the window's last byte.
    pub end: usize,
    /// Window tokens in the left chunk.
    pub left_tokens: u32,
    /// Window tokens in the right chunk.
    pub right_tokens: u32,
}

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
                .map(|c| ChunkInfo {
                    id: c.id.0,
                    doc: open.corpus.doc(c.doc).path.clone(),
                    ordinal: c.ordinal,
                    start: c.span.start,
                    end: c.span.end,
                    tokens: c.tokens,
                })
                .collect(),
            seams: open
                .layout
                .seams
                .iter()
                .map(|s| SeamInfo {
                    id: s.id.0,
                    left: s.left.0,
                    right: s.right.0,
                    start: s.span.start,
                    end: s.span.end,
                    left_tokens: s.left_tokens,
                    right_tokens: s.right_tokens,
                })
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
