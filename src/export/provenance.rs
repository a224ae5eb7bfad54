//! Where a bundle's fire margin came from: the calibration report, `--m`, or the settings.
//! The calibration itself is read and checked by [`crate::calibrate::provenance`].

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
