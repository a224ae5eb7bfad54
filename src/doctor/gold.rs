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

mod place;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, Document, Span};
use crate::eval::metrics::{SpanClass, span_class};
use crate::eval::questions::{OffsetUnit, RawQuestion};
use crate::layout::Layout;
use place::{other_document, place_span};

/// Least confidence at which a fuzzy match repairs a span.
pub const FUZZY_FIX_CONFIDENCE: f64 = 0.90;
/// How far the best fuzzy match must lead the next for the repair to pick it.
pub const FUZZY_LEAD: f64 = 0.05;
/// Alternatives listed for a fuzzy match.
pub const ALTERNATIVES: usize = 3;
/// Places of an ambiguous span kept and listed: its text may occur thousands of times (a
/// page header in every page of a PDF), and listing each made one line of 92 KB.
pub const PLACES_LISTED: usize = 5;

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
    /// Other places it could be (fuzzy and ambiguous spans; at most [`PLACES_LISTED`] of an
    /// ambiguous span's).
    pub alternatives: Vec<Alternative>,
    /// How many times an ambiguous span's text occurs (0 for any other span).
    #[serde(default)]
    pub occurrences: usize,
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
    // Past the most questions a file may hold, no line is checked (the caller refuses such a
    // file with [`crate::eval::questions::too_many_lines`]; a library caller gets no more than
    // that many lines of report).
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(crate::eval::questions::MAX_QUESTION_LINES);
    for (i, line) in lines {
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

/// Check one question line (1-based `line`); with the line the repaired file gets, `None` when
/// it is left out. `ids` holds each id's first line and content, `used` every id taken.
fn check_line(
    corpus: &Corpus,
    layout: &Layout,
    line: usize,
    text: &str,
    ids: &mut HashMap<String, (usize, serde_json::Value)>,
    used: &mut std::collections::HashSet<String>,
) -> (QuestionCheck, Option<String>) {
    let (mut value, raw) = match read_line(text) {
        Ok(read) => read,
        Err((id, why)) => return unreadable(line, id, why),
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
    if let Some(why) = crate::eval::questions::over_limits(&raw) {
        return check.dropped(why);
    }
    if raw.question.trim().is_empty() {
        return check.dropped("the question is empty".into());
    }
    if raw.spans.is_empty() || raw.spans.iter().all(|s| s.text.trim().is_empty()) {
        return check.dropped("no evidence: \"spans\" is empty, so nothing can answer it".into());
    }
    let mut edited = match claim_id(&raw, line, &mut value, &mut check, ids, used) {
        Ok(edited) => edited,
        Err(why) => return check.dropped(why),
    };
    let mut doc = match question_document(corpus, &raw, &mut value, &mut check) {
        Ok((doc, moved)) => {
            edited |= moved;
            doc
        }
        Err(why) => return check.dropped(why),
    };
    for (si, s) in raw.spans.iter().enumerate() {
        if let Some(page) = s.page
            && let Err(why) = crate::eval::placement::check_page(doc, page)
        {
            return check.dropped(format!("span {}: {why}", si + 1));
        }
    }
    for (si, s) in raw.spans.iter().enumerate() {
        let sc = place_span(corpus, doc, &raw, s);
        note_span(&mut check, si + 1, &sc, doc, s);
        check.spans.push(sc);
    }
    match follow_spans_elsewhere(corpus, &raw, doc, &mut value, &mut check) {
        Ok(Some(other)) => {
            doc = other;
            edited = true;
        }
        Ok(None) => {}
        Err(why) => return check.dropped(why),
    }
    if check.spans.iter().any(|s| s.placed.is_none()) {
        return check.dropped("evidence that cannot be placed: unanswerable as written".into());
    }
    classify(&mut check, layout, doc);
    edited |= rewrite_spans(&mut value, &raw, &mut check, doc);
    if edited {
        check.action = LineAction::Repair;
        let out = serde_json::to_string(&value).unwrap_or_else(|_| text.to_string());
        (check, Some(out))
    } else {
        (check, Some(text.to_string()))
    }
}

impl QuestionCheck {
    /// The line left out of the repaired file, for `why`.
    fn dropped(mut self, why: String) -> (QuestionCheck, Option<String>) {
        self.problems.push(why);
        self.changes.push("left out of the repaired file".into());
        self.action = LineAction::Drop;
        (self, None)
    }
}

/// The line as JSON and as a question; `Err` with its id (when it has one) why it is neither.
fn read_line(text: &str) -> Result<(serde_json::Value, RawQuestion), (String, String)> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Err((String::new(), format!("not JSON: {e}"))),
    };
    match serde_json::from_value(value.clone()) {
        Ok(q) => Ok((value, q)),
        Err(e) => {
            let id = value
                .get("id")
                .and_then(|i| i.as_str())
                .unwrap_or("")
                .to_string();
            Err((id, format!("not a question line: {e}")))
        }
    }
}

