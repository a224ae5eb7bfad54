//! Where a gold span is: at its offsets, where its text occurs exactly, where its words occur in
//! order, by fuzzy match, or in another document, in that order of preference.

use super::{ALTERNATIVES, Alternative, FUZZY_FIX_CONFIDENCE, FUZZY_LEAD, SpanCheck, SpanStatus};
use crate::corpus::{Corpus, Document, Span};
use crate::doctor::fuzzy::{FuzzyMatch, fuzzy_place};
use crate::eval::placement::{self, PlacedBy};
use crate::eval::questions::{OffsetUnit, RawQuestion, RawSpan};

/// The one document (other than the named one) where every span's text occurs exactly.
pub(super) fn other_document<'c>(corpus: &'c Corpus, raw: &RawQuestion) -> Option<&'c Document> {
    let mut found = corpus.documents.iter().filter(|d| {
        raw.spans
            .iter()
            .all(|s| !s.text.is_empty() && d.text.contains(&s.text))
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The byte span of given offsets in the line's unit, when they are a valid range.
fn given_span(doc: &Document, unit: OffsetUnit, start: usize, end: usize) -> Option<Span> {
    match unit {
        OffsetUnit::Byte => (start < end
            && end <= doc.text.len()
            && doc.text.is_char_boundary(start)
            && doc.text.is_char_boundary(end))
        .then(|| Span::new(start, end)),
        OffsetUnit::Char => {
            let mut idx = doc
                .text
                .char_indices()
                .map(|(b, _)| b)
                .chain([doc.text.len()]);
            let s = idx.clone().nth(start)?;
            let e = idx.nth(end)?;
            (s < e).then(|| Span::new(s, e))
        }
    }
}

/// A fuzzy match as a place to list, with its line.
fn alternative(doc: &Document, m: &FuzzyMatch) -> Alternative {
    Alternative {
        start: m.span.start,
        end: m.span.end,
        line: crate::doctor::line_of(&doc.text, m.span.start),
        confidence: m.confidence,
    }
}

/// Check and place one span of `raw` in `doc`.
pub(super) fn place_span(
    corpus: &Corpus,
    doc: &Document,
    raw: &RawQuestion,
    s: &RawSpan,
) -> SpanCheck {
    let given = (s.start, s.end);
    let at_offsets = match (s.start, s.end) {
        (Some(a), Some(b)) => given_span(doc, raw.unit, a, b),
        _ => None,
    };
    let mut check = SpanCheck {
        given,
        status: SpanStatus::Ok,
        placed: None,
        confidence: 1.0,
        alternatives: Vec::new(),
        occurrences: 0,
        other_doc: None,
        class: None,
    };
    if let Some(p) = at_offsets
        && doc.slice(p) == s.text
    {
        check.placed = Some(p);
        return check;
    }
    if place_exactly(&mut check, doc, s, at_offsets) {
        return check;
    }
    if let Ok((p, PlacedBy::Words)) = placement::place_text(doc, &s.text, s.page) {
        check.status = SpanStatus::Words;
        check.placed = Some(p);
        return check;
    }
    place_fuzzily(&mut check, corpus, doc, s, at_offsets);
    check
}

/// Places `s` where its text occurs exactly: the occurrence nearest its old offsets when it gave
/// any, the only one, or the one on its page; else marks it ambiguous with every occurrence
/// listed. `false` (and `check` untouched) when the text does not occur exactly.
fn place_exactly(
    check: &mut SpanCheck,
    doc: &Document,
    s: &RawSpan,
    at_offsets: Option<Span>,
) -> bool {
    let with_offsets = s.start.is_some() || s.end.is_some();
    // Exact occurrences, the one nearest the old offsets first.
    let mut exact: Vec<Span> = doc
        .text
        .match_indices(s.text.as_str())
        .map(|(at, t)| Span::new(at, at + t.len()))
        .collect();
    if s.text.is_empty() || exact.is_empty() {
        return false;
    }
    let old = at_offsets.map(|p| p.start).or(s.start).unwrap_or(0);
    exact.sort_by_key(|e| e.start.abs_diff(old));
    if exact.len() == 1 || with_offsets {
        check.status = if with_offsets {
            SpanStatus::Shifted
        } else {
            SpanStatus::TextOnly
        };
        check.placed = Some(exact[0]);
        return true;
    }
    if let Some(page) = s.page
        && let Ok((p, _)) = placement::place_text(doc, &s.text, Some(page))
    {
        check.status = SpanStatus::TextOnly;
        check.placed = Some(p);
        return true;
    }
    exact.sort_by_key(|e| e.start);
    check.status = SpanStatus::Ambiguous;
    check.occurrences = exact.len();
    check.alternatives = exact
        .iter()
        .take(super::PLACES_LISTED)
        .map(|e| {
            alternative(
                doc,
                &FuzzyMatch {
                    span: *e,
                    confidence: 1.0,
                },
            )
        })
        .collect();
    true
}

/// Places `s` by fuzzy match when the best match is confident and clearly ahead of the next;
/// otherwise it is not found (or found only in another document), with the nearest places
/// listed.
fn place_fuzzily(
    check: &mut SpanCheck,
    corpus: &Corpus,
    doc: &Document,
    s: &RawSpan,
    at_offsets: Option<Span>,
) {
    let found = fuzzy_candidates(doc, s, at_offsets);
    check.alternatives = found.iter().skip(1).map(|m| alternative(doc, m)).collect();
    if let Some(best) = found.first() {
        check.confidence = best.confidence;
        let clear = found
            .get(1)
            .is_none_or(|next| best.confidence - next.confidence >= FUZZY_LEAD);
        if best.confidence >= FUZZY_FIX_CONFIDENCE && clear {
            check.status = SpanStatus::Fuzzy;
            check.placed = Some(best.span);
            return;
        }
        check.alternatives.insert(0, alternative(doc, best));
    } else {
        check.confidence = 0.0;
    }
    check.status = SpanStatus::NotFound;
    if let Some(other) = corpus
        .documents
        .iter()
        .find(|d| d.id != doc.id && !s.text.is_empty() && d.text.contains(&s.text))
    {
        check.status = SpanStatus::OtherDocument;
        check.other_doc = Some(other.path.clone());
    }
}

/// Fuzzy places, and the text at the given offsets as one more candidate (a typo at the right
/// offsets); the likeliest first, overlapping candidates merged into the better one.
fn fuzzy_candidates(doc: &Document, s: &RawSpan, at_offsets: Option<Span>) -> Vec<FuzzyMatch> {
    let mut found = fuzzy_place(&doc.text, &s.text, ALTERNATIVES + 1);
    if let Some(p) = at_offsets {
        found.push(FuzzyMatch {
            span: p,
            confidence: strsim::normalized_levenshtein(&s.text, doc.slice(p)),
        });
        found.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let mut kept: Vec<FuzzyMatch> = Vec::new();
        for m in found {
            if !kept.iter().any(|k| k.span.overlaps(&m.span)) {
                kept.push(m);
            }
        }
        found = kept;
    }
    found
}
