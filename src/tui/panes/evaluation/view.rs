//! The evaluation page: failure rates (overall, boundary, inside) and tokens sent per answer for
//! every strategy as bar charts under one budget, then fire, false-fire and waste rates for
//! Seams. The rows are rescored live as `m` and the budget move.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use seamscope::eval::grid::GridRow;
use seamscope::eval::strategy::Strategy;

use crate::tui::app::{App, EvalView};
use crate::tui::background::EvalProblem;
use crate::tui::chrome::fit;
use crate::tui::jobs::EvalJobKind;
use crate::tui::theme::Theme;
use crate::tui::widgets::bars::{bar, pad};
use crate::tui::widgets::gauge::{progress, thousands};
use crate::tui::widgets::tall::{TallPage, base_style};

/// Columns of the strategy names.
const NAME: usize = 22;

/// The keys in the page's title, when they fit beside its views.
const KEYS: &str = " r run · s board · v map · Tab view · Esc cancel ";

/// Draw the evaluation page in `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(title(app, area.width));
    let all = Line::from(title_views(app)).width();
    let block = if all + KEYS.len() + 2 <= usize::from(area.width) {
        block.title(Line::styled(KEYS, t.muted).right_aligned())
    } else {
        block
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    match app.board.view {
        EvalView::Comparison => {}
        EvalView::Board if app.is_compact() => {
            return super::compact::draw_board(app, frame, inner);
        }
        EvalView::Map if app.is_compact() => return super::compact::draw_map(app, frame, inner),
        EvalView::Board => return super::board::draw_board(app, frame, inner),
        EvalView::Map => return super::board::draw_map(app, frame, inner),
    }
    let lines = comparison_lines(app, inner.width);
    if app.is_compact() {
        // A compact screen scrolls the comparison when it is taller than the page.
        let mut page = TallPage::new(inner.width, base_style(frame.buffer_mut(), inner));
        page.paragraph(Paragraph::new(lines).wrap(Wrap { trim: false }));
        page.show_with_note(app.scroll, frame.buffer_mut(), inner, t.notice);
        return;
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// Rows of the comparison below a compact screen's page of `inner` size (0 when it fits).
pub fn comparison_rows_below(app: &App, inner: Rect) -> u16 {
    let mut page = TallPage::new(inner.width, Style::default());
    page.paragraph(Paragraph::new(comparison_lines(app, inner.width)).wrap(Wrap { trim: false }));
    page.rows().saturating_sub(inner.height)
}

/// The comparison view `width` wide: what ran, then the rows as bar charts and Seams' rates,
/// or the intro, or what stopped the run.
fn comparison_lines<'a>(app: &App, width: u16) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mut lines = head_lines(app);
    lines.push(Line::from(""));
    if let Some(problem) = &app.evaluation.problem {
        lines.extend(problem_lines(problem, t));
    } else if app.evaluation.rows.is_empty() {
        lines.extend(intro(t));
    } else {
        lines.extend(chart(app, usize::from(width)));
        lines.push(Line::from(""));
        for row in app.evaluation.rows.iter().filter(|r| is_seams(r)) {
            lines.extend(seams_lines(app, row, usize::from(width)));
        }
        lines.push(Line::from(""));
        lines.push(Line::styled(
            "failure = the context missed part of a question's gold evidence (1 − recall at the \
             budget); boundary and inside are the questions tagged so. m/M and b/B rescore every \
             row at once from the kept searches; k/K prepares Seams again in the background.",
            t.muted,
        ));
    }
    lines
}

/// The page's name and its views, the one shown marked: ` Evaluation · strategies under one
/// budget │ strategy board │ evidence-length map `.
fn title_views<'a>(app: &App) -> Vec<Span<'a>> {
    let t = &app.theme;
    let mut title = vec![Span::styled(" Evaluation · ", t.title)];
    for (i, view) in EvalView::ALL.into_iter().enumerate() {
        if i > 0 {
            title.push(Span::styled(" │ ", t.muted));
        }
        let name = view.label();
        let style = if view == app.board.view {
            t.title.patch(t.row_selected)
        } else {
            t.muted
        };
        title.push(Span::styled(name, style));
    }
    title.push(Span::styled(" ", t.title));
    title
}

/// The title on a page `width` wide: every view when they fit, else the view shown and the
/// one Tab shows next.
fn title<'a>(app: &App, width: u16) -> Line<'a> {
    let t = &app.theme;
    let views = Line::from(title_views(app));
    if views.width() + 2 <= usize::from(width) {
        return views;
    }
    let at = EvalView::ALL
        .iter()
        .position(|v| *v == app.board.view)
        .unwrap_or(0);
    let next = EvalView::ALL[(at + 1) % EvalView::ALL.len()];
    Line::from(vec![
        Span::styled(" Evaluation · ", t.title),
        Span::styled(app.board.view.label(), t.title.patch(t.row_selected)),
        Span::styled(format!(" │ Tab {} ", next.label()), t.muted),
    ])
}

fn is_seams(row: &GridRow) -> bool {
    matches!(row.strategy, Strategy::Seams { .. })
}

/// What ran, on what, and the job's progress.
fn head_lines<'a>(app: &App) -> Vec<Line<'a>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    match &app.evaluation.run {
        Some(run) => {
            let file = run
                .questions_path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let s = app.eval_settings();
            let mut spans = vec![Span::styled(
                format!(
                    "{} questions from {} · budget {} · m {} · depth {} · chunks of {} tokens ({})",
                    run.questions.len(),
                    seamscope::text::safe(&file),
                    s.budget,
                    s.m,
                    s.depth,
                    run.params.chunk_tokens,
                    run.params.chunker
                ),
                t.text,
            )];
            if let Some(shown) = &app.shown
                && !shown.params.same_chunks(&run.params)
            {
                spans.push(Span::styled(
                    format!(
                        " · the layout is now {} tokens ({}): press r to run again",
                        shown.params.chunk_tokens, shown.params.chunker
                    ),
                    t.notice,
                ));
            }
            lines.push(Line::from(spans));
        }
        None => lines.push(Line::styled(
            "Every strategy of the comparison on the corpus's question set, under the same final \
             budget.",
            t.text,
        )),
    }
    if let Some(job) = app.jobs.eval.in_flight() {
        let (done, total, what) = job
            .progress
            .as_ref()
            .map_or((0, 0, "waiting for the worker"), |p| {
                (p.done, p.total, p.what.as_str())
            });
        let verb = match job.what {
            EvalJobKind::Grid => "evaluating".to_string(),
            EvalJobKind::Seams { k } => format!("Seams again for k = {k}"),
        };
        lines.push(progress(done, total, 24, format!("{verb}: {what}"), t));
    }
    lines
}