/// Duplicate ids: an identical line again is left out (`Err` why); another question under a
/// taken id is given a new one (`Ok(true)`: the line is edited). A first id is recorded.
fn claim_id(
    raw: &RawQuestion,
    line: usize,
    value: &mut serde_json::Value,
    check: &mut QuestionCheck,
    ids: &mut HashMap<String, (usize, serde_json::Value)>,
    used: &mut std::collections::HashSet<String>,
) -> Result<bool, String> {
    let mut content = value.clone();
    if let Some(o) = content.as_object_mut() {
        o.remove("id");
    }
    let Some((first, earlier)) = ids.get(&raw.id) else {
        ids.insert(raw.id.clone(), (line, content));
        return Ok(false);
    };
    if *earlier == content {
        return Err(format!("id {} repeats line {first} exactly", raw.id));
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
    Ok(true)
}

/// The question's document: the one it names, else the one other document holding every
/// span's text (`true`: the line now names it). `Err` why when there is none.
fn question_document<'c>(
    corpus: &'c Corpus,
    raw: &RawQuestion,
    value: &mut serde_json::Value,
    check: &mut QuestionCheck,
) -> Result<(&'c Document, bool), String> {
    if let Some(d) = corpus.documents.iter().find(|d| d.path == raw.doc) {
        return Ok((d, false));
    }
    if let Some(skip) = corpus.skipped.iter().find(|s| s.path == raw.doc) {
        return Err(format!(
            "document {} was skipped when the corpus was read: {}",
            raw.doc, skip.reason
        ));
    }
    let Some(d) = other_document(corpus, raw) else {
        return Err(format!("document {} is not in the corpus", raw.doc));
    };
    check
        .problems
        .push(format!("document {} is not in the corpus", raw.doc));
    check.changes.push(format!(
        "doc {} → {} (where its spans' text is)",
        raw.doc, d.path
    ));
    value["doc"] = serde_json::Value::String(d.path.clone());
    Ok((d, true))
}

