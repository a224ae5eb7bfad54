//! A one-line slider: `budget ◂████▌───▸   5`, with the geometry the mouse uses to hit it.
//!
//! The track fills in eighths of a cell, so a value moves the bar's end even when the track has
//! fewer cells than the slider has steps (the `m` slider's 31 steps at 120 columns).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

use crate::tui::action::Slider;
use crate::tui::theme::Theme;

/// Columns of the value and the marks around the track.
const VALUE: u16 = 5;

/// Columns of a slider's name: the label and one space.
fn name_width(slider: Slider) -> u16 {
    slider.spec().label.chars().count() as u16 + 1
}

/// Partial cells, one to seven eighths filled.
const EIGHTHS: [&str; 8] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// Where the parts of a slider sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliderParts {
    /// The `◂` column.
    pub dec: u16,
    /// The track's first column.
    pub track: u16,
    /// The track's width.
    pub track_width: u16,
    /// The `▸` column.
    pub inc: u16,
}

/// What a click on a slider hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SliderHit {
    /// The `◂`: one step down.
    Down,
    /// The `▸`: one step up.
    Up,
    /// The track, this far along (0.0 to 1.0).
    Track(f64),
}

/// The parts of `slider` drawn in `area`.
pub fn parts(slider: Slider, area: Rect) -> SliderParts {
    let name = name_width(slider);
    let dec = area.x + name;
    let track = dec + 1;
    let track_width = area.width.saturating_sub(name + 1 + 1 + 1 + VALUE).max(1);
    SliderParts {
        dec,
        track,
        track_width,
        inc: track + track_width,
    }
}

/// What column `x` of `slider` drawn in `area` hits.
pub fn hit(slider: Slider, area: Rect, x: u16) -> Option<SliderHit> {
    let p = parts(slider, area);
    if x == p.dec {
        Some(SliderHit::Down)
    } else if x == p.inc {
        Some(SliderHit::Up)
    } else if (p.track..p.inc).contains(&x) {
        let along = f64::from(x - p.track) / f64::from(p.track_width.saturating_sub(1).max(1));
        Some(SliderHit::Track(along))
    } else {
        None
    }
}

/// A slider as drawn.
pub struct SliderView<'a> {
    /// Which slider.
    pub slider: Slider,
    /// Its value.
    pub value: usize,
    /// Where the value sits on the track, 0.0 to 1.0.
    pub fraction: f64,
    /// Whether a rebuild for this value is still running.
    pub pending: bool,
    /// Styles.
    pub theme: &'a Theme,
}

/// The track's cells for a value at `fraction` (0.0 to 1.0) on a track `width` cells wide: full
/// cells, one partial cell in eighths, then empty cells; `true` marks a filled cell.
pub fn track_cells(fraction: f64, width: u16) -> Vec<(&'static str, bool)> {
    let eighths = (fraction.clamp(0.0, 1.0) * f64::from(width) * 8.0).round() as u32;
    (0..u32::from(width))
        .map(|i| {
            let filled = eighths.saturating_sub(i * 8).min(8);
            match filled {
                8 => ("█", true),
                0 => ("─", false),
                part => (EIGHTHS[part as usize], true),
            }
        })
        .collect()
}

impl Widget for SliderView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let name = name_width(self.slider);
        if area.width < name + VALUE + 4 || area.height == 0 {
            return;
        }
        let t = self.theme;
        let p = parts(self.slider, area);
        let label = self.slider.spec().label;
        buf.set_stringn(area.x, area.y, label, usize::from(name), t.title);
        buf.set_string(p.dec, area.y, "◂", t.key);
        buf.set_string(p.inc, area.y, "▸", t.key);
        for (i, (symbol, filled)) in track_cells(self.fraction, p.track_width)
            .into_iter()
            .enumerate()
        {
            let style: Style = if filled {
                t.gauge_filled
            } else {
                t.gauge_empty
            };
            buf.set_string(p.track + i as u16, area.y, symbol, style);
        }
        let mark = if self.pending { "…" } else { " " };
        let value = format!("{:>4}{mark}", self.value);
        let style = if self.pending { t.notice } else { t.text };
        buf.set_stringn(p.inc + 1, area.y, value, usize::from(VALUE), style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_hit_the_parts_that_are_drawn() {
        let area = Rect::new(10, 0, 26, 1);
        for slider in Slider::ALL {
            let p = parts(slider, area);
            assert_eq!(hit(slider, area, p.dec), Some(SliderHit::Down));
            assert_eq!(hit(slider, area, p.inc), Some(SliderHit::Up));
            assert_eq!(hit(slider, area, p.track), Some(SliderHit::Track(0.0)));
            assert_eq!(hit(slider, area, p.inc - 1), Some(SliderHit::Track(1.0)));
            assert_eq!(hit(slider, area, 10), None);
        }
    }

    #[test]
    fn tracks_fill_in_eighths_from_empty_to_full() {
        let text = |f: f64| -> String { track_cells(f, 4).iter().map(|c| c.0).collect() };
        assert_eq!(text(0.0), "────");
        assert_eq!(text(1.0), "████");
        assert_eq!(text(0.5), "██──");
        assert_eq!(text(1.0 / 32.0), "▏───");
    }
}