fn intro<'a>(t: &Theme) -> Vec<Line<'a>> {
    vec![
        Line::from(vec![
            Span::styled("Press ", t.text),
            Span::styled("r", t.key),
            Span::styled(
                " to run it in the background: no overlap, 15% overlap, 256/128 windows, windows \
                 at chunk stride, neighbour expansion and Seams at the k slider, each searched \
                 once per question on questions.jsonl in the corpus folder.",
                t.text,
            ),
        ]),
        Line::styled(
            "The searches are kept: moving m or the budget rescores every row at once.",
            t.muted,
        ),
    ]
}

fn problem_lines<'a>(problem: &EvalProblem, t: &Theme) -> Vec<Line<'a>> {
    match problem {
        EvalProblem::MissingQuestions(path) => vec![
            Line::styled(
                format!(
                    "No question set: {} does not exist.",
                    seamscope::text::safe(&path.display().to_string())
                ),
                t.error,
            ),
            Line::from(""),
            Line::styled(
                "The comparison needs questions with gold answer spans. Add that file: JSON Lines, \
                 one question per line, for example",
                t.text,
            ),
            Line::styled(
                r#"  {"id": "A01", "question": "Why are stale reads accepted?", "doc": "design.md", "spans": [{"start": 9006, "end": 9992, "text": "…"}], "tags": ["boundary"]}"#,
                t.syntax_code,
            ),
            Line::styled(
                "Offsets are bytes into the document (add \"unit\": \"char\" for character \
                 offsets) and each span's text must match the document there. Tags `boundary` \
                 and `inside` get their own failure rates. The manual's \"Question file format\" \
                 (docs/src/introduction.md) has the details. Then press r.",
                t.text,
            ),
        ],
        EvalProblem::BadQuestions { path, errors } => {
            let mut lines = vec![Line::styled(
                format!(
                    "{} problem(s) in {}:",
                    errors.len(),
                    seamscope::text::safe(&path.display().to_string())
                ),
                t.error,
            )];
            lines.extend(
                errors
                    .iter()
                    .take(12)
                    .map(|e| Line::styled(format!("  {}", seamscope::text::safe(e)), t.text)),
            );
            lines.push(Line::styled("Fix the file, then press r.", t.muted));
            lines
        }
        EvalProblem::Failed(error) => vec![Line::styled(
            format!("The evaluation failed: {}", seamscope::text::safe(error)),
            t.error,
        )],
    }
}

