//! The calibration page: both head-start distributions as side-by-side histograms over shared
//! bins, their percentiles, the recommended `m` and the working range, the warnings, and what
//! the offline question generator does and cannot do. Every number comes from the report.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use seamscope::calibrate::{CalibrationReport, Distribution, WarningKind};

use super::wrap_words;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::widgets::bars::{bar, pad};
use crate::tui::widgets::gauge::progress;

/// Columns of a bin's label.
const LABEL: usize = 9;
/// Columns of the marks after the bars.
const MARKS: usize = 22;

/// Draw the calibration page in `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(" Calibration of m ", t.title))
        .title(
            Line::styled(" r run · a apply the recommended m · Esc cancel ", t.muted)
                .right_aligned(),
        );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let report = app.calibration.report.as_deref();
    let width = usize::from(inner.width);
    let head = head_lines(app, report);
    let head_rows = rows_of(&head, inner.width);
    let Some(report) = report else {
        let mut lines = head;
        lines.extend(intro(t));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
        return;
    };
    let left_width = (inner.width * 11 / 20).max(40);
    let right_width = inner.width.saturating_sub(left_width + 2);
    let histogram = histogram(app, report, left_width);
    let numbers = numbers(app, report);
    let body_rows = (histogram.len() as u16).max(rows_of(&numbers, right_width));
    let generator = generator_lines(report, width, t);
    let [head_area, body, foot, _] = Layout::vertical([
        Constraint::Length(head_rows),
        Constraint::Length(body_rows),
        Constraint::Length(generator.len() as u16),
        Constraint::Fill(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: true }), head_area);
    let [left, _, right] = Layout::horizontal([
        Constraint::Length(left_width),
        Constraint::Length(2),
        Constraint::Fill(1),
    ])
    .areas(body);
    frame.render_widget(Paragraph::new(histogram), left);
    frame.render_widget(Paragraph::new(numbers).wrap(Wrap { trim: true }), right);
    frame.render_widget(Paragraph::new(generator), foot);
}

/// Rows `lines` take when wrapped to `width` columns (a word wrap may take one more now and then).
fn rows_of(lines: &[Line<'_>], width: u16) -> u16 {
    let width = usize::from(width.max(1));
    lines
        .iter()
        .map(|l| l.width().div_ceil(width).max(1) as u16)
        .sum()
}

/// The rule, then the job's progress, an error, or what the report ran on.
fn head_lines<'a>(app: &App, report: Option<&CalibrationReport>) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mut lines = vec![Line::styled(
        "A seam fires over its chunk when its head start h = pos(chunk) − pos(seam) in the fused \
         ranking is at least m. Sentences inside one chunk should not fire it; sentences across a \
         cut should.",
        t.text,
    )];
    if let Some(job) = &app.jobs.calibration {
        let (done, total, what) = job
            .progress
            .as_ref()
            .map_or((0, 0, "waiting for the worker"), |p| {
                (p.done, p.total, p.what.as_str())
            });
        let label = format!("calibrating: {what} {done}/{total}");
        lines.push(progress(done, total, 24, label, t));
    } else if let Some(error) = &app.calibration.error {
        let text = format!("calibration failed: {}", seamscope::text::safe(error));
        lines.push(Line::styled(text, t.error));
    } else if let Some(r) = report {
        let s = &r.setup;
        let mut spans = vec![Span::styled(
            format!(
                "calibrated on {} · k {} · depth {} · {} sentences per kind · seed {}",
                s.chunker, s.k, s.depth, s.samples_per_kind, s.seed
            ),
            t.muted,
        )];
        if let Some(shown) = &app.shown
            && (shown.open.layout.chunker != s.chunker || shown.params.k != s.k)
        {
            spans.push(Span::styled(
                format!(
                    " · the layout is now {} · k {}: press r to calibrate it",
                    shown.open.layout.chunker, shown.params.k
                ),
                t.notice,
            ));
        }
        lines.push(Line::from(spans));
    }
    lines
}

