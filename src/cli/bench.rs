//! `seamscope bench`: the speed figures the issues name, printed (never asserted in tests).

pub mod draw;
pub mod ingest;
pub mod open;
pub mod query;
pub mod rusage;
pub mod scale;
pub mod store;
pub mod traces;
pub mod variants;

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchKind {
    /// Ingest tokens/s and the pipeline's overhead over calling the model directly.
    Ingest,
    /// Re-planning after an `m` change, and a full query against embedding the question alone.
    Query,
    /// Time to draw one frame of each screen at 200 x 60, on a real question.
    Draw,
    /// Time to the documents pane, to a keyword-only answer and to the vectors, cold and warm.
    Open,
    /// What grows how: cold index time, tokens/s, peak memory, index size, warm reopen, k change,
    /// query latency and HNSW recall on 1x, 4x, 16x varied copies of the corpus.
    Scale,
    /// Every question over the embedded store and over the server given by `--store` (Chroma
    /// or pgvector) or `--chroma`: whether rankings, fire decisions and fills agree, the
    /// server's dense recall, and each store's latency per query.
    Store,
    /// Reading `--spans` spans of OTLP JSON written from the corpus' text (and placing every
    /// document): seconds and peak memory.
    Traces,
}

/// The `q`-quantile of `samples` (0 to 1), by the nearest-rank rule; 0 when there are none.
pub fn percentile(samples: &[f64], q: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
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
    fn bench_percentile_by_nearest_rank() {
        let s: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(super::percentile(&s, 0.95), 19.0);
        assert_eq!(super::percentile(&s, 0.5), 10.0);
        assert_eq!(super::percentile(&s, 1.0), 20.0);
        assert_eq!(super::percentile(&[7.0], 0.95), 7.0);
        assert_eq!(super::percentile(&[], 0.95), 0.0);
    }

    #[test]
    fn bench_spread_of_odd_even_and_no_samples() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.min, s.median, s.mean, s.max), (1.0, 2.0, 2.0, 3.0));
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert_eq!(Spread::of(&[]).max, 0.0);
    }
}
