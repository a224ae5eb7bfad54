//! Evidence-length risk: the share of evidence passages of each length that the layout does not
//! hold whole, measured with the map's sampler ([`sample_passages`]: whole sentences, first
//! token drawn uniformly over the corpus), beside the white paper's geometric model L ÷ C
//! (evidence of L tokens at a random place in text cut every C tokens).

use serde::{Deserialize, Serialize};

use super::{DoctorOptions, Example, Finding, FindingKind, Location, excerpt};
use crate::calibrate::passage::{Passage, PassageOptions, sample_passages};
use crate::corpus::{Corpus, Span};
use crate::eval::metrics::{SpanClass, span_class};
use crate::layout::Layout;

/// Passages drawn per length by default.
pub const DEFAULT_PASSAGES: usize = 300;
/// The evidence lengths measured by default, in tokens.
pub const DEFAULT_LENGTHS: [usize; 3] = [100, 200, 400];

/// One evidence length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthRisk {
    /// The target length, in tokens (passages grow a sentence at a time to reach it).
    pub target: usize,
    /// Passages drawn and kept.
    pub passages: usize,
    /// Their mean length, in tokens: the model's L.
    pub mean_tokens: f64,
    /// Passages no one chunk holds.
    pub split: usize,
    /// `split / passages`.
    pub share: f64,
    /// The paper's model, L ÷ C (at most 1).
    pub predicted: f64,
}

/// The table of evidence lengths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceRisk {
    /// Mean chunk length, in tokens: the model's C.
    pub chunk_tokens: f64,
    /// One row per length, shortest first.
    pub lengths: Vec<LengthRisk>,
}

/// A drawn passage that no chunk holds whole, with its length target and how evenly it is cut.
struct SplitPassage {
    target: usize,
    doc: crate::corpus::DocId,
    span: Span,
    tokens: usize,
    cut: Option<usize>,
    smaller_side: usize,
}

/// The evidence-length table (per target length: passages drawn, their mean length, how many
/// a cut splits, how many the mean chunk predicts), and the split passages themselves.
fn measure(
    corpus: &Corpus,
    layout: &Layout,
    options: &DoctorOptions,
) -> (EvidenceRisk, Vec<SplitPassage>) {
    let chunk_tokens = if layout.chunks.is_empty() {
        0.0
    } else {
        layout
            .chunks
            .iter()
            .map(|c| f64::from(c.tokens))
            .sum::<f64>()
            / layout.chunks.len() as f64
    };
    let mut lengths = Vec::new();
    let mut split_passages = Vec::new();
    for &target in &options.lengths {
        let drawn = sample_passages(
            corpus,
            layout,
            &PassageOptions {
                count: options.passages,
                min_tokens: target,
                max_tokens: target,
                seed: options.seed ^ (target as u64) << 20,
            },
        );
        let mut split = 0;
        for p in &drawn.passages {
            if let Some(passage) = split_passage(layout, p, target) {
                split += 1;
                split_passages.push(passage);
            }
        }
        let n = drawn.passages.len();
        let mean = if n == 0 {
            0.0
        } else {
            drawn.passages.iter().map(|p| p.tokens as f64).sum::<f64>() / n as f64
        };
        lengths.push(LengthRisk {
            target,
            passages: n,
            mean_tokens: mean,
            split,
            share: super::ratio(split, n),
            predicted: if chunk_tokens > 0.0 {
                (mean / chunk_tokens).min(1.0)
            } else {
                0.0
            },
        });
    }
    (
        EvidenceRisk {
            chunk_tokens,
            lengths,
        },
        split_passages,
    )
}

/// Passage `p` (drawn for length `target`) when no chunk holds it whole: where the first cut
/// inside it falls and how many tokens its smaller side holds.
fn split_passage(layout: &Layout, p: &Passage, target: usize) -> Option<SplitPassage> {
    let chunks: Vec<Span> = layout
        .chunks
        .iter()
        .filter(|c| c.doc == p.doc)
        .map(|c| c.span)
        .collect();
    if span_class(p.span, &chunks) == SpanClass::Whole {
        return None;
    }
    let offs = &layout.offsets[p.doc.0 as usize];
    let cut = chunks
        .iter()
        .map(|c| c.start)
        .find(|&s| p.span.start < s && s < p.span.end);
    let smaller_side = cut.map_or(0, |c| {
        offs.count_in(p.span.start, c)
            .min(offs.count_in(c, p.span.end))
    });
    Some(SplitPassage {
        target,
        doc: p.doc,
        span: p.span,
        tokens: p.tokens,
        cut,
        smaller_side,
    })
}

/// Measure the evidence-length table and the finding it makes: split passages over all
/// lengths, the longest length's most evenly cut first.
pub fn measured_finding(
    corpus: &Corpus,
    layout: &Layout,
    options: &DoctorOptions,
) -> (EvidenceRisk, Finding) {
    let (risk, splits) = measure(corpus, layout, options);
    let rows: Vec<String> = risk
        .lengths
        .iter()
        .map(|l| {
            format!(
                "{}: {:.0}% measured vs {:.0}% by L ÷ C",
                l.target,
                l.share * 100.0,
                l.predicted * 100.0
            )
        })
        .collect();
    let targets: Vec<String> = risk.lengths.iter().map(|l| l.target.to_string()).collect();
    let method = format!(
        "passages of whole sentences of about {} tokens, first token drawn uniformly over the corpus (the evidence map's sampler), that no one chunk holds; C = {:.0} tokens (mean chunk); {}; worst: the longest, most evenly cut",
        targets.join(" / "),
        risk.chunk_tokens,
        rows.join(", ")
    );
    let cases: Vec<Example> = splits
        .iter()
        .map(|s| Example {
            location: Location::of(corpus, s.doc, s.span, s.cut),
            detail: format!(
                "a {}-token passage (target {}) cut with {} tokens on its smaller side",
                s.tokens, s.target, s.smaller_side
            ),
            excerpt: excerpt(corpus, s.doc, s.span),
            severity: (s.target * 1_000_000 + s.smaller_side) as f64,
        })
        .collect();
    let drawn: usize = risk.lengths.iter().map(|l| l.passages).sum();
    let mut f = Finding::new(FindingKind::EvidenceSplit, drawn, "passages", method, cases);
    // The same passage drawn at two lengths is two cases: count what the table counts.
    f.count = risk.lengths.iter().map(|l| l.split).sum();
    f.share = super::ratio(f.count, drawn);
    (risk, f)
}
