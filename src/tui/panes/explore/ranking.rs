//! The fused ranking: position, entry, kind, rank in each input list, RRF score; fired seams
//! marked, dropped seams dimmed, chunks in the final context dotted.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table};
use seamscope::retrieve::{EntryRef, FusedEntry, ListSource, RerankStatus, Trace};

use crate::tui::action::Pane;
use crate::tui::app::{Answer, App, Shown};
use crate::tui::chrome::{empty_hint, fit, pane_block, row_style};
use crate::tui::screen::{Areas, inside};
use crate::tui::step::{Reveal, list_name, search_lists};
use crate::tui::theme::Theme;

/// Widths of the fixed columns: pos, kind, dense, bm25 chunks, bm25 seams, rrf, verdict.
const FIXED: [u16; 7] = [4, 5, 5, 5, 5, 7, 10];

/// Draw the fused ranking.
pub fn draw(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let area = areas.ranking;
    let Some(answer) = &app.answer else {
        frame.render_widget(pane_block(app, Pane::Ranking, " Fused ranking "), area);
        let hint = if app.jobs.query.in_flight().is_some() {
            "running the question…"
        } else {
            "type a question in the query box (press /) and press Enter: chunks and seams are searched together and fused here"
        };
        frame.render_widget(empty_hint(t, hint), areas.body(Pane::Ranking));
        return;
    };
    let trace = &answer.trace;
    let reveal = app.reveal().unwrap_or_else(|| Reveal::all(trace));
    if let Some(list) = reveal.list {
        draw_list(app, shown, frame, areas, list);
        return;
    }
    frame.render_widget(pane_block(app, Pane::Ranking, title(answer)), area);
    let inner = inside(area);
    let rows = areas.body_height(Pane::Ranking);
    frame.render_widget(fused_table(app, shown, trace, &reveal, inner, rows), inner);
}

/// The pane's title: the entry count with RRF's settings and what the reranker did, or first of
/// all that dense search is still pending (it changes what every row means).
fn title(answer: &Answer) -> String {
    let trace = &answer.trace;
    let rerank = match trace.rerank_status() {
        RerankStatus::NotConfigured => String::new(),
        RerankStatus::Applied {
            reranker,
            candidates,
            ..
        } => format!(
            " · {candidates} chunks reranked by {} (rr: its score; fired pairs pinned)",
            seamscope::text::safe(reranker)
        ),
        RerankStatus::Failed { .. } => " · reranker failed: fused order kept".to_string(),
    };
    if answer.dense_pending {
        // Said first: it changes what every row means, and it must not be cut off.
        format!(
            " Fused ranking · dense pending: keyword lists only · {} entries ",
            trace.fused.len()
        )
    } else {
        format!(
            " Fused ranking · {} entries · RRF c = {} · depth {}{rerank} ",
            trace.fused.len(),
            trace.settings.rrf_c,
            trace.settings.depth
        )
    }
}

/// `rows` rows of the fused ranking from the cursor's scroll offset: position, entry, kind, its
/// rank in each search list, RRF score and what became of it.
fn fused_table<'a>(
    app: &'a App,
    shown: &Shown,
    trace: &Trace,
    reveal: &Reveal,
    inner: Rect,
    rows: usize,
) -> Table<'a> {
    let t = &app.theme;
    let spacing = FIXED.len() as u16;
    let entry_width = inner
        .width
        .saturating_sub(FIXED.iter().sum::<u16>() + spacing);
    let cursor = app.lists.ranking;
    let under_test = app
        .current_step()
        .and_then(|(all, i)| all.get(i)?.position(trace));
    let rows: Vec<Row> = trace
        .fused
        .iter()
        .enumerate()
        .skip(cursor.offset)
        .take(rows)
        .map(|(i, e)| {
            let label = entry_name(&shown.open, e.entry, usize::from(entry_width));
            let (verdict, verdict_style, row) = verdict(t, trace, reveal, e);
            // With a reranker, a chunk outside the context shows the reranker's score.
            let verdict = match (
                verdict,
                e.entry.chunk().and_then(|c| rerank_score(trace, c)),
            ) {
                ("", Some(score)) => format!("rr {score:.4}"),
                (v, _) => v.to_string(),
            };
            let cells = vec![
                Cell::from(format!("{:>4}", i + 1)),
                Cell::from(label),
                Cell::from(if e.entry.is_seam() { "seam" } else { "chunk" }),
                Cell::from(rank(e, ListSource::Dense)),
                Cell::from(rank(e, ListSource::KeywordChunks)),
                Cell::from(rank(e, ListSource::KeywordSeams)),
                Cell::from(format!("{:>7.5}", e.score)),
                Cell::from(Line::styled(verdict, verdict_style)),
            ];
            let selected = i == cursor.selected;
            Row::new(cells).style(row.patch(row_style(t, selected, under_test == Some(i + 1))))
        })
        .collect();
    let header = Row::new(vec![
        " pos", "entry", "kind", "dense", "bm25c", "bm25s", "    rrf", "",
    ])
    .style(t.muted);
    let widths = [
        Constraint::Length(FIXED[0]),
        Constraint::Length(entry_width),
        Constraint::Length(FIXED[1]),
        Constraint::Length(FIXED[2]),
        Constraint::Length(FIXED[3]),
        Constraint::Length(FIXED[4]),
        Constraint::Length(FIXED[5]),
        Constraint::Length(FIXED[6]),
    ];
    Table::new(rows, widths).header(header)
}

