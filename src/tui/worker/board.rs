//! The worker's board jobs: the strategy board on the corpus's gold questions and the
//! evidence-length map on sampled passages, through the same engine calls as `tune
//! --strategies all` and `tune --map`. Progress goes out at most every 100 ms; a job stops at
//! its next search step once it is no longer the newest, and then says nothing.

use std::sync::Arc;

use seamscope::board::board;
use seamscope::board::map::evidence_map;
use seamscope::eval::run::SearchProgress;
use seamscope::session::{Engine, EngineError, OpenCorpus};
use seamscope::settings::Settings;

use super::Worker;
use super::job::Job;
use crate::tui::background::{BoardResult, NEEDS_GOLD};
use crate::tui::gold::GoldQuestions;
use crate::tui::jobs::BoardJob;
use crate::tui::widgets::gauge::thousands;

/// A progress line for the board's search steps: which strategy, and how far.
fn describe(p: &SearchProgress<'_>) -> (String, usize, usize) {
    match *p {
        SearchProgress::Preparing {
            index,
            count,
            label,
        } => (
            format!(
                "strategy {} of {count} ({}): embedding its texts",
                index + 1,
                seamscope::text::safe(label)
            ),
            index,
            count,
        ),
        SearchProgress::Embedding {
            index,
            count,
            label,
            part,
            progress,
        } => (
            format!(
                "strategy {} of {count} ({}): embedding its {part}, {} of {} tokens",
                index + 1,
                seamscope::text::safe(label),
                thousands(progress.done_tokens),
                thousands(progress.total_tokens)
            ),
            index,
            count,
        ),
        SearchProgress::Searching {
            index,
            count,
            label,
            done,
            total,
        } => (
            format!(
                "strategy {} of {count} ({}): question {done} of {total}",
                index + 1,
                seamscope::text::safe(label)
            ),
            index,
            count,
        ),
    }
}

impl Worker<'_> {
    /// Run a board job on the current layout.
    pub(super) fn board(
        &mut self,
        job: &mut Job<'_>,
        board_job: BoardJob,
        budget: usize,
    ) -> Result<Option<BoardResult>, String> {
        let (_, open) = self.shown()?;
        let questions = match &board_job {
            BoardJob::Strategies(_) => match self.questions(&open).as_ref() {
                GoldQuestions::Loaded(q) if !q.is_empty() => Some(Arc::new(q.clone())),
                GoldQuestions::Bad(why) => {
                    return Err(format!(
                        "questions.jsonl cannot be used ({why}); v draws the evidence-length \
                         map, which needs no gold questions"
                    ));
                }
                _ => return Err(NEEDS_GOLD.to_string()),
            },
            BoardJob::Map(_) => None,
        };
        let engine = self.engine.as_mut().ok_or("the model is not loaded")?;
        // Every row is scored at the slider's budget, passed by value: the engine's own settings
        // stay as they are whatever happens in the run.
        let settings = Settings {
            budget,
            ..engine.settings.clone()
        };
        let mut report = |p: SearchProgress<'_>| {
            let (what, index, count) = describe(&p);
            job.report(&what, index, count);
            matches!(p, SearchProgress::Embedding { .. }) || job.current()
        };
        let run = |engine: &mut Engine,
                   open: &OpenCorpus,
                   report: &mut dyn FnMut(SearchProgress<'_>) -> bool|
         -> Result<Option<BoardResult>, EngineError> {
            Ok(match &board_job {
                BoardJob::Strategies(options) => {
                    let qs = questions.as_deref().map_or(&[][..], |q| q.as_slice());
                    let source =
                        format!("{} questions of questions.jsonl with gold spans", qs.len());
                    board(engine, open, &settings, qs, &source, options, report)?
                        .map(|b| BoardResult::Board(Arc::new(b)))
                }
                BoardJob::Map(options) => {
                    evidence_map(engine, open, &settings, options, None, None, report)?
                        .map(|m| BoardResult::Map(Arc::new(m)))
                }
            })
        };
        run(engine, &open, &mut report).map_err(|e| e.to_string())
    }
}
