//! The worker's measuring jobs: calibrating `m`, and the strategy comparison with its searches
//! kept so the screen can score them again when `m` or the budget moves. Both report progress at
//! most every 100 ms, stop when their generation is no longer the newest, and never reply when
//! superseded.

use std::sync::Arc;

use seamscope::calibrate::{
    CalibrateOptions, CalibrationReport, CalibrationSource, KeywordQuestions,
};
use seamscope::eval::grid::GridSettings;
use seamscope::eval::questions::{Question, load_questions};
use seamscope::eval::rescore::SearchedStrategy;
use seamscope::eval::run::{SearchProgress, embed_questions, search_strategies};
use seamscope::eval::strategy::Strategy;
use seamscope::retrieve::QuerySettings;
use seamscope::session::OpenCorpus;
use seamscope::tune::{TuneProgress, TuneRow, calibration_questions, scan_k};

use super::Worker;
use super::job::Job;
use crate::tui::action::{Action, CalibrationAction};
use crate::tui::background::{Calibrated, EvalProblem, EvalRun};
use crate::tui::layout_params::LayoutParams;

/// What the last evaluation ran on: enough to prepare Seams again at another `k`.
pub struct EvalBase {
    open: Arc<OpenCorpus>,
    params: LayoutParams,
    questions: Arc<Vec<Question>>,
    vectors: Arc<Vec<Vec<f32>>>,
}

// The screen names the corpus' question set through here; its one home is the engine.
pub use seamscope::corpus::questions_path;

/// The quick board's other strategies on the questions `report` scored, when Seams fails fewer
/// of them than chunks only; `None` when it does not, or when a newer request stopped it.
fn alternatives(
    engine: &mut seamscope::session::Engine,
    open: &OpenCorpus,
    report: &CalibrationReport,
    gold: Option<&[Question]>,
    job: &mut Job<'_>,
) -> Result<Option<seamscope::calibrate::Alternatives>, String> {
    let mut report_progress = |p: SearchProgress<'_>| {
        if let SearchProgress::Preparing {
            index,
            count,
            label,
        } = p
        {
            let what = format!("beside Seams: {}", seamscope::text::safe(label));
            job.report(&what, index, count);
        }
        matches!(p, SearchProgress::Embedding { .. }) || job.current()
    };
    seamscope::board::alternative::beside_seams(engine, open, report, gold, &mut report_progress)
        .map_err(|e| e.to_string())
}

/// A calibration's report, its k scan, and the gold questions it was measured on (if any).
type Calibration = (Arc<CalibrationReport>, Vec<TuneRow>, Option<Vec<Question>>);

