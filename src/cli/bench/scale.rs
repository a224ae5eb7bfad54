//! `seamscope bench scale`: what grows how with the corpus. Corpora of 1×, 4×, 16× the given one
//! (varied copies, see [`super::variants`]) are each indexed from cold in a scratch cache of
//! their own, by this binary as a child process, so its peak memory is that of a real `index`.
//! The screen's first frame (the documents pane drawn) is timed cold, in an empty cache, and
//! warm, reopening with the stored layouts (and, unless `--open-only`, the index) in place.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use seamscope::corpus::Corpus;
use seamscope::embed::embed_one;
use seamscope::index::vectors::SearchMode;
use seamscope::retrieve::QuerySettings;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::settings::Settings;

use super::super::GlobalArgs;
use super::super::common::start_engine;
use super::query::bench_questions;
use super::variants::write_copies;
use super::{Spread, percentile};

/// Neighbours compared between approximate and exact dense search.
const RECALL_AT: usize = 20;

/// What to run: the sizes, questions per size, and whether only the first frame is timed.
#[derive(Debug, Clone, Copy)]
pub struct ScalePlan<'a> {
    /// Corpus sizes, as copies of the corpus.
    pub sizes: &'a [usize],
    /// Questions timed per size.
    pub questions: usize,
    /// Time only the screen's first frame.
    pub open_only: bool,
}

/// How long one size waits for the screen before the bench gives up.
const FRAME_PATIENCE: Duration = Duration::from_secs(600);

/// The screen's first frame at one size, in seconds from its start.
#[derive(Debug, Serialize)]
struct FirstFrame {
    copies: usize,
    documents: usize,
    corpus_bytes: u64,
    /// From an empty cache: the documents pane drawn with the first documents.
    cold_seconds: f64,
    /// Every document laid out (cold): the list whole.
    cold_all_documents_seconds: f64,
    /// Reopened with the stored layouts (and the index, unless `--open-only`) in place.
    warm_seconds: f64,
    /// Every document in (warm).
    warm_all_documents_seconds: f64,
}

impl FirstFrame {
    /// The figures of one size: `(copies, documents, bytes)`, then the cold and warm
    /// [`first_frame`] timings (first documents, whole list).
    fn new(
        (copies, documents, corpus_bytes): (usize, usize, u64),
        cold: (f64, f64),
        warm: (f64, f64),
    ) -> FirstFrame {
        FirstFrame {
            copies,
            documents,
            corpus_bytes,
            cold_seconds: cold.0,
            cold_all_documents_seconds: cold.1,
            warm_seconds: warm.0,
            warm_all_documents_seconds: warm.1,
        }
    }
}

/// Figures for one corpus size.
#[derive(Debug, Serialize)]
struct ScaleRow {
    copies: usize,
    documents: usize,
    corpus_bytes: u64,
    tokens: usize,
    chunks: usize,
    seams: usize,
    /// Wall time of `index` from an empty cache, model load included.
    cold_index_seconds: f64,
    /// Tokens embedded per second of embedding.
    embed_tokens_per_second: f64,
    tokens_embedded: usize,
    /// Peak resident memory of the cold `index` process.
    cold_peak_rss_bytes: Option<u64>,
    index_bytes_on_disk: u64,
    /// Seconds of the cold build spent writing the vector and keyword indexes (what an edit
    /// costs beyond embedding its own texts: the indexes are written again from cached vectors).
    write_indexes_seconds: f64,
    /// Wall time of `index` reopening the verified index.
    warm_reopen_seconds: f64,
    warm_peak_rss_bytes: Option<u64>,
    /// Wall time of `index --k` with another `k` (only seams are embedded).
    k_change_seconds: f64,
    k_change_tokens_embedded: usize,
    questions: usize,
    /// One question through the whole pipeline, in milliseconds.
    query_ms: Spread,
    query_p95_ms: f64,
    /// Whether dense search is exact at this size (under `exact_search_limit`).
    search_mode: SearchMode,
    /// Mean share of the exact top 20 that HNSW also returns, chunks and seams together.
    hnsw_recall_at_20: f64,
}

#[derive(Debug, Serialize)]
struct ScaleReport {
    base_corpus: String,
    build: &'static str,
    first_frames: Vec<FirstFrame>,
    rows: Vec<ScaleRow>,
}

/// What one child `index` run printed and cost.
struct IndexRun {
    summary: serde_json::Value,
    seconds: f64,
    peak_rss: Option<u64>,
}

