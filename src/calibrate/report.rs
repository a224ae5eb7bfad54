//! The calibration report: plain data that the CLI prints, `--json` writes and a TUI view draws.
//!
//! Everything a screen needs is here already computed: both distributions with their
//! percentiles, histogram bins shared by both, the recommended `m`, the working range, warnings
//! with their text, the rules in words, and every sampled sentence with its question and head
//! start. A front end formats; it computes nothing.

use serde::{Deserialize, Serialize};

use super::measure::HeadStart;
use super::recommend::{FEW_SAMPLES, OVERLAP_RULE, RULE, Verdict, judge};
use super::sample::SampleKind;
use super::stats::{Bin, BinSpec, Spread};

/// Share of a kind's questions whose answer chunk was absent above which the report warns.
pub const ABSENT_WARN_SHARE: f64 = 0.25;

/// What the calibration ran on and with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationSetup {
    /// The corpus folder or file.
    pub corpus: String,
    /// The chunker's name, e.g. `fixed-1024`.
    pub chunker: String,
    /// Seam half-width in tokens.
    pub k: usize,
    /// Hits taken from each search list.
    pub depth: usize,
    /// The RRF constant.
    pub rrf_c: f64,
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

/// What a warning is about, so a screen can pick its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// The distributions overlap heavily: the corpus lies outside Seams' setting.
    HeavyOverlap,
    /// Too few sentences of a kind for percentiles to mean much.
    FewSamples,
    /// No unsplit sentence was measured: no `m` can be recommended.
    NoUnsplit,
    /// No crossing sentence was measured: no working range, no overlap check.
    NoCrossing,
    /// Many questions did not find their chunk at all.
    AbsentChunks,
    /// Some sentences got no question.
    SkippedQuestions,
}

/// One warning and its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationWarning {
    /// What it is about.
    pub kind: WarningKind,
    /// What to tell the user.
    pub text: String,
}

/// The rules the numbers follow, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// How a head start is measured.
    pub head_start: String,
    /// How percentiles are taken.
    pub percentile: String,
    /// How `m` is recommended.
    pub recommendation: String,
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
            recommendation: RULE.to_string(),
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
    /// Sentences inside one chunk, inside its seam window.
    pub unsplit: Distribution,
    /// Sentences across a cut.
    pub crossing: Distribution,
    /// The shape of the shared histogram bins; `None` when nothing was measured.
    pub bins: Option<BinSpec>,
    /// Histogram bars, lowest head start first, with counts of both kinds.
    pub histogram: Vec<Bin>,
    /// The recommended `m`, the working range and the overlap verdict.
    pub verdict: Verdict,
    /// Everything the user should be told, most serious first.
    pub warnings: Vec<CalibrationWarning>,
    /// The rules behind the numbers.
    pub rules: Rules,
    /// Every sampled sentence, unsplit first, in document order.
    pub samples: Vec<SampleRecord>,
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

impl CalibrationReport {
    /// Assemble the report from measured samples (`candidates` = qualifying sentences per kind:
    /// unsplit, crossing).
    pub fn build(
        setup: CalibrationSetup,
        candidates: (usize, usize),
        samples: Vec<SampleRecord>,
    ) -> CalibrationReport {
        let unsplit = Distribution::of(SampleKind::Unsplit, candidates.0, &samples);
        let crossing = Distribution::of(SampleKind::Crossing, candidates.1, &samples);
        let verdict = judge(&unsplit.head_starts, &crossing.head_starts);
        let mut marks = vec![0, 1];
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
        let warnings = warnings(&setup, &unsplit, &crossing, &verdict, &samples);
        CalibrationReport {
            setup,
            unsplit,
            crossing,
            bins,
            histogram,
            verdict,
            warnings,
            rules: Rules::default(),
            samples,
        }
    }
}

