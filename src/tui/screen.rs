//! Where everything sits on screen, as a pure function of the terminal's size.
//!
//! Drawing and mouse handling both use these rectangles, so a click lands on what was drawn
//! under it, and the state can keep lists scrolled to rows that fit.

use ratatui::layout::{Constraint, Layout, Position, Rect};

use super::action::{Pane, Slider};

/// The smallest terminal the screen is drawn in; below it a message says so.
pub const MIN_WIDTH: u16 = 60;
/// The smallest terminal height the screen is drawn in.
pub const MIN_HEIGHT: u16 = 16;
/// The smallest terminal that shows every pane of the explore page at once; below it (down to
/// [`MIN_WIDTH`] × [`MIN_HEIGHT`]) the screen is compact: one pane at a time, a strip naming
/// the others, Tab and presenter mode's steps moving between them.
pub const FULL_WIDTH: u16 = 120;
/// The smallest terminal height that shows every pane at once.
pub const FULL_HEIGHT: u16 = 34;
/// Rows of the step-mode banner, borders included.
const STEP_ROWS: u16 = 6;

/// What shapes the screen besides its size: presenter mode's banner, pinned settings, a zoomed
/// pane, and the query box's height.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Arrange {
    /// Presenter mode is on: its banner sits above the result panes.
    pub step: bool,
    /// Settings are pinned: below the ranking, one "pinned vs now" pane (the compare pane) takes
    /// the place of the fire test, the budget fill and the comparison.
    pub pinned: bool,
    /// The pane shown alone in the whole main area.
    pub zoom: Option<Pane>,
    /// 0: the query box is one line beside the sliders; 1 to 3: a question too long for that
    /// gets the whole width, on as many lines, with the sliders below it.
    pub query_lines: u16,
}

/// The rectangles of one screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The top line: corpus, counts, job progress.
    pub header: Rect,
    /// The query box, borders included.
    pub query: Rect,
    /// The sliders box, borders included.
    pub sliders: Rect,
    /// The document list.
    pub documents: Rect,
    /// The document text.
    pub text: Rect,
    /// The step-mode banner, when step mode is on.
    pub step: Option<Rect>,
    /// The fused ranking.
    pub ranking: Rect,
    /// The fire test.
    pub fire: Rect,
    /// The budget fill.
    pub budget: Rect,
    /// With and without Seams.
    pub compare: Rect,
    /// The bottom status line.
    pub status: Rect,
    /// Where a page draws: everything between the sliders and the status line.
    pub main: Rect,
    /// On a compact screen's explore page: the line naming the panes not shown.
    pub strip: Option<Rect>,
}

impl Areas {
    /// Whether a screen of `area` is compact: too small for every pane at once.
    pub fn is_compact(area: Rect) -> bool {
        area.width < FULL_WIDTH || area.height < FULL_HEIGHT
    }

