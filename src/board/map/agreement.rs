//! How well a kind of map question agrees with gold questions on the same corpus.
//!
//! Strategies differ only on evidence a cut splits, so agreement is measured there: each
//! family's failure rate on the split map passages (its best setting, the bands weighted as the
//! gold set's split questions fall on them) against the same family on the split gold
//! questions. Two figures summarise it: Seams' gain over chunks only under each, and the rank
//! correlation of the families' rates (Spearman's ρ, ties averaged).

use serde::Serialize;

use super::super::{Board, Family};

/// One family's failure rate on split evidence, under the map's questions and under gold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilySplit {
    /// The family.
    pub family: Family,
    /// Its best setting's failure rate on the split map passages (bands weighted like gold).
    pub map: f64,
    /// Its best setting's failure rate on the split gold questions.
    pub gold: f64,
}

/// How one kind of map question agreed with the gold questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindAgreement {
    /// The kind of question.
    pub kind: super::QuestionKind,
    /// Split map passages of this kind scored (in bands that hold split gold questions).
    pub split_passages: usize,
    /// Split gold questions.
    pub gold_split: usize,
    /// Each family's rates, in board family order.
    pub families: Vec<FamilySplit>,
    /// Chunks only's failure rate minus Seams' on split map passages (`None` without both).
    pub seams_gain_map: Option<f64>,
    /// The same on split gold questions.
    pub seams_gain_gold: Option<f64>,
    /// Spearman's ρ between the families' map and gold rates (`None` under three families or
    /// when either side ranks them all equal).
    pub rank_correlation: Option<f64>,
}

/// Where one question lies: its band (`None`: no band) and its index in the board's questions.
pub type Placed = (Option<usize>, usize);

/// Agreement of `kind`'s split passages `map_split` with the split gold questions `gold_split`
/// over `bands` bands. A gold question outside every band weighs on the nearest one (`below`:
/// the first, else the last), since a map has no passage of its length.
pub fn agreement(
    board: &Board,
    kind: super::QuestionKind,
    bands: usize,
    map_split: &[Placed],
    gold_split: &[(Option<usize>, bool, usize)],
) -> KindAgreement {
    let (weight, per_band) = band_weights(bands, map_split, gold_split);
    let total: f64 = weight.iter().sum();
    let gold_at: Vec<usize> = gold_split.iter().map(|g| g.2).collect();
    let rate_map = |failed: &[bool]| -> Option<f64> {
        (total > 0.0).then(|| {
            per_band
                .iter()
                .zip(&weight)
                .filter(|(qs, w)| !qs.is_empty() && **w > 0.0)
                .map(|(qs, w)| {
                    let f = qs.iter().filter(|&&q| failed[q]).count();
                    w / total * f as f64 / qs.len() as f64
                })
                .sum()
        })
    };
    let rate_gold = |failed: &[bool]| -> Option<f64> {
        (!gold_at.is_empty())
            .then(|| gold_at.iter().filter(|&&q| failed[q]).count() as f64 / gold_at.len() as f64)
    };
    let best = |family: Family, rate: &dyn Fn(&[bool]) -> Option<f64>| {
        board
            .rows
            .iter()
            .filter(|r| r.family == family)
            .filter_map(|r| rate(&r.failed))
            .min_by(f64::total_cmp)
    };
    let families: Vec<FamilySplit> = Family::ALL
        .iter()
        .filter_map(|&family| {
            Some(FamilySplit {
                family,
                map: best(family, &rate_map)?,
                gold: best(family, &rate_gold)?,
            })
        })
        .collect();
    let of = |f: Family| families.iter().find(|x| x.family == f);
    let gain =
        |pick: fn(&FamilySplit) -> f64| Some(pick(of(Family::None)?) - pick(of(Family::Seams)?));
    let map_rates: Vec<f64> = families.iter().map(|f| f.map).collect();
    let gold_rates: Vec<f64> = families.iter().map(|f| f.gold).collect();
    KindAgreement {
        kind,
        split_passages: per_band
            .iter()
            .zip(&weight)
            .filter(|(_, w)| **w > 0.0)
            .map(|(qs, _)| qs.len())
            .sum(),
        gold_split: gold_at.len(),
        seams_gain_map: gain(|f| f.map),
        seams_gain_gold: gain(|f| f.gold),
        rank_correlation: spearman(&map_rates, &gold_rates),
        families,
    }
}

/// Each band's weight, the gold split questions in it (those outside every band on the
/// nearest band), kept only where the map has split passages too; and the map's split passages
/// per band.
fn band_weights(
    bands: usize,
    map_split: &[Placed],
    gold_split: &[(Option<usize>, bool, usize)],
) -> (Vec<f64>, Vec<Vec<usize>>) {
    let mut weight = vec![0.0f64; bands];
    for &(band, below, _) in gold_split {
        let b = band.unwrap_or(if below { 0 } else { bands.saturating_sub(1) });
        if let Some(w) = weight.get_mut(b) {
            *w += 1.0;
        }
    }
    let mut per_band: Vec<Vec<usize>> = vec![Vec::new(); bands];
    for &(band, q) in map_split {
        if let Some(b) = band.filter(|&b| b < bands) {
            per_band[b].push(q);
        }
    }
    for (w, qs) in weight.iter_mut().zip(&per_band) {
        if qs.is_empty() {
            *w = 0.0;
        }
    }
    (weight, per_band)
}

/// Ranks of `x`, 1-based, ties given their average rank.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut out = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            out[o] = avg;
        }
        i = j + 1;
    }
    out
}

/// Spearman's ρ of `a` and `b` (Pearson's r of their ranks); `None` under three values or when
/// either has no spread.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

impl KindAgreement {
    /// The agreement in words: `one-sided: Seams' gain on split evidence 12 points (gold 14),
    /// family rank correlation ρ 0.82 (7 families, 89 split passages, 41 split gold questions)`.
    pub fn words(&self) -> String {
        let pts = |g: Option<f64>| g.map_or("-".to_string(), |g| format!("{:+.0}", g * 100.0));
        format!(
            "{}: Seams' gain over chunks only on split evidence {} points (gold {}), family rank correlation {} ({} families, {} split passages, {} split gold questions)",
            self.kind.name(),
            pts(self.seams_gain_map),
            pts(self.seams_gain_gold),
            self.rank_correlation
                .map_or("-".to_string(), |r| format!("ρ {r:.2}")),
            self.families.len(),
            self.split_passages,
            self.gold_split
        )
    }

    /// How well it agreed, for ranking kinds: the rank correlation first (missing counts as
    /// none), then the smaller gap between Seams' gains.
    pub fn score(&self) -> (f64, f64) {
        let gap = match (self.seams_gain_map, self.seams_gain_gold) {
            (Some(m), Some(g)) => -(m - g).abs(),
            _ => f64::NEG_INFINITY,
        };
        (self.rank_correlation.unwrap_or(f64::NEG_INFINITY), gap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_ranks_with_ties_averaged() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[3.0, 2.0, 1.0]), None);
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        let r = spearman(&[1.0, 2.0, 2.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((r - 0.9487).abs() < 1e-3, "{r}");
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), vec![2.5, 1.0, 2.5]);
    }
}
