//! The trace: one query's whole path through the pure stages, and `replan` to redo it.
//!
//! Search and the reranker are the slow, impure steps; they leave a [`QueryInput`]. Everything
//! after them (fuse, fire test, plan, budget fill, context, "without Seams") is recomputed from that
//! input by [`replan`] in microseconds, which is what lets the `m` and budget sliders move live.

use serde::{Deserialize, Serialize};

use super::budget::{BudgetFill, fill_budget};
use super::compare::WithoutSeams;
use super::fire::{FireDecision, fire_test};
use super::fuse::{FusedEntry, fuse};
use super::list::RankedList;
use super::plan::{Plan, apply_rerank};
use super::rerank::{RerankScores, RerankStatus, rerank_candidates};
use super::settings::{QuerySettings, QuerySettingsError};
use super::side::{SideDrop, SideScores, side_drops};
use crate::ChunkId;
use crate::SeamId;

/// The ranking a query starts from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankingInput {
    /// Search lists, fused with the settings' `rrf_c` after cutting each to `depth`.
    Lists(Vec<RankedList>),
    /// A fused ranking given as is (imports, the white paper's worked example); `rrf_c` and
    /// `depth` do not apply.
    Fused(Vec<FusedEntry>),
}

impl RankingInput {
    /// The fused ranking under `settings`.
    pub fn fused(&self, settings: &QuerySettings) -> Vec<FusedEntry> {
        match self {
            RankingInput::Lists(lists) => {
                let cut: Vec<RankedList> =
                    lists.iter().map(|l| l.truncated(settings.depth)).collect();
                fuse(&cut, settings.rrf_c)
            }
            RankingInput::Fused(fused) => fused.clone(),
        }
    }
}

/// What the reranker contributed to a query.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RerankInput {
    /// No reranker is configured.
    #[default]
    NotConfigured,
    /// Scores from the reranker, per chunk.
    Scores(RerankScores),
    /// The reranker failed; the fused order is kept and the trace says why.
    Failed {
        /// The reranker's name.
        reranker: String,
        /// Its error message.
        error: String,
    },
}

/// Everything the impure stages produced for one question: all that `replan` needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryInput {
    /// The question as asked.
    pub question: String,
    /// The Seams ranking: search lists over chunks and seams, or a given fused ranking.
    pub ranking: RankingInput,
    /// The real chunks-only retrieval (dense and BM25 over chunks), when it was run.
    pub chunks_only: Option<RankingInput>,
    /// The reranker's contribution.
    pub rerank: RerankInput,
    /// Half scores of the seams near the top of the ranking, for side drop (empty when they
    /// were not computed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub side_scores: Vec<SideScores>,
}

impl RerankInput {
    /// The plan for `fused` with this contribution applied to its first `n` ordinary chunks.
    ///
    /// Both sides of a comparison go through here, so a reranker reorders the chunks-only
    /// baseline exactly as it reorders the Seams ranking, and "added" / "displaced" credit Seams
    /// only with what Seams changed.
    pub fn plan(&self, fused: &[FusedEntry], decisions: &[FireDecision], n: usize) -> Plan {
        match self {
            RerankInput::NotConfigured => Plan::fused_order(fused, decisions),
            RerankInput::Scores(scores) => apply_rerank(fused, decisions, Some(scores), n),
            RerankInput::Failed { reranker, error } => {
                let mut plan = Plan::fused_order(fused, decisions);
                plan.mark_rerank_failed(reranker, error);
                plan
            }
        }
    }
}

impl QueryInput {
    /// The chunks a reranker should judge under `settings` (the caller scores those still missing).
    ///
    /// The candidates of both sides: the Seams ranking's first ordinary chunks, then those of the
    /// chunks-only ranking not already listed (its chunks are never pinned, as it has no seams).
    pub fn rerank_candidates(
        &self,
        settings: &QuerySettings,
        links: &dyn Fn(SeamId) -> (ChunkId, ChunkId),
    ) -> Vec<ChunkId> {
        let fused = self.ranking.fused(settings);
        let decisions = fire_test(&fused, links, settings.m);
        let mut candidates = rerank_candidates(&fused, &decisions, settings.rerank_candidates);
        if let Some(chunks_only) = &self.chunks_only {
            let chunks_fused = chunks_only.fused(settings);
            for chunk in rerank_candidates(&chunks_fused, &[], settings.rerank_candidates) {
                if !candidates.contains(&chunk) {
                    candidates.push(chunk);
                }
            }
        }
        candidates
    }
}

