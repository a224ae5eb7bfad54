//! Reciprocal rank fusion: merge ranked lists by position only.
//!
//! Each entry scores `Σ 1 / (c + rank)` over the lists it appears in (ranks 1-based). Raw scores
//! are carried along for display and never compared across lists, because a short seam and a long
//! chunk score on different scales against the same question.
//!
//! Ties break deterministically, in this order: higher fused score; lower best single-list rank;
//! more lists (more agreement); chunks before seams; lower id. Each entry's reciprocal terms are
//! summed in a fixed order (best rank first), so two entries with the same ranks always get
//! bit-identical scores and fall through to the next key rather than to rounding noise.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::list::{EntryRef, ListSource, RankedList};

/// The usual RRF constant.
pub const DEFAULT_RRF_C: f64 = 60.0;

/// An entry's place in one input list.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ListRank {
    /// The list's search.
    pub source: ListSource,
    /// 1-based rank in that list.
    pub rank: usize,
    /// The raw score that list gave it.
    pub score: f32,
}

/// One entry of the fused ranking; its position is its index in the fused list plus one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FusedEntry {
    /// The chunk or seam.
    pub entry: EntryRef,
    /// The RRF score.
    pub score: f64,
    /// Its rank and raw score in each input list it appeared in, in input-list order.
    pub per_list: Vec<ListRank>,
}

impl FusedEntry {
    /// A fused entry given directly, with no list ranks (a hand-built ranking, as in the white paper).
    pub fn given(entry: EntryRef) -> Self {
        Self {
            entry,
            score: 0.0,
            per_list: Vec::new(),
        }
    }

    /// The best (lowest) rank this entry holds in any input list.
    pub fn best_rank(&self) -> Option<usize> {
        self.per_list.iter().map(|r| r.rank).min()
    }

    /// Its RRF score written out term by term, best rank first, as fusion summed it:
    /// `1/(60+1) + 1/(60+3) = 0.03227` (`given` for an entry of a ranking given as is).
    ///
    /// ```
    /// use seams::ChunkId;
    /// use seams::{EntryRef, ListSource, RankedList, fuse};
    /// let a = EntryRef::Chunk(ChunkId(1));
    /// let lists = [
    ///     RankedList::from_entries(ListSource::Dense, [a]),
    ///     RankedList::from_entries(ListSource::KeywordChunks, [EntryRef::Chunk(ChunkId(2)), a]),
    /// ];
    /// let fused = fuse(&lists, 60.0);
    /// assert_eq!(fused[0].rrf_arithmetic(60.0), "1/(60+1) + 1/(60+2) = 0.03252");
    /// ```
    pub fn rrf_arithmetic(&self, c: f64) -> String {
        if self.per_list.is_empty() {
            return "given".to_string();
        }
        let mut ranks: Vec<usize> = self.per_list.iter().map(|r| r.rank).collect();
        ranks.sort_unstable();
        let terms: Vec<String> = ranks.iter().map(|r| format!("1/({c}+{r})")).collect();
        format!("{} = {:.5}", terms.join(" + "), self.score)
    }

    /// Its rank in the first input list from `source`, if it appeared there.
    pub fn rank_in(&self, source: ListSource) -> Option<usize> {
        self.per_list
            .iter()
            .find(|r| r.source == source)
            .map(|r| r.rank)
    }
}

