//! A calibration as an export records it: a `seamscope calibrate --json` report, read, checked
//! against the layout being exported, and summarised into the bundle's `settings.json`, so
//! whoever deploys the bundle can see what `m` rests on.

use std::path::{Path, PathBuf};

use super::report::CalibrationReport;
pub use crate::export::provenance::CalibrationOrigin;

/// Why a calibration report cannot back an export.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    /// The file cannot be read.
    #[error("cannot read the calibration report {}: {error}", crate::text::safe_name(&.path.display().to_string()))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (quoted in the message, so not a `source`: a report of the whole chain says it once).
        error: crate::files::ReadFileError,
    },
    /// The file is not a `calibrate --json` report.
    #[error(
        "{} is not a calibration report ({why}): write one with `seamscope calibrate <folder> --json > FILE`",
        crate::text::safe_name(&.path.display().to_string())
    )]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        why: String,
    },
    /// The report measured another layout or other query settings.
    #[error(
        "the calibration in {} was measured with {what}: calibrate this layout again, or export the layout it measured",
        crate::text::safe_name(&.path.display().to_string())
    )]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// Which setting differs, both ways.
        what: String,
    },
}

impl CalibrationOrigin {
    /// Read the `calibrate --json` report at `path`.
    pub fn read(path: &Path) -> Result<CalibrationOrigin, ProvenanceError> {
        let bytes = crate::files::read_json(path).map_err(|error| ProvenanceError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let report: CalibrationReport =
            serde_json::from_slice(&bytes).map_err(|e| ProvenanceError::NotAReport {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        let setup = report.setup;
        let verdict = report.verdict;
        Ok(CalibrationOrigin {
            file: path.display().to_string(),
            blake3: blake3::hash(&bytes).to_hex().to_string(),
            corpus: setup.corpus,
            embedder: setup.embedder,
            chunker: setup.chunker,
            k: setup.k,
            budget: verdict.budget,
            depth: setup.depth,
            rrf_c: setup.rrf_c,
            objective_source: setup.objective_source,
            generator: setup.generator,
            seed: setup.seed,
            recommended_m: verdict.recommended_m,
            failure_rate: verdict.failure_rate,
            off_failure_rate: verdict.off_failure_rate,
            benefit: verdict.benefit,
            summary: verdict.summary,
        })
    }

    /// Check that the report measured this layout (`chunker`, `k`) under these query settings;
    /// a margin calibrated for another layout, depth or fusion constant does not carry over, nor
    /// to another budget when the bundle takes its `m` from the report (`m_from_report`).
    pub fn check(
        &self,
        embedder: &str,
        (chunker, k): (&str, usize),
        (budget, depth, rrf_c): (usize, usize, f64),
        m_from_report: bool,
    ) -> Result<(), ProvenanceError> {
        let differs = [
            self.embedder
                .as_deref()
                .filter(|e| *e != embedder)
                .map(|e| {
                    format!(
                        "embedder {} (this export: {})",
                        crate::text::safe_name(e),
                        crate::text::safe_name(embedder)
                    )
                }),
            (self.chunker != chunker).then(|| {
                format!(
                    "chunker {} (this export: {chunker})",
                    crate::text::safe_name(&self.chunker)
                )
            }),
            (self.k != k).then(|| format!("k {} (this export: {k})", self.k)),
            (m_from_report && self.budget != budget).then(|| {
                format!(
                    "budget {} (this export: {budget}; give --m too to export another budget)",
                    self.budget
                )
            }),
            (self.depth != depth).then(|| format!("depth {} (this export: {depth})", self.depth)),
            ((self.rrf_c - rrf_c).abs() > 1e-9)
                .then(|| format!("RRF c {} (this export: {rrf_c})", self.rrf_c)),
        ];
        let what: Vec<String> = differs.into_iter().flatten().collect();
        if what.is_empty() {
            Ok(())
        } else {
            Err(ProvenanceError::Mismatch {
                path: PathBuf::from(&self.file),
                what: what.join(", "),
            })
        }
    }
}
