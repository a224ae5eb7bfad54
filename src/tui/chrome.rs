//! What every pane's drawing shares: the bordered block with its title (the focused pane's
//! stands out), text cut or wrapped to a width, row styles and empty-pane hints.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::action::Pane;
use super::app::App;
use super::theme::Theme;

/// A pane's bordered block with its title; the focused pane's border stands out.
pub fn pane_block<'a>(app: &App, pane: Pane, title: impl Into<Line<'a>>) -> Block<'a> {
    let t = &app.theme;
    let focused = app.focus == pane && app.help.is_none();
    Block::bordered()
        .border_style(if focused { t.border_focused } else { t.border })
        .title(
            title
                .into()
                .style(if focused { t.border_focused } else { t.title }),
        )
}

/// `text` cut to `width` columns, with `…` when cut.
pub fn fit(text: &str, width: usize) -> String {
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
pub fn short_label(
    open: &seamscope::session::OpenCorpus,
    entry: seamscope::retrieve::EntryRef,
) -> String {
    match entry {
        seamscope::retrieve::EntryRef::Chunk(c) => format!("chunk {}", c.0),
        seamscope::retrieve::EntryRef::Seam(s) => open.seam_label(s),
    }
}

/// The style of a list row: selected, under test in step mode, or plain.
pub fn row_style(theme: &Theme, selected: bool, under_test: bool) -> Style {
    if under_test {
        theme.step_current
    } else if selected {
        theme.row_selected
    } else {
        Style::default()
    }
}

/// A hint shown in an empty pane.
pub fn empty_hint<'a>(theme: &Theme, text: &'a str) -> Paragraph<'a> {
    Paragraph::new(Line::styled(text, theme.placeholder)).wrap(Wrap { trim: true })
}

/// `text` broken at spaces into lines of at most `width` columns (a longer word gets a line of
/// its own, cut by the pane).
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
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

/// Rows `lines` take as drawn in a paragraph wrapped (trimmed) to `width` columns, up to 200:
/// drawn off screen and counted, since a word wrap may take more rows than the characters.
pub fn wrapped_rows(lines: &[Line<'_>], width: u16) -> u16 {
    const MOST: u16 = 200;
    let width = width.max(1);
    let mut scratch = Buffer::empty(Rect::new(0, 0, width, MOST));
    Paragraph::new(lines.to_vec())
        .wrap(Wrap { trim: true })
        .render(scratch.area, &mut scratch);
    let written =
        |y: u16| (0..width).any(|x| scratch.cell((x, y)).is_some_and(|c| c.symbol() != " "));
    (0..MOST).rev().find(|y| written(*y)).map_or(0, |y| y + 1)
}
