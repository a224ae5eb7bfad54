//! Ranked lists: what one search (dense or keyword) returns, in rank order.
//!
//! Ranks are 1-based positions in a list. Raw scores are kept for display only: each list scores on
//! its own scale (cosine similarity, BM25), so no stage ever compares scores from different lists.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ChunkId;
use crate::SeamId;

/// One retrievable entry: a chunk (evidence) or a seam (a pointer to two chunks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryRef {
    /// A chunk, returned as evidence.
    Chunk(ChunkId),
    /// A seam window, only ever a pointer to its two linked chunks.
    Seam(SeamId),
}

impl EntryRef {
    /// The chunk this entry is, if it is a chunk.
    pub fn chunk(self) -> Option<ChunkId> {
        match self {
            EntryRef::Chunk(id) => Some(id),
            EntryRef::Seam(_) => None,
        }
    }

    /// The seam this entry is, if it is a seam.
    pub fn seam(self) -> Option<SeamId> {
        match self {
            EntryRef::Seam(id) => Some(id),
            EntryRef::Chunk(_) => None,
        }
    }

    /// Whether this entry is a seam.
    pub fn is_seam(self) -> bool {
        matches!(self, EntryRef::Seam(_))
    }

    /// A total order used only to break exact ties: chunks before seams, then by id.
    pub(crate) fn tie_key(self) -> (u8, u32) {
        match self {
            EntryRef::Chunk(id) => (0, id.0),
            EntryRef::Seam(id) => (1, id.0),
        }
    }
}

impl fmt::Display for EntryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryRef::Chunk(id) => write!(f, "chunk {}", id.0),
            EntryRef::Seam(id) => write!(f, "seam {}", id.0),
        }
    }
}

/// Which search produced a ranked list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListSource {
    /// Vector search over chunks and seams together.
    Dense,
    /// BM25 over the chunk collection, with the chunks' own statistics.
    KeywordChunks,
    /// BM25 over the seam collection, with the seams' own statistics.
    KeywordSeams,
}

impl ListSource {
    /// A short name for tables and traces.
    pub fn label(self) -> &'static str {
        match self {
            ListSource::Dense => "dense",
            ListSource::KeywordChunks => "bm25 chunks",
            ListSource::KeywordSeams => "bm25 seams",
        }
    }
}

/// One search hit: an entry and the raw score its own search gave it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The entry found.
    pub entry: EntryRef,
    /// The raw score on this list's own scale; never compared with other lists.
    pub score: f32,
}

/// The hits of one search, best first: `hits[0]` has rank 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedList {
    /// The search that produced the list.
    pub source: ListSource,
    /// Hits in rank order.
    pub hits: Vec<Hit>,
}

impl RankedList {
    /// A list from its source and hits already in rank order.
    pub fn new(source: ListSource, hits: Vec<Hit>) -> Self {
        Self { source, hits }
    }

    /// A list from entries in rank order, with scores that fall with rank (for tests and imports).
    pub fn from_entries(source: ListSource, entries: impl IntoIterator<Item = EntryRef>) -> Self {
        let hits = entries
            .into_iter()
            .enumerate()
            .map(|(i, entry)| Hit {
                entry,
                score: 1.0 / (i as f32 + 1.0),
            })
            .collect();
        Self { source, hits }
    }

    /// The same list cut to its first `depth` hits.
    pub fn truncated(&self, depth: usize) -> Self {
        Self {
            source: self.source,
            hits: self.hits.iter().take(depth).copied().collect(),
        }
    }
}
