//! The calibration page. On top, the measured recommendation: the failure-vs-m curve at the
//! budget as a chart (with its 95% band, chunks-only retrieval as a flat line, the recommended
//! m and the m slider marked), and beside it the recommendation, the verdict on Seams' benefit
//! and why the paper's rule differs. Below, the diagnostic: both head-start distributions as
//! side-by-side histograms over shared bins, their percentiles, the paper's rule and working
//! range, and what the question generator does and cannot do. Every number comes from the report.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Widget, Wrap};
use seamscope::calibrate::{Benefit, CalibrationReport, Distribution, MarginCurve, WarningKind};

use crate::tui::app::App;
use crate::tui::chrome::wrap_words;
use crate::tui::theme::Theme;
use crate::tui::widgets::bars::{bar, pad};
use crate::tui::widgets::gauge::progress;
use crate::tui::widgets::tall::{TallPage, base_style};

/// Columns of a bin's label.
const LABEL: usize = 9;
/// Columns of the marks after the bars.
const MARKS: usize = 22;

/// The keys in the page's title, when they fit beside its name.
const KEYS: &str = " r run · a apply k and m · g gold questions / passages · Esc cancel ";
/// The keys in the title of a narrow page (the status line has the rest).
const KEYS_SHORT: &str = " r run · a apply · Esc cancel ";
/// Rows of the chart in the one-column page of a compact screen.
const CHART_ROWS: u16 = 9;

/// Draw the calibration page in `area`: side by side on a full screen, one column scrolled by
/// `↑` `↓` on a compact one (below 120 × 34), so nothing is lost off its bottom.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let keys = if 18 + KEYS.len() as u16 + 2 <= area.width {
        KEYS
    } else {
        KEYS_SHORT
    };
    let mut block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(" Calibration of m ", t.title))
        .title(Line::styled(keys, t.muted).right_aligned());
    let inner = block.inner(area);
    if app.is_compact() {
        let page = one_column(app, inner.width, base_style(frame.buffer_mut(), inner));
        let scroll = app.scroll;
        if let Some(note) = page.scroll_note(scroll, inner.height) {
            block = block.title_bottom(Line::styled(note, t.notice).right_aligned());
        }
        frame.render_widget(block, area);
        page.show(scroll, frame.buffer_mut(), inner);
        return;
    }
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
    let verdict = verdict_lines(app, report);
    let generator = generator_lines(report, width, t);
    // The verdict is read first: it gets every row it needs, leaving the diagnostic at least 4.
    let spare = inner
        .height
        .saturating_sub(head_rows + generator.len() as u16 + 4);
    let chart_rows = rows_of(&verdict, right_width).max(9).min(spare.max(9));
    let histogram = histogram(app, report, left_width);
    let numbers = numbers(app, report);
    let [head_area, top, diagnostic, foot] = Layout::vertical([
        Constraint::Length(head_rows),
        Constraint::Length(chart_rows),
        Constraint::Fill(1),
        Constraint::Length(generator.len() as u16),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: true }), head_area);
    let columns = |area| {
        Layout::horizontal([
            Constraint::Length(left_width),
            Constraint::Length(2),
            Constraint::Fill(1),
        ])
        .areas::<3>(area)
    };
    let [chart_area, _, verdict_area] = columns(top);
    draw_curve(app, &report.objective, frame.buffer_mut(), chart_area);
    frame.render_widget(
        Paragraph::new(verdict).wrap(Wrap { trim: true }),
        verdict_area,
    );
    let [left, _, right] = columns(diagnostic);
    frame.render_widget(Paragraph::new(histogram), left);
    frame.render_widget(Paragraph::new(numbers).wrap(Wrap { trim: true }), right);
    frame.render_widget(Paragraph::new(generator).wrap(Wrap { trim: true }), foot);
}

/// Rows of the one-column page below `main` when scrolled to the top (0 when it fits).
pub fn rows_below(app: &App, main: Rect) -> u16 {
    let inner = crate::tui::screen::inside(main);
    let page = one_column(app, inner.width, Style::default());
    page.rows().saturating_sub(inner.height)
}

