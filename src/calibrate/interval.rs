//! How sure a measured failure rate is: a 95% interval per rate, and a paired test between two
//! settings scored on the same questions.
//!
//! - [`wilson`]: the Wilson score interval for `k` failures in `n` questions. Unlike `p ± 1.96·se`
//!   it stays inside `[0, 1]` and is sensible at 0 and `n` failures, which small samples hit often.
//! - [`sign_test`]: two settings answered the same questions; only the questions on which they
//!   disagree say anything about which is better. With `b` questions only the first answers and
//!   `c` only the second, under "no difference" each disagreement is a fair coin, so the two-sided
//!   exact binomial (McNemar) p-value is `min(1, 2·P(X ≤ min(b, c)))` for `X ~ Bin(b + c, ½)`.
//!   Two rates whose p-value is at least [`NOISE_P`] are shown as indistinguishable.

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// p-value at or above which a difference between two settings is called noise.
pub const NOISE_P: f64 = 0.05;

/// A 95% interval for a rate, both ends in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// The Wilson score 95% interval of `k` successes in `n` trials; `[0, 1]` when `n` is 0.
pub fn wilson(k: usize, n: usize) -> Interval {
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let n_f = n as f64;
    let p = k.min(n) as f64 / n_f;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n_f)) / (1.0 + z2 / n_f);
    let half = Z95 / (1.0 + z2 / n_f) * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// `ln(n!)`, exact summation (n stays in the thousands here).
fn ln_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

/// Two-sided exact sign test for `b` questions won by one side and `c` by the other.
///
/// 1.0 when there is no disagreement at all.
pub fn sign_test(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let low = b.min(c);
    let ln_n = ln_factorial(n);
    let ln_half_n = n as f64 * 0.5f64.ln();
    let tail: f64 = (0..=low)
        .map(|k| (ln_n - ln_factorial(k) - ln_factorial(n - k) + ln_half_n).exp())
        .sum();
    (2.0 * tail).min(1.0)
}

/// The sign test between two answered/missed vectors over the same questions.
///
/// Returns `(only_first, only_second, p)`.
pub fn paired(first: &[bool], second: &[bool]) -> (usize, usize, f64) {
    let only_first = first
        .iter()
        .zip(second)
        .filter(|(a, b)| **a && !**b)
        .count();
    let only_second = first
        .iter()
        .zip(second)
        .filter(|(a, b)| !**a && **b)
        .count();
    (only_first, only_second, sign_test(only_first, only_second))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values_and_stays_in_range() {
        // 10 of 100: the textbook Wilson interval is about 5.5% to 17.4%.
        let i = wilson(10, 100);
        assert!((i.low - 0.0552).abs() < 5e-4, "{i:?}");
        assert!((i.high - 0.1744).abs() < 5e-4, "{i:?}");
        // No failures still leaves room above 0; all failures room below 1.
        let z = wilson(0, 20);
        assert_eq!(z.low, 0.0);
        assert!(z.high > 0.1 && z.high < 0.2, "{z:?}");
        let all = wilson(20, 20);
        assert_eq!(all.high, 1.0);
        assert!(all.low > 0.8, "{all:?}");
        assert_eq!(
            wilson(0, 0),
            Interval {
                low: 0.0,
                high: 1.0
            }
        );
    }

    #[test]
    fn sign_test_matches_the_binomial() {
        // 0 vs 5: 2 · (1/2)^5 = 0.0625.
        assert!((sign_test(0, 5) - 0.0625).abs() < 1e-12);
        // 1 vs 9: 2 · (1 + 10)/1024.
        assert!((sign_test(9, 1) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(3, 3), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // Large counts stay finite and small.
        assert!(sign_test(10, 90) < 1e-10);
    }

    #[test]
    fn paired_counts_only_disagreements() {
        let a = [true, true, false, false, true];
        let b = [true, false, true, false, false];
        let (x, y, p) = paired(&a, &b);
        assert_eq!((x, y), (2, 1));
        assert!((p - 1.0).abs() < 1e-12);
    }
}
