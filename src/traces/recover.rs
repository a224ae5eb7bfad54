//! The application's cuts, recovered from what its retriever returned: when the retrieved
//! documents are the app's own chunks, each placed one is a chunk of its layout, and two placed
//! chunks with nothing but white space between them (or overlapping, as a splitter's
//! `chunk_overlap` makes them) meet at one of its cuts. Text no retrieved chunk covers is cut
//! into pieces of the app's typical chunk length, at paragraph, line or word breaks, and those
//! pieces are labelled inferred: the replay needs every part of the corpus searchable, and a
//! chunk the app never returned is not seen in any trace.
//!
//! The result is written as a plain cuts file and opened as `--cuts` would be (chunker
//! `given`), so the replay runs on the cuts the app had.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::corpus::{Corpus, DocId, Span};

/// One chunk of the recovered layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AppChunk {
    /// Its document.
    pub doc: DocId,
    /// Its byte span.
    pub span: Span,
    /// Whether the app returned it (else it was inferred to fill text no trace showed).
    pub seen: bool,
}

/// The app's layout as far as the traces show it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Recovered {
    /// Every chunk, by document and start.
    pub chunks: Vec<AppChunk>,
    /// Cuts between two chunks the app returned that meet (white space between, or overlap):
    /// `(document, byte)` of the right chunk's start.
    pub recovered_cuts: Vec<(DocId, usize)>,
    /// Placed spans left out because they lie wholly inside another (a parent and its child
    /// both returned): the outer one is kept.
    pub nested_dropped: usize,
    /// The typical (median) length in bytes of a chunk the app returned.
    pub typical_bytes: usize,
}

impl Recovered {
    /// Recover the layout from the placed spans of each document.
    pub fn from_spans(corpus: &Corpus, spans: &HashMap<DocId, Vec<Span>>) -> Recovered {
        let mut lengths: Vec<usize> = spans.values().flatten().map(|s| s.len()).collect();
        lengths.sort_unstable();
        let typical_bytes = lengths
            .get(lengths.len() / 2)
            .copied()
            .unwrap_or(4000)
            .max(200);
        let mut out = Recovered {
            typical_bytes,
            ..Recovered::default()
        };
        for (i, document) in corpus.documents.iter().enumerate() {
            let doc = DocId(i as u32);
            let mut seen: Vec<Span> = spans.get(&doc).cloned().unwrap_or_default();
            seen.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
            seen.dedup();
            // Keep the outer of two nested spans.
            let mut kept: Vec<Span> = Vec::new();
            for s in seen {
                if kept.iter().any(|k| k.start <= s.start && s.end <= k.end) {
                    out.nested_dropped += 1;
                } else {
                    kept.push(s);
                }
            }
            let text = &document.text;
            let mut at = 0usize;
            let mut previous: Option<Span> = None;
            for s in kept {
                if let Some(p) = previous
                    && (s.start < p.end || text[p.end..s.start].trim().is_empty())
                {
                    out.recovered_cuts.push((doc, s.start));
                }
                if s.start > at {
                    fill_gap(
                        doc,
                        text,
                        Span::new(at, s.start),
                        typical_bytes,
                        &mut out.chunks,
                    );
                }
                out.chunks.push(AppChunk {
                    doc,
                    span: s,
                    seen: true,
                });
                at = at.max(s.end);
                previous = Some(s);
            }
            if at < text.len() {
                fill_gap(
                    doc,
                    text,
                    Span::new(at, text.len()),
                    typical_bytes,
                    &mut out.chunks,
                );
            }
        }
        out
    }

    /// Chunks the app returned.
    pub fn seen(&self) -> usize {
        self.chunks.iter().filter(|c| c.seen).count()
    }

    /// Write the layout as a plain cuts file (`{"doc", "start", "end"}` in bytes) at `path`.
    pub fn write_cuts(&self, corpus: &Corpus, path: &Path) -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut tmp = tempfile::NamedTempFile::new_in(path.parent().unwrap_or(Path::new(".")))?;
        {
            let mut w = std::io::BufWriter::new(tmp.as_file_mut());
            for c in &self.chunks {
                let line = serde_json::json!({
                    "doc": corpus.doc(c.doc).path,
                    "start": c.span.start,
                    "end": c.span.end,
                });
                writeln!(w, "{line}")?;
            }
            w.flush()?;
        }
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Where the cuts file of this layout goes under a cache folder: named by its content, so
    /// the same traces reopen the same indexes.
    pub fn cuts_path(&self, corpus: &Corpus, cache_dir: &Path) -> PathBuf {
        let mut h = blake3::Hasher::new();
        for c in &self.chunks {
            let path = &corpus.doc(c.doc).path;
            h.update(&(path.len() as u64).to_le_bytes());
            h.update(path.as_bytes());
            h.update(&(c.span.start as u64).to_le_bytes());
            h.update(&(c.span.end as u64).to_le_bytes());
        }
        let name = format!("app-cuts-{}.jsonl", &h.finalize().to_hex()[..16]);
        cache_dir.join("traces").join(name)
    }
}

