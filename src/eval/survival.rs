//! The atom meter: how many atoms a Markdown corpus holds, how long they are, and what share of
//! each class every chunker keeps whole at one chunk budget.
//!
//! Pure layout work: the model's tokenizer counts tokens, nothing is embedded.

use serde::Serialize;

use crate::chunk::atoms::{Atom, AtomClass, find_atoms, holder, kept_whole};
use crate::chunk::{Chunk, ChunkerKind, chunk_corpus};
use crate::corpus::{Corpus, DocKind, Span};
use crate::tokens::{TokenCounter, TokenOffsets, TokenizerError};

/// Length figures of one atom class, in tokens. Percentiles interpolate linearly between the
/// two nearest ranks (as numpy's default does); all are 0 when the class is absent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtomLengths {
    /// The class.
    pub class: AtomClass,
    /// Atoms found.
    pub count: usize,
    /// Median length.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Longest.
    pub max: usize,
    /// Atoms longer than the chunk budget: no chunker can keep these whole.
    pub over_budget: usize,
}

/// One class's survival under one chunker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassSurvival {
    /// The class.
    pub class: AtomClass,
    /// Atoms of the class.
    pub atoms: usize,
    /// Of those, kept whole.
    pub whole: usize,
    /// Atoms that fit the budget.
    pub fitting: usize,
    /// Of those, kept whole.
    pub fitting_whole: usize,
}

impl ClassSurvival {
    /// Share of all atoms kept whole (1 when there are none).
    pub fn share(&self) -> f64 {
        ratio(self.whole, self.atoms)
    }

    /// Share of atoms that fit the budget kept whole (1 when there are none).
    pub fn fitting_share(&self) -> f64 {
        ratio(self.fitting_whole, self.fitting)
    }
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    }
}

/// What one chunker does to the atoms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChunkerSurvival {
    /// Which chunker.
    pub kind: ChunkerKind,
    /// Its name, e.g. `structure-1024`.
    pub chunker: String,
    /// Chunks over the whole corpus.
    pub chunks: usize,
    /// Mean tokens per chunk.
    pub mean_tokens: f64,
    /// Survival per class, in [`AtomClass::ALL`] order.
    pub classes: Vec<ClassSurvival>,
    /// Table rows whose chunk does not hold their table's header row.
    pub rows_without_header: usize,
    /// Whether those rows get the header repeated in their search text.
    pub header_repeated: bool,
}

/// The whole atom meter for one corpus at one budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtomReport {
    /// Documents in the corpus.
    pub documents: usize,
    /// Of those, Markdown (the only ones with atoms).
    pub markdown_documents: usize,
    /// Tokens over all documents.
    pub tokens: usize,
    /// The chunk budget in tokens.
    pub budget: usize,
    /// Fenced blocks never closed (they run to the end of their document).
    pub unterminated_fences: usize,
    /// Lengths per class, in [`AtomClass::ALL`] order.
    pub lengths: Vec<AtomLengths>,
    /// Survival per chunker, in the order asked.
    pub chunkers: Vec<ChunkerSurvival>,
}

/// Measure `corpus`: find its atoms, then cut it with each of `kinds` at `budget` tokens.
pub fn atom_report(
    corpus: &Corpus,
    tokenizer: &TokenCounter,
    kinds: &[ChunkerKind],
    budget: usize,
) -> Result<AtomReport, TokenizerError> {
    let offsets = corpus
        .documents
        .iter()
        .map(|d| tokenizer.offsets(&d.text))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(report_from_offsets(corpus, &offsets, kinds, budget))
}

