//! The status line: the pages (the one shown stands out), the main keys for the current page and
//! mode (the sliders' keys are in the Settings box's title), a legend of the marks when there is
//! room, and the latest notice.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::action::Page;
use crate::tui::app::App;
use crate::tui::chrome::wrap_words;
use crate::tui::panes::PagePane;

/// The marks of the explore page, as (mark, meaning) pairs (the help says more).
const LEGEND: [(&str, &str); 5] = [
    ("▎●", "in context"),
    ("▶", "chunk start"),
    ("▲", "fires"),
    ("+", "added"),
    ("−", "displaced"),
];

/// The keys worth showing now, as (key, what) pairs.
fn keys(app: &App) -> &'static [(&'static str, &'static str)] {
    if app.typing {
        return &[
            ("Enter", "run"),
            ("Esc", "stop typing"),
            ("Tab", "next pane"),
            ("Ctrl-U", "clear"),
            ("Ctrl-C", "quit"),
        ];
    }
    app.page.pane().hints(app)
}

/// The page keys, the page shown highlighted, then a bar. A compact screen names the page shown
/// and the others by their keys only (the help names them all), leaving room for the keys that
/// matter there.
fn page_list(app: &App) -> Vec<Span<'static>> {
    let t = &app.theme;
    let mut spans = Vec::new();
    for (i, page) in Page::ALL.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" ", t.status));
        }
        let style = if page == app.page {
            t.status.patch(t.row_selected).patch(t.key)
        } else {
            t.status
        };
        let label = if app.is_compact() && page != app.page {
            page.pane().key().to_string()
        } else {
            format!("{} {}", page.pane().key(), page.label())
        };
        spans.push(Span::styled(label, style));
    }
    spans.push(Span::styled(" │ ", t.status));
    spans
}

/// Draw the status line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut spans = vec![Span::styled(" ", t.status)];
    if !app.typing {
        spans.extend(page_list(app));
    }
    // On a compact screen a notice wider than the line rises above it, wrapped, rather than
    // losing its end.
    if let Some(n) = &app.notice
        && app.is_compact()
    {
        let text = format!(" {}", seamscope::text::safe(&n.text));
        if Span::raw(text.as_str()).width() + 1 > usize::from(area.width) {
            return draw_tall_notice(app, frame, area, &text, n.error);
        }
    }
    let notice = app.notice.as_ref().map(|n| {
        let style = if n.error { t.error } else { t.notice };
        Line::from(Span::styled(
            format!("  {} ", seamscope::text::safe(&n.text)),
            t.status.patch(style),
        ))
        .right_aligned()
    });
    // A notice is said whole: the keys make room (they drop out whole, the last first).
    let notice_width = notice
        .as_ref()
        .map_or(0, |l| l.width() as u16)
        .min(area.width);
    let [keys_area, notice_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(notice_width)]).areas(area);
    // The page list, too, goes whole or not at all (a long notice on a narrow screen).
    if spans.iter().map(Span::width).sum::<usize>() > usize::from(keys_area.width) {
        spans.truncate(1);
    }
    // Keys that do not fit whole are left out, the last first, rather than cut mid-word.
    let mut used: usize = spans.iter().map(Span::width).sum();
    for (key, what) in keys(app) {
        let hint = format!(" {what}");
        let width = Span::raw(*key).width() + Span::raw(hint.as_str()).width();
        if used + width > usize::from(keys_area.width) {
            break;
        }
        used += width + 2;
        spans.push(Span::styled(*key, t.status.patch(t.key)));
        spans.push(Span::styled(format!("{hint}  "), t.status));
    }
    // On the explore page, a legend of the marks when all of it fits after the keys.
    if app.page == Page::Explore && !app.typing && app.step.is_none() {
        let legend = LEGEND
            .iter()
            .map(|(m, w)| format!("{m} {w}"))
            .collect::<Vec<_>>();
        let text = format!("│ {}", legend.join("  "));
        if used + Span::raw(text.as_str()).width() <= usize::from(keys_area.width) {
            spans.push(Span::styled(text, t.status.patch(t.muted)));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(t.status), keys_area);
    if let Some(line) = notice {
        frame.render_widget(Paragraph::new(line).style(t.status), notice_area);
    }
}

/// A notice too wide for the status line, wrapped on up to three rows that end on the status
/// line (over the bottom of the page for as long as the notice stands).
fn draw_tall_notice(app: &App, frame: &mut Frame, area: Rect, text: &str, error: bool) {
    let t = &app.theme;
    let style = t.status.patch(if error { t.error } else { t.notice });
    let lines: Vec<Line> = wrap_words(text, usize::from(area.width.saturating_sub(2)))
        .into_iter()
        .map(|l| Line::styled(format!(" {l}"), style))
        .collect();
    let rows = (lines.len() as u16).clamp(1, 3).min(area.y + 1);
    let rect = Rect {
        y: area.bottom().saturating_sub(rows),
        height: rows,
        ..area
    };
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).style(t.status), rect);
}