impl Worker<'_> {
    /// The corpus to measure on: the newest layout, once its vectors are in (a measurement
    /// compares dense searches, so a keyword-only corpus cannot stand in for it).
    pub(super) fn shown(&self) -> Result<(LayoutParams, Arc<OpenCorpus>), &'static str> {
        match &self.current {
            None => Err("the corpus is not open yet"),
            Some((_, _, open)) if !open.indexes.dense_ready() => Err(
                "the vectors are still being embedded: measure once the top line's progress ends",
            ),
            Some((_, params, open)) => Ok((*params, Arc::clone(open))),
        }
    }

    /// Calibrate `m` on the current layout (on the corpus' gold question set when there is one
    /// and `gold` asks for it, else on sampled passages), then scan `k` on the same questions.
    /// The report goes out first ([`Calibrated::partial`]); then the quick board's other
    /// strategies beside Seams (on a cold vector cache they embed overlapping chunks and
    /// windows, which takes a while), the job's result.
    pub(super) fn calibrate(
        &mut self,
        job: &mut Job<'_>,
        query: QuerySettings,
        gold: bool,
    ) -> Result<Option<Arc<CalibrationReport>>, String> {
        let (report, k_scan, gold_questions) = self.calibrate_on_shown(job, query, gold)?;
        job.send_partial(Action::Calibration(CalibrationAction::Done(Box::new(
            Calibrated {
                generation: job.generation(),
                result: Ok(Arc::clone(&report)),
                k_scan,
                partial: true,
            },
        ))));
        job.now_doing("scoring the other strategies");
        self.alternatives_beside(job, &report, gold_questions.as_deref())
            .map(Some)
    }

    /// `report` with the quick board's other strategies scored on its questions beside it.
    fn alternatives_beside(
        &mut self,
        job: &mut Job<'_>,
        report: &CalibrationReport,
        gold_questions: Option<&[Question]>,
    ) -> Result<Arc<CalibrationReport>, String> {
        let (_, open) = self.shown()?;
        let engine = self.engine.as_mut().ok_or("the model is not loaded")?;
        let mut report = report.clone();
        report.alternatives = alternatives(engine, &open, &report, gold_questions, job)?;
        Ok(Arc::new(report))
    }

    fn calibrate_on_shown(
        &mut self,
        job: &mut Job<'_>,
        query: QuerySettings,
        gold: bool,
    ) -> Result<Calibration, String> {
        let (params, open) = self.shown()?;
        let path = questions_path(&self.setup.corpus);
        let gold_questions = if gold && path.is_file() {
            let questions = load_questions(&path, &open.corpus).map_err(|errors| {
                let first: Vec<String> = errors.iter().take(3).map(|e| e.to_string()).collect();
                format!(
                    "{} has {} problem(s): {} (g calibrates on sampled passages instead)",
                    path.display(),
                    errors.len(),
                    first.join("; ")
                )
            })?;
            Some(questions)
        } else {
            None
        };
        let engine = self.engine.as_mut().ok_or("the model is not loaded")?;
        let query = QuerySettings {
            k: params.k as u32,
            ..query
        };
        let name = path.display().to_string();
        let (source, asking) = match &gold_questions {
            Some(questions) => (
                CalibrationSource::Gold {
                    name: &name,
                    questions,
                },
                "asking the gold questions",
            ),
            None => (
                CalibrationSource::Sampled(&mut KeywordQuestions),
                "asking questions",
            ),
        };
        let options = CalibrateOptions {
            query,
            ..CalibrateOptions::default()
        };
        let report = seamscope::calibrate::run(engine, &open, source, &options, &mut |p| {
            job.report(asking, p.done, p.total);
            job.current()
        })
        .map_err(|e| e.to_string())?;
        let questions = calibration_questions(&report, gold_questions.as_deref(), &open.corpus);
        let scanned = scan_k(
            engine,
            &open,
            (params.chunk_tokens, params.k),
            &query,
            &questions,
            &mut |p| {
                if let TuneProgress::Searching { k, done, total, .. } = p {
                    job.report(&format!("scanning k = {k}"), done, total);
                }
                job.current()
            },
        )
        .map_err(|e| e.to_string())?
        .ok_or("calibration cancelled")?;
        Ok((Arc::new(report), scanned, gold_questions))
    }

    /// Run the comparison on the current layout's question set, keeping every search.
    pub(super) fn evaluate(
        &mut self,
        job: &mut Job<'_>,
        grid: GridSettings,
        k: usize,
    ) -> Result<Option<EvalRun>, EvalProblem> {
        let failed = |e: &dyn std::fmt::Display| EvalProblem::Failed(e.to_string());
        let (params, open) = self.shown().map_err(|why| failed(&why))?;
        let (path, questions) = self.question_set(&open)?;
        let grid = GridSettings {
            chunk_tokens: params.chunk_tokens,
            ..grid
        };
        let strategies = Strategy::grid(params.chunk_tokens, k, &[k]);
        let n = questions.len();
        let total = n * (strategies.len() + 1);
        let engine = self
            .engine
            .as_mut()
            .ok_or_else(|| failed(&"the model is not loaded"))?;
        let embedded = embed_questions(engine, &questions, &mut |done, _| {
            job.report(&format!("embedding question {done} of {n}"), done, total);
            job.current()
        });
        let Some(vectors) = embedded.map_err(|e| failed(&e))? else {
            return Ok(None);
        };
        let searched = search_strategies(
            engine,
            &open,
            &questions,
            &vectors,
            &strategies,
            &grid,
            &mut |p| {
                let (what, done, cancellable) = search_step(p, n);
                job.report(&what, done, total);
                !cancellable || job.current()
            },
        );
        let Some(searched) = searched.map_err(|e| failed(&e))? else {
            return Ok(None);
        };
        let questions = Arc::new(questions);
        self.eval_base = Some(EvalBase {
            open: Arc::clone(&open),
            params,
            questions: Arc::clone(&questions),
            vectors: Arc::new(vectors),
        });
        Ok(Some(EvalRun {
            open,
            params,
            questions_path: path,
            questions,
            settings: grid,
            strategies: searched,
        }))
    }

    /// The corpus' question set (`questions.jsonl`), read against the corpus shown: its path
    /// and questions, or why there is none to evaluate on.
    fn question_set(
        &self,
        open: &OpenCorpus,
    ) -> Result<(std::path::PathBuf, Vec<Question>), EvalProblem> {
        let path = questions_path(&self.setup.corpus);
        if !path.is_file() {
            return Err(EvalProblem::MissingQuestions(path));
        }
        let questions =
            load_questions(&path, &open.corpus).map_err(|errors| EvalProblem::BadQuestions {
                path: path.clone(),
                errors: errors.iter().map(|e| e.to_string()).collect(),
            })?;
        if questions.is_empty() {
            return Err(EvalProblem::Failed(format!(
                "{} holds no questions",
                path.display()
            )));
        }
        Ok((path, questions))
    }

    /// Prepare and search Seams again at `k` on the last evaluation's question set.
    pub(super) fn prepare_seams(
        &mut self,
        job: &mut Job<'_>,
        k: usize,
        grid: GridSettings,
    ) -> Result<Option<SearchedStrategy>, String> {
        let base = self
            .eval_base
            .as_ref()
            .ok_or("no evaluation to update: press r to run one")?;
        let (open, questions, vectors) = (
            Arc::clone(&base.open),
            Arc::clone(&base.questions),
            Arc::clone(&base.vectors),
        );
        let grid = GridSettings {
            chunk_tokens: base.params.chunk_tokens,
            ..grid
        };
        let engine = self.engine.as_mut().ok_or("the model is not loaded")?;
        let strategy = Strategy::Seams { k };
        let label = strategy.label(grid.chunk_tokens);
        let what = format!("{label}: searching");
        let searched = search_strategies(
            engine,
            &open,
            &questions,
            &vectors,
            &[strategy],
            &grid,
            &mut |p| match p {
                SearchProgress::Preparing { .. } => {
                    job.report(&format!("{label}: embedding its seams"), 0, questions.len());
                    true
                }
                SearchProgress::Embedding { .. } => true,
                SearchProgress::Searching { done, total, .. } => {
                    job.report(&what, done, total);
                    job.current()
                }
            },
        );
        searched
            .map(|s| s.and_then(|mut s| s.pop()))
            .map_err(|e| e.to_string())
    }
}

/// A strategy search's step for the progress bar, with `n` questions per strategy: what it is
/// doing, how many of the run's steps are done, and whether a cancel may stop it here (between
/// questions).
fn search_step(p: SearchProgress, n: usize) -> (String, usize, bool) {
    match p {
        SearchProgress::Preparing {
            index,
            count,
            label,
        } => (
            format!(
                "strategy {} of {count} ({label}): embedding its texts",
                index + 1
            ),
            n * (index + 1),
            false,
        ),
        SearchProgress::Embedding {
            index,
            count,
            label,
            part,
            progress: p,
        } => (
            format!(
                "strategy {} of {count} ({label}): embedding its {part}, {} of {} tokens",
                index + 1,
                crate::tui::widgets::gauge::thousands(p.done_tokens),
                crate::tui::widgets::gauge::thousands(p.total_tokens)
            ),
            n * (index + 1),
            false,
        ),
        SearchProgress::Searching {
            index,
            count,
            label,
            done,
            ..
        } => (
            format!(
                "strategy {} of {count} ({label}): question {done} of {n}",
                index + 1
            ),
            n * (index + 1) + done,
            true,
        ),
    }
}