/// The page as one column `width` wide, drawn whole: the rule and what the report ran on, the
/// chart, the verdict, the histograms, the paper's rule and the question generator, one below
/// the other.
fn one_column(app: &App, width: u16, base: Style) -> TallPage {
    let t = &app.theme;
    let mut page = TallPage::new(width, base);
    let report = app.calibration.report.as_deref();
    page.paragraph(Paragraph::new(head_lines(app, report)).wrap(Wrap { trim: true }));
    let Some(report) = report else {
        page.paragraph(Paragraph::new(intro(t)).wrap(Wrap { trim: true }));
        return page;
    };
    let series = CurveSeries::of(&report.objective, app.sliders.m);
    page.widget(curve(app, &report.objective, &series), CHART_ROWS);
    page.paragraph(Paragraph::new(verdict_lines(app, report)).wrap(Wrap { trim: true }));
    page.gap();
    page.paragraph(Paragraph::new(histogram(app, report, width)));
    page.gap();
    // Untrimmed, so the percentiles' header keeps its columns.
    page.paragraph(Paragraph::new(numbers(app, report)).wrap(Wrap { trim: false }));
    page.gap();
    page.paragraph(Paragraph::new(generator_lines(
        report,
        usize::from(width),
        t,
    )));
    page
}

/// The failure-vs-m chart: the measured curve, its 95% band, "Seams off" as a flat line, the
/// recommended m as a point and the m slider as a vertical line.
fn draw_curve(app: &App, c: &MarginCurve, buf: &mut Buffer, area: Rect) {
    let series = CurveSeries::of(c, app.sliders.m);
    curve(app, c, &series).render(area, buf);
}

/// The chart of `s`, the curve's points.
fn curve<'a>(app: &App, c: &MarginCurve, s: &'a CurveSeries) -> Chart<'a> {
    let t = &app.theme;
    let (max_m, top) = (s.max_m, s.top);
    let title = format!(
        " failure % vs m · budget {} · {} questions ({} split) · band 95% ",
        c.budget, c.questions, c.crossing
    );
    Chart::new(s.datasets(t, app.sliders.m))
        .block(Block::default().title(Line::styled(title, t.title)))
        .x_axis(
            Axis::default()
                .title(Line::styled("m", t.muted))
                .bounds([0.0, f64::from(max_m)])
                .labels(
                    [0, max_m / 2, max_m]
                        .map(|m| Line::styled(m.to_string(), t.muted))
                        .to_vec(),
                ),
        )
        .y_axis(Axis::default().bounds([0.0, top]).labels(vec![
            Line::styled("0%", t.muted),
            Line::styled(format!("{top:.0}%"), t.muted),
        ]))
}

/// The curve's points in percent against m: the failure rate, its 95% band, chunks only as a
/// flat line, the best m and the m slider, with the axes' ranges.
struct CurveSeries {
    curve: Vec<(f64, f64)>,
    low: Vec<(f64, f64)>,
    high: Vec<(f64, f64)>,
    off: Vec<(f64, f64)>,
    best: Vec<(f64, f64)>,
    slider: Vec<(f64, f64)>,
    max_m: u32,
    top: f64,
}

impl CurveSeries {
    fn of(c: &MarginCurve, m_now: u32) -> CurveSeries {
        let point = |m: Option<u32>, rate: f64| (f64::from(m.unwrap_or(0)), rate * 100.0);
        let along = |rate: &dyn Fn(&seamscope::calibrate::CurvePoint) -> f64| -> Vec<(f64, f64)> {
            c.points.iter().map(|p| point(p.m, rate(p))).collect()
        };
        let high = along(&|p| p.interval.high);
        let max_m = c
            .points
            .iter()
            .filter_map(|p| p.m)
            .max()
            .unwrap_or(1)
            .max(1);
        let top = high
            .iter()
            .map(|p| p.1)
            .chain(c.off.as_ref().map(|o| o.interval.high * 100.0))
            .fold(1.0, f64::max)
            .ceil();
        let off = c
            .off
            .iter()
            .flat_map(|o| {
                [
                    (0.0, o.failure_rate * 100.0),
                    (f64::from(max_m), o.failure_rate * 100.0),
                ]
            })
            .collect();
        let now = m_now.min(max_m) as f64;
        CurveSeries {
            curve: along(&|p| p.failure_rate),
            low: along(&|p| p.interval.low),
            high,
            off,
            best: c
                .best()
                .map(|p| point(p.m, p.failure_rate))
                .into_iter()
                .collect(),
            slider: vec![(now, 0.0), (now, top)],
            max_m,
            top,
        }
    }

