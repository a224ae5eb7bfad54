//! The white paper's rule, kept as a diagnostic: from two head-start samples to a margin, the
//! working range and the overlap warning. (The recommendation itself is measured: see
//! [`objective`](super::objective).)
//!
//! A seam at fused position `s` fires over a chunk at position `c` when `s + m ≤ c`, that is when
//! its head start `h = c - s` is at least `m`. So a fact "fires" at margin `m` exactly when
//! `h ≥ m`, and stays quiet when `h ≤ m - 1`.
//!
//! **The rule's m** — the smallest margin at which at least [`QUIET_PERCENT`] (90) percent of the
//! unsplit facts stay quiet. Because the nearest-rank 90th percentile `p90` is the smallest value
//! with at least 90% of the sample at or below it, that margin is `m = p90 + 1` ("just above the
//! 90th percentile"). It is never below 1: two entries never share a fused position, so `m = 0`
//! and `m = 1` are the same test, and 1 reads plainly as "the seam must outrank the chunk".
//!
//! **Working range** — from the recommended `m` up to the largest margin at which at least half of
//! the crossing facts still fire. Any `m` inside keeps nine in ten unsplit facts quiet and lets
//! at least half of the split facts fire.
//!
//! **Heavy overlap** — the working range is empty: at the recommended `m`, fewer than half of the
//! sentences that cross a cut would fire their seam (equivalently, the largest margin that fires
//! half of them lies below the recommended `m`). The white paper reads this as a collection
//! outside the setting Seams is designed for, because its split evidence does not make seams
//! stand out from their chunks.

use serde::{Deserialize, Serialize};

use super::stats::{percentile, sorted};

/// Share of unsplit facts the recommended margin keeps quiet, in percent.
pub const QUIET_PERCENT: u32 = 90;

/// Below this many measured sentences of either kind, the report warns that percentiles are rough.
pub const FEW_SAMPLES: usize = 20;

/// The rule behind the recommended margin, in words, for reports and screens.
pub const RULE: &str = "m = p90(unsplit head starts) + 1, at least 1: the smallest margin at which at least 90% of unsplit facts do not fire (a head start h fires iff h >= m; p90 by nearest rank)";

/// The rule behind the heavy-overlap warning, in words.
pub const OVERLAP_RULE: &str = "heavy overlap = the working range is empty: at the recommended m, fewer than half of the sentences that cross a cut would fire their seam";

/// Share of head starts that fire at margin `m` (`h ≥ m`); 0 for an empty sample.
pub fn firing_share(values: &[i64], m: i64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().filter(|&&h| h >= m).count() as f64 / values.len() as f64
}

/// The recommended margin for the unsplit head starts: `max(p90 + 1, 1)`; `None` when empty.
pub fn recommend_m(unsplit: &[i64]) -> Option<u32> {
    let p90 = percentile(&sorted(unsplit), QUIET_PERCENT)?;
    Some(p90.saturating_add(1).clamp(1, i64::from(u32::MAX)) as u32)
}

/// The largest margin at which at least half of `crossing` fires; `None` when empty.
///
/// Sorted ascending, that is the value at 0-based index `⌊n/2⌋`: every value from there up (at
/// least half of them) is `≥` it, and one more place would leave fewer than half.
pub fn half_firing_margin(crossing: &[i64]) -> Option<i64> {
    let s = sorted(crossing);
    s.get(s.len() / 2).copied()
}

/// The margins between the two distributions, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkingRange {
    /// The recommended margin.
    pub low: u32,
    /// The largest margin at which at least half of the crossing facts still fire.
    pub high: u32,
}

/// What the white paper's rule concludes from the two head-start samples (a diagnostic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperRule {
    /// The rule's margin, when there were unsplit facts.
    pub recommended_m: Option<u32>,
    /// Share of unsplit facts that fire at the recommended margin (at most 10%).
    pub unsplit_firing: Option<f64>,
    /// Share of crossing facts that fire at the recommended margin.
    pub crossing_firing: Option<f64>,
    /// The largest margin at which at least half of the crossing facts fire.
    pub half_firing_margin: Option<i64>,
    /// The working range; `None` when it is empty or a sample is missing.
    pub working_range: Option<WorkingRange>,
    /// Whether the two distributions overlap heavily (see the module docs).
    pub heavy_overlap: bool,
}

