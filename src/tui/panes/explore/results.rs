//! The budget fill step by step with its slot gauge, and the context beside the result without
//! Seams (chunks that differ are marked).

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};
use seamscope::chunk::ChunkId;
use seamscope::retrieve::{Baseline, BudgetAction, Trace};

use crate::tui::action::Pane;
use crate::tui::app::{App, Shown, compare_rows, comparison};
use crate::tui::chrome::{empty_hint, fit, pane_block, row_style, short_label, wrap_words};
use crate::tui::gold::{GoldLine, mark};
use crate::tui::screen::{Areas, inside};
use crate::tui::step::Step;
use crate::tui::widgets::gauge::{slots, thousands};

/// Draw the budget fill.
pub fn draw_budget(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let area = areas.budget;
    let title = format!(" Budget fill · {} slots ", app.sliders.budget);
    frame.render_widget(pane_block(app, Pane::Budget, title), area);
    let inner = inside(area);
    let Some(answer) = &app.answer else {
        let hint =
            "the budget is filled strictly in rank order; a fired seam brings both its chunks";
        frame.render_widget(empty_hint(t, hint), inner);
        return;
    };
    let trace = &answer.trace;
    let fill = &trace.fill;
    // In presenter mode, the fill shows only the steps taken so far.
    let shown_steps = app
        .reveal()
        .map_or(fill.steps.len(), |r| r.fill_steps.min(fill.steps.len()));
    frame.render_widget(
        Paragraph::new(slot_gauge(app, trace, shown_steps)),
        Rect { height: 1, ..inner },
    );
    if shown_steps == 0 {
        let hint = "the fill starts once every fire test is done (→ to step on)";
        frame.render_widget(empty_hint(t, hint), areas.body(Pane::Budget));
        return;
    }
    let table_area = Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    };
    let body = areas.body(Pane::Budget);
    frame.render_widget(fill_table(app, shown, trace, shown_steps, body), table_area);
}

/// `slots ▮▮▮▯ · 1,234 tokens sent`: the slots used after the last step shown, and the tokens
/// once the whole fill is shown.
fn slot_gauge(app: &App, trace: &Trace, shown_steps: usize) -> Line<'static> {
    let t = &app.theme;
    let fill = &trace.fill;
    let used = shown_steps
        .checked_sub(1)
        .and_then(|i| fill.steps.get(i))
        .map_or(0, |s| s.slots_used_after);
    let mut gauge = vec![Span::styled("slots ", t.muted)];
    gauge.extend(slots(used, fill.budget, t));
    if shown_steps == fill.steps.len() {
        gauge.push(Span::styled(
            format!(" · {} tokens sent", thousands(trace.tokens_sent as usize)),
            t.text,
        ));
    }
    Line::from(gauge)
}

/// The fill's first `shown_steps` steps from the cursor's scroll offset: position, entry,
/// action and the slots used after it.
fn fill_table<'a>(
    app: &'a App,
    shown: &Shown,
    trace: &Trace,
    shown_steps: usize,
    body: Rect,
) -> Table<'a> {
    let t = &app.theme;
    let fill = &trace.fill;
    let under_test_step = match app.current_step() {
        Some((all, i)) => match all.get(i) {
            Some(Step::Fill(s)) => Some(*s),
            _ => None,
        },
        None => None,
    };
    let cursor = app.lists.budget;
    let digits = fill.budget.to_string().len() as u16;
    let slot_width = fill.budget.min(20) as u16 + 2 + 2 * digits;
    let entry_width = 10;
    // Columns 4 + entry + slots and three gaps: the action gets the rest, ids first when short.
    let action_width = usize::from(body.width.saturating_sub(4 + entry_width + slot_width + 3));
    let rows: Vec<Row> = fill
        .steps
        .iter()
        .enumerate()
        .take(shown_steps)
        .skip(cursor.offset)
        .take(usize::from(body.height))
        .map(|(i, s)| {
            let style = match s.action {
                BudgetAction::AddedPair { .. } => t.fired,
                BudgetAction::Added => t.text,
                _ => t.muted,
            };
            let under_test = under_test_step == Some(i);
            Row::new(vec![
                Cell::from(format!("#{}", s.position)),
                Cell::from(short_label(&shown.open, s.entry)),
                Cell::from(Line::styled(s.action.describe_within(action_width), style)),
                Cell::from(Line::from(slots(s.slots_used_after, fill.budget, t))),
            ])
            .style(row_style(t, i == cursor.selected, under_test))
        })
        .collect();
    let header = Row::new(vec!["pos", "entry", "action", "slots"]).style(t.muted);
    let widths = [
        Constraint::Length(4),
        Constraint::Length(entry_width),
        Constraint::Fill(1),
        Constraint::Length(slot_width),
    ];
    Table::new(rows, widths).header(header)
}

