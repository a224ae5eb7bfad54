//! The fire test: for each seam in the fused ranking, the arithmetic and the verdict.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};
use seamscope::retrieve::{FireDecision, SideDrop, Trace};
use seamscope::session::OpenCorpus;

use crate::tui::action::Pane;
use crate::tui::app::{App, Shown};
use crate::tui::chrome::{empty_hint, fit, pane_block, row_style};
use crate::tui::screen::{Areas, inside};
use crate::tui::step::{Reveal, Step};
use crate::tui::theme::Theme;

/// Draw the fire test.
pub fn draw(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let area = areas.fire;
    let m = app.sliders.m;
    let Some(answer) = &app.answer else {
        let title = format!(" Fire test · m = {m} ");
        frame.render_widget(pane_block(app, Pane::Fire, title), area);
        let hint = "a seam fires when pos(seam) + m ≤ pos(left chunk) and ≤ pos(right chunk)";
        frame.render_widget(empty_hint(t, hint), areas.body(Pane::Fire));
        return;
    };
    let trace = &answer.trace;
    let reveal = app.reveal().unwrap_or_else(|| Reveal::all(trace));
    frame.render_widget(
        pane_block(app, Pane::Fire, title(trace, &reveal, area.width)),
        area,
    );
    let body = areas.body(Pane::Fire);
    if trace.decisions.is_empty() {
        frame.render_widget(empty_hint(t, "no seam is in the ranking"), body);
        return;
    }
    if reveal.decisions == 0 {
        let hint = "the fire test comes after fusion: → to step on";
        frame.render_widget(empty_hint(t, hint), body);
        return;
    }
    let under_test = match app.current_step() {
        Some((all, i)) => match all.get(i) {
            Some(Step::Fire(d)) => Some(*d),
            _ => None,
        },
        None => None,
    };
    let table = decision_table(app, shown, trace, &reveal, under_test, body);
    frame.render_widget(table, body);
    let inner = inside(area);
    let detail_area = Rect {
        y: body.bottom(),
        height: inner.bottom().saturating_sub(body.bottom()),
        ..inner
    };
    if let Some(d) = explained(app, trace, &reveal, under_test) {
        let dropped = trace.side_drops.iter().find(|s| s.seam == d.seam);
        frame.render_widget(
            Paragraph::new(detail(t, &shown.open, d, dropped)).wrap(Wrap { trim: true }),
            detail_area,
        );
    }
}

/// The pane's title: in presenter mode only what has been tested so far; otherwise the widest
/// wording that fits `width` (the counts stay, the wording shortens).
fn title(trace: &Trace, reveal: &Reveal, width: u16) -> String {
    if reveal.decisions < trace.decisions.len() {
        let tested = &trace.decisions[..reveal.decisions];
        return format!(
            " Fire test · m = {} · {} tested, {} fire ",
            trace.settings.m,
            tested.len(),
            tested.iter().filter(|d| d.fires).count()
        );
    }
    let reach = trace.fill.steps.last().map_or(0, |s| s.position);
    let fired = trace.decisions.iter().filter(|d| d.fires).count();
    let side = trace
        .settings
        .side_drop
        .map(|t| format!(" · side drop {t:.2}: {} dropped", trace.side_drops.len()))
        .unwrap_or_default();
    let (m, n) = (trace.settings.m, trace.decisions.len());
    let room = usize::from(width).saturating_sub(2);
    [
        format!(" Fire test · m = {m} · {n} seams ranked, {fired} fire{side} · the fill read to #{reach} "),
        format!(" Fire test · m = {m} · {n} ranked, {fired} fire{side} · fill read to #{reach} "),
        format!(" Fire test · m = {m} · {n} ranked, {fired} fire · read to #{reach} "),
    ]
    .into_iter()
    .find(|t| Span::raw(t.as_str()).width() <= room)
    .unwrap_or_else(|| format!(" Fire · m = {m} · {fired} of {n} fire "))
}

