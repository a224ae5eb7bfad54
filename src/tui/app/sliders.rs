//! The four sliders: their ranges and steps, and the values the user has set (with the two
//! chunking choices that have no slider: the chunker and heading prefixes).

use seamscope::chunk::ChunkerKind;
use seamscope::settings::Settings;

use crate::tui::action::Slider;
use crate::tui::layout_params::LayoutParams;

/// A slider's range and step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliderSpec {
    /// Smallest value.
    pub min: usize,
    /// Largest value.
    pub max: usize,
    /// One key press moves this much.
    pub step: usize,
    /// Its name on screen.
    pub label: &'static str,
}

impl SliderSpec {
    /// The value at a point of the track (0.0 = left end, 1.0 = right end), on a step.
    pub fn value_at(&self, fraction: f64) -> usize {
        let steps = (self.max - self.min) / self.step;
        let at = (fraction.clamp(0.0, 1.0) * steps as f64).round() as usize;
        self.min + at * self.step
    }
}

/// The margins the `m` slider spans: the screen's part of [`seamscope::settings::M_RANGE`]
/// (a margin past 30 places is rarely worth a demo; `--m` and settings reach the rest).
pub const M_SLIDER: std::ops::RangeInclusive<seamscope::settings::Margin> = 0..=30;

impl Slider {
    /// Range, step and name.
    pub fn spec(self) -> SliderSpec {
        match self {
            Slider::M => SliderSpec {
                min: *M_SLIDER.start() as usize,
                max: *M_SLIDER.end() as usize,
                step: 1,
                label: "m",
            },
            Slider::Budget => SliderSpec {
                min: 0,
                max: 30,
                step: 1,
                label: "budget",
            },
            Slider::K => SliderSpec {
                min: 10,
                max: 600,
                step: 10,
                label: "k",
            },
            Slider::ChunkTokens => SliderSpec {
                min: 128,
                max: 4096,
                step: 128,
                label: "chunk",
            },
        }
    }
}

/// The values the user has set; `k`, the chunk size, the chunker and heading prefixes may be
/// ahead of what is shown while a rebuild runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliderValues {
    /// Fire margin.
    pub m: seamscope::settings::Margin,
    /// Final budget in chunks.
    pub budget: usize,
    /// Seam half-width.
    pub k: usize,
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// The chunking strategy (no slider: `x` / `X` cycle it).
    pub chunker: ChunkerKind,
    /// Whether search texts carry heading paths (no slider: `h` switches it).
    pub heading_prefix: bool,
    /// Whether a cuts file was given, so `given` is one of the chunkers to cycle through.
    pub has_cuts: bool,
}

impl SliderValues {
    /// The values settings start from.
    pub fn from_settings(settings: &Settings) -> SliderValues {
        SliderValues {
            m: settings.m,
            budget: settings.budget,
            k: settings.k,
            chunk_tokens: settings.chunk_tokens,
            chunker: settings.chunker,
            heading_prefix: settings.heading_prefix,
            has_cuts: settings.cuts_file.is_some(),
        }
    }

    /// Pick the chunker `steps` places on in [`ChunkerKind::ALL`], then `given` when a cuts
    /// file was given (wrapping, so the given cuts are never dropped for good); returns whether
    /// it changed.
    pub fn cycle_chunker(&mut self, steps: i32) -> bool {
        let mut all = ChunkerKind::ALL.to_vec();
        if self.has_cuts {
            all.push(ChunkerKind::Given);
        }
        let at = all.iter().position(|k| *k == self.chunker).unwrap_or(0) as i64;
        let next = (at + i64::from(steps)).rem_euclid(all.len() as i64) as usize;
        let changed = all[next] != self.chunker;
        self.chunker = all[next];
        changed
    }

    /// One slider's value.
    pub fn get(&self, slider: Slider) -> usize {
        match slider {
            Slider::M => self.m as usize,
            Slider::Budget => self.budget,
            Slider::K => self.k,
            Slider::ChunkTokens => self.chunk_tokens,
        }
    }

