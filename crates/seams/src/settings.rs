//! The settings one query runs under, recorded in every trace.

use serde::{Deserialize, Serialize};

use super::budget::DEFAULT_BUDGET;
use super::fuse::DEFAULT_RRF_C;
use super::rerank::DEFAULT_RERANK_CANDIDATES;

/// Default seam half-width, in tokens.
pub const DEFAULT_K: u32 = 150;
/// Default fire margin: the seam must outrank both linked chunks (`m = 1`; `m = 0` is the same
/// test, as two entries never share a position). Measured on the sample corpus it recovered the
/// most boundary questions (see the README's results); the white paper's example uses 3.
/// Calibrate it per collection.
pub const DEFAULT_M: u32 = 1;
/// Default number of hits taken from each search.
pub const DEFAULT_DEPTH: usize = 150;

/// The knobs of one query: what the trace records and what `replan` recomputes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuerySettings {
    /// Seam half-width in tokens that the seam index was built with (recorded, not used here).
    pub k: u32,
    /// Fire margin: a seam must rank at least `m` places above both linked chunks.
    pub m: u32,
    /// Final budget in chunks; 0 is allowed and gives an empty context.
    pub budget: usize,
    /// Hits taken from each search list; at least 1.
    pub depth: usize,
    /// The RRF constant `c`; finite and at least 0.
    pub rrf_c: f64,
    /// How many ordinary chunks a configured reranker judges (N).
    pub rerank_candidates: usize,
    /// Side drop: a fired seam whose one half scores below this cosine (and the other not)
    /// brings only the other chunk. `None` (the default) is off.
    pub side_drop: Option<f32>,
}

impl Default for QuerySettings {
    fn default() -> Self {
        Self {
            k: DEFAULT_K,
            m: DEFAULT_M,
            budget: DEFAULT_BUDGET,
            depth: DEFAULT_DEPTH,
            rrf_c: DEFAULT_RRF_C,
            rerank_candidates: DEFAULT_RERANK_CANDIDATES,
            side_drop: None,
        }
    }
}

/// A query setting that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QuerySettingsError {
    /// `depth` was 0, so every search would return nothing.
    #[error("search depth must be at least 1 (got 0); the default is {DEFAULT_DEPTH}")]
    ZeroDepth,
    /// `rrf_c` was negative, infinite or NaN.
    #[error(
        "the RRF constant c must be a finite number of at least 0 (got {0}); the default is {DEFAULT_RRF_C}"
    )]
    InvalidRrfC(f64),
    /// The side-drop threshold is not a cosine.
    #[error("the side-drop threshold must be a cosine between -1 and 1 (got {0})")]
    InvalidSideDrop(f32),
}

impl QuerySettings {
    /// Check the settings; a budget of 0 is valid and simply yields an empty context.
    pub fn validate(&self) -> Result<(), QuerySettingsError> {
        if self.depth == 0 {
            return Err(QuerySettingsError::ZeroDepth);
        }
        if !self.rrf_c.is_finite() || self.rrf_c < 0.0 {
            return Err(QuerySettingsError::InvalidRrfC(self.rrf_c));
        }
        if let Some(t) = self.side_drop
            && !(-1.0..=1.0).contains(&t)
        {
            return Err(QuerySettingsError::InvalidSideDrop(t));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retrieve_settings_defaults_are_valid() {
        assert_eq!(QuerySettings::default().validate(), Ok(()));
        let zero_budget = QuerySettings {
            budget: 0,
            ..QuerySettings::default()
        };
        assert_eq!(zero_budget.validate(), Ok(()));
    }

    #[test]
    fn retrieve_settings_reject_zero_depth_and_bad_c() {
        let zero_depth = QuerySettings {
            depth: 0,
            ..QuerySettings::default()
        };
        let err = zero_depth.validate();
        assert_eq!(err, Err(QuerySettingsError::ZeroDepth));
        let message = err.map_err(|e| e.to_string()).err().unwrap_or_default();
        assert!(message.contains("depth must be at least 1"), "{message}");
        for c in [-1.0, f64::NAN, f64::INFINITY] {
            let s = QuerySettings {
                rrf_c: c,
                ..QuerySettings::default()
            };
            assert!(matches!(
                s.validate(),
                Err(QuerySettingsError::InvalidRrfC(_))
            ));
        }
    }

    #[test]
    fn retrieve_settings_missing_fields_take_defaults() {
        let parsed: Result<QuerySettings, _> = serde_json::from_str(r#"{"m": 7}"#);
        assert_eq!(
            parsed.ok(),
            Some(QuerySettings {
                m: 7,
                ..QuerySettings::default()
            })
        );
    }
}
