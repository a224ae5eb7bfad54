//! The calibration report: plain data that the CLI prints, `--json` writes and a TUI view draws.
//!
//! Everything a screen needs is here already computed: the measured failure-vs-m curve with its
//! intervals, the recommended `m` and the verdict on Seams' benefit, and, as diagnostics, both
//! head-start distributions with their percentiles, histogram bins shared by both, the white
//! paper's rule with its working range, warnings with their text, the rules in words, and every
//! sample with its question. A front end formats; it computes nothing.

use serde::{Deserialize, Serialize};

use super::measure::HeadStart;
use super::objective::{Benefit, MarginCurve};
use super::recommend::{FEW_SAMPLES, OVERLAP_RULE, PaperRule, RULE, judge};
use super::sample::SampleKind;
use super::stats::{Bin, BinSpec, Spread};

/// How the recommended margin is chosen, in words.
pub const RECOMMENDATION_RULE: &str = "for each candidate m (0 to 30), every question runs through the whole pipeline at the budget; a question fails when its context does not hold all of its evidence; the recommended m has the fewest failures, ties going to the larger m (fewer fires, less waste)";

/// When the verdict says what, in words.
pub const BENEFIT_RULE: &str = "Seams helps when its best m fails on fewer questions than chunks-only retrieval at the same budget and an exact sign test over the questions on which the two disagree gives p < 0.05; within noise when fewer but p >= 0.05; outside Seams' setting only when its best m does not fail on fewer questions";

/// Fewest scored questions below which the report warns that the curve is rough.
pub const FEW_QUESTIONS: usize = 40;

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

/// The sampled passages of the measured objective (no gold questions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassageSummary {
    /// Draws made.
    pub draws: usize,
    /// Passages asked about and scored.
    pub measured: usize,
    /// Passages that got no question.
    pub skipped: usize,
    /// Draws that repeated a passage.
    pub repeats: usize,
    /// Draws left out as one overlong sentence.
    pub too_long: usize,
    /// Scored passages some cut splits.
    pub crossing: usize,
    /// Shortest, median and longest scored passage, in tokens.
    pub tokens: (usize, usize, usize),
    /// Target lengths, in tokens.
    pub target: (usize, usize),
}

/// One sampled passage and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassageRecord {
    /// The document's path.
    pub doc: String,
    /// Its first byte.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Its length in tokens.
    pub tokens: usize,
    /// Whether a cut splits it.
    pub crosses_cut: bool,
    /// The generated question, when there was one.
    pub question: Option<String>,
    /// Why it got no question, when it did not.
    pub skipped: Option<String>,
}

/// The measured recommendation and what it says about Seams here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The margin with the fewest failures at the budget (ties to the larger); `None` when no
    /// question was scored.
    pub recommended_m: Option<u32>,
    /// The budget it was measured at.
    pub budget: usize,
    /// Failure rate at the recommended margin.
    pub failure_rate: Option<f64>,
    /// Failure rate of chunks-only retrieval at the same budget.
    pub off_failure_rate: Option<f64>,
    /// Whether Seams helps, beyond noise.
    pub benefit: Benefit,
    /// The benefit in one sentence.
    pub summary: String,
    /// When the white paper's rule gives another margin: why, in one sentence.
    pub rule_note: Option<String>,
}

impl Verdict {
    fn of(curve: &MarginCurve, rule: &PaperRule) -> Verdict {
        let best = curve.best();
        let rule_note = match (rule.recommended_m, curve.recommended_m) {
            (Some(r), Some(m)) if r != m => {
                let at = |m: u32| curve.at(m).map(|p| p.failure_rate * 100.0);
                let measured = match (at(r), at(m)) {
                    (Some(fr), Some(fm)) => format!(
                        ": measured at budget {}, m = {r} fails {fr:.1}% of questions and m = {m} {fm:.1}%",
                        curve.budget
                    ),
                    _ => String::new(),
                };
                Some(format!(
                    "The white paper's rule gives m = {r} because it keeps 90% of unsplit facts \
                     from firing, but a fire over an unsplit fact still brings the chunk that \
                     holds it (it costs a slot, not a miss){measured}."
                ))
            }
            _ => None,
        };
        Verdict {
            recommended_m: curve.recommended_m,
            budget: curve.budget,
            failure_rate: best.map(|p| p.failure_rate),
            off_failure_rate: curve.off.as_ref().map(|p| p.failure_rate),
            benefit: curve.benefit.clone(),
            summary: curve.benefit_sentence(),
            rule_note,
        }
    }
}

/// What the measured objective ran on: the curve, and the passages when they were sampled.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The failure-vs-m curve.
    pub curve: MarginCurve,
    /// The passage draw, when no gold set was used.
    pub passages: Option<PassageSummary>,
    /// Every sampled passage with its question.
    pub passage_samples: Vec<PassageRecord>,
}

/// What a warning is about, so a screen can pick its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// The measured failure with Seams at its best m is not lower than chunks-only.
    OutsideSetting,
    /// Seams' measured gain over chunks-only is within noise.
    GainWithinNoise,
    /// Few questions were scored for the measured curve.
    FewQuestions,
    /// No scored question's evidence crosses a cut, so m cannot matter on this sample.
    NoSplitEvidence,
    /// The head-start distributions overlap heavily (diagnostic; says nothing by itself about
    /// whether Seams helps).
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

