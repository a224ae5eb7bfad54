//! Search over an [`IndexSet`]: the ranked lists a query starts from.
//!
//! For the Seams ranking: dense over chunks and seams together, BM25 over chunks, BM25 over seams.
//! For the "without Seams" baseline: a real chunks-only retrieval, dense and BM25 over chunks.

use serde::{Deserialize, Serialize};

use super::vectors::SearchMode;
use super::{IndexError, IndexSet};
use crate::chunk::ChunkId;
use crate::retrieve::{EntryRef, Hit, ListSource, RankedList};
use crate::seam::SeamId;

/// The lists one question produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchLists {
    /// Dense over chunks and seams, BM25 over chunks, BM25 over seams.
    pub with_seams: Vec<RankedList>,
    /// Dense over chunks only, BM25 over chunks.
    pub chunks_only: Vec<RankedList>,
}

impl IndexSet {
    /// Run every search for one question (its vector and its text) to `depth` results per list.
    pub fn search(
        &self,
        query_vector: &[f32],
        question: &str,
        depth: usize,
    ) -> Result<SearchLists, IndexError> {
        let mode = self.search_mode;
        if mode == SearchMode::Pending {
            return self.search_keywords(question, depth);
        }
        let chunk_dense = self.chunk_vectors.search(query_vector, depth, mode)?;
        let seam_dense = self.seam_vectors.search(query_vector, depth, mode)?;
        let bm25_chunks = self.chunk_keywords.search(question, depth)?;
        let bm25_seams = self.seam_keywords.search(question, depth)?;
        Ok(lists_from_hits(
            &chunk_dense,
            &seam_dense,
            &bm25_chunks,
            &bm25_seams,
            depth,
        ))
    }

    /// The keyword lists alone (BM25 over chunks, BM25 over seams), no dense list: what a
    /// question gets while the vectors are still being embedded. Needs no question vector.
    pub fn search_keywords(&self, question: &str, depth: usize) -> Result<SearchLists, IndexError> {
        let bm25_chunks = self.chunk_keywords.search(question, depth)?;
        let bm25_seams = self.seam_keywords.search(question, depth)?;
        let mut lists = lists_from_hits(&[], &[], &bm25_chunks, &bm25_seams, depth);
        for list in [&mut lists.with_seams, &mut lists.chunks_only] {
            list.retain(|l| l.source != ListSource::Dense);
        }
        Ok(lists)
    }
}

/// Chunk hits as list entries.
fn chunk_hits(hits: &[(u32, f32)]) -> Vec<Hit> {
    hits.iter()
        .map(|&(id, score)| Hit {
            entry: EntryRef::Chunk(ChunkId(id)),
            score,
        })
        .collect()
}

/// Seam hits as list entries.
fn seam_hits(hits: &[(u32, f32)]) -> Vec<Hit> {
    hits.iter()
        .map(|&(id, score)| Hit {
            entry: EntryRef::Seam(SeamId(id)),
            score,
        })
        .collect()
}

/// One dense list over both collections, cut to `depth`: same model, same metric, so cosine
/// scores compare; ties put chunks first, then lower ids, so the order is deterministic.
pub fn merge_dense(chunks: &[(u32, f32)], seams: &[(u32, f32)], depth: usize) -> Vec<Hit> {
    let mut dense: Vec<Hit> = chunk_hits(chunks)
        .into_iter()
        .chain(seam_hits(seams))
        .collect();
    dense.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.entry.is_seam().cmp(&b.entry.is_seam()))
            .then_with(|| entry_id(a.entry).cmp(&entry_id(b.entry)))
    });
    dense.truncate(depth);
    dense
}

/// The ranked lists of one question from each collection's hits (ids, scores, best first): the
/// one place that builds them, for the live indexes and for every strategy an evaluation
/// compares, so both rank and break ties the same way.
pub fn lists_from_hits(
    chunk_dense: &[(u32, f32)],
    seam_dense: &[(u32, f32)],
    bm25_chunks: &[(u32, f32)],
    bm25_seams: &[(u32, f32)],
    depth: usize,
) -> SearchLists {
    let keyword_chunks = chunk_hits(bm25_chunks);
    SearchLists {
        with_seams: vec![
            RankedList::new(
                ListSource::Dense,
                merge_dense(chunk_dense, seam_dense, depth),
            ),
            RankedList::new(ListSource::KeywordChunks, keyword_chunks.clone()),
            RankedList::new(ListSource::KeywordSeams, seam_hits(bm25_seams)),
        ],
        chunks_only: vec![
            RankedList::new(ListSource::Dense, chunk_hits(chunk_dense)),
            RankedList::new(ListSource::KeywordChunks, keyword_chunks),
        ],
    }
}

fn entry_id(e: EntryRef) -> u32 {
    match e {
        EntryRef::Chunk(c) => c.0,
        EntryRef::Seam(s) => s.0,
    }
}
