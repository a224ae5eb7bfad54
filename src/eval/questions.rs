//! Question sets: JSONL, one question per line, with gold answer spans in a corpus document.
//!
//! ```text
//! {"id": "A01", "question": "...", "doc": "order-service-design.md",
//!  "spans": [{"start": 9006, "end": 9992, "text": "..."}], "tags": ["boundary", "partial"]}
//! ```
//! Offsets are byte offsets into the file, half-open. Sets exported from Python tools may carry
//! character offsets instead: add `"unit": "char"` to the line and they are converted here.
//! A span may also give its `text` alone (and optionally the `page` it is on): it is then placed
//! where the text occurs ([`super::placement`]), which is how evidence is given for a PDF's or
//! a web page's extracted text, whose offsets nobody knows.
//!
//! Fields seamscope does not know (metadata other tools add) are ignored, and each is named once
//! in a warning. A line with an empty question, no spans, an unknown document or a span outside
//! its document is an error naming the line; a file is used only when every line is good.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, DocId, Span};

mod resolve;

pub use resolve::resolve;

/// One gold span as written in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSpan {
    /// Start offset (bytes, or characters when the line says `"unit": "char"`); absent when the
    /// span is given by its text alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<usize>,
    /// End offset, exclusive (absent with `start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<usize>,
    /// The quoted text, which must equal the document's text over the span (or, without
    /// offsets, is looked for in the document).
    pub text: String,
    /// The page the text is on (1-based), for a paged document: narrows where it is looked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
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

/// The most questions (non-blank lines) a question file may hold. Every line is parsed, kept
/// and checked against the corpus, so a file of 650,000 lines took 3.1 GB; real sets hold
/// hundreds, a large one a few thousand.
pub const MAX_QUESTION_LINES: usize = 20_000;
/// The longest question a line may ask, in characters: what `query` takes
/// ([`crate::session::MAX_QUESTION_CHARS`]), since each question is embedded and searched as
/// one (a 50-million-character question drove `eval` past 1.1 GB).
pub const MAX_QUESTION_CHARS: usize = crate::session::MAX_QUESTION_CHARS;
/// The longest quoted span text, in characters. A span given by its text alone is looked for
/// word by word and then by fuzzy match, which grows faster than the text (640,000 words took
/// 51 s); evidence is a passage, and 10,000 characters is several pages.
pub const MAX_SPAN_TEXT_CHARS: usize = 10_000;
/// The most evidence spans one question may give.
pub const MAX_SPANS: usize = 64;

/// Why one question line is past a limit, in words (`None` when it is within them): the
/// question's length, the number of spans, a span's text length.
pub fn over_limits(q: &RawQuestion) -> Option<String> {
    let chars = q.question.chars().count();
    if chars > MAX_QUESTION_CHARS {
        return Some(format!(
            "the question is {chars} characters long, more than the {MAX_QUESTION_CHARS} a question may be (as `query` takes)"
        ));
    }
    if q.spans.len() > MAX_SPANS {
        return Some(format!(
            "it gives {} spans, more than the {MAX_SPANS} a question may give",
            q.spans.len()
        ));
    }
    for (i, span) in q.spans.iter().enumerate() {
        let chars = span.text.chars().count();
        if chars > MAX_SPAN_TEXT_CHARS {
            return Some(format!(
                "span {}'s text is {chars} characters long, more than the {MAX_SPAN_TEXT_CHARS} a span's text may be",
                i + 1
            ));
        }
    }
    None
}

/// The error for a question file of more than [`MAX_QUESTION_LINES`] questions, naming the
/// first line past the limit; `None` for a file within it.
pub fn too_many_lines(text: &str) -> Option<QuestionError> {
    let (i, _) = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .nth(MAX_QUESTION_LINES)?;
    Some(QuestionError::TooManyLines {
        line: i + 1,
        limit: MAX_QUESTION_LINES,
    })
}

/// Field names a question line may carry.
const KNOWN_FIELDS: &[&str] = &["id", "question", "doc", "spans", "tags", "unit"];
/// Field names a span may carry.
const KNOWN_SPAN_FIELDS: &[&str] = &["start", "end", "text", "page"];