fn intro<'a>(t: &Theme) -> Vec<Line<'a>> {
    vec![
        Line::from(""),
        Line::from(vec![
            Span::styled("Press ", t.text),
            Span::styled("r", t.key),
            Span::styled(
                " to calibrate m on the layout shown, in the background. It draws sentences that \
                 lie inside one chunk but inside its seam window, and sentences that cross a cut; \
                 asks a question each answers; runs every question; and measures how far the seam \
                 outranks the chunk that holds the answer.",
                t.text,
            ),
        ]),
        Line::from(""),
        Line::styled(
            "The recommended m is just above the 90th percentile of the unsplit head starts; the \
             working range runs from there to the largest m at which half of the crossing \
             sentences still fire.",
            t.muted,
        ),
    ]
}

/// Both histograms over the report's shared bins, with the marks for `m`.
fn histogram<'a>(app: &App, r: &CalibrationReport, width: u16) -> Vec<Line<'a>> {
    let t = &app.theme;
    let column = (usize::from(width).saturating_sub(LABEL + 2 + MARKS) / 2).max(8);
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:>LABEL$}  ", "head start"), t.title),
        Span::styled(
            pad(&format!("unsplit ({})", r.unsplit.measured), column),
            t.sample_unsplit.patch(t.title),
        ),
        Span::styled(
            pad(&format!("crossing ({})", r.crossing.measured), column),
            t.sample_crossing.patch(t.title),
        ),
        Span::styled(format!("▲ fires at m = {}", app.sliders.m), t.fired),
    ])];
    if r.histogram.is_empty() {
        lines.push(Line::styled("(no head starts measured)", t.muted));
        return lines;
    }
    let max = r
        .histogram
        .iter()
        .map(|b| b.unsplit.max(b.crossing))
        .max()
        .unwrap_or(0) as f64;
    let recommended = r.verdict.recommended_m.map(i64::from);
    let top = r.verdict.working_range.map(|w| i64::from(w.high));
    let now = app.sliders.m as i64;
    let cell = |n: usize, style: Style| {
        let count = if n == 0 {
            String::new()
        } else {
            format!(" {n}")
        };
        let bar = bar(n as f64, max, column.saturating_sub(count.len() + 1));
        Span::styled(pad(&format!("{bar}{count}"), column), style)
    };
    for b in &r.histogram {
        let mut marks = Vec::new();
        if recommended.is_some_and(|m| b.holds(m)) {
            marks.push(format!("◀ m {} rec.", recommended.unwrap_or_default()));
        }
        if b.holds(now) {
            marks.push(format!("◀ m now {now}"));
        }
        if top.is_some_and(|h| b.holds(h)) && top != recommended {
            marks.push("◀ range top".to_string());
        }
        let fires = b.from.is_some_and(|f| f >= now);
        let (mark, label_style) = if fires {
            ("▲", t.fired)
        } else {
            (" ", t.text)
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{mark}{:>w$}  ", b.label(), w = LABEL - 1),
                label_style,
            ),
            cell(b.unsplit, t.sample_unsplit),
            cell(b.crossing, t.sample_crossing),
            Span::styled(marks.join(" "), t.notice),
        ]));
    }
    lines
}

fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_string(), |s| format!("{:.0}%", s * 100.0))
}

fn spread_row<'a>(d: &Distribution, style: Style) -> Line<'a> {
    let text = match d.spread {
        Some(s) => format!(
            "{:<9}{:>5}{:>7}{:>7}{:>7}",
            d.kind.label(),
            d.measured,
            s.p10,
            s.p50,
            s.p90
        ),
        None => format!("{:<9}{:>5}  (nothing measured)", d.kind.label(), d.measured),
    };
    Line::styled(text, style)
}

