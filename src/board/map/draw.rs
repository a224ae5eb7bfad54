//! One band's passages: drawn uniformly over the corpus, only those of the band's length kept,
//! each asked as every kind of question the map compares.

use super::kinds::{QuestionKind, question_of};
use crate::calibrate::QuestionGenerator;
use crate::calibrate::passage::{PassageOptions, PassageSet, sample_passages};
use crate::corpus::Corpus;
use crate::eval::questions::Question;
use crate::layout::Layout;

/// Draws made per passage a band asks for, at first: a draw whose passage is not of the band's
/// length (the document ends first, or its last sentence runs past the band) is left out.
pub const DRAWS_PER_PASSAGE: usize = 4;
/// Draws per passage asked, at most: a band still short after this many says why.
pub const MAX_DRAWS_PER_PASSAGE: usize = 64;

/// One passage of a band, with its question of each kind (in the map's kind order).
pub(super) struct DrawnPassage {
    /// One question per kind asked.
    pub questions: Vec<Question>,
    /// A cut of the layout falls inside it.
    pub split: bool,
    /// Its length in tokens.
    pub tokens: usize,
}

/// One band's draw: its passages and what was left out.
pub(super) struct BandDraw {
    /// The band's passages (at most the number asked).
    pub passages: Vec<DrawnPassage>,
    /// Draws made.
    pub draws: usize,
    /// Distinct passages shorter than the band (their document ends first).
    pub shorter: usize,
    /// Passages running past the band.
    pub longer: usize,
    /// Draws that repeated a passage already drawn.
    pub repeats: usize,
    /// The longest shorter passage, in tokens.
    pub longest_shorter: usize,
    /// Passages of the band's length that yielded no question of some kind.
    pub no_question: usize,
}

/// Whether a cut of `layout` falls strictly inside `span` of `doc`.
pub(super) fn split_by_cut(
    layout: &Layout,
    doc: crate::corpus::DocId,
    span: crate::corpus::Span,
) -> bool {
    layout
        .chunks
        .iter()
        .any(|c| c.doc == doc && c.span.start > span.start && c.span.start < span.end)
}

/// The passages of one band (`lo` up to, not including, `hi` tokens), at most `per_band`, each
/// asked as every kind of `kinds`. The draw starts at [`DRAWS_PER_PASSAGE`] × `per_band` and
/// grows fourfold up to [`MAX_DRAWS_PER_PASSAGE`] × while the band is short; draws are seeded by
/// index, so a larger draw keeps every passage of a smaller one.
pub(super) fn band_passages(
    corpus: &Corpus,
    layout: &Layout,
    band: (usize, usize),
    per_band: usize,
    seed: u64,
    kinds: &[QuestionKind],
    mut generator: Option<&mut (dyn QuestionGenerator + '_)>,
) -> BandDraw {
    let (lo, hi) = band;
    let (options, drawn) = draw_band(corpus, layout, band, per_band, seed);
    let mut out = BandDraw {
        passages: Vec::new(),
        draws: options.count,
        shorter: 0,
        longer: drawn.too_long,
        repeats: drawn.repeats,
        longest_shorter: 0,
        no_question: 0,
    };
    for (i, p) in drawn.passages.iter().enumerate() {
        if p.tokens < lo {
            out.shorter += 1;
            out.longest_shorter = out.longest_shorter.max(p.tokens);
            continue;
        }
        if p.tokens >= hi {
            out.longer += 1;
            continue;
        }
        // The draw is seeded and taken in order, so the band is the same whatever was left out.
        if out.passages.len() == per_band {
            continue;
        }
        let text = corpus.doc(p.doc).slice(p.span);
        let split = split_by_cut(layout, p.doc, p.span);
        let mut questions = Vec::with_capacity(kinds.len());
        for &kind in kinds {
            let q_seed = seed.wrapping_add(i as u64);
            let Some(question) = question_of(kind, text, q_seed, generator.as_deref_mut()) else {
                break;
            };
            questions.push(Question {
                id: format!("map-{lo}-{hi}-{i}-{}", kind.name()),
                question,
                doc: p.doc,
                spans: vec![p.span],
                tags: if split {
                    vec!["map".into(), "split".into()]
                } else {
                    vec!["map".into()]
                },
            });
        }
        // Every kind is asked about the same passages, or the kinds are not compared fairly.
        if questions.len() < kinds.len() {
            out.no_question += 1;
            continue;
        }
        out.passages.push(DrawnPassage {
            questions,
            split,
            tokens: p.tokens,
        });
    }
    out
}

/// The draw of band `lo..hi`: [`DRAWS_PER_PASSAGE`] × `per_band` passages, four times as many
/// while fewer than `per_band` fit the band, up to [`MAX_DRAWS_PER_PASSAGE`] ×; the options of
/// the last draw and what it drew.
fn draw_band(
    corpus: &Corpus,
    layout: &Layout,
    (lo, hi): (usize, usize),
    per_band: usize,
    seed: u64,
) -> (PassageOptions, PassageSet) {
    let mut per = DRAWS_PER_PASSAGE;
    loop {
        let options = PassageOptions {
            count: per_band.saturating_mul(per),
            min_tokens: lo,
            max_tokens: hi.saturating_sub(1).max(lo),
            seed: seed ^ (lo as u64) << 20 ^ hi as u64,
        };
        let drawn = sample_passages(corpus, layout, &options);
        let fitting = drawn
            .passages
            .iter()
            .filter(|p| p.tokens >= lo && p.tokens < hi)
            .count();
        if fitting >= per_band || per >= MAX_DRAWS_PER_PASSAGE {
            break (options, drawn);
        }
        per = (per * 4).min(MAX_DRAWS_PER_PASSAGE);
    }
}

impl BandDraw {
    /// Why the band holds `got` passages, fewer than `per_band`, in words (`None` when it is full or
    /// empty: an empty band says why elsewhere).
    pub(super) fn why_short(&self, per_band: usize, got: usize) -> Option<String> {
        if got >= per_band || got == 0 {
            return None;
        }
        let mut why = Vec::new();
        if self.repeats > 0 {
            why.push(format!(
                "{} draws landed on a passage already drawn",
                self.repeats
            ));
        }
        if self.shorter > 0 {
            why.push(format!(
                "{} passages were shorter (their document ends first; the longest had {} tokens)",
                self.shorter, self.longest_shorter
            ));
        }
        if self.longer > 0 {
            why.push(format!("{} ran past the band", self.longer));
        }
        if self.no_question > 0 {
            why.push(format!(
                "{} had no content word to ask about",
                self.no_question
            ));
        }
        Some(format!(
            "{got} of {per_band}: the corpus offered only {got} distinct passages of this length in {} draws ({})",
            self.draws,
            why.join(", ")
        ))
    }
}
