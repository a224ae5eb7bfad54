//! The optional rerank stage: which chunks a reranker may judge, and how to ask it.
//!
//! A reranker reads the question with each candidate and scores it afresh. Seams never go to it
//! (their text is never evidence), and neither do the chunks a fired seam brings in: each holds
//! only part of a split fact and, judged alone, could be wrongly cut. So the candidates are the
//! first `n` ordinary chunks of the fused ranking, seams removed and pinned chunks left out.
//!
//! The same scores also reorder the chunks-only baseline ("without Seams"), whose first `n`
//! chunks are all ordinary; otherwise a comparison would credit the reranker's work to Seams.
//! So a pinned chunk may still be scored, for the other side, but its score never moves it here.
//!
//! Calling the reranker is the only impure step here ([`score_candidates`]); reordering the
//! ranking from its scores is pure and lives in [`plan`](super::plan).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::fire::FireDecision;
use super::fuse::FusedEntry;
use crate::ChunkId;
use crate::SeamId;

/// Default number of ordinary chunks sent to a reranker.
pub const DEFAULT_RERANK_CANDIDATES: usize = 150;

/// A model that scores candidate texts against a question (higher is better).
pub trait Reranker {
    /// The reranker's name, recorded in the trace.
    fn name(&self) -> &str;
    /// One score per text, in the order given.
    fn score(&mut self, query: &str, texts: &[&str]) -> Result<Vec<f32>, RerankError>;
}

/// Why reranking failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RerankError {
    /// The reranker model itself reported an error.
    #[error("reranker `{reranker}` failed: {message}")]
    Model {
        /// The reranker's name.
        reranker: String,
        /// What it reported.
        message: String,
    },
    /// The reranker returned the wrong number of scores.
    #[error(
        "reranker `{reranker}` returned {got} scores for {expected} chunks; check that the model is a cross-encoder that scores each text"
    )]
    ScoreCount {
        /// The reranker's name.
        reranker: String,
        /// Texts sent.
        expected: usize,
        /// Scores returned.
        got: usize,
    },
    /// A candidate chunk has no text to send.
    #[error(
        "no text for chunk {0} to send to the reranker; the chunk table does not match the index, rebuild the index"
    )]
    MissingText(ChunkId),
}

/// Reranker scores for the chunks of one question, cached so sliders can replan without the model.
///
/// A cross-encoder scores each (question, chunk) pair on its own, so a score stays valid when a
/// different `m` changes which chunks are candidates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RerankScores {
    /// The reranker that produced the scores.
    pub reranker: String,
    /// One score per chunk sent (higher is better).
    pub scores: Vec<(ChunkId, f32)>,
}

impl RerankScores {
    /// The score of `chunk`, if it was scored (the first one when listed twice).
    pub fn score_of(&self, chunk: ChunkId) -> Option<f32> {
        self.scores
            .iter()
            .find(|(id, _)| *id == chunk)
            .map(|&(_, score)| score)
    }

    /// The candidates in `candidates` that have no score yet (they need a reranker call).
    pub fn missing(&self, candidates: &[ChunkId]) -> Vec<ChunkId> {
        candidates
            .iter()
            .copied()
            .filter(|&c| self.score_of(c).is_none())
            .collect()
    }
}

/// What the rerank stage did, shown in the trace even when nothing happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RerankStatus {
    /// No reranker is configured: the fused order is kept.
    NotConfigured,
    /// Reranker scores reordered the ordinary chunks around the pinned ones.
    Applied {
        /// The reranker's name.
        reranker: String,
        /// How many candidates the stage had (at most `n`).
        candidates: usize,
        /// Candidates with no score, kept after the scored ones in fused order.
        unscored: Vec<ChunkId>,
    },
    /// The reranker failed: the fused order was kept.
    Failed {
        /// The reranker's name.
        reranker: String,
        /// The error it reported.
        error: String,
    },
}

/// Chunks pinned by fired seams, each with the first fired seam (in fused order) that links it.
pub fn pinned_chunks(decisions: &[FireDecision]) -> HashMap<ChunkId, SeamId> {
    let mut pinned = HashMap::new();
    for decision in decisions.iter().filter(|d| d.fires) {
        for link in decision.links() {
            pinned.entry(link.chunk).or_insert(decision.seam);
        }
    }
    pinned
}

/// The chunks a reranker may judge: the first `n` distinct ordinary chunks in fused order, seams
/// removed and chunks pinned by a fired seam left out.
pub fn rerank_candidates(
    fused: &[FusedEntry],
    decisions: &[FireDecision],
    n: usize,
) -> Vec<ChunkId> {
    let pinned = pinned_chunks(decisions);
    let mut out: Vec<ChunkId> = Vec::new();
    for chunk in fused.iter().filter_map(|e| e.entry.chunk()) {
        if out.len() >= n {
            break;
        }
        if !pinned.contains_key(&chunk) && !out.contains(&chunk) {
            out.push(chunk);
        }
    }
    out
}

