//! Parsed questions resolved against a corpus: each span's document found (or named as
//! unknown or skipped), its offsets converted to bytes or its text placed, and its quote checked
//! against the text there (a mismatch is a drift error that says where they part).

use super::{OffsetUnit, Question, QuestionError, RawQuestion, RawSpan};
use crate::corpus::{Corpus, Document, Span};
use crate::eval::placement;

/// Resolve parsed questions against `corpus`: convert offsets to bytes and check every quote.
pub fn resolve(
    corpus: &Corpus,
    raw: &[(usize, RawQuestion)],
) -> (Vec<Question>, Vec<QuestionError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (line, q) in raw {
        let Some(doc) = corpus.documents.iter().find(|d| d.path == q.doc) else {
            if let Some(skip) = corpus.skipped.iter().find(|s| s.path == q.doc) {
                errors.push(QuestionError::SkippedDoc {
                    line: *line,
                    id: q.id.clone(),
                    doc: q.doc.clone(),
                    reason: skip.reason.to_string(),
                });
                continue;
            }
            errors.push(QuestionError::UnknownDoc {
                line: *line,
                id: q.id.clone(),
                doc: q.doc.clone(),
            });
            continue;
        };
        // The first bad span of a question is its error.
        let spans: Result<Vec<Span>, Box<QuestionError>> = q
            .spans
            .iter()
            .map(|s| resolve_span(*line, q, doc, s))
            .collect();
        match spans {
            Ok(spans) => out.push(Question {
                id: q.id.clone(),
                question: q.question.clone(),
                doc: doc.id,
                spans,
                tags: q.tags.clone(),
            }),
            Err(e) => errors.push(*e),
        }
    }
    (out, errors)
}

/// One span of question `q` (line `line`) in `doc`: placed by its quote when it has no offsets,
/// else its offsets in bytes, and the text there checked against the quote.
fn resolve_span(
    line: usize,
    q: &RawQuestion,
    doc: &Document,
    s: &RawSpan,
) -> Result<Span, Box<QuestionError>> {
    if let Some(page) = s.page
        && let Err(why) = placement::check_page(doc, page)
    {
        return Err(Box::new(QuestionError::Unplaced {
            line,
            id: q.id.clone(),
            doc: doc.path.clone(),
            why: why.to_string(),
        }));
    }
    let (start, end) = match (s.start, s.end) {
        (Some(start), Some(end)) => (start, end),
        (None, None) => {
            return placement::place_text(doc, &s.text, s.page)
                .map(|(span, _)| span)
                .map_err(|why| {
                    Box::new(QuestionError::Unplaced {
                        line,
                        id: q.id.clone(),
                        doc: q.doc.clone(),
                        why: why.to_string(),
                    })
                });
        }
        (Some(_), None) | (None, Some(_)) => {
            let (given, missing) = if s.start.is_some() {
                ("start", "end")
            } else {
                ("end", "start")
            };
            return Err(Box::new(QuestionError::HalfSpan {
                line,
                id: q.id.clone(),
                given,
                missing,
            }));
        }
    };
    let span = offsets_in_bytes(line, q, doc, (start, end))?;
    let found = doc.slice(span);
    if found != s.text {
        return Err(Box::new(drift(
            line, &q.id, &q.doc, &doc.text, span, &s.text, found,
        )));
    }
    Ok(span)
}

/// The span `start..end` of `doc` in bytes, from offsets in the question's unit; an error when
/// it is empty, runs past the end, or (in bytes) falls inside a character.
fn offsets_in_bytes(
    line: usize,
    q: &RawQuestion,
    doc: &Document,
    (start, end): (usize, usize),
) -> Result<Span, Box<QuestionError>> {
    let bad = |len, why| {
        Box::new(QuestionError::BadSpan {
            why,
            line,
            id: q.id.clone(),
            doc: q.doc.clone(),
            start,
            end,
            unit: match q.unit {
                OffsetUnit::Byte => "byte",
                OffsetUnit::Char => "char",
            },
            len,
        })
    };
    match q.unit {
        OffsetUnit::Byte => {
            let why = if start >= end {
                Some("it is empty or runs backwards")
            } else if end > doc.text.len() {
                Some("it runs past the end of the document")
            } else if !doc.text.is_char_boundary(start) || !doc.text.is_char_boundary(end) {
                Some(
                    "it starts or ends inside a character (byte offsets must fall between characters; add \"unit\": \"char\" for character offsets)",
                )
            } else {
                None
            };
            match why {
                Some(why) => Err(bad(doc.text.len(), why)),
                None => Ok(Span::new(start, end)),
            }
        }
        OffsetUnit::Char => char_to_byte(&doc.text, start, end).ok_or_else(|| {
            let len = doc.text.chars().count();
            let why = if start >= end {
                "it is empty or runs backwards"
            } else {
                "it runs past the end of the document"
            };
            bad(len, why)
        }),
    }
}

fn char_to_byte(text: &str, start: usize, end: usize) -> Option<Span> {
    if start >= end {
        return None;
    }
    let mut byte_start = None;
    for (ci, (bi, _)) in text.char_indices().enumerate() {
        if ci == start {
            byte_start = Some(bi);
        }
        if ci == end {
            return byte_start.map(|s| Span::new(s, bi));
        }
    }
    (end == text.chars().count())
        .then_some(())
        .and(byte_start.map(|s| Span::new(s, text.len())))
}

fn drift(
    line: usize,
    id: &str,
    doc: &str,
    text: &str,
    span: Span,
    quoted: &str,
    found: &str,
) -> QuestionError {
    let common: usize = found
        .char_indices()
        .zip(quoted.chars())
        .take_while(|((_, a), b)| a == b)
        .last()
        .map_or(0, |((i, a), _)| i + a.len_utf8());
    let excerpt = |s: &str| s.chars().take(40).collect::<String>();
    let hint = match text.find(quoted) {
        Some(at) => format!(" (the quote occurs at bytes {}..{})", at, at + quoted.len()),
        None => String::new(),
    };
    QuestionError::Drift {
        line,
        id: id.to_string(),
        doc: doc.to_string(),
        at: span.start + common,
        found: excerpt(&found[common..]),
        quoted: excerpt(quoted.get(common..).unwrap_or("")),
        hint,
    }
}
