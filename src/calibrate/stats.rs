//! Percentiles and histograms of head starts: plain integer arithmetic, no model, no I/O.
//!
//! **Percentile, by nearest rank.** For `n` values sorted ascending and `0 < p ≤ 100`, the `p`th
//! percentile is the value at 1-based rank `⌈p·n / 100⌉`; the 0th percentile is the smallest
//! value. So it is always one of the sampled values, and it is the smallest value `v` with at
//! least `p`% of the sample at or below `v`. That last property is what the recommendation of `m`
//! rests on (see [`recommend`](super::recommend)). Example: for the ten values 1..=10 the 90th
//! percentile has rank ⌈9⌉ = 9, the value 9; for seven values it has rank ⌈6.3⌉ = 7, the largest.
//!
//! **Histogram bins.** Both distributions are drawn over the same bins, so they can be read side
//! by side: see [`BinSpec::choose`].

use serde::{Deserialize, Serialize};

/// The 1-based rank the nearest-rank method takes for percentile `p` (clamped to 100) of `n`
/// values; `n` must be at least 1.
pub fn nearest_rank(p: u32, n: usize) -> usize {
    let p = p.min(100) as usize;
    // ⌈p·n / 100⌉ in integers, never below rank 1.
    (p * n).div_ceil(100).max(1)
}

/// The `p`th percentile (nearest rank) of values already sorted ascending; `None` when empty.
pub fn percentile(sorted: &[i64], p: u32) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[nearest_rank(p, sorted.len()) - 1])
}

/// A copy of `values`, sorted ascending.
pub fn sorted(values: &[i64]) -> Vec<i64> {
    let mut v = values.to_vec();
    v.sort_unstable();
    v
}

/// A distribution's summary: its size, extremes and nearest-rank percentiles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Number of values.
    pub count: usize,
    /// Smallest value.
    pub min: i64,
    /// 10th percentile.
    pub p10: i64,
    /// 50th percentile (the median by nearest rank: the lower middle value for an even count).
    pub p50: i64,
    /// 90th percentile.
    pub p90: i64,
    /// Largest value.
    pub max: i64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Spread {
    /// The summary of `values`, or `None` when there are none.
    pub fn of(values: &[i64]) -> Option<Spread> {
        let s = sorted(values);
        let (&min, &max) = (s.first()?, s.last()?);
        Some(Spread {
            count: s.len(),
            min,
            p10: percentile(&s, 10)?,
            p50: percentile(&s, 50)?,
            p90: percentile(&s, 90)?,
            max,
            mean: s.iter().map(|&v| v as f64).sum::<f64>() / s.len() as f64,
        })
    }
}

/// Most regular bins a histogram gets (one more may appear when bins are aligned to start at 1).
pub const MAX_BINS: i64 = 16;

/// The shape of a histogram: `count` bins of `width` integers starting at `lo`, plus an open bin
/// below `lo` and one above the last regular bin for values outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinSpec {
    /// First value of the first regular bin.
    pub lo: i64,
    /// Integers per regular bin, at least 1.
    pub width: i64,
    /// Number of regular bins, at least 1.
    pub count: i64,
}

/// One bar of a histogram: an integer range and how many head starts of each kind fell in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bin {
    /// Smallest value in the bin; `None` for the open bin at the bottom.
    pub from: Option<i64>,
    /// Largest value in the bin; `None` for the open bin at the top.
    pub to: Option<i64>,
    /// Unsplit sentences whose head start falls here.
    pub unsplit: usize,
    /// Crossing sentences whose head start falls here.
    pub crossing: usize,
}

impl Bin {
    /// A short label: `≤ -12`, `-11..-8`, `5`, `≥ 40`.
    pub fn label(&self) -> String {
        match (self.from, self.to) {
            (None, Some(to)) => format!("≤ {to}"),
            (Some(from), None) => format!("≥ {from}"),
            (Some(from), Some(to)) if from == to => format!("{from}"),
            (Some(from), Some(to)) => format!("{from}..{to}"),
            (None, None) => "all".to_string(),
        }
    }

    /// Whether `value` falls in this bin.
    pub fn holds(&self, value: i64) -> bool {
        self.from.is_none_or(|f| value >= f) && self.to.is_none_or(|t| value <= t)
    }
}

/// `⌈a / b⌉` for `a ≥ 0` and `b > 0` (`i64::div_ceil` is not stable).
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

impl BinSpec {
    /// Bins for the combined values of both samples, or `None` when there are no values.
    ///
    /// The regular bins cover the 5th to the 95th percentile of all values together, widened to
    /// take in every value of `marks` (the recommended `m`, 0 and 1, so the line between "seam
    /// behind" and "seam ahead" is always visible); the tails beyond go to the two open bins. The
    /// width is the smallest integer that fits the range into [`MAX_BINS`] bins, and the bins are
    /// shifted so that one of them starts at 1 (head start 1 = the seam just ahead of its chunk).
    pub fn choose(values: &[i64], marks: &[i64]) -> Option<BinSpec> {
        let all = sorted(values);
        let mut lo = percentile(&all, 5)?;
        let mut hi = percentile(&all, 95)?;
        for &m in marks {
            lo = lo.min(m);
            hi = hi.max(m);
        }
        let width = ceil_div(hi - lo + 1, MAX_BINS).max(1);
        // Move lo down to the nearest bin start that keeps 1 on a bin edge.
        let lo = lo - (lo - 1).rem_euclid(width);
        let count = ceil_div(hi - lo + 1, width).max(1);
        Some(BinSpec { lo, width, count })
    }

    /// Last value of the last regular bin.
    pub fn hi(&self) -> i64 {
        self.lo + self.width * self.count - 1
    }