/// [`atom_report`] with token offsets already computed (`offsets[i]` for document `i`).
pub fn report_from_offsets(
    corpus: &Corpus,
    offsets: &[TokenOffsets],
    kinds: &[ChunkerKind],
    budget: usize,
) -> AtomReport {
    let atoms: Vec<Vec<Atom>> = corpus.documents.iter().map(find_atoms).collect();
    let tokens_of = |doc: usize, s: Span| offsets[doc].count_in(s.start, s.end);
    let lengths = AtomClass::ALL
        .iter()
        .map(|&class| {
            let mut lens: Vec<usize> = atoms
                .iter()
                .enumerate()
                .flat_map(|(d, list)| {
                    list.iter()
                        .filter(move |a| a.class == class)
                        .map(move |a| tokens_of(d, a.span))
                })
                .collect();
            lens.sort_unstable();
            AtomLengths {
                class,
                count: lens.len(),
                p50: percentile(&lens, 50.0),
                p90: percentile(&lens, 90.0),
                p99: percentile(&lens, 99.0),
                max: lens.last().copied().unwrap_or(0),
                over_budget: lens.iter().filter(|&&l| l > budget).count(),
            }
        })
        .collect();
    let chunkers = kinds
        .iter()
        .map(|&kind| {
            let chunker = kind.build(budget);
            let chunks = chunk_corpus(corpus, offsets, chunker.as_ref());
            let mut s = survival(corpus, offsets, &atoms, &chunks, budget);
            s.kind = kind;
            s.chunker = chunker.name();
            s.header_repeated = chunker.repeats_table_header();
            s
        })
        .collect();
    AtomReport {
        documents: corpus.documents.len(),
        markdown_documents: corpus
            .documents
            .iter()
            .filter(|d| d.kind == DocKind::Markdown)
            .count(),
        tokens: offsets.iter().map(TokenOffsets::len).sum(),
        budget,
        unterminated_fences: corpus
            .documents
            .iter()
            .filter(|d| d.kind == DocKind::Markdown)
            .map(|d| {
                crate::chunk::markdown::outline(&d.text, crate::chunk::markdown::Dialect::Markdown)
                    .fences
                    .iter()
                    .filter(|f| !f.closed)
                    .count()
            })
            .sum(),
        lengths,
        chunkers,
    }
}

/// Survival of `atoms` (per document) under `chunks` (in document order, as `chunk_corpus` makes
/// them). The chunker's kind and name are left at their defaults for the caller to fill in.
pub fn survival(
    corpus: &Corpus,
    offsets: &[TokenOffsets],
    atoms: &[Vec<Atom>],
    chunks: &[Chunk],
    budget: usize,
) -> ChunkerSurvival {
    let mut classes: Vec<ClassSurvival> = AtomClass::ALL
        .iter()
        .map(|&class| ClassSurvival {
            class,
            atoms: 0,
            whole: 0,
            fitting: 0,
            fitting_whole: 0,
        })
        .collect();
    let mut rows_without_header = 0;
    for (d, doc) in corpus.documents.iter().enumerate() {
        let spans: Vec<Span> = chunks
            .iter()
            .filter(|c| c.doc == doc.id)
            .map(|c| c.span)
            .collect();
        for a in &atoms[d] {
            let whole = kept_whole(a.span, &spans);
            let fits = offsets[d].count_in(a.span.start, a.span.end) <= budget;
            if let Some(c) = classes.iter_mut().find(|c| c.class == a.class) {
                c.atoms += 1;
                c.whole += usize::from(whole);
                c.fitting += usize::from(fits);
                c.fitting_whole += usize::from(fits && whole);
            }
            if let Some(header) = a.header
                && !holder(a.span.start, &spans).is_some_and(|c| c.contains(&header))
            {
                rows_without_header += 1;
            }
        }
    }
    let total: usize = chunks.iter().map(|c| c.tokens as usize).sum();
    ChunkerSurvival {
        kind: ChunkerKind::default(),
        chunker: String::new(),
        chunks: chunks.len(),
        mean_tokens: total as f64 / chunks.len().max(1) as f64,
        classes,
        rows_without_header,
        header_repeated: false,
    }
}

/// The `q`-th percentile (0 to 100) of ascending `sorted`, interpolating between ranks.
pub fn percentile(sorted: &[usize], q: f64) -> f64 {
    let Some(&last) = sorted.last() else {
        return 0.0;
    };
    let rank = (sorted.len() - 1) as f64 * q.clamp(0.0, 100.0) / 100.0;
    let lo = rank.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let (a, b) = (sorted[lo] as f64, sorted[hi] as f64);
    if lo >= sorted.len() - 1 {
        return last as f64;
    }
    a + (b - a) * (rank - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate() {
        let v = [1, 2, 3, 4, 10];
        assert_eq!(percentile(&v, 50.0), 3.0);
        assert!((percentile(&v, 90.0) - 7.6).abs() < 1e-9);
        assert_eq!(percentile(&v, 100.0), 10.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!(percentile(&[7], 99.0), 7.0);
    }
}
