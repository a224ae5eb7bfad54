//! `seamscope bench`: the speed figures the issues name, printed (never asserted in tests).

pub mod draw;
pub mod ingest;
pub mod query;

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchKind {
    /// Ingest tokens/s and the pipeline's overhead over calling the model directly.
    Ingest,
    /// Re-planning after an `m` change, and a full query against embedding the question alone.
    Query,
    /// Time to draw one frame of each screen at 200 x 60, on a real question.
    Draw,
}

/// Min, median, mean and max of a set of timings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    /// The fastest.
    pub min: f64,
    /// The middle one (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The mean.
    pub mean: f64,
    /// The slowest.
    pub max: f64,
}

impl Spread {
    /// The spread of `samples` (all zero when there are none).
    pub fn of(samples: &[f64]) -> Spread {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        if n == 0 {
            return Spread {
                min: 0.0,
                median: 0.0,
                mean: 0.0,
                max: 0.0,
            };
        }
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Spread {
            min: sorted[0],
            median,
            mean: sorted.iter().sum::<f64>() / n as f64,
            max: sorted[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Spread;

    #[test]
    fn bench_spread_of_odd_even_and_no_samples() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.min, s.median, s.mean, s.max), (1.0, 2.0, 2.0, 3.0));
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert_eq!(Spread::of(&[]).max, 0.0);
    }
}