/// Fuse ranked lists with reciprocal rank fusion and constant `c`.
///
/// Ranks are positions in each list as given (1-based); an entry listed twice in the same list
/// counts once, at its first rank. `c` should be finite and at least 0
/// ([`QuerySettings::validate`](super::QuerySettings::validate) checks it); any value still yields a
/// deterministic order.
///
/// ```
/// use seams::{fuse, position_of, ChunkId, EntryRef, ListSource, RankedList};
/// let (a, b) = (EntryRef::Chunk(ChunkId(1)), EntryRef::Chunk(ChunkId(2)));
/// let lists = [
///     RankedList::from_entries(ListSource::Dense, [a, b]),
///     RankedList::from_entries(ListSource::KeywordChunks, [b]),
/// ];
/// let fused = fuse(&lists, 60.0);
/// // b is in both lists: 1/62 + 1/61 beats a's 1/61.
/// assert_eq!(position_of(&fused, b), Some(1));
/// assert_eq!(fused[0].rank_in(ListSource::Dense), Some(2));
/// ```
pub fn fuse(lists: &[RankedList], c: f64) -> Vec<FusedEntry> {
    let mut index: HashMap<EntryRef, usize> = HashMap::new();
    let mut fused: Vec<FusedEntry> = Vec::new();
    for list in lists {
        let mut seen_here: HashSet<EntryRef> = HashSet::with_capacity(list.hits.len());
        for (i, hit) in list.hits.iter().enumerate() {
            if !seen_here.insert(hit.entry) {
                continue;
            }
            let rank = ListRank {
                source: list.source,
                rank: i + 1,
                score: hit.score,
            };
            match index.get(&hit.entry) {
                Some(&at) => fused[at].per_list.push(rank),
                None => {
                    index.insert(hit.entry, fused.len());
                    fused.push(FusedEntry {
                        entry: hit.entry,
                        score: 0.0,
                        per_list: vec![rank],
                    });
                }
            }
        }
    }
    for entry in &mut fused {
        entry.score = rrf_score(&entry.per_list, c);
    }
    fused.sort_by(compare_fused);
    fused
}

/// The RRF score of one entry from its list ranks, summed best rank first.
pub fn rrf_score(per_list: &[ListRank], c: f64) -> f64 {
    let mut ranks: Vec<usize> = per_list.iter().map(|r| r.rank).collect();
    ranks.sort_unstable();
    ranks.iter().map(|&rank| 1.0 / (c + rank as f64)).sum()
}

/// The fused order: score desc, best rank asc, list count desc, chunks before seams, id asc.
fn compare_fused(a: &FusedEntry, b: &FusedEntry) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| {
            let best_a = a.best_rank().unwrap_or(usize::MAX);
            let best_b = b.best_rank().unwrap_or(usize::MAX);
            best_a.cmp(&best_b)
        })
        .then_with(|| b.per_list.len().cmp(&a.per_list.len()))
        .then_with(|| a.entry.tie_key().cmp(&b.entry.tie_key()))
}

