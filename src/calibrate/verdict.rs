//! The measured recommendation: the verdict drawn from the failure-vs-m curve (the recommended
//! `m`, whether Seams helps, why the paper's rule differs), the passages it was measured on, and
//! the warnings it gives. The report ([`report`](super::report)) puts it beside the diagnostic.

use serde::{Deserialize, Serialize};

use super::objective::{Benefit, MarginCurve};
use super::recommend::PaperRule;
use super::warning::{CalibrationWarning, WarningKind};

/// How the recommended margin is chosen, in words.
pub const RECOMMENDATION_RULE: &str = "for each candidate m (0 to 30), every question runs through the whole pipeline at the budget; a question fails when its context does not hold all of its evidence; the recommended m has the fewest failures, ties going to the larger m (fewer fires, less waste)";

/// When the verdict says what, in words.
pub const BENEFIT_RULE: &str = "Seams helps when its best m fails on fewer questions than chunks-only retrieval at the same budget and an exact sign test over the questions on which the two disagree gives p < 0.05; within noise when fewer but p >= 0.05; outside Seams' setting only when its best m does not fail on fewer questions";

/// Fewest scored questions below which the report warns that the curve is rough.
pub const FEW_QUESTIONS: usize = 40;

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
    pub(super) fn of(curve: &MarginCurve, rule: &PaperRule) -> Verdict {
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

/// Warnings about the measured curve, most serious first.
pub(super) fn measured_warnings(
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
