//! The settings the user moves: `m` and the budget replan the current result at once, side drop
//! replans or asks again, and a chunking choice (chunk size, `k`, chunker, heading prefixes)
//! rebuilds the layout in the background.

use super::{App, Notice, Rescore};
use crate::tui::action::Slider;

impl App {
    /// Move a slider by `steps` steps.
    pub(super) fn adjust_slider(&mut self, slider: Slider, steps: i32) {
        let changed = self.sliders.adjust(slider, steps);
        self.slider_moved(slider, changed);
    }

    /// Set a slider to `value` (clamped to its range and step).
    pub(super) fn set_slider(&mut self, slider: Slider, value: usize) {
        let changed = self.sliders.set(slider, value);
        self.slider_moved(slider, changed);
    }

    /// The next or previous chunker: a new layout.
    pub(super) fn cycle_chunker(&mut self, steps: i32) {
        let changed = self.sliders.cycle_chunker(steps);
        self.layout_choice_changed(changed);
    }

    /// Heading-path prefixes on or off: new search texts, so new indexes.
    pub(super) fn toggle_heading_prefix(&mut self) {
        self.sliders.heading_prefix = !self.sliders.heading_prefix;
        self.layout_choice_changed(true);
    }

    /// A slider moved: `m` and the budget replan the result (and the evaluation's scores) at
    /// once, `k` and the chunk size rebuild.
    pub(super) fn slider_moved(&mut self, slider: Slider, changed: bool) {
        if !changed {
            return;
        }
        match slider {
            Slider::K | Slider::ChunkTokens => self.layout_choice_changed(true),
            Slider::M => {
                self.replan();
                self.rescore_eval(Rescore::Seams);
            }
            Slider::Budget => {
                self.replan();
                self.rescore_eval(Rescore::All);
            }
        }
        if slider == Slider::K {
            self.eval_k_moved();
        }
    }

    /// A chunking choice changed (chunk size, `k`, chunker, heading prefixes): rebuild in the
    /// background, re-asking the current question on the new layout.
    pub(super) fn layout_choice_changed(&mut self, changed: bool) {
        if !changed || self.refuse_layout_change() {
            return;
        }
        self.start_layout();
    }

    /// Build the sliders' layout in the background, asking the current question on it.
    pub(super) fn start_layout(&mut self) {
        let question = self.asked.clone();
        let query = self.query_settings();
        self.jobs
            .start_layout(self.sliders.layout(), question, query);
    }

    /// Switch side drop on or off. Turning it on needs the halves scored, so a question asked
    /// without them is asked again; otherwise the stages after search run again.
    pub(super) fn toggle_side_drop(&mut self) {
        let on = self.base_query.side_drop.is_none();
        self.base_query.side_drop = on.then_some(self.side_drop_threshold);
        self.notice = Some(Notice {
            text: if on {
                format!(
                    "side drop on (threshold {:.2}): a fired seam whose one half scores below it \
                     brings only the other chunk",
                    self.side_drop_threshold
                )
            } else {
                "side drop off: a fired seam brings both chunks".to_string()
            },
            error: false,
        });
        let scored = self
            .answer
            .as_ref()
            .is_some_and(|a| !a.trace.input.side_scores.is_empty());
        match &self.asked {
            Some(question) if on && !scored && self.shown.is_some() => {
                let query = self.query_settings();
                self.jobs.start_query(question.clone(), query);
            }
            _ => self.replan(),
        }
    }
}