/// Each question asked on `open` (milliseconds), and the approximate search's recall@20 against
/// exact search over chunks and seams.
fn query_times(
    engine: &mut Engine,
    open: &OpenCorpus,
    questions: &[String],
    qs: &QuerySettings,
) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let mut times = Vec::new();
    let mut recall = Vec::new();
    for q in questions {
        let t0 = Instant::now();
        engine.ask(open, q, qs)?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        let v = embed_one(&mut engine.embedder, &engine.tokenizer, q)?;
        for index in [&open.indexes.chunk_vectors, &open.indexes.seam_vectors] {
            let exact = index.search(&v, RECALL_AT, SearchMode::Exact)?;
            let approx = index.search(&v, RECALL_AT, SearchMode::Approximate)?;
            if !exact.is_empty() {
                let found = exact
                    .iter()
                    .filter(|e| approx.iter().any(|a| a.0 == e.0))
                    .count();
                recall.push(found as f64 / exact.len() as f64);
            }
        }
    }
    Ok((times, recall))
}

/// The three child `index` runs of one size: cold, reopened (which must reopen), and at k + 10.
fn index_runs(
    global: &GlobalArgs,
    dir: &Path,
    cache: &Path,
    (copies, k): (usize, usize),
) -> anyhow::Result<(IndexRun, IndexRun, IndexRun)> {
    errln!("bench scale: {copies}x: indexing from cold ...");
    let cold = index_child(global, dir, cache, &[])?;
    errln!(
        "bench scale: {copies}x: cold {:.1} s; reopening, then k + 10 ...",
        cold.seconds
    );
    let warm = index_child(global, dir, cache, &[])?;
    anyhow::ensure!(
        warm.summary["build"]["reopened"] == true,
        "the second index of {} did not reopen the first",
        dir.display()
    );
    let k = k.saturating_add(10).min(4096).to_string();
    let k_change = index_child(global, dir, cache, &["--k", &k])?;
    Ok((cold, warm, k_change))
}

/// One size of the benchmark: `copies` copies of `corpus` indexed cold, reopened and re-cut at
/// k + 10 in child processes, then queried here; its first frames go to `first_frames`. With
/// `open_only`, only the first frames are measured (`None`).
fn one_size(
    (global, settings): (&GlobalArgs, &Settings),
    engine: &mut Engine,
    (corpus, questions): (&Corpus, &[String]),
    (scratch, copies, open_only): (&Path, usize, bool),
    first_frames: &mut Vec<FirstFrame>,
) -> anyhow::Result<Option<ScaleRow>> {
    let dir = scratch.join(format!("corpus-{copies}x"));
    let cache = scratch.join(format!("cache-{copies}x"));
    let corpus_bytes = write_copies(corpus, copies, &dir)?;
    let documents = corpus.documents.len() * copies;
    errln!(
        "bench scale: {copies}x: {documents} documents, {:.1} MB; the first frame, cold ...",
        corpus_bytes as f64 / 1e6
    );
    // The first frame from an empty cache of its own, so the index below is still cold.
    let frames_cache = scratch.join(format!("frames-{copies}x"));
    let cold_frame = first_frame(settings, &dir, &frames_cache)?;
    if open_only {
        let size = (copies, documents, corpus_bytes);
        first_frames.push(reopen_only(
            settings,
            (&dir, &frames_cache),
            size,
            cold_frame,
        )?);
        return Ok(None);
    }
    let _ = std::fs::remove_dir_all(&frames_cache);
    let (cold, warm, k_change) = index_runs(global, &dir, &cache, (copies, settings.k))?;
    let s = &cold.summary;
    let embed_seconds = s["build"]["timings"]["embed_chunks"]
        .as_f64()
        .unwrap_or(0.0)
        + s["build"]["timings"]["embed_seams"].as_f64().unwrap_or(0.0);
    let tokens_embedded = count(s, "tokens_embedded");

    // The first frame again, on the cache the index runs filled: a warm reopen.
    let warm_frame = first_frame(settings, &dir, &cache)?;
    first_frames.push(FirstFrame::new(
        (copies, documents, corpus_bytes),
        cold_frame,
        warm_frame,
    ));

    // Queries in this process, on the index just built (reopened, nothing embedded).
    engine.places.cache_dir = cache.clone();
    let open = engine.open_corpus(&dir, &mut |_| true)?;
    let (times, recall) = query_times(engine, &open, questions, &settings.query_settings())?;
    let row = ScaleRow {
        copies,
        documents: open.corpus.documents.len(),
        corpus_bytes,
        tokens: open.layout.total_tokens(),
        chunks: open.layout.chunks.len(),
        seams: open.layout.seams.len(),
        cold_index_seconds: cold.seconds,
        embed_tokens_per_second: tokens_embedded as f64 / embed_seconds.max(1e-9),
        tokens_embedded,
        cold_peak_rss_bytes: cold.peak_rss,
        index_bytes_on_disk: count_bytes(s),
        write_indexes_seconds: s["build"]["timings"]["write_indexes"]
            .as_f64()
            .unwrap_or(0.0),
        warm_reopen_seconds: warm.seconds,
        warm_peak_rss_bytes: warm.peak_rss,
        k_change_seconds: k_change.seconds,
        k_change_tokens_embedded: count(&k_change.summary, "tokens_embedded"),
        questions: questions.len(),
        query_ms: Spread::of(&times),
        query_p95_ms: percentile(&times, 0.95),
        search_mode: open.indexes.search_mode,
        hnsw_recall_at_20: recall.iter().sum::<f64>() / recall.len().max(1) as f64,
    };
    drop(open);
    // Free the disk as we go: a 16x corpus and its indexes take tens of MB.
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&cache);
    Ok(Some(row))
}