/// Ask a reranker to score candidate chunks; `text_of` gives each chunk's original text.
pub fn score_candidates<'t>(
    reranker: &mut dyn Reranker,
    query: &str,
    candidates: &[ChunkId],
    text_of: &dyn Fn(ChunkId) -> Option<&'t str>,
) -> Result<RerankScores, RerankError> {
    let texts = candidates
        .iter()
        .map(|&c| text_of(c).ok_or(RerankError::MissingText(c)))
        .collect::<Result<Vec<&str>, _>>()?;
    let scores = if texts.is_empty() {
        Vec::new()
    } else {
        reranker.score(query, &texts)?
    };
    if scores.len() != candidates.len() {
        return Err(RerankError::ScoreCount {
            reranker: reranker.name().to_string(),
            expected: candidates.len(),
            got: scores.len(),
        });
    }
    Ok(RerankScores {
        reranker: reranker.name().to_string(),
        scores: candidates.iter().copied().zip(scores).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fire::fire_test;
    use crate::list::EntryRef;

    /// A reranker with fixed scores per text, recording what it was sent.
    struct FixedScores {
        sent: Vec<String>,
    }

    impl Reranker for FixedScores {
        fn name(&self) -> &str {
            "fixed"
        }
        fn score(&mut self, _query: &str, texts: &[&str]) -> Result<Vec<f32>, RerankError> {
            self.sent.extend(texts.iter().map(|t| t.to_string()));
            Ok(texts.iter().map(|t| t.len() as f32).collect())
        }
    }

    fn links(seam: SeamId) -> (ChunkId, ChunkId) {
        (ChunkId(seam.0 / 100), ChunkId(seam.0 % 100))
    }

    fn fused(entries: &[EntryRef]) -> Vec<FusedEntry> {
        entries.iter().copied().map(FusedEntry::given).collect()
    }

    #[test]
    fn retrieve_rerank_candidates_skip_seams_and_pinned_chunks() {
        let c = |i| EntryRef::Chunk(ChunkId(i));
        let s = |i| EntryRef::Seam(SeamId(i));
        // seam 7|8 fires (1 + 1 = 2 ≤ 3, ≤ 9); seam 1|2 at 5 does not (5 + 1 = 6 > 2).
        let f = fused(&[s(708), c(1), c(7), c(2), s(102), c(4), c(3), c(6), c(8)]);
        let decisions = fire_test(&f, &links, 1);
        assert!(decisions[0].fires && !decisions[1].fires);
        assert_eq!(
            rerank_candidates(&f, &decisions, 150),
            vec![ChunkId(1), ChunkId(2), ChunkId(4), ChunkId(3), ChunkId(6)]
        );
        assert_eq!(
            rerank_candidates(&f, &decisions, 2),
            vec![ChunkId(1), ChunkId(2)]
        );
        assert!(rerank_candidates(&f, &decisions, 0).is_empty());
    }

    #[test]
    fn retrieve_rerank_score_candidates_sends_only_given_texts() {
        let mut model = FixedScores { sent: Vec::new() };
        let text = |c: ChunkId| match c.0 {
            1 => Some("a"),
            2 => Some("bbb"),
            _ => None,
        };
        let scores = score_candidates(&mut model, "q", &[ChunkId(1), ChunkId(2)], &text);
        assert_eq!(
            scores,
            Ok(RerankScores {
                reranker: "fixed".into(),
                scores: vec![(ChunkId(1), 1.0), (ChunkId(2), 3.0)],
            })
        );
        assert_eq!(model.sent, vec!["a", "bbb"]);
        let missing = score_candidates(&mut model, "q", &[ChunkId(9)], &text);
        assert_eq!(missing, Err(RerankError::MissingText(ChunkId(9))));
    }

    #[test]
    fn retrieve_rerank_wrong_score_count_is_an_error() {
        struct Short;
        impl Reranker for Short {
            fn name(&self) -> &str {
                "short"
            }
            fn score(&mut self, _q: &str, _t: &[&str]) -> Result<Vec<f32>, RerankError> {
                Ok(vec![0.5])
            }
        }
        let text = |_c: ChunkId| Some("x");
        let err = score_candidates(&mut Short, "q", &[ChunkId(1), ChunkId(2)], &text);
        assert!(matches!(
            err,
            Err(RerankError::ScoreCount {
                expected: 2,
                got: 1,
                ..
            })
        ));
    }
}
