//! A board a person can read: rows of one family whose outcome is the same on every question
//! (the same questions failed, the same tokens sent, the same vectors, the same context) are
//! one row, labelled by the settings they share and the ranges they span, e.g.
//! `overlap 15% + Seams k 150 m 26–30`. Each folded row lists its members; its settings are
//! the middle member's (farthest from where the outcome changes, so the safest to deploy).
//!
//! Settings fold as a grid: members that fill every combination of their values fold into one
//! row (`SCAR τ 0.50–0.70 λ 0.00–1.00`); otherwise only settings that differ in the last knob
//! (`m` for Seams) fold, so a label never claims a combination that was not measured. A range
//! `a–b` means every value of the board's grid from `a` to `b`.

use serde::Serialize;

use super::row::Knob;
use super::{BoardRow, Family, RowSettings};

/// One setting a folded row stands for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Member {
    /// Its own label.
    pub label: String,
    /// Its settings.
    pub settings: RowSettings,
}

/// The values of one knob a folded row spans, as runs over `grid` (every value the family's
/// rows take): `26–30`, `0, 2–4`.
fn runs(values: &[Knob], grid: &[i64]) -> String {
    let mut at: Vec<(usize, &str)> = values
        .iter()
        .filter_map(|(k, shown)| Some((grid.iter().position(|g| g == k)?, shown.as_str())))
        .collect();
    at.sort_unstable();
    at.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < at.len() {
        let mut j = i;
        while j + 1 < at.len() && at[j + 1].0 == at[j].0 + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => at[i].1.to_string(),
            _ => format!("{}–{}", at[i].1, at[j].1),
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// Two rows have the same outcome: the same family and vectors, and on every question the same
/// failure and the same tokens, with the same context figures.
fn same_outcome(a: &BoardRow, b: &BoardRow) -> bool {
    a.family == b.family
        && a.vectors == b.vectors
        && a.failed == b.failed
        && a.tokens_sent == b.tokens_sent
        && a.distinct_tokens.to_bits() == b.distinct_tokens.to_bits()
        && a.duplicated_tokens.to_bits() == b.duplicated_tokens.to_bits()
        && a.passages_twice.to_bits() == b.passages_twice.to_bits()
        && a.span_precision.to_bits() == b.span_precision.to_bits()
}

/// Every value each knob of each family takes on the board, sorted.
fn grids(rows: &[BoardRow]) -> Vec<(Family, Vec<Vec<i64>>)> {
    let mut out: Vec<(Family, Vec<Vec<i64>>)> = Vec::new();
    for r in rows {
        let k = r.settings.knobs();
        let at = match out.iter().position(|(f, _)| *f == r.family) {
            Some(at) => at,
            None => {
                out.push((r.family, vec![Vec::new(); k.len()]));
                out.len() - 1
            }
        };
        for (g, (key, _)) in out[at].1.iter_mut().zip(&k) {
            if let Err(i) = g.binary_search(key) {
                g.insert(i, *key);
            }
        }
    }
    out
}

/// `members` (indices into `rows`, same outcome) as one row.
fn folded(rows: &[BoardRow], mut members: Vec<usize>, grid: &[Vec<i64>]) -> BoardRow {
    members.sort_by_key(|&i| {
        rows[i]
            .settings
            .knobs()
            .into_iter()
            .map(|k| k.0)
            .collect::<Vec<_>>()
    });
    let rep = &rows[members[members.len() / 2]];
    let knob_sets: Vec<Vec<Knob>> = (0..grid.len())
        .map(|i| {
            members
                .iter()
                .map(|&m| rows[m].settings.knobs().swap_remove(i))
                .collect()
        })
        .collect();
    let parts: Vec<String> = knob_sets
        .iter()
        .zip(grid)
        .map(|(v, g)| runs(v, g))
        .collect();
    let card = rep.family.card();
    let sides = card
        .side_knob
        .map_or_else(Vec::new, |i| knob_sets[i].clone());
    BoardRow {
        label: (card.label)(&parts, &sides),
        members: members
            .iter()
            .map(|&m| Member {
                label: rows[m].label.clone(),
                settings: rows[m].settings,
            })
            .collect(),
        ..rep.clone()
    }
}

/// Whether `members` fill every combination of the values their knobs take.
fn is_grid(rows: &[BoardRow], members: &[usize]) -> bool {
    let keys: Vec<Vec<i64>> = members
        .iter()
        .map(|&m| rows[m].settings.knobs().into_iter().map(|k| k.0).collect())
        .collect();
    let width = keys.first().map_or(0, Vec::len);
    let combos: usize = (0..width)
        .map(|i| {
            let mut v: Vec<i64> = keys.iter().map(|k| k[i]).collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        })
        .product();
    combos == members.len()
}

/// Fold rows of the same outcome (see the module's docs); the order of first appearance is kept.
pub fn fold_rows(rows: Vec<BoardRow>) -> Vec<BoardRow> {
    let grids = grids(&rows);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..rows.len() {
        match groups
            .iter_mut()
            .find(|g| same_outcome(&rows[g[0]], &rows[i]))
        {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    let mut out: Vec<(usize, BoardRow)> = Vec::new();
    for group in groups {
        let grid = grids
            .iter()
            .find(|(f, _)| *f == rows[group[0]].family)
            .map_or(&[][..], |(_, g)| g.as_slice());
        if group.len() == 1 || grid.is_empty() {
            out.extend(group.iter().map(|&i| (i, rows[i].clone())));
            continue;
        }
        if is_grid(&rows, &group) {
            out.push((group[0], folded(&rows, group, grid)));
            continue;
        }
        // Not a full grid: fold only along the last knob, among rows equal on the others.
        let mut sub: Vec<Vec<usize>> = Vec::new();
        for &i in &group {
            let head = |j: usize| {
                let mut k = rows[j].settings.knobs();
                k.pop();
                k.into_iter().map(|k| k.0).collect::<Vec<_>>()
            };
            match sub.iter_mut().find(|s| head(s[0]) == head(i)) {
                Some(s) => s.push(i),
                None => sub.push(vec![i]),
            }
        }
        for s in sub {
            let first = s[0];
            let row = match s.len() {
                1 => rows[first].clone(),
                _ => folded(&rows, s, grid),
            };
            out.push((first, row));
        }
    }
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::interval::wilson;

    fn row(settings: RowSettings, failed: &[bool]) -> BoardRow {
        BoardRow {
            label: settings.label(),
            family: settings.family(),
            settings,
            members: Vec::new(),
            failures: failed.iter().filter(|f| **f).count(),
            failure_rate: 0.0,
            interval: wilson(0, failed.len()),
            tokens: 100.0,
            distinct_tokens: 100.0,
            duplicated_tokens: 0.0,
            duplicate_share: 0.0,
            passages_twice: 0.0,
            span_precision: 0.0,
            span_iou: 0.0,
            stores_once: true,
            vectors: 10,
            vectors_vs_chunks: 1.0,
            build_seconds: 0.0,
            embedded_texts: 0,
            fires_per_question: 0.0,
            pareto: false,
            p_best: None,
            excluded: None,
            failed: failed.to_vec(),
            tokens_sent: vec![100; failed.len()],
            duplicated_sent: vec![0; failed.len()],
            per_question: Vec::new(),
        }
    }

    fn seams(k: usize, m: u32, side_drop: Option<f32>) -> RowSettings {
        RowSettings::Seams { k, m, side_drop }
    }

    #[test]
    fn margins_with_one_outcome_fold_into_a_range() {
        let a = [true, false, false];
        let b = [false, false, false];
        let mut rows = vec![row(RowSettings::ChunksOnly, &a)];
        for m in 0..=6 {
            // m 0–2 fail the first question, m 3–6 do not.
            rows.push(row(seams(150, m, None), if m < 3 { &a } else { &b }));
        }
        let out = fold_rows(rows);
        let labels: Vec<&str> = out.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["chunks only", "Seams k 150 m 0–2", "Seams k 150 m 3–6"]
        );
        assert!(out[0].members.is_empty());
        let m: Vec<&str> = out[2].members.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(
            m,
            [
                "Seams k 150 m 3",
                "Seams k 150 m 4",
                "Seams k 150 m 5",
                "Seams k 150 m 6"
            ]
        );
        // The middle member's settings stand for the row.
        assert_eq!(out[2].settings, seams(150, 5, None));
    }

    #[test]
    fn a_fold_never_claims_a_combination_it_did_not_measure() {
        let a = [true, false];
        let b = [false, true];
        // k 100 m 1 and k 150 m 2 share an outcome; k 100 m 2 and k 150 m 1 do not.
        let rows = vec![
            row(seams(100, 1, None), &a),
            row(seams(100, 2, None), &b),
            row(seams(150, 1, None), &b),
            row(seams(150, 2, None), &a),
        ];
        let out = fold_rows(rows);
        assert_eq!(
            out.len(),
            4,
            "{:?}",
            out.iter().map(|r| &r.label).collect::<Vec<_>>()
        );
        // A full grid folds both ways; a gap in a knob's grid shows as a list.
        let f = [false, false];
        let scar = |tau, penalty| RowSettings::Scar { tau, penalty };
        let mut rows = Vec::new();
        for tau in [0.5, 0.6, 0.7, 0.8] {
            for penalty in [0.0, 0.5] {
                let outcome = if tau == 0.7 { &a } else { &f };
                rows.push(row(scar(tau, penalty), outcome));
            }
        }
        let out = fold_rows(rows);
        let labels: Vec<&str> = out.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "SCAR τ 0.50–0.60, 0.80 λ 0.00–0.50",
                "SCAR τ 0.70 λ 0.00–0.50"
            ]
        );
        assert_eq!(out[0].members.len(), 6);
    }

    #[test]
    fn side_drop_on_and_off_fold_when_they_agree() {
        let f = [false, true];
        let rows = vec![
            row(seams(150, 4, None), &f),
            row(seams(150, 4, Some(0.25)), &f),
            row(seams(150, 5, None), &f),
            row(seams(150, 5, Some(0.25)), &f),
        ];
        let out = fold_rows(rows);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].label, "Seams k 150 m 4–5 ± side drop 0.25");
        // Rows of different families never fold, nor rows sending different tokens.
        let mut other = row(seams(150, 6, None), &f);
        other.tokens_sent[0] += 1;
        let out = fold_rows(vec![
            row(seams(150, 4, None), &f),
            other,
            row(RowSettings::Neighbour, &f),
        ]);
        assert_eq!(out.len(), 3);
    }
}