/// Corpus facts the pure stages need, supplied by the caller.
pub struct Lookups<'a> {
    /// Each seam's (left, right) linked chunks.
    pub links: &'a dyn Fn(SeamId) -> (ChunkId, ChunkId),
    /// Each chunk's token count (the embedding model's tokenizer).
    pub tokens: &'a dyn Fn(ChunkId) -> u32,
}

/// One chunk of the final context and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextChunk {
    /// The chunk, whose original text is sent.
    pub chunk: ChunkId,
    /// Its token count.
    pub tokens: u32,
}

/// A query's full record: inputs, settings and every stage's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The settings used.
    pub settings: QuerySettings,
    /// The question, search lists and reranker scores the stages started from.
    pub input: QueryInput,
    /// The fused ranking, position 1 first.
    pub fused: Vec<FusedEntry>,
    /// The fire test for every seam in the fused ranking, in fused order.
    pub decisions: Vec<FireDecision>,
    /// Fired seams that side drop left with one chunk (empty when side drop is off).
    #[serde(default)]
    pub side_drops: Vec<SideDrop>,
    /// The ranking the budget fill walked, with the rerank status.
    pub plan: Plan,
    /// The budget fill, step by step.
    pub fill: BudgetFill,
    /// The context sent: chunks in fill order with their token counts.
    pub context: Vec<ContextChunk>,
    /// Total tokens of the context.
    pub tokens_sent: u64,
    /// What the same budget holds without Seams, both baselines labelled.
    pub without_seams: WithoutSeams,
}

impl Trace {
    /// The question asked.
    pub fn question(&self) -> &str {
        &self.input.question
    }

    /// The fire tests of seams the budget fill reached (at or above its last position read), in
    /// fused order, with their index in `decisions`.
    pub fn decisions_reached(&self) -> impl Iterator<Item = (usize, &FireDecision)> {
        let reach = self.fill.steps.last().map_or(0, |s| s.position);
        self.decisions
            .iter()
            .enumerate()
            .filter(move |(_, d)| d.seam_position <= reach)
    }

    /// What the rerank stage did.
    pub fn rerank_status(&self) -> &RerankStatus {
        &self.plan.rerank
    }

    /// The same query under new settings, from the cached input (no index, no model).
    pub fn replan(
        &self,
        settings: &QuerySettings,
        lookups: &Lookups<'_>,
    ) -> Result<Trace, QuerySettingsError> {
        replan(&self.input, settings, lookups)
    }
}

/// Run fuse → fire test → plan → budget fill → context → "without Seams" from cached input.
pub fn replan(
    input: &QueryInput,
    settings: &QuerySettings,
    lookups: &Lookups<'_>,
) -> Result<Trace, QuerySettingsError> {
    settings.validate()?;
    let fused = input.ranking.fused(settings);
    let decisions = fire_test(&fused, lookups.links, settings.m);
    let mut plan = input
        .rerank
        .plan(&fused, &decisions, settings.rerank_candidates);
    let side_drops = match settings.side_drop {
        Some(threshold) => side_drops(&decisions, &input.side_scores, threshold),
        None => Vec::new(),
    };
    plan.apply_side_drops(&side_drops);
    let fill = fill_budget(&plan, settings.budget);
    let context: Vec<ContextChunk> = fill
        .chunks
        .iter()
        .map(|&chunk| ContextChunk {
            chunk,
            tokens: (lookups.tokens)(chunk),
        })
        .collect();
    let tokens_sent = context.iter().map(|c| u64::from(c.tokens)).sum();
    // The chunks-only side gets the same reranker scores over its own first chunks.
    let chunks_only = input.chunks_only.as_ref().map(|r| {
        let chunks_fused = r.fused(settings);
        let plan = input
            .rerank
            .plan(&chunks_fused, &[], settings.rerank_candidates);
        (chunks_fused, plan)
    });
    let without_seams = WithoutSeams::build(&fused, &fill.chunks, chunks_only, settings.budget);
    Ok(Trace {
        settings: *settings,
        input: input.clone(),
        fused,
        decisions,
        side_drops,
        plan,
        fill,
        context,
        tokens_sent,
        without_seams,
    })
}
