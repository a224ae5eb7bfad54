//! The fire test: does a seam clearly outrank both of its linked chunks?
//!
//! With fused positions starting at 1, a seam at position `s` fires when `s + m ≤ pos(left)` and
//! `s + m ≤ pos(right)`. A linked chunk that is absent from the fused list counts as ranked last,
//! which this crate defines as position `fused.len() + 1` (one past the final entry, see
//! [`absent_position`]), so an absent chunk only blocks a seam that sits within `m` places of the
//! list's end.
//!
//! A fire that compared against an absent chunk is flagged ([`FireDecision::fired_on_absence`]):
//! such a seam did not beat that chunk, the chunk simply was not found. Deep in a long list every
//! seam whose chunks are missing passes this way, so a user (and the fire-rate metric) must be able
//! to tell it apart from a seam that truly outranked both chunks
//! ([`FireDecision::outranked_both`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::fuse::FusedEntry;
use super::list::EntryRef;
use crate::ChunkId;
use crate::SeamId;

/// The position an absent linked chunk counts as: one past the last fused entry.
pub fn absent_position(fused_len: usize) -> usize {
    fused_len.saturating_add(1)
}

/// One linked chunk as the fire test saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkedChunk {
    /// The chunk.
    pub chunk: ChunkId,
    /// Its 1-based fused position, or `None` when it is absent from the fused list.
    pub fused_position: Option<usize>,
    /// The position the test used: the fused position, or [`absent_position`] when absent.
    pub counted_position: usize,
}

impl LinkedChunk {
    /// Whether the chunk is missing from the fused list.
    pub fn is_absent(&self) -> bool {
        self.fused_position.is_none()
    }

    /// Whether this chunk lets a seam with the given head-start target (`pos(seam) + m`) fire.
    pub fn allows(&self, target: u64) -> bool {
        target <= self.counted_position as u64
    }
}

/// The fire test's verdict for one seam of the fused ranking, with everything needed to show why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireDecision {
    /// The seam tested.
    pub seam: SeamId,
    /// Its 1-based fused position.
    pub seam_position: usize,
    /// The margin used.
    pub m: u32,
    /// The chunk that ends at the seam's cut.
    pub left: LinkedChunk,
    /// The chunk that starts at the seam's cut.
    pub right: LinkedChunk,
    /// Whether the seam fires: `pos(seam) + m` is no worse than both counted positions.
    pub fires: bool,
    /// True when the seam fires and at least one linked chunk was absent (counted as last).
    pub fired_on_absence: bool,
}

impl FireDecision {
    /// `pos(seam) + m`, the worst position a linked chunk may hold for the seam to fire.
    pub fn target(&self) -> u64 {
        self.seam_position as u64 + u64::from(self.m)
    }

    /// The worst fused position at which this seam would fire against the same chunk positions
    /// (`min(pos(left), pos(right)) − m`); `None` when no position would (a chunk ranks within
    /// `m` of the top).
    pub fn needed_position(&self) -> Option<usize> {
        let best = self.left.counted_position.min(self.right.counted_position) as u64;
        best.checked_sub(u64::from(self.m))
            .filter(|p| *p >= 1)
            .map(|p| p as usize)
    }

    /// The largest margin at which this seam fires against the same chunk positions
    /// (`min(pos(left), pos(right)) − pos(seam)`); `None` when a linked chunk ranks above the
    /// seam, so no margin fires it.
    pub fn largest_firing_m(&self) -> Option<u64> {
        let best = self.left.counted_position.min(self.right.counted_position) as u64;
        best.checked_sub(self.seam_position as u64)
    }

    /// Why the test came out as it did, in words, as a presenter reads it: `it outranks both
    /// its chunks by at least m, so both will come together`.
    pub fn reason(&self) -> String {
        if self.fired_on_absence {
            "passed only because a linked chunk is absent from the ranking".to_string()
        } else if self.fires {
            "it outranks both its chunks by at least m, so both will come together".to_string()
        } else {
            match self.needed_position() {
                Some(p) => format!(
                    "it would need #{p} or better, so it is dropped and its chunks keep their \
                     own places"
                ),
                None => {
                    "no position fires it at this m; its chunks keep their own places".to_string()
                }
            }
        }
    }

    /// True when the seam fired with both chunks present: it really outranked both by `m`.
    pub fn outranked_both(&self) -> bool {
        self.fires && !self.fired_on_absence
    }

    /// The linked chunks that stopped the seam from firing (empty when it fires).
    pub fn blocked_by(&self) -> Vec<ChunkId> {
        let target = self.target();
        self.links()
            .into_iter()
            .filter(|link| !link.allows(target))
            .map(|link| link.chunk)
            .collect()
    }

    /// The linked chunks that are absent from the fused list.
    pub fn absent_links(&self) -> Vec<ChunkId> {
        self.links()
            .into_iter()
            .filter(LinkedChunk::is_absent)
            .map(|link| link.chunk)
            .collect()
    }

