//! Which sentences a calibration asks about: unsplit sentences near a cut, and crossing ones.
//!
//! Sentences are UAX #29 sentences ([`sentence_edges`]) of the text with hard-wrapped lines
//! joined ([`join_wrapped_lines`]: a line break inside a paragraph does not end a sentence, one
//! before a blank line, list item, heading, table row, quote or fence does), trimmed of
//! whitespace and Markdown emphasis or list marks at either end. For every seam:
//! - an **unsplit** candidate lies wholly inside the seam window and wholly on one side of the cut,
//!   so one chunk (the *holder*) contains it and the seam window contains it too. A sentence inside
//!   the windows of two seams (a short chunk) is kept once, for the seam whose cut is nearer;
//! - a **crossing** candidate starts before the cut and ends after it, so neither chunk holds it
//!   whole; it lies inside the seam window by construction (windows snap outward to sentence
//!   edges), and a sentence that does not (a window held back by its growth limit) is left out.
//!
//! Only prose is kept ([`is_prose`]). From each kind, `per_kind` candidates are drawn
//! deterministically: each candidate gets a key hashed from the seed, its document path and its
//! offset, and the smallest keys win. The same corpus, settings and seed give the same sample;
//! another seed gives another, and a change elsewhere in the corpus does not reshuffle it.

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::chunk::ChunkId;
use crate::corpus::{Corpus, DocId, Span};
use crate::layout::Layout;
use crate::seam::{Seam, SeamId, sentence_edges};

/// Default number of sentences sampled per kind.
pub const DEFAULT_SAMPLES: usize = 60;
/// Default seed of the deterministic draw.
pub const DEFAULT_SEED: u64 = 0;
/// Default fewest words a sampled sentence has.
pub const DEFAULT_MIN_WORDS: usize = 6;

/// Whether a sampled sentence lies inside one chunk or across a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleKind {
    /// Wholly inside one chunk, and inside that chunk's seam window.
    Unsplit,
    /// Across the cut between two chunks (inside the seam window).
    Crossing,
}

impl SampleKind {
    /// A short name for tables: `unsplit` or `crossing`.
    pub fn label(self) -> &'static str {
        match self {
            SampleKind::Unsplit => "unsplit",
            SampleKind::Crossing => "crossing",
        }
    }
}

/// How sentences are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleOptions {
    /// Sentences drawn per kind (fewer when fewer qualify).
    pub per_kind: usize,
    /// Seed of the deterministic draw.
    pub seed: u64,
    /// Fewest words (UAX #29 words) a sentence must have.
    pub min_words: usize,
}

impl Default for SampleOptions {
    fn default() -> Self {
        Self {
            per_kind: DEFAULT_SAMPLES,
            seed: DEFAULT_SEED,
            min_words: DEFAULT_MIN_WORDS,
        }
    }
}

/// One sentence chosen for calibration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampledSentence {
    /// Unsplit or crossing.
    pub kind: SampleKind,
    /// The document.
    pub doc: DocId,
    /// The sentence's byte span (trimmed).
    pub span: Span,
    /// The seam whose window holds the sentence.
    pub seam: SeamId,
    /// For an unsplit sentence, the chunk that holds it; `None` for a crossing one.
    pub holder: Option<ChunkId>,
    /// A few sentences around it (two before, one after), for a question generator's eyes only.
    pub context: Span,
}

/// The draw, with how many candidates there were.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSet {
    /// Unsplit sentences drawn, in document order.
    pub unsplit: Vec<SampledSentence>,
    /// Crossing sentences drawn, in document order.
    pub crossing: Vec<SampledSentence>,
    /// Unsplit prose sentences that qualified.
    pub unsplit_candidates: usize,
    /// Crossing prose sentences that qualified.
    pub crossing_candidates: usize,
    /// Sentences in seam windows left out because they are short or not prose.
    pub not_prose: usize,
}

/// Whether `sentence` reads as prose: at least `min_words` words, mostly letters, and none of the
/// marks of code, tables or headings.
///
/// Rejected: a Markdown heading (`#`) or table row (two or more `|`), a code fence, text in which
/// letters make up less than 60% of the non-space characters, or in which code punctuation
/// (`{}[]<>=;|\`$\\_~^`) makes up more than 5%.
pub fn is_prose(sentence: &str, min_words: usize) -> bool {
    let s = sentence.trim();
    if s.unicode_words().count() < min_words {
        return false;
    }
    if s.starts_with('#') || s.contains("```") || s.matches('|').count() >= 2 {
        return false;
    }
    let mut visible = 0usize;
    let mut letters = 0usize;
    let mut code_marks = 0usize;
    for c in s.chars().filter(|c| !c.is_whitespace()) {
        visible += 1;
        if c.is_alphabetic() {
            letters += 1;
        }
        if "{}[]<>=;|`$\\_~^".contains(c) {
            code_marks += 1;
        }
    }
    letters * 10 >= visible * 6 && code_marks * 20 <= visible
}

