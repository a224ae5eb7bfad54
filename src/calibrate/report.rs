//! The calibration report: plain data that the CLI prints, `--json` writes and a TUI view draws.
//!
//! Everything a screen needs is here already computed: the measured failure-vs-m curve with its
//! intervals, the recommended `m` and the verdict on Seams' benefit, and, as diagnostics, both
//! head-start distributions with their percentiles, histogram bins shared by both, the white
//! paper's rule with its working range, warnings with their text, the rules in words, and every
//! sample with its question. A front end formats; it computes nothing.

use serde::{Deserialize, Serialize};

use super::measure::HeadStart;
use super::objective::MarginCurve;
use super::recommend::{FEW_SAMPLES, OVERLAP_RULE, PaperRule, RULE, judge};
use super::sample::SampleKind;
use super::stats::{Bin, BinSpec, Spread};
use super::verdict::measured_warnings;
pub use super::verdict::{
    BENEFIT_RULE, FEW_QUESTIONS, Measured, PassageRecord, PassageSummary, RECOMMENDATION_RULE,
    Verdict,
};
pub use super::warning::{CalibrationWarning, WarningKind};

/// Share of a kind's questions whose answer chunk was absent above which the report warns.
pub const ABSENT_WARN_SHARE: f64 = 0.25;

/// What the calibration ran on and with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationSetup {
    /// The corpus folder or file.
    pub corpus: String,
    /// The embedder whose rankings were measured (its identity); a margin belongs to the model
    /// that ranked. Absent in reports written before it was recorded.
    #[serde(default)]
    pub embedder: Option<String>,
    /// The chunker's name, e.g. `fixed-1024`.
    pub chunker: String,
    /// Seam half-width in tokens.
    pub k: usize,
    /// Hits taken from each search list.
    pub depth: usize,
    /// The RRF constant.
    pub rrf_c: f64,
    /// The final budget every candidate margin was scored at, in chunks.
    pub budget: usize,
    /// What the measured objective ran on, in words.
    pub objective_source: String,
    /// Sentences asked for per kind.
    pub samples_per_kind: usize,
    /// Seed of the draw.
    pub seed: u64,
    /// Fewest words a sampled sentence has.
    pub min_words: usize,
    /// The question generator's name.
    pub generator: String,
    /// What the generator does and cannot do, in its own words.
    pub generator_description: String,
}

/// One sampled sentence and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Unsplit or crossing.
    pub kind: SampleKind,
    /// The document's path.
    pub doc: String,
    /// The sentence's first byte.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// The seam whose window holds it.
    pub seam: u32,
    /// The seam's linked chunks, left then right.
    pub seam_chunks: (u32, u32),
    /// The chunk holding the sentence (unsplit only).
    pub holder: Option<u32>,
    /// The sentence as written.
    pub sentence: String,
    /// The generated question, when there was one.
    pub question: Option<String>,
    /// The head start, when the question was run.
    pub head_start: Option<HeadStart>,
    /// Why the sentence got no question, when it did not.
    pub skipped: Option<String>,
}

/// One kind's sample, measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Which kind.
    pub kind: SampleKind,
    /// Prose sentences of this kind that qualified.
    pub candidates: usize,
    /// Sentences drawn.
    pub drawn: usize,
    /// Sentences whose question was run.
    pub measured: usize,
    /// Sentences that got no question.
    pub skipped: usize,
    /// Head starts, in sample order.
    pub head_starts: Vec<i64>,
    /// Percentiles and extremes; `None` when nothing was measured.
    pub spread: Option<Spread>,
    /// Questions whose compared chunk was absent from the fused list (counted as `len + 1`).
    pub chunk_absent: usize,
    /// Questions whose seam was absent from the fused list (counted as `len + 1`; it cannot fire).
    pub seam_absent: usize,
}

impl Distribution {
    fn of(kind: SampleKind, candidates: usize, records: &[SampleRecord]) -> Distribution {
        let mine: Vec<&SampleRecord> = records.iter().filter(|r| r.kind == kind).collect();
        let heads: Vec<HeadStart> = mine.iter().filter_map(|r| r.head_start).collect();
        let head_starts: Vec<i64> = heads.iter().map(|h| h.value).collect();
        Distribution {
            kind,
            candidates,
            drawn: mine.len(),
            measured: heads.len(),
            skipped: mine.iter().filter(|r| r.skipped.is_some()).count(),
            spread: Spread::of(&head_starts),
            chunk_absent: heads.iter().filter(|h| h.chunk_absent).count(),
            seam_absent: heads.iter().filter(|h| h.seam_absent).count(),
            head_starts,
        }
    }
}

