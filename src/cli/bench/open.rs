//! `seamscope bench open`: how soon the screen shows a corpus. The real worker and screen
//! (headless), from a cold cache (nothing embedded) and again warm, timing: the documents pane
//! drawn with its cuts, a question answered on the keyword lists while the vectors are
//! embedded, and the vectors in (the full pipeline). With `--open-only`, the first frame alone.
//! A corpus of PDFs (or other extracted formats) also gets its extraction timed on its own:
//! pages per second from an empty extraction cache and from a warm one.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::Spread;
use crate::cli::GlobalArgs;
use crate::tui::headless::Headless;

/// Rounds of cold-then-warm opens.
const ROUNDS: usize = 3;

/// How long one open may take before the bench gives up.
const PATIENCE: Duration = Duration::from_secs(1800);

/// The question asked while the vectors are being embedded.
const QUESTION: &str = "what happens when a cut splits a fact";

/// One open, in seconds from the start of the screen.
#[derive(Debug, Clone, Copy, Serialize)]
struct OpenTimes {
    /// The documents pane drawn, with the first document's chunks and cuts.
    documents: f64,
    /// A question answered on the keyword lists alone (cold opens only; warm ones are too quick
    /// to catch before the vectors arrive).
    keyword_answer: Option<f64>,
    /// The vectors in: the layout job over (`None` with `--open-only`).
    vectors: Option<f64>,
}

/// Extraction alone: the corpus loaded with an empty extraction cache, then with a warm one.
#[derive(Debug, Clone, Serialize)]
struct Extraction {
    /// Documents with a page map (PDFs).
    paged_documents: usize,
    /// Their pages in all.
    pages: usize,
    /// Seconds per load, each round.
    cold_seconds: Vec<f64>,
    warm_seconds: Vec<f64>,
    /// Pages per second at the median load.
    cold_pages_per_second: f64,
    warm_pages_per_second: f64,
}

/// This process's peak resident memory in bytes, where the platform says.
fn peak_rss() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: `rusage` is a plain C struct of integers, for which all zero bytes is a valid
        // value; the pointer is to a live local for the duration of the call.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: as above; RUSAGE_SELF is always a valid target.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return None;
        }
        let max = u64::try_from(usage.ru_maxrss).ok()?;
        Some(if cfg!(target_os = "macos") {
            max
        } else {
            max * 1024
        })
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Time the corpus' extraction cold and warm, when it holds paged documents.
fn time_extraction(
    settings: &seamscope::settings::Settings,
    corpus: &Path,
) -> anyhow::Result<Option<Extraction>> {
    let mut cold_seconds = Vec::new();
    let mut warm_seconds = Vec::new();
    let mut counted = None;
    for _ in 0..ROUNDS {
        let cache = tempfile::tempdir()?;
        let options = seamscope::places::load_options(&seamscope::settings::Settings {
            cache_dir: Some(cache.path().to_path_buf()),
            ..settings.clone()
        });
        for warm in [false, true] {
            let start = Instant::now();
            let loaded = seamscope::corpus::Corpus::load(corpus, &options)?;
            let took = start.elapsed().as_secs_f64();
            if warm {
                warm_seconds.push(took);
            } else {
                cold_seconds.push(took);
            }
            let paged: Vec<_> = loaded
                .documents
                .iter()
                .filter(|d| !d.source.pages.is_empty())
                .collect();
            counted = Some((
                paged.len(),
                paged.iter().map(|d| d.source.pages.len()).sum(),
            ));
        }
    }
    let Some((paged_documents, pages)) = counted.filter(|(n, _)| *n > 0) else {
        return Ok(None);
    };
    let rate = |secs: &[f64]| pages as f64 / Spread::of(secs).median.max(1e-9);
    Ok(Some(Extraction {
        paged_documents,
        pages,
        cold_pages_per_second: rate(&cold_seconds),
        warm_pages_per_second: rate(&warm_seconds),
        cold_seconds,
        warm_seconds,
    }))
}

/// The figures of every round.
#[derive(Debug, Serialize)]
struct OpenReport {
    corpus: String,
    build: &'static str,
    cold: Vec<OpenTimes>,
    warm: Vec<OpenTimes>,
    cold_documents: Spread,
    cold_vectors: Option<Spread>,
    warm_documents: Spread,
    warm_vectors: Option<Spread>,
    /// Extraction alone, for a corpus with paged documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    extraction: Option<Extraction>,
    /// This process's peak resident memory over the whole bench, in bytes.
    peak_rss_bytes: Option<u64>,
}