/// Draw the context with Seams beside the one without.
pub fn draw_compare(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let area = areas.compare;
    let Some(answer) = &app.answer else {
        frame.render_widget(
            pane_block(app, Pane::Compare, " With vs without Seams "),
            area,
        );
        let hint = "the same budget filled by a chunks-only retrieval, for comparison";
        frame.render_widget(empty_hint(t, hint), areas.body(Pane::Compare));
        return;
    };
    let trace = &answer.trace;
    if !app.reveal().is_none_or(|r| r.compare) {
        let room = usize::from(area.width).saturating_sub(2);
        let title = [" With vs without Seams ", " vs without Seams ", " Compare "]
            .into_iter()
            .find(|t| t.chars().count() <= room)
            .unwrap_or("");
        frame.render_widget(pane_block(app, Pane::Compare, title), area);
        let hint = "revealed at the last step, once the budget is filled";
        frame.render_widget(empty_hint(t, hint), areas.body(Pane::Compare));
        return;
    }
    let title = compare_title(trace, area.width);
    frame.render_widget(pane_block(app, Pane::Compare, title), area);
    let mut body = areas.body(Pane::Compare);
    let mut table_area = inside(area);
    // A gold question's verdict and its reason sit at the bottom, whole.
    if let Some(gold) = app.gold_verdict() {
        let lines = verdict_lines(app, &gold, usize::from(body.width.max(1)));
        let rows = (lines.len() as u16).min(body.height);
        let verdict_area = Rect {
            y: body.bottom() - rows,
            height: rows,
            ..body
        };
        frame.render_widget(Paragraph::new(lines), verdict_area);
        body.height -= rows;
        table_area.height = table_area.height.saturating_sub(rows);
    }
    frame.render_widget(compare_table(app, shown, trace, body), table_area);
}

/// The comparison's title: the counts of chunks Seams added and displaced are the point; the
/// baseline's name goes first when `width` runs short.
fn compare_title(trace: &Trace, width: u16) -> String {
    let cmp = comparison(trace);
    let baseline = match cmp.baseline {
        Baseline::ChunksOnlyRetrieval => "chunks-only retrieval",
        Baseline::SeamsRemoved => "seams deleted",
    };
    let counts = format!("+{} −{}", cmp.added.len(), cmp.displaced.len());
    let long = format!(" With Seams vs without ({baseline}) · {counts} ");
    let room = usize::from(width).saturating_sub(2);
    let short = format!(" With vs without Seams · {counts} ");
    [long, short, format!(" Seams {counts} ")]
        .into_iter()
        .find(|t| t.chars().count() <= room)
        .unwrap_or_else(|| format!(" {counts} "))
}

/// A gold question's verdict with and without Seams, then its reason wrapped to `width`.
fn verdict_lines(app: &App, gold: &GoldLine, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let answered_style = |answered: bool| if answered { t.added } else { t.displaced };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} ", gold.id), t.key),
        Span::styled(
            format!("{} with", mark(gold.verdict.with_seams)),
            answered_style(gold.verdict.with_seams),
        ),
        Span::styled(" · ", t.muted),
        Span::styled(
            format!("{} without", mark(gold.verdict.without_seams)),
            answered_style(gold.verdict.without_seams),
        ),
    ])];
    lines.extend(
        wrap_words(&gold.short, width)
            .into_iter()
            .map(|l| Line::styled(l, t.evidence)),
    );
    lines
}

/// One row per chunk of either context, from the cursor's scroll offset: `+` for a chunk only
/// Seams sent, `−` for one only the baseline sent.
fn compare_table<'a>(app: &'a App, shown: &Shown, trace: &Trace, body: Rect) -> Table<'a> {
    let t = &app.theme;
    let cursor = app.lists.compare;
    let label_width = body.width.saturating_sub(1 + 4 + 3 + 3);
    let all = compare_rows(trace);
    let ids: Vec<ChunkId> = all.iter().map(|r| r.chunk).collect();
    let names = chunk_names(&shown.open, &ids, usize::from(label_width));
    let rows: Vec<Row> = all
        .into_iter()
        .zip(names)
        .enumerate()
        .skip(cursor.offset)
        .take(usize::from(body.height))
        .map(|(i, (r, name))| {
            let (mark, style) = match (r.with_seams, r.without_seams) {
                (true, false) => ("+", t.added),
                (false, true) => ("−", t.displaced),
                _ => (" ", t.text),
            };
            let yes = |b: bool| if b { " ✓" } else { " ·" };
            Row::new(vec![
                Cell::from(Line::styled(mark, style)),
                Cell::from(Line::styled(name, style)),
                Cell::from(yes(r.with_seams)),
                Cell::from(yes(r.without_seams)),
            ])
            .style(row_style(t, i == cursor.selected, false))
        })
        .collect();
    let header = Row::new(vec!["", "chunk", "with", "w/o"]).style(t.muted);
    let widths = [
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(4),
        Constraint::Length(3),
    ];
    Table::new(rows, widths).header(header)
}

/// How the comparison names its chunks, every id whole and the column alike: the full name
/// (`chunk 40 (guide.md#5)`, cut after the id when it must be, while a few characters of the
/// document still show), else `chunk 40`, else `40`.
fn chunk_names(
    open: &seamscope::session::OpenCorpus,
    chunks: &[ChunkId],
    width: usize,
) -> Vec<String> {
    let short = |c: ChunkId| format!("chunk {}", c.0);
    let widest_short = chunks
        .iter()
        .map(|&c| short(c).chars().count())
        .max()
        .unwrap_or(0);
    if widest_short + 6 <= width {
        return chunks
            .iter()
            .map(|&c| fit(&open.chunk_label(c), width))
            .collect();
    }
    if widest_short <= width {
        return chunks.iter().map(|&c| short(c)).collect();
    }
    chunks.iter().map(|c| c.0.to_string()).collect()
}