/// The rules the numbers follow, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// How a head start is measured.
    pub head_start: String,
    /// How percentiles are taken.
    pub percentile: String,
    /// How `m` is recommended (measured).
    pub recommendation: String,
    /// The white paper's rule, shown as a diagnostic.
    pub paper_rule: String,
    /// When the report says Seams helps, is noise, or does not fit the corpus.
    pub benefit: String,
    /// What the working range is.
    pub working_range: String,
    /// When the overlap warning is given.
    pub overlap: String,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            head_start: "head start = pos(chunk) - pos(seam) in the fused ranking, positions from 1; \
                         unsplit: the chunk that holds the sentence; crossing: the better-ranked of \
                         its two chunks; an entry absent from the fused list counts as last (len + 1)"
                .to_string(),
            percentile: "nearest rank: the p-th percentile of n sorted values is the value at rank \
                         ceil(p*n/100)"
                .to_string(),
            recommendation: RECOMMENDATION_RULE.to_string(),
            paper_rule: RULE.to_string(),
            benefit: BENEFIT_RULE.to_string(),
            working_range: "from the recommended m to the largest m at which at least half of the \
                            crossing sentences still fire"
                .to_string(),
            overlap: OVERLAP_RULE.to_string(),
        }
    }
}

/// The whole calibration, ready to show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationReport {
    /// What ran, on what.
    pub setup: CalibrationSetup,
    /// The measured recommendation and the verdict on Seams' benefit.
    pub verdict: Verdict,
    /// The failure-vs-m curve it comes from, with intervals, and "Seams off".
    pub objective: MarginCurve,
    /// When Seams fails fewer questions than chunks only: whether a strategy without Seams (the
    /// quick board's other families, scored on the same questions) does as well, and at what
    /// cost. `None` when it was not run (Seams does not fail less, or it was skipped).
    #[serde(default)]
    pub alternatives: Option<super::alternative::Alternatives>,
    /// The passage draw behind the curve (absent when a gold question set was used).
    pub passages: Option<PassageSummary>,
    /// Sentences inside one chunk, inside its seam window (head-start diagnostic).
    pub unsplit: Distribution,
    /// Sentences across a cut.
    pub crossing: Distribution,
    /// The shape of the shared histogram bins; `None` when nothing was measured.
    pub bins: Option<BinSpec>,
    /// Histogram bars, lowest head start first, with counts of both kinds.
    pub histogram: Vec<Bin>,
    /// The white paper's rule (a diagnostic): its `m`, the working range and the overlap check.
    pub paper_rule: PaperRule,
    /// Everything the user should be told, most serious first.
    pub warnings: Vec<CalibrationWarning>,
    /// The rules behind the numbers.
    pub rules: Rules,
    /// Every sampled sentence, unsplit first, in document order.
    pub samples: Vec<SampleRecord>,
    /// Every sampled passage, in draw order.
    pub passage_samples: Vec<PassageRecord>,
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

impl CalibrationReport {
    /// Assemble the report from the measured curve and the head-start samples (`candidates` =
    /// qualifying sentences per kind: unsplit, crossing).
    pub fn build(
        setup: CalibrationSetup,
        candidates: (usize, usize),
        samples: Vec<SampleRecord>,
        measured: Measured,
    ) -> CalibrationReport {
        let unsplit = Distribution::of(SampleKind::Unsplit, candidates.0, &samples);
        let crossing = Distribution::of(SampleKind::Crossing, candidates.1, &samples);
        let paper_rule = judge(&unsplit.head_starts, &crossing.head_starts);
        let verdict = Verdict::of(&measured.curve, &paper_rule);
        let mut marks = vec![0, 1];
        marks.extend(paper_rule.recommended_m.map(i64::from));
        marks.extend(verdict.recommended_m.map(i64::from));
        let all: Vec<i64> = unsplit
            .head_starts
            .iter()
            .chain(&crossing.head_starts)
            .copied()
            .collect();
        let bins = BinSpec::choose(&all, &marks);
        let histogram = bins
            .map(|b| b.histogram(&unsplit.head_starts, &crossing.head_starts))
            .unwrap_or_default();
        let mut warnings = measured_warnings(&measured.curve, &verdict, &setup.generator);
        warnings.extend(warnings_of(
            &setup,
            &unsplit,
            &crossing,
            &paper_rule,
            &samples,
        ));
        CalibrationReport {
            setup,
            verdict,
            objective: measured.curve,
            alternatives: None,
            passages: measured.passages,
            unsplit,
            crossing,
            bins,
            histogram,
            paper_rule,
            warnings,
            rules: Rules::default(),
            samples,
            passage_samples: measured.passage_samples,
        }
    }
}

