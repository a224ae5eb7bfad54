//! The boundary-suspicion of one traced query, from what the app sent and seamscope's replay of
//! the same question on the same cuts. No gold is used.
//!
//! For every chunk the app sent and each neighbour across a cut that the app did **not** send:
//!
//! | tier | the neighbour pair is suspect when… |
//! |---|---|
//! | 3 | the seam over that cut fires in the replay (within the part of the ranking the budget fill reached) and Seams' context brings the neighbour |
//! | 2 | the seam fires there but the budget leaves no room for the neighbour |
//! | 1 | the neighbour ranks within `near` places past the app's budget in the replay's chunks-only ranking (or inside it: the replay would have sent it) |
//!
//! A pair's score is its tier plus `0.99 ×` a fraction that orders pairs of one tier: for tiers
//! 3 and 2, `1 − 1/(1 + lead)`, where the lead is how many places the seam ranks above the better
//! of its two chunks (the largest `m` at which it would still fire: a seam that holds both halves
//! of a split fact outranks each half by more than one that repeats a fact one side holds whole);
//! for tier 1, `1/(1 + p)`, where `p` is how far past the budget the neighbour ranks (0 inside it). A query's suspicion is its best pair's score (0 when no
//! sent chunk has a missing neighbour that any of this points at). Queries are read highest
//! first; ties keep the traces' order.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::chunk::ChunkId;
use crate::layout::Layout;
use crate::retrieve::Trace;

/// One suspect cut beside a sent chunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suspect {
    /// The chunk the app sent.
    pub sent: ChunkId,
    /// Its neighbour across the cut, which the app did not send.
    pub missing: ChunkId,
    /// The cut as `left|right` chunk ids.
    pub left: ChunkId,
    /// The right chunk of the cut.
    pub right: ChunkId,
    /// The seam over the cut fires in the replay (reached by the fill).
    pub seam_fires: bool,
    /// The seam's fused position in the replay, if it is in the ranking.
    pub seam_position: Option<usize>,
    /// Places the seam ranks above the better of its two chunks in the replay (the largest m
    /// at which it would still fire; 0 when it is not reached).
    pub lead: i64,
    /// The missing neighbour's position in the replay's chunks-only ranking, if it is in it.
    pub neighbour_rank: Option<usize>,
    /// Seams' context (in the replay) holds the missing neighbour.
    pub seams_brings_it: bool,
    /// Its tier (3, 2, 1; 0: the cut is listed but nothing points at it).
    pub tier: u8,
    /// The sent chunk's dense cosine to the question in the replay, if ranked.
    pub sent_cosine: Option<f32>,
    /// The missing neighbour's dense cosine, if ranked.
    pub neighbour_cosine: Option<f32>,
    /// The seam's dense cosine, if ranked.
    pub seam_cosine: Option<f32>,
    /// The missing neighbour lies between two sent chunks.
    pub sandwiched: bool,
    /// Its score (tier plus the ordering fraction).
    pub score: f64,
}

/// Everything the suspicion of one query is computed from.
pub struct SuspicionInput<'a> {
    /// The recovered layout the replay ran on.
    pub layout: &'a Layout,
    /// The chunks the app sent, in its order (placed ones only).
    pub sent: &'a [ChunkId],
    /// The app's budget (chunks it sent).
    pub budget: usize,
    /// The replay's trace (with Seams, and its real chunks-only run).
    pub trace: &'a Trace,
    /// Places past the budget that count as "just past".
    pub near: usize,
}

