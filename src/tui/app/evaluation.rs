//! The evaluation page's state: every strategy searched once over the question set, and its
//! table rows scored again whenever `m` or the budget moves (pure, no search). Moving `k`
//! prepares and searches Seams again in the background; the other strategies do not use `k`.

use seamscope::calibrate::bootstrap::{self, Candidate, Verdict};
use seamscope::eval::grid::{GridRow, GridSettings};
use seamscope::eval::strategy::Strategy;

use super::{App, Notice};
use crate::tui::background::{EvalProblem, EvalRun, Evaluated, SeamsPrepared};
use crate::tui::jobs::EvalJobKind;

/// What the evaluation page shows.
#[derive(Debug, Default)]
pub struct EvalState {
    /// The newest finished run, with its kept searches.
    pub run: Option<EvalRun>,
    /// One row per strategy of `run`, scored under the sliders' `m` and budget.
    pub rows: Vec<GridRow>,
    /// Why the newest run could not be made, if it could not.
    pub problem: Option<EvalProblem>,
    /// Rows pinned with `P`, shown beside the live ones.
    pub pinned: Option<super::PinnedRows>,
    /// Whether the best row is beyond noise: the paired bootstrap over the questions (each row
    /// one contender), scored again with the rows.
    pub verdict: Option<Verdict>,
}

/// Resamples behind the page's verdict (the board's default, seeded as the board is).
pub const VERDICT_RESAMPLES: usize = bootstrap::DEFAULT_RESAMPLES;

/// The bootstrap verdict over the page's rows: each row is its own contender (a row is one
/// fixed setting, so there is no tuning to price in), judged on the questions each resample
/// leaves out; a winner only when one row wins 90% of the resamples.
pub fn rows_verdict(rows: &[GridRow]) -> Option<Verdict> {
    if rows.is_empty() || rows.iter().any(|r| r.failed.len() != rows[0].failed.len()) {
        return None;
    }
    let candidates: Vec<Candidate<'_>> = rows
        .iter()
        .map(|r| Candidate {
            label: &r.label,
            family: &r.label,
            failed: &r.failed,
            mean_tokens: r.mean_tokens,
        })
        .collect();
    Some(bootstrap::verdict(&candidates, VERDICT_RESAMPLES, 0))
}

/// Which rows to score again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rescore {
    /// Only Seams (`m` moved: nothing else has a fire test).
    Seams,
    /// Every strategy (the budget moved, or a run arrived).
    All,
}

impl App {
    /// The comparison's settings under the sliders: `m`, budget and chunk size, with the
    /// settings file's depth and RRF constant.
    pub fn eval_settings(&self) -> GridSettings {
        let base = self.evaluation.run.as_ref().map(|r| r.settings);
        GridSettings {
            budget: self.sliders.budget,
            m: self.sliders.m,
            depth: base.map_or(self.base_query.depth, |s| s.depth),
            rrf_c: base.map_or(self.base_query.rrf_c, |s| s.rrf_c),
            chunk_tokens: base.map_or(self.sliders.chunk_tokens, |s| s.chunk_tokens),
            side_drop: None,
        }
    }

    /// Start the comparison on the layout shown (a running evaluation job is superseded).
    pub(super) fn run_evaluation(&mut self) {
        if self.shown.is_none() {
            self.notice = Some(Notice {
                text: "the corpus is still opening: evaluate once it is shown".into(),
                error: true,
            });
            return;
        }
        self.evaluation.problem = None;
        let grid = GridSettings {
            depth: self.base_query.depth,
            rrf_c: self.base_query.rrf_c,
            chunk_tokens: self.sliders.chunk_tokens,
            ..self.eval_settings()
        };
        self.jobs.start_eval(grid, self.sliders.k);
    }

    /// An evaluation ended: keep its run if it answers the newest request.
    pub(super) fn evaluated(&mut self, evaluated: Evaluated) {
        if !self.jobs.eval.is_current(evaluated.generation) {
            return;
        }
        self.jobs.eval.finish(evaluated.generation);
        match evaluated.result {
            Ok(run) => {
                self.evaluation.run = Some(run);
                self.evaluation.problem = None;
                self.rescore_eval(Rescore::All);
            }
            Err(problem) => self.evaluation.problem = Some(problem),
        }
    }

    /// Seams arrived for a new `k`: swap them in and score their row.
    pub(super) fn seams_prepared(&mut self, prepared: SeamsPrepared) {
        if !self.jobs.eval.is_current(prepared.generation) {
            return;
        }
        self.jobs.eval.finish(prepared.generation);
        let strategy = match prepared.result {
            Ok(strategy) => strategy,
            Err(error) => {
                self.notice = Some(Notice {
                    text: format!("Seams could not be prepared again: {error}"),
                    error: true,
                });
                return;
            }
        };
        let Some(run) = &mut self.evaluation.run else {
            return;
        };
        match run
            .strategies
            .iter_mut()
            .find(|s| matches!(s.strategy, Strategy::Seams { .. }))
        {
            Some(slot) => *slot = strategy,
            None => run.strategies.push(strategy),
        }
        self.rescore_eval(Rescore::Seams);
    }

    /// Score the kept searches again under the sliders' `m` and budget: no model, no index.
    pub(super) fn rescore_eval(&mut self, which: Rescore) {
        let settings = self.eval_settings();
        let Some(run) = &self.evaluation.run else {
            return;
        };
        let rows = &mut self.evaluation.rows;
        let outcomes = |rows: &[GridRow]| -> Vec<(String, Vec<bool>)> {
            rows.iter()
                .map(|r| (r.label.clone(), r.failed.clone()))
                .collect()
        };
        let before = outcomes(rows);
        rows.truncate(run.strategies.len());
        for (i, strategy) in run.strategies.iter().enumerate() {
            let seams = matches!(strategy.strategy, Strategy::Seams { .. });
            if which == Rescore::Seams && !seams && i < rows.len() {
                continue;
            }
            let row = strategy.row(&run.open.layout, &run.questions, &settings);
            match rows.get_mut(i) {
                Some(slot) => *slot = row,
                None => rows.push(row),
            }
        }
        // The verdict depends only on which questions each row failed: a slider step that
        // changes no outcome keeps it rather than drawing 10,000 resamples again.
        if self.evaluation.verdict.is_none() || outcomes(&self.evaluation.rows) != before {
            self.evaluation.verdict = rows_verdict(&self.evaluation.rows);
        }
    }

    /// `k` moved: Seams are prepared again at the new `k` (or a running comparison restarts).
    pub(super) fn eval_k_moved(&mut self) {
        let k = self.sliders.k;
        let grid_running = self
            .jobs
            .eval
            .in_flight()
            .is_some_and(|job| job.what == EvalJobKind::Grid);
        if grid_running {
            self.run_evaluation();
        } else if self.evaluation.run.is_some() {
            let grid = self.eval_settings();
            self.jobs.start_seams(grid, k);
        }
    }
}
