//! `seamscope bench query`: (a) re-planning after an `m`, budget or `c` change, from the real
//! query inputs `Engine::ask` leaves (search lists with seams and the chunks-only lists, so every
//! run fuses both sides and fills both budgets, as a slider move does), and (b) a full query's
//! time as a ratio to embedding the question alone.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use seamscope::corpus::Corpus;
use seamscope::embed::embed_one;
use seamscope::retrieve::{QueryInput, QuerySettings, replan};
use seamscope::session::{Engine, OpenCorpus};

use super::super::GlobalArgs;
use super::super::common::{load_question_file, start_engine};
use super::Spread;

/// Questions used when the corpus has no `questions.jsonl`.
const BUILT_IN_QUESTIONS: [&str; 2] = [
    "What does the system do when a region is unreachable?",
    "Which records must stay strongly consistent?",
];

/// Re-plans timed per kind of change.
const REPLAN_RUNS: usize = 600;

/// One kind of slider move, timed.
#[derive(Debug, Serialize)]
struct ReplanBench {
    /// What changed between consecutive runs: `m`, `budget` or `c`.
    change: &'static str,
    runs: usize,
    mean_us: f64,
    median_us: f64,
    min_us: f64,
    max_us: f64,
}

#[derive(Debug, Serialize)]
struct QueryBench {
    questions: usize,
    questions_from: String,
    /// Mean entries of the fused Seams ranking each re-plan builds.
    fused_entries_mean: f64,
    /// Mean entries of the fused chunks-only ranking each re-plan builds.
    chunks_only_entries_mean: f64,
    replan: Vec<ReplanBench>,
    embed_mean_ms: f64,
    query_mean_ms: f64,
    query_to_embed_ratio: f64,
    search_mean_ms: f64,
    stages_mean_ms: f64,
}

/// The questions to time: the corpus' `questions.jsonl` when there is one (checked whole: a bad
/// or empty file is an error, not silently replaced), else a few built-in ones.
pub(super) fn bench_questions(
    corpus_path: &Path,
    corpus: &Corpus,
) -> anyhow::Result<(Vec<String>, String)> {
    let path = seamscope::corpus::questions_path(corpus_path);
    if !path.is_file() {
        errln!(
            "bench: no questions.jsonl in {}; timing {} built-in questions",
            corpus_path.display(),
            BUILT_IN_QUESTIONS.len()
        );
        let built_in = BUILT_IN_QUESTIONS.iter().map(|q| q.to_string()).collect();
        return Ok((built_in, "built-in".into()));
    }
    let questions = load_question_file(&path, corpus)?;
    let texts = questions.into_iter().map(|q| q.question).collect();
    Ok((texts, path.display().to_string()))
}

/// The slider a re-plan follows.
#[derive(Debug, Clone, Copy)]
enum Change {
    M,
    Budget,
    RrfC,
}

impl Change {
    fn label(self) -> &'static str {
        match self {
            Change::M => "m",
            Change::Budget => "budget",
            Change::RrfC => "c",
        }
    }

    /// The settings of run `i` when only this knob moves: consecutive runs always differ.
    fn moved(self, base: &QuerySettings, i: usize) -> QuerySettings {
        match self {
            Change::M => QuerySettings {
                m: (i % 8) as u32,
                ..*base
            },
            Change::Budget => QuerySettings {
                budget: 3 + i % 15,
                ..*base
            },
            Change::RrfC => QuerySettings {
                rrf_c: 30.0 + 15.0 * (i % 5) as f64,
                ..*base
            },
        }
    }
}