/// An entry named in `width` columns, its id always whole: the full name (`chunk 40
/// (guide.md#5)`), cut after the id only while a few characters of the document still show,
/// else just `chunk 40` / `seam 40|41`.
fn entry_name(open: &seamscope::session::OpenCorpus, entry: EntryRef, width: usize) -> String {
    let full = open.entry_label(entry);
    let short = crate::tui::step::short_name(open, entry);
    if Span::raw(full.as_str()).width() <= width {
        full
    } else if Span::raw(short.as_str()).width() + 8 <= width {
        fit(&full, width)
    } else {
        short
    }
}

/// The reranker's score of `chunk` in this question, when a reranker judged it.
fn rerank_score(trace: &Trace, chunk: seamscope::chunk::ChunkId) -> Option<f32> {
    match &trace.input.rerank {
        seamscope::retrieve::RerankInput::Scores(s) => s.score_of(chunk),
        _ => None,
    }
}

/// A rank in one input list, or `-` when the entry was not in it.
fn rank(e: &FusedEntry, source: ListSource) -> String {
    e.rank_in(source)
        .map_or_else(|| format!("{:>5}", "-"), |r| format!("{r:>5}"))
}

/// The verdict cell and the row's style: fired seams marked, dropped seams dimmed; in presenter
/// mode only once their test (or the slot that took the chunk) has been reached.
fn verdict(
    t: &Theme,
    trace: &Trace,
    reveal: &Reveal,
    e: &FusedEntry,
) -> (&'static str, Style, Style) {
    match e.entry {
        EntryRef::Seam(s) => match trace.decisions.iter().position(|d| d.seam == s) {
            Some(i) if !reveal.decided(i) => ("", t.text, t.text),
            Some(i) if trace.decisions[i].fired_on_absence => {
                ("▲ fires*", t.fired_on_absence, t.text)
            }
            Some(i) if trace.decisions[i].fires => ("▲ fires", t.fired, t.text),
            _ => ("dropped", t.dropped, t.dropped),
        },
        EntryRef::Chunk(c) if reveal.context.contains(&c) => ("● context", t.in_context, t.text),
        EntryRef::Chunk(_) => ("", t.text, t.text),
    }
}

/// One search list as it entered fusion: rank, entry, kind and the list's own score.
fn draw_list(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas, index: usize) {
    let t = &app.theme;
    let Some(answer) = &app.answer else {
        return;
    };
    let lists = search_lists(&answer.trace);
    let Some(list) = lists.get(index) else {
        return;
    };
    let title = format!(
        " {} · {} hits · step {} of {} lists ",
        list_name(list.source),
        list.hits.len(),
        index + 1,
        lists.len()
    );
    frame.render_widget(pane_block(app, Pane::Ranking, title), areas.ranking);
    let inner = inside(areas.ranking);
    let entry_width = inner.width.saturating_sub(5 + 6 + 10 + 3);
    let cursor = app.lists.ranking;
    let rows = list
        .hits
        .iter()
        .enumerate()
        .skip(cursor.offset)
        .take(areas.body_height(Pane::Ranking))
        .map(|(i, h)| {
            Row::new(vec![
                Cell::from(format!("{:>4}", i + 1)),
                Cell::from(entry_name(&shown.open, h.entry, usize::from(entry_width))),
                Cell::from(if h.entry.is_seam() { "seam" } else { "chunk" }),
                Cell::from(format!("{:>10.4}", h.score)),
            ])
            .style(row_style(t, i == cursor.selected, false))
        });
    let header = Row::new(vec!["rank", "entry", "kind", "     score"]).style(t.muted);
    let widths = [
        Constraint::Length(5),
        Constraint::Length(entry_width),
        Constraint::Length(6),
        Constraint::Length(10),
    ];
    frame.render_widget(Table::new(rows, widths).header(header), inner);
}
