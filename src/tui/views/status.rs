//! The status line: the main keys for the current mode, and the latest notice.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::App;

/// Draw the status line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let keys: &[(&str, &str)] = if app.typing {
        &[
            ("Enter", "run"),
            ("Esc", "stop typing"),
            ("Tab", "next pane"),
            ("Ctrl-U", "clear"),
            ("Ctrl-C", "quit"),
        ]
    } else if app.step.is_some() {
        &[
            ("→/Space", "next decision"),
            ("←", "previous"),
            ("Esc", "leave step mode"),
            ("?", "help"),
            ("q", "quit"),
            ("m/M", "margin"),
            ("b/B", "budget"),
        ]
    } else {
        &[
            ("/", "query"),
            ("?", "help"),
            ("q", "quit"),
            ("↑↓", "move"),
            ("Tab", "pane"),
            ("n/p", "chunk"),
            ("]/[", "cut"),
            ("m/M", "margin"),
            ("b/B", "budget"),
            ("k/K", "seam k"),
            ("c/C", "chunk size"),
            ("s", "step"),
        ]
    };
    let mut spans = vec![Span::styled(" ", t.status)];
    for (key, what) in keys {
        spans.push(Span::styled(*key, t.status.patch(t.key)));
        spans.push(Span::styled(format!(" {what}  "), t.status));
    }
    let notice = app.notice.as_ref().map(|n| {
        let style = if n.error { t.error } else { t.notice };
        Line::from(Span::styled(
            format!("{} ", seamscope::text::safe(&n.text)),
            t.status.patch(style),
        ))
        .right_aligned()
    });
    let notice_width = notice
        .as_ref()
        .map_or(0, |l| l.width() as u16)
        .min(area.width / 2);
    let [keys_area, notice_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(notice_width)]).areas(area);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(t.status), keys_area);
    if let Some(line) = notice {
        frame.render_widget(Paragraph::new(line).style(t.status), notice_area);
    }
}
