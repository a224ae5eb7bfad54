//! End to end, cold: the real binary in tmux on a copy of `sample-corpus/` with an empty cache,
//! so every vector is embedded while the test watches. The documents pane and a cut are on
//! screen while the top line still reports embedding; a question asked then is answered on the
//! keyword lists and says so; when the vectors arrive it is answered again with dense search by
//! itself. Then a file is added on disk and `R` reads the folder again.

mod common;

use std::path::{Path, PathBuf};

use common::tmux::Tmux;

/// Copy the documents of `from` (files only, one level) into a fresh `to`.
fn copy_corpus(from: &Path, to: &Path) {
    if to.exists() {
        std::fs::remove_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    }
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() {
            std::fs::copy(&path, to.join(entry.file_name()))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

/// The top line: the corpus, and the layout job's progress while one runs.
fn top_line(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
}

#[test]
fn tui_documents_and_keyword_answers_come_before_the_vectors_then_dense_replaces_them() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tui-progressive");
    let corpus = work.join("corpus");
    copy_corpus(&root.join("sample-corpus"), &corpus);
    // An empty cache every run: the vectors must be embedded while the screen is up.
    let cache = work.join("cache");
    if cache.exists() {
        std::fs::remove_dir_all(&cache).unwrap_or_else(|e| panic!("{}: {e}", cache.display()));
    }

    let config = work.join("settings.toml");
    std::fs::write(&config, "").unwrap_or_else(|e| panic!("{e}"));

    let tmux = Tmux::start_sized(&work, "progressive", 160, 48);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --config '{}' '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        config.display(),
        corpus.display()
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);

    // The documents, and a cut (`]` jumps the text to the first one), while the top line still
    // says the vectors are being embedded.
    let early = tmux.wait_until("the documents before the vectors", 300, |s| {
        s.contains("Documents · 13")
    });
    assert!(
        top_line(&early).contains("vectors coming"),
        "the documents pane is up before the vectors are in:\n{early}"
    );
    tmux.type_text("]");
    let cut = tmux.wait_until("a cut on screen", 30, |s| s.contains("✂ cut"));
    assert!(
        top_line(&cut).contains("vectors coming"),
        "the cut is drawn while the vectors are still being embedded:\n{cut}"
    );

    // A question now is answered on the keyword lists, and the ranking says so.
    tmux.type_text("/");
    tmux.type_text("how long are audit logs kept");
    tmux.keys(&["Enter"]);
    let pending = tmux.wait_until("a keyword-only answer", 60, |s| {
        s.contains("dense pending: keyword lists only")
    });
    assert!(
        top_line(&pending).contains("vectors coming: embedding"),
        "answered while the vectors were still being embedded:\n{pending}"
    );
    assert!(
        pending.contains("bm25c") && pending.contains("data-retention-policy"),
        "the keyword lists found the retention policy:\n{pending}"
    );

    // The vectors arrive: the same question is answered again with dense search, unasked.
    let full = tmux.wait_until("the dense answer", 900, |s| {
        s.contains("Fused ranking ·")
            && s.contains("RRF c = 60")
            && !s.contains("dense pending")
            && !top_line(s).contains("embedding")
    });
    assert!(
        full.contains("exact dense search"),
        "the top line names dense search once it is ready:\n{full}"
    );

    // A file added on disk: R reads the folder again and shows it.
    std::fs::write(
        corpus.join("zz-late-addition.md"),
        "# Late addition\n\nAudit logs of the late addition are kept for nine years.\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    tmux.keys(&["Escape"]);
    tmux.type_text("R");
    let reloaded = tmux.wait_until("the reloaded corpus", 300, |s| {
        s.contains("Documents · 14") && !top_line(s).contains("embedding")
    });
    assert!(
        reloaded.contains("zz-late-addition.md"),
        "the new file is listed:\n{reloaded}"
    );
    tmux.type_text("q");
    tmux.wait_for_prompt("Documents ·", 20);
}

/// The documents of `from` copied `times` times into a fresh `to` (`c00-name.md`, ...), each
/// copy given a line of its own so no two documents are the same text.
fn copies_of(from: &Path, to: &Path, times: usize) -> usize {
    if to.exists() {
        std::fs::remove_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    }
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    let mut files = 0;
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    let docs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "questions.jsonl"))
        .collect();
    for copy in 0..times {
        for doc in &docs {
            let name = doc.file_name().map(|n| n.to_string_lossy().into_owned());
            let text = std::fs::read_to_string(doc).unwrap_or_else(|e| panic!("{e}"));
            let target = to.join(format!("c{copy:02}-{}", name.unwrap_or_default()));
            std::fs::write(&target, format!("{text}\nCopy {copy}.\n"))
                .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
            files += 1;
        }
    }
    files
}

#[test]
fn tui_the_document_list_fills_in_while_a_large_corpus_is_laid_out_then_reopens_from_stored_layouts()
 {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tui-streaming");
    let corpus = work.join("corpus");
    let total = copies_of(&root.join("sample-corpus"), &corpus, 16);
    let cache = work.join("cache");
    if cache.exists() {
        std::fs::remove_dir_all(&cache).unwrap_or_else(|e| panic!("{}: {e}", cache.display()));
    }
    let config = work.join("settings.toml");
    std::fs::write(&config, "").unwrap_or_else(|e| panic!("{e}"));

    let tmux = Tmux::start_sized(&work, "streaming", 160, 48);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --config '{}' '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        config.display(),
        corpus.display()
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);

    // The first documents are listed while the rest are still being laid out ...
    let partial = tmux.wait_until("the first documents", 300, |s| {
        s.contains(&format!(" of {total} "))
    });
    assert!(
        partial.contains("c00-"),
        "the first documents are listed:\n{partial}"
    );
    // ... and the list fills in to every document.
    let whole = tmux.wait_until("every document", 600, |s| {
        s.contains(&format!("Documents · {total} "))
    });
    assert!(!whole.contains(&format!(" of {total} ")), "{whole}");
    tmux.type_text("q");
    tmux.wait_for_prompt("Documents ·", 60);

    // Every document's layout was stored: reopened, the whole list is there at once.
    let stored = std::fs::read_dir(cache.join("layouts"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(
        stored >= total,
        "{stored} stored layouts for {total} documents"
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    tmux.wait_until("the reopened list", 120, |s| {
        s.contains(&format!("Documents · {total} "))
    });
    tmux.type_text("q");
    tmux.wait_for_prompt("Documents ·", 60);
}
