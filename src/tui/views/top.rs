//! The query box and the sliders.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::tui::action::{Pane, Slider};
use crate::tui::app::App;
use crate::tui::chrome::pane_block;
use crate::tui::screen::{Areas, inside};
use crate::tui::widgets::slider::SliderView;

/// Draw the query box, with the last run's timings on its border.
pub fn draw_query(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut block = pane_block(app, Pane::Query, " Query ");
    if let Some(answer) = &app.answer {
        let tm = answer.timings;
        let timings = format!(
            " embed {:.1} ms · search {:.1} ms · fuse→fill {:.2} ms ",
            tm.embed * 1e3,
            tm.search * 1e3,
            tm.stages * 1e3
        );
        // Only when it fits beside the pane's own title.
        if usize::from(area.width) > Span::raw(timings.as_str()).width() + 12 {
            block = block.title(Line::styled(timings, t.muted).right_aligned());
        }
    } else if app.jobs.query.in_flight().is_some() {
        block = block.title(Line::styled(" running… ", t.notice).right_aligned());
    }
    let inner = inside(area);
    frame.render_widget(block, area);
    if app.query.text.is_empty() && !app.typing {
        let hint = "press / and type a question; Enter runs it";
        frame.render_widget(Paragraph::new(Span::styled(hint, t.placeholder)), inner);
        return;
    }
    // The question wrapped over the box's lines, those around the cursor when it is longer
    // (in columns: wide characters take two).
    let (shown, (column, row)) = app
        .query
        .view_lines(usize::from(inner.width), usize::from(inner.height));
    let lines: Vec<Line> = shown
        .into_iter()
        .map(|l| Line::styled(l, t.input))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
    if app.typing && app.help.is_none() && app.picker.is_none() {
        let x = inner
            .x
            .saturating_add(u16::try_from(column).unwrap_or(u16::MAX));
        let y = inner.y.saturating_add(row as u16);
        frame.set_cursor_position(Position::new(
            x.min(inner.right().saturating_sub(1)),
            y.min(inner.bottom().saturating_sub(1)),
        ));
    }
}

/// The chunker and heading prefixes as the user set them; marked while a rebuild for them runs.
fn chunking_title(app: &App) -> Line<'static> {
    let t = &app.theme;
    let shown = app.shown.as_ref().map(|s| s.params);
    let (chunker, headings) = (app.sliders.chunker, app.sliders.heading_prefix);
    let pending = |same: bool| if same { "" } else { "…" };
    let chunker_style = if shown.is_none_or(|p| p.chunker == chunker) {
        t.text
    } else {
        t.notice
    };
    let heading_text = format!(
        "headings {}{}",
        if headings { "on" } else { "off" },
        pending(shown.is_none_or(|p| p.heading_prefix == headings))
    );
    // Given cuts are named by their file: `given (cuts.jsonl)`.
    let kind = chunker;
    let chunker = match app
        .shown
        .as_ref()
        .and_then(|s| s.open.layout.given.as_ref())
    {
        Some(given) if chunker == seamscope::chunk::ChunkerKind::Given => given.label(),
        _ => chunker.to_string(),
    };
    Line::from(vec![
        Span::styled(" Settings · ", t.title),
        Span::styled(
            format!(
                "chunker {chunker}{}",
                pending(shown.is_none_or(|p| p.chunker == kind))
            ),
            chunker_style,
        ),
        Span::styled(" · ", t.muted),
        Span::styled(heading_text, if headings { t.notice } else { t.muted }),
        Span::raw(" "),
    ])
}

/// Draw the four sliders, with the chunker and heading prefixes in the box's title.
pub fn draw_sliders(app: &App, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let title = chunking_title(app);
    let keys = " m/M b/B instant · k/K c/C rebuild ";
    // The keys only where they fit beside the chunker's name (a cuts file's can be long).
    let room = title.width() + Line::raw(keys).width() + 2 <= usize::from(areas.sliders.width);
    let mut block = Block::bordered().border_style(t.border).title(title);
    if room {
        block = block.title(Line::styled(keys, t.muted).right_aligned());
    }
    frame.render_widget(block, areas.sliders);
    for slider in Slider::ALL {
        // A rebuilding slider shows its new value with a mark until the new layout arrives.
        let pending = app.jobs.layout.in_flight().is_some_and(|job| {
            let shown = app.shown.as_ref().map(|s| s.params);
            match slider {
                Slider::K => shown.is_none_or(|p| p.k != job.what.k),
                Slider::ChunkTokens => {
                    shown.is_none_or(|p| p.chunk_tokens != job.what.chunk_tokens)
                }
                Slider::M | Slider::Budget => false,
            }
        });
        frame.render_widget(
            SliderView {
                slider,
                value: app.sliders.get(slider),
                fraction: app.sliders.fraction(slider),
                pending,
                theme: t,
            },
            areas.slider(slider),
        );
    }
}
