//! Per-span metrics: how gold evidence lies against chunks, and whether returned chunks hold it.

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkId;
use crate::corpus::Span;
use crate::layout::Layout;

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
