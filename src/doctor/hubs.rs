//! Hub chunks and hub seams: ones that land in the budget of a large share of questions whose
//! evidence they do not hold, so they crowd out real answers.
//!
//! No gold is needed: the questions are `tune`'s offline ones (passages of 100–400 tokens drawn
//! uniformly over the corpus, each asked as its content words, [`passage_questions`]), run through
//! the whole pipeline (search, fusion, fire test, budget fill) under the settings in force. A
//! chunk counts for a question when it is in the context but overlaps none of the question's
//! passage; a seam counts when it fired and the fill took its chunks, neither of which overlaps
//! the passage.

use std::collections::HashMap;

use super::{
    DoctorOptions, DoctorProgress, Example, Finding, FindingKind, Location, excerpt, ratio,
};
use crate::calibrate::objective::Evidence;
use crate::chunk::ChunkId;
use crate::retrieve::{BudgetAction, EntryRef, QuerySettings};
use crate::session::{Engine, EngineError, OpenCorpus};
use crate::tune::{TuneQuestion, passage_questions};

/// Offline questions drawn by default: enough to see a chunk in a fifth of the budgets (a share
/// of 20% is measured to about ±4 points), few enough to embed in a few seconds on two cores.
pub const DEFAULT_QUESTIONS: usize = 100;
/// Default share of sampled questions a hub reaches.
pub const DEFAULT_HUB_SHARE: f64 = 0.20;
/// A hub must also reach this many times its fair share of questions (budget ÷ chunks: the share
/// every chunk would get if budgets were drawn at random), so a small corpus whose budget holds
/// half its chunks has no hubs by construction.
pub const FAIR_SHARE_FACTOR: f64 = 3.0;

/// Whether `chunk` holds any of `evidence`.
fn holds(open: &OpenCorpus, chunk: ChunkId, evidence: &Evidence) -> bool {
    let c = open.layout.chunk(chunk);
    c.doc == evidence.doc && evidence.spans.iter().any(|s| c.span.overlaps(s))
}

/// The hub chunk and hub seam findings; `None` when `progress` stopped the run.
pub fn hubs(
    engine: &mut Engine,
    open: &OpenCorpus,
    settings: &QuerySettings,
    options: &DoctorOptions,
    progress: &mut dyn FnMut(DoctorProgress) -> bool,
) -> Result<Option<[Finding; 2]>, EngineError> {
    let (corpus, layout) = (&open.corpus, &open.layout);
    let (questions, source) = if options.questions == 0 || settings.budget == 0 {
        (Vec::new(), "no questions asked".to_string())
    } else {
        passage_questions(corpus, layout, options.questions, options.seed)
    };
    let total = questions.len();
    let Some(hits) = count_hits(engine, open, settings, &questions, progress)? else {
        return Ok(None);
    };
    let fair = ratio(settings.budget, layout.chunks.len()).min(1.0);
    let threshold = options.hub_share.max(FAIR_SHARE_FACTOR * fair);
    let reach = |hits: usize| ratio(hits, total);
    let most = |hits: Option<usize>| reach(hits.unwrap_or(0));
    let method = |what: &str, most: f64| {
        format!(
            "{what} for at least {:.0}% of the {total} sampled questions whose passage it does not hold (the larger of {:.0}% and {FAIR_SHARE_FACTOR}× the fair share budget ÷ chunks = {:.1}%), at budget {}; the most reached one reaches {:.1}%; questions: {source}; worst: the largest share",
            threshold * 100.0,
            options.hub_share * 100.0,
            fair * 100.0,
            settings.budget,
            most * 100.0
        )
    };
    Ok(Some([
        Finding::new(
            FindingKind::HubChunk,
            layout.chunks.len(),
            "chunks",
            method(
                "a chunk in the context",
                most(hits.chunks.values().copied().max()),
            ),
            hub_chunks(open, &hits.chunks, total, threshold),
        ),
        Finding::new(
            FindingKind::HubSeam,
            layout.seams.len(),
            "seams",
            method(
                "a seam that fired and whose chunks the fill took",
                most(hits.seams.values().copied().max()),
            ),
            hub_seams(open, &hits.seams, total, threshold),
        ),
    ]))
}