    /// Lay out a screen of `area`; `None` when it is smaller than [`MIN_WIDTH`] x [`MIN_HEIGHT`].
    pub fn compute(area: Rect, arrange: &Arrange) -> Option<Areas> {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            return None;
        }
        if Areas::is_compact(area) {
            return Some(Areas::compact(area, arrange));
        }
        Some(Areas::full(area, arrange))
    }

    /// Every pane at once: documents, text, and the result column (ranking, fire test, budget
    /// fill and comparison, under presenter mode's banner); a zoom gives one pane the whole
    /// main area.
    fn full(area: Rect, arrange: &Arrange) -> Areas {
        let lines = arrange.query_lines.min(3);
        let top_rows = if lines == 0 { 3 } else { lines + 2 + 3 };
        let [header, top, main, status] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(top_rows),
            Constraint::Fill(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let [query, sliders] = Areas::query_and_sliders(top, area.width, lines);
        let documents_width = (area.width * 16 / 100).clamp(20, 34);
        let [documents, text, right] = Layout::horizontal([
            Constraint::Length(documents_width),
            Constraint::Fill(1),
            Constraint::Length(area.width / 2),
        ])
        .areas(main);
        let (step, [ranking, fire, budget, compare]) = Areas::result_column(right, arrange);
        let mut areas = Areas {
            header,
            query,
            sliders,
            documents,
            text,
            step,
            ranking,
            fire,
            budget,
            compare,
            status,
            main,
            strip: None,
        };
        if let Some(zoomed) = arrange.zoom.filter(|p| *p != Pane::Query) {
            let banner = step.map(|banner| Rect {
                x: main.x,
                width: main.width,
                ..banner
            });
            areas.show_alone(zoomed, main, banner);
        }
        areas
    }

    /// The query box and the sliders in the top rows: side by side when the question takes one
    /// line, else the question across the width on `lines` lines with the sliders below.
    fn query_and_sliders(top: Rect, width: u16, lines: u16) -> [Rect; 2] {
        if lines == 0 {
            let sliders_width = Areas::sliders_width(width);
            return Layout::horizontal([Constraint::Fill(1), Constraint::Length(sliders_width)])
                .areas(top);
        }
        let sliders_width = Areas::sliders_width(width).max(width * 3 / 4);
        let [query, row] =
            Layout::vertical([Constraint::Length(lines + 2), Constraint::Length(3)]).areas(top);
        let [_, sliders] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(sliders_width)]).areas(row);
        [query, sliders]
    }

    /// The result column: presenter mode's banner on top, then the ranking, the fire test, and
    /// the budget fill beside the comparison; pinned settings give the comparison (pinned vs
    /// now) the fire test's rows and the budget fill's.
    fn result_column(right: Rect, arrange: &Arrange) -> (Option<Rect>, [Rect; 4]) {
        let (step, right) = if arrange.step {
            let [step, rest] =
                Layout::vertical([Constraint::Length(STEP_ROWS), Constraint::Fill(1)]).areas(right);
            (Some(step), rest)
        } else {
            (None, right)
        };
        let [ranking, fire, bottom] = Layout::vertical([
            Constraint::Fill(9),
            Constraint::Fill(5),
            Constraint::Fill(6),
        ])
        .areas(right);
        if arrange.pinned {
            let hidden_fire = Rect { height: 0, ..fire };
            let hidden_budget = Rect { width: 0, ..bottom };
            return (
                step,
                [ranking, hidden_fire, hidden_budget, fire.union(bottom)],
            );
        }
        let [budget, compare] =
            Layout::horizontal([Constraint::Percentage(66), Constraint::Percentage(34)])
                .areas(bottom);
        (step, [ranking, fire, budget, compare])
    }

    /// A compact screen: the query box and the sliders across the whole width, then on the
    /// explore page a strip naming the panes and one pane (the zoomed one, else the text) in the
    /// rest, below presenter mode's banner when it is on.
    fn compact(area: Rect, arrange: &Arrange) -> Areas {
        let lines = arrange.query_lines.clamp(1, 3);
        let explore = arrange.zoom.is_some();
        let [header, query, sliders, strip, main, status] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(lines + 2),
            Constraint::Length(3),
            Constraint::Length(u16::from(explore)),
            Constraint::Fill(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let banner = arrange.step.then(|| Rect {
            height: STEP_ROWS.min(main.height / 2),
            ..main
        });
        let mut areas = Areas {
            header,
            query,
            sliders,
            documents: main,
            text: main,
            step: None,
            ranking: main,
            fire: main,
            budget: main,
            compare: main,
            status,
            main,
            strip: explore.then_some(strip),
        };
        let zoomed = arrange
            .zoom
            .filter(|p| *p != Pane::Query)
            .unwrap_or(Pane::Text);
        areas.show_alone(zoomed, main, banner);
        areas
    }

    /// Give `main` (below the presenter banner, when there is one) to `pane` alone; every
    /// other pane but the query box gets an empty rectangle.
    fn show_alone(&mut self, pane: Pane, main: Rect, banner: Option<Rect>) {
        let whole = match banner {
            Some(banner) => Rect {
                y: banner.bottom(),
                height: main.bottom().saturating_sub(banner.bottom()),
                ..main
            },
            None => main,
        };
        self.step = banner;
        for other in Pane::ORDER.into_iter().filter(|p| *p != Pane::Query) {
            let rect = self.pane_mut(other);
            *rect = if other == pane {
                whole
            } else {
                Rect {
                    width: 0,
                    height: 0,
                    ..whole
                }
            };
        }
    }

    /// The sliders box's width on a screen `width` columns wide.
    pub fn sliders_width(width: u16) -> u16 {
        (width * 11 / 20).clamp(4 * 21 + 2, 130)
    }

    fn pane_mut(&mut self, pane: Pane) -> &mut Rect {
        match pane {
            Pane::Documents => &mut self.documents,
            Pane::Text => &mut self.text,
            Pane::Query => &mut self.query,
            Pane::Ranking => &mut self.ranking,
            Pane::Fire => &mut self.fire,
            Pane::Budget => &mut self.budget,
            Pane::Compare => &mut self.compare,
        }
    }

    /// Whether a pane is drawn at all (a zoom or pinned settings can hide it).
    pub fn is_shown(&self, pane: Pane) -> bool {
        let r = self.pane(pane);
        r.width > 0 && r.height > 0
    }

    /// A pane's rectangle, borders included.
    pub fn pane(&self, pane: Pane) -> Rect {
        match pane {
            Pane::Documents => self.documents,
            Pane::Text => self.text,
            Pane::Query => self.query,
            Pane::Ranking => self.ranking,
            Pane::Fire => self.fire,
            Pane::Budget => self.budget,
            Pane::Compare => self.compare,
        }
    }

    /// The rows of a pane's list (or text): inside the border, below its header lines.
    pub fn body(&self, pane: Pane) -> Rect {
        let inner = inside(self.pane(pane));
        let (top, bottom) = match pane {
            Pane::Documents | Pane::Text | Pane::Ranking | Pane::Compare => (1, 0),
            Pane::Fire => (0, 2),
            Pane::Budget => (2, 0),
            Pane::Query => (0, 0),
        };
        Rect {
            y: inner.y + top.min(inner.height),
            height: inner.height.saturating_sub(top + bottom),
            ..inner
        }
    }

    /// Rows a pane's list can show.
    pub fn body_height(&self, pane: Pane) -> usize {
        usize::from(self.body(pane).height)
    }

    /// One slider's line inside the sliders box.
    pub fn slider(&self, slider: Slider) -> Rect {
        let inner = inside(self.sliders);
        let index = Slider::ALL.iter().position(|s| *s == slider).unwrap_or(0) as u16;
        let width = inner.width.saturating_sub(1) / Slider::ALL.len() as u16;
        Rect {
            x: inner.x + 1 + index * width,
            y: inner.y,
            width: width.saturating_sub(2),
            height: 1,
        }
    }

    /// The pane under a screen position.
    pub fn pane_at(&self, at: Position) -> Option<Pane> {
        Pane::ORDER
            .into_iter()
            .find(|p| self.is_shown(*p) && self.pane(*p).contains(at))
    }

    /// The slider under a screen position.
    pub fn slider_at(&self, at: Position) -> Option<Slider> {
        Slider::ALL
            .into_iter()
            .find(|s| self.slider(*s).contains(at))
    }
}