/// One row per decision tested so far, from the cursor's scroll offset: the seam, its position
/// and the arithmetic, coloured by the verdict (muted past the fill's reach).
fn decision_table<'a>(
    app: &App,
    shown: &Shown,
    trace: &Trace,
    reveal: &Reveal,
    under_test: Option<usize>,
    body: Rect,
) -> Table<'a> {
    let t = &app.theme;
    let cursor = app.lists.fire;
    let reach = trace.fill.steps.last().map_or(0, |s| s.position);
    let label_width = 11u16;
    let text_width = body.width.saturating_sub(label_width + 5 + 2);
    let rows: Vec<Row> = trace
        .decisions
        .iter()
        .enumerate()
        .take(reveal.decisions)
        .skip(cursor.offset)
        .take(usize::from(body.height))
        .map(|(i, d)| {
            let style = if d.seam_position > reach {
                t.muted
            } else if d.fired_on_absence {
                t.fired_on_absence
            } else if d.fires {
                t.fired
            } else {
                t.dropped
            };
            let dropped = trace.side_drops.iter().find(|s| s.seam == d.seam);
            let width = usize::from(text_width);
            let text = match dropped {
                Some(s) => format!(
                    "{} · {} dropped",
                    d.arithmetic_within(width.saturating_sub(15)),
                    s.dropped.label()
                ),
                None => d.arithmetic_within(width),
            };
            Row::new(vec![
                Cell::from(shown.open.seam_label(d.seam)),
                Cell::from(format!("#{:<4}", d.seam_position)),
                Cell::from(fit(&text, usize::from(text_width))),
            ])
            .style(style.patch(row_style(
                t,
                i == cursor.selected,
                under_test == Some(i),
            )))
        })
        .collect();
    let widths = [
        Constraint::Length(label_width),
        Constraint::Length(5),
        Constraint::Fill(1),
    ];
    Table::new(rows, widths)
}

/// The decision explained under the table: the one under test, else the seam under the cursor
/// of the pane in use (the fire test's own when it has the focus, the ranking's otherwise).
fn explained<'a>(
    app: &App,
    trace: &'a Trace,
    reveal: &Reveal,
    under_test: Option<usize>,
) -> Option<&'a FireDecision> {
    let cursor = app.lists.fire;
    let ranking_seam = trace
        .fused
        .get(app.lists.ranking.selected)
        .and_then(|e| e.entry.seam())
        .and_then(|s| trace.decisions.iter().position(|d| d.seam == s));
    let selected = under_test.or(match app.focus {
        Pane::Fire => Some(cursor.selected),
        _ => ranking_seam.or(Some(cursor.selected)),
    });
    selected
        .filter(|i| reveal.decided(*i))
        .and_then(|i| trace.decisions.get(i))
}

/// Why the seam under the cursor passed or failed, in words (the row above has the arithmetic).
fn detail(
    t: &Theme,
    open: &OpenCorpus,
    d: &FireDecision,
    dropped: Option<&SideDrop>,
) -> Line<'static> {
    let mut spans = vec![Span::styled(
        format!("why {} at #{}: ", open.seam_label(d.seam), d.seam_position),
        t.title,
    )];
    let absent = d.absent_links();
    if d.fired_on_absence {
        spans.push(Span::styled(
            format!(
                "passed only because chunk {} is absent from the ranking (counted as last)",
                list(&absent)
            ),
            t.fired_on_absence,
        ));
    } else if d.fires {
        spans.push(Span::styled(
            format!(
                "it outranks chunk {} (#{}) and chunk {} (#{}) by at least m = {}: both come in together",
                d.left.chunk.0,
                d.left.counted_position,
                d.right.chunk.0,
                d.right.counted_position,
                d.m
            ),
            t.fired,
        ));
    } else {
        let need = match d.needed_position() {
            Some(p) => format!("it would need #{p} or better at m = {}", d.m),
            None => format!("no position fires it at m = {}", d.m),
        };
        spans.push(Span::styled(
            format!(
                "chunk {} ranks too close ({need}), so it is dropped and its chunks keep their \
                 own places",
                list(&d.blocked_by()),
            ),
            t.muted,
        ));
    }
    if let Some(s) = dropped {
        spans.push(Span::styled(
            format!(" — side drop: {}", s.reason()),
            t.notice,
        ));
    }
    Line::from(spans)
}

fn list(ids: &[seamscope::chunk::ChunkId]) -> String {
    ids.iter()
        .map(|c| c.0.to_string())
        .collect::<Vec<_>>()
        .join(" and ")
}