/// How many questions each chunk and seam reached without holding their evidence.
struct Hits {
    /// Per chunk: questions whose context held it.
    chunks: HashMap<ChunkId, usize>,
    /// Per seam id: questions for which it fired and the fill took its chunks.
    seams: HashMap<u32, usize>,
}

/// Ask every question and count, per chunk and seam, the questions it reached without their
/// evidence; `None` when `progress` stopped the run.
fn count_hits(
    engine: &mut Engine,
    open: &OpenCorpus,
    settings: &QuerySettings,
    questions: &[TuneQuestion],
    progress: &mut dyn FnMut(DoctorProgress) -> bool,
) -> Result<Option<Hits>, EngineError> {
    let total = questions.len();
    let mut hits = Hits {
        chunks: HashMap::new(),
        seams: HashMap::new(),
    };
    for (i, q) in questions.iter().enumerate() {
        if !progress(DoctorProgress::Asking { done: i, total }) {
            return Ok(None);
        }
        let (trace, _) = engine.ask(open, &q.text, settings)?;
        for &c in &trace.fill.chunks {
            if !holds(open, c, &q.evidence) {
                *hits.chunks.entry(c).or_default() += 1;
            }
        }
        for step in &trace.fill.steps {
            if let (EntryRef::Seam(s), BudgetAction::AddedPair { .. }) = (step.entry, &step.action)
            {
                let seam = open.layout.seam(s);
                if !holds(open, seam.left, &q.evidence) && !holds(open, seam.right, &q.evidence) {
                    *hits.seams.entry(s.0).or_default() += 1;
                }
            }
        }
    }
    if !progress(DoctorProgress::Asking { done: total, total }) {
        return Ok(None);
    }
    Ok(Some(hits))
}

/// The ids whose hits reach at least `threshold` of the `total` questions, in id order, with
/// their hits (none when no question was asked).
fn reaching<K: Ord + Copy>(
    hits: &HashMap<K, usize>,
    total: usize,
    threshold: f64,
) -> Vec<(K, usize)> {
    let mut ids: Vec<(K, usize)> = hits
        .iter()
        .filter(|&(_, &h)| total > 0 && ratio(h, total) >= threshold)
        .map(|(&k, &h)| (k, h))
        .collect();
    ids.sort();
    ids
}

/// The chunks that reached at least `threshold` of the `total` questions, in id order.
fn hub_chunks(
    open: &OpenCorpus,
    hits: &HashMap<ChunkId, usize>,
    total: usize,
    threshold: f64,
) -> Vec<Example> {
    let (corpus, layout) = (&open.corpus, &open.layout);
    let reach = |hits: usize| ratio(hits, total);
    let mut cases = Vec::new();
    for (c, hits) in reaching(hits, total, threshold) {
        let chunk = layout.chunk(c);
        cases.push(Example {
            location: Location::of(corpus, chunk.doc, chunk.span, None),
            detail: format!(
                "chunk {} ({}) is in the budget of {hits} of {total} questions ({:.0}%) without their evidence",
                c.0,
                chunk.stable_key(&corpus.doc(chunk.doc).path),
                reach(hits) * 100.0
            ),
            excerpt: excerpt(corpus, chunk.doc, chunk.span),
            severity: reach(hits),
        });
    }
    cases
}

/// The seams that reached at least `threshold` of the `total` questions, in id order.
fn hub_seams(
    open: &OpenCorpus,
    hits: &HashMap<u32, usize>,
    total: usize,
    threshold: f64,
) -> Vec<Example> {
    let (corpus, layout) = (&open.corpus, &open.layout);
    let reach = |hits: usize| ratio(hits, total);
    let mut cases = Vec::new();
    for (s, hits) in reaching(hits, total, threshold) {
        let seam = layout.seam(crate::seam::SeamId(s));
        cases.push(Example {
            location: Location::of(corpus, seam.doc, seam.span, Some(seam.cut)),
            detail: format!(
                "seam {}|{} fired and filled two slots for {hits} of {total} questions ({:.0}%) without their evidence",
                seam.left.0,
                seam.right.0,
                reach(hits) * 100.0
            ),
            excerpt: excerpt(corpus, seam.doc, seam.span),
            severity: reach(hits),
        });
    }
    cases
}
