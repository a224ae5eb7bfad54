//! Pinned settings beside the current ones: for each side its settings, the fire tests the
//! budget fill reached, the context (chunks the other side lacks marked), tokens, the change
//! against chunks-only, and a gold question's verdict.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use seamscope::chunk::ChunkId;
use seamscope::retrieve::Trace;
use seamscope::session::OpenCorpus;
use seamscope::traces::{QueryVerdict, ReplaySearch};

use crate::tui::action::Pane;
use crate::tui::app::{App, Pinned, PinnedSide, Shown, settings_label};
use crate::tui::chrome::pane_block;
use crate::tui::gold::{GoldLine, mark};
use crate::tui::screen::Areas;
use crate::tui::screen::inside;
use crate::tui::theme::Theme;
use crate::tui::widgets::gauge::thousands;

/// One side of the comparison.
struct Side<'a> {
    title: String,
    question: &'a str,
    /// The other side's question: this one is shown only when they differ.
    other_question: Option<&'a str>,
    trace: &'a Trace,
    open: &'a OpenCorpus,
    gold: Option<GoldLine>,
    /// The cut a traces page suspects (left, right chunk): its seam's fire test is marked.
    suspect: Option<(ChunkId, ChunkId)>,
}

/// Draw the pinned result beside the current one in the compare pane's place.
pub fn draw(app: &App, shown: &Shown, pinned: &Pinned, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let area = areas.compare;
    let title = match pinned.side {
        PinnedSide::Result(_) => " Pinned vs now · P unpins ",
        PinnedSide::AppSent(_) => " Your app sent vs with Seams · P unpins ",
    };
    frame.render_widget(pane_block(app, Pane::Compare, title), area);
    let inner = inside(area);
    let [left, _, right] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(inner);
    // Chunk ids compare only between layouts that cut the same chunks.
    let same = pinned.params.same_chunks(&shown.params);
    let now_ctx = app
        .answer
        .as_ref()
        .filter(|_| same)
        .map(|a| a.trace.fill.chunks.clone());
    let pinned_ctx = same.then(|| pinned.chunks());
    match &pinned.side {
        PinnedSide::Result(result) => {
            let side = Side {
                title: format!("Pinned · {}", pinned.label),
                question: &result.answer.question,
                other_question: app.answer.as_ref().map(|a| a.question.as_str()),
                trace: &result.answer.trace,
                open: &result.open,
                gold: result.gold.clone(),
                suspect: None,
            };
            draw_side(t, &side, now_ctx.as_deref(), frame, left);
        }
        PinnedSide::AppSent(sent) => {
            let other = app.answer.as_ref().map(|a| a.question.as_str());
            draw_app_side(t, &sent.verdict, other, now_ctx.as_deref(), frame, left);
        }
    }
    let Some(answer) = &app.answer else {
        let hint = "now: run a question to compare";
        frame.render_widget(Paragraph::new(Line::styled(hint, t.placeholder)), right);
        return;
    };
    let settings = settings_label(&answer.trace.settings, &shown.params);
    let (title, suspect) = match &pinned.side {
        PinnedSide::Result(_) => (format!("Now · {settings}"), None),
        PinnedSide::AppSent(sent) => (
            format!(
                "with Seams · {settings} · {}",
                match pinned.searches_for(&answer.question) {
                    Some(ReplaySearch::Dense) => "dense search, as the app",
                    Some(ReplaySearch::Hybrid) => "hybrid search",
                    None => "hybrid search (another question)",
                }
            ),
            sent.verdict.suspects.first().filter(|s| s.tier > 0),
        ),
    };
    let now_side = Side {
        title,
        question: &answer.question,
        other_question: Some(pinned.question()),
        trace: &answer.trace,
        open: &shown.open,
        gold: app.gold_verdict(),
        suspect: suspect.filter(|_| same).map(|s| (s.left, s.right)),
    };
    draw_side(t, &now_side, pinned_ctx.as_deref(), frame, right);
}

