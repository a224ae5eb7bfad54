//! End to end over Postgres: the real binary in tmux with `--store pgvector:URL` on
//! `sample-corpus/` (the server `scripts/test` starts, SEAMSCOPE_TEST_PG_URL, a fresh database).
//! The header says dense search is approximate, in Postgres; question A01 from the picker gets the
//! verdict and the budget fill the embedded store gives it on the same screen.

mod common;

use std::path::{Path, PathBuf};

use common::pg;
use common::tmux::Tmux;

/// The budget fill's rows (`#1  chunk 40`, …) and A01's verdict, as the screen shows them.
fn answer_of(screen: &str) -> (Vec<String>, String) {
    let rows = screen
        .lines()
        .flat_map(|l| l.split('│'))
        .map(str::trim)
        .filter(|cell| {
            cell.strip_prefix('#')
                .and_then(|r| r.split_whitespace().next())
                .is_some_and(|n| n.parse::<u32>().is_ok())
                && cell.contains("chunk ")
        })
        .map(|cell| {
            cell.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let verdict = screen
        .lines()
        .find_map(|l| {
            let at = l.find("A01 ")?;
            let rest = &l[at..];
            let end = rest.find("without").map(|e| e + "without".len())?;
            Some(rest[..end].to_string())
        })
        .unwrap_or_default();
    (rows, verdict)
}

/// Open the screen with `store` flags, ask A01 from the picker, and return the answered screen.
fn ask_a01(root: &Path, cache: &Path, config: &Path, store: &str, name: &str) -> String {
    let tmux = Tmux::start(root, name);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --config '{}' {store} sample-corpus",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        config.display()
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["Documents · 13", "chunks of 1024 tokens"], 600);
    // The vectors are in (on a server: the collection verified or filled).
    tmux.wait_until("dense search ready", 600, |s| !s.contains("dense pending"));
    tmux.type_text("l");
    tmux.wait_for(&["Questions · questions.jsonl · 130", "A01"], 20);
    tmux.keys(&["Enter"]);
    let answered = tmux.wait_until("A01's verdict", 120, |s| {
        (s.contains("A01 ✓ with") || s.contains("A01 ✗ with"))
            && s.contains("Fused ranking ·")
            && s.contains("Budget fill ·")
    });
    tmux.type_text("q");
    tmux.wait_for_prompt("Fused ranking", 10);
    answered
}

#[test]
fn tui_over_pgvector_answers_a01_as_the_embedded_store_does() {
    let url = pg::fresh_database("tui");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tui-pgvector");
    std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{}: {e}", work.display()));
    let config = work.join("settings.toml");
    std::fs::write(&config, "m = 1\nbudget = 5\n").unwrap_or_else(|e| panic!("{e}"));
    let cache = work.join("cache");

    let embedded = ask_a01(&root, &cache, &config, "", "pg-embedded");
    assert!(embedded.contains("exact dense search"), "{embedded}");
    let served = ask_a01(
        &root,
        &cache,
        &config,
        &format!("--store 'pgvector:{url}'"),
        "pg-served",
    );
    assert!(
        served.contains("approximate dense search in Postgres (pgvector HNSW)"),
        "the header says where and how dense search runs:\n{served}"
    );
    let (rows, verdict) = answer_of(&embedded);
    assert!(!rows.is_empty() && !verdict.is_empty(), "{embedded}");
    assert_eq!(
        answer_of(&served),
        (rows, verdict),
        "A01 over pgvector:\n{served}\nembedded:\n{embedded}"
    );
}
