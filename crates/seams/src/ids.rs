//! The two kinds of id the stages pass around: chunks (evidence) and seams (pointers to two chunks).
//!
//! Both are plain indexes into the caller's own tables (a chunk table, a seam table), so any
//! pipeline can number its chunks and seams however it likes, as long as each id names one row.

use serde::{Deserialize, Serialize};

/// Index of a chunk in a corpus-wide chunk table (document order, then ordinal).
///
/// ```
/// use seams::ChunkId;
/// assert_eq!(ChunkId(7).to_string(), "7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ChunkId(pub u32);

impl std::fmt::Display for ChunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Index of a seam in a corpus-wide seam table.
///
/// A seam is only ever a pointer: the caller says which two chunks it links (the `links`
/// argument of [`fire_test`](crate::fire_test)), and its own text is never evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SeamId(pub u32);
