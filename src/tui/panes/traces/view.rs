//! The traces page: a summary (queries read, the share whose context Seams would change, the
//! documents placed), the traced queries by suspicion (rank, id, question, the best suspect in
//! words), and for the query under the cursor what the app sent (its chunks in its order, with
//! the scores the trace gave) and what Seams would add. Every figure comes from the engine's
//! report; trace and corpus text is made safe and kept to one line.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use seamscope::traces::{QueryVerdict, TracesReport};

use super::{TracesPage, page};
use crate::tui::action::Page;
use crate::tui::app::App;
use crate::tui::chrome::{fit, wrap_words};
use crate::tui::theme::Theme;

/// Columns below which a query takes two rows (its suspect, then its question).
const ONE_ROW: usize = 140;

/// Draw the traces page in `area`.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let title = match page(app) {
        Some(p) => format!(" Traces · {} ", p.source),
        None => " Traces ".to_string(),
    };
    let mut block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(
            fit(&title, usize::from(area.width) / 2),
            t.title,
        ));
    // The keys beside the title where they fit; the status line has them too.
    if area.width >= 100 {
        block = block.title(
            Line::styled(
                " r read again · ↑↓ query · Enter replay in explore · Esc cancel ",
                t.muted,
            )
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut head = status_lines(app, width);
    let Some(shown) = page(app) else {
        head.extend(intro(app, width));
        frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: true }), inner);
        return;
    };
    head.extend(summary_lines(app, shown, width, inner.height >= 20));
    let queries = &shown.report.queries;
    if queries.is_empty() {
        head.push(Line::styled(
            "the traces hold no retrieval step: nothing to replay",
            t.muted,
        ));
        frame.render_widget(Paragraph::new(head), inner);
        return;
    }
    let at = app.page_row(Page::Traces, queries.len());
    let foot = detail_lines(&queries[at], width, inner.height >= 20, t);
    let [head_area, list_area, foot_area] = Layout::vertical([
        Constraint::Length(head.len() as u16),
        Constraint::Fill(1),
        Constraint::Length(foot.len() as u16),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head), head_area);
    let (lines, cursor_line, per_query) = query_lines(&shown.report, at, width, t);
    let height = usize::from(list_area.height);
    // Keep the cursor's query in view (both its rows).
    let first = (cursor_line + per_query).saturating_sub(height);
    let visible: Vec<Line> = lines.into_iter().skip(first).take(height).collect();
    frame.render_widget(Paragraph::new(visible), list_area);
    frame.render_widget(Paragraph::new(foot), foot_area);
}

/// The job's progress, its failure, or nothing.
fn status_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    if let Some(line) =
        crate::tui::panes::page_job_progress(app, "waiting for the corpus", "traces")
    {
        return vec![line];
    }
    match app.page_state(Page::Traces).and_then(|s| s.output.as_ref()) {
        Some(Err(e)) => wrap_words(
            &format!(
                "the traces could not be read or judged: {}",
                seamscope::text::safe(e)
            ),
            width,
        )
        .into_iter()
        .map(|s| Line::styled(s, t.error))
        .collect(),
        _ => Vec::new(),
    }
}

/// Before the traces are judged: what the page does, and the command that gives it traces when
/// none were given.
fn intro(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = vec![Line::styled(
        "Your application's traces read against the cuts: every document it retrieved placed \
         in the corpus, its cuts recovered, each question replayed on them with and without \
         Seams at the app's own budget, and the queries ranked by how likely a cut made it \
         miss.",
        t.text,
    )];
    out.push(Line::raw(""));
    if app.traces.is_some() {
        let failed = app
            .page_state(Page::Traces)
            .is_some_and(|s| matches!(s.output, Some(Err(_))));
        if app.jobs.page.in_flight().is_none() {
            out.push(Line::styled(
                if failed {
                    "r reads them again once what is said above is mended."
                } else {
                    "The traces are read once the corpus is embedded; r reads them again."
                },
                t.muted,
            ));
        }
        return out;
    }
    let corpus = seamscope::text::safe_name(&app.corpus_path.display().to_string());
    let corpus = if corpus.is_empty() {
        "<corpus>".to_string()
    } else {
        corpus
    };
    out.push(Line::styled(
        "No traces were given. Open the screen with them:",
        t.muted,
    ));
    for command in [
        format!("seamscope {corpus} --traces FILE"),
        format!("seamscope {corpus} --traces phoenix:http://HOST:PORT --project NAME"),
    ] {
        out.push(Line::styled(fit(&format!("  {command}"), width), t.key));
    }
    out.push(Line::styled(
        "FILE: OTLP JSON lines, OpenInference spans, LangSmith runs, Langfuse observations or \
         LangChain astream_events (the format is detected). The same report: \
         seamscope traces <corpus> --traces FILE.",
        t.muted,
    ));
    out
}

