//! Chunks and seams as every listing writes them: the query report, `seamscope chunks --json`
//! and a bundle's `chunks.jsonl` / `seams.jsonl`, which the bundle reader reads back. Plain
//! records of a layout, below both the session and the bundle format.

use serde::{Deserialize, Serialize};

use crate::chunk::Chunk;
use crate::corpus::Corpus;
use crate::seam::Seam;

/// One chunk as every listing writes it: the query report, `seamscope chunks --json` and a
/// bundle's `chunks.jsonl` (the last two add their own fields beside it, and the bundle reader
/// reads it back).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The first and last page its text is on, for a paged document (a PDF); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<[u32; 2]>,
}

impl ChunkInfo {
    /// The record of `chunk`, a chunk of `corpus`.
    pub fn of(chunk: &Chunk, corpus: &Corpus) -> ChunkInfo {
        ChunkInfo {
            id: chunk.id.0,
            doc: corpus.doc(chunk.doc).path.clone(),
            ordinal: chunk.ordinal,
            start: chunk.span.start,
            end: chunk.span.end,
            tokens: chunk.tokens,
            pages: corpus
                .doc(chunk.doc)
                .source
                .pages
                .pages_of(chunk.span.start, chunk.span.end)
                .map(|(first, last)| [first, last]),
        }
    }
}

/// One seam as the layout listings write it: `seamscope chunks --json` and a bundle's
/// `seams.jsonl` (each adds its own fields beside it, and the bundle reader reads it back).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeamRecord {
    /// Its id.
    pub id: u32,
    /// Its document's path.
    pub doc: String,
    /// The chunk before the cut.
    pub left: u32,
    /// The chunk after the cut.
    pub right: u32,
    /// The cut's byte offset.
    pub cut: usize,
    /// First byte of the window.
    pub start: usize,
    /// One past the window's last byte.
    pub end: usize,
    /// Window tokens in the left chunk.
    pub left_tokens: u32,
    /// Window tokens in the right chunk.
    pub right_tokens: u32,
}

impl SeamRecord {
    /// The record of `seam`, a seam of `corpus`.
    pub fn of(seam: &Seam, corpus: &Corpus) -> SeamRecord {
        SeamRecord {
            id: seam.id.0,
            doc: corpus.doc(seam.doc).path.clone(),
            left: seam.left.0,
            right: seam.right.0,
            cut: seam.cut,
            start: seam.span.start,
            end: seam.span.end,
            left_tokens: seam.left_tokens,
            right_tokens: seam.right_tokens,
        }
    }

    /// The query report's shorter view of it (the report names no document or cut: its JSON
    /// shape is kept as scripts read it).
    pub fn brief(&self) -> SeamInfo {
        SeamInfo {
            id: self.id,
            left: self.left,
            right: self.right,
            start: self.start,
            end: self.end,
            left_tokens: self.left_tokens,
            right_tokens: self.right_tokens,
        }
    }
}

/// One seam as the query report lists it: [`SeamRecord::brief`].
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