    /// The chart's lines: the band's edges, chunks only (when measured), Seams, the slider and
    /// the best m.
    fn datasets<'a>(&'a self, t: &Theme, m_now: u32) -> Vec<Dataset<'a>> {
        let line = |marker, style, data: &'a [(f64, f64)]| {
            Dataset::default()
                .marker(marker)
                .graph_type(GraphType::Line)
                .style(style)
                .data(data)
        };
        let mut datasets = vec![
            line(Marker::Dot, t.muted, &self.low),
            line(Marker::Dot, t.muted, &self.high),
            line(Marker::Braille, t.fired, &self.curve).name("Seams"),
            line(Marker::Braille, t.notice, &self.slider).name(format!("m now {m_now}")),
            Dataset::default()
                .name("best")
                .marker(Marker::Block)
                .graph_type(GraphType::Scatter)
                .style(t.fired)
                .data(&self.best),
        ];
        if !self.off.is_empty() {
            datasets.insert(
                2,
                line(Marker::Braille, t.sample_unsplit, &self.off).name("Seams off"),
            );
        }
        datasets
    }
}

/// The measured recommendation, the verdict on Seams' benefit, why the paper's rule differs, and
/// where the m slider stands.
fn verdict_lines<'a>(app: &App, r: &CalibrationReport) -> Vec<Line<'a>> {
    let t = &app.theme;
    let v = &r.verdict;
    let c = &r.objective;
    let mut lines = Vec::new();
    match (v.recommended_m, c.best()) {
        (Some(m), Some(best)) => {
            lines.push(Line::from(vec![
                Span::styled(format!("Recommended m = {m}"), t.fired),
                Span::styled(
                    format!(
                        "  fails {:.1}% [{:.1}–{:.1}] at budget {}",
                        best.failure_rate * 100.0,
                        best.interval.low * 100.0,
                        best.interval.high * 100.0,
                        v.budget
                    ),
                    t.text,
                ),
            ]));
            if let Some(off) = &c.off {
                lines.push(Line::styled(
                    format!(
                        "Seams off (chunks only): {:.1}% · tokens {:.0} vs {:.0}",
                        off.failure_rate * 100.0,
                        best.mean_tokens,
                        off.mean_tokens
                    ),
                    t.text,
                ));
            }
            if !c.indistinguishable.is_empty() {
                lines.push(Line::styled(
                    format!("within noise of it: m = {}", ranges(&c.indistinguishable)),
                    t.muted,
                ));
            }
        }
        _ => lines.push(Line::styled(
            "No recommendation: no question was scored.",
            t.error,
        )),
    }
    let style = match v.benefit {
        Benefit::Helps { .. } => t.fired,
        Benefit::WithinNoise { .. } => t.notice,
        Benefit::OutsideSetting { .. } => t.error,
        Benefit::Unknown => t.muted,
    };
    lines.push(Line::styled(v.summary.clone(), style));
    if let Some(a) = &r.alternatives {
        lines.push(Line::styled(a.short(), t.text));
    }
    lines.extend(k_scan_line(app));
    lines.push(where_m_stands(app, r));
    if let Some(note) = &v.rule_note {
        lines.push(Line::styled(note.clone(), t.muted));
    }
    lines
}

