//! The traces page (`5`): an application's production traces read against the cuts, as
//! `seamscope traces` reads them, on the screen. The traces named with `--traces` are read and
//! judged as soon as the corpus is shown (`r` reads them again): every returned document placed,
//! each question replayed on the app's cuts with and without Seams at the app's budget, and the
//! queries listed by suspicion. The arrows move over them; Enter replays one on the explore page
//! with what the app sent pinned beside seamscope's answer. Built on the pane model alone: this
//! file and its view, and the page's entry in the list.

mod view;

use std::cell::Cell;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use seamscope::chunk::ChunkerKind;
use seamscope::layout::Layout;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::settings::{Margin, Settings};
use seamscope::traces::{QueryVerdict, ReplayOptions, ReplaySearch, judge, prepare, replay};

pub use super::TracesPage;
use super::{PageOutput, PageWork, Pane, PaneCard, list_key};
use crate::tui::action::{Action, Page, TracedReplay};
use crate::tui::app::{App, TracesGiven};
use crate::tui::screen::Areas;

/// The traces page.
pub struct Traces;

/// The work that reads the traces and judges them, as `seamscope traces` does: on the layout
/// shown when it is the app's cuts, else on the app's cuts indexed apart.
#[derive(Debug)]
struct TracesWork {
    given: TracesGiven,
    /// The fire margin of the replay (the slider's).
    m: Margin,
}

impl PageWork for TracesWork {
    fn run(
        &self,
        engine: &mut Engine,
        open: &OpenCorpus,
        progress: &mut dyn FnMut(&str, usize, usize) -> bool,
    ) -> Result<Option<PageOutput>, String> {
        let stopped = Cell::new(false);
        let mut report_progress = |what: &str, done: usize, total: usize| {
            if !progress(what, done, total) {
                stopped.set(true);
            }
        };
        report_progress("reading the traces", 0, 0);
        let read = self
            .given
            .read(&mut |spans| report_progress("reading the traces", spans, 0))
            .map_err(|e| e.to_string())?;
        if stopped.get() {
            return Ok(None);
        }
        report_progress("placing the documents", 0, 0);
        let prepared = prepare(read, &open.corpus);
        let cache_dir = engine.places.cache_dir.clone();
        let cuts = match &self.given.cuts {
            Some(file) => file.clone(),
            None => prepared
                .write_recovered_cuts(&open.corpus, &cache_dir)
                .map_err(|e| e.to_string())?,
        };
        let settings = Settings {
            chunker: ChunkerKind::Given,
            cuts_file: Some(cuts),
            ..engine.settings.clone()
        };
        let layout =
            Layout::for_settings_stored(&open.corpus, &engine.tokenizer, &settings, &cache_dir)
                .map_err(|e| format!("the app's cuts do not lay out: {e}"))?;
        let chunks = layout.chunks.len();
        let on_shown = same_chunks(&layout, &open.layout);
        let built;
        let app_open = if on_shown {
            open
        } else {
            report_progress("indexing the app's cuts", 0, 0);
            built = engine
                .index_layout(open.corpus.clone(), layout, &mut |_| !stopped.get())
                .map_err(|e| e.to_string())?;
            &built
        };
        let search = ReplaySearch::Dense;
        let options = ReplayOptions {
            query: seamscope::retrieve::QuerySettings {
                m: self.m,
                ..settings.query_settings()
            },
            budget: None,
            near: None,
            search,
        };
        let judged = judge(
            &prepared,
            &app_open.corpus,
            &app_open.layout,
            options,
            None,
            |question, qs| {
                if stopped.get() {
                    return Err("stopped".into());
                }
                replay(engine, app_open, question, qs, search)
            },
            &mut |done, total| report_progress("replaying the questions", done, total),
        );
        if stopped.get() {
            return Ok(None);
        }
        Ok(Some(PageOutput::from(TracesPage {
            source: self.given.source.label(),
            report: judged?,
            chunks,
            on_shown,
            given_cuts: self.given.cuts.is_some(),
        })))
    }
}

/// Whether two layouts cut the same chunks (same documents and spans, in order).
fn same_chunks(a: &Layout, b: &Layout) -> bool {
    a.chunks.len() == b.chunks.len()
        && a.chunks
            .iter()
            .zip(&b.chunks)
            .all(|(x, y)| x.doc == y.doc && x.span == y.span)
}

/// The work `r` (and `--traces`, once the corpus is shown) starts.
pub fn work(given: TracesGiven, m: Margin) -> Arc<dyn PageWork> {
    Arc::new(TracesWork { given, m })
}

/// The page's result, if the traces have been judged.
fn page(app: &App) -> Option<&TracesPage> {
    app.page_result(Page::Traces)
}

/// The query under the cursor.
fn selected(app: &App) -> Option<&QueryVerdict> {
    let queries = &page(app)?.report.queries;
    queries.get(app.page_row(Page::Traces, queries.len()))
}

/// Enter: the query under the cursor replayed on the explore page, on the app's cuts (laid out
/// again when the screen shows another layout).
fn replay_selected(app: &App) -> Option<Action> {
    let page = page(app)?;
    let verdict = selected(app)?;
    let relayout = !page.on_shown || app.page_is_stale(Page::Traces);
    Some(Action::ReplayTraced(Box::new(TracedReplay {
        verdict: verdict.clone(),
        search: page.report.summary.search.unwrap_or(ReplaySearch::Dense),
        relayout,
    })))
}

/// What the help and the status line say of the traces page.
static CARD: PaneCard = PaneCard {
    name: "traces",
    key: '5',
    about: "traces",
    // `r` and Esc run and cancel as on the other measuring pages (their shared group).
    help: &[(
        "Measuring pages",
        &[("↑↓ / Enter", "traces: query / replay it in explore")],
    )],
    hints: &[
        ("r", "read again"),
        ("↑↓", "query"),
        ("Enter", "replay"),
        ("Esc", "cancel"),
        ("?", "help"),
        ("q", "quit"),
    ],
};

impl Pane for Traces {
    fn card(&self) -> &'static PaneCard {
        &CARD
    }

    fn handle_key(&self, app: &App, key: &KeyEvent) -> Option<Action> {
        Some(match key.code {
            KeyCode::Char('r') => {
                let given = app.traces.clone()?;
                Action::RunPageWork(work(given, app.sliders.m))
            }
            KeyCode::Enter => return replay_selected(app),
            _ => return list_key(key, || page(app).map_or(0, |p| p.report.queries.len())),
        })
    }

    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas) {
        view::draw(app, frame, areas.main);
    }
}

#[cfg(test)]
mod tests;