/// Open `corpus` cold and warm [`ROUNDS`] times each, and print the times.
pub fn run(global: &GlobalArgs, corpus: &Path, open_only: bool, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let extraction = time_extraction(&settings, corpus)?;
    if let (Some(x), false) = (&extraction, json) {
        outln!(
            "extraction: {} pages in {} paged documents; cold {:.0} pages/s, warm {:.0} pages/s",
            x.pages,
            x.paged_documents,
            x.cold_pages_per_second,
            x.warm_pages_per_second
        )?;
    }
    let (cold, warm) = open_rounds(&settings, corpus, open_only, json)?;
    let spread = |times: &[OpenTimes], f: fn(&OpenTimes) -> f64| {
        Spread::of(&times.iter().map(f).collect::<Vec<_>>())
    };
    let vectors = |times: &[OpenTimes]| {
        let all: Option<Vec<f64>> = times.iter().map(|t| t.vectors).collect();
        all.map(|v| Spread::of(&v))
    };
    let report = OpenReport {
        corpus: corpus.display().to_string(),
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        cold_documents: spread(&cold, |t| t.documents),
        cold_vectors: vectors(&cold),
        warm_documents: spread(&warm, |t| t.documents),
        warm_vectors: vectors(&warm),
        cold,
        warm,
        extraction,
        peak_rss_bytes: peak_rss(),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    print(&report)
}

/// Opens the screen [`ROUNDS`] times, each on a scratch cache, cold (nothing embedded, so every
/// vector is computed) then warm; prints each round's times unless `json`.
fn open_rounds(
    settings: &seamscope::settings::Settings,
    corpus: &Path,
    open_only: bool,
    json: bool,
) -> anyhow::Result<(Vec<OpenTimes>, Vec<OpenTimes>)> {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for round in 1..=ROUNDS {
        // A scratch cache: nothing embedded, so every vector is computed.
        let cache = tempfile::tempdir()?;
        let options = crate::tui::Options {
            corpus: corpus.to_path_buf(),
            settings: seamscope::settings::Settings {
                cache_dir: Some(cache.path().to_path_buf()),
                ..settings.clone()
            },
            theme: None,
            view: None,
            bundle: false,
            traces: None,
        };
        let c = open_once(&options, !open_only, open_only)?;
        let w = open_once(&options, false, open_only)?;
        if !json {
            let secs = |t: Option<f64>| t.map_or_else(|| "-".to_string(), |t| format!("{t:.3} s"));
            outln!(
                "round {round}: cold documents {:.3} s, keyword answer {}, vectors {}; warm documents {:.3} s, vectors {}",
                c.documents,
                secs(c.keyword_answer),
                secs(c.vectors),
                w.documents,
                secs(w.vectors)
            )?;
        }
        cold.push(c);
        warm.push(w);
    }
    Ok((cold, warm))
}

/// The open bench's summary as lines of text: min, median and max of each time.
fn print(report: &OpenReport) -> anyhow::Result<()> {
    outln!(
        "time to the screen on {} ({} build, {ROUNDS} rounds; seconds: min / median / max)",
        report.corpus,
        report.build
    )?;
    for (what, s) in [
        ("cold: documents pane", Some(report.cold_documents)),
        ("cold: vectors in", report.cold_vectors),
        ("warm: documents pane", Some(report.warm_documents)),
        ("warm: vectors in", report.warm_vectors),
    ] {
        let Some(s) = s else { continue };
        outln!(
            "  {what:<22} {:>8.3} {:>8.3} {:>8.3}",
            s.min,
            s.median,
            s.max
        )?;
    }
    if let Some(peak) = report.peak_rss_bytes {
        outln!("  peak memory            {:>8.1} MB", peak as f64 / 1e6)?;
    }
    Ok(())
}

/// Start the screen, wait for the documents (asking a question on the keyword lists when
/// `ask` and the vectors are not in yet), then for the vectors.
fn open_once(
    options: &crate::tui::Options,
    ask: bool,
    first_frame_only: bool,
) -> anyhow::Result<OpenTimes> {
    let start = Instant::now();
    let mut screen = Headless::start(options, 120, 34)?;
    screen.pump("the documents", PATIENCE, &|a| a.shown.is_some())?;
    // Drawn, and showing what a user came for: a document's text at one of its cuts.
    screen.apply_next_cut();
    let text = screen.screen_text()?;
    anyhow::ensure!(
        text.contains("Documents") && text.contains('✂'),
        "the first frame with a corpus shows no documents pane with a cut:\n{text}"
    );
    let documents = start.elapsed().as_secs_f64();
    if first_frame_only {
        screen.finish();
        return Ok(OpenTimes {
            documents,
            keyword_answer: None,
            vectors: None,
        });
    }
    let mut keyword_answer = None;
    if ask && screen.app.jobs.layout.in_flight().is_some() {
        screen.ask(QUESTION);
        screen.pump("the keyword answer", PATIENCE, &|a| a.answer.is_some())?;
        if screen.app.answer.as_ref().is_some_and(|a| a.dense_pending) {
            keyword_answer = Some(start.elapsed().as_secs_f64());
        }
    }
    screen.pump("the vectors", PATIENCE, &|a| {
        a.jobs.layout.in_flight().is_none() && a.answer.as_ref().is_none_or(|x| !x.dense_pending)
    })?;
    let vectors = Some(start.elapsed().as_secs_f64());
    screen.finish();
    Ok(OpenTimes {
        documents,
        keyword_answer,
        vectors,
    })
}
