//! The board's rows as it shows them, and its verdict: rows of one outcome folded, the Pareto
//! rows marked, best first, and the bootstrap verdict among the rows the constraints allow (with
//! the verdict over every row beside it when they leave any out).

use super::verdict::{self, Candidate, Verdict};
use super::{Board, BoardOptions, BoardRow, Constraints, fold};

/// The scored rows as the board shows them: rows of one outcome folded ([`fold`]), the Pareto
/// rows marked, best first (failures, then tokens, then vectors), then the verdicts under the
/// options' constraints ([`judge`]; none when resampling is off).
pub fn finish_rows(
    rows: Vec<BoardRow>,
    options: &BoardOptions,
) -> (Vec<BoardRow>, Option<Verdict>, Option<Verdict>) {
    let mut rows = fold::fold_rows(rows);
    mark_pareto(&mut rows);
    rows.sort_by(|a, b| {
        a.failures
            .cmp(&b.failures)
            .then(a.tokens.total_cmp(&b.tokens))
            .then(a.vectors.cmp(&b.vectors))
    });
    if options.resamples == 0 {
        for r in &mut rows {
            r.excluded = options.constraints.why_excluded(r);
        }
        return (rows, None, None);
    }
    let (verdict, unconstrained) = judge(&mut rows, options);
    (rows, Some(verdict), unconstrained)
}

/// The bootstrap verdict among the rows `options.constraints` allow (families tuned inside each
/// resample), and, when the constraints leave any row out, the verdict over every row. Each row
/// records why it was left out; each family's best allowed row gets its family's share.
pub fn judge(rows: &mut [BoardRow], options: &BoardOptions) -> (Verdict, Option<Verdict>) {
    for r in rows.iter_mut() {
        r.excluded = options.constraints.why_excluded(r);
        r.p_best = None;
    }
    let among = |rows: &[BoardRow], every: bool| {
        let candidates: Vec<Candidate<'_>> = rows
            .iter()
            .filter(|r| every || r.excluded.is_none())
            .map(|r| Candidate {
                label: &r.label,
                family: r.family.name(),
                failed: &r.failed,
                mean_tokens: r.tokens,
            })
            .collect();
        verdict::verdict(&candidates, options.resamples, options.seed)
    };
    let v = among(rows, false);
    let unconstrained = rows
        .iter()
        .any(|r| r.excluded.is_some())
        .then(|| among(rows, true));
    for c in &v.contenders {
        if let Some(r) = rows.iter_mut().find(|r| r.label == c.label) {
            r.p_best = Some(c.p_best);
        }
    }
    (v, unconstrained)
}

/// Judge `board` again under `constraints` (the screen's toggles): the rows stay, the verdicts
/// and each row's exclusion change.
pub fn constrain(board: &mut Board, constraints: Constraints) {
    board.options.constraints = constraints;
    if board.options.resamples == 0 {
        for r in &mut board.rows {
            r.excluded = constraints.why_excluded(r);
        }
        return;
    }
    let (v, u) = judge(&mut board.rows, &board.options);
    board.verdict = Some(v);
    board.unconstrained = u;
}

/// Mark the rows no other row dominates on (failure rate, tokens, vectors).
fn mark_pareto(rows: &mut [BoardRow]) {
    let keys: Vec<(usize, f64, usize)> = rows
        .iter()
        .map(|r| (r.failures, r.tokens, r.vectors))
        .collect();
    for (i, row) in rows.iter_mut().enumerate() {
        let a = keys[i];
        row.pareto = !keys.iter().any(|b| {
            b.0 <= a.0 && b.1 <= a.1 && b.2 <= a.2 && (b.0 < a.0 || b.1 < a.1 || b.2 < a.2)
        });
    }
}
