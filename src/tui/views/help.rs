//! The help overlay: every key, grouped by what it is for, in two columns.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::wrap_words;
use crate::tui::app::App;

/// Every key and what it does, by group; the README's key table says the same. The first
/// [`LEFT_GROUPS`] groups fill the left column, the rest the right.
pub const KEYS: &[(&str, &[(&str, &str)])] = &[
    (
        "Query",
        &[
            ("/  or  i", "type a question"),
            ("Enter", "run it through every stage"),
            ("Esc", "stop typing (the text stays)"),
            ("Ctrl-U", "clear the query box"),
            ("↑ / ↓", "typing: earlier / later question"),
        ],
    ),
    (
        "Move (explore page)",
        &[
            ("Tab / Shift-Tab", "next / previous pane"),
            ("↑ ↓ PgUp PgDn", "move in a list, scroll the text"),
            ("Home / End", "first / last row"),
            ("n / p", "next / previous chunk"),
            ("] / [", "next / previous cut (its seam)"),
            ("Enter (docs)", "read the document"),
        ],
    ),
    (
        "Presenter and demo",
        &[
            ("s", "presenter mode: one step at a time"),
            ("→ Space / ←", "next / previous step (Esc leaves)"),
            ("l", "pick a gold question: evidence, ✓/✗"),
            ("P", "pin; change settings to compare"),
            ("z", "zoom the pane (z or Esc: back)"),
            ("e / w / y", "save trace / save view / copy context"),
        ],
    ),
    (
        "Everywhere",
        &[
            ("mouse", "click a pane, row or slider; wheel"),
            ("t", "next theme (dark, light, mono)"),
            ("R", "read the files again (after edits)"),
            ("?", "this help (Esc closes it)"),
            // One row for both, so the help still fits the smallest screen whole.
            ("q  or  Ctrl-C", "quit; Ctrl-Z suspends (fg resumes)"),
        ],
    ),
    (
        "Pages",
        &[("1 / 2 / 3", "explore / calibrate m / evaluate")],
    ),
    (
        "Sliders (every page)",
        &[
            ("m / M", "fire margin m (replans at once)"),
            ("b / B", "budget (replans at once)"),
            ("k / K", "seam half-width ±10 (new seams)"),
            ("c / C", "chunk size ±128 (rebuilds all)"),
        ],
    ),
    (
        "Chunking (every page)",
        &[
            ("x / X", "next / previous chunker"),
            ("h", "heading-path prefixes on / off"),
            ("d", "side drop on / off"),
        ],
    ),
    (
        "Calibrate and evaluate pages",
        &[
            ("r / Esc", "run in the background / cancel"),
            ("a", "calibrate: apply the best k and m"),
            ("g", "calibrate: gold set / passages"),
            ("s / v", "evaluate: strategy board / length map"),
            ("Tab ↑↓ a", "board: next view / row / apply row"),
            ("o V D", "board: constrain: once / vectors / dup"),
        ],
    ),
];

/// What the marks on screen mean, above the keys.
const INTRO: &str = "Marks: ✂ a cut · shading its seam window · ┊ an atom (fence, table, row, \
     figure sentence) a cut splits · ▎ ● in the context · ▶ a chunk's first line · ▲ fires (▲ fires* \
     only because a linked chunk is absent) · + added / − displaced by Seams · bold green text: the \
     picked gold question's evidence · ░ uncovered ≡ shared (--cuts)";

/// Groups in the left column.
const LEFT_GROUPS: usize = 3;

/// One column of groups, descriptions wrapped to `width`.
fn column<'a>(
    app: &App,
    groups: &[(&'a str, &'a [(&'a str, &'a str)])],
    width: usize,
) -> Vec<Line<'a>> {
    let t = &app.theme;
    let key_width = groups
        .iter()
        .flat_map(|(_, keys)| keys.iter())
        .map(|(key, _)| Span::raw(*key).width())
        .max()
        .unwrap_or(0)
        + 2;
    let mut lines = Vec::new();
    for (group, keys) in groups {
        lines.push(Line::styled(*group, t.title));
        for (key, what) in *keys {
            let wrapped = wrap_words(what, width.saturating_sub(key_width + 2));
            for (i, part) in wrapped.into_iter().enumerate() {
                let key = if i == 0 { *key } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {key:<key_width$}"), t.key),
                    Span::styled(part, t.text),
                ]));
            }
        }
        lines.push(Line::from(""));
    }
    lines
}

/// Draw the help overlay in the middle of `area`: two columns of keys on a wide screen, one on
/// a narrow one; scrolled by [`App::help_scroll`] when taller than the screen.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let one_column = area.width < 120;
    let width = 150.min(area.width.saturating_sub(if one_column { 2 } else { 4 }));
    let half = usize::from(width.saturating_sub(3) / 2);
    let (left, right) = if one_column {
        let mut lines = vec![];
        for part in wrap_words(INTRO, usize::from(width.saturating_sub(2))) {
            lines.push(Line::styled(part, t.muted));
        }
        lines.push(Line::from(""));
        lines.extend(column(app, KEYS, usize::from(width.saturating_sub(2))));
        (lines, Vec::new())
    } else {
        let (left_groups, right_groups) = KEYS.split_at(LEFT_GROUPS.min(KEYS.len()));
        (
            column(app, left_groups, half),
            column(app, right_groups, half),
        )
    };
    let intro_rows = if one_column {
        0
    } else {
        // Rows the intro wraps to (word breaks may take a few columns more than the characters).
        (INTRO.chars().count() as u16 + 12).div_ceil(width.saturating_sub(2).max(1))
    };
    // Two columns: the intro's rows besides the keys' (as the help has always been sized).
    let rows = left.len().max(right.len()) as u16 + if one_column { 0 } else { 2 };
    let height = (rows + 2).min(area.height.saturating_sub(2));
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    };
    let scroll = app
        .help_scroll
        .min(rows.saturating_sub(height.saturating_sub(2)));
    let closes = if rows + 2 > height {
        " ↑↓ PgUp PgDn scroll · ? or Esc closes "
    } else {
        " ? or Esc closes "
    };
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(" Help · seamscope keys ", t.title))
        .title_bottom(Line::styled(closes, t.muted));
    frame.render_widget(Clear, rect);
    let inner = block.inner(rect);
    frame.render_widget(block.style(t.text), rect);
    if one_column {
        frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), inner);
        return;
    }
    let [intro, body] =
        Layout::vertical([Constraint::Length(intro_rows), Constraint::Fill(1)]).areas(inner);
    frame.render_widget(
        Paragraph::new(Line::styled(INTRO, t.muted)).wrap(ratatui::widgets::Wrap { trim: true }),
        intro,
    );
    let [left_area, _, right_area] = Layout::horizontal([
        Constraint::Length(half as u16),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(body);
    frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), left_area);
    frame.render_widget(Paragraph::new(right).scroll((scroll, 0)), right_area);
}