/// The figures over all queries, and the layout and replay they come from (on a short screen
/// only when they need saying: another layout than the one shown, or a stale report).
fn summary_lines(app: &App, shown: &TracesPage, width: usize, roomy: bool) -> Vec<Line<'static>> {
    let t = &app.theme;
    let s = &shown.report.summary;
    let p = &s.placement;
    let placed = p.distinct - p.not_placed;
    let summary = format!(
        "{} queries read · Seams would change what the app sent in {:.0}% · documents placed \
         {placed} of {}, {} not placed",
        s.queries,
        100.0 * s.seams_changes,
        p.distinct,
        p.not_placed
    );
    let layout = format!(
        "{}: {} chunks ({}) · dense replay, m {}, each query at its app's budget{}",
        if shown.given_cuts {
            "your cuts file"
        } else {
            "the app's cuts"
        },
        shown.chunks,
        if shown.on_shown {
            "the layout shown"
        } else {
            "indexed apart: Enter lays them out"
        },
        s.m,
        if app.page_is_stale(Page::Traces) {
            " · the layout changed since: r judges again"
        } else {
            ""
        }
    );
    let mut out: Vec<Line<'static>> = wrap_words(&summary, width)
        .into_iter()
        .map(|l| Line::styled(l, t.title))
        .collect();
    if roomy || !shown.on_shown || app.page_is_stale(Page::Traces) {
        out.extend(
            wrap_words(&layout, width)
                .into_iter()
                .map(|l| Line::styled(l, t.muted)),
        );
    }
    out.push(Line::styled(
        fit(
            if width >= ONE_ROW {
                "  rank  id        question                                            best suspect"
            } else {
                "  rank  id        best suspect, then the question"
            },
            width,
        ),
        t.muted,
    ));
    out
}

/// The queries by rank: one row each on a wide screen (rank, id, question, suspect), two on a
/// narrow one (rank, id, suspect; then the question). Returns the lines, the first line of the
/// cursor's query and the lines a query takes.
fn query_lines(
    report: &TracesReport,
    at: usize,
    width: usize,
    t: &Theme,
) -> (Vec<Line<'static>>, usize, usize) {
    let wide = width >= ONE_ROW;
    let per_query = if wide { 1 } else { 2 };
    let mut lines = Vec::new();
    for (i, v) in report.queries.iter().enumerate() {
        let here = i == at;
        let mark = if here { "▸ " } else { "  " };
        let id = fit(
            &seamscope::text::safe_name(v.question_id.as_deref().unwrap_or("-")),
            8,
        );
        let question = one_line(&v.question);
        let style = if here { t.row_selected } else { t.text };
        if wide {
            let text = format!(
                "{mark}{:>4}  {id:<8}  {:<50}  {}",
                v.rank,
                fit(&question, 50),
                v.why()
            );
            lines.push(Line::styled(fit(&text, width), style));
        } else {
            let text = format!("{mark}{:>4}  {id:<8}  {}", v.rank, v.why());
            lines.push(Line::styled(fit(&text, width), style));
            lines.push(Line::styled(
                fit(&format!("                  “{question}”"), width),
                if here { t.row_selected } else { t.muted },
            ));
        }
    }
    (lines, at * per_query, per_query)
}

/// The query under the cursor: its question, what the app sent (in its order, with scores),
/// what Seams would send and add, and what Enter does.
fn detail_lines(v: &QueryVerdict, width: usize, roomy: bool, t: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled("─".repeat(width), t.muted)];
    let question = wrap_words(&format!("“{}”", one_line(&v.question)), width);
    let rows = if roomy { 2 } else { 1 };
    let cut = question.len() > rows;
    out.extend(question.into_iter().take(rows).enumerate().map(|(i, s)| {
        // A cut line ends in `…`, so nothing reads as whole that is not.
        let s = if cut && i + 1 == rows {
            fit(&format!("{s} …"), width)
        } else {
            s
        };
        Line::styled(s, t.text)
    }));
    let sent: Vec<String> = v
        .sent
        .iter()
        .map(|s| {
            let chunk = s.chunk.map_or("?".to_string(), |c| c.0.to_string());
            match s.score {
                Some(score) => format!("{chunk} ({score:.2})"),
                None => chunk,
            }
        })
        .collect();
    let unplaced = v.sent.iter().filter(|s| s.chunk.is_none()).count();
    let mut app_line = format!("your app sent: {}", sent.join(" · "));
    if unplaced > 0 {
        app_line.push_str(&format!(" (?: {unplaced} not placed in the corpus)"));
    }
    out.extend(
        wrap_words(&app_line, width)
            .into_iter()
            .take(2)
            .map(|s| Line::styled(s, t.text)),
    );
    let with: Vec<String> = v
        .replay_with_seams
        .iter()
        .map(|c| {
            if v.seams_adds.contains(c) {
                format!("+{}", c.0)
            } else {
                c.0.to_string()
            }
        })
        .collect();
    let adds = if v.seams_adds.is_empty() {
        "adds nothing".to_string()
    } else {
        format!(
            "adds {} ({} tokens)",
            v.seams_adds
                .iter()
                .map(|c| c.0.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            v.tokens_added
        )
    };
    let seams_line = format!(
        "with Seams: {} · {adds} · {} fired",
        if with.is_empty() {
            "nothing".to_string()
        } else {
            with.join(" ")
        },
        v.fires
    );
    out.extend(
        wrap_words(&seams_line, width)
            .into_iter()
            .take(2)
            .map(|s| Line::styled(s, t.added)),
    );
    out.push(Line::from(vec![
        Span::styled("Enter", t.key),
        Span::styled(
            fit(
                " replays it in explore: your app sent · with Seams, side by side",
                width.saturating_sub(5),
            ),
            t.muted,
        ),
    ]));
    out
}

/// Trace text on one line: made safe, whitespace runs as one space.
fn one_line(text: &str) -> String {
    seamscope::text::safe(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