/// What span `n`'s check says about the line: its problem and, for a span placed elsewhere,
/// where the repair puts it.
fn note_span(
    check: &mut QuestionCheck,
    n: usize,
    sc: &SpanCheck,
    doc: &Document,
    s: &crate::eval::questions::RawSpan,
) {
    match sc.status {
        SpanStatus::Ok => {}
        SpanStatus::Shifted | SpanStatus::TextOnly | SpanStatus::Words | SpanStatus::Fuzzy => {
            let Some(p) = sc.placed else { return };
            check.problems.push(why_placed_elsewhere(n, sc, doc));
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
            let mut at: Vec<String> = sc
                .alternatives
                .iter()
                .take(PLACES_LISTED)
                .map(|a| format!("{}..{} (line {})", a.start, a.end, a.line))
                .collect();
            if sc.occurrences > PLACES_LISTED {
                at.push(format!("and {} more", sc.occurrences - PLACES_LISTED));
            }
            check.problems.push(format!(
                "span {n}: its text occurs {} times ({}): give offsets to say which",
                sc.occurrences,
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
}

/// Why span `n`, placed elsewhere in `doc` (shifted, given as text only, found by its words or
/// by fuzzy match), needed placing.
fn why_placed_elsewhere(n: usize, sc: &SpanCheck, doc: &Document) -> String {
    match sc.status {
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
    }
}

/// Every span in one other document: the question names the wrong one, so the line moves there
/// and its spans are placed again (`Some` that document). Spans in more than one other
/// document: `Err` why the line is left out.
fn follow_spans_elsewhere<'c>(
    corpus: &'c Corpus,
    raw: &RawQuestion,
    doc: &Document,
    value: &mut serde_json::Value,
    check: &mut QuestionCheck,
) -> Result<Option<&'c Document>, String> {
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
        check.spans = raw
            .spans
            .iter()
            .map(|s| place_span(corpus, d, raw, s))
            .collect();
        return Ok(Some(d));
    }
    if check.spans.iter().any(|s| s.other_doc.is_some()) {
        check
            .problems
            .push("its spans lie in more than one document: a question names one".into());
        return Err("spans across documents".into());
    }
    Ok(None)
}

/// Each placed span's class under `layout`'s chunks of `doc`, and the question's: the worst.
fn classify(check: &mut QuestionCheck, layout: &Layout, doc: &Document) {
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
}

/// When a span was placed anew, the line's spans rewritten as byte offsets with the document's
/// own text (pages kept, `unit` removed); `true` when the line changed.
fn rewrite_spans(
    value: &mut serde_json::Value,
    raw: &RawQuestion,
    check: &mut QuestionCheck,
    doc: &Document,
) -> bool {
    if check.spans.iter().all(|s| s.status == SpanStatus::Ok) {
        return false;
    }
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
    true
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

    #[test]
    fn pages_out_of_range_skipped_documents_and_repeated_text_are_said_in_bounded_words() {
        use crate::corpus::{SkipReason, SkippedFile};
        use crate::extract::{PageMap, PageStart};
        let header = "Quarterly report. ";
        let text: String = (0..3000)
            .map(|i| format!("{header}Page body {i}.\n"))
            .collect();
        let mut corpus = Corpus::from_texts([("report.pdf", text.as_str())]);
        corpus.documents[0].source.pages = PageMap::new(vec![
            PageStart { byte: 0, page: 1 },
            PageStart { byte: 100, page: 2 },
        ]);
        corpus.skipped.push(SkippedFile {
            path: "locked.pdf".into(),
            reason: SkipReason::Encrypted {
                format: "pdf".into(),
            },
        });
        let layout = crate::layout::of_words(&corpus, 1000);
        let lines = [
            r#"{"id":"p0","question":"q","doc":"report.pdf","spans":[{"text":"Page body 7.","page":0}]}"#,
            r#"{"id":"pbig","question":"q","doc":"report.pdf","spans":[{"text":"Page body 7.","page":1000000000}]}"#,
            r#"{"id":"locked","question":"q","doc":"locked.pdf","spans":[{"text":"secret"}]}"#,
            r#"{"id":"many","question":"q","doc":"report.pdf","spans":[{"text":"Quarterly report."}]}"#,
        ]
        .join("\n");
        let got = check(&corpus, &layout, &lines);
        let problems = |id: &str| {
            got.report
                .questions
                .iter()
                .find(|q| q.id == id)
                .map(|q| q.problems.join("; "))
                .unwrap_or_default()
        };
        assert_eq!(
            problems("p0"),
            "span 1: page 0 was given, but the document has 2 pages"
        );
        assert_eq!(
            problems("pbig"),
            "span 1: page 1000000000 was given, but the document has 2 pages"
        );
        assert_eq!(
            problems("locked"),
            "document locked.pdf was skipped when the corpus was read: encrypted pdf: give seamscope a decrypted copy"
        );
        let many = problems("many");
        assert!(
            many.starts_with("span 1: its text occurs 3000 times (0..17 (line 1), ")
                && many.contains(", and 2995 more): give offsets to say which"),
            "{many}"
        );
        let span = &got.report.questions[3].spans[0];
        assert_eq!(
            (span.occurrences, span.alternatives.len()),
            (3000, PLACES_LISTED)
        );
    }

    #[test]
    fn a_question_or_span_past_its_limit_is_left_out_naming_the_limit() {
        let long_question = "why ".repeat(1000);
        let long_span = "word ".repeat(3000);
        let lines = [
            serde_json::json!({"id": "q", "question": long_question, "doc": "a.md",
                "spans": [{"text": "Beta line."}]}),
            serde_json::json!({"id": "s", "question": "q", "doc": "a.md",
                "spans": [{"text": long_span}]}),
        ]
        .map(|l| l.to_string())
        .join("\n");
        let got = run(&lines);
        let said: Vec<(&str, LineAction, &str)> = got
            .report
            .questions
            .iter()
            .map(|q| (q.id.as_str(), q.action, q.problems[0].as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "q",
                    LineAction::Drop,
                    "the question is 4000 characters long, more than the 2000 a question may be (as `query` takes)"
                ),
                (
                    "s",
                    LineAction::Drop,
                    "span 1's text is 15000 characters long, more than the 10000 a span's text may be"
                ),
            ]
        );
    }
}
