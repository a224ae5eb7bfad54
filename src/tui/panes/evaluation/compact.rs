//! The evaluation page's board and map on a compact screen (below 120 × 34): the board's table
//! in narrow columns with the rows its verdict leaves, and the map as one column (heading,
//! chart, table, verdict) scrolled with `↑` `↓`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use seamscope::board::BoardRow;
use seamscope::text::safe;

use super::board::{
    Columns, board_heading, draw_map_chart, job_line, keys_line, map_heading, map_table, map_words,
    press_s, press_v, problem, row_figures, row_parts, selected_lines, verdict_lines,
};
use crate::tui::app::App;
use crate::tui::chrome::{fit, wrapped_rows};
use crate::tui::jobs::BoardJobKind;
use crate::tui::theme::Theme;
use crate::tui::widgets::bars::pad;
use crate::tui::widgets::tall::{TallPage, base_style};

/// Rows of the map's chart in the one-column map.
const MAP_CHART_ROWS: u16 = 12;
/// Columns of the family names in the narrow map table.
const FAMILY: usize = 16;
/// Columns of the share sent twice and stored once after the bands.
const DUP_ONCE: usize = 14;

/// Columns of a narrow board row right of its label (failure, interval, tokens, dup, once,
/// vectors, `p_best`, marks).
const NARROW_FIGURES: usize = 49;

/// The board on a compact screen: the job's progress or the heading on one line, the verdict
/// in the rows it needs, the table in narrow columns (the family by its label's colour) in the
/// rows left, what `a` does with the row under the cursor, and a short legend.
pub fn draw_board(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let running = app
        .jobs
        .board
        .in_flight()
        .is_some_and(|j| j.what == BoardJobKind::Strategies);
    let board = app.board.board.as_ref();
    let problem_text = app.board.problem_for(BoardJobKind::Strategies);
    if board.is_none() || problem_text.is_some() {
        let [job, rest] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        frame.render_widget(Paragraph::new(job_line(app, BoardJobKind::Strategies)), job);
        match problem_text {
            Some(why) => frame.render_widget(problem(why, t), rest),
            None => frame.render_widget(press_s(t), rest),
        }
        return;
    }
    let Some(board) = board else {
        return;
    };
    let verdict = verdict_lines(board, t);
    let hint = selected_lines(app, board);
    let legend = compact_legend(t);
    let verdict_rows = wrapped_rows(&verdict, area.width);
    let hint_rows = wrapped_rows(&hint, area.width).min(2);
    // The table keeps at least three rows: the legend goes first, then the verdict's tail.
    let around = |legend: u16, verdict: u16| 1 + verdict + 1 + hint_rows + legend;
    let legend_rows = if area.height >= around(2, verdict_rows) + 3 {
        2
    } else {
        0
    };
    let verdict_rows = verdict_rows.min(area.height.saturating_sub(around(legend_rows, 0) + 3));
    let [top, verdict_area, heading, table, hint_area, legend_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(verdict_rows),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(hint_rows),
        Constraint::Length(legend_rows),
    ])
    .areas(area);
    if running {
        frame.render_widget(Paragraph::new(job_line(app, BoardJobKind::Strategies)), top);
    } else {
        frame.render_widget(board_heading(board, t, area.width), top);
    }
    frame.render_widget(
        Paragraph::new(verdict).wrap(Wrap { trim: true }),
        verdict_area,
    );
    let label = usize::from(area.width)
        .saturating_sub(2 + NARROW_FIGURES + 1)
        .max(12);
    frame.render_widget(Paragraph::new(narrow_header(t, label)), heading);
    let cursor = app.board.cursor;
    let rows = usize::from(table.height).max(1);
    // The row under the cursor always shows, whatever rows the verdict left the table.
    let offset = cursor
        .offset
        .min(cursor.selected)
        .max((cursor.selected + 1).saturating_sub(rows));
    let lines: Vec<Line> = app
        .board
        .listed
        .iter()
        .enumerate()
        .skip(offset)
        .take(rows)
        .filter_map(|(i, &at)| {
            let row = board.rows.get(at)?;
            Some(narrow_row_line(row, i == cursor.selected, t, label))
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), table);
    frame.render_widget(Paragraph::new(hint).wrap(Wrap { trim: true }), hint_area);
    frame.render_widget(Paragraph::new(legend), legend_area);
}

