//! Where a bundle's settings came from, as its `settings.json` records it: the calibration
//! report behind its `m` (with what the calibration said about Seams), the strategy-board row
//! behind its `k` and `m`, `--m`, or the settings. These are plain records of the bundle
//! format: the meters fill them (the calibration is read and checked by
//! [`crate::calibrate::provenance`], the board row by [`crate::board::origin`]) and the bundle
//! reader reads them back without knowing the meters.

use serde::{Deserialize, Serialize};

/// Where a bundle's `m` came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarginSource {
    /// The recommendation of the calibration recorded beside it.
    Calibration,
    /// A row of the strategy board recorded beside it (`export --from-tune`).
    Tune,
    /// `--m` on the command line.
    Flag,
    /// The settings file, or the default.
    Settings,
}

/// The calibration a bundle's `m` came from, as `settings.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationOrigin {
    /// The report file, as given to `export --calibration`.
    pub file: String,
    /// blake3 of the report file, so the exact report can be found again.
    pub blake3: String,
    /// The corpus it measured.
    pub corpus: String,
    /// The embedder whose vectors it measured (absent in reports written before it was
    /// recorded).
    #[serde(default)]
    pub embedder: Option<String>,
    /// The layout it measured (`fixed-1024`, …) and its seam half-width.
    pub chunker: String,
    /// Seam half-width it measured.
    pub k: usize,
    /// The budget the failure rates are at.
    pub budget: usize,
    /// Hits per search list.
    pub depth: usize,
    /// The fusion constant.
    pub rrf_c: f64,
    /// What the failure curve was measured on (passages drawn over the corpus, or a question set).
    pub objective_source: String,
    /// Who wrote the questions (offline generator, a language model).
    pub generator: String,
    /// The sampling seed.
    pub seed: u64,
    /// The recommended margin (none when nothing could be measured).
    pub recommended_m: Option<u32>,
    /// Failure rate at the recommended margin.
    pub failure_rate: Option<f64>,
    /// Failure rate with Seams off, at the same budget.
    pub off_failure_rate: Option<f64>,
    /// Whether Seams helps on that sample, with its test.
    pub benefit: Benefit,
    /// The verdict in words.
    pub summary: String,
}

/// What the measurement says about Seams on this sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Benefit {
    /// Seams at its best margin fails less than chunks-only, beyond noise.
    Helps {
        /// The paired comparison, best margin against Seams off.
        diff: PairedDiff,
    },
    /// Seams at its best margin fails less than chunks-only, but the difference is noise.
    WithinNoise {
        /// The paired comparison, best margin against Seams off.
        diff: PairedDiff,
    },
    /// Seams at its best margin does not fail less than chunks-only: the corpus lies outside the
    /// setting Seams is designed for (on this sample).
    OutsideSetting {
        /// Failures with Seams at its best margin.
        seams_failures: usize,
        /// Failures with chunks-only retrieval.
        off_failures: usize,
        /// The paired comparison, best margin against Seams off.
        diff: PairedDiff,
    },
    /// No chunks-only run to compare with, or nothing was measured.
    Unknown,
}

/// The paired comparison of one point with another over the same questions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedDiff {
    /// Questions this point answers and the other misses.
    pub gained: usize,
    /// Questions the other answers and this point misses.
    pub lost: usize,
    /// Two-sided exact sign test.
    pub p: f64,
    /// Whether the difference is noise (`p ≥ 0.05`).
    pub noise: bool,
}

/// The board row a bundle's settings came from, as `settings.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneOrigin {
    /// The report file, as given to `export --from-tune`.
    pub file: String,
    /// blake3 of the report file.
    pub blake3: String,
    /// The row chosen.
    pub row: String,
    /// Where the board's questions came from.
    pub source: String,
    /// Questions behind it.
    pub questions: usize,
    /// The embedder whose rankings were measured.
    pub embedder: String,
    /// The layout measured (`fixed-1024`, …).
    pub chunker: String,
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Seam half-width.
    pub k: usize,
    /// Fire margin.
    pub m: u32,
    /// Side-drop threshold (`None`: off).
    pub side_drop: Option<f32>,
    /// The budget measured.
    pub budget: usize,
    /// The row's failure rate and its 95% interval.
    pub failure_rate: f64,
    /// Low end of the interval.
    pub interval_low: f64,
    /// High end of the interval.
    pub interval_high: f64,
    /// The board's verdict in words, when it had one.
    pub verdict: Option<String>,
}