/// `1–3, 5, 8–30` for a sorted list of margins.
fn ranges(ms: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ms.len() {
        let mut j = i;
        while j + 1 < ms.len() && ms[j + 1] == ms[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            ms[i].to_string()
        } else {
            format!("{}–{}", ms[i], ms[j])
        });
        i = j + 1;
    }
    parts.join(", ")
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
        "m is chosen by what it does to answers: for each m, does the context at your budget hold \
         the evidence? A seam fires over its chunk when its head start h = pos(chunk) − pos(seam) \
         in the fused ranking is at least m.",
        t.text,
    )];
    if let Some(job) = app.jobs.calibration.in_flight() {
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
                "calibrated on {} · k {} · depth {} · budget {} · {} · seed {}",
                s.chunker,
                s.k,
                s.depth,
                s.budget,
                seamscope::text::safe(&s.objective_source),
                s.seed
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
                " to calibrate m on the layout shown, in the background. It draws passages of \
                 100–400 tokens uniformly over the corpus, asks a question about each, runs every \
                 question once, and scores every m from 0 to 30 at your budget: does the context \
                 hold the whole passage, and at what cost in tokens.",
                t.text,
            ),
        ]),
        Line::from(""),
        Line::styled(
            "The recommended m has the fewest failures (ties to the larger m). Below it, as a \
             diagnostic, the white paper's head-start histograms and its 90th-percentile rule.",
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
    let recommended = r.paper_rule.recommended_m.map(i64::from);
    let top = r.paper_rule.working_range.map(|w| i64::from(w.high));
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
            marks.push(format!("◀ rule m {}", recommended.unwrap_or_default()));
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

/// The diagnostic: the paper's rule, the working range, percentiles, and the warnings.
fn numbers<'a>(app: &App, r: &CalibrationReport) -> Vec<Line<'a>> {
    let t = &app.theme;
    let v = &r.paper_rule;
    let mut lines = Vec::new();
    match (v.recommended_m, r.unsplit.spread) {
        (Some(m), Some(s)) => {
            lines.push(Line::from(vec![
                Span::styled(format!("Paper's rule: m = {m}"), t.title),
                Span::styled(
                    format!("  (unsplit p90 {} + 1; a diagnostic)", s.p90),
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
            "Paper's rule: no m (no unsplit sentence was measured).",
            t.muted,
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
    // The verdict's own warnings are shown beside the curve already.
    let diagnostic = r.warnings.iter().filter(|w| {
        !matches!(
            w.kind,
            WarningKind::OutsideSetting | WarningKind::GainWithinNoise
        )
    });
    for w in diagnostic {
        lines.push(Line::from(""));
        let style = match w.kind {
            WarningKind::OutsideSetting | WarningKind::NoUnsplit => t.error,
            _ => t.notice,
        };
        lines.push(Line::styled(format!("⚠ {}", w.text), style));
    }
    lines
}

/// Where the `m` slider stands against the recommendation and the working range.
fn where_m_stands<'a>(app: &App, r: &CalibrationReport) -> Line<'a> {
    let t = &app.theme;
    let (k, m) = (app.sliders.k, app.sliders.m);
    let Some((rec_k, rec_m)) = app.calibration.recommended() else {
        return Line::styled(format!("now: k {k}, m {m}"), t.text);
    };
    if (k, m) == (rec_k, rec_m) {
        return Line::styled(format!("now: k {k}, m {m}, the recommendation ✓"), t.fired);
    }
    let place = match r.objective.at(m) {
        _ if k != r.setup.k => format!("the curve above is for k {}", r.setup.k),
        Some(p) if r.objective.indistinguishable.contains(&m) => format!(
            "fails {:.1}%, within noise of the best",
            p.failure_rate * 100.0
        ),
        Some(p) => format!("fails {:.1}%", p.failure_rate * 100.0),
        None => "outside the scored margins".to_string(),
    };
    Line::from(vec![
        Span::styled(format!("now: k {k}, m {m}, {place} · press "), t.text),
        Span::styled("a", t.key),
        Span::styled(format!(" to set k = {rec_k}, m = {rec_m}"), t.text),
    ])
}

/// The `k` scan: the best margin at each scanned `k`, on the same questions and budget.
fn k_scan_line<'a>(app: &App) -> Option<Line<'a>> {
    let t = &app.theme;
    let rows = &app.calibration.k_scan;
    if rows.is_empty() {
        return None;
    }
    let mut by_k: Vec<_> = rows.iter().collect();
    by_k.sort_by_key(|r| r.k);
    let mut spans = vec![Span::styled("k scan: ", t.title)];
    for (i, r) in by_k.iter().enumerate() {
        let best = std::ptr::eq(*r, &rows[0]);
        let text = format!(
            "{}k {} m {} {:.1}%{}",
            if i > 0 { " · " } else { "" },
            r.k.unwrap_or(0),
            r.m.unwrap_or(0),
            r.failure_rate * 100.0,
            if best { " ◀" } else { "" }
        );
        spans.push(Span::styled(text, if best { t.fired } else { t.text }));
    }
    Some(Line::from(spans))
}

/// What wrote the questions, in the generator's own words, wrapped to `width`.
fn generator_lines<'a>(r: &CalibrationReport, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let s = &r.setup;
    let title = format!("Questions ({}): ", seamscope::text::safe(&s.generator));
    // The generator's full account is in `seamscope calibrate`'s report; here, the gist.
    let gist = if s.generator.starts_with("offline") {
        "keyword queries made from the text, no language model: they cannot paraphrase, so they \
         favour keyword matches. `seamscope calibrate --llm-url URL --llm-model NAME` asks a \
         language model; a questions.jsonl with gold spans in the corpus folder is used when \
         present (g switches)."
    } else {
        "the corpus' own question set with gold evidence spans (g switches to sampled passages)."
    };
    let text = format!("{title}{gist}");
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
