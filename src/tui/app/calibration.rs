//! The calibration page's state: the newest report, how to start one, and applying its `m`.

use std::sync::Arc;

use seamscope::calibrate::CalibrationReport;

use super::{App, Notice};
use crate::tui::action::{Action, Slider};
use crate::tui::background::Calibrated;

/// What the calibration page shows.
#[derive(Debug, Clone, Default)]
pub struct CalibrationState {
    /// The newest finished calibration.
    pub report: Option<Arc<CalibrationReport>>,
    /// Why the newest calibration failed, if it did.
    pub error: Option<String>,
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
        self.jobs.start_calibration(query);
    }

    /// A calibration ended: keep its report if it answers the newest request.
    pub(super) fn calibrated(&mut self, calibrated: Calibrated) {
        if !self.jobs.is_current_calibration(calibrated.generation) {
            return;
        }
        self.jobs.finish_calibration(calibrated.generation);
        match calibrated.result {
            Ok(report) => {
                self.calibration.report = Some(report);
                self.calibration.error = None;
            }
            Err(error) => self.calibration.error = Some(error),
        }
    }

    /// The follow-up that sets `m` to the recommendation: the `m` slider's own action, so every
    /// pane replans exactly as when the slider moves.
    pub(super) fn apply_recommended_m(&mut self) -> Option<Action> {
        let recommended = self
            .calibration
            .report
            .as_ref()
            .map(|r| r.verdict.recommended_m);
        let m = match recommended {
            None => {
                self.notice = Some(Notice {
                    text: "no calibration yet: press r to run one".into(),
                    error: true,
                });
                return None;
            }
            Some(None) => {
                self.notice = Some(Notice {
                    text: "this calibration has no recommendation (no unsplit sentence measured)"
                        .into(),
                    error: true,
                });
                return None;
            }
            Some(Some(m)) => m as usize,
        };
        Some(Action::SetSlider(Slider::M, m))
    }

    /// Stop the calibration or evaluation of the page shown.
    pub(super) fn cancel_job(&mut self) {
        let cancelled = match self.page {
            crate::tui::action::Page::Calibration => self.jobs.cancel_calibration(),
            crate::tui::action::Page::Evaluation => self.jobs.cancel_eval(),
            crate::tui::action::Page::Explore => false,
        };
        if cancelled {
            self.notice = Some(Notice {
                text: "cancelled".into(),
                error: false,
            });
        }
    }
}
