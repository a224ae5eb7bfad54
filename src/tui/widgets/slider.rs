//! A one-line slider: `budget ◂━━━●━━━━▸   5`, with the geometry the mouse uses to hit it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

use crate::tui::action::Slider;
use crate::tui::theme::Theme;

/// Columns of the name, the value and the marks around the track.
const NAME: u16 = 6;
const VALUE: u16 = 5;

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

/// The parts of a slider drawn in `area`.
pub fn parts(area: Rect) -> SliderParts {
    let dec = area.x + NAME + 1;
    let track = dec + 1;
    let track_width = area
        .width
        .saturating_sub(NAME + 1 + 1 + 1 + 1 + VALUE)
        .max(1);
    SliderParts {
        dec,
        track,
        track_width,
        inc: track + track_width,
    }
}

/// What column `x` of a slider drawn in `area` hits.
pub fn hit(area: Rect, x: u16) -> Option<SliderHit> {
    let p = parts(area);
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

impl Widget for SliderView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < NAME + VALUE + 5 || area.height == 0 {
            return;
        }
        let t = self.theme;
        let p = parts(area);
        let name = self.slider.spec().label;
        buf.set_stringn(area.x, area.y, name, usize::from(NAME), t.title);
        buf.set_string(p.dec, area.y, "◂", t.key);
        buf.set_string(p.inc, area.y, "▸", t.key);
        let knob = (self.fraction * f64::from(p.track_width.saturating_sub(1))).round() as u16;
        for i in 0..p.track_width {
            let (symbol, style): (&str, Style) = if i == knob {
                ("●", t.gauge_filled)
            } else if i < knob {
                ("━", t.gauge_filled)
            } else {
                ("─", t.gauge_empty)
            };
            buf.set_string(p.track + i, area.y, symbol, style);
        }
        let mark = if self.pending { "…" } else { " " };
        let value = format!("{:>4}{mark}", self.value);
        let style = if self.pending { t.notice } else { t.text };
        buf.set_stringn(p.inc + 2, area.y, value, usize::from(VALUE), style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_hit_the_parts_that_are_drawn() {
        let area = Rect::new(10, 0, 26, 1);
        let p = parts(area);
        assert_eq!(hit(area, p.dec), Some(SliderHit::Down));
        assert_eq!(hit(area, p.inc), Some(SliderHit::Up));
        assert_eq!(hit(area, p.track), Some(SliderHit::Track(0.0)));
        assert_eq!(hit(area, p.inc - 1), Some(SliderHit::Track(1.0)));
        assert_eq!(hit(area, 10), None);
    }
}