    /// Set one slider, clamped to its range; returns whether the value changed.
    pub fn set(&mut self, slider: Slider, value: usize) -> bool {
        let spec = slider.spec();
        let value = value.clamp(spec.min, spec.max);
        let changed = self.get(slider) != value;
        match slider {
            // Within M_SLIDER, so it fits a margin.
            Slider::M => self.m = value as seamscope::settings::Margin,
            Slider::Budget => self.budget = value,
            Slider::K => self.k = value,
            Slider::ChunkTokens => self.chunk_tokens = value,
        }
        changed
    }

    /// Move one slider by `steps` steps; returns whether the value changed.
    pub fn adjust(&mut self, slider: Slider, steps: i32) -> bool {
        let spec = slider.spec();
        let delta = spec.step.saturating_mul(steps.unsigned_abs() as usize);
        let current = self.get(slider);
        let value = if steps < 0 {
            current.saturating_sub(delta)
        } else {
            current.saturating_add(delta)
        };
        self.set(slider, value)
    }

    /// The chunking settings these values ask for.
    pub fn layout(&self) -> LayoutParams {
        LayoutParams {
            chunk_tokens: self.chunk_tokens,
            k: self.k,
            chunker: self.chunker,
            heading_prefix: self.heading_prefix,
        }
    }

    /// Where a value sits on a slider's track, 0.0 to 1.0.
    pub fn fraction(&self, slider: Slider) -> f64 {
        let spec = slider.spec();
        let value = self.get(slider).clamp(spec.min, spec.max);
        (value - spec.min) as f64 / (spec.max - spec.min).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_m_slider_lies_inside_the_settings_range() {
        use seamscope::settings::M_RANGE;
        assert!(M_RANGE.contains(M_SLIDER.start()) && M_RANGE.contains(M_SLIDER.end()));
    }

    #[test]
    fn sliders_clamp_step_and_snap() {
        let mut v = SliderValues::from_settings(&Settings::default());
        assert!(!v.adjust(Slider::K, 0));
        assert!(v.adjust(Slider::K, 2));
        assert_eq!(v.k, Settings::default().k + 20);
        v.adjust(Slider::M, -1000);
        assert_eq!(v.m, 0);
        v.adjust(Slider::ChunkTokens, 1000);
        assert_eq!(v.chunk_tokens, 4096);
        v.set(Slider::Budget, Slider::Budget.spec().value_at(0.5));
        assert_eq!(v.budget, 15);
        assert_eq!(v.fraction(Slider::Budget), 0.5);
        assert!(v.cycle_chunker(1));
        assert_eq!(v.chunker, ChunkerKind::Sentence);
        v.cycle_chunker(-2);
        assert_eq!(v.chunker, ChunkerKind::Structure, "it wraps");
        assert!(!v.cycle_chunker(4));
        assert_eq!(v.layout().chunker, ChunkerKind::Structure);
    }

    #[test]
    fn given_cuts_join_the_chunker_cycle_only_when_a_file_is_set() {
        let with_file = Settings {
            chunker: ChunkerKind::Given,
            cuts_file: Some("cuts.jsonl".into()),
            ..Settings::default()
        };
        let mut v = SliderValues::from_settings(&with_file);
        assert!(v.cycle_chunker(1));
        assert_eq!(
            v.chunker,
            ChunkerKind::Fixed,
            "given comes last, then it wraps"
        );
        assert!(v.cycle_chunker(-1));
        assert_eq!(
            v.chunker,
            ChunkerKind::Given,
            "and back: the cuts are not lost"
        );
        let mut v = SliderValues::from_settings(&Settings::default());
        for _ in 0..5 {
            v.cycle_chunker(1);
            assert_ne!(v.chunker, ChunkerKind::Given);
        }
    }
}
