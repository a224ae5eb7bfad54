//! One band's results for one kind of question: each family's best row among the rows the
//! constraints allow, and the band's resampled verdict.

use super::super::verdict::{Candidate, verdict};
use super::super::{Board, BoardRow, Family};
use super::{BandResult, MapRow};

/// Each family's best row over the questions `at` (indices into the board's questions), its
/// verdict, best first. `every`: judge every row, not only those the constraints allow.
pub(super) fn band_result(
    board: &Board,
    at: &[usize],
    split: &[bool],
    (resamples, seed): (usize, u64),
    every: bool,
) -> BandResult {
    let allowed: Vec<&BoardRow> = board
        .rows
        .iter()
        .filter(|r| every || r.excluded.is_none())
        .collect();
    let failed: Vec<Vec<bool>> = allowed
        .iter()
        .map(|r| at.iter().map(|&i| r.failed[i]).collect())
        .collect();
    let sum = |v: &[u64]| at.iter().map(|&i| v[i] as f64).sum::<f64>();
    let tokens = |r: &BoardRow| sum(&r.tokens_sent) / at.len().max(1) as f64;
    let candidates: Vec<Candidate<'_>> = allowed
        .iter()
        .zip(&failed)
        .map(|(r, f)| Candidate {
            label: &r.label,
            family: r.family.name(),
            failed: f,
            mean_tokens: tokens(r),
        })
        .collect();
    let v = verdict(&candidates, resamples, seed);
    if at.is_empty() {
        // Nothing was measured: no row to show, and the verdict says so.
        return BandResult {
            rows: Vec::new(),
            verdict: v,
        };
    }
    let n = at.len() as f64;
    let split_n = split.iter().filter(|s| **s).count();
    let mut rows: Vec<MapRow> = Family::ALL
        .iter()
        .filter_map(|fam| {
            let (r, f) = best_of_family(&allowed, &failed, *fam, &tokens)?;
            let failures = f.iter().filter(|x| **x).count();
            let split_failures = f.iter().zip(split).filter(|(x, s)| **x && **s).count();
            let sent = sum(&r.tokens_sent);
            Some(MapRow {
                label: r.label.clone(),
                family: r.family,
                failures,
                failure_rate: failures as f64 / n,
                split_failure_rate: (split_n > 0).then(|| split_failures as f64 / split_n as f64),
                tokens: tokens(r),
                duplicate_share: if sent > 0.0 {
                    sum(&r.duplicated_sent) / sent
                } else {
                    0.0
                },
                stores_once: r.stores_once,
                vectors_vs_chunks: r.vectors_vs_chunks,
                p_best: v
                    .contenders
                    .iter()
                    .find(|c| c.family == fam.name())
                    .map_or(0.0, |c| c.p_best),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        a.failures
            .cmp(&b.failures)
            .then(a.tokens.total_cmp(&b.tokens))
    });
    BandResult { rows, verdict: v }
}

/// Family `fam`'s best row among `allowed` (whose failures are `failed`): the fewest failures,
/// then the fewest `tokens`; the first of equals.
fn best_of_family<'r>(
    allowed: &[&'r BoardRow],
    failed: &'r [Vec<bool>],
    fam: Family,
    tokens: &dyn Fn(&BoardRow) -> f64,
) -> Option<(&'r BoardRow, &'r Vec<bool>)> {
    allowed
        .iter()
        .copied()
        .zip(failed)
        .filter(|(r, _)| r.family == fam)
        .min_by(|a, b| {
            let fa = a.1.iter().filter(|x| **x).count();
            let fb = b.1.iter().filter(|x| **x).count();
            fa.cmp(&fb).then(tokens(a.0).total_cmp(&tokens(b.0)))
        })
}

/// When every setting fails every question of the band, say why in its terms: the band's
/// evidence (`evidence_tokens` on average) is longer than any setting's context, or, when some
/// context is long enough, that none held a question's whole evidence. (The verdict alone can
/// only say that every setting fails; at budget 5 on a 5,000-token band it once asked whether
/// the budget was 0.)
pub(super) fn explain_all_failing(result: &mut BandResult, evidence_tokens: f64) {
    let Some(questions) = result
        .verdict
        .inconclusive
        .as_ref()
        .map(|_| result.verdict.questions)
    else {
        return;
    };
    if questions == 0 || !result.rows.iter().all(|r| r.failures == questions) {
        return;
    }
    let most_sent = result.rows.iter().map(|r| r.tokens).fold(0.0, f64::max);
    result.verdict.inconclusive = Some(if most_sent < evidence_tokens {
        format!(
            "every setting fails all {questions} questions: their evidence is {evidence_tokens:.0} tokens on average, more than any setting's context holds ({most_sent:.0} tokens at most): raise the budget or map shorter bands"
        )
    } else {
        format!(
            "every setting fails all {questions} questions: no context held any question's whole evidence, so the questions do not tell the settings apart"
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(family: Family, tokens: f64) -> MapRow {
        MapRow {
            label: family.name().to_string(),
            family,
            failures: 4,
            failure_rate: 1.0,
            split_failure_rate: None,
            tokens,
            duplicate_share: 0.0,
            stores_once: true,
            vectors_vs_chunks: 1.0,
            p_best: 0.0,
        }
    }

    #[test]
    fn a_band_every_setting_fails_says_its_evidence_is_longer_than_any_context() {
        const ALL: [bool; 4] = [true; 4];
        let candidates = [
            Candidate {
                label: "a",
                family: "none",
                failed: &ALL,
                mean_tokens: 600.0,
            },
            Candidate {
                label: "b",
                family: "seams",
                failed: &ALL,
                mean_tokens: 700.0,
            },
        ];
        let mut result = BandResult {
            rows: vec![row(Family::None, 600.0), row(Family::Seams, 700.0)],
            verdict: verdict(&candidates, 100, 1),
        };
        explain_all_failing(&mut result, 6400.0);
        assert_eq!(
            result.verdict.inconclusive.as_deref(),
            Some(
                "every setting fails all 4 questions: their evidence is 6400 tokens on average, more than any setting's context holds (700 tokens at most): raise the budget or map shorter bands"
            )
        );
        assert!(!format!("{:?}", result.verdict).contains("budget 0"));
    }
}