/// What a traced app sent: its chunks in its order with the scores its retriever gave, the
/// documents that could not be placed, and the cut the traces page suspects, in words.
fn draw_app_side(
    t: &Theme,
    verdict: &QueryVerdict,
    other_question: Option<&str>,
    other: Option<&[ChunkId]>,
    frame: &mut Frame,
    area: Rect,
) {
    let mut lines = vec![Line::styled(
        format!("your app sent · budget {}", verdict.budget),
        t.title,
    )];
    if other_question.is_some_and(|q| q.trim() != verdict.question.trim()) {
        lines.push(Line::styled(
            format!("“{}”", seamscope::text::safe(&verdict.question)),
            t.muted,
        ));
    }
    let mut context = vec![Span::styled("context: ", t.muted)];
    for (i, sent) in verdict.sent.iter().enumerate() {
        if i > 0 {
            context.push(Span::raw(" "));
        }
        let score = sent.score.map(|s| format!(" ({s:.2})")).unwrap_or_default();
        let (text, style) = match sent.chunk {
            Some(c) if other.is_some_and(|o| !o.contains(&c)) => {
                (format!("+{}{score}", c.0), t.added)
            }
            Some(c) => (format!("{}{score}", c.0), t.text),
            None => (format!("?{score}"), t.muted),
        };
        context.push(Span::styled(text, style));
    }
    lines.push(Line::from(context));
    let unplaced = verdict.sent.iter().filter(|s| s.chunk.is_none()).count();
    if unplaced > 0 {
        lines.push(Line::styled(
            format!("? {unplaced} not placed in the corpus"),
            t.muted,
        ));
    }
    lines.push(Line::from(vec![
        Span::styled("suspect: ", t.muted),
        Span::styled(verdict.why(), t.fired),
    ]));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), area);
}

fn draw_side(t: &Theme, side: &Side<'_>, other: Option<&[ChunkId]>, frame: &mut Frame, area: Rect) {
    let trace = side.trace;
    let mut lines = vec![Line::styled(side.title.clone(), t.title)];
    if side
        .other_question
        .is_some_and(|q| q.trim() != side.question.trim())
    {
        lines.push(Line::styled(
            format!("“{}”", seamscope::text::safe(side.question)),
            t.muted,
        ));
    }
    // The fire tests the fill reached, each with its verdict.
    let mut fires = vec![Span::styled("fire tests: ", t.muted)];
    let reached: Vec<_> = trace.decisions_reached().map(|(_, d)| d).collect();
    if reached.is_empty() {
        fires.push(Span::styled("none reached", t.muted));
    }
    for (i, d) in reached.iter().enumerate() {
        if i > 0 {
            fires.push(Span::styled(" · ", t.muted));
        }
        let (verdict, style) = if d.fires {
            ("fires", t.fired)
        } else {
            ("dropped", t.dropped)
        };
        let seam = side.open.layout.seam(d.seam);
        let suspect = side.suspect == Some((seam.left, seam.right));
        fires.push(Span::styled(
            format!(
                "{}{} #{} {verdict}",
                if suspect { "▶ suspect " } else { "" },
                side.open.seam_label(d.seam),
                d.seam_position
            ),
            if suspect {
                style.add_modifier(
                    ratatui::style::Modifier::BOLD | ratatui::style::Modifier::REVERSED,
                )
            } else {
                style
            },
        ));
    }
    lines.push(Line::from(fires));
    let mut context = vec![Span::styled("context: ", t.muted)];
    for (i, c) in trace.fill.chunks.iter().enumerate() {
        if i > 0 {
            context.push(Span::raw(" "));
        }
        let only_here = other.is_some_and(|o| !o.contains(c));
        let (text, style) = if only_here {
            (format!("+{}", c.0), t.added)
        } else {
            (c.0.to_string(), t.text)
        };
        context.push(Span::styled(text, style));
    }
    context.push(Span::styled(
        format!(" · {} tokens", thousands(trace.tokens_sent as usize)),
        t.text,
    ));
    lines.push(Line::from(context));
    let cmp = trace.without_seams.shown();
    lines.push(Line::styled(
        format!(
            "vs chunks-only: +{} −{}",
            cmp.added.len(),
            cmp.displaced.len()
        ),
        t.muted,
    ));
    if let Some(gold) = &side.gold {
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", gold.id), t.key),
            Span::styled(
                format!(
                    "{} with · {} without",
                    mark(gold.verdict.with_seams),
                    mark(gold.verdict.without_seams)
                ),
                if gold.verdict.with_seams {
                    t.added
                } else {
                    t.displaced
                },
            ),
            Span::styled(format!(" — {}", gold.short), t.evidence),
        ]));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), area);
}
