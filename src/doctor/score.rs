//! The doctor's score, 0 to 100, and the comparison with an earlier report.
//!
//! `score = 100 × (1 − Σ wᵢ·shareᵢ ÷ Σ wᵢ)` over the findings that apply, rounded to one decimal:
//! 100 when nothing is found, 0 when every finding covers its whole population. The weights put
//! what loses evidence outright (atoms split, evidence split, orphans, hubs, duplicates, a cut in
//! a sentence) above what only degrades it; they are printed with every score.

use serde::{Deserialize, Serialize};

use super::{DoctorReport, Finding, FindingKind};

/// The weight of each finding in the score.
pub fn weight(kind: FindingKind) -> f64 {
    match kind {
        FindingKind::CutInSentence => 0.10,
        FindingKind::CutInFence => 0.05,
        FindingKind::CutInTable => 0.05,
        FindingKind::CutInListItem => 0.05,
        FindingKind::AtomSplit => 0.10,
        FindingKind::OrphanedChunk => 0.10,
        FindingKind::NearDuplicate => 0.10,
        FindingKind::Boilerplate => 0.05,
        FindingKind::HubChunk => 0.10,
        FindingKind::HubSeam => 0.05,
        FindingKind::SeamLostK => 0.05,
        FindingKind::UncoveredText => 0.05,
        FindingKind::DuplicatedText => 0.05,
        FindingKind::EvidenceSplit => 0.10,
    }
}

/// One finding's part of the score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreTerm {
    /// The finding.
    pub kind: FindingKind,
    /// Its weight.
    pub weight: f64,
    /// Its share.
    pub share: f64,
    /// Points it took off the 100.
    pub points: f64,
}

/// The score with its formula.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// 0 to 100, one decimal.
    pub value: f64,
    /// The formula in words.
    pub formula: String,
    /// Σ wᵢ over the findings that apply.
    pub weight_total: f64,
    /// Each applicable finding's term.
    pub terms: Vec<ScoreTerm>,
}

/// The formula, as printed beside every score.
pub const FORMULA: &str = "score = 100 × (1 − Σ wᵢ·shareᵢ ÷ Σ wᵢ), over the findings that apply";

impl Score {
    /// The score of `findings`.
    pub fn of(findings: &[Finding]) -> Score {
        let applying: Vec<&Finding> = findings.iter().filter(|f| f.applies).collect();
        let total: f64 = applying.iter().map(|f| weight(f.kind)).sum();
        let terms: Vec<ScoreTerm> = applying
            .iter()
            .map(|f| {
                let w = weight(f.kind);
                let share = f.share.clamp(0.0, 1.0);
                ScoreTerm {
                    kind: f.kind,
                    weight: w,
                    share,
                    points: if total > 0.0 {
                        100.0 * w * share / total
                    } else {
                        0.0
                    },
                }
            })
            .collect();
        let lost: f64 = terms.iter().map(|t| t.points).sum();
        Score {
            value: ((100.0 - lost).clamp(0.0, 100.0) * 10.0).round() / 10.0,
            formula: FORMULA.to_string(),
            weight_total: total,
            terms,
        }
    }
}

/// A finding that got worse since a baseline report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Regression {
    /// The finding.
    pub kind: FindingKind,
    /// Its share then.
    pub before: f64,
    /// Its share now.
    pub after: f64,
    /// Its count then.
    pub count_before: usize,
    /// Its count now.
    pub count_after: usize,
}

/// Shares are compared to this many decimals: a baseline read back from JSON is the same number,
/// and a difference smaller than this is no change.
const SHARE_EPSILON: f64 = 1e-9;

/// The findings whose share rose since `baseline` (a finding new in this report counts from 0).
pub fn compare_reports(baseline: &DoctorReport, now: &DoctorReport) -> Vec<Regression> {
    now.findings
        .iter()
        .filter(|f| f.applies)
        .filter_map(|f| {
            let (before, count_before) = baseline
                .finding(f.kind)
                .filter(|b| b.applies)
                .map_or((0.0, 0), |b| (b.share, b.count));
            (f.share > before + SHARE_EPSILON).then_some(Regression {
                kind: f.kind,
                before,
                after: f.share,
                count_before,
                count_after: f.count,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_the_score_follows_its_formula() {
        let sum: f64 = FindingKind::ALL.iter().map(|k| weight(*k)).sum();
        assert!((sum - 1.0).abs() < 1e-12, "{sum}");
        let mut findings: Vec<Finding> = FindingKind::ALL
            .iter()
            .map(|&k| Finding::new(k, 10, "cuts", String::new(), Vec::new()))
            .collect();
        assert_eq!(Score::of(&findings).value, 100.0);
        // Half of the sentences cut: 0.10 × 0.5 of 100 points.
        findings[0].share = 0.5;
        assert_eq!(Score::of(&findings).value, 95.0);
        // A finding that does not apply leaves the others' weights to share the 100.
        findings[13] = Finding::not_applicable(FindingKind::EvidenceSplit, "-");
        assert_eq!(Score::of(&findings).value, 94.4);
    }
}
