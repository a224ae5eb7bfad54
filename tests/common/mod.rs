//! Shared helpers for integration tests that use the real model (installed by `scripts/test`).
#![allow(dead_code)]

pub mod hostile;
pub mod manual;
pub mod pg;
pub mod tmux;

use std::path::Path;

use seamscope::session::{Engine, needs_setup};
use seamscope::settings::Settings;
use seamscope::tokens::TokenCounter;

/// Settings that use the installed model and a private cache folder.
pub fn settings(cache: &Path) -> Settings {
    let s = Settings {
        cache_dir: Some(cache.to_path_buf()),
        ..Settings::default()
    };
    assert!(
        !needs_setup(&s),
        "the model is not installed: run `cargo run -- setup` (scripts/test does this) before the tests"
    );
    s
}

/// The engine with the real model and a private cache.
pub fn engine(cache: &Path) -> Engine {
    Engine::load(settings(cache)).expect("the real model loads")
}

/// The real model's tokenizer.
pub fn tokenizer() -> TokenCounter {
    let dir = tempfile::tempdir().expect("tempdir");
    let places = seamscope::places::Places::of(&settings(dir.path()));
    TokenCounter::from_file(&places.model_dir.join("tokenizer.json")).expect("tokenizer loads")
}

/// The cache folder the sample-corpus tests share (vectors and indexes are keyed by text, model
/// and settings, so sharing changes no result; the corpus is embedded once per test run).
pub fn sample_cache() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache")
}

/// The cache folder shared by the tests that index [`operations_corpus`] as it is made (no file
/// added to it or edited after the first index). Each test's copy is a new folder, but vectors
/// are keyed by text and model and indexes by the corpus' contents and settings, so a test finds
/// what an earlier one embedded and sharing changes no result. A test that edits its copy and
/// indexes it again keeps a private cache: the rebuild removes the index it supersedes, which
/// the other copies share.
pub fn operations_cache() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("operations-cache")
}

/// The real binary with the installed model and a private cache folder.
pub fn seamscope(cache: &Path) -> assert_cmd::Command {
    let _ = settings(cache);
    let mut cmd = assert_cmd::Command::cargo_bin("seamscope").expect("the binary is built");
    cmd.env("SEAMSCOPE_CACHE_DIR", cache);
    cmd
}

/// Run `cmd`, require success (showing its stderr when it fails) and parse its stdout as JSON.
pub fn json_of(cmd: &mut assert_cmd::Command) -> serde_json::Value {
    let out = cmd.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the command prints JSON")
}

/// A folder with one document of varied prose sentences (`operations.md`), long enough for
/// several 120-token chunks: what calibration needs to draw passages from.
pub fn operations_corpus() -> tempfile::TempDir {
    let teams = [
        "billing",
        "dispatch",
        "security",
        "warehouse",
        "platform",
        "finance",
    ];
    let things = [
        "the replica lag dashboard",
        "every open customs declaration",
        "the quarterly access review",
        "the carrier rate tables",
        "the failover runbook",
        "the outbound manifest queue",
        "the cold storage sensors",
    ];
    let when = [
        "each Monday",
        "before every release",
        "at the end of each shift",
        "twice a year",
    ];
    let text: String = (0..70)
        .map(|i| {
            format!(
                "The {} team checks {} {} and records what it found in ticket {}. ",
                teams[i % teams.len()],
                things[i % things.len()],
                when[i % when.len()],
                1000 + i * 7
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("operations.md"), text).unwrap();
    dir
}

/// The sample corpus opened with the real model on the shared sample cache, with its gold
/// questions and their vectors: what the evaluation tests score strategies on.
pub fn sample_with_questions() -> (
    Engine,
    seamscope::session::OpenCorpus,
    Vec<seamscope::eval::questions::Question>,
    Vec<Vec<f32>>,
) {
    let mut engine = engine(&sample_cache());
    let open = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .expect("the sample opens");
    let (questions, _) = seamscope::eval::questions::load_question_set(
        Path::new("sample-corpus/questions.jsonl"),
        &open.corpus,
    )
    .expect("the sample's questions load");
    let vectors = seamscope::eval::run::embed_questions(&mut engine, &questions, &mut |_, _| true)
        .expect("the questions embed")
        .expect("nothing stops it");
    (engine, open, questions, vectors)
}

/// A board-like line per row, printed so a test's run shows the figures it checked.
pub fn print_rows(rows: &[seamscope::eval::grid::GridRow]) {
    for row in rows {
        eprintln!(
            "{:<32} failure {:>5.1}%  tokens {:>6.0}  vectors {}",
            row.label,
            row.failure_rate * 100.0,
            row.mean_tokens,
            row.vectors
        );
    }
}
