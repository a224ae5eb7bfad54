//! What the same app would have sent with an overlapping splitter: every chunk of the app's
//! layout reaching back over `percent` of its own length into the text before it (as a
//! splitter's `chunk_overlap` makes them), replayed chunks-only at the app's budget. The cost side
//! of overlap on the real questions: tokens sent, and tokens sent twice.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::chunk::ChunkId;
use crate::corpus::Corpus;
use crate::layout::Layout;

/// What overlap sent for one query.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapSent {
    /// The chunks, as the app's chunks they extend (the same ids).
    pub chunks: Vec<ChunkId>,
    /// Tokens sent.
    pub tokens: u64,
    /// Tokens sent twice (estimated from the bytes two sent chunks share).
    pub tokens_twice: u64,
}

/// Overlap's figures over all queries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OverlapSummary {
    /// The overlap, in percent of each chunk's length.
    pub percent: u32,
    /// The share of queries whose chunks differ from what the app sent.
    pub changes: f64,
    /// Tokens sent per query.
    pub tokens_per_query: f64,
    /// Tokens sent twice per query.
    pub tokens_twice_per_query: f64,
    /// The share of the tokens sent that are sent twice.
    pub duplicate_share: f64,
}

/// The overlapping layout of `base` as a plain cuts file at a path under `cache_dir` named by its
/// content: each chunk starts `percent` of its length earlier (at a word break, never before its
/// document's start nor at or before the previous chunk's start, so no chunk lies inside
/// another).
pub fn write_cuts(
    base: &Layout,
    corpus: &Corpus,
    percent: u32,
    cache_dir: &Path,
) -> std::io::Result<PathBuf> {
    let mut lines = Vec::with_capacity(base.chunks.len());
    let mut h = blake3::Hasher::new();
    for (i, c) in base.chunks.iter().enumerate() {
        let text = &corpus.doc(c.doc).text;
        let reach = c.span.len() * percent as usize / 100;
        let floor = match i.checked_sub(1).map(|p| &base.chunks[p]) {
            Some(prev) if prev.doc == c.doc => prev.span.start + 1,
            _ => 0,
        };
        let mut start = c.span.start.saturating_sub(reach).max(floor);
        while start < c.span.start && !text.is_char_boundary(start) {
            start += 1;
        }
        // Begin at a word: past the rest of a word the reach cut into.
        if let Some(space) = text[start..c.span.start].find(char::is_whitespace) {
            let word_start = start + space;
            start = text[word_start..c.span.start]
                .find(|ch: char| !ch.is_whitespace())
                .map_or(c.span.start, |i| word_start + i);
        }
        let path = &corpus.doc(c.doc).path;
        h.update(path.as_bytes());
        h.update(&(start as u64).to_le_bytes());
        h.update(&(c.span.end as u64).to_le_bytes());
        lines.push(serde_json::json!({"doc": path, "start": start, "end": c.span.end}).to_string());
    }
    let file = cache_dir.join("traces").join(format!(
        "overlap-{percent}-{}.jsonl",
        &h.finalize().to_hex()[..16]
    ));
    std::fs::create_dir_all(cache_dir.join("traces"))?;
    let mut tmp = tempfile::NamedTempFile::new_in(cache_dir.join("traces"))?;
    for line in &lines {
        writeln!(tmp, "{line}")?;
    }
    tmp.flush()?;
    tmp.persist(&file).map_err(|e| e.error)?;
    Ok(file)
}

/// What overlap sent, from the chunks-only context `context` of the overlapping layout `layout`.
pub fn sent(layout: &Layout, context: &[ChunkId]) -> OverlapSent {
    let mut chunks: Vec<&crate::chunk::Chunk> = context
        .iter()
        .filter_map(|c| layout.chunks.get(c.0 as usize))
        .collect();
    let tokens = chunks.iter().map(|c| u64::from(c.tokens)).sum();
    chunks.sort_by_key(|c| (c.doc, c.span.start));
    let mut twice = 0u64;
    for pair in chunks.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.doc == b.doc && b.span.start < a.span.end {
            let shared = (a.span.end.min(b.span.end) - b.span.start) as f64;
            let per_byte = f64::from(b.tokens) / b.span.len().max(1) as f64;
            twice += (shared * per_byte).round() as u64;
        }
    }
    OverlapSent {
        chunks: context.to_vec(),
        tokens,
        tokens_twice: twice,
    }
}