/// One question line as written in the file (unknown fields are ignored; see [`ParsedFile`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The file holds more questions than [`MAX_QUESTION_LINES`]: nothing of it is used.
    #[error(
        "line {line}: the file holds more than {limit} questions, the most a question file may hold: split it"
    )]
    TooManyLines {
        /// 1-based number of the first line past the limit.
        line: usize,
        /// The limit.
        limit: usize,
    },
    /// The line is past a limit ([`over_limits`]).
    #[error("line {line} ({id}): {why}")]
    OverLimit {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// Which limit, and by how much.
        why: String,
    },
    /// The question text is empty.
    #[error("line {line} ({id}): the question is empty")]
    EmptyQuestion {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
    },
    /// The line names no evidence: nothing could count it as answered or missed.
    #[error("line {line} ({id}): \"spans\" is empty: give at least one evidence span")]
    NoSpans {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
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
    /// The document is in the corpus folder but was skipped when the corpus was read.
    #[error("line {line} ({id}): document {doc} was skipped when the corpus was read: {reason}")]
    SkippedDoc {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// The path given.
        doc: String,
        /// Why it was skipped.
        reason: String,
    },
    /// A span is empty, reversed, past the end or not on character boundaries.
    #[error(
        "line {line} ({id}): span {start}..{end} is not a valid {unit} range of {doc} ({len} long): {why}"
    )]
    BadSpan {
        /// What is wrong with it.
        why: &'static str,
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
    /// A span given by its text alone could not be placed.
    #[error("line {line} ({id}): cannot place the span's text in {doc}: {why}")]
    Unplaced {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// The document.
        doc: String,
        /// Why not.
        why: String,
    },
    /// A span gives one offset without the other.
    #[error(
        "line {line} ({id}): a span gives \"{given}\" without \"{missing}\": give both offsets, or neither and the text alone"
    )]
    HalfSpan {
        /// 1-based line number.
        line: usize,
        /// The question id.
        id: String,
        /// The offset given.
        given: &'static str,
        /// The offset missing.
        missing: &'static str,
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

/// A field seamscope does not know, named once however many lines carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownField {
    /// The field's name (`spans[].name` for a field of a span).
    pub name: String,
    /// The first line carrying it.
    pub first_line: usize,
    /// Lines carrying it.
    pub lines: usize,
}

impl UnknownField {
    /// The warning to show.
    pub fn warning(&self) -> String {
        format!(
            "ignored unknown field \"{}\" (on {} line(s), first on line {})",
            self.name, self.lines, self.first_line
        )
    }
}

/// A question file's text, parsed: good lines, problems, and fields that were ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedFile {
    /// Lines that parsed, with their 1-based numbers.
    pub questions: Vec<(usize, RawQuestion)>,
    /// Lines that did not.
    pub errors: Vec<QuestionError>,
    /// Fields ignored, each named once.
    pub unknown: Vec<UnknownField>,
}

fn note_unknown(unknown: &mut Vec<UnknownField>, name: String, line: usize) {
    match unknown.iter_mut().find(|u| u.name == name) {
        Some(u) if u.first_line != line => u.lines += 1,
        Some(_) => {}
        None => unknown.push(UnknownField {
            name,
            first_line: line,
            lines: 1,
        }),
    }
}