    /// Both links, left first.
    pub fn links(&self) -> [LinkedChunk; 2] {
        [self.left, self.right]
    }

    /// The seam named by its two chunks, e.g. `seam 7|8`.
    pub fn label(&self) -> String {
        format!("seam {}|{}", self.left.chunk.0, self.right.chunk.0)
    }

    /// The test written out, e.g. `1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires`.
    ///
    /// A firing shows both comparisons; a non-firing shows only the comparisons that blocked it,
    /// as in `3 + 3 = 6 > 2 (chunk 12): does not fire`. An absent chunk reads
    /// `≤ 12 (chunk 13, absent: counts as last)`.
    pub fn arithmetic(&self) -> String {
        let target = self.target();
        let shown: Vec<String> = self
            .links()
            .iter()
            .filter(|link| self.fires || !link.allows(target))
            .map(|link| {
                let op = if link.allows(target) { '≤' } else { '>' };
                let absent = if link.is_absent() {
                    ", absent: counts as last"
                } else {
                    ""
                };
                format!(
                    "{op} {} (chunk {}{absent})",
                    link.counted_position, link.chunk.0
                )
            })
            .collect();
        let verdict = if self.fires { "fires" } else { "does not fire" };
        format!(
            "{} + {} = {} {}: {verdict}",
            self.seam_position,
            self.m,
            target,
            shown.join(" and ")
        )
    }

    /// The test in at most `width` characters with every chunk id kept: the full
    /// [`arithmetic`](Self::arithmetic) when it fits, else `1+3=4 ≤4 (7) ≤11 (8) fires` (an
    /// absent chunk marked `(13 absent)`), else only the verdict and the chunk ids.
    pub fn arithmetic_within(&self, width: usize) -> String {
        let full = self.arithmetic();
        if full.chars().count() <= width {
            return full;
        }
        let target = self.target();
        let compared: Vec<LinkedChunk> = self
            .links()
            .into_iter()
            .filter(|link| self.fires || !link.allows(target))
            .collect();
        let verdict = if self.fires { "fires" } else { "no fire" };
        let parts: Vec<String> = compared
            .iter()
            .map(|link| {
                let op = if link.allows(target) { '≤' } else { '>' };
                let absent = if link.is_absent() { " absent" } else { "" };
                format!("{op}{} ({}{absent})", link.counted_position, link.chunk.0)
            })
            .collect();
        let short = format!(
            "{}+{}={} {} {verdict}",
            self.seam_position,
            self.m,
            target,
            parts.join(" ")
        );
        if short.chars().count() <= width {
            return short;
        }
        let ids: Vec<String> = compared.iter().map(|l| l.chunk.0.to_string()).collect();
        format!("{verdict} ({})", ids.join(", "))
    }
}