/// A bordered rectangle's inside.
pub fn inside(area: Rect) -> Rect {
    Rect {
        x: area.x.saturating_add(1),
        y: area.y.saturating_add(1),
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_tile_the_screen_and_small_terminals_get_none() {
        let plain = Arrange::default();
        let step = Arrange {
            step: true,
            ..Arrange::default()
        };
        assert!(Areas::compute(Rect::new(0, 0, MIN_WIDTH - 1, 40), &plain).is_none());
        assert!(Areas::compute(Rect::new(0, 0, 120, MIN_HEIGHT - 1), &plain).is_none());
        let small = Areas::compute(Rect::new(0, 0, FULL_WIDTH, FULL_HEIGHT), &step);
        for pane in Pane::ORDER.into_iter().filter(|p| *p != Pane::Query) {
            let rows = small.map_or(0, |a| a.body(pane).height);
            assert!(rows >= 2, "{pane:?} has {rows} rows at the minimum size");
        }
        let Some(a) = Areas::compute(Rect::new(0, 0, 200, 60), &step) else {
            panic!("200x60 fits");
        };
        assert_eq!(a.status.y, 59);
        assert!(a.step.is_some());
        for pane in Pane::ORDER.into_iter().filter(|p| *p != Pane::Query) {
            assert!(a.body(pane).height >= 3, "{pane:?} has rows");
        }
        let right = a.ranking.union(a.fire).union(a.budget).union(a.compare);
        assert_eq!(right.right(), 200);
        assert!(!a.text.intersects(a.ranking));
        assert_eq!(
            a.slider_at(Position::new(a.slider(Slider::K).x, a.sliders.y + 1)),
            Some(Slider::K)
        );
    }

    #[test]
    fn a_zoomed_pane_takes_the_main_area_and_pinned_settings_take_the_bottom_row() {
        let size = Rect::new(0, 0, 120, FULL_HEIGHT);
        let Some(plain) = Areas::compute(size, &Arrange::default()) else {
            panic!("fits");
        };
        let zoom = Arrange {
            zoom: Some(Pane::Fire),
            ..Arrange::default()
        };
        let Some(z) = Areas::compute(size, &zoom) else {
            panic!("fits");
        };
        assert_eq!(z.fire, plain.documents.union(plain.compare));
        for pane in [Pane::Documents, Pane::Text, Pane::Ranking, Pane::Budget] {
            assert!(!z.is_shown(pane), "{pane:?} is hidden under the zoom");
        }
        assert_eq!(z.pane_at(Position::new(2, 10)), Some(Pane::Fire));
        let pinned = Arrange {
            pinned: true,
            ..Arrange::default()
        };
        let Some(p) = Areas::compute(size, &pinned) else {
            panic!("fits");
        };
        assert!(!p.is_shown(Pane::Budget) && !p.is_shown(Pane::Fire));
        assert_eq!(
            p.compare,
            plain.fire.union(plain.budget).union(plain.compare)
        );
        let two = Arrange {
            query_lines: 2,
            ..Arrange::default()
        };
        let Some(q) = Areas::compute(size, &two) else {
            panic!("fits");
        };
        assert_eq!(q.query.height, 4, "two lines and the borders");
        assert_eq!(q.query.width, 120, "the whole width");
        assert_eq!(q.sliders.y, q.query.bottom(), "the sliders below");
    }

    #[test]
    fn a_compact_screen_shows_one_pane_below_a_strip_and_the_banner() {
        let zoom = |pane| Arrange {
            zoom: Some(pane),
            ..Arrange::default()
        };
        let size = Rect::new(0, 0, 80, 24);
        let Some(a) = Areas::compute(size, &zoom(Pane::Fire)) else {
            panic!("80x24 is drawn");
        };
        assert!(a.strip.is_some());
        assert_eq!(a.sliders.width, 80, "the sliders take the whole width");
        assert_eq!(a.fire, a.main, "the fire test alone in the main area");
        for pane in [Pane::Documents, Pane::Text, Pane::Ranking, Pane::Budget] {
            assert!(!a.is_shown(pane), "{pane:?} waits for Tab");
        }
        assert!(a.body(Pane::Fire).height >= 8, "{:?}", a.body(Pane::Fire));
        let presenting = Arrange {
            step: true,
            ..zoom(Pane::Ranking)
        };
        let Some(p) = Areas::compute(size, &presenting) else {
            panic!("80x24 is drawn");
        };
        let Some(banner) = p.step else {
            panic!("the banner shows");
        };
        assert_eq!(p.ranking.y, banner.bottom());
        assert!(p.body(Pane::Ranking).height >= 3);
        let pages = Areas::compute(size, &Arrange::default());
        assert!(
            pages.is_some_and(|a| a.strip.is_none()),
            "no strip off the explore page"
        );
        assert!(
            Areas::compute(Rect::new(0, 0, MIN_WIDTH, MIN_HEIGHT), &zoom(Pane::Text)).is_some()
        );
    }
}
