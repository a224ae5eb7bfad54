//! The evaluation page's board and map views: the strategy board (every boundary strategy on
//! the gold questions: failure rate with its 95% interval, tokens, vectors, Pareto mark,
//! `p_best`, and the verdict) and the evidence-length map (failure rate per family against the
//! evidence length, as a chart, with the map's verdict). Labels and verdicts are made safe for
//! the terminal before they are drawn.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Chart, Dataset, GraphType, LegendPosition, Paragraph, Widget, Wrap,
};
use seamscope::board::map::EvidenceMap;
use seamscope::board::{Board, BoardRow, Family, RowSettings};
use seamscope::text::safe;

use crate::tui::app::App;
use crate::tui::chrome::fit;
use crate::tui::family::family_style;
use crate::tui::jobs::BoardJobKind;
use crate::tui::theme::Theme;
use crate::tui::widgets::bars::pad;
use crate::tui::widgets::gauge::progress;

/// Columns of a board row's label.
const LABEL: usize = 36;
/// Columns of a band's failure rate in the map's table.
const MAP_BAND: usize = 14;

/// The job line: a progress bar while a job of `kind` runs, else nothing.
pub(super) fn job_line<'a>(app: &App, kind: BoardJobKind) -> Line<'a> {
    let t = &app.theme;
    match app.jobs.board.in_flight().filter(|j| j.what == kind) {
        Some(job) => {
            let (done, total, what) = job
                .progress
                .as_ref()
                .map_or((0, 0, "waiting for the worker"), |p| {
                    (p.done, p.total, p.what.as_str())
                });
            let verb = match kind {
                BoardJobKind::Strategies => "board",
                BoardJobKind::Map => "map",
            };
            progress(done, total, 24, format!("{verb}: {what} · Esc cancels"), t)
        }
        None => Line::from(""),
    }
}

pub(super) fn problem<'a>(why: &str, t: &Theme) -> Paragraph<'a> {
    Paragraph::new(Line::styled(safe(why), t.error)).wrap(Wrap { trim: true })
}

/// Draw the strategy board in `area`.
pub fn draw_board(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let table_rows = app.board_table_height() as u16;
    let [job, head, verdict, _, heading, table, _, hint, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(3),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(table_rows),
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(job_line(app, BoardJobKind::Strategies)), job);
    if let Some(why) = app.board.problem_for(BoardJobKind::Strategies) {
        frame.render_widget(problem(why, t), verdict.union(table));
        return;
    }
    let Some(board) = &app.board.board else {
        frame.render_widget(press_s(t), head.union(table));
        return;
    };
    frame.render_widget(board_heading(board, t, area.width), head);
    frame.render_widget(
        Paragraph::new(verdict_lines(board, t)).wrap(Wrap { trim: true }),
        verdict,
    );
    frame.render_widget(Paragraph::new(header(t)), heading);
    let cursor = app.board.cursor;
    let lines: Vec<Line> = app
        .board
        .listed
        .iter()
        .enumerate()
        .skip(cursor.offset)
        .take(usize::from(table_rows))
        .filter_map(|(i, &at)| {
            let row = board.rows.get(at)?;
            Some(row_line(row, i == cursor.selected, t))
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), table);
    frame.render_widget(
        Paragraph::new(selected_lines(app, board)).wrap(Wrap { trim: true }),
        hint,
    );
    frame.render_widget(board_legend(t), foot);
}

/// The board's placeholder before `s` runs it.
pub(super) fn press_s(t: &Theme) -> Paragraph<'static> {
    Paragraph::new(vec![
        Line::from(vec![
            Span::styled("Press ", t.text),
            Span::styled("s", t.key),
            Span::styled(
                " to put every boundary strategy on one board (as `tune --strategies \
                 all`): chunks only, overlap, windows, neighbour and SCAR expansion, \
                 Seams over k × m × side drop, overlap with Seams, on the corpus's gold \
                 questions at the budget slider, with a resampled verdict.",
                t.text,
            ),
        ]),
        Line::styled(
            "No gold questions? v draws the evidence-length map from sampled passages.",
            t.muted,
        ),
    ])
    .wrap(Wrap { trim: true })
}

/// The board's heading line: what it was measured on, cut to `width`.
pub(super) fn board_heading(board: &Board, t: &Theme, width: u16) -> Paragraph<'static> {
    Paragraph::new(Line::styled(
        fit(
            &format!(
                "strategy board on {}: {} rows, budget {} chunks, chunks of {} tokens ({} \
                 chunks), in {:.1}s",
                safe(&board.source),
                board.rows.len(),
                board.budget,
                board.chunk_tokens,
                board.chunks,
                board.seconds
            ),
            usize::from(width),
        ),
        t.text,
    ))
}

