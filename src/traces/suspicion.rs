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
use crate::seam::SeamId;

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
    let replay = Replay::of(input);
    let mut out: Vec<Suspect> = cuts_to_judge(input, &replay.sent)
        .into_iter()
        .map(|cut| replay.judge(input, cut))
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = out.first().map_or(0.0, |s| s.score);
    (out, best)
}

/// What the app sent and what the replay ranked, fired and brought, by chunk and by seam: what
/// each cut is judged from.
struct Replay {
    /// The chunks the app sent.
    sent: HashSet<ChunkId>,
    /// The chunks of the replay's Seams context.
    with_seams: HashSet<ChunkId>,
    /// The seams by their two chunks.
    seam_of: HashMap<(ChunkId, ChunkId), SeamId>,
    /// Each reached seam: whether it fires, and its lead, the places it ranks above the better
    /// of its two chunks (the largest m at which it would still fire).
    reached: HashMap<SeamId, (bool, i64)>,
    /// Each decided seam's fused position.
    positions: HashMap<SeamId, usize>,
    /// Each chunk's place (from 1) in the chunks-only ranking.
    rank_of: HashMap<ChunkId, usize>,
    /// Dense cosines of the chunks, from the chunks-only run.
    chunk_cosine: HashMap<ChunkId, f32>,
    /// The best cosine of what the app sent.
    best_sent: Option<f32>,
    /// Dense cosines of the seams, from the Seams ranking.
    seam_cosine: HashMap<SeamId, f32>,
}

impl Replay {
    /// The lookups of `input`'s replay.
    fn of(input: &SuspicionInput<'_>) -> Replay {
        let seam_of = input
            .layout
            .seams
            .iter()
            .map(|s| ((s.left, s.right), s.id))
            .collect();
        let reached = input
            .trace
            .decisions_reached()
            .map(|(_, d)| {
                let best = d.left.counted_position.min(d.right.counted_position) as i64;
                (d.seam, (d.fires, best - d.seam_position as i64))
            })
            .collect();
        let positions = input
            .trace
            .decisions
            .iter()
            .map(|d| (d.seam, d.seam_position))
            .collect();
        let chunks_only: Vec<ChunkId> = match &input.trace.without_seams.retrieval {
            Some(run) => seams::chunks_only(&run.fused),
            None => seams::chunks_only(&input.trace.fused),
        };
        let rank_of = chunks_only
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, i + 1))
            .collect();
        let (chunk_cosine, best_sent, seam_cosine) = dense_cosines(input);
        Replay {
            sent: input.sent.iter().copied().collect(),
            with_seams: input.trace.context.iter().map(|c| c.chunk).collect(),
            seam_of,
            reached,
            positions,
            rank_of,
            chunk_cosine,
            best_sent,
            seam_cosine,
        }
    }

    /// The cut `left|right` judged: which chunk is found and which missing, what its seam did
    /// in the replay, its tier and score.
    fn judge(&self, input: &SuspicionInput<'_>, (left, right): (ChunkId, ChunkId)) -> Suspect {
        let sent = &self.sent;
        let rank_of = &self.rank_of;
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
        let seam = self.seam_of.get(&(left, right));
        let (fires, lead) = seam
            .and_then(|s| self.reached.get(s))
            .copied()
            .unwrap_or((false, 0));
        let this_seam_cosine = seam.and_then(|s| self.seam_cosine.get(s)).copied();
        let margin = this_seam_cosine.zip(self.best_sent).map(|(s, b)| s - b);
        let seam_position = seam.and_then(|s| self.positions.get(s)).copied();
        let neighbour_rank = rank_of.get(&missing).copied();
        let brings = self.with_seams.contains(&missing);
        let app_sent_neither = !sent.contains(&c);
        let (tier, score) = tier_and_score(
            input,
            fires,
            brings,
            app_sent_neither,
            margin,
            neighbour_rank,
        );
        let layout = input.layout;
        let sandwiched = neighbours(layout, missing)
            .iter()
            .all(|(l, r)| sent.contains(if *l == missing { r } else { l }))
            && neighbours(layout, missing).len() == 2;
        Suspect {
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
            sent_cosine: self.chunk_cosine.get(&c).copied(),
            neighbour_cosine: self.chunk_cosine.get(&missing).copied(),
            seam_cosine: this_seam_cosine,
            sandwiched,
        }
    }
}

/// A cut's tier and score (see the module's table): from whether its seam fires, whether
/// Seams' context brings the missing chunk, whether the app sent neither chunk, the seam's
/// margin, and the missing chunk's place in the chunks-only ranking.
fn tier_and_score(
    input: &SuspicionInput<'_>,
    fires: bool,
    brings: bool,
    app_sent_neither: bool,
    margin: Option<f32>,
    neighbour_rank: Option<usize>,
) -> (u8, f64) {
    // Without a margin (no dense cosine for the seam or for what the app sent) a firing
    // seam ranks last among those that fire.
    let margin_fraction = margin.map_or(0.0, |m| (1.0 + f64::from(m).clamp(-1.0, 1.0)) / 2.0);
    let just_past = neighbour_rank.is_some_and(|r| r <= input.budget + input.near);
    if fires {
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
    }
}

/// Dense cosines to the question: each chunk's (from the chunks-only run), the best of what the
/// app sent, and each seam's (from the Seams ranking).
fn dense_cosines(
    input: &SuspicionInput<'_>,
) -> (HashMap<ChunkId, f32>, Option<f32>, HashMap<SeamId, f32>) {
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
    let seam_cosine = input
        .trace
        .fused
        .iter()
        .filter_map(|e| Some((e.entry.seam()?, dense(e)?)))
        .collect();
    (chunk_cosine, best_sent, seam_cosine)
}

/// The cuts to judge: each beside a sent chunk, and each whose seam the fill reached (a seam
/// can outrank both its chunks when the app sent neither), unless the app sent both chunks;
/// each once, in that order.
fn cuts_to_judge(input: &SuspicionInput<'_>, sent: &HashSet<ChunkId>) -> Vec<(ChunkId, ChunkId)> {
    let layout = input.layout;
    let mut cuts: Vec<(ChunkId, ChunkId)> = Vec::new();
    for &c in input.sent {
        cuts.extend(neighbours(layout, c));
    }
    let seam_cut: HashMap<SeamId, (ChunkId, ChunkId)> = layout
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
    cuts
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