/// Cut the text of `gap` that holds more than white space into pieces of about `typical` bytes,
/// each cut moved to the nearest paragraph, line or word break.
fn fill_gap(doc: DocId, text: &str, gap: Span, typical: usize, out: &mut Vec<AppChunk>) {
    let inner = &text[gap.start..gap.end];
    let lead = inner.len() - inner.trim_start().len();
    let trail = inner.len() - inner.trim_end().len();
    if lead == inner.len() {
        return;
    }
    let span = Span::new(gap.start + lead, gap.end - trail);
    let pieces = span.len().div_ceil(typical).max(1);
    let step = span.len() / pieces;
    let mut start = span.start;
    for i in 1..pieces {
        let aim = span.start + i * step;
        let cut = break_near(text, aim, step / 4, start, span.end);
        if cut > start && cut < span.end {
            push_trimmed(doc, text, Span::new(start, cut), out);
            start = cut;
        }
    }
    push_trimmed(doc, text, Span::new(start, span.end), out);
}

fn push_trimmed(doc: DocId, text: &str, s: Span, out: &mut Vec<AppChunk>) {
    let inner = &text[s.start..s.end];
    let lead = inner.len() - inner.trim_start().len();
    let trail = inner.len() - inner.trim_end().len();
    if lead < inner.len() {
        out.push(AppChunk {
            doc,
            span: Span::new(s.start + lead, s.end - trail),
            seen: false,
        });
    }
}

/// A break within `reach` bytes of `aim`, inside `(low, high)`: a paragraph break first, then
/// a line break, then a space; `aim` itself (moved to a char boundary) when there is none.
fn break_near(text: &str, aim: usize, reach: usize, low: usize, high: usize) -> usize {
    let lo = floor_char(text, aim.saturating_sub(reach).max(low + 1));
    let hi = floor_char(text, (aim + reach).min(high.saturating_sub(1)));
    if lo < hi {
        let window = &text[lo..hi];
        for pattern in ["\n\n", "\n", " "] {
            if let Some(i) = nearest(window, pattern, aim - lo.min(aim)) {
                return lo + i + pattern.len();
            }
        }
    }
    floor_char(text, aim)
}

fn nearest(window: &str, pattern: &str, aim: usize) -> Option<usize> {
    window
        .match_indices(pattern)
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(aim))
}

fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(text: &str) -> Corpus {
        Corpus::from_texts(vec![("a.md".to_string(), text.to_string())])
    }

    #[test]
    fn chunks_that_meet_give_their_cut_and_gaps_are_filled() {
        let text = "one two three.\n\nfour five six.\n\nseven eight nine.\n\nten eleven twelve.";
        let c = corpus(text);
        let first = Span::new(0, 14);
        let second = Span::new(16, 30);
        let mut spans = HashMap::new();
        spans.insert(DocId(0), vec![second, first]);
        let r = Recovered::from_spans(&c, &spans);
        assert_eq!(r.recovered_cuts, vec![(DocId(0), 16)]);
        assert_eq!(r.seen(), 2);
        // The rest is covered by inferred chunks, each trimmed of white space.
        let inferred: Vec<&str> = r
            .chunks
            .iter()
            .filter(|c| !c.seen)
            .map(|c| &text[c.span.start..c.span.end])
            .collect();
        assert!(!inferred.is_empty());
        let words: Vec<&str> = inferred.iter().flat_map(|t| t.split_whitespace()).collect();
        assert_eq!(
            words,
            ["seven", "eight", "nine.", "ten", "eleven", "twelve."]
        );
        let covered: usize = r
            .chunks
            .iter()
            .map(|c| text[c.span.start..c.span.end].split_whitespace().count())
            .sum();
        assert_eq!(
            covered,
            text.split_whitespace().count(),
            "every word is in a chunk"
        );
    }

    #[test]
    fn a_nested_span_is_dropped_and_the_outer_kept() {
        let text = "alpha beta gamma delta";
        let c = corpus(text);
        let mut spans = HashMap::new();
        spans.insert(DocId(0), vec![Span::new(0, 22), Span::new(6, 10)]);
        let r = Recovered::from_spans(&c, &spans);
        assert_eq!(r.nested_dropped, 1);
        assert_eq!(r.chunks.len(), 1);
    }
}
