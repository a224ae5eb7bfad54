//! `questions check`: a gold question file against its corpus, every problem reported at once
//! (the loader, [`crate::eval::questions`], refuses a file at its first bad line), and a repaired
//! file made from it.
//!
//! Each span's text is checked against the document at its offsets. A span whose offsets are off
//! or absent is placed: where its text occurs exactly (the occurrence nearest its old offsets when
//! there are several), else where its words occur in order with only whitespace or markup between
//! them ([`placement::place_text`]), else by fuzzy match ([`super::fuzzy`]) with a confidence and
//! the next best places. A span found only in another document, duplicate ids, empty questions and
//! questions without findable evidence are reported. Each question gets its class under the
//! layout (WHOLE / SPLIT / ABSENT, seed 003), the worst of its spans'.
//!
//! The repaired file keeps every good line as it was; a repaired line gets byte offsets (no
//! `unit`) and the document's own text over each span; a line that cannot be repaired is left
//! out. Every change is listed.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::fuzzy::{FuzzyMatch, fuzzy_place};
use crate::corpus::{Corpus, Document, Span};
use crate::eval::metrics::{SpanClass, span_class};
use crate::eval::placement::{self, PlacedBy};
use crate::eval::questions::{OffsetUnit, RawQuestion};
use crate::layout::Layout;

/// Least confidence at which a fuzzy match repairs a span.
pub const FUZZY_FIX_CONFIDENCE: f64 = 0.90;
/// How far the best fuzzy match must lead the next for the repair to pick it.
pub const FUZZY_LEAD: f64 = 0.05;
/// Alternatives listed for a fuzzy match.
pub const ALTERNATIVES: usize = 3;

/// How a span was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpanStatus {
    /// Its text is the document's at its offsets.
    Ok,
    /// Its offsets were off; its text occurs exactly elsewhere.
    Shifted,
    /// It gave its text alone; the text occurs exactly.
    TextOnly,
    /// Its words occur in order, with other whitespace or markup between them.
    Words,
    /// Placed by fuzzy match.
    Fuzzy,
    /// The text occurs several times and nothing says which.
    Ambiguous,
    /// The text occurs only in another document.
    OtherDocument,
    /// Not found, not even by fuzzy match.
    NotFound,
}

/// One place a span could be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// Byte start.
    pub start: usize,
    /// Byte end.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// Similarity of the quote and the text there.
    pub confidence: f64,
}

/// The check of one span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanCheck {
    /// Offsets as given (in the line's unit), when given.
    pub given: (Option<usize>, Option<usize>),
    /// How it was found.
    pub status: SpanStatus,
    /// Where it is, in bytes, once placed.
    pub placed: Option<Span>,
    /// 1 for an exact placement, the similarity for a fuzzy one.
    pub confidence: f64,
    /// Other places it could be (fuzzy and ambiguous spans).
    pub alternatives: Vec<Alternative>,
    /// The document it was found in, when not the question's.
    pub other_doc: Option<String>,
    /// Its class under the layout, once placed.
    pub class: Option<SpanClass>,
}

/// What the repaired file does with a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineAction {
    /// Kept as it was.
    Keep,
    /// Kept, repaired.
    Repair,
    /// Left out: it cannot be repaired.
    Drop,
}

/// The check of one line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionCheck {
    /// 1-based line number.
    pub line: usize,
    /// Its id, when it has one.
    pub id: String,
    /// Its document as given.
    pub doc: String,
    /// What is wrong with it, in words.
    pub problems: Vec<String>,
    /// What the repair changes, in words.
    pub changes: Vec<String>,
    /// Each span.
    pub spans: Vec<SpanCheck>,
    /// The question's class: the worst of its spans' (`None` when a span is not placed).
    pub class: Option<SpanClass>,
    /// What the repaired file does with it.
    pub action: LineAction,
}

/// Counts over the file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoldSummary {
    /// Question lines (blank lines are not counted).
    pub lines: usize,
    /// Lines without a problem.
    pub ok: usize,
    /// Lines repaired.
    pub repaired: usize,
    /// Lines left out of the repaired file.
    pub dropped: usize,
    /// Questions whose evidence one chunk holds whole.
    pub whole: usize,
    /// Questions whose evidence is split.
    pub split: usize,
    /// Questions whose evidence no chunk holds.
    pub absent: usize,
}

