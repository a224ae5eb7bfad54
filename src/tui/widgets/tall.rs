//! A page taller than the area it is shown in (a compact screen's calibration page and
//! evidence-length map): its parts drawn whole, one below another, into a buffer of its own,
//! then shown from a scrolled row, the border saying how many rows are below.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

/// The most rows a tall page takes.
const MOST: u16 = 400;

/// A page drawn whole off screen, `width` columns wide.
pub struct TallPage {
    page: Buffer,
    rows: u16,
}

impl TallPage {
    /// An empty page `width` wide over `base` (the theme's background, which it keeps).
    pub fn new(width: u16, base: Style) -> TallPage {
        let mut page = Buffer::empty(Rect::new(0, 0, width, MOST));
        page.set_style(page.area, base);
        TallPage { page, rows: 0 }
    }

    /// Rows the page takes so far.
    pub fn rows(&self) -> u16 {
        self.rows
    }

    /// A paragraph below what is there, as many rows as it draws.
    pub fn paragraph(&mut self, paragraph: Paragraph<'_>) {
        let area = self.rest(MOST);
        paragraph.render(area, &mut self.page);
        let written = |row: u16| {
            (0..area.width).any(|x| self.page.cell((x, row)).is_some_and(|c| c.symbol() != " "))
        };
        self.rows = (area.y..MOST)
            .rev()
            .find(|row| written(*row))
            .map_or(area.y, |row| row + 1);
    }

    /// A widget of `height` rows (a chart) below what is there.
    pub fn widget(&mut self, widget: impl Widget, height: u16) {
        let area = self.rest(height);
        widget.render(area, &mut self.page);
        self.rows = area.bottom();
    }

    /// `height` rows below what is there, drawn by `draw` (a chart that borrows its data).
    pub fn drawn(&mut self, height: u16, draw: impl FnOnce(&mut Buffer, Rect)) {
        let area = self.rest(height);
        draw(&mut self.page, area);
        self.rows = area.bottom();
    }

    /// The page's buffer from its last row on, `height` rows at most.
    fn rest(&self, height: u16) -> Rect {
        let y = self.rows.min(MOST);
        Rect::new(0, y, self.page.area.width, height.min(MOST - y))
    }

    /// An empty row.
    pub fn gap(&mut self) {
        self.rows = (self.rows + 1).min(MOST);
    }

    /// The first row shown when `scroll` is asked in an area `height` rows high.
    pub fn first_row(&self, scroll: u16, height: u16) -> u16 {
        scroll.min(self.rows.saturating_sub(height))
    }

    /// Show the page's rows from `scroll` (clamped) in `area` of `out`.
    pub fn show(&self, scroll: u16, out: &mut Buffer, area: Rect) {
        let first = self.first_row(scroll, area.height);
        for row in 0..area.height.min(self.rows.saturating_sub(first)) {
            for x in 0..area.width {
                let (Some(from), Some(to)) = (
                    self.page.cell((x, first + row)),
                    out.cell_mut((area.x + x, area.y + row)),
                ) else {
                    continue;
                };
                *to = from.clone();
            }
        }
    }

    /// Show the page's rows from `scroll` in `area` of `out`, and when it does not fit, say so
    /// in `style` on the border row below `area`, at its right.
    pub fn show_with_note(&self, scroll: u16, out: &mut Buffer, area: Rect, style: Style) {
        self.show(scroll, out, area);
        let Some(note) = self.scroll_note(scroll, area.height) else {
            return;
        };
        let border = Rect {
            y: area.bottom(),
            height: 1,
            ..area
        };
        Line::styled(note, style)
            .right_aligned()
            .render(border, out);
    }

    /// What the border says when the page does not fit `height` rows from `scroll`: the rows
    /// below and the keys, or that it scrolls back.
    pub fn scroll_note(&self, scroll: u16, height: u16) -> Option<String> {
        let first = self.first_row(scroll, height);
        let below = self.rows.saturating_sub(first + height);
        match (first, below) {
            (0, 0) => None,
            (_, 0) => Some(" ↑ PgUp scroll back ".to_string()),
            (_, n) => Some(format!(" ↓ PgDn {n} more rows · ↑ PgUp back ")),
        }
    }
}

/// The style under `area` of `out` (the theme's background), for a tall page to keep.
pub fn base_style(out: &Buffer, area: Rect) -> Style {
    out.cell((area.x, area.y))
        .map_or_else(Style::default, |c| c.style())
}
