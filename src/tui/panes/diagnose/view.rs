//! The diagnose page: the score with its formula, one row per finding (count, of what, share,
//! points off the score) with its worst examples under it, the evidence lengths a cut splits, and
//! why the finding under the cursor matters and how it was measured. Every number comes from the
//! doctor's report; corpus text is made safe and kept to one line.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use seamscope::doctor::{DoctorReport, Finding};
use seamscope::text::safe;

use super::{examples, report};
use crate::tui::action::Page;
use crate::tui::app::App;
use crate::tui::chrome::{fit, wrap_words};
use crate::tui::theme::Theme;

/// Columns of a finding's name.
const LABEL: usize = 27;

/// Draw the diagnose page in `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(" Diagnosis of the cuts ", t.title));
    // The keys beside the title where they fit; the status line has them too.
    if area.width >= 100 {
        block = block.title(
            Line::styled(
                " r diagnose · ↑↓ example · Enter show in text · Esc cancel ",
                t.muted,
            )
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut head = status_lines(app);
    let Some(report) = report(app) else {
        head.extend(intro(t));
        frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: true }), inner);
        return;
    };
    let width = usize::from(inner.width);
    head.extend(score_lines(app, report, width));
    let all = examples(report);
    let at = app.page_row(Page::Diagnose, all.len());
    let selected = all.get(at).map(|(f, _)| &report.findings[*f]);
    // A short screen keeps one line of why and none of how, for the list.
    let roomy = inner.height >= 20;
    let foot = foot_lines(report, selected, (width, roomy), t);
    let [head_area, list_area, foot_area] = Layout::vertical([
        Constraint::Length(head.len() as u16),
        Constraint::Fill(1),
        Constraint::Length(foot.len() as u16),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head), head_area);
    let (lines, cursor_line) = finding_lines(report, at, width, t);
    let height = usize::from(list_area.height);
    // Keep the cursor's example in view, with the finding's row above it when there is room.
    let first = if cursor_line < height {
        0
    } else {
        cursor_line + 2 - height
    };
    let shown: Vec<Line> = lines.into_iter().skip(first).take(height).collect();
    frame.render_widget(Paragraph::new(shown), list_area);
    frame.render_widget(Paragraph::new(foot), foot_area);
}

/// The job's progress, its failure, or nothing.
fn status_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    if let Some(line) =
        crate::tui::panes::page_job_progress(app, "waiting for the worker", "diagnosing")
    {
        return vec![line];
    }
    match app
        .page_state(Page::Diagnose)
        .and_then(|s| s.output.as_ref())
    {
        Some(Err(e)) => vec![Line::styled(
            format!("the diagnosis failed: {}", safe(e)),
            t.error,
        )],
        _ => Vec::new(),
    }
}

/// What the page does, before the first diagnosis.
fn intro(t: &Theme) -> Vec<Line<'static>> {
    vec![
        Line::styled(
            "The doctor reads the cuts before anyone asks a question: cuts inside sentences, \
             fenced blocks, tables and list items; atoms split; orphaned, near-duplicate, \
             boilerplate and hub chunks; seams that lost k; and how often evidence of 100, 200 \
             and 400 tokens is split by a cut.",
            t.text,
        ),
        Line::raw(""),
        Line::styled(
            "Press r to diagnose this layout (seconds; the hub check asks sampled questions). \
             The same report: seamscope doctor <folder> [--json].",
            t.muted,
        ),
    ]
}

/// The score, its formula, and what was measured.
fn score_lines(app: &App, r: &DoctorReport, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let l = &r.layout;
    let score = format!("score {:.1} / 100", r.score.value);
    let mut out = Vec::new();
    if score.chars().count() + 2 + r.score.formula.chars().count() <= width {
        out.push(Line::from(vec![
            Span::styled(score, t.title),
            Span::styled(format!("  {}", r.score.formula), t.muted),
        ]));
    } else {
        out.push(Line::styled(score, t.title));
        out.extend(
            wrap_words(&r.score.formula, width)
                .into_iter()
                .map(|s| Line::styled(s, t.muted)),
        );
    }
    let mut about = format!(
        "{} · {} chunks, {} seams, k {} · budget {} · {:.1} s",
        safe(&l.chunker),
        l.chunks,
        l.seams,
        l.k,
        l.budget,
        r.seconds
    );
    if app.page_is_stale(Page::Diagnose) {
        about.push_str(" · the layout changed since: r diagnoses it again");
    }
    out.extend(
        wrap_words(&about, width)
            .into_iter()
            .map(|s| Line::styled(s, t.muted)),
    );
    out.push(Line::styled(
        format!(
            "{:<LABEL$} {:>6} {:>7} {:<8} {:>6} {:>6}",
            "finding", "count", "of", "", "share", "points"
        ),
        t.muted,
    ));
    out
}