/// The whole check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoldReport {
    /// The layout the classes are under.
    pub chunker: String,
    /// Counts.
    pub summary: GoldSummary,
    /// Every line, in file order.
    pub questions: Vec<QuestionCheck>,
}

/// The check and the repaired file's text.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldCheck {
    /// The report.
    pub report: GoldReport,
    /// The repaired file: good lines as they were, repaired lines rewritten, bad lines left out.
    pub repaired: String,
}

/// Check a question file's `text` against `corpus`, classes under `layout`.
pub fn check(corpus: &Corpus, layout: &Layout, text: &str) -> GoldCheck {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut questions = Vec::new();
    let mut repaired = String::new();
    let mut ids: HashMap<String, (usize, serde_json::Value)> = HashMap::new();
    let mut used: std::collections::HashSet<String> = std::collections::HashSet::new();
    // Every id first, so a renamed duplicate never takes an id a later line holds.
    for line in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
            && let Some(id) = v.get("id").and_then(|i| i.as_str())
        {
            used.insert(id.to_string());
        }
    }
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (check, out) = check_line(corpus, layout, i + 1, line, &mut ids, &mut used);
        if let Some(out) = out {
            repaired.push_str(&out);
            repaired.push('\n');
        }
        questions.push(check);
    }
    let mut summary = GoldSummary {
        lines: questions.len(),
        ..GoldSummary::default()
    };
    for q in &questions {
        match q.action {
            LineAction::Keep if q.problems.is_empty() => summary.ok += 1,
            LineAction::Keep => {}
            LineAction::Repair => summary.repaired += 1,
            LineAction::Drop => summary.dropped += 1,
        }
        match q.class {
            Some(SpanClass::Whole) => summary.whole += 1,
            Some(SpanClass::Split) => summary.split += 1,
            Some(SpanClass::Absent) => summary.absent += 1,
            None => {}
        }
    }
    GoldCheck {
        report: GoldReport {
            chunker: layout.chunker_label(),
            summary,
            questions,
        },
        repaired,
    }
}

/// A line that could not be read as a question: reported and left out.
fn unreadable(line: usize, id: String, why: String) -> (QuestionCheck, Option<String>) {
    (
        QuestionCheck {
            line,
            id,
            doc: String::new(),
            problems: vec![why],
            changes: vec!["left out of the repaired file".into()],
            spans: Vec::new(),
            class: None,
            action: LineAction::Drop,
        },
        None,
    )
}