/// Parse a question file's text, checking each line on its own (ids, an empty question, no
/// spans) and noting unknown fields.
pub fn parse_file(text: &str) -> ParsedFile {
    // A byte-order mark (Windows editors write one) is not part of the first line's JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut file = ParsedFile::default();
    if let Some(e) = too_many_lines(text) {
        file.errors.push(e);
        return file;
    }
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<serde_json::Value>(line).and_then(|value| {
            if let Some(obj) = value.as_object() {
                for key in obj.keys().filter(|k| !KNOWN_FIELDS.contains(&k.as_str())) {
                    note_unknown(&mut file.unknown, key.clone(), line_no);
                }
                let spans = obj.get("spans").and_then(|v| v.as_array());
                for span in spans.into_iter().flatten().filter_map(|v| v.as_object()) {
                    for key in span
                        .keys()
                        .filter(|k| !KNOWN_SPAN_FIELDS.contains(&k.as_str()))
                    {
                        note_unknown(&mut file.unknown, format!("spans[].{key}"), line_no);
                    }
                }
            }
            serde_json::from_value::<RawQuestion>(value)
        });
        let q = match parsed {
            Ok(q) => q,
            Err(e) => {
                file.errors.push(QuestionError::Parse {
                    line: line_no,
                    message: e.to_string(),
                });
                continue;
            }
        };
        if let Some(why) = over_limits(&q) {
            file.errors.push(QuestionError::OverLimit {
                line: line_no,
                id: q.id,
                why,
            });
        } else if q.question.trim().is_empty() {
            file.errors.push(QuestionError::EmptyQuestion {
                line: line_no,
                id: q.id,
            });
        } else if q.spans.is_empty() {
            file.errors.push(QuestionError::NoSpans {
                line: line_no,
                id: q.id,
            });
        } else if !seen.insert(q.id.clone()) {
            file.errors.push(QuestionError::DuplicateId {
                line: line_no,
                id: q.id,
            });
        } else {
            file.questions.push((line_no, q));
        }
    }
    file
}

/// Parse a question file's text; `questions` holds the lines that parsed, `errors` the rest.
pub fn parse_questions(text: &str) -> (Vec<(usize, RawQuestion)>, Vec<QuestionError>) {
    let file = parse_file(text);
    (file.questions, file.errors)
}

/// Load and resolve a question file; any bad line is an error listing every problem.
pub fn load_questions(path: &Path, corpus: &Corpus) -> Result<Vec<Question>, Vec<QuestionError>> {
    load_question_set(path, corpus).map(|(questions, _)| questions)
}