/// The failure rate over questions carrying any of `tags`; `None` when none carries them.
fn tag_rate(row: &GridRow, tags: &[&str]) -> Option<f64> {
    let (failed, all) = tags.iter().fold((0, 0), |acc, tag| {
        let (f, n) = row.by_tag.get(*tag).copied().unwrap_or((0, 0));
        (acc.0 + f, acc.1 + n)
    });
    (all > 0).then(|| failed as f64 / all as f64)
}

/// One bar cell: the bar on `max`'s scale, then the value, padded to `width`.
fn cell<'a>(value: Option<f64>, max: f64, text: String, width: usize, style: Style) -> Span<'a> {
    let room = width.saturating_sub(text.chars().count() + 2);
    let drawn = value.map_or_else(String::new, |v| bar(v, max, room));
    Span::styled(pad(&format!("{drawn} {text}"), width), style)
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0))
}

/// The tags the rows carry, in a fixed order (the usual ones first, then any others).
fn tags_of(rows: &[GridRow]) -> Vec<String> {
    const USUAL: [&str; 5] = ["boundary", "inside", "edge", "short", "partial"];
    let mut tags: Vec<String> = USUAL
        .iter()
        .filter(|t| rows.iter().any(|r| r.by_tag.contains_key(**t)))
        .map(|t| t.to_string())
        .collect();
    for row in rows {
        for tag in row.by_tag.keys() {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
    }
    tags
}

/// The row that wins: fewest failures, then fewest tokens, then fewest vectors.
pub fn best_row(rows: &[GridRow]) -> Option<usize> {
    (0..rows.len()).min_by(|&a, &b| {
        let (x, y) = (&rows[a], &rows[b]);
        x.failure_rate
            .total_cmp(&y.failure_rate)
            .then(x.mean_tokens.total_cmp(&y.mean_tokens))
            .then(x.vectors.cmp(&y.vectors))
    })
}

/// Failure rates (overall and per tag), tokens sent and vectors, one row per strategy; the best
/// row marked; rows pinned with `P` that differ from the live ones below them.
fn chart<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let t = &app.theme;
    let rows = &app.evaluation.rows;
    let pinned: Vec<&GridRow> = app.evaluation.pinned.as_ref().map_or(Vec::new(), |p| {
        p.rows
            .iter()
            .filter(|r| !rows.iter().any(|live| live == *r))
            .collect()
    });
    let all: Vec<&GridRow> = rows.iter().chain(pinned.iter().copied()).collect();
    let scale = ChartScale::of(t, rows, &all, width);
    let mut lines = vec![scale.head(rows)];
    let verdict = app.evaluation.verdict.as_ref();
    let best = best_row(rows);
    for (i, row) in rows.iter().enumerate() {
        lines.push(scale.line(row, row_mark(verdict, row, best == Some(i)), false));
    }
    if let Some(p) = &app.evaluation.pinned {
        lines.push(Line::styled(
            format!(
                "  pinned ({}): {} row{} that differ from the live ones · P unpins",
                p.label,
                pinned.len(),
                if pinned.len() == 1 { "" } else { "s" }
            ),
            t.muted,
        ));
        for row in &pinned {
            lines.push(scale.line(row, "", true));
        }
    }
    if let Some(v) = verdict {
        lines.push(Line::styled(format!("  {}", v.sentence()), t.notice));
    }
    lines.push(Line::styled(
        "  ★ winner beyond noise (wins ≥ 90% of 10,000 paired resamples of the questions) · ☆ \
         fewest failures, then tokens, then vectors, not beyond noise · ≈ tied with it · vectors \
         = the strategy's index size against chunks alone",
        t.muted,
    ));
    lines
}

/// A row's mark: beyond noise, the resampled winner (★); otherwise the fewest failures here (☆)
/// and ≈ on the other rows the resampling cannot tell from it.
fn row_mark(
    verdict: Option<&seamscope::calibrate::bootstrap::Verdict>,
    row: &GridRow,
    best: bool,
) -> &'static str {
    let winner = verdict.and_then(|v| v.winner.as_deref());
    match verdict {
        Some(_) if winner == Some(row.label.as_str()) => "★",
        Some(v) if winner.is_none() && v.tied_with.contains(&row.label) => {
            if best {
                "☆"
            } else {
                "≈"
            }
        }
        Some(_) => "",
        None if best => "☆",
        None => "",
    }
}

/// The chart's columns and scales: a column per rate (all questions, then each tag) and the
/// tokens sent, each bar against the largest value shown.
struct ChartScale<'t> {
    t: &'t Theme,
    tags: Vec<String>,
    column: usize,
    worst: f64,
    most_tokens: f64,
}