fn check_line(
    corpus: &Corpus,
    layout: &Layout,
    line: usize,
    text: &str,
    ids: &mut HashMap<String, (usize, serde_json::Value)>,
    used: &mut std::collections::HashSet<String>,
) -> (QuestionCheck, Option<String>) {
    let mut value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return unreadable(line, String::new(), format!("not JSON: {e}")),
    };
    let raw: RawQuestion = match serde_json::from_value(value.clone()) {
        Ok(q) => q,
        Err(e) => {
            let id = value
                .get("id")
                .and_then(|i| i.as_str())
                .unwrap_or("")
                .to_string();
            return unreadable(line, id, format!("not a question line: {e}"));
        }
    };
    let mut check = QuestionCheck {
        line,
        id: raw.id.clone(),
        doc: raw.doc.clone(),
        problems: Vec::new(),
        changes: Vec::new(),
        spans: Vec::new(),
        class: None,
        action: LineAction::Keep,
    };
    let drop = |mut check: QuestionCheck, why: String| {
        check.problems.push(why);
        check.changes.push("left out of the repaired file".into());
        check.action = LineAction::Drop;
        (check, None)
    };
    if raw.question.trim().is_empty() {
        return drop(check, "the question is empty".into());
    }
    if raw.spans.is_empty() || raw.spans.iter().all(|s| s.text.trim().is_empty()) {
        return drop(
            check,
            "no evidence: \"spans\" is empty, so nothing can answer it".into(),
        );
    }
    let mut edited = false;
    // Duplicate ids: an identical line again is left out; another question under a taken id is
    // given a new one.
    let mut content = value.clone();
    if let Some(o) = content.as_object_mut() {
        o.remove("id");
    }
    if let Some((first, earlier)) = ids.get(&raw.id) {
        if *earlier == content {
            return drop(check, format!("id {} repeats line {first} exactly", raw.id));
        }
        let mut n = 2;
        let fresh = loop {
            let candidate = format!("{}-{n}", raw.id);
            if !used.contains(&candidate) {
                break candidate;
            }
            n += 1;
        };
        check
            .problems
            .push(format!("id {} is already used on line {first}", raw.id));
        check.changes.push(format!("id {} → {fresh}", raw.id));
        used.insert(fresh.clone());
        value["id"] = serde_json::Value::String(fresh);
        edited = true;
    } else {
        ids.insert(raw.id.clone(), (line, content));
    }
    let named = corpus.documents.iter().find(|d| d.path == raw.doc);
    let mut doc = match named {
        Some(d) => d,
        None => match other_document(corpus, &raw) {
            Some(d) => {
                check
                    .problems
                    .push(format!("document {} is not in the corpus", raw.doc));
                check.changes.push(format!(
                    "doc {} → {} (where its spans' text is)",
                    raw.doc, d.path
                ));
                value["doc"] = serde_json::Value::String(d.path.clone());
                edited = true;
                d
            }
            None => return drop(check, format!("document {} is not in the corpus", raw.doc)),
        },
    };
    for (si, s) in raw.spans.iter().enumerate() {
        let sc = place_span(corpus, doc, &raw, s);
        let n = si + 1;
        match sc.status {
            SpanStatus::Ok => {}
            SpanStatus::Shifted | SpanStatus::TextOnly | SpanStatus::Words | SpanStatus::Fuzzy => {
                let Some(p) = sc.placed else { continue };
                let why = match sc.status {
                    SpanStatus::Shifted => format!(
                        "span {n}: its text is not at {}..{}",
                        sc.given.0.unwrap_or(0),
                        sc.given.1.unwrap_or(0)
                    ),
                    SpanStatus::TextOnly => format!("span {n}: given as text only"),
                    SpanStatus::Words => format!(
                        "span {n}: its text occurs only with other whitespace or markup between its words"
                    ),
                    _ => format!(
                        "span {n}: its text is not in {} as written (fuzzy match, confidence {:.3})",
                        doc.path, sc.confidence
                    ),
                };
                check.problems.push(why);
                check.changes.push(format!(
                    "span {n}: placed at bytes {}..{} (line {}){}",
                    p.start,
                    p.end,
                    super::line_of(&doc.text, p.start),
                    if doc.slice(p) != s.text {
                        ", its text replaced by the document's"
                    } else {
                        ""
                    }
                ));
            }
            SpanStatus::Ambiguous => {
                let at: Vec<String> = sc
                    .alternatives
                    .iter()
                    .map(|a| format!("{}..{} (line {})", a.start, a.end, a.line))
                    .collect();
                check.problems.push(format!(
                    "span {n}: its text occurs {} times ({}): give offsets to say which",
                    sc.alternatives.len(),
                    at.join(", ")
                ));
            }
            SpanStatus::OtherDocument => check.problems.push(format!(
                "span {n}: its text is not in {} but in {}",
                doc.path,
                sc.other_doc.clone().unwrap_or_default()
            )),
            SpanStatus::NotFound => {
                let near: Vec<String> = sc
                    .alternatives
                    .iter()
                    .map(|a| {
                        format!(
                            "{}..{} (line {}, {:.2})",
                            a.start, a.end, a.line, a.confidence
                        )
                    })
                    .collect();
                check.problems.push(format!(
                    "span {n}: its text is not in {}{}",
                    doc.path,
                    if near.is_empty() {
                        String::new()
                    } else {
                        format!(" (nearest: {})", near.join(", "))
                    }
                ));
            }
        }
        check.spans.push(sc);
    }
    // Every span in one other document: the question names the wrong one.
    let others: Vec<&Option<String>> = check.spans.iter().map(|s| &s.other_doc).collect();
    if let Some(Some(other)) = others.first()
        && others.iter().all(|o| o.as_deref() == Some(other.as_str()))
        && let Some(d) = corpus.documents.iter().find(|d| &d.path == other)
    {
        check.changes.push(format!(
            "doc {} → {} (where its spans' text is)",
            doc.path, d.path
        ));
        value["doc"] = serde_json::Value::String(d.path.clone());
        doc = d;
        check.spans = raw
            .spans
            .iter()
            .map(|s| place_span(corpus, doc, &raw, s))
            .collect();
        edited = true;
    } else if check.spans.iter().any(|s| s.other_doc.is_some()) {
        check
            .problems
            .push("its spans lie in more than one document: a question names one".into());
        return drop(check, "spans across documents".into());
    }
    if check.spans.iter().any(|s| s.placed.is_none()) {
        return drop(
            check,
            "evidence that cannot be placed: unanswerable as written".into(),
        );
    }
    let chunks: Vec<Span> = layout
        .chunks
        .iter()
        .filter(|c| c.doc == doc.id)
        .map(|c| c.span)
        .collect();
    for s in &mut check.spans {
        s.class = s.placed.map(|p| span_class(p, &chunks));
    }
    check.class = check
        .spans
        .iter()
        .filter_map(|s| s.class)
        .max_by_key(|c| match c {
            SpanClass::Whole => 0,
            SpanClass::Split => 1,
            SpanClass::Absent => 2,
        });
    let placed_changed = check.spans.iter().any(|s| s.status != SpanStatus::Ok);
    if placed_changed {
        let spans: Vec<serde_json::Value> = raw
            .spans
            .iter()
            .zip(&check.spans)
            .map(|(raw_span, s)| {
                let p = s.placed.unwrap_or(Span::new(0, 0));
                let mut v = serde_json::json!({
                    "start": p.start,
                    "end": p.end,
                    "text": doc.slice(p),
                });
                if let Some(page) = raw_span.page {
                    v["page"] = page.into();
                }
                v
            })
            .collect();
        value["spans"] = serde_json::Value::Array(spans);
        if let Some(o) = value.as_object_mut()
            && o.remove("unit").is_some()
            && raw.unit == OffsetUnit::Char
        {
            check
                .changes
                .push("offsets now in bytes (\"unit\" removed)".into());
        }
        edited = true;
    }
    if edited {
        check.action = LineAction::Repair;
        let out = serde_json::to_string(&value).unwrap_or_else(|_| text.to_string());
        (check, Some(out))
    } else {
        (check, Some(text.to_string()))
    }
}

