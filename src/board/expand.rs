//! Neighbour expansion after retrieval: static ±1 (every retrieved chunk brings both
//! neighbours) and SCAR-style adaptive expansion (a neighbour joins only when its own relevance
//! to the question, less a continuity penalty, reaches a fraction of the retrieved chunk's).
//!
//! SCAR (Langlois, arXiv 2606.16661) weighs query–neighbour relevance against a structural
//! continuity penalty with a threshold relative to the retrieved chunk's own relevance. Here:
//!
//! ```text
//! neighbour n of retrieved chunk c joins when
//!     cos(q, n) − λ · (1 − cos(c, n))  ≥  τ · cos(q, c)
//! ```
//!
//! with cosines of the search vectors; `1 − cos(c, n)` is the penalty (low when the text runs
//! on across the cut), `λ` its weight and `τ` the relative threshold. Both are tuned on the
//! board like Seams' `m`. Pure: the cosines come in with the question.

use crate::eval::strategy::{Unit, UnitId};
use crate::retrieve::{EntryRef, FusedEntry};

/// How retrieved chunks bring their neighbours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expansion {
    /// Both neighbours, always.
    Static,
    /// SCAR's gate with threshold `tau` and penalty weight `penalty`.
    Scar {
        /// Fraction of the retrieved chunk's relevance a neighbour must reach.
        tau: f32,
        /// Weight of the continuity penalty.
        penalty: f32,
    },
}

/// What the gate needs for one question: each unit's cosine with the question (for the units near
/// the top of the ranking and their neighbours), and each unit's cosine with the next one.
pub struct Relevance<'a> {
    /// `(unit, cos(q, unit))`, sorted by unit.
    pub to_question: &'a [(u32, f32)],
    /// `continuity[i]` = cos(unit i, unit i + 1) (`NaN` across documents).
    pub continuity: &'a [f32],
}

impl Relevance<'_> {
    fn question(&self, u: u32) -> Option<f32> {
        self.to_question
            .binary_search_by_key(&u, |e| e.0)
            .ok()
            .map(|i| self.to_question[i].1)
    }

    fn between(&self, a: u32, b: u32) -> Option<f32> {
        let c = *self.continuity.get(a.min(b) as usize)?;
        (!c.is_nan()).then_some(c)
    }
}

/// Units in fused order up to `budget`, each retrieved unit followed by the neighbours
/// `expansion` lets in (best expansion score first; each takes a slot; one already in takes none).
pub fn expand_fill(
    units: &[Unit],
    fused: &[FusedEntry],
    budget: usize,
    expansion: Expansion,
    relevance: &Relevance<'_>,
) -> Vec<UnitId> {
    let mut out: Vec<UnitId> = Vec::new();
    for e in fused {
        if out.len() >= budget {
            break;
        }
        let EntryRef::Chunk(c) = e.entry else {
            continue;
        };
        let c = c.0;
        if !out.contains(&UnitId(c)) {
            out.push(UnitId(c));
        }
        let Some(doc) = units.get(c as usize).map(|u| u.doc) else {
            continue;
        };
        let mut joining: Vec<(f32, u32)> = [c.checked_sub(1), c.checked_add(1)]
            .into_iter()
            .flatten()
            .filter(|&n| units.get(n as usize).is_some_and(|u| u.doc == doc))
            .filter_map(|n| match expansion {
                Expansion::Static => Some((0.0, n)),
                Expansion::Scar { tau, penalty } => {
                    let own = relevance.question(c)?;
                    let theirs = relevance.question(n)?;
                    let continuity = relevance.between(c, n)?;
                    let score = theirs - penalty * (1.0 - continuity);
                    (score >= tau * own).then_some((score, n))
                }
            })
            .collect();
        joining.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, n) in joining {
            if out.len() < budget && !out.contains(&UnitId(n)) {
                out.push(UnitId(n));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ChunkId;
    use crate::corpus::{DocId, Span};

    fn units() -> Vec<Unit> {
        (0..6)
            .map(|i| Unit {
                doc: DocId(u32::from(i >= 4)),
                span: Span::new(i * 10, i * 10 + 10),
                tokens: 10,
            })
            .collect()
    }

    fn fused(order: &[u32]) -> Vec<FusedEntry> {
        order
            .iter()
            .map(|&c| FusedEntry::given(EntryRef::Chunk(ChunkId(c))))
            .collect()
    }

    #[test]
    fn static_expansion_brings_both_neighbours_in_one_document_within_the_budget() {
        let rel = Relevance {
            to_question: &[],
            continuity: &[],
        };
        let got = expand_fill(&units(), &fused(&[2, 4]), 4, Expansion::Static, &rel);
        // 2 brings 1 and 3; 4 is in document 1, whose only neighbour is 5, but the budget is full.
        assert_eq!(got, vec![UnitId(2), UnitId(1), UnitId(3), UnitId(4)]);
        let got = expand_fill(&units(), &fused(&[3]), 5, Expansion::Static, &rel);
        // Unit 4 is in another document: never a neighbour of 3.
        assert_eq!(got, vec![UnitId(3), UnitId(2)]);
    }

    #[test]
    fn scar_lets_in_a_neighbour_only_past_the_relative_threshold_less_the_penalty() {
        // cos(q, ·): unit 2 is retrieved at 0.6; 1 scores 0.5, 3 scores 0.3.
        let to_question = [(1, 0.5), (2, 0.6), (3, 0.3)];
        // cos(1, 2) = 0.9 (the text runs on), cos(2, 3) = 0.8.
        let continuity = [0.1, 0.9, 0.8, 0.2, f32::NAN];
        let rel = Relevance {
            to_question: &to_question,
            continuity: &continuity,
        };
        let scar = |tau, penalty| Expansion::Scar { tau, penalty };
        // τ 0.8: 1 needs 0.48 → 0.5 joins; 3 at 0.3 does not.
        let got = expand_fill(&units(), &fused(&[2]), 5, scar(0.8, 0.0), &rel);
        assert_eq!(got, vec![UnitId(2), UnitId(1)]);
        // A penalty of 0.5 takes 0.05 off unit 1 (0.45 < 0.48): nothing joins.
        let got = expand_fill(&units(), &fused(&[2]), 5, scar(0.8, 0.5), &rel);
        assert_eq!(got, vec![UnitId(2)]);
        // τ 0.5 (0.3 needed): both join, the better score first.
        let got = expand_fill(&units(), &fused(&[2]), 5, scar(0.5, 0.0), &rel);
        assert_eq!(got, vec![UnitId(2), UnitId(1), UnitId(3)]);
        // A neighbour whose relevance is unknown never joins.
        let got = expand_fill(&units(), &fused(&[0]), 5, scar(0.0, 0.0), &rel);
        assert_eq!(got, vec![UnitId(0)]);
    }
}