fn warnings(
    setup: &CalibrationSetup,
    unsplit: &Distribution,
    crossing: &Distribution,
    verdict: &Verdict,
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
                "the distributions overlap heavily: at the recommended m = {m} only {fired} of the \
                 sentences that cross a cut fire their seam, and half of them fire only up to \
                 m = {half}. This corpus lies outside the setting Seams is designed for: its split \
                 facts do not make seams stand out from their chunks, so any m either fires on \
                 many unsplit facts or misses most split ones.{}",
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
            "no unsplit sentence was measured, so no m can be recommended (does the corpus have \
             cuts? try a smaller --chunk-tokens)"
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
        if d.measured > 0 && d.measured < FEW_SAMPLES {
            warn(
                WarningKind::FewSamples,
                format!(
                    "only {} {} sentences were measured ({} qualified); percentiles from fewer \
                     than {FEW_SAMPLES} are rough",
                    d.measured,
                    d.kind.label(),
                    d.candidates
                ),
            );
        }
        if d.measured > 0 && d.chunk_absent as f64 > ABSENT_WARN_SHARE * d.measured as f64 {
            warn(
                WarningKind::AbsentChunks,
                format!(
                    "{} of {} {} questions did not find the compared chunk in the fused ranking \
                     (depth {}); it counts as last (len + 1), so those head starts say more about \
                     the questions than about the seams. Try a larger --depth or another question \
                     generator.",
                    d.chunk_absent,
                    d.measured,
                    d.kind.label(),
                    setup.depth
                ),
            );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ChunkId;

    fn setup() -> CalibrationSetup {
        CalibrationSetup {
            corpus: "c".into(),
            chunker: "fixed-1024".into(),
            k: 150,
            depth: 150,
            rrf_c: 60.0,
            samples_per_kind: 60,
            seed: 0,
            min_words: 6,
            generator: "test".into(),
            generator_description: "test".into(),
        }
    }

    fn record(kind: SampleKind, value: i64, chunk_absent: bool) -> SampleRecord {
        SampleRecord {
            kind,
            doc: "d.md".into(),
            start: 0,
            end: 1,
            seam: 0,
            seam_chunks: (0, 1),
            holder: None,
            sentence: "s".into(),
            question: Some("q".into()),
            head_start: Some(HeadStart {
                value,
                seam_position: 1,
                seam_absent: false,
                chunk: ChunkId(0),
                chunk_position: 1,
                chunk_absent,
                fused_len: 10,
            }),
            skipped: None,
        }
    }

    #[test]
    fn report_shows_both_distributions_over_shared_bins() {
        let mut samples: Vec<SampleRecord> = (-10..30)
            .map(|v| record(SampleKind::Unsplit, v % 7 - 3, false))
            .collect();
        samples.extend((0..25).map(|v| record(SampleKind::Crossing, 4 + v, false)));
        let r = CalibrationReport::build(setup(), (100, 30), samples);
        assert_eq!((r.unsplit.measured, r.crossing.measured), (40, 25));
        let total: usize = r.histogram.iter().map(|b| b.unsplit + b.crossing).sum();
        assert_eq!(total, 65);
        assert_eq!(
            r.verdict.recommended_m,
            Some(r.unsplit.spread.unwrap().p90 as u32 + 1)
        );
        assert!(r.verdict.working_range.is_some());
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // Plain data: the report goes to JSON and back (floats aside, which JSON may round).
        let json = serde_json::to_string(&r).unwrap();
        let back: CalibrationReport = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (
                &back.histogram,
                &back.samples,
                back.bins,
                back.verdict.working_range
            ),
            (&r.histogram, &r.samples, r.bins, r.verdict.working_range)
        );
    }

    #[test]
    fn report_warns_on_overlap_few_samples_and_absent_chunks() {
        let mut samples: Vec<SampleRecord> = (0..10)
            .map(|v| record(SampleKind::Unsplit, v, v < 5))
            .collect();
        samples.extend((0..5).map(|v| record(SampleKind::Crossing, v - 2, false)));
        let mut skipped = record(SampleKind::Crossing, 0, false);
        skipped.head_start = None;
        skipped.skipped = Some("no content words".into());
        samples.push(skipped);
        let r = CalibrationReport::build(setup(), (10, 6), samples);
        let kinds: Vec<WarningKind> = r.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(
            kinds,
            vec![
                WarningKind::HeavyOverlap,
                WarningKind::FewSamples,
                WarningKind::AbsentChunks,
                WarningKind::FewSamples,
                WarningKind::SkippedQuestions,
            ]
        );
        assert!(r.warnings[0].text.contains("outside the setting Seams"));
        assert_eq!((r.crossing.drawn, r.crossing.skipped), (6, 1));
    }

    #[test]
    fn empty_samples_say_why_there_is_no_recommendation() {
        let r = CalibrationReport::build(setup(), (0, 0), Vec::new());
        assert_eq!(r.verdict.recommended_m, None);
        assert!(r.histogram.is_empty() && r.bins.is_none());
        let kinds: Vec<WarningKind> = r.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, vec![WarningKind::NoUnsplit, WarningKind::NoCrossing]);
    }
}
