//! A seam's head start over a chunk in one fused ranking: `pos(chunk) - pos(seam)`.
//!
//! Positions start at 1. An entry absent from the fused list counts as ranked last, at
//! [`absent_position`] = `len + 1`, as in the fire test; the measurement records which side was
//! absent so a report can say how often that decided the number. A head start of `h` means the
//! seam fires over that chunk exactly when `h ≥ m`.
//!
//! - Unsplit sentence: the head start over the chunk that holds it.
//! - Crossing sentence: the head start over the better-ranked of its two chunks (the one the fire
//!   test finds hardest to beat); ties go to the left chunk.

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkId;
use crate::retrieve::{EntryRef, FusedEntry, absent_position, position_of};
use crate::seam::SeamId;

/// One measured head start, with the positions it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadStart {
    /// `chunk_position - seam_position`; positive when the seam ranks above the chunk.
    pub value: i64,
    /// The seam's counted position (fused position, or `len + 1` when absent).
    pub seam_position: usize,
    /// True when the seam was not in the fused ranking (it cannot fire at any `m`).
    pub seam_absent: bool,
    /// The chunk compared against.
    pub chunk: ChunkId,
    /// Its counted position (fused position, or `len + 1` when absent).
    pub chunk_position: usize,
    /// True when that chunk was not in the fused ranking.
    pub chunk_absent: bool,
    /// Length of the fused ranking.
    pub fused_len: usize,
}

/// The counted position of `entry`: its fused position, or `len + 1` when absent.
fn counted(fused: &[FusedEntry], entry: EntryRef) -> (usize, bool) {
    match position_of(fused, entry) {
        Some(p) => (p, false),
        None => (absent_position(fused.len()), true),
    }
}

/// The head start of `seam` over `chunk` in `fused`.
pub fn head_start(fused: &[FusedEntry], seam: SeamId, chunk: ChunkId) -> HeadStart {
    let (seam_position, seam_absent) = counted(fused, EntryRef::Seam(seam));
    let (chunk_position, chunk_absent) = counted(fused, EntryRef::Chunk(chunk));
    HeadStart {
        value: chunk_position as i64 - seam_position as i64,
        seam_position,
        seam_absent,
        chunk,
        chunk_position,
        chunk_absent,
        fused_len: fused.len(),
    }
}

/// The head start of `seam` over the better-ranked of `left` and `right`.
pub fn crossing_head_start(
    fused: &[FusedEntry],
    seam: SeamId,
    left: ChunkId,
    right: ChunkId,
) -> HeadStart {
    let l = head_start(fused, seam, left);
    let r = head_start(fused, seam, right);
    if r.chunk_position < l.chunk_position {
        r
    } else {
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranking(entries: &[EntryRef]) -> Vec<FusedEntry> {
        entries.iter().map(|&e| FusedEntry::given(e)).collect()
    }

    const C: fn(u32) -> EntryRef = |i| EntryRef::Chunk(ChunkId(i));
    const S: fn(u32) -> EntryRef = |i| EntryRef::Seam(SeamId(i));

    #[test]
    fn head_start_is_chunk_position_minus_seam_position() {
        // The white paper's worked example: seam 7|8 first, chunk 7 fourth, chunk 8 eleventh.
        let fused = ranking(&[
            S(78),
            C(12),
            S(1213),
            C(7),
            C(3),
            C(20),
            C(15),
            C(30),
            C(31),
            C(32),
            C(8),
        ]);
        let h = head_start(&fused, SeamId(78), ChunkId(8));
        assert_eq!((h.value, h.seam_position, h.chunk_position), (10, 1, 11));
        // Crossing: the better-ranked chunk (7, at 4) sets the head start: 3, so m = 3 fires.
        let h = crossing_head_start(&fused, SeamId(78), ChunkId(7), ChunkId(8));
        assert_eq!((h.value, h.chunk), (3, ChunkId(7)));
        // Seam 12|13 sits below chunk 12: a negative head start.
        let h = crossing_head_start(&fused, SeamId(1213), ChunkId(12), ChunkId(13));
        assert_eq!((h.value, h.chunk, h.chunk_absent), (-1, ChunkId(12), false));
    }

    #[test]
    fn absent_entries_count_as_last() {
        let fused = ranking(&[C(1), S(5), C(2)]);
        let h = head_start(&fused, SeamId(5), ChunkId(9));
        assert!(h.chunk_absent && !h.seam_absent);
        assert_eq!((h.chunk_position, h.value), (4, 2));
        let h = head_start(&fused, SeamId(6), ChunkId(1));
        assert!(h.seam_absent);
        assert_eq!((h.seam_position, h.value), (4, -3));
        // Both absent: both last, a head start of 0, which no margin of at least 1 fires.
        let h = head_start(&fused, SeamId(6), ChunkId(9));
        assert_eq!(h.value, 0);
    }
}
