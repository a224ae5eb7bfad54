//! Presenter mode's banner: which decision is under test, the caption to read aloud, and for the
//! search and fusion steps the entry under the ranking cursor with its score or RRF arithmetic.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::tui::app::{App, Shown};
use crate::tui::step::{Step, search_lists, short_name};

/// Draw the step banner.
pub fn draw(app: &App, shown: &Shown, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let (Some((all, index)), Some(answer)) = (app.current_step(), &app.answer) else {
        return;
    };
    let trace = &answer.trace;
    let step = all.get(index).copied();
    let title = match step {
        Some(step) => format!(
            " Step {} of {} · {} ",
            index + 1,
            all.len(),
            step.stage(trace)
        ),
        None => " Presenter mode ".to_string(),
    };
    let block = Block::bordered()
        .border_style(t.step_current)
        .title(Line::styled(title, t.step_current))
        .title_bottom(Line::styled(" → next · ← back · Esc leaves ", t.muted));
    let mut lines = match step {
        Some(step) => vec![Line::styled(step.describe(trace, &shown.open), t.text)],
        None => vec![Line::styled("no decision to walk", t.muted)],
    };
    let cursor = app.lists.ranking.selected;
    match step {
        Some(Step::Search(i)) => {
            let lists = search_lists(trace);
            if let Some(hit) = lists.get(i).and_then(|l| l.hits.get(cursor)) {
                lines.push(Line::from(vec![
                    Span::styled("↕ ", t.key),
                    Span::styled(
                        format!(
                            "#{} {} · score {:.4} on this list's own scale",
                            cursor + 1,
                            short_name(&shown.open, hit.entry),
                            hit.score
                        ),
                        t.title,
                    ),
                ]));
            }
        }
        Some(Step::Fuse) => {
            if let Some(e) = trace.fused.get(cursor) {
                lines.push(Line::from(vec![
                    Span::styled("↕ ", t.key),
                    Span::styled(
                        format!(
                            "#{} {} = {}",
                            cursor + 1,
                            short_name(&shown.open, e.entry),
                            e.rrf_arithmetic(trace.settings.rrf_c)
                        ),
                        t.title,
                    ),
                ]));
            }
        }
        Some(Step::Compare) => {
            if let Some(verdict) = app.gold_verdict() {
                lines.push(Line::styled(verdict.line, t.title));
            }
        }
        _ => {}
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}
