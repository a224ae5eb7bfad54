//! The screen on your loader's text, in the real binary under tmux: `--documents FILE` with
//! `--cuts FILE` (a PDF's pages as a loader made them, chunks counting from their page), and
//! `--cuts FILE` alone (the documents rebuilt from the chunks). The text pane shows exactly each
//! chunk's `page_content`, at 200 x 60 and at 80 x 24 (where the text pane is shown alone).

mod common;

use std::path::{Path, PathBuf};

use common::tmux::Tmux;

const PAGES: [&str; 2] = [
    "Orders keep flowing in an outage. Reads may be stale.",
    "Billing stays strongly consistent. Everything else may lag.",
];
const CHUNKS: [(usize, usize, &str); 4] = [
    (0, 0, "Orders keep flowing in an outage."),
    (0, 34, "Reads may be stale."),
    (1, 0, "Billing stays strongly consistent."),
    (1, 35, "Everything else may lag."),
];

fn dumps(dir: &Path) -> (PathBuf, PathBuf) {
    let docs = dir.join("documents.jsonl");
    let lines: Vec<String> = PAGES
        .iter()
        .enumerate()
        .map(|(page, text)| {
            serde_json::json!({"page_content": text, "metadata": {"source": "manual.pdf", "page": page}})
                .to_string()
        })
        .collect();
    std::fs::write(&docs, lines.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let cuts = dir.join("cuts.jsonl");
    let lines: Vec<String> = CHUNKS
        .iter()
        .map(|(page, start, text)| {
            assert_eq!(&PAGES[*page][*start..*start + text.len()], *text);
            serde_json::json!({"page_content": text, "metadata": {"source": "manual.pdf", "page": page, "start_index": start}})
                .to_string()
        })
        .collect();
    std::fs::write(&cuts, lines.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    (docs, cuts)
}

fn open_and_check(work: &Path, name: &str, args: &str) {
    open_and_check_sized(work, name, args, 200, 60);
}

fn open_and_check_sized(work: &Path, name: &str, args: &str, width: u16, height: u16) {
    let tmux = Tmux::start_sized(work, &format!("{name}{width}"), width, height);
    // A compact screen shows the text alone; the header counts the documents either way (in
    // short words when narrow).
    let opened = if width < 120 {
        ["1 docs", "4 chunks"]
    } else {
        ["Documents · 1", "4 chunks (given (cuts.jsonl))"]
    };
    tmux.shell("export PS1='e2e$ '");
    tmux.shell(&format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' {args}",
        work.join("cache").display(),
        env!("CARGO_BIN_EXE_seamscope"),
    ));
    let screen = tmux.wait_for(&opened, 300);
    assert!(screen.contains("manual.pdf"), "the document:\n{screen}");
    for (_, _, text) in CHUNKS {
        assert!(
            screen.contains(text),
            "chunk text {text:?} is on the screen as the loader wrote it:\n{screen}"
        );
    }
    assert!(
        screen.contains("✂ cut 1|2"),
        "the cut between the pages:\n{screen}"
    );
    tmux.type_text("q");
    tmux.wait_for_prompt(opened[0], 10);
}

#[test]
fn tui_opens_a_loaders_documents_with_its_chunks() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cuts) = dumps(work.path());
    open_and_check(
        work.path(),
        "documents",
        &format!(
            "--documents '{}' --cuts '{}'",
            docs.display(),
            cuts.display()
        ),
    );
}

#[test]
fn tui_opens_a_loaders_documents_with_its_chunks_at_80_by_24() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cuts) = dumps(work.path());
    let args = format!(
        "--documents '{}' --cuts '{}'",
        docs.display(),
        cuts.display()
    );
    open_and_check_sized(work.path(), "documents", &args, 80, 24);
}

#[test]
fn tui_opens_a_split_dump_alone() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (_, cuts) = dumps(work.path());
    open_and_check(
        work.path(),
        "cuts-alone",
        &format!("--cuts '{}'", cuts.display()),
    );
}
