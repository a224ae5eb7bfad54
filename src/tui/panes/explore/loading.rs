//! While the corpus opens: what is being done, with a progress bar; or why it failed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::widgets::gauge::{progress, thousands};

/// Draw the opening panel in the middle of `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut lines = Vec::new();
    if let Some(error) = &app.open_error {
        lines.push(Line::styled("The corpus could not be opened:", t.error));
        lines.push(Line::from(""));
        lines.push(Line::styled(seamscope::text::safe(error), t.text));
        lines.push(Line::from(""));
        lines.push(Line::styled("Press q to quit.", t.muted));
    } else {
        let progress_line = match app.jobs.layout.in_flight().and_then(|j| j.progress) {
            Some(p) => {
                let unit = p.stage.unit();
                let counts = if p.total > 0 && !unit.is_empty() {
                    format!(" {} of {} {unit}", thousands(p.done), thousands(p.total))
                } else {
                    String::new()
                };
                progress(
                    p.done,
                    p.total,
                    30,
                    format!("{}{counts}", p.stage.label()),
                    t,
                )
            }
            None => Line::styled("starting…", t.muted),
        };
        lines.push(Line::styled(
            "Opening the corpus: chunks, seams and their indexes (cached after the first time).",
            t.text,
        ));
        lines.push(Line::from(""));
        lines.push(progress_line);
        if !app.setup_log.is_empty() {
            lines.push(Line::from(""));
            lines.extend(
                app.setup_log
                    .iter()
                    .map(|l| Line::styled(l.clone(), t.muted)),
            );
        }
        lines.push(Line::from(""));
        lines.push(Line::styled(
            "You can type a question meanwhile (press /); it runs as soon as the corpus is ready.",
            t.muted,
        ));
    }
    let width = 90.min(area.width.saturating_sub(4));
    let height = (lines.len() as u16 + 2).min(area.height);
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 3,
        width,
        height,
    };
    let title = format!(" Opening {} ", app.corpus_name);
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(title, t.title));
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        rect,
    );
}
