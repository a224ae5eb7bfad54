//! `seamscope bench open`: how soon the screen shows a corpus. The real worker and screen
//! (headless), from a cold cache (nothing embedded) and again warm, timing: the documents pane
//! drawn with its cuts, a question answered on the keyword lists while the vectors are
//! embedded, and the vectors in (the full pipeline).

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
    /// The vectors in: the layout job over.
    vectors: f64,
}

/// The figures of every round.
#[derive(Debug, Serialize)]
struct OpenReport {
    corpus: String,
    build: &'static str,
    cold: Vec<OpenTimes>,
    warm: Vec<OpenTimes>,
    cold_documents: Spread,
    cold_vectors: Spread,
    warm_documents: Spread,
    warm_vectors: Spread,
}

/// Open `corpus` cold and warm [`ROUNDS`] times each, and print the times.
pub fn run(global: &GlobalArgs, corpus: &Path, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
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
        };
        let c = open_once(&options, true)?;
        let w = open_once(&options, false)?;
        if !json {
            outln!(
                "round {round}: cold documents {:.3} s, keyword answer {}, vectors {:.1} s; warm documents {:.3} s, vectors {:.3} s",
                c.documents,
                c.keyword_answer
                    .map_or_else(|| "-".to_string(), |t| format!("{t:.3} s")),
                c.vectors,
                w.documents,
                w.vectors
            )?;
        }
        cold.push(c);
        warm.push(w);
    }
    let spread = |times: &[OpenTimes], f: fn(&OpenTimes) -> f64| {
        Spread::of(&times.iter().map(f).collect::<Vec<_>>())
    };
    let report = OpenReport {
        corpus: corpus.display().to_string(),
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        cold_documents: spread(&cold, |t| t.documents),
        cold_vectors: spread(&cold, |t| t.vectors),
        warm_documents: spread(&warm, |t| t.documents),
        warm_vectors: spread(&warm, |t| t.vectors),
        cold,
        warm,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    outln!(
        "time to the screen on {} ({} build, {ROUNDS} rounds; seconds: min / median / max)",
        report.corpus,
        report.build
    )?;
    for (what, s) in [
        ("cold: documents pane", report.cold_documents),
        ("cold: vectors in", report.cold_vectors),
        ("warm: documents pane", report.warm_documents),
        ("warm: vectors in", report.warm_vectors),
    ] {
        outln!(
            "  {what:<22} {:>8.3} {:>8.3} {:>8.3}",
            s.min,
            s.median,
            s.max
        )?;
    }
    Ok(())
}

/// Start the screen, wait for the documents (asking a question on the keyword lists when
/// `ask` and the vectors are not in yet), then for the vectors.
fn open_once(options: &crate::tui::Options, ask: bool) -> anyhow::Result<OpenTimes> {
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
    let vectors = start.elapsed().as_secs_f64();
    screen.finish();
    Ok(OpenTimes {
        documents,
        keyword_answer,
        vectors,
    })
}