/// Whether a line starts a new block (so the line break before it ends a sentence).
fn starts_block(line: &str) -> bool {
    let t = line.trim_start();
    if t.is_empty() || t.starts_with(['#', '|', '>', '-', '*', '+', '•']) || t.starts_with("```")
    {
        return true;
    }
    // A numbered item or section: `3.`, `12)`, `4.2`.
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && t[digits..].starts_with(['.', ')'])
}

/// `text` with each line break inside a paragraph turned into a space (`\r\n` into two), so
/// hard-wrapped prose reads as whole sentences. A break stays after a blank line, heading, table
/// row or fence, and before a line that [starts a block](starts_block). Byte offsets are unchanged.
pub fn join_wrapped_lines(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    let mut line_start = 0;
    while let Some(nl) = text[line_start..].find('\n').map(|i| line_start + i) {
        let line = text[line_start..nl].trim_end_matches('\r');
        let next_end = text[nl + 1..].find('\n').map_or(text.len(), |i| nl + 1 + i);
        let next = &text[nl + 1..next_end];
        let own = line.trim_start();
        let ends_block = own.is_empty() || own.starts_with(['#', '|']) || own.starts_with("```");
        if !ends_block && !starts_block(next) {
            out[nl] = b' ';
            if nl > 0 && out[nl - 1] == b'\r' {
                out[nl - 1] = b' ';
            }
        }
        line_start = nl + 1;
    }
    // Only ASCII line-break bytes were replaced by ASCII spaces: still valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Marks trimmed from either end of a sentence besides whitespace.
fn is_edge_mark(c: char) -> bool {
    c.is_whitespace() || matches!(c, '*' | '_' | '>' | '-' | '+' | '•')
}

/// The trimmed sentences of a document, in order.
pub(crate) fn sentences(text: &str) -> Vec<Span> {
    let joined = join_wrapped_lines(text);
    sentence_edges(&joined)
        .windows(2)
        .filter_map(|w| {
            let raw = &text[w[0]..w[1]];
            let start = w[0] + (raw.len() - raw.trim_start_matches(is_edge_mark).len());
            let end = w[1] - (raw.len() - raw.trim_end_matches(is_edge_mark).len());
            (start < end).then(|| Span::new(start, end))
        })
        .collect()
}

/// The draw order of a candidate: a hash of the seed, kind, document path and start.
fn draw_key(seed: u64, kind: SampleKind, path: &str, start: usize) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&seed.to_le_bytes());
    h.update(&[kind as u8]);
    h.update(path.as_bytes());
    h.update(&[0]);
    h.update(&(start as u64).to_le_bytes());
    *h.finalize().as_bytes()
}

/// Draw unsplit and crossing sentences from the seam windows of `layout`.
pub fn sample_sentences(corpus: &Corpus, layout: &Layout, options: &SampleOptions) -> SampleSet {
    // (draw key, sentence, distance from the cut) per kind.
    let mut unsplit: Vec<([u8; 32], SampledSentence, usize)> = Vec::new();
    let mut crossing: Vec<([u8; 32], SampledSentence)> = Vec::new();
    let mut not_prose = 0usize;
    let mut seams = layout.seams.iter().peekable();
    for doc in &corpus.documents {
        let mut doc_seams = Vec::new();
        while let Some(seam) = seams.next_if(|s| s.doc == doc.id) {
            doc_seams.push(seam);
        }
        if doc_seams.is_empty() {
            continue;
        }
        let sents = sentences(&doc.text);
        let first_unsplit = unsplit.len();
        for seam in doc_seams {
            let window = seam.span;
            let lo = sents.partition_point(|s| s.end <= window.start);
            for i in lo..sents.len() {
                let span = sents[i];
                if span.start >= window.end {
                    break;
                }
                let crosses = span.start < seam.cut && seam.cut < span.end;
                if !window.contains(&span) {
                    continue;
                }
                if !is_prose(doc.slice(span), options.min_words) {
                    not_prose += 1;
                    continue;
                }
                let sampled = sampled_sentence(doc.id, seam, &sents, i);
                let kind = sampled.kind;
                let key = draw_key(options.seed, kind, &doc.path, span.start);
                if crosses {
                    crossing.push((key, sampled));
                    continue;
                }
                let distance = if span.end <= seam.cut {
                    seam.cut - span.end
                } else {
                    span.start - seam.cut
                };
                // A short chunk can put a sentence in two windows: keep the nearer cut.
                match unsplit[first_unsplit..]
                    .iter_mut()
                    .find(|(_, s, _)| s.span == span)
                {
                    Some(existing) if distance < existing.2 => *existing = (key, sampled, distance),
                    Some(_) => {}
                    None => unsplit.push((key, sampled, distance)),
                }
            }
        }
    }
    let unsplit_candidates = unsplit.len();
    let crossing_candidates = crossing.len();
    let unsplit = draw(
        unsplit.into_iter().map(|(k, s, _)| (k, s)).collect(),
        options.per_kind,
    );
    let crossing = draw(crossing, options.per_kind);
    SampleSet {
        unsplit,
        crossing,
        unsplit_candidates,
        crossing_candidates,
        not_prose,
    }
}

