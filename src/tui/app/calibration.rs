//! The calibration page's state: the newest report, how to start one, and applying its `m`.

use std::sync::Arc;

use seamscope::calibrate::CalibrationReport;
use seamscope::tune::TuneRow;

use super::{App, Notice};
use crate::tui::action::{Action, Slider};
use crate::tui::background::Calibrated;

/// What the calibration page shows.
#[derive(Debug, Clone, Default)]
pub struct CalibrationState {
    /// The newest finished calibration.
    pub report: Option<Arc<CalibrationReport>>,
    /// The best row at each scanned `k`, best first.
    pub k_scan: Vec<TuneRow>,
    /// Why the newest calibration failed, if it did.
    pub error: Option<String>,
    /// Ask sampled passages even when the corpus has a gold question set (`g` switches).
    pub sampled: bool,
}

impl CalibrationState {
    /// The recommended `(k, m)`: the best row of the `k` scan, else the report's `m` at its `k`.
    pub fn recommended(&self) -> Option<(usize, u32)> {
        if let Some(best) = self.k_scan.first()
            && let (Some(k), Some(m)) = (best.k, best.m)
        {
            return Some((k, m));
        }
        let r = self.report.as_ref()?;
        Some((r.setup.k, r.verdict.recommended_m?))
    }
}

impl App {
    /// Start a calibration on the layout shown (a running one is superseded).
    pub(super) fn run_calibration(&mut self) {
        if self.shown.is_none() {
            self.notice = Some(Notice {
                text: "the corpus is still opening: calibrate once it is shown".into(),
                error: true,
            });
            return;
        }
        self.calibration.error = None;
        let query = self.query_settings();
        self.jobs
            .start_calibration(query, !self.calibration.sampled);
    }

    /// A calibration ended: keep its report if it answers the newest request.
    pub(super) fn calibrated(&mut self, calibrated: Calibrated) {
        if !self.jobs.calibration.is_current(calibrated.generation) {
            return;
        }
        // A partial report is shown at once; the job goes on scoring the other strategies.
        if !calibrated.partial {
            self.jobs.calibration.finish(calibrated.generation);
        }
        match calibrated.result {
            Ok(report) => {
                self.calibration.report = Some(report);
                if !calibrated.k_scan.is_empty() || calibrated.partial {
                    self.calibration.k_scan = calibrated.k_scan;
                }
                self.calibration.error = None;
            }
            Err(error) => self.calibration.error = Some(error),
        }
    }

    /// Apply the recommended `k` and `m`: a new `k` moves the `k` slider (the seams rebuild in
    /// the background), and the follow-up is the `m` slider's own action, so every pane replans
    /// exactly as when the slider moves.
    pub(super) fn apply_recommended_m(&mut self) -> Option<Action> {
        if self.calibration.report.is_none() {
            self.notice = Some(Notice {
                text: "no calibration yet: press r to run one".into(),
                error: true,
            });
            return None;
        }
        let Some((k, m)) = self.calibration.recommended() else {
            self.notice = Some(Notice {
                text: "this calibration has no recommendation (no question was scored)".into(),
                error: true,
            });
            return None;
        };
        if k != self.sliders.k {
            let changed = self.sliders.set(Slider::K, k);
            self.slider_moved(Slider::K, changed);
        }
        Some(Action::SetSlider(Slider::M, m as usize))
    }

    /// Stop the calibration of the calibration page, or the evaluation, board or map of the
    /// evaluation page.
    pub(super) fn cancel_job(&mut self) {
        let cancelled = match self.page {
            crate::tui::action::Page::Calibration => self.jobs.calibration.cancel(),
            crate::tui::action::Page::Evaluation => {
                // Both slots: `|` so the second is cancelled even when the first was running.
                self.jobs.eval.cancel() | self.jobs.board.cancel()
            }
            crate::tui::action::Page::Explore => false,
            // The pages on the pane model share one slot.
            crate::tui::action::Page::Diagnose | crate::tui::action::Page::Traces => {
                self.jobs.page.cancel()
            }
        };
        if cancelled {
            self.notice = Some(Notice {
                text: "cancelled".into(),
                error: false,
            });
        }
    }
}
