//! Search over an [`IndexSet`]: the ranked lists a query starts from.
//!
//! For the Seams ranking: dense over chunks and seams together, BM25 over chunks, BM25 over seams.
//! For the "without Seams" baseline: a real chunks-only retrieval, dense and BM25 over chunks.

use serde::{Deserialize, Serialize};

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
        let chunk_dense = self.chunk_vectors.search(query_vector, depth, mode)?;
        let seam_dense = self.seam_vectors.search(query_vector, depth, mode)?;
        // One dense list over both collections: same model, same metric, so cosine scores
        // compare; ties put chunks first, then lower ids, so the order is deterministic.
        let mut dense: Vec<Hit> = chunk_dense
            .iter()
            .map(|&(id, score)| Hit {
                entry: EntryRef::Chunk(ChunkId(id)),
                score,
            })
            .chain(seam_dense.iter().map(|&(id, score)| Hit {
                entry: EntryRef::Seam(SeamId(id)),
                score,
            }))
            .collect();
        dense.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.entry.is_seam().cmp(&b.entry.is_seam()))
                .then_with(|| entry_id(a.entry).cmp(&entry_id(b.entry)))
        });
        dense.truncate(depth);
        let chunk_hits = |hits: &[(u32, f32)]| -> Vec<Hit> {
            hits.iter()
                .map(|&(id, score)| Hit {
                    entry: EntryRef::Chunk(ChunkId(id)),
                    score,
                })
                .collect()
        };
        let bm25_chunks = chunk_hits(&self.chunk_keywords.search(question, depth)?);
        let bm25_seams: Vec<Hit> = self
            .seam_keywords
            .search(question, depth)?
            .into_iter()
            .map(|(id, score)| Hit {
                entry: EntryRef::Seam(SeamId(id)),
                score,
            })
            .collect();
        Ok(SearchLists {
            with_seams: vec![
                RankedList::new(ListSource::Dense, dense),
                RankedList::new(ListSource::KeywordChunks, bm25_chunks.clone()),
                RankedList::new(ListSource::KeywordSeams, bm25_seams),
            ],
            chunks_only: vec![
                RankedList::new(ListSource::Dense, chunk_hits(&chunk_dense)),
                RankedList::new(ListSource::KeywordChunks, bm25_chunks),
            ],
        })
    }
}

fn entry_id(e: EntryRef) -> u32 {
    match e {
        EntryRef::Chunk(c) => c.0,
        EntryRef::Seam(s) => s.0,
    }
}