/// The one document (other than the named one) where every span's text occurs exactly.
fn other_document<'c>(corpus: &'c Corpus, raw: &RawQuestion) -> Option<&'c Document> {
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

fn alternative(doc: &Document, m: &FuzzyMatch) -> Alternative {
    Alternative {
        start: m.span.start,
        end: m.span.end,
        line: super::line_of(&doc.text, m.span.start),
        confidence: m.confidence,
    }
}

/// Check and place one span of `raw` in `doc`.
fn place_span(
    corpus: &Corpus,
    doc: &Document,
    raw: &RawQuestion,
    s: &crate::eval::questions::RawSpan,
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
        other_doc: None,
        class: None,
    };
    if let Some(p) = at_offsets
        && doc.slice(p) == s.text
    {
        check.placed = Some(p);
        return check;
    }
    let with_offsets = s.start.is_some() || s.end.is_some();
    // Exact occurrences, the one nearest the old offsets first.
    let mut exact: Vec<Span> = doc
        .text
        .match_indices(s.text.as_str())
        .map(|(at, t)| Span::new(at, at + t.len()))
        .collect();
    if !s.text.is_empty() && !exact.is_empty() {
        let old = at_offsets.map(|p| p.start).or(s.start).unwrap_or(0);
        exact.sort_by_key(|e| e.start.abs_diff(old));
        if exact.len() == 1 || with_offsets {
            check.status = if with_offsets {
                SpanStatus::Shifted
            } else {
                SpanStatus::TextOnly
            };
            check.placed = Some(exact[0]);
            return check;
        }
        if let Some(page) = s.page
            && let Ok((p, _)) = placement::place_text(doc, &s.text, Some(page))
        {
            check.status = SpanStatus::TextOnly;
            check.placed = Some(p);
            return check;
        }
        exact.sort_by_key(|e| e.start);
        check.status = SpanStatus::Ambiguous;
        check.alternatives = exact
            .iter()
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
        return check;
    }
    if let Ok((p, PlacedBy::Words)) = placement::place_text(doc, &s.text, s.page) {
        check.status = SpanStatus::Words;
        check.placed = Some(p);
        return check;
    }
    // Fuzzy places, and the text at the given offsets as one more candidate (a typo at the right
    // offsets); the likeliest first, overlapping candidates merged into the better one.
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
    check.alternatives = found.iter().skip(1).map(|m| alternative(doc, m)).collect();
    if let Some(best) = found.first() {
        check.confidence = best.confidence;
        let clear = found
            .get(1)
            .is_none_or(|next| best.confidence - next.confidence >= FUZZY_LEAD);
        if best.confidence >= FUZZY_FIX_CONFIDENCE && clear {
            check.status = SpanStatus::Fuzzy;
            check.placed = Some(best.span);
            return check;
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
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "Alpha line one here.\nThe replica is promoted after the lag drops under five seconds.\nBeta line.";

    fn run(lines: &str) -> GoldCheck {
        let corpus = Corpus::from_texts([("a.md", DOC), ("b.md", "Gamma text lives only in b.")]);
        let layout = crate::layout::of_words(&corpus, 1000);
        check(&corpus, &layout, lines)
    }

    #[test]
    fn every_kind_of_problem_is_reported_and_repaired_or_left_out() {
        let truth = "The replica is promoted after the lag drops under five seconds.";
        let at = DOC.find(truth).unwrap();
        let end = at + truth.len();
        let lines = [
            format!(r#"{{"id":"ok","question":"q","doc":"a.md","spans":[{{"start":{at},"end":{end},"text":"{truth}"}}]}}"#),
            format!(r#"{{"id":"shift","question":"q","doc":"a.md","spans":[{{"start":{},"end":{},"text":"{truth}"}}]}}"#, at + 3, end + 3),
            format!(r#"{{"id":"text","question":"q","doc":"a.md","spans":[{{"text":"{truth}"}}]}}"#),
            format!(r#"{{"id":"typo","question":"q","doc":"a.md","spans":[{{"start":{at},"end":{end},"text":"The replcia is promoted after the lag drops under five seconds."}}]}}"#),
            format!(r#"{{"id":"typoshift","question":"q","doc":"a.md","spans":[{{"start":{},"end":{},"text":"The replcia is promoted after the lag drops under five seconds."}}]}}"#, at + 2, end + 2),
            format!(r#"{{"id":"ok","question":"other","doc":"a.md","spans":[{{"start":{at},"end":{end},"text":"{truth}"}}]}}"#),
            r#"{"id":"empty","question":" ","doc":"a.md","spans":[{"text":"x"}]}"#.to_string(),
            r#"{"id":"nowhere","question":"q","doc":"a.md","spans":[{"text":"Gamma text lives only in b."}]}"#.to_string(),
            r#"{"id":"lost","question":"q","doc":"a.md","spans":[{"text":"zeta omega kappa"}]}"#.to_string(),
        ]
        .join("\n");
        let got = run(&lines);
        let by_id = |id: &str| got.report.questions.iter().find(|q| q.id == id).unwrap();
        assert_eq!(by_id("shift").spans[0].status, SpanStatus::Shifted);
        assert_eq!(by_id("text").spans[0].status, SpanStatus::TextOnly);
        assert_eq!(by_id("typo").spans[0].status, SpanStatus::Fuzzy);
        // Near the old offsets the text is nearly the quote too; the true place is nearer still.
        assert_eq!(by_id("typoshift").spans[0].status, SpanStatus::Fuzzy);
        for id in ["shift", "text", "typo", "typoshift"] {
            assert_eq!(by_id(id).spans[0].placed, Some(Span::new(at, end)), "{id}");
            assert_eq!(by_id(id).action, LineAction::Repair, "{id}");
        }
        let dup = &got.report.questions[5];
        assert!(dup.changes[0].contains("ok → ok-2"), "{:?}", dup.changes);
        assert_eq!(by_id("empty").action, LineAction::Drop);
        // Found only in another document: the question is moved there.
        assert!(
            by_id("nowhere").changes[0].contains("a.md → b.md"),
            "{:?}",
            by_id("nowhere")
        );
        assert_eq!(by_id("lost").action, LineAction::Drop);
        assert_eq!(got.report.summary.dropped, 2);
        // The repaired file loads whole.
        let corpus = Corpus::from_texts([("a.md", DOC), ("b.md", "Gamma text lives only in b.")]);
        let file = crate::eval::questions::parse_file(&got.repaired);
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        let (qs, errors) = crate::eval::questions::resolve(&corpus, &file.questions);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(qs.len(), 7);
    }
}