/// One row per finding that found something, its examples under it; the ones that found
/// nothing and the ones that do not apply, named on a line each. Returns the lines and the
/// line of the cursor's example.
fn finding_lines(
    r: &DoctorReport,
    at: usize,
    width: usize,
    t: &Theme,
) -> (Vec<Line<'static>>, usize) {
    let mut lines = Vec::new();
    let (mut index, mut cursor_line) = (0, 0);
    for f in r.findings.iter().filter(|f| f.applies && f.count > 0) {
        let points = r
            .score
            .terms
            .iter()
            .find(|term| term.kind == f.kind)
            .map_or(0.0, |term| term.points);
        lines.push(Line::styled(
            format!(
                "{:<LABEL$} {:>6} {:>7} {:<8} {:>5.1}% {:>6.1}",
                f.label,
                f.count,
                f.of,
                fit(&f.unit, 8),
                f.share * 100.0,
                points
            ),
            t.text,
        ));
        for e in &f.examples {
            let place = &e.location;
            let here = format!(
                "{}:{}",
                safe(&place.doc),
                place.at_line.unwrap_or(place.line)
            );
            let mark = if index == at { "▸ " } else { "  " };
            let text = format!(
                "{mark}{here}  {}  “{}”",
                one_line(&e.detail),
                one_line(&e.excerpt)
            );
            let style = if index == at { t.row_selected } else { t.muted };
            if index == at {
                cursor_line = lines.len();
            }
            lines.push(Line::styled(fit(&format!("  {text}"), width), style));
            index += 1;
        }
    }
    let none: Vec<&str> = names(r, |f| f.applies && f.count == 0);
    if !none.is_empty() {
        lines.push(Line::styled(
            fit(&format!("none found: {}", none.join(", ")), width),
            t.muted,
        ));
    }
    let not: Vec<&str> = names(r, |f| !f.applies);
    if !not.is_empty() {
        lines.push(Line::styled(
            fit(
                &format!("not for this layout (given cuts only): {}", not.join(", ")),
                width,
            ),
            t.muted,
        ));
    }
    (lines, cursor_line)
}

fn names(r: &DoctorReport, pick: impl Fn(&Finding) -> bool) -> Vec<&str> {
    r.findings
        .iter()
        .filter(|f| pick(f))
        .map(|f| f.label.as_str())
        .collect()
}

/// The evidence lengths a cut splits, and why the selected finding matters and how it was
/// measured.
fn foot_lines(
    r: &DoctorReport,
    selected: Option<&Finding>,
    (width, roomy): (usize, bool),
    t: &Theme,
) -> Vec<Line<'static>> {
    let lengths: Vec<String> = r
        .evidence
        .lengths
        .iter()
        .map(|l| {
            format!(
                "{} tokens {:.0}% (L÷C {:.0}%)",
                l.target,
                l.share * 100.0,
                l.predicted * 100.0
            )
        })
        .collect();
    let mut out: Vec<Line<'static>> = Vec::new();
    if !lengths.is_empty() {
        out.extend(
            wrap_words(
                &format!(
                    "evidence a cut splits (chunks of {:.0} tokens): {}",
                    r.evidence.chunk_tokens,
                    lengths.join(" · ")
                ),
                width,
            )
            .into_iter()
            .map(|s| Line::styled(s, t.text)),
        );
    }
    if let Some(f) = selected {
        let parts = if roomy {
            vec![("why", &f.why, t.text, 2), ("how", &f.method, t.muted, 2)]
        } else {
            vec![("why", &f.why, t.text, 1)]
        };
        for (what, text, style, rows) in parts {
            let wrapped = wrap_words(&format!("{what}: {}", safe(text)), width);
            let cut = wrapped.len() > rows;
            out.extend(wrapped.into_iter().take(rows).enumerate().map(|(i, s)| {
                // A cut line ends in `…`, so nothing reads as whole that is not.
                let s = if cut && i + 1 == rows {
                    fit(&format!("{s} …"), width)
                } else {
                    s
                };
                Line::styled(s, style)
            }));
        }
    }
    out
}

/// Corpus text on one line: made safe, whitespace runs as one space.
fn one_line(text: &str) -> String {
    safe(text).split_whitespace().collect::<Vec<_>>().join(" ")
}
