//! `seamscope bench ingest`: ingest speed, and the pipeline's overhead over calling the model directly.
//!
//! Both runs embed exactly the same model windows in the same slices: the windows of every distinct
//! search text (the pipeline embeds a repeated text once, so the direct run does too). The
//! pipeline run adds tokenizing, chunking, seam building, the vector cache and writing every
//! index. The two runs alternate which goes first, over several rounds, and the spread is
//! reported: the machine is shared and noisy.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use seamscope::corpus::Corpus;
use seamscope::embed::device::{Device, DevicePlan, DeviceReport};
use seamscope::embed::model::ModelEmbedder;
use seamscope::embed::{Embedder, cosine, plan_windows};
use seamscope::layout::Layout;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::settings::Settings;

use super::super::GlobalArgs;
use super::super::common::start_engine;
use super::Spread;

/// Rounds of the two runs (at least 3, so a median means something).
const ROUNDS: usize = 3;

#[derive(Debug, Serialize)]
struct BenchReport {
    corpus: String,
    documents: usize,
    corpus_tokens: usize,
    chunks: usize,
    seams: usize,
    /// Distinct search texts embedded (repeats are embedded once by both runs).
    distinct_texts: usize,
    model_windows: usize,
    model_tokens: usize,
    rounds: usize,
    direct_seconds: Spread,
    direct_tokens_per_second: f64,
    pipeline_seconds: Spread,
    pipeline_tokens_per_second: f64,
    corpus_tokens_per_second: f64,
    /// Pipeline over direct, from the medians.
    overhead_percent: f64,
    /// Pipeline over direct, from each run's fastest round.
    overhead_percent_best: f64,
    /// Where the model ran.
    device: Option<DeviceReport>,
    /// The embedder measured (model identity, or service model at its address).
    embedder: String,
    /// On a GPU: the same windows embedded on the CPU too, compared vector by vector.
    gpu_vs_cpu: Option<GpuCheck>,
}

/// GPU vectors against CPU vectors of the same windows (the vector cache serves both, so they
/// must agree).
#[derive(Debug, Serialize)]
struct GpuCheck {
    windows: usize,
    min_cosine: f32,
    mean_cosine: f32,
}

/// Windows compared between the GPU and the CPU.
const GPU_CHECK_WINDOWS: usize = 256;

/// Embed the first windows on the CPU as well (same runtime library, CPU provider) and compare.
fn gpu_vs_cpu(
    engine: &mut seamscope::session::Engine,
    pieces: &[&str],
    slice: usize,
) -> anyhow::Result<GpuCheck> {
    let runtime = engine
        .embedder
        .local_model()
        .map(|m| m.runtime_path().to_path_buf())
        .ok_or_else(|| anyhow::anyhow!("the GPU check needs a local model"))?;
    let plan = DevicePlan::Cpu {
        runtime,
        note: None,
    };
    let settings = &engine.settings;
    let mut cpu = ModelEmbedder::load_on(
        &engine.places.model_dir,
        &plan,
        Device::Cpu,
        settings.model_max_tokens,
        settings.embed_batch,
    )?;
    let sample = &pieces[..pieces.len().min(GPU_CHECK_WINDOWS)];
    let (mut min, mut sum) = (f32::INFINITY, 0.0);
    for part in sample.chunks(slice.max(1)) {
        let gpu = engine.embedder.embed(part)?;
        for (g, c) in gpu.iter().zip(cpu.embed(part)?) {
            let cos = cosine(g, &c);
            min = min.min(cos);
            sum += cos;
        }
    }
    Ok(GpuCheck {
        windows: sample.len(),
        min_cosine: min,
        mean_cosine: sum / sample.len().max(1) as f32,
    })
}

/// The distinct texts in first-seen order: what the pipeline hands the model.
fn distinct<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    texts.into_iter().filter(|t| seen.insert(*t)).collect()
}

/// The exact windows the pipeline hands the model (those of each distinct search text): the
/// distinct texts, the windows' text and their tokens.
fn model_windows(
    engine: &Engine,
    corpus: &Corpus,
    layout: &Layout,
) -> anyhow::Result<(usize, Vec<String>, usize)> {
    let window = engine
        .embedder
        .max_tokens()
        .saturating_sub(engine.tokenizer.special_tokens())
        .max(1);
    let (chunk_texts, seam_texts) = layout.search_texts(corpus);
    let texts = distinct(
        chunk_texts
            .iter()
            .chain(seam_texts.iter())
            .map(|t| t.as_ref()),
    );
    let mut pieces: Vec<String> = Vec::new();
    let mut model_tokens = 0;
    for text in &texts {
        let offsets = engine.tokenizer.offsets(text)?;
        for span in plan_windows(&offsets, text.len(), window) {
            model_tokens += offsets.count_in(span.start, span.end);
            pieces.push(text[span.start..span.end].to_string());
        }
    }
    Ok((texts.len(), pieces, model_tokens))
}

