//! The chunking settings of a layout: what a layout job builds and what the screen shows it was
//! built with. Requests, replies and the measuring jobs all name it, so it has a file of its own
//! that imports nothing else from the screen.

use seamscope::chunk::ChunkerKind;

/// The chunking settings a layout was built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutParams {
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Seam half-width.
    pub k: usize,
    /// The chunking strategy.
    pub chunker: ChunkerKind,
    /// Whether search texts carry each chunk's heading path.
    pub heading_prefix: bool,
}

impl LayoutParams {
    /// Whether `other` cuts the same chunks (only `k` or heading prefixes may differ).
    pub fn same_chunks(&self, other: &LayoutParams) -> bool {
        self.chunk_tokens == other.chunk_tokens && self.chunker == other.chunker
    }
}
