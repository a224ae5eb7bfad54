//! The top line: the corpus and its counts, and the background job's progress bar.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use seamscope::index::vectors::SearchMode;

use crate::tui::app::App;
use crate::tui::widgets::gauge::{progress, thousands};

/// Draw the header.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    frame.render_widget(Paragraph::new("").style(t.header), area);
    let mut left = vec![
        Span::styled(" seamscope ", t.header.patch(t.title)),
        Span::styled(format!("│ {} ", app.corpus_name), t.header),
    ];
    if let Some(label) = &app.embedder_label {
        left.push(Span::styled(format!("│ {label} "), t.header));
    }
    if let Some(shown) = &app.shown {
        // A narrow terminal gets the same counts in short words rather than losing the last.
        // First the search mode in a word, then every count in short words.
        let used: usize = left.iter().map(Span::width).sum();
        let fits =
            |line: &String| used + Span::raw(line.as_str()).width() <= usize::from(area.width);
        let line = [Words::Full, Words::ShortMode, Words::Short]
            .into_iter()
            .map(|words| corpus_line(shown, words))
            .find(fits)
            .unwrap_or_else(|| corpus_line(shown, Words::Short));
        left.push(Span::styled(line, t.header));
    }
    let job = job_line(app);
    // The job's progress takes what the corpus line leaves, and at least half the line.
    let left_width: u16 = left.iter().map(|s| s.width() as u16).sum();
    // While the corpus shown waits for its own vectors, their progress is the news: it takes up
    // to three quarters of the line, so the token counts and the time left show at 120 columns.
    let preview = app
        .jobs
        .layout
        .in_flight()
        .is_some_and(|j| app.shown.as_ref().map(|s| s.generation) == Some(j.generation));
    let share = if preview {
        area.width / 4 * 3
    } else {
        area.width / 2
    };
    let job_width = match &job {
        Some(_) => area.width.saturating_sub(left_width + 1).max(share),
        None => 0,
    };
    let [left_area, job_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(job_width)]).areas(area);
    frame.render_widget(Paragraph::new(Line::from(left)).style(t.header), left_area);
    if let Some(line) = job {
        frame.render_widget(Paragraph::new(line).style(t.header), job_area);
    }
}

/// How many words the corpus line takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Words {
    /// Every count and the search mode in full.
    Full,
    /// Every count in full, the search mode in a word.
    ShortMode,
    /// Short words for everything (the chunker and `k` are in the Settings box).
    Short,
}

/// The corpus shown: documents (and files skipped), chunks, seams, tokens and how dense search
/// runs, in as many `words` as the line has room for.
fn corpus_line(shown: &crate::tui::app::Shown, words: Words) -> String {
    let open = &shown.open;
    let short_mode = words != Words::Full;
    let server = open.indexes.store.screen_label(short_mode);
    let mode = match (server, open.indexes.search_mode, short_mode) {
        (_, SearchMode::Pending, false) => "dense pending: keyword search only",
        (_, SearchMode::Pending, true) => "dense pending",
        (Some(server), _, _) => server,
        (_, SearchMode::Exact, false) => "exact dense search",
        (_, SearchMode::Exact, true) => "exact",
        (_, SearchMode::Approximate, false) => "approximate dense search (HNSW)",
        (_, SearchMode::Approximate, true) => "HNSW",
    };
    if words == Words::Short {
        // Files excluded by name (the question set beside a corpus) are not skipped documents,
        // as the wide line's summary does not count them either.
        let left_out = open
            .corpus
            .skipped
            .iter()
            .filter(|s| s.reason != seamscope::corpus::SkipReason::Excluded)
            .count();
        let skipped = match left_out {
            0 => String::new(),
            n => format!(" ({n} skipped: ?)"),
        };
        return format!(
            "│ {} docs{skipped} · {} chunks · {} seams · {} tok · {mode}",
            open.corpus.documents.len(),
            open.layout.chunks.len(),
            open.layout.seams.len(),
            thousands(open.layout.total_tokens()),
        );
    }
    let headings = if shown.params.heading_prefix {
        ", heading prefixes"
    } else {
        ""
    };
    // Given cuts have no size of their own: they are named by their file.
    let chunks = match &open.layout.given {
        Some(given) => format!(
            "{} chunks ({}{headings})",
            open.layout.chunks.len(),
            given.label()
        ),
        None => format!(
            "{} chunks of {} tokens ({}{headings})",
            open.layout.chunks.len(),
            shown.params.chunk_tokens,
            shown.params.chunker
        ),
    };
    // Files left out are never silent: how many and why, grouped ("2 skipped: …").
    let skipped = seamscope::corpus::skip_summary(&open.corpus.skipped)
        .map(|s| format!(" ({s}; ? lists each)"))
        .unwrap_or_default();
    format!(
        "│ {} documents{skipped} · {chunks} · {} seams (k {}) · {} tokens · {mode}",
        open.corpus.documents.len(),
        open.layout.seams.len(),
        shown.params.k,
        thousands(open.layout.total_tokens()),
    )
}

/// The running layout job as a progress bar, if one runs.
fn job_line(app: &App) -> Option<Line<'static>> {
    let t = &app.theme;
    let job = app.jobs.layout.in_flight()?;
    let what = match app.shown.as_ref().map(|s| s.params) {
        // The job's own documents are shown already: it is embedding their vectors.
        _ if app.shown.as_ref().map(|s| s.generation) == Some(job.generation) => {
            "vectors coming".to_string()
        }
        Some(shown) if shown == job.what => "reloading the files".to_string(),
        Some(shown) if shown.chunk_tokens != job.what.chunk_tokens => format!(
            "rebuilding for chunk {} → {}",
            shown.chunk_tokens, job.what.chunk_tokens
        ),
        Some(shown) if shown.chunker != job.what.chunker => format!(
            "rebuilding for chunker {} → {}",
            shown.chunker, job.what.chunker
        ),
        Some(shown) if shown.heading_prefix != job.what.heading_prefix => format!(
            "rebuilding with heading prefixes {}",
            if job.what.heading_prefix { "on" } else { "off" }
        ),
        Some(shown) => format!("rebuilding for k {} → {}", shown.k, job.what.k),
        None => "opening".to_string(),
    };
    let (done, total, stage, unit) = match job.progress {
        Some(p) => (p.done, p.total, p.stage.label(), p.stage.unit()),
        None => (0, 0, "waiting for the worker", ""),
    };
    let counts = if total > 0 && !unit.is_empty() {
        format!(" {}/{} {unit}", thousands(done), thousands(total))
    } else {
        String::new()
    };
    let left = match job.progress.and_then(|p| p.eta) {
        Some(eta) => format!(" · {} left", duration_words(eta)),
        None => String::new(),
    };
    Some(progress(
        done,
        total,
        12,
        format!("{what}: {stage}{counts}{left}"),
        t,
    ))
}

/// `8 s`, `3 min 5 s`, `1 h 2 min`: a time left, as precise as it is worth.
pub fn duration_words(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{} s", s.max(1)),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}