/// The suspect cuts of one query, best first, and its suspicion (the best score; 0 for none).
pub fn suspects(input: &SuspicionInput<'_>) -> (Vec<Suspect>, f64) {
    let layout = input.layout;
    let sent: HashSet<ChunkId> = input.sent.iter().copied().collect();
    let with_seams: HashSet<ChunkId> = input.trace.context.iter().map(|c| c.chunk).collect();
    // The seams by their two chunks.
    let seam_of: HashMap<(ChunkId, ChunkId), crate::seam::SeamId> = layout
        .seams
        .iter()
        .map(|s| ((s.left, s.right), s.id))
        .collect();
    // Each reached seam: whether it fires, and its lead, the places it ranks above the better
    // of its two chunks (the largest m at which it would still fire).
    let reached: HashMap<crate::seam::SeamId, (bool, i64)> = input
        .trace
        .decisions_reached()
        .map(|(_, d)| {
            let best = d.left.counted_position.min(d.right.counted_position) as i64;
            (d.seam, (d.fires, best - d.seam_position as i64))
        })
        .collect();
    let positions: HashMap<crate::seam::SeamId, usize> = input
        .trace
        .decisions
        .iter()
        .map(|d| (d.seam, d.seam_position))
        .collect();
    let chunks_only: Vec<ChunkId> = match &input.trace.without_seams.retrieval {
        Some(run) => seams::chunks_only(&run.fused),
        None => seams::chunks_only(&input.trace.fused),
    };
    let rank_of: HashMap<ChunkId, usize> = chunks_only
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i + 1))
        .collect();
    // Dense cosines: chunks from the chunks-only run, seams from the Seams ranking.
    let dense = |e: &crate::retrieve::FusedEntry| {
        e.per_list
            .iter()
            .find(|r| r.source == crate::retrieve::ListSource::Dense)
            .map(|r| r.score)
    };
    let chunk_fused = match &input.trace.without_seams.retrieval {
        Some(run) => &run.fused,
        None => &input.trace.fused,
    };
    let chunk_cosine: HashMap<ChunkId, f32> = chunk_fused
        .iter()
        .filter_map(|e| Some((e.entry.chunk()?, dense(e)?)))
        .collect();
    let seam_cosine: HashMap<crate::seam::SeamId, f32> = input
        .trace
        .fused
        .iter()
        .filter_map(|e| Some((e.entry.seam()?, dense(e)?)))
        .collect();
    let mut out = Vec::new();
    for &c in input.sent {
        for (left, right) in neighbours(layout, c) {
            let missing = if left == c { right } else { left };
            if sent.contains(&missing) {
                continue;
            }
            let seam = seam_of.get(&(left, right));
            let (fires, lead) = seam
                .and_then(|s| reached.get(s))
                .copied()
                .unwrap_or((false, 0));
            let lead_fraction = 1.0 - 1.0 / (1.0 + lead.max(0) as f64);
            let seam_position = seam.and_then(|s| positions.get(s)).copied();
            let neighbour_rank = rank_of.get(&missing).copied();
            let brings = with_seams.contains(&missing);
            let just_past = neighbour_rank.is_some_and(|r| r <= input.budget + input.near);
            let (tier, fraction) = if fires && brings {
                (3, lead_fraction)
            } else if fires {
                (2, lead_fraction)
            } else if just_past {
                let past = neighbour_rank.unwrap_or(0).saturating_sub(input.budget);
                (1, 1.0 / (1.0 + past as f64))
            } else {
                (0, 0.0)
            };
            let sandwiched = neighbours(layout, missing)
                .iter()
                .all(|(l, r)| sent.contains(if *l == missing { r } else { l }))
                && neighbours(layout, missing).len() == 2;
            out.push(Suspect {
                sent: c,
                missing,
                left,
                right,
                seam_fires: fires,
                seam_position,
                lead,
                neighbour_rank,
                seams_brings_it: brings,
                tier,
                score: if tier == 0 {
                    0.0
                } else {
                    f64::from(tier) + 0.99 * fraction
                },
                sent_cosine: chunk_cosine.get(&c).copied(),
                neighbour_cosine: chunk_cosine.get(&missing).copied(),
                seam_cosine: seam.and_then(|s| seam_cosine.get(s)).copied(),
                sandwiched,
            });
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = out.first().map_or(0.0, |s| s.score);
    (out, best)
}

/// The cuts beside chunk `c`: `(left, right)` pairs with its neighbours in the same document.
fn neighbours(layout: &Layout, c: ChunkId) -> Vec<(ChunkId, ChunkId)> {
    let Some(chunk) = layout.chunks.get(c.0 as usize) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(prev) = (c.0 as usize)
        .checked_sub(1)
        .and_then(|i| layout.chunks.get(i))
        .filter(|p| p.doc == chunk.doc)
    {
        out.push((prev.id, c));
    }
    if let Some(next) = layout
        .chunks
        .get(c.0 as usize + 1)
        .filter(|n| n.doc == chunk.doc)
    {
        out.push((c, next.id));
    }
    out
}

/// The area under the ROC curve of `scores` against `labels` (the chance that a positive
/// outscores a negative, ties counting half); `None` without both kinds.
pub fn roc_auc(scored: &[(f64, bool)]) -> Option<f64> {
    let positives = scored.iter().filter(|(_, l)| *l).count();
    let negatives = scored.len() - positives;
    if positives == 0 || negatives == 0 {
        return None;
    }
    let mut wins = 0.0;
    for (p, _) in scored.iter().filter(|(_, l)| *l) {
        for (n, _) in scored.iter().filter(|(_, l)| !*l) {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    Some(wins / (positives * negatives) as f64)
}

/// The share of positives among the first `k` of `ranked` (already in rank order).
pub fn precision_at(ranked: &[bool], k: usize) -> Option<f64> {
    let top: Vec<&bool> = ranked.iter().take(k).collect();
    (!top.is_empty()).then(|| top.iter().filter(|l| ***l).count() as f64 / top.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_and_precision_on_a_small_ranking() {
        let scored = [
            (3.5, true),
            (3.1, false),
            (2.0, true),
            (0.0, false),
            (0.0, false),
        ];
        assert_eq!(roc_auc(&scored), Some(5.0 / 6.0));
        assert_eq!(roc_auc(&[(1.0, true)]), None);
        let ranked: Vec<bool> = scored.iter().map(|(_, l)| *l).collect();
        assert_eq!(precision_at(&ranked, 2), Some(0.5));
        assert_eq!(precision_at(&[], 10), None);
    }
}
