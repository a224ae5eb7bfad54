//! `seamscope bench ingest`: ingest speed, and the pipeline's overhead over calling the model directly.
//!
//! Both runs embed exactly the same model windows in the same slices; the pipeline run adds
//! tokenizing, chunking, seam building, the vector cache and writing every index.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use seamscope::chunk::fixed::FixedTokens;
use seamscope::corpus::Corpus;
use seamscope::embed::{Embedder, plan_windows};
use seamscope::layout::Layout;

use super::super::GlobalArgs;
use super::super::common::start_engine;

#[derive(Debug, Serialize)]
struct BenchReport {
    corpus: String,
    documents: usize,
    corpus_tokens: usize,
    chunks: usize,
    seams: usize,
    model_windows: usize,
    model_tokens: usize,
    direct_seconds: f64,
    direct_tokens_per_second: f64,
    pipeline_seconds: f64,
    pipeline_tokens_per_second: f64,
    corpus_tokens_per_second: f64,
    overhead_percent: f64,
}

/// Run the benchmark and print its figures.
pub fn run(global: &GlobalArgs, corpus_path: &Path, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let mut engine = start_engine(settings.clone())?;
    let corpus = Corpus::load(corpus_path, &settings.load_options())?;
    let chunker = FixedTokens {
        tokens: settings.chunk_tokens,
    };
    let layout = Layout::build(&corpus, &engine.tokenizer, &chunker, settings.k)?;

    // The exact windows the pipeline hands the model.
    let window = settings
        .model_max_tokens
        .saturating_sub(engine.tokenizer.special_tokens());
    let mut pieces: Vec<String> = Vec::new();
    let mut model_tokens = 0;
    for text in layout
        .chunk_texts(&corpus)
        .into_iter()
        .chain(layout.seam_texts(&corpus))
    {
        let offsets = engine.tokenizer.offsets(text)?;
        for span in plan_windows(&offsets, text.len(), window) {
            model_tokens += offsets.count_in(span.start, span.end);
            pieces.push(text[span.start..span.end].to_string());
        }
    }
    eprintln!(
        "bench: {} documents, {} chunks, {} seams, {} model windows ({} tokens)",
        corpus.documents.len(),
        layout.chunks.len(),
        layout.seams.len(),
        pieces.len(),
        model_tokens
    );
    // Warm the model so neither run pays for first-call setup.
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    engine.embedder.embed(&pieces[..pieces.len().min(16)])?;

    // Alternate the two runs and keep each one's best time: the machine is shared and noisy.
    let rounds = 2;
    let (mut direct, mut pipeline) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    for round in 1..=rounds {
        eprintln!("bench: round {round} of {rounds}: direct model calls ...");
        let t0 = Instant::now();
        for slice in pieces.chunks(settings.embed_slice) {
            engine.embedder.embed(slice)?;
        }
        direct = direct.min(t0.elapsed().as_secs_f64());

        eprintln!("bench: round {round} of {rounds}: full pipeline with an empty cache ...");
        let scratch = tempfile::tempdir()?;
        engine.places.cache_dir = scratch.path().to_path_buf();
        let t1 = Instant::now();
        let layout = Layout::build(&corpus, &engine.tokenizer, &chunker, settings.k)?;
        let open = engine.index_layout(corpus.clone(), layout, &mut |_| true)?;
        pipeline = pipeline.min(t1.elapsed().as_secs_f64());
        anyhow::ensure!(!open.report.reopened, "the scratch cache was not empty");
        last = Some(open);
    }
    let open = last.ok_or_else(|| anyhow::anyhow!("no benchmark round ran"))?;

    let corpus_tokens = open.layout.total_tokens();
    let report = BenchReport {
        corpus: corpus_path.display().to_string(),
        documents: open.corpus.documents.len(),
        corpus_tokens,
        chunks: open.layout.chunks.len(),
        seams: open.layout.seams.len(),
        model_windows: pieces.len(),
        model_tokens,
        direct_seconds: direct,
        direct_tokens_per_second: model_tokens as f64 / direct,
        pipeline_seconds: pipeline,
        pipeline_tokens_per_second: model_tokens as f64 / pipeline,
        corpus_tokens_per_second: corpus_tokens as f64 / pipeline,
        overhead_percent: (pipeline / direct - 1.0) * 100.0,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "corpus              {} ({} documents, {} tokens)",
            report.corpus, report.documents, corpus_tokens
        );
        println!(
            "model work          {} windows, {} tokens",
            report.model_windows, model_tokens
        );
        println!(
            "direct model calls  {:.2} s  ({:.0} tokens/s)",
            direct, report.direct_tokens_per_second
        );
        println!(
            "full pipeline       {:.2} s  ({:.0} model tokens/s, {:.0} corpus tokens/s)",
            pipeline, report.pipeline_tokens_per_second, report.corpus_tokens_per_second
        );
        println!(
            "pipeline overhead   {:+.1}% (target <= 10%)",
            report.overhead_percent
        );
    }
    Ok(())
}