/// [`ROUNDS`] rounds of direct model calls and of the full pipeline on an empty cache, in
/// alternating order; their seconds and the last pipeline run's open corpus.
fn rounds(
    engine: &mut Engine,
    corpus: &Corpus,
    settings: &Settings,
    pieces: &[&str],
) -> anyhow::Result<(Vec<f64>, Vec<f64>, OpenCorpus)> {
    let (mut direct, mut pipeline) = (Vec::new(), Vec::new());
    let mut last = None;
    for round in 1..=ROUNDS {
        // Alternate which run goes first, so neither always meets a warmer (or busier) machine.
        let direct_first = round % 2 == 1;
        for run_direct in [direct_first, !direct_first] {
            if run_direct {
                errln!("bench: round {round} of {ROUNDS}: direct model calls ...");
                let t0 = Instant::now();
                for slice in pieces.chunks(settings.embed_slice) {
                    engine.embedder.embed(slice)?;
                }
                direct.push(t0.elapsed().as_secs_f64());
                errln!(
                    "bench: round {round}: direct {:.2} s",
                    t0.elapsed().as_secs_f64()
                );
                continue;
            }
            errln!("bench: round {round} of {ROUNDS}: full pipeline with an empty cache ...");
            let scratch = tempfile::tempdir()?;
            engine.places.cache_dir = scratch.path().to_path_buf();
            let t1 = Instant::now();
            let layout = Layout::for_settings(corpus, &engine.tokenizer, settings)?;
            let open = engine.index_layout(corpus.clone(), layout, &mut |_| true)?;
            pipeline.push(t1.elapsed().as_secs_f64());
            errln!(
                "bench: round {round}: pipeline {:.2} s",
                t1.elapsed().as_secs_f64()
            );
            anyhow::ensure!(!open.report.reopened, "the scratch cache was not empty");
            let windows = open.report.chunk_embedding.windows + open.report.seam_embedding.windows;
            anyhow::ensure!(
                windows == pieces.len(),
                "the pipeline ran {windows} model windows and the direct run {}: they must embed the same texts",
                pieces.len()
            );
            last = Some(open);
        }
    }
    let open = last.ok_or_else(|| anyhow::anyhow!("no benchmark round ran"))?;
    Ok((direct, pipeline, open))
}

/// Run the benchmark and print its figures.
pub fn run(global: &GlobalArgs, corpus_path: &Path, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let mut engine = start_engine(settings.clone())?;
    let corpus = Corpus::load(corpus_path, &seamscope::places::load_options(&settings))?;
    let layout = Layout::for_settings(&corpus, &engine.tokenizer, &settings)?;
    let (distinct_texts, pieces, model_tokens) = model_windows(&engine, &corpus, &layout)?;
    errln!(
        "bench: {} documents, {} chunks, {} seams, {} distinct texts, {} model windows ({} tokens)",
        corpus.documents.len(),
        layout.chunks.len(),
        layout.seams.len(),
        distinct_texts,
        pieces.len(),
        model_tokens
    );
    // Warm the model so neither run pays for first-call setup.
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    engine.embedder.embed(&pieces[..pieces.len().min(16)])?;
    let (direct, pipeline, open) = rounds(&mut engine, &corpus, &settings, &pieces)?;
    let device = engine.embedder.device().cloned();
    let gpu_check = if device.as_ref().is_some_and(|d| d.used == Device::Cuda) {
        errln!("bench: embedding the first windows on the CPU too, to compare ...");
        Some(gpu_vs_cpu(&mut engine, &pieces, settings.embed_slice)?)
    } else {
        None
    };
    let (direct, pipeline) = (Spread::of(&direct), Spread::of(&pipeline));

    let corpus_tokens = open.layout.total_tokens();
    let report = BenchReport {
        corpus: corpus_path.display().to_string(),
        documents: open.corpus.documents.len(),
        corpus_tokens,
        chunks: open.layout.chunks.len(),
        seams: open.layout.seams.len(),
        distinct_texts,
        model_windows: pieces.len(),
        model_tokens,
        rounds: ROUNDS,
        direct_seconds: direct,
        direct_tokens_per_second: model_tokens as f64 / direct.median,
        pipeline_seconds: pipeline,
        pipeline_tokens_per_second: model_tokens as f64 / pipeline.median,
        corpus_tokens_per_second: corpus_tokens as f64 / pipeline.median,
        overhead_percent: (pipeline.median / direct.median - 1.0) * 100.0,
        overhead_percent_best: (pipeline.min / direct.min - 1.0) * 100.0,
        device,
        embedder: engine.embedder.describe(),
        gpu_vs_cpu: gpu_check,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    print_report(&report)
}

/// The figures as text.
fn print_report(report: &BenchReport) -> anyhow::Result<()> {
    let seconds = |s: &Spread| {
        format!(
            "median {:.2} s (min {:.2}, max {:.2})",
            s.median, s.min, s.max
        )
    };
    outln!(
        "corpus              {} ({} documents, {} tokens)",
        report.corpus,
        report.documents,
        report.corpus_tokens
    )?;
    outln!(
        "model work          {} distinct texts, {} windows, {} tokens; {} rounds, alternating which run goes first",
        report.distinct_texts,
        report.model_windows,
        report.model_tokens,
        ROUNDS
    )?;
    outln!(
        "direct model calls  {}  ({:.0} tokens/s at the median)",
        seconds(&report.direct_seconds),
        report.direct_tokens_per_second
    )?;
    outln!(
        "full pipeline       {}  ({:.0} model tokens/s, {:.0} corpus tokens/s at the median)",
        seconds(&report.pipeline_seconds),
        report.pipeline_tokens_per_second,
        report.corpus_tokens_per_second
    )?;
    outln!(
        "pipeline overhead   {:+.1}% at the median, {:+.1}% best against best (target <= 10%)",
        report.overhead_percent,
        report.overhead_percent_best
    )?;
    outln!(
        "embedder            {}",
        seamscope::text::safe_name(&report.embedder)
    )?;
    if let Some(device) = &report.device {
        outln!("device              {}", device.line())?;
    }
    if let Some(g) = &report.gpu_vs_cpu {
        outln!(
            "gpu vs cpu          {} windows: cosine min {:.5}, mean {:.5} (target >= 0.999)",
            g.windows,
            g.min_cosine,
            g.mean_cosine
        )?;
    }
    Ok(())
}
