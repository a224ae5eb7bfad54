//! The help overlay: every key, grouped by what it is for.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::tui::app::App;

/// Every key and what it does, by group; the README's key table says the same.
pub const KEYS: &[(&str, &[(&str, &str)])] = &[
    (
        "Query",
        &[
            ("/  or  i", "type a question in the query box"),
            ("Enter", "run it: search, fuse, fire test, budget fill"),
            ("Esc", "stop typing (the text stays)"),
            ("Ctrl-U", "clear the query box"),
        ],
    ),
    (
        "Move",
        &[
            ("Tab / Shift-Tab", "next / previous pane"),
            ("↑ ↓  PgUp PgDn", "move in a list, or scroll the text"),
            ("Home / End", "first / last row"),
            ("n / p", "next / previous chunk of the document"),
            ("] / [", "next / previous cut (its seam window)"),
            ("Enter on a document", "read it"),
        ],
    ),
    (
        "Sliders",
        &[
            ("m / M", "fire margin m down / up (replans at once)"),
            ("b / B", "budget down / up (replans at once)"),
            (
                "k / K",
                "seam half-width k down / up by 10 (re-embeds seams)",
            ),
            ("c / C", "chunk size down / up by 128 (rebuilds everything)"),
        ],
    ),
    (
        "Step mode",
        &[
            ("s", "walk the current query one decision at a time"),
            ("→ or Space / ←", "next / previous decision"),
            ("Esc", "leave step mode"),
        ],
    ),
    (
        "Everywhere",
        &[
            (
                "mouse",
                "click a pane, a row or a slider; wheel scrolls or moves a slider",
            ),
            ("t", "next built-in theme (dark, light, mono)"),
            ("?", "this help (Esc closes it)"),
            ("q  or  Ctrl-C", "quit"),
        ],
    ),
];

/// Draw the help overlay in the middle of `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut lines = vec![
        Line::styled(
            "In the text: ✂ marks a cut between two chunks; shading marks the seam window across it.",
            t.muted,
        ),
        Line::from(""),
    ];
    for (group, keys) in KEYS {
        lines.push(Line::styled(*group, t.title));
        for (key, what) in *keys {
            lines.push(Line::from(vec![
                Span::styled(format!("  {key:<22}"), t.key),
                Span::styled(*what, t.text),
            ]));
        }
        lines.push(Line::from(""));
    }
    let width = 100.min(area.width.saturating_sub(4));
    let height = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(" Help · seamscope keys ", t.title))
        .title_bottom(Line::styled(" ? or Esc closes ", t.muted));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).style(t.text).block(block), rect);
}