/// What the marks and columns mean, and the board's keys.
fn board_legend(t: &Theme) -> Paragraph<'static> {
    Paragraph::new(vec![
        Line::styled(
            "◆ Pareto: no other row is as good on failures, tokens and vectors and better \
             on one · p_best: share of resamples its family won, tuning included (each \
             family's best row, listed first) · dup: share of the tokens sent twice · once: \
             each passage stored once · ⊘ left out by the constraints",
            t.muted,
        ),
        keys_line(
            t,
            "↑↓ row · a apply · o stored once · V max vectors · D max sent twice · Tab next \
             view · s run again · Esc cancel",
        ),
    ])
    .wrap(Wrap { trim: true })
}

/// The verdict (among the rows the constraints allow), then the constraints and who would lead
/// without them.
pub(super) fn verdict_lines<'a>(board: &Board, t: &Theme) -> Vec<Line<'a>> {
    let words = board.verdict.as_ref().map_or_else(
        || "no verdict (resampling was off)".to_string(),
        |v| safe(&v.sentence()),
    );
    let mut lines = vec![Line::from(vec![
        Span::styled("verdict: ", t.title),
        Span::styled(words, t.fired),
    ])];
    if let Some(c) = board.options.constraints.describe() {
        let without = board
            .unconstrained
            .as_ref()
            .and_then(|u| u.contenders.first())
            .map_or_else(
                || "the same verdict without them".to_string(),
                |c| {
                    format!(
                        "without them {} leads ({:.0}%)",
                        safe(&c.label),
                        c.p_best * 100.0
                    )
                },
            );
        let judged = board.rows.iter().filter(|r| r.excluded.is_none()).count();
        lines.push(Line::styled(
            format!(
                "judged among {judged} of {} rows: {}; {without}",
                board.rows.len(),
                safe(&c)
            ),
            t.muted,
        ));
    }
    lines
}

pub(super) fn keys_line<'a>(t: &Theme, text: &'a str) -> Line<'a> {
    Line::styled(text, t.key)
}

fn header<'a>(t: &Theme) -> Line<'a> {
    Line::styled(
        format!(
            "  {:<LABEL$} {:<14}{:>7} {:<13}{:>7} {:>6} {:>4} {:>7} {:>7}",
            "row", "family", "fail", "  95% int.", "tokens", "dup", "once", "×chunk", "p_best"
        ),
        t.title,
    )
}

/// What every drawing of a board row shares: its text style, its family's style (both with the
/// cursor's highlight when `selected`) and its `p_best` as a percentage (empty when it has none).
pub(super) fn row_parts(row: &BoardRow, selected: bool, t: &Theme) -> (Style, Style, String) {
    let highlight = |s: Style| if selected { s.patch(t.row_selected) } else { s };
    let p_best = row
        .p_best
        .map_or_else(String::new, |p| format!("{:.0}%", p * 100.0));
    (
        highlight(t.text),
        highlight(family_style(t, row.family)),
        p_best,
    )
}

/// One board row: the cursor mark, label, family, failure rate and interval, tokens, share sent
/// twice, stored once, vectors per chunk, `p_best`, the Pareto mark and the left-out mark.
fn row_line<'a>(row: &BoardRow, selected: bool, t: &Theme) -> Line<'a> {
    let (style, fam, p_best) = row_parts(row, selected, t);
    Line::from(vec![
        Span::styled(if selected { "▶ " } else { "  " }, style),
        Span::styled(pad(&fit(&safe(&row.label), LABEL), LABEL + 1), style),
        Span::styled(pad(row.family.name(), 14), fam),
        Span::styled(row_figures(row, &p_best, &FULL_COLUMNS), style),
    ])
}

/// The widths of a board row's figures (the full table's and the compact screen's differ).
pub(super) struct Columns {
    /// The failure rate's.
    pub rate: usize,
    /// Tokens sent per question.
    pub tokens: usize,
    /// The duplicated share's, and its decimals.
    pub duplicated: (usize, usize),
    /// Vectors per chunk.
    pub vectors: usize,
    /// `p_best`'s.
    pub p_best: usize,
}

/// The full table's columns.
const FULL_COLUMNS: Columns = Columns {
    rate: 6,
    tokens: 7,
    duplicated: (5, 1),
    vectors: 6,
    p_best: 7,
};