/// Warnings about one sample's size: too few measured, or too many whose compared chunk the
/// fused ranking (of `depth`) did not hold.
fn sample_warnings(d: &Distribution, depth: usize) -> Vec<(WarningKind, String)> {
    let mut out = Vec::new();
    if d.measured > 0 && d.measured < FEW_SAMPLES {
        out.push((
            WarningKind::FewSamples,
            format!(
                "only {} {} sentences were measured ({} qualified); percentiles from fewer \
                 than {FEW_SAMPLES} are rough",
                d.measured,
                d.kind.label(),
                d.candidates
            ),
        ));
    }
    if d.measured > 0 && d.chunk_absent as f64 > ABSENT_WARN_SHARE * d.measured as f64 {
        out.push((
            WarningKind::AbsentChunks,
            format!(
                "{} of {} {} questions did not find the compared chunk in the fused ranking \
                 (depth {}); it counts as last (len + 1), so those head starts say more about \
                 the questions than about the seams. Try a larger --depth or another question \
                 generator.",
                d.chunk_absent,
                d.measured,
                d.kind.label(),
                depth
            ),
        ));
    }
    out
}

/// Warnings about the head-start diagnostic.
fn warnings_of(
    setup: &CalibrationSetup,
    unsplit: &Distribution,
    crossing: &Distribution,
    verdict: &PaperRule,
    samples: &[SampleRecord],
) -> Vec<CalibrationWarning> {
    let mut out = Vec::new();
    let mut warn = |kind, text: String| out.push(CalibrationWarning { kind, text });
    if verdict.heavy_overlap {
        let m = verdict.recommended_m.unwrap_or(1);
        let fired = verdict.crossing_firing.map(percent).unwrap_or_default();
        let half = verdict.half_firing_margin.unwrap_or_default();
        warn(
            WarningKind::HeavyOverlap,
            format!(
                "diagnostic: the head-start distributions overlap heavily: at the paper rule's \
                 m = {m} only {fired} of the sentences that cross a cut fire their seam, and half \
                 of them fire only up to m = {half}. The white paper reads this as a corpus \
                 outside Seams' setting, but overlap counts fires, not what they do to the \
                 context: the measured curve above decides whether Seams helps here.{}",
                if setup.generator.starts_with("offline") {
                    " Check the questions first: questions that repeat the sentence's words (the \
                     offline generator) favour short seams in both samples alike."
                } else {
                    ""
                }
            ),
        );
    }
    if unsplit.measured == 0 {
        warn(
            WarningKind::NoUnsplit,
            "no unsplit sentence was measured, so the paper's rule gives no m (does the corpus \
             have cuts? try a smaller --chunk-tokens)"
                .to_string(),
        );
    }
    if crossing.measured == 0 {
        warn(
            WarningKind::NoCrossing,
            "no sentence that crosses a cut was measured, so there is no working range and no \
             overlap check"
                .to_string(),
        );
    }
    for d in [unsplit, crossing] {
        for (kind, text) in sample_warnings(d, setup.depth) {
            warn(kind, text);
        }
    }
    let skipped: Vec<&SampleRecord> = samples.iter().filter(|s| s.skipped.is_some()).collect();
    if let Some(first) = skipped.first() {
        warn(
            WarningKind::SkippedQuestions,
            format!(
                "{} sentence(s) got no question and were left out; the first: {}",
                skipped.len(),
                first.skipped.as_deref().unwrap_or("")
            ),
        );
    }
    out
}
