//! Chunks: disjoint pieces of a document, the unit that retrieval returns as evidence.
//!
//! Every chunking strategy lives in `chunk/` and produces the same [`Chunk`] values: exact,
//! contiguous byte spans that tile their document (in order, covering every byte, on char
//! boundaries), each holding at most the budget in tokens. The one exception: when more tokens
//! than the budget start at the same byte, no cut can fall between them and that chunk is longer
//! (the model's tokenizer does not do this on real text). What a strategy adds for search only (a
//! repeated table header, a heading path) lives in [`context`], never in a span.

use serde::{Deserialize, Serialize};

use crate::corpus::{DocId, Span};

pub mod atoms;
pub mod context;
pub mod fixed;
pub mod given;
pub mod heading;
pub mod markdown;
pub(crate) mod pack;
pub mod recursive;
pub mod sentences;
pub mod structure;

/// Index of a chunk in a corpus-wide chunk table; defined with the retrieval stages in the `seams`
/// crate, which takes ids and links and nothing else from seamscope.
pub use seams::ChunkId;

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
    /// Whether a chunk that begins inside a table gets the table's header in its search text.
    fn repeats_table_header(&self) -> bool {
        false
    }
}

pub use crate::spec::ChunkerKind;

impl ChunkerKind {
    /// The chunker of this kind with a budget of `chunk_tokens` tokens per chunk. `Given` has
    /// no file here and cuts nothing (every document uncovered): its chunks come from
    /// [`given::GivenCuts::load`], which [`crate::layout::Layout::for_settings`] calls.
    pub fn build(self, chunk_tokens: usize) -> Box<dyn Chunker + Send + Sync> {
        match self {
            ChunkerKind::Fixed => Box::new(fixed::FixedTokens {
                tokens: chunk_tokens,
            }),
            ChunkerKind::Sentence => Box::new(sentences::SentencePacking {
                tokens: chunk_tokens,
            }),
            ChunkerKind::Recursive => Box::new(recursive::Recursive {
                tokens: chunk_tokens,
            }),
            ChunkerKind::Structure => Box::new(structure::StructureAware {
                tokens: chunk_tokens,
            }),
            ChunkerKind::Given => Box::new(given::GivenCuts::none()),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_build_named_chunkers() {
        let names: Vec<String> = ChunkerKind::ALL
            .iter()
            .map(|k| k.build(256).name())
            .collect();
        assert_eq!(
            names,
            [
                "fixed-256",
                "sentence-256",
                "recursive-256",
                "structure-256"
            ]
        );
        assert!(ChunkerKind::Structure.build(8).repeats_table_header());
        assert!(!ChunkerKind::Recursive.build(8).repeats_table_header());
    }
}