/// Load and resolve a question file, with the fields it ignored; any bad line is an error
/// listing every problem.
pub fn load_question_set(
    path: &Path,
    corpus: &Corpus,
) -> Result<(Vec<Question>, Vec<UnknownField>), Vec<QuestionError>> {
    // A regular file (or a link to one) within its limit: no FIFO, device or endless file.
    let text = crate::files::read_named_text(path, crate::files::QUESTIONS_LIMIT).map_err(|e| {
        vec![QuestionError::Read {
            path: path.display().to_string(),
            message: match e {
                crate::files::ReadFileError::NotText { valid_up_to } => {
                    format!("not UTF-8 text (invalid byte at offset {valid_up_to})")
                }
                other => other.to_string(),
            },
        }]
    })?;
    let file = parse_file(&text);
    let mut errors = file.errors;
    let (questions, more) = resolve(corpus, &file.questions);
    errors.extend(more);
    if errors.is_empty() {
        Ok((questions, file.unknown))
    } else {
        Err(errors)
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
    fn a_span_given_by_its_text_alone_is_placed_where_the_text_is() {
        let text = r#"{"id":"t","question":"q","doc":"a.md","spans":[{"text":"stale reads"}]}
{"id":"w","question":"q","doc":"a.md","spans":[{"text":"wörld,\n  stale"}]}
{"id":"x","question":"q","doc":"a.md","spans":[{"text":"fresh reads"}]}
{"id":"h","question":"q","doc":"a.md","spans":[{"start":3,"text":"stale reads"}]}
{"id":"p","question":"q","doc":"a.md","spans":[{"text":"stale reads","page":2}]}"#;
        let (raw, errs) = parse_questions(text);
        assert!(errs.is_empty(), "{errs:?}");
        let (qs, errs) = resolve(&corpus(), &raw);
        assert_eq!(qs[0].spans, vec![Span::new(15, 26)]);
        // Its words in order, whatever whitespace lies between them.
        assert_eq!(qs[1].spans, vec![Span::new(7, 20)]);
        let messages: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0].starts_with("line 3 (x): cannot place the span's text in a.md")
                && messages[0].contains("first 0 of 2 words"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("line 4 (h): a span gives \"start\" without \"end\""),
            "{messages:?}"
        );
        assert!(
            messages[2].contains("page 2 was given, but the document has no pages"),
            "{messages:?}"
        );
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
        let text = "{\"id\":\"x\"}\n\n{\"id\":\"y\",\"question\":\"q\",\"doc\":\"nope.md\",\"spans\":[{\"start\":0,\"end\":1,\"text\":\"h\"}]}\n{\"id\":\"y\",\"question\":\"q\",\"doc\":\"a.md\",\"spans\":[{\"start\":2,\"end\":3,\"text\":\"x\"}]}";
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
        assert!(
            errs[0].to_string().contains("inside a character"),
            "{}",
            errs[0]
        );
    }

    #[test]
    fn questions_spans_and_files_past_their_limits_are_errors_naming_line_and_limit() {
        let line = |id: &str, question: &str, text: &str| {
            serde_json::json!({"id": id, "question": question, "doc": "a.md",
                "spans": [{"text": text}]})
            .to_string()
        };
        let long_question = "why ".repeat(MAX_QUESTION_CHARS);
        let long_span = "word ".repeat(MAX_SPAN_TEXT_CHARS);
        let text = [
            line("ok", "q", "stale reads"),
            line("long-q", &long_question, "stale reads"),
            line("long-span", "q", &long_span),
        ]
        .join("\n");
        let file = parse_file(&text);
        assert_eq!(file.questions.len(), 1);
        let errors: Vec<String> = file.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            [
                format!(
                    "line 2 (long-q): the question is {} characters long, more than the 2000 a question may be (as `query` takes)",
                    long_question.len()
                ),
                format!(
                    "line 3 (long-span): span 1's text is {} characters long, more than the 10000 a span's text may be",
                    long_span.len()
                ),
            ]
        );
        // One line past the most a file may hold: the file is refused, naming that line.
        let many: String = (0..=MAX_QUESTION_LINES)
            .map(|i| line(&format!("q{i}"), "q", "stale reads") + "\n\n")
            .collect();
        let file = parse_file(&many);
        assert!(file.questions.is_empty());
        assert_eq!(
            file.errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>(),
            [format!(
                "line {}: the file holds more than 20000 questions, the most a question file may hold: split it",
                2 * MAX_QUESTION_LINES + 1
            )]
        );
    }

    #[test]
    fn unknown_fields_are_ignored_and_named_once() {
        let text = r#"{"id":"1","question":"q","doc":"a.md","spans":[{"start":15,"end":26,"text":"stale reads","score":0.9}],"source":"ragas","meta":{"x":1}}
{"id":"2","question":"q","doc":"a.md","spans":[{"start":15,"end":26,"text":"stale reads"}],"source":"ragas"}"#;
        let file = parse_file(text);
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        assert_eq!(file.questions.len(), 2);
        let names: Vec<(&str, usize, usize)> = file
            .unknown
            .iter()
            .map(|u| (u.name.as_str(), u.first_line, u.lines))
            .collect();
        assert_eq!(
            names,
            vec![("meta", 1, 1), ("source", 1, 2), ("spans[].score", 1, 1)]
        );
        assert!(
            file.unknown[1]
                .warning()
                .contains("\"source\" (on 2 line(s)")
        );
    }

    #[test]
    fn empty_questions_and_missing_spans_are_errors_naming_the_line() {
        let text = r#"{"id":"e","question":"  ","doc":"a.md","spans":[{"start":15,"end":26,"text":"stale reads"}]}
{"id":"n","question":"q","doc":"a.md","spans":[]}
{"id":"d","question":"q","spans":[{"start":15,"end":26,"text":"stale reads"}]}
{"id":"o","question":"q","doc":"a.md","spans":[{"start":15,"end":99,"text":"stale reads"}]}"#;
        let file = parse_file(text);
        let messages: Vec<String> = file.errors.iter().map(|e| e.to_string()).collect();
        assert!(
            messages[0].starts_with("line 1 (e): the question is empty"),
            "{messages:?}"
        );
        assert!(
            messages[1].starts_with("line 2 (n): \"spans\" is empty"),
            "{messages:?}"
        );
        assert!(
            messages[2].starts_with("line 3:") && messages[2].contains("doc"),
            "{messages:?}"
        );
        let (_, errs) = resolve(&corpus(), &file.questions);
        assert!(errs[0].to_string().starts_with("line 4 (o)"), "{}", errs[0]);
        assert!(errs[0].to_string().contains("past the end"), "{}", errs[0]);
    }
}