/// A board row's figures in `columns`: failure rate and its interval, tokens sent, the share
/// sent twice, whether passages are stored once, vectors per chunk, `p_best`, the Pareto mark
/// and the left-out mark.
pub(super) fn row_figures(row: &BoardRow, p_best: &str, columns: &Columns) -> String {
    let Columns {
        rate,
        tokens,
        duplicated: (dup, dup_decimals),
        vectors,
        p_best: best,
    } = *columns;
    format!(
        "{:>rate$.1}% [{:>4.1}–{:>4.1}] {:>tokens$.0} {:>dup$.dup_decimals$}% {:>4} {:>vectors$.1}× {:>best$} {}{}",
        row.failure_rate * 100.0,
        row.interval.low * 100.0,
        row.interval.high * 100.0,
        row.tokens,
        row.duplicate_share * 100.0,
        if row.stores_once { "yes" } else { "no" },
        row.vectors_vs_chunks,
        p_best,
        if row.pareto { "◆" } else { " " },
        if row.excluded.is_some() { "⊘" } else { "" }
    )
}

/// What `a` does with the row under the cursor.
pub(super) fn selected_lines<'a>(app: &App, board: &Board) -> Vec<Line<'a>> {
    let t = &app.theme;
    let Some(row) = app.board.selected() else {
        return Vec::new();
    };
    let label = safe(&row.label);
    match row.settings {
        RowSettings::Seams { k, m, side_drop } => vec![Line::from(vec![
            Span::styled("a", t.key),
            Span::styled(
                format!(
                    " sets k = {k}, m = {m}, side drop {} on the sliders ({label})",
                    side_drop.map_or_else(|| "off".to_string(), |d| format!("{d:.2}"))
                ),
                t.text,
            ),
        ])],
        settings => vec![Line::from(vec![
            Span::styled("a", t.key),
            Span::styled(
                format!(
                    " shows how to deploy {label}: {}",
                    settings.deploy_hint(board.chunk_tokens)
                ),
                t.text,
            ),
        ])],
    }
}

/// Draw the evidence-length map in `area`.
pub fn draw_map(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let families = Family::ALL.len() as u16;
    let [job, head, chart, table, verdict] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(families + 2),
        Constraint::Length(6),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(job_line(app, BoardJobKind::Map)), job);
    if let Some(why) = app.board.problem_for(BoardJobKind::Map) {
        frame.render_widget(problem(why, t), chart);
        return;
    }
    let Some(map) = &app.board.map else {
        frame.render_widget(press_v(app), head.union(chart));
        return;
    };
    frame.render_widget(
        Paragraph::new(Line::styled(
            fit(&map_heading(map), usize::from(area.width)),
            t.text,
        )),
        head,
    );
    draw_map_chart(app, map, frame.buffer_mut(), chart);
    frame.render_widget(Paragraph::new(map_table(map, t, MAP_BAND)), table);
    frame.render_widget(
        Paragraph::new(map_words(map, t)).wrap(Wrap { trim: true }),
        verdict,
    );
}

/// `50–100`: a band's label.
pub fn band_label(min: usize, max: usize) -> String {
    format!("{min}–{max}")
}

/// Each family's failure rate (percent) per band, as chart points (x = the band's index).
pub fn family_points(map: &EvidenceMap) -> Vec<(Family, Vec<(f64, f64)>)> {
    Family::ALL
        .iter()
        .map(|&f| {
            let points = map
                .bands
                .iter()
                .enumerate()
                .filter_map(|(i, b)| {
                    let row = b.result.rows.iter().find(|r| r.family == f)?;
                    Some((i as f64, row.failure_rate * 100.0))
                })
                .collect();
            (f, points)
        })
        .filter(|(_, p): &(Family, Vec<(f64, f64)>)| !p.is_empty())
        .collect()
}

pub(super) fn draw_map_chart(app: &App, map: &EvidenceMap, buf: &mut Buffer, area: Rect) {
    let t = &app.theme;
    let title = " failure % by evidence length (tokens), each family at its best setting per band ";
    let title = if Line::raw(title).width() > usize::from(area.width) {
        " failure % by evidence length, each family at its best "
    } else {
        title
    };
    let series = family_points(map);
    let top = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|x| x.1))
        .fold(1.0, f64::max);
    let top = (top / 10.0).ceil() * 10.0;
    let datasets: Vec<Dataset> = series
        .iter()
        .map(|(f, points)| {
            Dataset::default()
                .name(f.name())
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(family_style(t, *f))
                .data(points)
        })
        .collect();
    let last = map.bands.len().saturating_sub(1).max(1) as f64;
    let chart = Chart::new(datasets)
        .block(Block::default().title(Line::styled(title, t.title)))
        .legend_position(Some(LegendPosition::TopLeft))
        .hidden_legend_constraints((Constraint::Percentage(40), Constraint::Percentage(80)))
        .x_axis(
            Axis::default()
                .title(Line::styled("evidence tokens", t.muted))
                .bounds([0.0, last])
                .labels(
                    map.bands
                        .iter()
                        .map(|b| Line::styled(band_label(b.min_tokens, b.max_tokens), t.muted))
                        .collect::<Vec<_>>(),
                ),
        )
        .y_axis(Axis::default().bounds([0.0, top]).labels(vec![
            Line::styled("0%", t.muted),
            Line::styled(format!("{:.0}%", top / 2.0), t.muted),
            Line::styled(format!("{top:.0}%"), t.muted),
        ]));
    chart.render(area, buf);
}