/// Run the fire test on every seam of a fused ranking, in fused order.
///
/// `links` gives each seam's (left, right) chunks. A chunk listed twice in `fused` counts at its
/// first position. Positions are 1-based; an absent chunk counts as [`absent_position`].
///
/// ```
/// use seams::{fire_test, ChunkId, EntryRef, FusedEntry, SeamId};
/// // Seam 0 joins chunks 4 and 5; chunk 5 is not in the ranking, so it counts as position 4.
/// let entries = [EntryRef::Seam(SeamId(0)), EntryRef::Chunk(ChunkId(9)), EntryRef::Chunk(ChunkId(4))];
/// let fused: Vec<FusedEntry> = entries.into_iter().map(FusedEntry::given).collect();
/// let decisions = fire_test(&fused, &|_| (ChunkId(4), ChunkId(5)), 2);
/// assert!(decisions[0].fires && decisions[0].fired_on_absence);
/// assert_eq!(decisions[0].absent_links(), [ChunkId(5)]);
/// ```
pub fn fire_test(
    fused: &[FusedEntry],
    links: &dyn Fn(SeamId) -> (ChunkId, ChunkId),
    m: u32,
) -> Vec<FireDecision> {
    let mut chunk_positions: HashMap<ChunkId, usize> = HashMap::new();
    for (i, entry) in fused.iter().enumerate() {
        if let EntryRef::Chunk(id) = entry.entry {
            chunk_positions.entry(id).or_insert(i + 1);
        }
    }
    let last = absent_position(fused.len());
    let place = |chunk: ChunkId| {
        let fused_position = chunk_positions.get(&chunk).copied();
        LinkedChunk {
            chunk,
            fused_position,
            counted_position: fused_position.unwrap_or(last),
        }
    };
    fused
        .iter()
        .enumerate()
        .filter_map(|(i, entry)| entry.entry.seam().map(|seam| (i + 1, seam)))
        .map(|(seam_position, seam)| {
            let (left, right) = links(seam);
            let left = place(left);
            let right = place(right);
            let target = seam_position as u64 + u64::from(m);
            let fires = left.allows(target) && right.allows(target);
            FireDecision {
                seam,
                seam_position,
                m,
                left,
                right,
                fires,
                fired_on_absence: fires && (left.is_absent() || right.is_absent()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retrieve_fire_short_arithmetic_keeps_every_chunk_id() {
        let c = |i| FusedEntry::given(EntryRef::Chunk(ChunkId(i)));
        let s = |i| FusedEntry::given(EntryRef::Seam(SeamId(i)));
        let links = |_: SeamId| (ChunkId(7), ChunkId(8));
        let fused = vec![s(78), c(12), c(3), c(7), c(20), c(8)];
        let d = &fire_test(&fused, &links, 3)[0];
        assert_eq!(
            d.arithmetic_within(80),
            "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 6 (chunk 8): fires"
        );
        assert_eq!(d.arithmetic_within(30), "1+3=4 ≤4 (7) ≤6 (8) fires");
        assert_eq!(d.arithmetic_within(12), "fires (7, 8)");
    }

    fn chunk(id: u32) -> FusedEntry {
        FusedEntry::given(EntryRef::Chunk(ChunkId(id)))
    }

    fn seam(id: u32) -> FusedEntry {
        FusedEntry::given(EntryRef::Seam(SeamId(id)))
    }

    /// Seam `n` links chunks `n / 100` and `n % 100` (seam 708 links 7 and 8).
    fn links(seam: SeamId) -> (ChunkId, ChunkId) {
        (ChunkId(seam.0 / 100), ChunkId(seam.0 % 100))
    }

    #[test]
    fn retrieve_fire_present_chunks_outranked() {
        // 1 seam 708, 2 chunk 1, 3 chunk 7, 4 chunk 8; m = 2: 1 + 2 = 3 ≤ 3 and ≤ 4.
        let fused = vec![seam(708), chunk(1), chunk(7), chunk(8)];
        let d = &fire_test(&fused, &links, 2)[0];
        assert!(d.fires && d.outranked_both() && !d.fired_on_absence);
        assert_eq!(
            d.arithmetic(),
            "1 + 2 = 3 ≤ 3 (chunk 7) and ≤ 4 (chunk 8): fires"
        );
        assert!(d.blocked_by().is_empty());
        assert_eq!(d.label(), "seam 7|8");
    }

    #[test]
    fn retrieve_fire_absent_chunk_counts_as_last_and_is_flagged() {
        // 1 chunk 1, 2 seam 203, 3 chunk 2; chunk 3 absent -> counts as 4. m = 1: 2 + 1 = 3.
        let fused = vec![chunk(1), seam(203), chunk(2)];
        let d = &fire_test(&fused, &links, 1)[0];
        assert_eq!(d.right.fused_position, None);
        assert_eq!(d.right.counted_position, 4);
        assert!(d.fires && d.fired_on_absence && !d.outranked_both());
        assert_eq!(d.absent_links(), vec![ChunkId(3)]);
        assert_eq!(
            d.arithmetic(),
            "2 + 1 = 3 ≤ 3 (chunk 2) and ≤ 4 (chunk 3, absent: counts as last): fires"
        );
    }

    #[test]
    fn retrieve_fire_absent_chunk_blocks_near_the_end() {
        // Both chunks absent; seam at 2 of 2, m = 2: 2 + 2 = 4 > 3 for both.
        let fused = vec![chunk(1), seam(405)];
        let d = &fire_test(&fused, &links, 2)[0];
        assert!(!d.fires && !d.fired_on_absence);
        assert_eq!(d.blocked_by(), vec![ChunkId(4), ChunkId(5)]);
        assert_eq!(
            d.arithmetic(),
            "2 + 2 = 4 > 3 (chunk 4, absent: counts as last) and > 3 (chunk 5, absent: counts as last): does not fire"
        );
    }

    #[test]
    fn retrieve_fire_m_zero_fires_when_seam_not_behind() {
        // m = 0: a seam fires when it ranks at or above both chunks.
        let fused = vec![chunk(7), seam(708), chunk(8), seam(809), chunk(9)];
        let decisions = fire_test(&fused, &links, 0);
        // seam 7|8 at 2: 2 + 0 = 2 > 1 (chunk 7).
        assert!(!decisions[0].fires);
        assert_eq!(
            decisions[0].arithmetic(),
            "2 + 0 = 2 > 1 (chunk 7): does not fire"
        );
        // seam 8|9 at 4: 4 > 3 (chunk 8).
        assert!(!decisions[1].fires);
        let fused = vec![seam(708), chunk(7), chunk(8)];
        assert!(fire_test(&fused, &links, 0)[0].fires);
    }

    #[test]
    fn retrieve_fire_huge_m_never_overflows() {
        let fused = vec![seam(102)];
        let d = &fire_test(&fused, &links, u32::MAX)[0];
        assert!(!d.fires);
        assert_eq!(d.target(), 1 + u64::from(u32::MAX));
    }
}
