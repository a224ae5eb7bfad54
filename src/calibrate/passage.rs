//! Evidence passages drawn the way questions fall on a real corpus.
//!
//! A real question's evidence is usually a few sentences, and it lands wherever the reader's
//! interest does, with no regard for where the chunker cut. So, without gold questions, the
//! measured objective asks about passages of whole sentences, about 100–400 tokens long, whose
//! first token is drawn uniformly over every token of the corpus. The share of passages that a
//! cut splits is then the corpus' own for evidence of that length, rather than a share chosen by
//! the sampler (the head-start samples, by contrast, pick crossing and unsplit sentences half and
//! half, which is right for histograms and wrong for a failure rate).
//!
//! Each draw `i` hashes the seed and `i` into a start token and a target length. The passage
//! starts at the sentence holding that token and grows a sentence at a time until it has the
//! target length (at the end of a document it grows backwards instead). A passage longer than
//! [`PassageOptions::max_tokens`] × 1.5 (one huge "sentence", such as a code block) is left out
//! and counted; so is a repeat of a passage already drawn.

use serde::{Deserialize, Serialize};

use super::sample::sentences;
use crate::corpus::{Corpus, DocId, Span};
use crate::layout::Layout;

/// Default number of passages drawn.
pub const DEFAULT_PASSAGES: usize = 200;

/// Passages a calibration may draw.
pub const PASSAGES_RANGE: std::ops::RangeInclusive<usize> = 1..=100_000;
/// Default shortest passage, in tokens.
pub const DEFAULT_MIN_TOKENS: usize = 100;
/// Default longest passage, in tokens.
pub const DEFAULT_MAX_TOKENS: usize = 400;

/// How passages are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassageOptions {
    /// Passages drawn (fewer come back when draws repeat or run too long).
    pub count: usize,
    /// Shortest target length, in tokens.
    pub min_tokens: usize,
    /// Longest target length, in tokens.
    pub max_tokens: usize,
    /// Seed of the deterministic draw.
    pub seed: u64,
}

impl Default for PassageOptions {
    fn default() -> Self {
        Self {
            count: DEFAULT_PASSAGES,
            min_tokens: DEFAULT_MIN_TOKENS,
            max_tokens: DEFAULT_MAX_TOKENS,
            seed: 0,
        }
    }
}

/// One drawn passage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passage {
    /// The document.
    pub doc: DocId,
    /// Its byte span: whole sentences.
    pub span: Span,
    /// Its length in the model's tokens.
    pub tokens: usize,
}

/// The draw, with what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassageSet {
    /// Passages in draw order.
    pub passages: Vec<Passage>,
    /// Draws that repeated an earlier passage.
    pub repeats: usize,
    /// Draws whose passage ran past 1.5 × the longest target (one very long sentence).
    pub too_long: usize,
}

/// Two numbers from the seed and the draw index.
fn draw(seed: u64, i: usize) -> (u64, u64) {
    let mut h = blake3::Hasher::new();
    h.update(b"passage");
    h.update(&seed.to_le_bytes());
    h.update(&(i as u64).to_le_bytes());
    let bytes = h.finalize();
    let b = bytes.as_bytes();
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        u64::from_le_bytes(w)
    };
    (word(0), word(8))
}