/// With `--open-only`: the first frame of one size reopened warm on the cache its cold open
/// filled, reported, and the copies and that cache removed.
fn reopen_only(
    settings: &Settings,
    (dir, frames_cache): (&Path, &Path),
    (copies, documents, corpus_bytes): (usize, usize, u64),
    cold_frame: (f64, f64),
) -> anyhow::Result<FirstFrame> {
    let warm_frame = first_frame(settings, dir, frames_cache)?;
    errln!(
        "bench scale: {copies}x: first frame cold {:.3} s, warm {:.3} s",
        cold_frame.0,
        warm_frame.0
    );
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(frames_cache);
    Ok(FirstFrame::new(
        (copies, documents, corpus_bytes),
        cold_frame,
        warm_frame,
    ))
}

/// Run the benchmark for each size of `plan` (copies of `base`) and print the table.
pub fn run(
    global: &GlobalArgs,
    base: &Path,
    plan: ScalePlan<'_>,
    json: bool,
) -> anyhow::Result<()> {
    let settings = global.settings()?;
    // Installs the model when needed, before any child process starts.
    let mut engine = start_engine(settings.clone())?;
    let corpus = engine.load_corpus(base)?;
    let (mut questions, _) = bench_questions(base, &corpus)?;
    questions.truncate(plan.questions.max(1));
    let scratch = tempfile::Builder::new()
        .prefix("seamscope-scale-")
        .tempdir()?;
    let mut rows = Vec::new();
    let mut first_frames = Vec::new();
    for &copies in plan.sizes {
        let row = one_size(
            (global, &settings),
            &mut engine,
            (&corpus, &questions),
            (scratch.path(), copies, plan.open_only),
            &mut first_frames,
        )?;
        rows.extend(row);
    }
    let report = ScaleReport {
        base_corpus: base.display().to_string(),
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        first_frames,
        rows,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_table(&report)?;
    }
    Ok(())
}

fn count(summary: &serde_json::Value, field: &str) -> usize {
    summary[field].as_u64().unwrap_or(0) as usize
}

/// Bytes of every index file, from the child's summary.
fn count_bytes(summary: &serde_json::Value) -> u64 {
    let b = &summary["build"]["bytes_on_disk"];
    [
        "chunk_vectors",
        "seam_vectors",
        "chunk_keywords",
        "seam_keywords",
    ]
    .iter()
    .map(|f| b[*f].as_u64().unwrap_or(0))
    .sum()
}

fn mb(bytes: Option<u64>) -> String {
    bytes.map_or("-".into(), |b| format!("{:.0}", b as f64 / 1048576.0))
}

/// Start the real screen (headless) on `corpus` with `cache`, and time the documents pane drawn
/// with the first documents, then every document in. Stops the screen there (the vectors are
/// not waited for). Seconds from the start, both.
fn first_frame(
    settings: &seamscope::settings::Settings,
    corpus: &Path,
    cache: &Path,
) -> anyhow::Result<(f64, f64)> {
    let options = crate::tui::Options {
        corpus: corpus.to_path_buf(),
        settings: seamscope::settings::Settings {
            cache_dir: Some(cache.to_path_buf()),
            ..settings.clone()
        },
        theme: None,
        view: None,
        bundle: false,
        traces: None,
    };
    let start = Instant::now();
    let mut screen = crate::tui::headless::Headless::start(&options, 120, 34)?;
    screen.pump("the documents", FRAME_PATIENCE, &|a| a.shown.is_some())?;
    let text = screen.screen_text()?;
    anyhow::ensure!(
        text.contains("Documents"),
        "the first frame with a corpus shows no documents pane:\n{text}"
    );
    let first = start.elapsed().as_secs_f64();
    screen.pump("every document", FRAME_PATIENCE, &|a| {
        a.shown.as_ref().is_some_and(|s| s.coming.is_none())
    })?;
    let all = start.elapsed().as_secs_f64();
    screen.finish();
    Ok((first, all))
}