/// Apply the rules above to the two samples of head starts.
pub fn judge(unsplit: &[i64], crossing: &[i64]) -> PaperRule {
    let recommended_m = recommend_m(unsplit);
    let half = half_firing_margin(crossing);
    let working_range = match (recommended_m, half) {
        (Some(low), Some(high)) if high >= i64::from(low) => Some(WorkingRange {
            low,
            high: high.min(i64::from(u32::MAX)) as u32,
        }),
        _ => None,
    };
    let heavy_overlap =
        matches!((recommended_m, half), (Some(low), Some(high)) if high < i64::from(low));
    PaperRule {
        recommended_m,
        unsplit_firing: recommended_m.map(|m| firing_share(unsplit, i64::from(m))),
        crossing_firing: recommended_m
            .filter(|_| !crossing.is_empty())
            .map(|m| firing_share(crossing, i64::from(m))),
        half_firing_margin: half,
        working_range,
        heavy_overlap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommended_m_is_just_above_the_unsplit_p90() {
        // Ten values: p90 = 9th smallest = 6, so m = 7; only the 12 (one in ten) fires.
        let unsplit = [-30, -12, -4, -1, 0, 2, 3, 5, 6, 12];
        assert_eq!(recommend_m(&unsplit), Some(7));
        assert!((firing_share(&unsplit, 7) - 0.1).abs() < 1e-12);
        // m = 6 would let two in ten fire: 7 is the smallest margin that keeps 90% quiet.
        assert!((firing_share(&unsplit, 6) - 0.2).abs() < 1e-12);
        // A negative p90 (chunks nearly always ahead) still recommends the plain test m = 1.
        assert_eq!(recommend_m(&[-9, -8, -7, -3]), Some(1));
        assert_eq!(recommend_m(&[]), None);
    }

    #[test]
    fn the_rule_holds_for_every_small_sample() {
        // For many fixed samples, m is the smallest margin that keeps at least 90% quiet.
        for n in 1..=40i64 {
            let values: Vec<i64> = (0..n).map(|i| (i * 7919) % 23 - 8).collect();
            let m = i64::from(recommend_m(&values).unwrap());
            assert!(firing_share(&values, m) <= 0.1 + 1e-12, "n={n} m={m}");
            if m > 1 {
                assert!(
                    firing_share(&values, m - 1) > 0.1,
                    "n={n}: {m} is not the smallest"
                );
            }
        }
    }

    #[test]
    fn half_firing_margin_keeps_at_least_half_firing() {
        // Sorted 1 2 5 6: at m = 5 two of four fire, at m = 6 only one.
        assert_eq!(half_firing_margin(&[6, 1, 5, 2]), Some(5));
        assert_eq!(half_firing_margin(&[3, 9, 4]), Some(4));
        assert_eq!(half_firing_margin(&[]), None);
    }

    #[test]
    fn separated_samples_give_a_working_range() {
        let unsplit = [-20, -10, -5, -3, -2, -1, 0, 1, 2, 8]; // p90 = 2 → m = 3
        let crossing = [-1, 4, 6, 9, 15, 20]; // half fire up to m = 9
        let v = judge(&unsplit, &crossing);
        assert_eq!(v.recommended_m, Some(3));
        assert_eq!(v.half_firing_margin, Some(9));
        assert_eq!(v.working_range, Some(WorkingRange { low: 3, high: 9 }));
        assert!(!v.heavy_overlap);
        assert!((v.crossing_firing.unwrap() - 5.0 / 6.0).abs() < 1e-12);
        assert!((v.unsplit_firing.unwrap() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn overlapping_samples_warn_and_have_no_range() {
        let unsplit = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]; // p90 = 8 → m = 9
        let crossing = [-4, 1, 3, 7, 10]; // half fire up to m = 3 < 9
        let v = judge(&unsplit, &crossing);
        assert_eq!(v.recommended_m, Some(9));
        assert_eq!(v.working_range, None);
        assert!(v.heavy_overlap);
        assert!((v.crossing_firing.unwrap() - 0.2).abs() < 1e-12);
        // Touching at one margin is a range of one, not an overlap.
        let v = judge(&unsplit, &[9, 9, 1]);
        assert_eq!(v.working_range, Some(WorkingRange { low: 9, high: 9 }));
        assert!(!v.heavy_overlap);
    }

    #[test]
    fn missing_samples_give_no_range_and_no_overlap_claim() {
        let v = judge(&[], &[3, 4]);
        assert_eq!(
            (v.recommended_m, v.working_range, v.heavy_overlap),
            (None, None, false)
        );
        let v = judge(&[1, 2], &[]);
        assert_eq!(v.recommended_m, Some(3));
        assert_eq!((v.working_range, v.crossing_firing), (None, None));
        assert!(!v.heavy_overlap);
    }
}
