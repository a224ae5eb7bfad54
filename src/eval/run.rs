//! Running a question set: search once per question, then score any number of settings from the
//! cached searches (the stages after search are pure and instant).

use serde::Serialize;

use super::metrics::{Outcome, baseline_outcome, outcome};
use super::questions::Question;
use crate::retrieve::{QuerySettings, Trace};
use crate::session::{Engine, EngineError, OpenCorpus};

/// One question with its search done.
#[derive(Debug, Clone)]
pub struct Searched {
    /// The question.
    pub question: Question,
    /// Its trace under the settings it was searched with; `replan` gives any other.
    pub trace: Trace,
}

/// Search every question once (depth from `settings`).
pub fn search_all(
    engine: &mut Engine,
    open: &OpenCorpus,
    questions: &[Question],
    settings: &QuerySettings,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Searched>, EngineError> {
    let mut out = Vec::with_capacity(questions.len());
    for (i, q) in questions.iter().enumerate() {
        let (trace, _) = engine.ask(open, &q.question, settings)?;
        out.push(Searched {
            question: q.clone(),
            trace,
        });
        progress(i + 1, questions.len());
    }
    Ok(out)
}

/// Aggregate figures for one strategy over a question set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// What was measured, e.g. `Seams k=150 m=3`.
    pub label: String,
    /// Questions scored.
    pub questions: usize,
    /// Share of questions whose evidence the context did not fully hold (1 - recall@budget).
    pub failure_rate: f64,
    /// Failure rate over `boundary` questions.
    pub failure_rate_boundary: f64,
    /// Failure rate over `inside` and `edge` questions.
    pub failure_rate_inside: f64,
    /// Mean tokens sent per answer.
    pub mean_tokens: f64,
    /// Seam firings reached by the budget fill, per question.
    pub fires_per_question: f64,
    /// Share of firings whose evidence lies wholly inside one chunk (or elsewhere).
    pub false_fire_rate: f64,
    /// Share of firings where one added chunk holds none of the evidence.
    pub waste_rate: f64,
}

fn rate(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// Summarise outcomes (same order as `questions`).
pub fn summarize(label: String, questions: &[&Question], outcomes: &[Outcome]) -> Summary {
    let failed = |filter: &dyn Fn(&Question) -> bool| -> (usize, usize) {
        let pairs: Vec<_> = questions
            .iter()
            .zip(outcomes)
            .filter(|(q, _)| filter(q))
            .collect();
        (
            pairs.iter().filter(|(_, o)| !o.answered).count(),
            pairs.len(),
        )
    };
    let (f_all, n_all) = failed(&|_| true);
    let (f_b, n_b) = failed(&|q| q.has_tag("boundary"));
    let (f_i, n_i) = failed(&|q| q.has_tag("inside") || q.has_tag("edge"));
    let fires: usize = outcomes.iter().map(|o| o.fires).sum();
    Summary {
        label,
        questions: n_all,
        failure_rate: rate(f_all, n_all),
        failure_rate_boundary: rate(f_b, n_b),
        failure_rate_inside: rate(f_i, n_i),
        mean_tokens: outcomes.iter().map(|o| o.tokens_sent as f64).sum::<f64>()
            / n_all.max(1) as f64,
        fires_per_question: rate(fires, n_all),
        false_fire_rate: rate(outcomes.iter().map(|o| o.false_fires).sum(), fires),
        waste_rate: rate(outcomes.iter().map(|o| o.wasted_fires).sum(), fires),
    }
}

/// Score Seams under `settings`, and the chunks-only baseline, from cached searches.
pub fn score(
    open: &OpenCorpus,
    searched: &[Searched],
    settings: &QuerySettings,
) -> Result<(Summary, Summary), EngineError> {
    let mut seams = Vec::new();
    let mut base = Vec::new();
    for s in searched {
        let trace = open.replan(&s.trace, settings)?;
        seams.push(outcome(&s.question, &trace, &open.layout));
        if let Some(b) = baseline_outcome(&s.question, &trace, &open.layout) {
            base.push(b);
        }
    }
    let qs: Vec<&Question> = searched.iter().map(|s| &s.question).collect();
    Ok((
        summarize(
            format!("Seams k={} m={}", settings.k, settings.m),
            &qs,
            &seams,
        ),
        summarize("chunks only".to_string(), &qs, &base),
    ))
}