/// The legend and keys of a compact board, one line each.
fn compact_legend(t: &Theme) -> Vec<Line<'static>> {
    vec![
        Line::styled(
            "◆ Pareto · best: p_best, share of resamples won · dup: sent twice · ⊘ left out",
            t.muted,
        ),
        keys_line(t, "↑↓ row · a apply · o V D constrain · Tab view · ? help"),
    ]
}

/// The table's heading for narrow rows with labels `label` columns wide.
fn narrow_header<'a>(t: &Theme, label: usize) -> Line<'a> {
    Line::styled(
        format!(
            "  {:<label$} {:>6} {:<11} {:>6} {:>4} {:>4} {:>5} {:>4}",
            "row", "fail", " 95% int.", "tokens", "dup", "once", "×chk", "best"
        ),
        t.title,
    )
}

/// One board row in narrow columns: the label (in its family's colour, cut to `label`
/// columns), failure rate and interval, tokens, share sent twice, stored once, vectors per
/// chunk, `p_best`, the Pareto mark and the left-out mark.
fn narrow_row_line<'a>(row: &BoardRow, selected: bool, t: &Theme, label: usize) -> Line<'a> {
    let (style, fam, p_best) = row_parts(row, selected, t);
    Line::from(vec![
        Span::styled(if selected { "▶ " } else { "  " }, style),
        Span::styled(pad(&fit(&safe(&row.label), label), label + 1), fam),
        Span::styled(row_figures(row, &p_best, &NARROW_COLUMNS), style),
    ])
}

/// The compact table's columns.
const NARROW_COLUMNS: Columns = Columns {
    rate: 5,
    tokens: 6,
    duplicated: (3, 0),
    vectors: 4,
    p_best: 4,
};

/// The evidence-length map as one column `area.width` wide, scrolled by [`App::scroll`]: the
/// job's progress, the heading, the chart, the table, the verdict.
pub fn draw_map(app: &App, frame: &mut Frame, area: Rect) {
    let page = map_column(app, area.width, base_style(frame.buffer_mut(), area));
    page.show_with_note(app.scroll, frame.buffer_mut(), area, app.theme.notice);
}

/// Rows of the one-column map below `area` when scrolled to the top (0 when it fits).
pub fn map_rows_below(app: &App, area: Rect) -> u16 {
    map_column(app, area.width, Style::default())
        .rows()
        .saturating_sub(area.height)
}

/// The map, or what stands in for it, as one column `width` wide.
fn map_column(app: &App, width: u16, base: Style) -> TallPage {
    let t = &app.theme;
    let mut page = TallPage::new(width, base);
    let job = job_line(app, BoardJobKind::Map);
    if job.width() > 0 {
        page.paragraph(Paragraph::new(job));
    }
    if let Some(why) = app.board.problem_for(BoardJobKind::Map) {
        page.paragraph(problem(why, t));
        return page;
    }
    let Some(map) = &app.board.map else {
        page.paragraph(press_v(app));
        return page;
    };
    let heading = Line::styled(map_heading(map), t.text);
    page.paragraph(Paragraph::new(heading).wrap(Wrap { trim: true }));
    page.drawn(MAP_CHART_ROWS, |buf, area| {
        draw_map_chart(app, map, buf, area);
    });
    let bands = map.bands.len().max(1);
    let band = (usize::from(width).saturating_sub(FAMILY + DUP_ONCE) / bands).clamp(8, 14);
    page.paragraph(Paragraph::new(map_table(map, t, band)).wrap(Wrap { trim: true }));
    page.gap();
    page.paragraph(Paragraph::new(map_words(map, t)).wrap(Wrap { trim: true }));
    page
}
