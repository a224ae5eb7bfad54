//! How the suspicion rank agrees with the feedback the traces carry (Phoenix span annotations,
//! LangSmith feedback scores), with no gold set.

use serde::Serialize;

use super::QueryVerdict;
use super::suspicion;

/// How the suspicion rank agrees with one kind of feedback (by its name).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedbackAgreement {
    /// The feedback's name (`retrieval_hit`, `user_score`, …).
    pub name: String,
    /// Queries that carry a score under that name.
    pub scored: usize,
    /// Of those, queries at the lowest score given (a miss, a thumbs down).
    pub lowest: usize,
    /// The lowest score given.
    pub lowest_score: f64,
    /// The ROC AUC of the suspicion against "scored the lowest": the chance that a query scored
    /// lowest ranks above one scored higher (ties half). `None` when every score is the same.
    pub roc_auc: Option<f64>,
    /// The share of queries scored lowest among the ten most suspect scored ones.
    pub precision_at_10: Option<f64>,
}

/// The suspicion against each kind of scored feedback, by name (in name order). A query with
/// several scores under one name counts with their mean. `verdicts` are in rank order.
pub(super) fn feedback_agreement(verdicts: &[QueryVerdict]) -> Vec<FeedbackAgreement> {
    let mut names: Vec<&str> = verdicts
        .iter()
        .flat_map(|v| v.feedback.iter())
        .filter(|f| f.score.is_some_and(f64::is_finite))
        .map(|f| f.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let scored: Vec<(f64, f64)> = verdicts
                .iter()
                .filter_map(|v| {
                    let scores: Vec<f64> = v
                        .feedback
                        .iter()
                        .filter(|f| f.name == name)
                        .filter_map(|f| f.score)
                        .filter(|s| s.is_finite())
                        .collect();
                    (!scores.is_empty()).then(|| {
                        (
                            v.suspicion,
                            scores.iter().sum::<f64>() / scores.len() as f64,
                        )
                    })
                })
                .collect();
            let lowest_score = scored.iter().map(|(_, s)| *s).fold(f64::INFINITY, f64::min);
            let labels: Vec<(f64, bool)> = scored
                .iter()
                .map(|(suspicion, s)| (*suspicion, *s == lowest_score))
                .collect();
            let ranked: Vec<bool> = labels.iter().map(|(_, l)| *l).collect();
            FeedbackAgreement {
                name: name.to_string(),
                scored: scored.len(),
                lowest: ranked.iter().filter(|l| **l).count(),
                lowest_score,
                roc_auc: suspicion::roc_auc(&labels),
                precision_at_10: suspicion::precision_at(&ranked, 10),
            }
        })
        .collect()
}
