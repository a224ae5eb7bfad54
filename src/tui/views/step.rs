//! Step mode's banner: which decision is under test and what it decided.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::tui::app::{App, Shown};

/// Draw the step banner.
pub fn draw(app: &App, shown: &Shown, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let (Some((all, index)), Some(answer)) = (app.current_step(), &app.answer) else {
        return;
    };
    let trace = &answer.trace;
    let title = match all.get(index) {
        Some(step) => format!(" Step {} of {} · {} ", index + 1, all.len(), step.stage()),
        None => " Step mode ".to_string(),
    };
    let block = Block::bordered()
        .border_style(t.step_current)
        .title(Line::styled(title, t.step_current))
        .title_bottom(Line::styled(
            " → next · ← previous · Esc leaves step mode ",
            t.muted,
        ));
    let text = match all.get(index) {
        Some(step) => Line::from(vec![Span::styled(
            step.describe(trace, &shown.open),
            t.text,
        )]),
        None => Line::styled("no decision to walk: the budget is 0", t.muted),
    };
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: true }).block(block),
        area,
    );
}
