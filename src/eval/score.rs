//! Scoring what a strategy returned for one question against its gold spans, and summing a
//! question set's scores into a table row.

use std::collections::BTreeMap;

use serde::Serialize;

use super::metrics::{SpanClass, covered, span_class};
use super::prepare::Prepared;
use super::questions::Question;
use super::select::Retrieved;
use super::strategy::{Pointer, Strategy, Unit, UnitId};
use crate::layout::Layout;

/// One question's scores under one strategy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// The context held every gold span.
    pub answered: bool,
    /// Tokens sent (duplicated text counts each time).
    pub tokens_sent: u64,
    /// Firings reached by the budget fill.
    pub fires: usize,
    /// Firings whose evidence does not cross their cut.
    pub false_fires: usize,
    /// Firings where one added unit holds none of the evidence.
    pub wasted_fires: usize,
    /// Class of each gold span against this strategy's units.
    pub classes: Vec<SpanClass>,
    /// Evidence tokens, returned tokens, and evidence tokens returned.
    pub token_overlap: (u64, u64, u64),
}

/// Score what a strategy (its `units` and `pointers`) returned for a question.
pub fn score(
    units: &[Unit],
    pointers: &[Pointer],
    layout: &Layout,
    q: &Question,
    r: &Retrieved,
) -> Scored {
    let returned: Vec<crate::corpus::Span> = r
        .units
        .iter()
        .map(|&u| units[u.index()])
        .filter(|u| u.doc == q.doc)
        .map(|u| u.span)
        .collect();
    let doc_units: Vec<crate::corpus::Span> = units
        .iter()
        .filter(|u| u.doc == q.doc)
        .map(|u| u.span)
        .collect();
    let offs = &layout.offsets[q.doc.0 as usize];
    let evidence: Vec<usize> = offs
        .starts
        .iter()
        .copied()
        .filter(|&t| q.spans.iter().any(|s| s.start <= t && t < s.end))
        .collect();
    let hit = evidence
        .iter()
        .filter(|&&t| returned.iter().any(|s| s.start <= t && t < s.end))
        .count();
    let tokens_sent: u64 = r
        .units
        .iter()
        .map(|&u| u64::from(units[u.index()].tokens))
        .sum();
    let holds = |u: UnitId| {
        let unit = units[u.index()];
        unit.doc == q.doc && q.spans.iter().any(|s| unit.span.overlaps(s))
    };
    let mut false_fires = 0;
    let mut wasted = 0;
    for (ptr, _) in &r.fired {
        let (left, right) = super::select::ends(&pointers[ptr.index()]);
        let pointer = &pointers[ptr.index()];
        let cut = pointer.cut.unwrap_or(units[right.index()].span.start);
        let crosses = units[left.index()].doc == q.doc
            && q.spans.iter().any(|s| s.start < cut && cut < s.end);
        if !crosses {
            false_fires += 1;
        }
        // Waste: a chunk the fire brought holds none of the evidence (side drop brings one).
        let dropped = r.dropped.iter().find(|d| d.0 == *ptr).map(|d| d.1);
        let brought = [left, right].into_iter().filter(|&c| Some(c) != dropped);
        if brought.into_iter().any(|c| !holds(c)) {
            wasted += 1;
        }
    }
    Scored {
        answered: q.spans.iter().all(|s| covered(*s, &returned)),
        tokens_sent,
        fires: r.fired.len(),
        false_fires,
        wasted_fires: wasted,
        classes: q.spans.iter().map(|s| span_class(*s, &doc_units)).collect(),
        token_overlap: (evidence.len() as u64, tokens_sent, hit as u64),
    }
}

