//! Drawing: every view reads `&App` and the frame, and changes nothing.

pub(crate) mod header;
pub(crate) mod help;
mod picker;
mod status;
mod top;

#[cfg(test)]
mod compact_tests;
#[cfg(test)]
mod demo_tests;
#[cfg(test)]
mod draw_time;
#[cfg(test)]
mod tests;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::app::App;
use super::panes::PagePane;
use super::screen::{Areas, FULL_HEIGHT, FULL_WIDTH, MIN_HEIGHT, MIN_WIDTH};

/// Draw the whole screen.
pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    // The theme's own background under everything, so its colours read on any terminal.
    frame.render_widget(
        ratatui::widgets::Block::default().style(app.theme.background),
        area,
    );
    let Some(areas) = Areas::compute(area, &app.arrange()) else {
        too_small(app, frame, area);
        return;
    };
    header::draw(app, frame, areas.header);
    top::draw_query(app, frame, areas.query);
    top::draw_sliders(app, frame, &areas);
    app.page.pane().draw(app, frame, &areas);
    status::draw(app, frame, areas.status);
    if app.picker.is_some() {
        picker::draw(app, frame, area);
    }
    if app.help.is_some() {
        help::draw(app, frame, area);
    }
}

fn too_small(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let text = vec![
        Line::styled("The terminal is too small for seamscope.", t.error),
        Line::from(""),
        Line::styled(
            format!(
                "It is {} × {}; seamscope needs at least {MIN_WIDTH} × {MIN_HEIGHT}.",
                area.width, area.height
            ),
            t.text,
        ),
        Line::styled(
            "Enlarge the window or the font, or press q to quit.",
            t.muted,
        ),
        Line::styled(
            format!("From {FULL_WIDTH} × {FULL_HEIGHT} every pane shows at once."),
            t.muted,
        ),
    ];
    let height = (text.len() as u16).min(area.height);
    let rect = Rect {
        y: area.y + area.height.saturating_sub(height) / 2,
        height,
        ..area
    };
    frame.render_widget(
        Paragraph::new(text).centered().wrap(Wrap { trim: true }),
        rect,
    );
}
