//! The document list: each document with its chunk and seam counts.

use ratatui::Frame;
use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table};
use seamscope::corpus::DocId;

use crate::tui::action::Pane;
use crate::tui::app::{App, Shown};
use crate::tui::chrome::{fit, pane_block, row_style};
use crate::tui::doc_rows::{doc_chunks, doc_seams};
use crate::tui::screen::{Areas, inside};

/// Draw the document list.
pub fn draw(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let open = &shown.open;
    let area = areas.documents;
    let title = match shown.coming {
        // Still reading: a count of all files found, or a long first file shown by its start.
        Some(total) => format!(
            " Documents · {} of {total} · reading ",
            open.corpus.documents.len()
        ),
        None => format!(" Documents · {} ", open.corpus.documents.len()),
    };
    frame.render_widget(pane_block(app, Pane::Documents, title), area);
    let body = areas.body(Pane::Documents);
    let cursor = app.lists.documents;
    let context: Vec<DocId> = app
        .reveal()
        .map(|r| {
            r.context
                .iter()
                .filter_map(|c| open.layout.chunks.get(c.0 as usize).map(|c| c.doc))
                .collect()
        })
        .unwrap_or_default();
    let name_width = usize::from(body.width).saturating_sub(2 + 1 + 4 + 1 + 4);
    let rows = open
        .corpus
        .documents
        .iter()
        .enumerate()
        .skip(cursor.offset)
        .take(usize::from(body.height))
        .map(|(i, doc)| {
            let mark = if context.contains(&doc.id) {
                Span::styled("● ", t.in_context)
            } else {
                Span::raw("  ")
            };
            let name = fit(&seamscope::text::safe_name(&doc.path), name_width);
            let chunks = doc_chunks(&open.layout, doc.id).len();
            let seams = doc_seams(&open.layout, doc.id).len();
            Row::new(vec![
                Cell::from(Line::from(vec![mark, Span::styled(name, t.text)])),
                Cell::from(Line::styled(format!("{chunks:>4}"), t.text)),
                Cell::from(Line::styled(format!("{seams:>4}"), t.text)),
            ])
            .style(row_style(t, i == cursor.selected, false))
        });
    let header = Row::new(vec!["  document", "  ch", "seam"]).style(t.muted);
    let table = Table::new(
        rows,
        [
            Constraint::Fill(1),
            Constraint::Length(4),
            Constraint::Length(4),
        ],
    )
    .header(header)
    .column_spacing(1);
    frame.render_widget(table, inside(area));
}