/// Run the query benchmark on `corpus` and print it.
pub fn run(global: &GlobalArgs, corpus: &Path, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let mut engine = start_engine(settings.clone())?;
    // The question file is checked before anything is indexed or embedded.
    let docs = engine.load_corpus(corpus)?;
    let (questions, questions_from) = bench_questions(corpus, &docs)?;
    let open = engine.open_loaded(docs, &mut |_| true)?;
    let qs = settings.query_settings();
    let times = time_queries(&mut engine, &open, &questions, &qs)?;
    let replans = time_replans(&open, &times.inputs, &qs)?;
    let n = questions.len() as f64;
    let report = QueryBench {
        questions: questions.len(),
        questions_from,
        fused_entries_mean: times.fused_entries as f64 / n,
        chunks_only_entries_mean: times.chunks_only_entries as f64 / n,
        replan: replans,
        embed_mean_ms: times.embed / n * 1e3,
        query_mean_ms: times.query / n * 1e3,
        query_to_embed_ratio: times.query / times.embed,
        search_mean_ms: times.search / n * 1e3,
        stages_mean_ms: times.stages / n * 1e3,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    print(&report)
}

/// Full queries timed against embedding the question alone (seconds, summed over the
/// questions), with each query's input kept for re-planning.
struct QueryTimes {
    embed: f64,
    query: f64,
    search: f64,
    stages: f64,
    fused_entries: usize,
    chunks_only_entries: usize,
    inputs: Vec<QueryInput>,
}

/// (b) Times each question's full query and its embedding alone, after one warm-up of each.
fn time_queries(
    engine: &mut Engine,
    open: &OpenCorpus,
    questions: &[String],
    qs: &QuerySettings,
) -> anyhow::Result<QueryTimes> {
    let first = questions
        .first()
        .ok_or_else(|| anyhow::anyhow!("no questions to time"))?;
    embed_one(&mut engine.embedder, &engine.tokenizer, first)?;
    engine.ask(open, first, qs)?;
    let mut times = QueryTimes {
        embed: 0.0,
        query: 0.0,
        search: 0.0,
        stages: 0.0,
        fused_entries: 0,
        chunks_only_entries: 0,
        inputs: Vec::with_capacity(questions.len()),
    };
    for q in questions {
        let t = Instant::now();
        black_box(embed_one(&mut engine.embedder, &engine.tokenizer, q)?);
        times.embed += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (trace, timings) = engine.ask(open, q, qs)?;
        times.query += t.elapsed().as_secs_f64();
        times.search += timings.search;
        times.stages += timings.stages;
        times.fused_entries += trace.fused.len();
        times.chunks_only_entries += trace
            .without_seams
            .retrieval
            .as_ref()
            .map_or(0, |r| r.fused.len());
        times.inputs.push(trace.input);
    }
    Ok(times)
}

/// (a) Times re-planning from the queries' inputs: everything a slider move redoes.
fn time_replans(
    open: &OpenCorpus,
    inputs: &[QueryInput],
    qs: &QuerySettings,
) -> anyhow::Result<Vec<ReplanBench>> {
    open.with_lookups(|lookups| {
        [Change::M, Change::Budget, Change::RrfC]
            .into_iter()
            .map(|change| {
                let mut samples = Vec::with_capacity(REPLAN_RUNS);
                for i in 0..REPLAN_RUNS {
                    let input = &inputs[i % inputs.len()];
                    let settings = change.moved(qs, i);
                    let t = Instant::now();
                    black_box(replan(input, &settings, lookups)?);
                    samples.push(t.elapsed().as_secs_f64() * 1e6);
                }
                let spread = Spread::of(&samples);
                Ok(ReplanBench {
                    change: change.label(),
                    runs: REPLAN_RUNS,
                    mean_us: spread.mean,
                    median_us: spread.median,
                    min_us: spread.min,
                    max_us: spread.max,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })
}

/// The query bench as lines of text.
fn print(report: &QueryBench) -> anyhow::Result<()> {
    outln!(
        "replan inputs              {} questions ({}): fused rankings of {:.0} entries with seams, {:.0} chunks only",
        report.questions,
        report.questions_from,
        report.fused_entries_mean,
        report.chunks_only_entries_mean
    )?;
    for r in &report.replan {
        outln!(
            "replan after a {:<7} move median {:.1} µs, mean {:.1} µs, min {:.1} µs, max {:.1} µs over {} runs (target < 1 ms)",
            format!("{} ", r.change),
            r.median_us,
            r.mean_us,
            r.min_us,
            r.max_us,
            r.runs
        )?;
    }
    outln!(
        "full query                 {:.2} ms mean over {} questions (embed {:.2} ms, search {:.2} ms, stages {:.3} ms)",
        report.query_mean_ms,
        report.questions,
        report.embed_mean_ms,
        report.search_mean_ms,
        report.stages_mean_ms
    )?;
    outln!(
        "query / embedding alone    {:.2}x (target <= 2x)",
        report.query_to_embed_ratio
    )?;
    Ok(())
}