/// Columns of the vectors column.
const VECTORS_WIDTH: usize = 8;

impl<'t> ChartScale<'t> {
    fn of(t: &'t Theme, rows: &[GridRow], all: &[&GridRow], width: usize) -> ChartScale<'t> {
        let tags = tags_of(rows);
        let columns = tags.len() + 2;
        let column = (width.saturating_sub(NAME + 3 + VECTORS_WIDTH) / columns).max(9);
        let mut scale = ChartScale {
            t,
            tags,
            column,
            worst: 0.01,
            most_tokens: all.iter().map(|r| r.mean_tokens).fold(1.0, f64::max),
        };
        scale.worst = all
            .iter()
            .flat_map(|r| scale.rates(r))
            .flatten()
            .fold(0.01, |a: f64, b| a.max(b));
        scale
    }

    /// A row's failure rates: over all questions, then per tag.
    fn rates(&self, r: &GridRow) -> Vec<Option<f64>> {
        std::iter::once(Some(r.failure_rate))
            .chain(self.tags.iter().map(|tag| tag_rate(r, &[tag.as_str()])))
            .collect()
    }

    /// The header line: strategy, vectors, a column per rate (tags with their counts), tokens.
    fn head<'a>(&self, rows: &[GridRow]) -> Line<'a> {
        let t = self.t;
        let heading = |s: &str| Span::styled(pad(&fit(s, self.column - 1), self.column), t.title);
        let mut head = vec![
            Span::styled(pad("strategy", NAME + 3), t.title),
            Span::styled(pad("vectors", VECTORS_WIDTH), t.title),
            heading("failure, all"),
        ];
        for tag in &self.tags {
            let n = rows
                .first()
                .and_then(|r| r.by_tag.get(tag))
                .map_or(0, |x| x.1);
            head.push(heading(&format!("{tag} ({n})")));
        }
        head.push(heading("tokens sent"));
        Line::from(head)
    }

    /// One row's line with its mark; a pinned row is drawn muted, a Seams row in its colour.
    fn line<'a>(&self, row: &GridRow, mark: &str, pinned: bool) -> Line<'a> {
        let t = self.t;
        let (name_style, bar_style) = if pinned {
            (t.muted, t.muted)
        } else if is_seams(row) {
            (t.fired, t.fired)
        } else {
            (t.text, t.chart_bar)
        };
        let mut spans = vec![
            Span::styled(format!("{mark:<2}"), t.notice),
            Span::styled(pad(&fit(&row.label, NAME), NAME + 1), name_style),
            Span::styled(
                pad(&format!("{:.2}×", row.vectors_vs_chunks), VECTORS_WIDTH),
                name_style,
            ),
        ];
        for rate in self.rates(row) {
            spans.push(cell(rate, self.worst, pct(rate), self.column, bar_style));
        }
        let tokens = thousands(row.mean_tokens.round() as usize);
        spans.push(cell(
            Some(row.mean_tokens),
            self.most_tokens,
            tokens,
            self.column,
            bar_style,
        ));
        Line::from(spans)
    }
}

/// Fire, false-fire and waste rates of a Seams row, as bars on a 0–100% scale.
fn seams_lines<'a>(app: &App, row: &GridRow, width: usize) -> Vec<Line<'a>> {
    let t = &app.theme;
    let pending = app.jobs.eval.in_flight().and_then(|job| match job.what {
        EvalJobKind::Seams { k } => Some(k),
        EvalJobKind::Grid => None,
    });
    let mut title = vec![Span::styled(
        format!(
            "{} at m = {}: {:.2} firings per question · {:.2}× the vectors of chunks alone",
            row.label, app.sliders.m, row.fires_per_question, row.vectors_vs_chunks
        ),
        t.title,
    )];
    if let Some(k) = pending {
        title.push(Span::styled(format!(" · preparing k = {k}…"), t.notice));
    }
    let mut lines = vec![Line::from(title)];
    let column = (width.saturating_sub(NAME + 1) / 3).max(10);
    for (name, value, meaning) in [
        (
            "fire rate",
            row.fire_rate,
            "questions where a seam the budget fill reached fired",
        ),
        (
            "false fires",
            row.false_fire_rate,
            "of firings: its cut did not split the evidence",
        ),
        (
            "waste",
            row.waste_rate,
            "of firings: one added chunk held none of the evidence",
        ),
    ] {
        lines.push(Line::from(vec![
            Span::styled(pad(&format!("  {name}"), NAME + 1), t.text),
            cell(Some(value), 1.0, pct(Some(value)), column, t.fired),
            Span::styled(meaning, t.muted),
        ]));
    }
    lines
}