/// One row of the results table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridRow {
    /// Strategy label.
    pub label: String,
    /// The strategy.
    pub strategy: Strategy,
    /// Vectors in its index.
    pub vectors: usize,
    /// Vectors relative to the baseline chunks alone.
    pub vectors_vs_chunks: f64,
    /// 1 - recall@budget over all questions.
    pub failure_rate: f64,
    /// Failures and questions per tag.
    pub by_tag: BTreeMap<String, (usize, usize)>,
    /// Mean tokens sent per answer.
    pub mean_tokens: f64,
    /// Firings per question (Seams only).
    pub fires_per_question: f64,
    /// Questions with at least one firing (Seams only).
    pub fire_rate: f64,
    /// Share of firings whose evidence does not cross the cut.
    pub false_fire_rate: f64,
    /// Share of firings where one added chunk holds none of the evidence.
    pub waste_rate: f64,
    /// Gold spans WHOLE / SPLIT / ABSENT against this strategy's units.
    pub span_classes: (usize, usize, usize),
    /// Share of gold spans WHOLE in one unit.
    pub answer_in_one_chunk: f64,
    /// Chroma-style token recall, precision and IoU (duplicates count against precision and IoU).
    pub span_recall: f64,
    /// See `span_recall`.
    pub span_precision: f64,
    /// See `span_recall`.
    pub span_iou: f64,
    /// Texts embedded for this strategy (the rest came from the cache).
    pub embedded_texts: usize,
    /// Per question, in the question set's order: whether the context missed part of the
    /// evidence (what a paired bootstrap resamples; not part of the JSON row).
    #[serde(skip)]
    pub failed: Vec<bool>,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { 0.0 } else { a / b }
}

/// Summarise a prepared strategy's scores into a table row.
pub fn row(p: &Prepared, base_units: usize, questions: &[Question], scores: &[Scored]) -> GridRow {
    let facts = RowFacts {
        label: &p.label,
        strategy: p.strategy,
        vectors: p.units.len() + p.pointers.len(),
        embedded_texts: p.embedding.cache_misses,
    };
    summarise(&facts, base_units, questions, scores)
}

/// What a table row says about a strategy beyond its scores.
#[derive(Debug, Clone, Copy)]
pub struct RowFacts<'a> {
    /// Its table label.
    pub label: &'a str,
    /// The strategy.
    pub strategy: Strategy,
    /// Vectors in its index (units and pointers).
    pub vectors: usize,
    /// Texts embedded for it (the rest came from the cache).
    pub embedded_texts: usize,
}

/// Summarise a strategy's per-question scores into a table row.
pub fn summarise(
    facts: &RowFacts<'_>,
    base_units: usize,
    questions: &[Question],
    scores: &[Scored],
) -> GridRow {
    let n = questions.len().max(1) as f64;
    let mut by_tag: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (q, s) in questions.iter().zip(scores) {
        for tag in &q.tags {
            let e = by_tag.entry(tag.clone()).or_default();
            e.1 += 1;
            if !s.answered {
                e.0 += 1;
            }
        }
    }
    let fires: usize = scores.iter().map(|s| s.fires).sum();
    let classes = scores.iter().flat_map(|s| s.classes.iter());
    let (mut whole, mut split, mut absent) = (0, 0, 0);
    for c in classes {
        match c {
            SpanClass::Whole => whole += 1,
            SpanClass::Split => split += 1,
            SpanClass::Absent => absent += 1,
        }
    }
    let (e, r, i): (u64, u64, u64) = scores.iter().fold((0, 0, 0), |acc, s| {
        (
            acc.0 + s.token_overlap.0,
            acc.1 + s.token_overlap.1,
            acc.2 + s.token_overlap.2,
        )
    });
    let vectors = facts.vectors;
    GridRow {
        label: facts.label.to_string(),
        strategy: facts.strategy,
        vectors,
        vectors_vs_chunks: ratio(vectors as f64, base_units as f64),
        failure_rate: scores.iter().filter(|s| !s.answered).count() as f64 / n,
        by_tag,
        mean_tokens: scores.iter().map(|s| s.tokens_sent as f64).sum::<f64>() / n,
        fires_per_question: fires as f64 / n,
        fire_rate: scores.iter().filter(|s| s.fires > 0).count() as f64 / n,
        false_fire_rate: ratio(
            scores.iter().map(|s| s.false_fires).sum::<usize>() as f64,
            fires as f64,
        ),
        waste_rate: ratio(
            scores.iter().map(|s| s.wasted_fires).sum::<usize>() as f64,
            fires as f64,
        ),
        span_classes: (whole, split, absent),
        answer_in_one_chunk: ratio(whole as f64, (whole + split + absent) as f64),
        span_recall: ratio(i as f64, e as f64),
        span_precision: ratio(i as f64, r as f64),
        span_iou: ratio(i as f64, (e + r - i) as f64),
        embedded_texts: facts.embedded_texts,
        failed: scores.iter().map(|s| !s.answered).collect(),
    }
}
