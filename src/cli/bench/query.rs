//! `seamscope bench query`: (a) re-planning after an `m` change on a 300-entry fused list, and
//! (b) a full query's time as a ratio to embedding the question alone.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use seamscope::chunk::ChunkId;
use seamscope::embed::embed_one;
use seamscope::eval::questions::load_questions;
use seamscope::retrieve::{
    EntryRef, FusedEntry, Lookups, QueryInput, QuerySettings, RankingInput, RerankInput, replan,
};
use seamscope::seam::SeamId;

use super::super::GlobalArgs;
use super::super::common::start_engine;

#[derive(Debug, Serialize)]
struct QueryBench {
    replan_entries: usize,
    replan_runs: usize,
    replan_mean_us: f64,
    replan_max_us: f64,
    questions: usize,
    embed_mean_ms: f64,
    query_mean_ms: f64,
    query_to_embed_ratio: f64,
    search_mean_ms: f64,
    stages_mean_ms: f64,
}

/// A fused ranking of 200 chunks and 100 seams, interleaved, with some linked chunks absent.
fn synthetic_ranking() -> (Vec<FusedEntry>, impl Fn(SeamId) -> (ChunkId, ChunkId)) {
    let mut fused = Vec::with_capacity(300);
    for i in 0..300u32 {
        let entry = if i % 3 == 1 {
            EntryRef::Seam(SeamId(i / 3))
        } else {
            EntryRef::Chunk(ChunkId((i * 7919) % 400))
        };
        fused.push(FusedEntry::given(entry));
    }
    let links = |s: SeamId| (ChunkId((s.0 * 13) % 400), ChunkId((s.0 * 13 + 1) % 400));
    (fused, links)
}

/// Run the query benchmark on `corpus` and print it.
pub fn run(global: &GlobalArgs, corpus: &Path, json: bool) -> anyhow::Result<()> {
    // (a) Pure re-planning: the work behind the m slider.
    let (fused, links) = synthetic_ranking();
    let tokens = |_: ChunkId| 1024u32;
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let input = QueryInput {
        question: "synthetic".into(),
        ranking: RankingInput::Fused(fused),
        chunks_only: None,
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    };
    let runs = 2000;
    let mut total = 0.0;
    let mut max: f64 = 0.0;
    for i in 0..runs {
        let settings = QuerySettings {
            m: (i % 8) as u32,
            budget: 5 + i % 15,
            ..QuerySettings::default()
        };
        let t = Instant::now();
        black_box(replan(&input, &settings, &lookups)?);
        let us = t.elapsed().as_secs_f64() * 1e6;
        total += us;
        max = max.max(us);
    }

    // (b) Full queries against embedding the question alone.
    let settings = global.settings()?;
    let mut engine = start_engine(settings.clone())?;
    let open = engine.open_corpus(corpus, &mut |_| true)?;
    let questions: Vec<String> = match load_questions(&corpus.join("questions.jsonl"), &open.corpus)
    {
        Ok(q) => q.into_iter().map(|q| q.question).collect(),
        Err(_) => vec![
            "What does the system do when a region is unreachable?".into(),
            "Which records must stay strongly consistent?".into(),
        ],
    };
    let qs = settings.query_settings();
    // Warm up both paths once.
    embed_one(&mut engine.embedder, &engine.tokenizer, &questions[0])?;
    engine.ask(&open, &questions[0], &qs)?;
    let (mut embed, mut query, mut search, mut stages) = (0.0, 0.0, 0.0, 0.0);
    for q in &questions {
        let t = Instant::now();
        black_box(embed_one(&mut engine.embedder, &engine.tokenizer, q)?);
        embed += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (_, timings) = engine.ask(&open, q, &qs)?;
        query += t.elapsed().as_secs_f64();
        search += timings.search;
        stages += timings.stages;
    }
    let n = questions.len() as f64;
    let report = QueryBench {
        replan_entries: 300,
        replan_runs: runs,
        replan_mean_us: total / runs as f64,
        replan_max_us: max,
        questions: questions.len(),
        embed_mean_ms: embed / n * 1e3,
        query_mean_ms: query / n * 1e3,
        query_to_embed_ratio: query / embed,
        search_mean_ms: search / n * 1e3,
        stages_mean_ms: stages / n * 1e3,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "replan after an m change   300-entry fused list: mean {:.1} µs, max {:.1} µs over {} runs (target < 1 ms)",
            report.replan_mean_us, report.replan_max_us, runs
        );
        println!(
            "full query                 {:.2} ms mean over {} questions (embed {:.2} ms, search {:.2} ms, stages {:.3} ms)",
            report.query_mean_ms,
            report.questions,
            report.embed_mean_ms,
            report.search_mean_ms,
            report.stages_mean_ms
        );
        println!(
            "query / embedding alone    {:.2}x (target <= 2x)",
            report.query_to_embed_ratio
        );
    }
    Ok(())
}