/// Percentiles, the recommendation, the working range, where `m` stands, and the warnings.
fn numbers<'a>(app: &App, r: &CalibrationReport) -> Vec<Line<'a>> {
    let t = &app.theme;
    let v = &r.verdict;
    let mut lines = Vec::new();
    match (v.recommended_m, r.unsplit.spread) {
        (Some(m), Some(s)) => {
            lines.push(Line::from(vec![
                Span::styled(format!("Recommended m = {m}"), t.fired),
                Span::styled(
                    format!("  (unsplit p90 {} + 1, at least 1)", s.p90),
                    t.muted,
                ),
            ]));
            lines.push(Line::styled(
                format!(
                    "at m = {m}: {} of unsplit and {} of crossing sentences fire",
                    percent(v.unsplit_firing),
                    percent(v.crossing_firing)
                ),
                t.text,
            ));
        }
        _ => lines.push(Line::styled(
            "No recommendation: no unsplit sentence was measured.",
            t.error,
        )),
    }
    lines.push(match (v.working_range, v.half_firing_margin) {
        (Some(w), _) => Line::styled(
            format!("Working range: m = {} to {}", w.low, w.high),
            t.text,
        ),
        (None, Some(h)) if v.heavy_overlap => Line::styled(
            format!("Working range: empty (half the crossing sentences fire only up to m = {h})"),
            t.error,
        ),
        _ => Line::styled("Working range: unknown (a sample is missing)", t.muted),
    });
    lines.push(where_m_stands(app, r));
    lines.push(Line::from(""));
    lines.extend([
        Line::styled(
            format!("{:<9}{:>5}{:>7}{:>7}{:>7}", "", "n", "p10", "p50", "p90"),
            t.title,
        ),
        spread_row(&r.unsplit, t.sample_unsplit),
        spread_row(&r.crossing, t.sample_crossing),
    ]);
    let absent = |d: &Distribution| format!("{} chunk, {} seam", d.chunk_absent, d.seam_absent);
    lines.push(Line::styled(
        format!(
            "absent, counted last: unsplit {} · crossing {}",
            absent(&r.unsplit),
            absent(&r.crossing)
        ),
        t.muted,
    ));
    for w in &r.warnings {
        lines.push(Line::from(""));
        let style = match w.kind {
            WarningKind::HeavyOverlap | WarningKind::NoUnsplit => t.error,
            _ => t.notice,
        };
        lines.push(Line::styled(format!("⚠ {}", w.text), style));
    }
    lines
}

/// Where the `m` slider stands against the recommendation and the working range.
fn where_m_stands<'a>(app: &App, r: &CalibrationReport) -> Line<'a> {
    let t = &app.theme;
    let m = app.sliders.m as u32;
    let Some(rec) = r.verdict.recommended_m else {
        return Line::styled(format!("m now: {m}"), t.text);
    };
    if m == rec {
        return Line::styled(format!("m now: {m}, the recommendation ✓"), t.fired);
    }
    let place = match r.verdict.working_range {
        Some(w) if (w.low..=w.high).contains(&m) => "inside the working range",
        Some(w) if m > w.high => "above the working range",
        _ if m < rec => "below the recommendation",
        _ => "above the recommendation",
    };
    Line::from(vec![
        Span::styled(format!("m now: {m}, {place} · press "), t.text),
        Span::styled("a", t.key),
        Span::styled(format!(" to set m = {rec}"), t.text),
    ])
}

/// What wrote the questions, in the generator's own words, wrapped to `width`.
fn generator_lines<'a>(r: &CalibrationReport, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let s = &r.setup;
    let title = format!("Questions ({}): ", s.generator);
    let text = format!(
        "{title}{} This screen uses the offline generator; `seamscope calibrate --llm-url URL \
         --llm-model NAME` asks a language model.",
        seamscope::text::safe(&s.generator_description)
    );
    let mut lines: Vec<Line<'a>> = wrap_words(&text, width)
        .into_iter()
        .map(|l| Line::styled(l, t.muted))
        .collect();
    // The generator's name stands out at the start of the first line.
    let name = title.trim_end();
    if let Some(first) = lines.first_mut()
        && let Some(rest) = first.to_string().strip_prefix(name)
    {
        *first = Line::from(vec![
            Span::styled(name.to_string(), t.title),
            Span::styled(rest.to_string(), t.muted),
        ]);
    }
    lines
}
