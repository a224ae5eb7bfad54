//! Side drop (white paper, section 3.5): when a seam fires, each half of its window is scored
//! against the question; a half that scores near zero while the other does not says the
//! question's evidence lies on one side of the cut, so only the other side's chunk is added.
//!
//! A half's score is the cosine between the question's vector and the half's vector (the seam
//! window from its start to the cut, and from the cut to its end). A side is dropped when its
//! score is below the threshold and the other side's is not; when both are below, the seam fired
//! for a reason neither half shows alone, and both chunks stay. Scoring is the engine's work
//! (it needs the model); deciding is this pure stage, so the threshold is a setting that
//! `replan` applies in microseconds, like `m`.

use serde::{Deserialize, Serialize};

use super::fire::FireDecision;
use crate::ChunkId;
use crate::SeamId;

/// Default side-drop threshold (cosine), used when side drop is switched on without a value.
///
/// Measured on the sample corpus (130 gold questions, m = 1, budget 5, fired seams the fill
/// reached): halves whose chunk holds evidence scored 0.10–0.77 (5th percentile 0.28), halves
/// whose chunk holds none 0.10–0.66 (median 0.38). No half scores near zero: both halves sit in
/// the same document's topic. 0.25 is below 95% of the halves that hold evidence; at it side
/// drop changed failures by at most two questions in 130 at budgets 3, 5 and 8, so it stays off
/// by default (see the README's "Side drop").
pub const DEFAULT_SIDE_DROP: f32 = 0.25;

/// Fused positions whose seams get their halves scored: a seam deeper than this does not reach
/// a budget fill of any practical size.
pub const SIDE_SCORE_DEPTH: usize = 40;

/// One side of a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The chunk before the cut.
    Left,
    /// The chunk after the cut.
    Right,
}

impl Side {
    /// `left` or `right`.
    pub fn label(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// How a seam's two halves scored against one question.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SideScores {
    /// The seam.
    pub seam: SeamId,
    /// Cosine of the question with the half before the cut.
    pub left: f32,
    /// Cosine of the question with the half after the cut.
    pub right: f32,
}

/// A fired seam that brings only one of its chunks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SideDrop {
    /// The seam.
    pub seam: SeamId,
    /// The side not added.
    pub dropped: Side,
    /// The chunk not added.
    pub dropped_chunk: ChunkId,
    /// The dropped half's score.
    pub dropped_score: f32,
    /// The kept half's score.
    pub kept_score: f32,
    /// The threshold it fell below.
    pub threshold: f32,
}

impl SideDrop {
    /// Why, in words: `right half scores 0.03 < 0.10 (left 0.41): chunk 41 not added`.
    pub fn reason(&self) -> String {
        let kept = match self.dropped {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        };
        format!(
            "{} half scores {:.2} < {:.2} ({} {:.2}): chunk {} not added",
            self.dropped.label(),
            self.dropped_score,
            self.threshold,
            kept.label(),
            self.kept_score,
            self.dropped_chunk.0
        )
    }
}

/// The side drops among `decisions` at `threshold`, given each seam's half scores (a fired seam
/// without scores keeps both sides).
///
/// ```
/// use seams::{fire_test, side_drops, ChunkId, EntryRef, FusedEntry, SeamId, Side, SideScores};
/// let fused = vec![FusedEntry::given(EntryRef::Seam(SeamId(3)))];
/// let decisions = fire_test(&fused, &|_| (ChunkId(6), ChunkId(7)), 1);
/// let scores = [SideScores { seam: SeamId(3), left: 0.41, right: 0.03 }];
/// let drops = side_drops(&decisions, &scores, 0.10);
/// assert_eq!(drops[0].dropped, Side::Right);
/// assert_eq!(drops[0].reason(), "right half scores 0.03 < 0.10 (left 0.41): chunk 7 not added");
/// ```
pub fn side_drops(
    decisions: &[FireDecision],
    scores: &[SideScores],
    threshold: f32,
) -> Vec<SideDrop> {
    decisions
        .iter()
        .filter(|d| d.fires)
        .filter_map(|d| {
            let s = scores.iter().find(|s| s.seam == d.seam)?;
            let (dropped, dropped_chunk, dropped_score, kept_score) =
                if s.right < threshold && s.left >= threshold {
                    (Side::Right, d.right.chunk, s.right, s.left)
                } else if s.left < threshold && s.right >= threshold {
                    (Side::Left, d.left.chunk, s.left, s.right)
                } else {
                    return None;
                };
            Some(SideDrop {
                seam: d.seam,
                dropped,
                dropped_chunk,
                dropped_score,
                kept_score,
                threshold,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fire::fire_test;
    use crate::{EntryRef, FusedEntry};

    #[test]
    fn a_side_is_dropped_only_when_it_alone_scores_below_the_threshold() {
        let e = |x| FusedEntry::given(x);
        let fused = vec![
            e(EntryRef::Seam(SeamId(0))),
            e(EntryRef::Seam(SeamId(1))),
            e(EntryRef::Seam(SeamId(2))),
            e(EntryRef::Chunk(ChunkId(9))),
        ];
        let links = |s: SeamId| (ChunkId(s.0 * 2), ChunkId(s.0 * 2 + 1));
        let decisions = fire_test(&fused, &links, 1);
        assert!(decisions.iter().all(|d| d.fires));
        let scores = [
            SideScores {
                seam: SeamId(0),
                left: 0.4,
                right: 0.02,
            },
            SideScores {
                seam: SeamId(1),
                left: 0.05,
                right: 0.03,
            },
            SideScores {
                seam: SeamId(2),
                left: -0.1,
                right: 0.3,
            },
        ];
        let drops = side_drops(&decisions, &scores, 0.1);
        assert_eq!(drops.len(), 2, "both halves low: both chunks stay");
        assert_eq!((drops[0].seam, drops[0].dropped), (SeamId(0), Side::Right));
        assert_eq!(drops[0].dropped_chunk, ChunkId(1));
        assert_eq!((drops[1].seam, drops[1].dropped), (SeamId(2), Side::Left));
        assert_eq!(
            drops[0].reason(),
            "right half scores 0.02 < 0.10 (left 0.40): chunk 1 not added"
        );
        // A seam without scores, or one that did not fire, is never dropped.
        assert!(side_drops(&decisions, &scores[..0], 0.1).is_empty());
        let quiet = fire_test(&fused, &links, 9);
        assert!(side_drops(&quiet, &scores, 0.1).is_empty());
    }
}
