//! Per-question metrics: did the returned chunks hold the evidence, and what did firings cost.

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkId;
use crate::corpus::Span;
use crate::layout::Layout;
use crate::retrieve::{BudgetAction, Trace};

use super::questions::Question;

/// How one gold span lies against a set of chunk spans (seed 003's classifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum SpanClass {
    /// One chunk holds all of it.
    Whole,
    /// Chunks touch it, but no one chunk holds it all.
    Split,
    /// No chunk touches it.
    Absent,
}

/// Classify `span` against chunk spans (all in one document, half-open byte ranges).
///
/// WHOLE when some chunk contains the span, or when the chunks holding its first and its last
/// byte are the same ones (overlapping chunks); ABSENT when no chunk overlaps it; SPLIT otherwise.
pub fn span_class(span: Span, chunks: &[Span]) -> SpanClass {
    if span.is_empty() {
        return if chunks
            .iter()
            .any(|c| c.start <= span.start && span.start <= c.end)
        {
            SpanClass::Whole
        } else {
            SpanClass::Absent
        };
    }
    if chunks.iter().any(|c| c.contains(&span)) {
        return SpanClass::Whole;
    }
    let touching: Vec<(usize, &Span)> = chunks
        .iter()
        .enumerate()
        .filter(|(_, c)| c.overlaps(&span))
        .collect();
    if touching.is_empty() {
        return SpanClass::Absent;
    }
    let last = span.end - 1;
    let holding = |pos: usize| -> Vec<usize> {
        touching
            .iter()
            .filter(|(_, c)| c.start <= pos && pos < c.end)
            .map(|(i, _)| *i)
            .collect()
    };
    let first_ids = holding(span.start);
    let last_ids = holding(last);
    if !first_ids.is_empty() && first_ids == last_ids {
        SpanClass::Whole
    } else {
        SpanClass::Split
    }
}

/// Whether the union of `chunks` covers every byte of `span`.
pub fn covered(span: Span, chunks: &[Span]) -> bool {
    let mut sorted: Vec<Span> = chunks
        .iter()
        .copied()
        .filter(|c| c.overlaps(&span))
        .collect();
    sorted.sort();
    let mut reach = span.start;
    for c in sorted {
        if c.start > reach {
            return false;
        }
        reach = reach.max(c.end);
        if reach >= span.end {
            return true;
        }
    }
    reach >= span.end
}

/// What one question's retrieval did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The question's id.
    pub id: String,
    /// Every gold span is covered by the returned chunks.
    pub answered: bool,
    /// Tokens of the returned chunks.
    pub tokens_sent: u64,
    /// Fired seams that the budget fill reached and that added at least one chunk.
    pub fires: usize,
    /// Of those, fires whose evidence lies wholly inside one chunk (or another document).
    pub false_fires: usize,
    /// Of those, fires where one added chunk holds none of the evidence.
    pub wasted_fires: usize,
    /// The chunks returned.
    pub chunks: Vec<ChunkId>,
}

/// Score the trace's "without Seams" retrieval (chunks only) against its question.
pub fn baseline_outcome(question: &Question, trace: &Trace, layout: &Layout) -> Option<Outcome> {
    let run = trace.without_seams.retrieval.as_ref()?;
    let chunks = &run.fill.chunks;
    Some(Outcome {
        id: question.id.clone(),
        answered: answered(question, chunks, layout),
        tokens_sent: chunks
            .iter()
            .map(|c| u64::from(layout.chunk(*c).tokens))
            .sum(),
        fires: 0,
        false_fires: 0,
        wasted_fires: 0,
        chunks: chunks.clone(),
    })
}

/// Whether `chunks` together hold every gold span of `question`.
pub fn answered(question: &Question, chunks: &[ChunkId], layout: &Layout) -> bool {
    let returned: Vec<Span> = chunks
        .iter()
        .map(|c| layout.chunk(*c))
        .filter(|c| c.doc == question.doc)
        .map(|c| c.span)
        .collect();
    question.spans.iter().all(|s| covered(*s, &returned))
}

/// Score one trace against its question.
pub fn outcome(question: &Question, trace: &Trace, layout: &Layout) -> Outcome {
    let returned: Vec<Span> = trace
        .fill
        .chunks
        .iter()
        .map(|c| layout.chunk(*c))
        .filter(|c| c.doc == question.doc)
        .map(|c| c.span)
        .collect();
    let answered = question.spans.iter().all(|s| covered(*s, &returned));
    let doc_chunks: Vec<Span> = layout
        .chunks
        .iter()
        .filter(|c| c.doc == question.doc)
        .map(|c| c.span)
        .collect();
    let (mut fires, mut false_fires, mut wasted_fires) = (0, 0, 0);
    for step in &trace.fill.steps {
        let BudgetAction::AddedPair { added } = &step.action else {
            continue;
        };
        let Some(seam) = step.entry.seam() else {
            continue;
        };
        if added.is_empty() {
            continue;
        }
        fires += 1;
        let seam = layout.seam(seam);
        let crosses = seam.doc == question.doc
            && question
                .spans
                .iter()
                .any(|s| s.start < seam.cut && seam.cut < s.end);
        let evidence_split = question
            .spans
            .iter()
            .any(|s| span_class(*s, &doc_chunks) == SpanClass::Split);
        if !(crosses && evidence_split) {
            false_fires += 1;
        }
        let holds = |c: ChunkId| {
            let chunk = layout.chunk(c);
            chunk.doc == question.doc && question.spans.iter().any(|s| chunk.span.overlaps(s))
        };
        if !holds(seam.left) || !holds(seam.right) {
            wasted_fires += 1;
        }
    }
    Outcome {
        id: question.id.clone(),
        answered,
        tokens_sent: trace.tokens_sent,
        fires,
        false_fires,
        wasted_fires,
        chunks: trace.fill.chunks.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(a: usize, b: usize) -> Span {
        Span::new(a, b)
    }

    #[test]
    fn span_classes_follow_the_seed() {
        let chunks = [s(0, 10), s(10, 20), s(20, 30)];
        assert_eq!(span_class(s(2, 8), &chunks), SpanClass::Whole);
        assert_eq!(
            span_class(s(0, 10), &chunks),
            SpanClass::Whole,
            "a span ending at a cut is whole"
        );
        assert_eq!(span_class(s(8, 12), &chunks), SpanClass::Split);
        assert_eq!(span_class(s(8, 25), &chunks), SpanClass::Split);
        assert_eq!(span_class(s(40, 45), &chunks), SpanClass::Absent);
        // Overlapping chunks: the span's first and last byte sit in the same chunk.
        assert_eq!(
            span_class(s(8, 14), &[s(0, 15), s(10, 25)]),
            SpanClass::Whole
        );
    }

    #[test]
    fn coverage_needs_every_byte() {
        assert!(covered(s(5, 15), &[s(10, 20), s(0, 10)]));
        assert!(!covered(s(5, 15), &[s(0, 10)]));
        assert!(!covered(s(5, 25), &[s(0, 10), s(20, 30)]));
        assert!(covered(s(5, 8), &[s(0, 10)]));
    }
}
