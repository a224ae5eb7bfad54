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
    /// The context's tokens counted once and counted again, and the passages sent twice.
    pub context: ContextTokens,
}

/// What a context sends once and more than once, counted on the layout's tokens: the tokens of
/// the returned units counted once (`distinct`), the ones sent again because two returned units
/// hold them (`duplicated`), and how many pairs of returned units share text (`overlapping_pairs`:
/// a passage returned twice).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ContextTokens {
    /// Tokens of the context, each counted once.
    pub distinct: u64,
    /// Tokens sent more than once (a token in three units counts twice).
    pub duplicated: u64,
    /// Pairs of returned units of one document whose spans overlap.
    pub overlapping_pairs: u32,
}

/// Tokens of `doc` whose start lies in `span`.
fn tokens_in(layout: &Layout, doc: crate::corpus::DocId, span: crate::corpus::Span) -> u64 {
    let starts = &layout.offsets[doc.0 as usize].starts;
    (starts.partition_point(|&t| t < span.end) - starts.partition_point(|&t| t < span.start)) as u64
}

/// What the units `returned` (indexes into `units`) send once and more than once.
pub fn context_tokens(units: &[Unit], layout: &Layout, returned: &[UnitId]) -> ContextTokens {
    let mut spans: Vec<(crate::corpus::DocId, crate::corpus::Span)> = returned
        .iter()
        .map(|&u| (units[u.index()].doc, units[u.index()].span))
        .collect();
    spans.sort_by_key(|(d, s)| (d.0, s.start, s.end));
    let total: u64 = spans.iter().map(|&(d, s)| tokens_in(layout, d, s)).sum();
    let mut distinct = 0;
    let mut run: Option<(crate::corpus::DocId, crate::corpus::Span)> = None;
    for &(d, s) in &spans {
        run = match run {
            Some((rd, rs)) if rd == d && s.start <= rs.end => {
                Some((rd, crate::corpus::Span::new(rs.start, rs.end.max(s.end))))
            }
            Some((rd, rs)) => {
                distinct += tokens_in(layout, rd, rs);
                Some((d, s))
            }
            None => Some((d, s)),
        };
    }
    if let Some((rd, rs)) = run {
        distinct += tokens_in(layout, rd, rs);
    }
    let mut pairs = 0;
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            if a.0 == b.0 && a.1.start < b.1.end && b.1.start < a.1.end {
                pairs += 1;
            }
        }
    }
    ContextTokens {
        distinct,
        duplicated: total.saturating_sub(distinct),
        overlapping_pairs: pairs,
    }
}

/// Whether a strategy stores each passage once: no two of its units share text.
pub fn stores_once(units: &[Unit]) -> bool {
    let mut spans: Vec<(u32, usize, usize)> = units
        .iter()
        .map(|u| (u.doc.0, u.span.start, u.span.end))
        .collect();
    spans.sort_unstable();
    spans
        .windows(2)
        .all(|w| w[0].0 != w[1].0 || w[0].2 <= w[1].1)
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
        context: context_tokens(units, layout, &r.units),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Corpus, DocId, Span};

    /// One document of ten one-word tokens ("w0 w1 … w9", 3 bytes each), every token a word.
    fn layout() -> Layout {
        let corpus = Corpus::from_texts([("a.txt", "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9")]);
        crate::layout::of_words(&corpus, 2)
    }

    fn unit(first: usize, last: usize) -> Unit {
        // Token i starts at byte 3 * i.
        Unit {
            doc: DocId(0),
            span: Span::new(3 * first, 3 * last + 2),
            tokens: (last - first + 1) as u32,
        }
    }

    /// Counted by hand: windows w0–w3, w2–w5 and w8–w9 send 10 tokens, 8 of them distinct
    /// (w2 and w3 twice), one pair of passages returned twice; disjoint chunks none.
    #[test]
    fn a_context_counts_what_it_sends_once_and_twice() {
        let layout = layout();
        let windows = [unit(0, 3), unit(2, 5), unit(8, 9)];
        let all = [UnitId(0), UnitId(1), UnitId(2)];
        assert_eq!(
            context_tokens(&windows, &layout, &all),
            ContextTokens {
                distinct: 8,
                duplicated: 2,
                overlapping_pairs: 1
            }
        );
        assert!(!stores_once(&windows));
        let chunks = [unit(0, 3), unit(4, 7), unit(8, 9)];
        assert_eq!(
            context_tokens(&chunks, &layout, &[UnitId(2), UnitId(0)]),
            ContextTokens {
                distinct: 6,
                duplicated: 0,
                overlapping_pairs: 0
            }
        );
        assert!(stores_once(&chunks));
        // The same unit returned twice is a passage sent twice.
        let twice = context_tokens(&chunks, &layout, &[UnitId(1), UnitId(1)]);
        assert_eq!((twice.distinct, twice.duplicated), (4, 4));
    }
}