    /// Count both samples into these bins. The open bins appear only when a value falls in them.
    pub fn histogram(&self, unsplit: &[i64], crossing: &[i64]) -> Vec<Bin> {
        let mut bins: Vec<Bin> = (0..self.count)
            .map(|i| Bin {
                from: Some(self.lo + i * self.width),
                to: Some(self.lo + (i + 1) * self.width - 1),
                unsplit: 0,
                crossing: 0,
            })
            .collect();
        let mut below = Bin {
            from: None,
            to: Some(self.lo - 1),
            unsplit: 0,
            crossing: 0,
        };
        let mut above = Bin {
            from: Some(self.hi() + 1),
            to: None,
            unsplit: 0,
            crossing: 0,
        };
        for (values, is_unsplit) in [(unsplit, true), (crossing, false)] {
            for &v in values {
                let bin = if v < self.lo {
                    &mut below
                } else if v > self.hi() {
                    &mut above
                } else {
                    &mut bins[((v - self.lo) / self.width) as usize]
                };
                if is_unsplit {
                    bin.unsplit += 1;
                } else {
                    bin.crossing += 1;
                }
            }
        }
        let mut out = Vec::with_capacity(bins.len() + 2);
        if below.unsplit + below.crossing > 0 {
            out.push(below);
        }
        out.extend(bins);
        if above.unsplit + above.crossing > 0 {
            out.push(above);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_match_hand_computed_values() {
        let ten: Vec<i64> = (1..=10).collect();
        // ⌈0.9·10⌉ = 9, ⌈0.5·10⌉ = 5, ⌈0.1·10⌉ = 1.
        assert_eq!(percentile(&ten, 90), Some(9));
        assert_eq!(percentile(&ten, 50), Some(5));
        assert_eq!(percentile(&ten, 10), Some(1));
        assert_eq!(percentile(&ten, 100), Some(10));
        assert_eq!(percentile(&ten, 0), Some(1));
        // Seven values: ⌈6.3⌉ = 7 (the largest), ⌈3.5⌉ = 4.
        let seven = sorted(&[40, -3, 7, 0, 12, 5, -9]); // -9 -3 0 5 7 12 40
        assert_eq!(percentile(&seven, 90), Some(40));
        assert_eq!(percentile(&seven, 50), Some(5));
        // Twenty values: ⌈18⌉ = 18.
        let twenty: Vec<i64> = (0..20).map(|i| i * 2).collect();
        assert_eq!(percentile(&twenty, 90), Some(34));
        assert_eq!(percentile(&[], 90), None);
        assert_eq!(percentile(&[4], 90), Some(4));
        assert_eq!(nearest_rank(90, 60), 54);
        assert_eq!(nearest_rank(95, 61), 58); // 57.95 rounds up
    }

    #[test]
    fn spread_summarises_a_sample() {
        let s = Spread::of(&[3, -1, 8, 2, 2]).unwrap(); // -1 2 2 3 8
        assert_eq!((s.count, s.min, s.max), (5, -1, 8));
        assert_eq!((s.p10, s.p50, s.p90), (-1, 2, 8));
        assert!((s.mean - 2.8).abs() < 1e-9);
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn bins_cover_the_middle_and_start_one_bin_at_one() {
        // Values -20..=19 (40 values): p5 = rank 2 = -19, p95 = rank 38 = 17.
        let values: Vec<i64> = (-20..20).collect();
        let spec = BinSpec::choose(&values, &[0, 1]).unwrap();
        // Range -19..=17 is 37 integers: width ⌈37/16⌉ = 3; lo moves from -19 to -20 so that
        // (1 - lo) is a multiple of 3; 13 bins reach 18 ≥ 17.
        assert_eq!(
            spec,
            BinSpec {
                lo: -20,
                width: 3,
                count: 13
            }
        );
        assert_eq!(spec.hi(), 18);
        let bins = spec.histogram(&values, &[]);
        assert!(bins.iter().any(|b| b.from == Some(1) && b.to == Some(3)));
        assert_eq!(bins.iter().map(|b| b.unsplit).sum::<usize>(), 40);
        // 19 lies above 18: an open bin at the top holds it.
        let top = bins.last().unwrap();
        assert_eq!((top.from, top.to, top.unsplit), (Some(19), None, 1));
        assert_eq!(top.label(), "≥ 19");
    }

    #[test]
    fn histogram_counts_both_kinds_in_shared_bins() {
        let spec = BinSpec {
            lo: -2,
            width: 2,
            count: 3,
        }; // bins -2..-1, 0..1, 2..3
        let bins = spec.histogram(&[-5, -2, -1, 0, 3, 3, 9], &[1, 2, 4]);
        let rows: Vec<(String, usize, usize)> = bins
            .iter()
            .map(|b| (b.label(), b.unsplit, b.crossing))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("≤ -3".to_string(), 1, 0),
                ("-2..-1".to_string(), 2, 0),
                ("0..1".to_string(), 1, 1),
                ("2..3".to_string(), 2, 1),
                ("≥ 4".to_string(), 1, 1),
            ]
        );
        assert!(bins[2].holds(1) && !bins[2].holds(2));
        // No value outside: no open bins.
        assert_eq!(spec.histogram(&[0], &[]).len(), 3);
    }

    #[test]
    fn narrow_samples_get_one_integer_per_bin() {
        let spec = BinSpec::choose(&[2, 2, 3], &[0, 1, 4]).unwrap();
        assert_eq!(
            spec,
            BinSpec {
                lo: 0,
                width: 1,
                count: 5
            }
        );
        let labels: Vec<String> = spec
            .histogram(&[2, 2, 3], &[])
            .iter()
            .map(Bin::label)
            .collect();
        assert_eq!(labels, vec!["0", "1", "2", "3", "4"]);
        assert_eq!(BinSpec::choose(&[], &[1]), None);
    }
}