/// One line per family: its failure rate in each band (the band's verdict leader marked).
pub(super) fn map_table<'a>(map: &EvidenceMap, t: &Theme, band: usize) -> Vec<Line<'a>> {
    let mut head = vec![Span::styled(pad("family", 16), t.title)];
    for b in &map.bands {
        head.push(Span::styled(
            format!("{:>band$}", band_label(b.min_tokens, b.max_tokens)),
            t.title,
        ));
    }
    head.push(Span::styled(format!("{:>8} {:>5}", "dup", "once"), t.title));
    let mut lines = vec![Line::from(head)];
    for f in Family::ALL {
        if !map
            .bands
            .iter()
            .any(|b| b.result.rows.iter().any(|r| r.family == f))
        {
            continue;
        }
        let mut spans = vec![Span::styled(pad(f.name(), 16), family_style(t, f))];
        for b in &map.bands {
            let row = b.result.rows.iter().find(|r| r.family == f);
            let leads = b
                .result
                .verdict
                .contenders
                .first()
                .is_some_and(|c| c.family == f.name());
            let text = row.map_or_else(
                || "-".to_string(),
                |r| {
                    format!(
                        "{}{:.1}%",
                        if leads { "★ " } else { "" },
                        r.failure_rate * 100.0
                    )
                },
            );
            spans.push(Span::styled(format!("{text:>band$}"), t.text));
        }
        // What its best rows send: the share sent twice, and whether each passage is stored once.
        let best: Vec<_> = map
            .bands
            .iter()
            .filter_map(|b| b.result.rows.iter().find(|r| r.family == f))
            .collect();
        let dup = best.iter().map(|r| r.duplicate_share).sum::<f64>() / best.len().max(1) as f64;
        let once = if best.iter().all(|r| r.stores_once) {
            "yes"
        } else {
            "no"
        };
        spans.push(Span::styled(
            format!("{:>7.1}% {once:>5}", dup * 100.0),
            t.muted,
        ));
        lines.push(Line::from(spans));
    }
    lines.push(Line::styled(
        "★ the band's leader (its resampled verdict's first contender) · dup: share of the tokens sent twice · once: each passage stored once",
        t.muted,
    ));
    lines
}

/// The map's placeholder before `v` draws it.
pub(super) fn press_v(app: &App) -> Paragraph<'static> {
    let t = &app.theme;
    Paragraph::new(vec![
        Line::from(vec![
            Span::styled("Press ", t.text),
            Span::styled("v", t.key),
            Span::styled(
                format!(
                    " to draw the evidence-length map (as `tune --map`): {} passages per \
                     band drawn over the corpus at 50–100, 100–200, 200–400 and 400–800 \
                     tokens, each asked as an offline question, every strategy family \
                     scored per band. No gold questions needed.",
                    app.board.map_per_band
                ),
                t.text,
            ),
        ]),
        Line::styled(
            "Which strategy wins depends on how long the evidence is that readers need.",
            t.muted,
        ),
    ])
    .wrap(Wrap { trim: true })
}

/// What the map was measured on.
pub(super) fn map_heading(map: &EvidenceMap) -> String {
    format!(
        "evidence-length map: {} passages per band, each asked with content words from across \
         the passage; budget {} chunks, chunks of {} tokens, in {:.1}s",
        map.options.per_band, map.budget, map.chunk_tokens, map.seconds
    )
}

/// The map's verdict, the verdict of the other question kind when it disagrees, and the keys.
pub(super) fn map_words<'a>(map: &EvidenceMap, t: &Theme) -> Vec<Line<'a>> {
    let mut words = vec![Line::from(vec![
        Span::styled("map verdict: ", t.title),
        Span::styled(safe(&map.verdict), t.fired),
    ])];
    if let Some(other) = map.disagreeing() {
        words.push(Line::styled(
            format!(
                "asked as {} questions instead ({}): {}",
                other.kind.name(),
                other.kind.describe(),
                safe(&other.verdict)
            ),
            t.muted,
        ));
    }
    words.push(Line::styled(
        "Tab next view · v draw again · Esc cancel",
        t.key,
    ));
    words
}