/// Draw passages over `corpus` with the token offsets of `layout`.
pub fn sample_passages(corpus: &Corpus, layout: &Layout, options: &PassageOptions) -> PassageSet {
    let max = options.max_tokens.max(options.min_tokens).max(1);
    let min = options.min_tokens.min(max);
    let docs: Vec<(DocId, Vec<Span>)> = corpus
        .documents
        .iter()
        .map(|d| (d.id, sentences(&d.text)))
        .collect();
    // Cumulative token counts, so a corpus-wide token index finds its document.
    let mut ends = Vec::with_capacity(docs.len());
    let mut total = 0usize;
    for offs in &layout.offsets {
        total += offs.len();
        ends.push(total);
    }
    let mut set = PassageSet::default();
    if total == 0 {
        return set;
    }
    for i in 0..options.count {
        let (a, b) = draw(options.seed, i);
        let token = (a % total as u64) as usize;
        let target = min + (b % (max - min + 1) as u64) as usize;
        let d = ends.partition_point(|&e| e <= token);
        let local = token - if d == 0 { 0 } else { ends[d - 1] };
        let offs = &layout.offsets[d];
        let sents = &docs[d].1;
        if sents.is_empty() {
            continue;
        }
        let byte = offs.starts[local];
        let first = sents
            .partition_point(|s| s.end <= byte)
            .min(sents.len() - 1);
        let (mut lo, mut hi) = (first, first);
        let count = |lo: usize, hi: usize| offs.count_in(sents[lo].start, sents[hi].end);
        while count(lo, hi) < target && hi + 1 < sents.len() {
            hi += 1;
        }
        while count(lo, hi) < target && lo > 0 {
            lo -= 1;
        }
        let span = Span::new(sents[lo].start, sents[hi].end);
        let tokens = count(lo, hi);
        if tokens * 2 > max * 3 {
            set.too_long += 1;
            continue;
        }
        if set
            .passages
            .iter()
            .any(|p| p.doc == docs[d].0 && p.span == span)
        {
            set.repeats += 1;
            continue;
        }
        set.passages.push(Passage {
            doc: docs[d].0,
            span,
            tokens,
        });
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::fixed::FixedTokens;
    use crate::tokens::TokenOffsets;

    fn layout(corpus: &Corpus, chunk: usize) -> Layout {
        let offsets: Vec<TokenOffsets> = corpus
            .documents
            .iter()
            .map(|d| TokenOffsets::of_words(&d.text))
            .collect();
        let chunks = crate::chunk::chunk_corpus(corpus, &offsets, &FixedTokens { tokens: chunk });
        let seams = crate::seam::build_seams(corpus, &offsets, &chunks, 4);
        Layout {
            offsets,
            chunks,
            seams,
            chunker: format!("fixed-{chunk}"),
            k: 4,
            search: Default::default(),
            timings: Default::default(),
            given: None,
            store: Default::default(),
        }
    }

    fn prose(sentences: usize, words: usize, tag: &str) -> String {
        (0..sentences)
            .map(|s| {
                // A capital after the full stop, or UAX #29 does not end the sentence there.
                let body: Vec<String> = (0..words)
                    .map(|w| match w {
                        0 => format!("{}{s}w{w}", tag.to_uppercase()),
                        _ => format!("{tag}{s}w{w}"),
                    })
                    .collect();
                format!("{}.", body.join(" "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn passages_are_whole_sentences_of_the_target_length_and_deterministic() {
        let corpus =
            Corpus::from_texts([("a.md", prose(60, 10, "a")), ("b.md", prose(30, 10, "b"))]);
        let lay = layout(&corpus, 50);
        let options = PassageOptions {
            count: 40,
            min_tokens: 20,
            max_tokens: 40,
            seed: 7,
        };
        let set = sample_passages(&corpus, &lay, &options);
        assert!(set.passages.len() + set.repeats + set.too_long == 40);
        assert!(set.passages.len() >= 30, "{set:?}");
        for p in &set.passages {
            let text = corpus.doc(p.doc).slice(p.span);
            assert!(text.ends_with('.'), "{text}");
            // Sentences of 10 words: the passage stops at the first sentence edge past the target.
            assert!((20..=50).contains(&p.tokens), "{p:?}");
        }
        // Both documents are drawn, roughly in proportion to their length.
        let in_b = set.passages.iter().filter(|p| p.doc == DocId(1)).count();
        assert!(in_b > 0 && in_b < set.passages.len() / 2 + 5, "{in_b}");
        assert_eq!(sample_passages(&corpus, &lay, &options), set);
        let other = sample_passages(&corpus, &lay, &PassageOptions { seed: 8, ..options });
        assert_ne!(other, set);
    }

    #[test]
    fn the_crossing_share_is_the_corpus_own() {
        // 30-token passages over 50-token chunks: about 30/50 of uniform starts cross a cut,
        // far from the sampler's choice; 300-token chunks make it rare.
        let corpus = Corpus::from_texts([("a.md", prose(400, 10, "a"))]);
        let share = |chunk: usize| {
            let lay = layout(&corpus, chunk);
            let set = sample_passages(
                &corpus,
                &lay,
                &PassageOptions {
                    count: 300,
                    min_tokens: 30,
                    max_tokens: 30,
                    seed: 1,
                },
            );
            let crossing = set
                .passages
                .iter()
                .filter(|p| {
                    lay.seams
                        .iter()
                        .any(|s| p.span.start < s.cut && s.cut < p.span.end)
                })
                .count();
            crossing as f64 / set.passages.len() as f64
        };
        let (small, large) = (share(50), share(300));
        assert!(small > 0.4 && small < 0.9, "{small}");
        assert!(large < 0.25, "{large}");
    }

    #[test]
    fn a_passage_at_the_end_of_a_document_grows_backwards_and_huge_sentences_are_left_out() {
        let corpus = Corpus::from_texts([("a.md", prose(5, 10, "a"))]);
        let lay = layout(&corpus, 20);
        let set = sample_passages(
            &corpus,
            &lay,
            &PassageOptions {
                count: 20,
                min_tokens: 30,
                max_tokens: 30,
                seed: 3,
            },
        );
        assert!(set.passages.iter().all(|p| p.tokens >= 30), "{set:?}");
        let one_sentence: String = (0..200).map(|w| format!("x{w} ")).collect();
        let corpus = Corpus::from_texts([("a.md", one_sentence)]);
        let lay = layout(&corpus, 50);
        let options = PassageOptions {
            count: 20,
            min_tokens: 50,
            max_tokens: 100,
            seed: 0,
        };
        let set = sample_passages(&corpus, &lay, &options);
        assert!(set.passages.is_empty());
        assert_eq!(set.too_long, 20);
    }
}
