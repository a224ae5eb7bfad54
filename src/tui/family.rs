//! How the screen and its pictures show each boundary-strategy family, described once.
//!
//! A family's name, knobs, grid and label are its card in the engine (`seamscope::board::CARDS`),
//! a row's settings and deploy hint its `RowSettings`; what only the front end adds, its
//! colour on the terminal and in the SVG pictures, is one row of [`LOOKS`]. Every view that
//! colours a family (the board's family column, the evidence-length map's lines and legend,
//! `assets/evidence-map.svg`) reads it from here, so a new family is one row.

use ratatui::style::Style;
use seamscope::board::Family;

use super::theme::Theme;

/// How one family is drawn.
pub struct FamilyLook {
    /// The family.
    pub family: Family,
    /// Its style on the terminal, by meaning from the theme.
    pub style: fn(&Theme) -> Style,
    /// Its colour in the SVG pictures.
    pub svg: &'static str,
    /// Its line's width in the SVG pictures (the Seams line is drawn thicker).
    pub svg_width: f64,
}

/// One row per family, in [`Family::ALL`]'s order.
pub const LOOKS: [FamilyLook; 7] = [
    look(Family::None, |t| t.muted, "#7f7f7f"),
    look(Family::Overlap, |t| t.chart_bar, "#1f77b4"),
    look(Family::Windows, |t| t.sample_crossing, "#ff7f0e"),
    look(Family::Neighbour, |t| t.syntax_type, "#2ca02c"),
    look(Family::Scar, |t| t.syntax_keyword, "#9467bd"),
    FamilyLook {
        svg_width: 3.5,
        ..look(Family::Seams, |t| t.fired, "#d62728")
    },
    look(Family::OverlapSeams, |t| t.notice, "#8c564b"),
];

const fn look(family: Family, style: fn(&Theme) -> Style, svg: &'static str) -> FamilyLook {
    FamilyLook {
        family,
        style,
        svg,
        svg_width: 2.0,
    }
}

/// How `family` is drawn.
pub fn look_of(family: Family) -> &'static FamilyLook {
    LOOKS
        .iter()
        .find(|l| l.family == family)
        .unwrap_or(&LOOKS[0])
}

/// The style `family` is drawn in on the terminal.
pub fn family_style(t: &Theme, family: Family) -> Style {
    (look_of(family).style)(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_one_look_in_order() {
        let families: Vec<Family> = LOOKS.iter().map(|l| l.family).collect();
        assert_eq!(families, Family::ALL.to_vec());
    }
}