/// The 1-based fused position of the first occurrence of `entry`, if present.
pub fn position_of(fused: &[FusedEntry], entry: EntryRef) -> Option<usize> {
    fused.iter().position(|e| e.entry == entry).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChunkId;
    use crate::SeamId;

    fn chunk(id: u32) -> EntryRef {
        EntryRef::Chunk(ChunkId(id))
    }

    fn seam(id: u32) -> EntryRef {
        EntryRef::Seam(SeamId(id))
    }

    fn order(fused: &[FusedEntry]) -> Vec<EntryRef> {
        fused.iter().map(|e| e.entry).collect()
    }

    #[test]
    fn retrieve_fuse_hand_computed_scores() {
        // dense:        seam 1, chunk 2, chunk 3
        // bm25 chunks:  chunk 3, chunk 2
        // bm25 seams:   seam 1
        // c = 60:
        //   seam 1  = 1/61 + 1/61 = 0.0327869
        //   chunk 3 = 1/61 + 1/63 = 0.0322664   (rank 1 in bm25 chunks, rank 3 in dense)
        //   chunk 2 = 1/62 + 1/62 = 0.0322581
        let lists = vec![
            RankedList::from_entries(ListSource::Dense, [seam(1), chunk(2), chunk(3)]),
            RankedList::from_entries(ListSource::KeywordChunks, [chunk(3), chunk(2)]),
            RankedList::from_entries(ListSource::KeywordSeams, [seam(1)]),
        ];
        let fused = fuse(&lists, 60.0);
        assert_eq!(order(&fused), vec![seam(1), chunk(3), chunk(2)]);
        let expected = [2.0 / 61.0, 1.0 / 61.0 + 1.0 / 63.0, 2.0 / 62.0];
        for (entry, want) in fused.iter().zip(expected) {
            assert!((entry.score - want).abs() < 1e-12, "{entry:?} vs {want}");
        }
        // Each entry remembers its rank and raw score per list, in input-list order.
        assert_eq!(fused[1].rank_in(ListSource::Dense), Some(3));
        assert_eq!(fused[1].rank_in(ListSource::KeywordChunks), Some(1));
        assert_eq!(fused[1].per_list[0].score, 1.0 / 3.0);
        assert_eq!(fused[0].rank_in(ListSource::KeywordChunks), None);
        assert_eq!(position_of(&fused, chunk(2)), Some(3));
    }

    #[test]
    fn retrieve_fuse_equal_ranks_tie_to_lower_id_and_chunks_first() {
        // chunk 9: ranks (1, 3); chunk 4: ranks (3, 1); seam 2: ranks (1, 3) via dense + bm25 seams.
        // All three score 1/61 + 1/63 exactly, share best rank 1 and two lists:
        // chunks before seams, then lower id.
        let lists = vec![
            RankedList::from_entries(ListSource::Dense, [chunk(9), seam(2), chunk(4)]),
            RankedList::from_entries(ListSource::KeywordChunks, [chunk(4), chunk(0), chunk(9)]),
            RankedList::from_entries(ListSource::KeywordSeams, [seam(2)]),
        ];
        let fused = fuse(&lists, 60.0);
        // seam 2: dense rank 2 + seams rank 1 = 1/62 + 1/61: higher than 1/61 + 1/63.
        // chunk 0: 1/62 alone.
        assert_eq!(order(&fused), vec![seam(2), chunk(4), chunk(9), chunk(0)]);
        assert_eq!(fused[1].score.to_bits(), fused[2].score.to_bits());
    }

    #[test]
    fn retrieve_fuse_ties_fall_to_best_rank_then_list_count() {
        // c = 0 makes exact ties easy to build:
        //   chunk 5: ranks (2, 2)       -> 1/2 + 1/2       = 1.0, best rank 2
        //   chunk 6: rank 1 alone       -> 1/1             = 1.0, best rank 1  -> before chunk 5
        //   chunk 7: ranks (1, 4, 4)    -> 1 + 1/4 + 1/4   = 1.5, best 1, three lists
        //   chunk 8: ranks (1, 2)       -> 1 + 1/2         = 1.5, best 1, two lists -> after chunk 7
        let lists = vec![
            RankedList::from_entries(ListSource::Dense, [chunk(8), chunk(5), chunk(1), chunk(7)]),
            RankedList::from_entries(
                ListSource::KeywordChunks,
                [chunk(7), chunk(5), chunk(2), chunk(3)],
            ),
            RankedList::from_entries(ListSource::Dense, [chunk(6), chunk(8), chunk(4), chunk(7)]),
        ];
        let fused = fuse(&lists, 0.0);
        let top: Vec<EntryRef> = order(&fused).into_iter().take(4).collect();
        assert_eq!(top, vec![chunk(7), chunk(8), chunk(6), chunk(5)]);
    }

    #[test]
    fn retrieve_fuse_duplicate_in_one_list_counts_once() {
        let lists = vec![RankedList::from_entries(
            ListSource::Dense,
            [chunk(1), chunk(2), chunk(1)],
        )];
        let fused = fuse(&lists, 60.0);
        assert_eq!(order(&fused), vec![chunk(1), chunk(2)]);
        assert_eq!(fused[0].per_list.len(), 1);
        assert_eq!(fused[0].per_list[0].rank, 1);
        assert_eq!(fused[1].per_list[0].rank, 2);
    }

    #[test]
    fn retrieve_fuse_empty_input_gives_empty_ranking() {
        assert!(fuse(&[], 60.0).is_empty());
    }
}
