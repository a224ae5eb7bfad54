//! Chunks: disjoint pieces of a document, the unit that retrieval returns as evidence.
//!
//! Every chunking strategy lives in `chunk/` and produces the same [`Chunk`] values.

use serde::{Deserialize, Serialize};

use crate::corpus::{DocId, Span};

pub mod fixed;

/// Index of a chunk in a corpus-wide chunk table (document order, then ordinal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ChunkId(pub u32);

impl std::fmt::Display for ChunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One chunk: a half-open byte span of one document, with its token count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Position in the corpus-wide chunk table.
    pub id: ChunkId,
    /// The document this chunk cuts.
    pub doc: DocId,
    /// Position of the chunk within its document, from 0.
    pub ordinal: u32,
    /// Byte span in the document's text.
    pub span: Span,
    /// Tokens in the span, counted with the embedding model's tokenizer.
    pub tokens: u32,
}

impl Chunk {
    /// The stable identifier of a chunk: document path and ordinal, e.g. `guide.md#3`.
    pub fn stable_key(&self, doc_path: &str) -> String {
        format!("{doc_path}#{}", self.ordinal)
    }
}

use crate::corpus::{Corpus, Document};
use crate::tokens::TokenOffsets;

/// A chunking strategy: cuts one document into spans that tile it.
pub trait Chunker {
    /// A short name for traces and reports, e.g. `fixed-1024`.
    fn name(&self) -> String;
    /// Cut `doc` into spans in order; `offsets` are the document's token offsets.
    fn cut(&self, doc: &Document, offsets: &TokenOffsets) -> Vec<Span>;
}

/// Cut every document of `corpus` with `chunker` and number the chunks corpus-wide.
///
/// `offsets[i]` must be the token offsets of `corpus.documents[i]`.
pub fn chunk_corpus(
    corpus: &Corpus,
    offsets: &[TokenOffsets],
    chunker: &dyn Chunker,
) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    for (doc, offs) in corpus.documents.iter().zip(offsets) {
        for (ordinal, span) in chunker.cut(doc, offs).into_iter().enumerate() {
            chunks.push(Chunk {
                id: ChunkId(chunks.len() as u32),
                doc: doc.id,
                ordinal: ordinal as u32,
                span,
                tokens: offs.count_in(span.start, span.end) as u32,
            });
        }
    }
    chunks
}
