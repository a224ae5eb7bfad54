//! Question sets: JSONL, one question per line, with gold answer spans in a corpus document.
//!
//! ```text
//! {"id": "A01", "question": "...", "doc": "order-service-design.md",
//!  "spans": [{"start": 9006, "end": 9992, "text": "..."}], "tags": ["boundary", "partial"]}
//! ```
//! Offsets are byte offsets into the file, half-open. Sets exported from Python tools may carry
//! character offsets instead: add `"unit": "char"` to the line and they are converted here.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, DocId, Span};

/// One gold span as written in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSpan {
    /// Start offset (bytes, or characters when the line says `"unit": "char"`).
    pub start: usize,
    /// End offset, exclusive.
    pub end: usize,
    /// The quoted text, which must equal the document's text over the span.
    pub text: String,
}

/// Offset unit of a question line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OffsetUnit {
    /// UTF-8 byte offsets (the default).
    #[default]
    Byte,
    /// Unicode scalar (Python `str`) offsets.
    Char,
}

/// One question line as written in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawQuestion {
    /// A unique id.
    pub id: String,
    /// The question, in a user's words.
    pub question: String,
    /// The document holding the answer, as a path relative to the corpus root.
    pub doc: String,
    /// The evidence needed for a complete answer.
    pub spans: Vec<RawSpan>,
    /// Tags: `boundary`, `inside`, `edge`, `short`, `partial`, or your own.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Offset unit (default bytes).
    #[serde(default)]
    pub unit: OffsetUnit,
}

/// A question resolved against a corpus: byte spans in a known document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Question {
    /// Its id.
    pub id: String,
    /// The question text.
    pub question: String,
    /// The document holding the evidence.
    pub doc: DocId,
    /// Evidence spans in bytes.
    pub spans: Vec<Span>,
    /// Its tags.
    pub tags: Vec<String>,
}

impl Question {
    /// Whether the question carries a tag.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
}

/// A problem with one line of a question file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuestionError {
    /// The file could not be read.
    #[error("cannot read question file {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The error.
        message: String,
    },
    /// A line is not a valid question object.
    #[error("line {line}: not a valid question: {message}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Two lines share an id.
    #[error("line {line}: id {id} is used twice")]
    DuplicateId {
        /// 1-based line number.
        line: usize,
        /// The id.
        id: String,
    },
    /// The document is not in the corpus.
    #[error("line {line} ({id}): document {doc} is not in the corpus")]
    UnknownDoc {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// The path given.
        doc: String,
    },
    /// A span is empty, reversed, past the end or not on character boundaries.
    #[error(
        "line {line} ({id}): span {start}..{end} is not a valid {unit} range of {doc} ({len} long)"
    )]
    BadSpan {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// The document.
        doc: String,
        /// Start as written.
        start: usize,
        /// End as written.
        end: usize,
        /// "byte" or "char".
        unit: &'static str,
        /// The document's length in that unit.
        len: usize,
    },
    /// The quoted text differs from the document over the span.
    #[error(
        "line {line} ({id}): quote drift in {doc} at byte {at}: the file has {found:?}, the quote has {quoted:?}{hint}"
    )]
    Drift {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// The document.
        doc: String,
        /// Byte offset in the document of the first differing character.
        at: usize,
        /// Text in the file from there.
        found: String,
        /// Text in the quote from there.
        quoted: String,
        /// Where the quote does occur, if it does.
        hint: String,
    },
}

/// Parse a question file's text; `questions` holds the lines that parsed, `errors` the rest.
pub fn parse_questions(text: &str) -> (Vec<(usize, RawQuestion)>, Vec<QuestionError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<RawQuestion>(line) {
            Ok(q) => {
                if !seen.insert(q.id.clone()) {
                    errors.push(QuestionError::DuplicateId {
                        line: line_no,
                        id: q.id,
                    });
                } else {
                    out.push((line_no, q));
                }
            }
            Err(e) => errors.push(QuestionError::Parse {
                line: line_no,
                message: e.to_string(),
            }),
        }
    }
    (out, errors)
}

