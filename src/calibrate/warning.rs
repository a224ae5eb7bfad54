//! A calibration's warnings: what each is about and its text. Both the measured verdict and
//! the diagnostic report give them.

use serde::{Deserialize, Serialize};

/// What a warning is about, so a screen can pick its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// The measured failure with Seams at its best m is not lower than chunks-only.
    OutsideSetting,
    /// Seams' measured gain over chunks-only is within noise.
    GainWithinNoise,
    /// Few questions were scored for the measured curve.
    FewQuestions,
    /// No scored question's evidence crosses a cut, so m cannot matter on this sample.
    NoSplitEvidence,
    /// The head-start distributions overlap heavily (diagnostic; says nothing by itself about
    /// whether Seams helps).
    HeavyOverlap,
    /// Too few sentences of a kind for percentiles to mean much.
    FewSamples,
    /// No unsplit sentence was measured: no `m` can be recommended.
    NoUnsplit,
    /// No crossing sentence was measured: no working range, no overlap check.
    NoCrossing,
    /// Many questions did not find their chunk at all.
    AbsentChunks,
    /// Some sentences got no question.
    SkippedQuestions,
}

/// One warning and its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationWarning {
    /// What it is about.
    pub kind: WarningKind,
    /// What to tell the user.
    pub text: String,
}