/// Warnings about the measured curve, most serious first.
fn measured_warnings(
    curve: &MarginCurve,
    verdict: &Verdict,
    generator: &str,
) -> Vec<CalibrationWarning> {
    let mut out = Vec::new();
    let mut warn = |kind, text: String| out.push(CalibrationWarning { kind, text });
    // Keyword questions are not a reader's questions: say so beside a verdict against Seams.
    let caveat = if generator.starts_with("offline") {
        " These are offline keyword questions: a gold question set (--questions) or a language \
         model (--llm-url) measures what your readers will ask."
    } else {
        ""
    };
    match &curve.benefit {
        Benefit::OutsideSetting { .. } => warn(
            WarningKind::OutsideSetting,
            format!("{}{caveat}", verdict.summary),
        ),
        Benefit::WithinNoise { .. } => warn(
            WarningKind::GainWithinNoise,
            format!("{}{caveat}", verdict.summary),
        ),
        Benefit::Helps { .. } | Benefit::Unknown => {}
    }
    if curve.questions > 0 && curve.crossing == 0 {
        warn(
            WarningKind::NoSplitEvidence,
            format!(
                "none of the {} scored questions has evidence that a cut splits, so every m \
                 gives the same context for them and the curve cannot tell margins apart; \
                 ask about longer evidence or use smaller chunks",
                curve.questions
            ),
        );
    }
    if curve.questions > 0 && curve.questions < FEW_QUESTIONS {
        warn(
            WarningKind::FewQuestions,
            format!(
                "only {} questions were scored; the 95% intervals are wide, so read the curve \
                 as rough",
                curve.questions
            ),
        );
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
            budget: 5,
            objective_source: "test".into(),
            samples_per_kind: 60,
            seed: 0,
            min_words: 6,
            generator: "test".into(),
            generator_description: "test".into(),
        }
    }

    fn no_curve() -> Measured {
        Measured {
            curve: MarginCurve {
                budget: 5,
                questions: 0,
                crossing: 0,
                points: Vec::new(),
                off: None,
                recommended_m: None,
                indistinguishable: Vec::new(),
                benefit: Benefit::Unknown,
                answered: Vec::new(),
            },
            passages: None,
            passage_samples: Vec::new(),
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
        let r = CalibrationReport::build(setup(), (100, 30), samples, no_curve());
        assert_eq!((r.unsplit.measured, r.crossing.measured), (40, 25));
        let total: usize = r.histogram.iter().map(|b| b.unsplit + b.crossing).sum();
        assert_eq!(total, 65);
        assert_eq!(
            r.paper_rule.recommended_m,
            Some(r.unsplit.spread.unwrap().p90 as u32 + 1)
        );
        assert!(r.paper_rule.working_range.is_some());
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // Plain data: the report goes to JSON and back (floats aside, which JSON may round).
        let json = serde_json::to_string(&r).unwrap();
        let back: CalibrationReport = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (
                &back.histogram,
                &back.samples,
                back.bins,
                back.paper_rule.working_range
            ),
            (&r.histogram, &r.samples, r.bins, r.paper_rule.working_range)
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
        let r = CalibrationReport::build(setup(), (10, 6), samples, no_curve());
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
        // Overlap is a diagnostic: it never claims the corpus lies outside Seams' setting.
        assert!(r.warnings[0].text.contains("diagnostic"));
        assert!(!r.warnings[0].text.contains("lies outside"));
        assert_eq!((r.crossing.drawn, r.crossing.skipped), (6, 1));
    }

    #[test]
    fn the_rule_note_says_why_the_paper_rule_differs_in_one_sentence() {
        let mut m = no_curve();
        let point = |m: u32, failures: usize| crate::calibrate::objective::CurvePoint {
            m: Some(m),
            questions: 10,
            failures,
            failure_rate: failures as f64 / 10.0,
            interval: crate::calibrate::interval::wilson(failures, 10),
            mean_tokens: 0.0,
            fires_per_question: 0.0,
            false_fires_per_question: 0.0,
            wasted_fires_per_question: 0.0,
            vs_best: None,
        };
        m.curve.points = vec![point(1, 2), point(4, 5)];
        m.curve.recommended_m = Some(1);
        // Unsplit p90 = 3, so the rule says m = 4.
        let samples: Vec<SampleRecord> = [-2, 0, 1, 2, 3]
            .into_iter()
            .map(|v| record(SampleKind::Unsplit, v, false))
            .collect();
        let r = CalibrationReport::build(setup(), (5, 0), samples, m);
        assert_eq!(r.paper_rule.recommended_m, Some(4));
        let note = r.verdict.rule_note.unwrap();
        assert_eq!(
            note,
            "The white paper's rule gives m = 4 because it keeps 90% of unsplit facts from firing, \
             but a fire over an unsplit fact still brings the chunk that holds it (it costs a slot, \
             not a miss): measured at budget 5, m = 4 fails 50.0% of questions and m = 1 20.0%."
        );
    }

    #[test]
    fn empty_samples_say_why_there_is_no_recommendation() {
        let r = CalibrationReport::build(setup(), (0, 0), Vec::new(), no_curve());
        assert_eq!(r.paper_rule.recommended_m, None);
        assert!(r.histogram.is_empty() && r.bins.is_none());
        let kinds: Vec<WarningKind> = r.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, vec![WarningKind::NoUnsplit, WarningKind::NoCrossing]);
    }
}