/// Resolve parsed questions against `corpus`: convert offsets to bytes and check every quote.
pub fn resolve(
    corpus: &Corpus,
    raw: &[(usize, RawQuestion)],
) -> (Vec<Question>, Vec<QuestionError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    'questions: for (line, q) in raw {
        let Some(doc) = corpus.documents.iter().find(|d| d.path == q.doc) else {
            errors.push(QuestionError::UnknownDoc {
                line: *line,
                id: q.id.clone(),
                doc: q.doc.clone(),
            });
            continue;
        };
        let mut spans = Vec::new();
        for s in &q.spans {
            let bad = |len| QuestionError::BadSpan {
                line: *line,
                id: q.id.clone(),
                doc: q.doc.clone(),
                start: s.start,
                end: s.end,
                unit: match q.unit {
                    OffsetUnit::Byte => "byte",
                    OffsetUnit::Char => "char",
                },
                len,
            };
            let span = match q.unit {
                OffsetUnit::Byte => {
                    if s.start >= s.end
                        || s.end > doc.text.len()
                        || !doc.text.is_char_boundary(s.start)
                        || !doc.text.is_char_boundary(s.end)
                    {
                        errors.push(bad(doc.text.len()));
                        continue 'questions;
                    }
                    Span::new(s.start, s.end)
                }
                OffsetUnit::Char => match char_to_byte(&doc.text, s.start, s.end) {
                    Some(span) => span,
                    None => {
                        errors.push(bad(doc.text.chars().count()));
                        continue 'questions;
                    }
                },
            };
            let found = doc.slice(span);
            if found != s.text {
                errors.push(drift(*line, &q.id, &q.doc, &doc.text, span, &s.text, found));
                continue 'questions;
            }
            spans.push(span);
        }
        out.push(Question {
            id: q.id.clone(),
            question: q.question.clone(),
            doc: doc.id,
            spans,
            tags: q.tags.clone(),
        });
    }
    (out, errors)
}

/// Load and resolve a question file; any bad line is an error listing every problem.
pub fn load_questions(path: &Path, corpus: &Corpus) -> Result<Vec<Question>, Vec<QuestionError>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![QuestionError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        }]
    })?;
    let (raw, mut errors) = parse_questions(&text);
    let (questions, more) = resolve(corpus, &raw);
    errors.extend(more);
    if errors.is_empty() {
        Ok(questions)
    } else {
        Err(errors)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        Corpus::from_texts([("a.md", "héllo wörld, stale reads")])
    }

    #[test]
    fn byte_and_char_offsets_resolve_to_the_same_span() {
        let text = r#"{"id":"1","question":"q","doc":"a.md","spans":[{"start":15,"end":26,"text":"stale reads"}],"tags":["inside"]}
{"id":"2","question":"q","doc":"a.md","unit":"char","spans":[{"start":13,"end":24,"text":"stale reads"}]}"#;
        let (raw, errs) = parse_questions(text);
        assert!(errs.is_empty(), "{errs:?}");
        let (qs, errs) = resolve(&corpus(), &raw);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(qs[0].spans, qs[1].spans);
        assert_eq!(qs[0].spans[0], Span::new(15, 26));
        assert!(qs[0].has_tag("inside"));
    }

    #[test]
    fn drift_is_reported_precisely() {
        let text = r#"{"id":"d","question":"q","doc":"a.md","spans":[{"start":15,"end":26,"text":"stale roads"}]}"#;
        let (raw, _) = parse_questions(text);
        let (_, errs) = resolve(&corpus(), &raw);
        let msg = errs[0].to_string();
        assert!(
            msg.contains("line 1 (d)") && msg.contains("at byte 22"),
            "{msg}"
        );
        let shifted = r#"{"id":"s","question":"q","doc":"a.md","spans":[{"start":14,"end":25,"text":"stale reads"}]}"#;
        let (raw, _) = parse_questions(shifted);
        let (_, errs) = resolve(&corpus(), &raw);
        assert!(
            errs[0].to_string().contains("occurs at bytes 15..26"),
            "{}",
            errs[0]
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let text = "{\"id\":\"x\"}\n\n{\"id\":\"y\",\"question\":\"q\",\"doc\":\"nope.md\",\"spans\":[]}\n{\"id\":\"y\",\"question\":\"q\",\"doc\":\"a.md\",\"spans\":[{\"start\":2,\"end\":3,\"text\":\"x\"}]}";
        let (raw, errs) = parse_questions(text);
        assert!(matches!(errs[0], QuestionError::Parse { line: 1, .. }));
        assert!(matches!(
            errs[1],
            QuestionError::DuplicateId { line: 4, .. }
        ));
        let (_, errs) = resolve(&corpus(), &raw);
        assert!(matches!(errs[0], QuestionError::UnknownDoc { line: 3, .. }));
        // A span that splits the two-byte "é" is rejected, not panicked on.
        let split =
            r#"{"id":"z","question":"q","doc":"a.md","spans":[{"start":2,"end":4,"text":"x"}]}"#;
        let (raw, _) = parse_questions(split);
        let (_, errs) = resolve(&corpus(), &raw);
        assert!(matches!(errs[0], QuestionError::BadSpan { .. }));
    }
}
