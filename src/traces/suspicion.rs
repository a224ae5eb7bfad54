//! The boundary-suspicion of one traced query, from what the app sent and seamscope's replay of
//! the same question on the same cuts. No gold is used.
//!
//! The cuts judged are each cut beside a chunk the app sent, and each cut whose seam the replay's
//! budget fill reached (a seam can outrank both its chunks when the app sent neither: the white
//! paper's worked example, a fact split so that neither half ranks on its own), except a cut
//! whose two chunks the app both sent. For each, with "the missing chunk" the one the app did not
//! send (when it sent neither, the one the replay ranks higher is taken as found and the other as
//! missing), its tier says what points at it:
//!
//! | tier | the cut is suspect when… |
//! |---|---|
//! | 4 | its seam fires in the replay (within the part of the ranking the budget fill reached), Seams' context brings the missing chunk, and the app sent **neither** chunk of the cut: the whole passage around the cut was lost |
//! | 3 | its seam fires and Seams' context brings the chunk the app left out beside one it sent |
//! | 2 | its seam fires but the budget leaves no room for the missing chunk |
//! | 1 | the missing chunk ranks within `near` places past the app's budget in the replay's chunks-only ranking (or inside it: the replay would have sent it) |
//!
//! The order. A cut whose seam fires (tiers 4 to 2) scores `2 + (1 + margin) / 2`, in 2 to 3,
//! where the margin is the seam's dense cosine to the question minus the best cosine of any
//! chunk the app sent (in the replay's chunks-only ranking; a sent chunk the ranking does not
//! reach counts at its last cosine, which bounds it from above). A positive margin says that the
//! text across this cut answers the question better than anything the app sent: the evidence
//! that the app's context missed a passage, and that a cut split it. A tier 1 cut scores
//! `1 + 0.99 / (1 + p)`, where `p` is how far past the budget the missing chunk ranks (0 inside
//! it). A query's suspicion is its best cut's score (0 when nothing points at any cut); queries
//! are read highest first, ties in the traces' order.
//!
//! No constant here was fitted to a question set: the classes follow the fire test, and the
//! margin is a difference of two cosines the model gives. It replaced an order by the seam's
//! lead in places (the largest `m` at which it would still fire), which saturated (most seams
//! that fire lead by many places) and was at chance on short chunks; the manual gives both
//! measured on six real apps.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::chunk::ChunkId;
use crate::layout::Layout;
use crate::retrieve::Trace;

/// One suspect cut beside a sent chunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suspect {
    /// The chunk the app sent beside the cut (when `sent_by_app` is false the app sent neither,
    /// and this is the one the replay ranks higher).
    pub sent: ChunkId,
    /// Whether the app sent `sent` (false: it sent neither chunk of the cut, and `sent` is the
    /// better ranked of the two in the replay).
    pub sent_by_app: bool,
    /// `sent`'s place in the replay's chunks-only ranking.
    pub sent_rank: Option<usize>,
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
    /// Its tier (4 to 1; 0: the cut is listed but nothing points at it).
    pub tier: u8,
    /// The seam's dense cosine minus the best cosine of any chunk the app sent, in the replay
    /// (`None` when the seam or the app's chunks have no dense cosine there).
    pub margin: Option<f32>,
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
    // The best cosine of what the app sent: a sent chunk the chunks-only ranking does not reach
    // ranks below its last entry, so that entry's cosine bounds it from above.
    let floor = chunk_fused
        .iter()
        .filter(|e| e.entry.chunk().is_some())
        .filter_map(dense)
        .fold(None, |m: Option<f32>, c| Some(m.map_or(c, |m| m.min(c))));
    let best_sent = input
        .sent
        .iter()
        .filter_map(|c| chunk_cosine.get(c).copied().or(floor))
        .fold(None, |m: Option<f32>, c| Some(m.map_or(c, |m| m.max(c))));
    let seam_cosine: HashMap<crate::seam::SeamId, f32> = input
        .trace
        .fused
        .iter()
        .filter_map(|e| Some((e.entry.seam()?, dense(e)?)))
        .collect();
    // The cuts to judge: each beside a sent chunk, and each whose seam the fill reached (a seam
    // can outrank both its chunks when the app sent neither), unless the app sent both chunks.
    let mut cuts: Vec<(ChunkId, ChunkId)> = Vec::new();
    for &c in input.sent {
        cuts.extend(neighbours(layout, c));
    }
    let seam_cut: HashMap<crate::seam::SeamId, (ChunkId, ChunkId)> = layout
        .seams
        .iter()
        .map(|s| (s.id, (s.left, s.right)))
        .collect();
    for (_, d) in input.trace.decisions_reached() {
        if let Some(cut) = seam_cut.get(&d.seam) {
            cuts.push(*cut);
        }
    }
    let mut seen = HashSet::new();
    cuts.retain(|cut| seen.insert(*cut) && !(sent.contains(&cut.0) && sent.contains(&cut.1)));
    let mut out = Vec::new();
    for (left, right) in cuts {
        let c = if sent.contains(&left) {
            left
        } else if sent.contains(&right) {
            right
        } else if rank_of.get(&left).unwrap_or(&usize::MAX)
            <= rank_of.get(&right).unwrap_or(&usize::MAX)
        {
            left
        } else {
            right
        };
        let missing = if left == c { right } else { left };
        let seam = seam_of.get(&(left, right));
        let (fires, lead) = seam
            .and_then(|s| reached.get(s))
            .copied()
            .unwrap_or((false, 0));
        let this_seam_cosine = seam.and_then(|s| seam_cosine.get(s)).copied();
        let margin = this_seam_cosine.zip(best_sent).map(|(s, b)| s - b);
        // Without a margin (no dense cosine for the seam or for what the app sent) a firing
        // seam ranks last among those that fire.
        let margin_fraction = margin.map_or(0.0, |m| (1.0 + f64::from(m).clamp(-1.0, 1.0)) / 2.0);
        let seam_position = seam.and_then(|s| positions.get(s)).copied();
        let neighbour_rank = rank_of.get(&missing).copied();
        let brings = with_seams.contains(&missing);
        let just_past = neighbour_rank.is_some_and(|r| r <= input.budget + input.near);
        let app_sent_neither = !sent.contains(&c);
        let (tier, score) = if fires {
            let tier = if brings && app_sent_neither {
                4
            } else if brings {
                3
            } else {
                2
            };
            (tier, 2.0 + margin_fraction)
        } else if just_past {
            let past = neighbour_rank.unwrap_or(0).saturating_sub(input.budget);
            (1, 1.0 + 0.99 / (1.0 + past as f64))
        } else {
            (0, 0.0)
        };
        let sandwiched = neighbours(layout, missing)
            .iter()
            .all(|(l, r)| sent.contains(if *l == missing { r } else { l }))
            && neighbours(layout, missing).len() == 2;
        out.push(Suspect {
            sent: c,
            sent_by_app: !app_sent_neither,
            sent_rank: rank_of.get(&c).copied(),
            missing,
            left,
            right,
            seam_fires: fires,
            seam_position,
            lead,
            neighbour_rank,
            seams_brings_it: brings,
            tier,
            margin,
            score,
            sent_cosine: chunk_cosine.get(&c).copied(),
            neighbour_cosine: chunk_cosine.get(&missing).copied(),
            seam_cosine: this_seam_cosine,
            sandwiched,
        });
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
