//! Drawing: every view reads `&App` and the frame, and changes nothing.

mod board;
mod calibration;
mod documents;
pub(crate) mod evaluation;
mod fire;
mod header;
pub(crate) mod help;
mod loading;
mod picker;
mod pinned;
mod ranking;
mod results;
mod status;
mod step;
mod text;
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
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

pub use board::family_points;

use super::action::{Page, Pane};
use super::app::App;
use super::screen::{Areas, FULL_HEIGHT, FULL_WIDTH, MIN_HEIGHT, MIN_WIDTH};
use super::theme::Theme;

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
    let main = areas.main;
    match (app.page, &app.shown) {
        (Page::Calibration, _) => calibration::draw(app, frame, main),
        (Page::Evaluation, _) => evaluation::draw(app, frame, main),
        (Page::Explore, Some(shown)) => {
            documents::draw(app, shown, frame, &areas);
            text::draw(app, shown, frame, &areas);
            ranking::draw(app, shown, frame, &areas);
            if areas.is_shown(Pane::Fire) {
                fire::draw(app, shown, frame, &areas);
            }
            if areas.is_shown(Pane::Budget) {
                results::draw_budget(app, shown, frame, &areas);
            }
            match &app.pinned {
                Some(pinned) if app.arrange().pinned => {
                    pinned::draw(app, shown, pinned, frame, &areas)
                }
                _ => results::draw_compare(app, shown, frame, &areas),
            }
            if let Some(rect) = areas.step {
                step::draw(app, shown, frame, rect);
            }
            if let Some(rect) = areas.strip {
                draw_strip(app, &areas, frame, rect);
            }
        }
        (Page::Explore, None) => loading::draw(app, frame, main),
    }
    status::draw(app, frame, areas.status);
    if app.picker.is_some() {
        picker::draw(app, frame, area);
    }
    if app.help {
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
            format!(
                "From {FULL_WIDTH} × {FULL_HEIGHT} every pane shows at once. Enlarge the window \
                 or shrink the font, or press q to quit."
            ),
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

/// A compact screen's strip: every pane of the explore page by name, the one shown marked, and
/// the keys that move between them.
fn draw_strip(app: &App, areas: &Areas, frame: &mut Frame, rect: Rect) {
    let t = &app.theme;
    let mut spans = vec![
        Span::styled(" Tab ", t.key),
        Span::styled("panes: ", t.muted),
    ];
    for (i, pane) in Pane::ORDER.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", t.muted));
        }
        let shown = pane != Pane::Query && areas.is_shown(pane);
        let style = if shown {
            t.border_focused
        } else if app.focus == pane {
            t.title
        } else {
            t.muted
        };
        let name = pane.label();
        spans.push(Span::styled(
            if shown {
                format!("▸{name}")
            } else {
                name.to_string()
            },
            style,
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), rect);
}

/// A pane's bordered block with its title; the focused pane's border stands out.
fn pane_block<'a>(app: &App, pane: Pane, title: impl Into<Line<'a>>) -> Block<'a> {
    let t = &app.theme;
    let focused = app.focus == pane && !app.help;
    Block::bordered()
        .border_style(if focused { t.border_focused } else { t.border })
        .title(
            title
                .into()
                .style(if focused { t.border_focused } else { t.title }),
        )
}

/// `text` cut to `width` columns, with `…` when cut.
fn fit(text: &str, width: usize) -> String {
    let span = Span::raw(text);
    if span.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = Span::raw(c.to_string()).width();
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// A chunk or seam named briefly: `chunk 7`, `seam 7|8`.
fn short_label(
    open: &seamscope::session::OpenCorpus,
    entry: seamscope::retrieve::EntryRef,
) -> String {
    match entry {
        seamscope::retrieve::EntryRef::Chunk(c) => format!("chunk {}", c.0),
        seamscope::retrieve::EntryRef::Seam(s) => open.seam_label(s),
    }
}

/// The style of a list row: selected, under test in step mode, or plain.
fn row_style(theme: &Theme, selected: bool, under_test: bool) -> Style {
    if under_test {
        theme.step_current
    } else if selected {
        theme.row_selected
    } else {
        Style::default()
    }
}

/// A hint shown in an empty pane.
fn empty_hint<'a>(theme: &Theme, text: &'a str) -> Paragraph<'a> {
    Paragraph::new(Line::styled(text, theme.placeholder)).wrap(Wrap { trim: true })
}

/// `text` broken at spaces into lines of at most `width` columns (a longer word gets a line of
/// its own, cut by the pane).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = Span::raw(line.as_str()).width() + 1 + Span::raw(word).width();
        if !line.is_empty() && needed > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