fn print_table(report: &ScaleReport) -> Result<(), crate::cli::out::StdoutError> {
    outln!(
        "base corpus  {} ({} build)",
        report.base_corpus,
        report.build
    )?;
    outln!(
        "{:>5} {:>5} {:>8} {:>13} {:>13} {:>13} {:>13}",
        "size",
        "docs",
        "MB",
        "cold frame s",
        "cold all s",
        "warm frame s",
        "warm all s"
    )?;
    for f in &report.first_frames {
        outln!(
            "{:>4}x {:>5} {:>8.1} {:>13.3} {:>13.3} {:>13.3} {:>13.3}",
            f.copies,
            f.documents,
            f.corpus_bytes as f64 / 1e6,
            f.cold_seconds,
            f.cold_all_documents_seconds,
            f.warm_seconds,
            f.warm_all_documents_seconds
        )?;
    }
    outln!(
        "frame: the screen's documents pane drawn (first documents); all: every document laid out; cold: empty cache; warm: reopened with the stored layouts in place"
    )?;
    if report.rows.is_empty() {
        return Ok(());
    }
    outln!(
        "{:>5} {:>5} {:>9} {:>7} {:>9} {:>8} {:>8} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "size",
        "docs",
        "tokens",
        "cold s",
        "embed t/s",
        "peak MB",
        "disk MB",
        "write s",
        "warm s",
        "warm MB",
        "k s",
        "q p50ms",
        "q p95ms",
        "hnsw r@20"
    )?;
    for r in &report.rows {
        outln!(
            "{:>4}x {:>5} {:>9} {:>7.1} {:>9.0} {:>8} {:>8.1} {:>7.2} {:>8.2} {:>8} {:>8.1} {:>8.1} {:>8.1} {:>8.0}%",
            r.copies,
            r.documents,
            r.tokens,
            r.cold_index_seconds,
            r.embed_tokens_per_second,
            mb(r.cold_peak_rss_bytes),
            r.index_bytes_on_disk as f64 / 1048576.0,
            r.write_indexes_seconds,
            r.warm_reopen_seconds,
            mb(r.warm_peak_rss_bytes),
            r.k_change_seconds,
            r.query_ms.median,
            r.query_p95_ms,
            r.hnsw_recall_at_20 * 100.0
        )?;
    }
    outln!(
        "cold/warm/k: wall time of a child `index` process (model load included); peak MB: its peak resident memory; q: one question through the whole pipeline ({} questions); hnsw r@20: share of the exact top 20 (chunks, seams) that approximate search also finds, measured whether or not this size is past exact_search_limit",
        report.rows.first().map_or(0, |r| r.questions)
    )?;
    Ok(())
}

/// Run `index --json` on `corpus` with `cache` as a child of this binary, passing the global
/// options on; its summary, wall time and peak resident memory.
fn index_child(
    global: &GlobalArgs,
    corpus: &Path,
    cache: &Path,
    extra: &[&str],
) -> anyhow::Result<IndexRun> {
    let mut cmd = Command::new(std::env::current_exe()?);
    for (flag, value) in [
        ("--config", &global.config),
        ("--data-dir", &global.data_dir),
        ("--model-dir", &global.model_dir),
        ("--runtime", &global.runtime),
    ] {
        if let Some(v) = value {
            cmd.arg(flag).arg(v);
        }
    }
    if let Some(device) = global.device {
        cmd.args([
            "--device",
            seamscope::embed::device::Device::from(device).as_str(),
        ]);
    }
    cmd.arg("--cache-dir")
        .arg(cache)
        .arg("index")
        .arg(corpus)
        .args(extra)
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let t0 = Instant::now();
    let mut child = cmd.spawn()?;
    let mut stdout = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_end(&mut stdout)?;
    }
    let (ok, peak_rss) = super::rusage::wait_peak_rss(&mut child)?;
    let seconds = t0.elapsed().as_secs_f64();
    anyhow::ensure!(
        ok,
        "`seamscope index {}` failed: {}",
        corpus.display(),
        String::from_utf8_lossy(&stdout)
    );
    Ok(IndexRun {
        summary: serde_json::from_slice(&stdout)?,
        seconds,
        peak_rss,
    })
}
