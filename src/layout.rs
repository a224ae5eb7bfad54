//! The layout of a corpus under one setting: token offsets, chunks and seams.
//!
//! This is the `Corpus → Chunks → Seams` part of the pipeline; it is pure and deterministic,
//! so it is recomputed rather than stored.

use std::time::Instant;

use serde::Serialize;

use crate::chunk::{Chunk, ChunkId, Chunker, chunk_corpus};
use crate::corpus::Corpus;
use crate::seam::{Seam, SeamId, build_seams};
use crate::tokens::{TokenCounter, TokenOffsets, TokenizerError};

/// Chunks and seams of a corpus, with each document's token offsets.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Token offsets of each document, by document index.
    pub offsets: Vec<TokenOffsets>,
    /// Every chunk, in document order.
    pub chunks: Vec<Chunk>,
    /// Every seam, in document order.
    pub seams: Vec<Seam>,
    /// The chunker's name.
    pub chunker: String,
    /// The seam half-width used.
    pub k: usize,
    /// Seconds spent per step.
    pub timings: LayoutTimings,
}

/// Time spent building a layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LayoutTimings {
    /// Tokenizing every document.
    pub tokenize: f64,
    /// Cutting chunks.
    pub chunk: f64,
    /// Building seam windows.
    pub seams: f64,
}

impl Layout {
    /// Tokenize, chunk and build seams for `corpus`.
    pub fn build(
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        chunker: &dyn Chunker,
        k: usize,
    ) -> Result<Layout, TokenizerError> {
        let t0 = Instant::now();
        let offsets = corpus
            .documents
            .iter()
            .map(|d| tokenizer.offsets(&d.text))
            .collect::<Result<Vec<_>, _>>()?;
        let t1 = Instant::now();
        let chunks = chunk_corpus(corpus, &offsets, chunker);
        let t2 = Instant::now();
        let seams = build_seams(corpus, &offsets, &chunks, k);
        let t3 = Instant::now();
        Ok(Layout {
            offsets,
            chunks,
            seams,
            chunker: chunker.name(),
            k,
            timings: LayoutTimings {
                tokenize: (t1 - t0).as_secs_f64(),
                chunk: (t2 - t1).as_secs_f64(),
                seams: (t3 - t2).as_secs_f64(),
            },
        })
    }

    /// Rebuild only the seams for a new `k`, keeping tokens and chunks.
    pub fn with_k(&self, corpus: &Corpus, k: usize) -> Layout {
        let t0 = Instant::now();
        let seams = build_seams(corpus, &self.offsets, &self.chunks, k);
        let mut timings = self.timings;
        timings.seams = t0.elapsed().as_secs_f64();
        Layout {
            offsets: self.offsets.clone(),
            chunks: self.chunks.clone(),
            seams,
            chunker: self.chunker.clone(),
            k,
            timings,
        }
    }

    /// The chunk with this id.
    pub fn chunk(&self, id: ChunkId) -> &Chunk {
        &self.chunks[id.0 as usize]
    }

    /// The seam with this id.
    pub fn seam(&self, id: SeamId) -> &Seam {
        &self.seams[id.0 as usize]
    }

    /// The text of every chunk, in id order.
    pub fn chunk_texts<'a>(&self, corpus: &'a Corpus) -> Vec<&'a str> {
        self.chunks
            .iter()
            .map(|c| corpus.doc(c.doc).slice(c.span))
            .collect()
    }

    /// The text of every seam window, in id order.
    pub fn seam_texts<'a>(&self, corpus: &'a Corpus) -> Vec<&'a str> {
        self.seams
            .iter()
            .map(|s| corpus.doc(s.doc).slice(s.span))
            .collect()
    }

    /// Total tokens over all documents.
    pub fn total_tokens(&self) -> usize {
        self.offsets.iter().map(|o| o.len()).sum()
    }
}