/// Sentence `i` of `sents` (in document `doc`, inside `seam`'s window) as a sample: crossing
/// the cut, or unsplit and held by the chunk on its side; with two sentences before and one
/// after as context.
fn sampled_sentence(doc: DocId, seam: &Seam, sents: &[Span], i: usize) -> SampledSentence {
    let span = sents[i];
    let crosses = span.start < seam.cut && seam.cut < span.end;
    let context = Span::new(
        sents[i.saturating_sub(2)].start,
        sents[(i + 1).min(sents.len() - 1)].end,
    );
    let kind = if crosses {
        SampleKind::Crossing
    } else {
        SampleKind::Unsplit
    };
    let holder = match kind {
        SampleKind::Crossing => None,
        SampleKind::Unsplit if span.end <= seam.cut => Some(seam.left),
        SampleKind::Unsplit => Some(seam.right),
    };
    SampledSentence {
        kind,
        doc,
        span,
        seam: seam.id,
        holder,
        context,
    }
}

/// The `n` candidates with the smallest keys, back in document order.
fn draw(mut candidates: Vec<([u8; 32], SampledSentence)>, n: usize) -> Vec<SampledSentence> {
    candidates.sort_by_key(|a| a.0);
    candidates.truncate(n);
    let mut chosen: Vec<SampledSentence> = candidates.into_iter().map(|(_, s)| s).collect();
    chosen.sort_by_key(|s| (s.doc, s.span.start));
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_kept_and_code_tables_and_headings_are_not() {
        assert!(is_prose(
            "The ledger writer retries each batch three times before it gives up.",
            6
        ));
        assert!(is_prose(
            "Section 4.2 (as amended in 2024) sets the retention period to 90 days.",
            6
        ));
        assert!(!is_prose("Too short to ask about.", 6));
        assert!(!is_prose(
            "## Retention of customer records after closure",
            6
        ));
        assert!(!is_prose("| region | primary | replica | lag |", 6));
        assert!(!is_prose(
            "let total = items.iter().map(|x| x.len()).sum::<usize>();",
            6
        ));
        assert!(!is_prose(
            "if self.tokens[key] >= limit: return self._refill(key, now)",
            6
        ));
        assert!(!is_prose("```rust fn main() { println!(\"hi\"); }", 6));
        assert!(!is_prose(
            "10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.6",
            6
        ));
    }

    #[test]
    fn sentences_are_trimmed_and_skip_blank_runs() {
        let text = "First one here.  **Second one.**\n\n  Third line\n";
        let spans: Vec<&str> = sentences(text)
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect();
        assert_eq!(spans, vec!["First one here.", "Second one.", "Third line"]);
    }

    #[test]
    fn hard_wrapped_lines_join_but_blocks_stay_apart() {
        let text = "The worst case is that a few\r\nminutes are lost.\n- item one\n- item two\n\n## Head\n3. Step\nmore of step.\n## Next\nBody text\n";
        let joined = join_wrapped_lines(text);
        assert_eq!(joined.len(), text.len());
        assert_eq!(
            joined,
            "The worst case is that a few  minutes are lost.\n- item one\n- item two\n\n## Head\n3. Step more of step.\n## Next\nBody text\n"
        );
        let spans: Vec<&str> = sentences(text)
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect();
        assert_eq!(
            spans[0],
            "The worst case is that a few\r\nminutes are lost."
        );
        assert_eq!(spans[1], "item one");
    }

    #[test]
    fn draw_is_deterministic_and_seeded() {
        let a = draw_key(1, SampleKind::Unsplit, "a.md", 10);
        assert_eq!(a, draw_key(1, SampleKind::Unsplit, "a.md", 10));
        assert_ne!(a, draw_key(2, SampleKind::Unsplit, "a.md", 10));
        assert_ne!(a, draw_key(1, SampleKind::Crossing, "a.md", 10));
        assert_ne!(a, draw_key(1, SampleKind::Unsplit, "a.md", 11));
    }
}
