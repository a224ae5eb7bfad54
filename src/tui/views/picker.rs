//! The question picker: the corpus' gold questions with their tags; the one under the cursor in
//! full below the list, with where its evidence lies.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use seamscope::eval::metrics::{SpanClass, span_class};
use seamscope::eval::questions::Question;

use crate::tui::app::App;
use crate::tui::chrome::{fit, wrap_words};
use crate::tui::doc_rows::doc_chunks;
use crate::tui::widgets::gauge::thousands;

/// Draw the picker in the middle of `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let (Some(cursor), Some(gold)) = (app.picker, app.gold_questions()) else {
        return;
    };
    let questions = gold.list();
    let width = 120.min(area.width.saturating_sub(4));
    let inner_width = usize::from(width.saturating_sub(2));
    let rows = app.picker_rows().min(questions.len()) as u16;
    let height = (rows + 1 + 5 + 2).min(area.height.saturating_sub(2));
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    };
    let classes: Vec<SpanClass> = questions.iter().map(|q| class_of(app, q)).collect();
    let split = classes.iter().filter(|c| **c == SpanClass::Split).count();
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(
            format!(
                " Questions · questions.jsonl · {} · {split} split by a cut here ",
                questions.len()
            ),
            t.title,
        ))
        .title_bottom(Line::styled(
            " ↑↓ PgUp PgDn move · Enter asks it · Esc closes ",
            t.muted,
        ));
    frame.render_widget(Clear, rect);
    let inner = block.inner(rect);
    frame.render_widget(block.style(t.text), rect);
    let tags_width = 18;
    let mut lines = Vec::new();
    for (i, q) in questions
        .iter()
        .enumerate()
        .skip(cursor.offset)
        .take(usize::from(rows))
    {
        let id = fit(&seamscope::text::safe(&q.id), 6);
        let tags = fit(&q.tags.join(" "), tags_width);
        let room = inner_width.saturating_sub(7 + CLASS + tags_width + 2);
        let (class, class_style) = match classes[i] {
            SpanClass::Whole => ("whole", t.muted),
            SpanClass::Split => ("SPLIT", t.cut),
            SpanClass::Absent => ("absent", t.error),
        };
        let text = fit(&seamscope::text::safe(&q.question), room);
        let style = if i == cursor.selected {
            t.row_selected
        } else {
            ratatui::style::Style::default()
        };
        lines.push(
            Line::from(vec![
                Span::styled(format!("{id:<7}"), t.key),
                Span::styled(format!("{class:<CLASS$}"), class_style),
                Span::styled(format!("{tags:<tags_width$}  "), t.muted),
                Span::styled(text, t.text),
            ])
            .style(style),
        );
    }
    lines.push(Line::styled("─".repeat(inner_width), t.border));
    if let Some(q) = questions.get(cursor.selected) {
        lines.extend(question_in_full(app, q, inner_width));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// Columns of a question's class under the layout shown.
const CLASS: usize = 7;

/// How the layout shown holds a question's evidence (`questions check`'s class): one chunk holds
/// every span (whole), some span is in no one chunk (split), or a span is in none (absent).
fn class_of(app: &App, q: &Question) -> SpanClass {
    let Some(shown) = &app.shown else {
        return SpanClass::Absent;
    };
    let layout = &shown.open.layout;
    let chunks: Vec<seamscope::corpus::Span> = layout.chunks[doc_chunks(layout, q.doc)]
        .iter()
        .map(|c| c.span)
        .collect();
    let classes: Vec<SpanClass> = q.spans.iter().map(|s| span_class(*s, &chunks)).collect();
    if classes.contains(&SpanClass::Absent) {
        SpanClass::Absent
    } else if classes.contains(&SpanClass::Split) {
        SpanClass::Split
    } else {
        SpanClass::Whole
    }
}

/// The question under the cursor in full (up to three lines) and where its evidence lies.
fn question_in_full(app: &App, q: &Question, inner_width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    let doc = app
        .shown
        .as_ref()
        .map(|s| seamscope::text::safe_name(&s.open.corpus.doc(q.doc).path))
        .unwrap_or_default();
    let bytes: usize = q.spans.iter().map(|s| s.end - s.start).sum();
    for part in wrap_words(&seamscope::text::safe(&q.question), inner_width)
        .into_iter()
        .take(3)
    {
        lines.push(Line::styled(part, t.title));
    }
    lines.push(Line::styled(
        format!(
            "evidence: {} span{} · {} bytes of {doc}",
            q.spans.len(),
            if q.spans.len() == 1 { "" } else { "s" },
            thousands(bytes)
        ),
        t.evidence,
    ));
    lines
}
