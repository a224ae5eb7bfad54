//! What one board row sent for each question, unit by unit (`tune --per-question`): the
//! returned units with their byte and token positions and the gold spans' token positions, so a
//! reader (or a test) can count by hand the context figures the row's columns average.

use serde::Serialize;

use crate::corpus::{Corpus, DocId, Span};
use crate::eval::questions::Question;
use crate::eval::score::Scored;
use crate::eval::select::Retrieved;
use crate::eval::strategy::Unit;
use crate::layout::Layout;

/// A span of one document, in bytes and in the layout's tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The document's path in the corpus.
    pub doc: String,
    /// Byte offsets, end exclusive.
    pub start: usize,
    /// Byte offset one past the end.
    pub end: usize,
    /// Index of the first token starting inside the span.
    pub first_token: usize,
    /// Index one past the last token starting inside the span.
    pub end_token: usize,
}

impl Place {
    fn of(corpus: &Corpus, layout: &Layout, doc: DocId, span: Span) -> Place {
        let starts = &layout.offsets[doc.0 as usize].starts;
        Place {
            doc: corpus.documents[doc.0 as usize].path.clone(),
            start: span.start,
            end: span.end,
            first_token: starts.partition_point(|&t| t < span.start),
            end_token: starts.partition_point(|&t| t < span.end),
        }
    }
}

/// One question under one row: what the context held and the figures counted from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionDetail {
    /// The question's id.
    pub id: String,
    /// The context held every gold span.
    pub answered: bool,
    /// The units sent, in the order the budget fill sent them.
    pub returned: Vec<Place>,
    /// The gold spans.
    pub gold: Vec<Place>,
    /// Tokens sent (a unit's tokens each time it is sent).
    pub tokens_sent: u64,
    /// Tokens of the context counted once.
    pub distinct_tokens: u64,
    /// Tokens sent more than once.
    pub duplicated_tokens: u64,
    /// Pairs of returned units that share text.
    pub passages_twice: u32,
    /// Seams or windows that fired and brought their chunks (Seams rows).
    pub fires: usize,
    /// Gold evidence tokens.
    pub evidence_tokens: u64,
    /// Gold evidence tokens the context holds.
    pub evidence_returned: u64,
}

/// The detail of question `q` from what was `retrieved` for it and its `scored` figures.
pub fn of(
    corpus: &Corpus,
    layout: &Layout,
    units: &[Unit],
    q: &Question,
    retrieved: &Retrieved,
    scored: &Scored,
) -> QuestionDetail {
    let (evidence, _, hit) = scored.token_overlap;
    QuestionDetail {
        id: q.id.clone(),
        answered: scored.answered,
        returned: retrieved
            .units
            .iter()
            .map(|u| {
                let unit = units[u.index()];
                Place::of(corpus, layout, unit.doc, unit.span)
            })
            .collect(),
        gold: q
            .spans
            .iter()
            .map(|&s| Place::of(corpus, layout, q.doc, s))
            .collect(),
        tokens_sent: scored.tokens_sent,
        distinct_tokens: scored.context.distinct,
        duplicated_tokens: scored.context.duplicated,
        passages_twice: scored.context.overlapping_pairs,
        fires: scored.fires,
        evidence_tokens: evidence,
        evidence_returned: hit,
    }
}
