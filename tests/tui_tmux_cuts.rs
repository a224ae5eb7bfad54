//! The screen on your own cuts, in the real binary under tmux: `--cuts FILE` names the chunker by
//! its file, marks each cut, shows text no chunk holds as uncovered and text two chunks share as
//! shared; `x` cycles through the built-in chunkers and back to the given cuts. At 200 x 60 and
//! at 80 x 24, where the text pane is shown alone and `]` walks it from cut to cut.

mod common;

use std::path::Path;

use common::tmux::Tmux;

/// One short document, and cuts that overlap (chunks 0 and 1) and leave a gap of real text
/// before chunk 2.
fn corpus_and_cuts(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    let sentences: Vec<String> = (0..12)
        .map(|i| format!("Step {i}: the replica in region {i} answers reads while lag stays under five seconds."))
        .collect();
    let text = sentences.join("\n");
    std::fs::write(docs.join("runbook.md"), &text).unwrap_or_else(|e| panic!("{e}"));
    let at = |i: usize| text.find(&sentences[i]).unwrap_or(0);
    let spans = [(0, at(5)), (at(3), at(7)), (at(9), text.len())];
    let cuts = dir.join("my-cuts.jsonl");
    let lines: Vec<String> = spans
        .iter()
        .map(|(s, e)| format!("{{\"doc\": \"runbook.md\", \"start\": {s}, \"end\": {e}}}"))
        .collect();
    std::fs::write(&cuts, lines.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    (docs, cuts)
}

#[test]
fn tui_given_cuts_show_cut_marks_shared_and_uncovered_text() {
    given_cuts(200, 60);
}

#[test]
fn tui_given_cuts_show_cut_marks_shared_and_uncovered_text_at_80_by_24() {
    given_cuts(80, 24);
}

fn given_cuts(width: u16, height: u16) {
    let compact = width < 120;
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cuts) = corpus_and_cuts(work.path());
    let tmux = Tmux::start_sized(work.path(), &format!("cuts{width}"), width, height);
    tmux.shell("export PS1='e2e$ '");
    tmux.shell(&format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' '{}' --cuts '{}'",
        work.path().join("cache").display(),
        env!("CARGO_BIN_EXE_seamscope"),
        docs.display(),
        cuts.display()
    ));
    // A compact screen shows the text alone; the header counts the documents either way.
    // A narrow header counts them in short words; the Settings box names the cuts file.
    let opened = if compact {
        ["1 docs", "3 chunks"]
    } else {
        ["Documents · 1", "3 chunks (given (my-cuts.jsonl))"]
    };
    let mut screen = tmux.wait_for(&opened, 300);
    if compact {
        // The text pane shows part of the document: `]` walks on to the next cut.
        for _ in 0..3 {
            tmux.keys(&["]"]);
            std::thread::sleep(std::time::Duration::from_millis(400));
            screen.push_str(&tmux.screen());
        }
    }
    assert!(
        screen.contains("chunker given (my-cuts.jsonl)"),
        "the Settings box names the file:\n{screen}"
    );
    assert!(screen.contains("✂ cut 0|1"), "a cut marker:\n{screen}");
    assert!(
        screen.contains("✂ cut 1|2"),
        "a cut marker after the gap:\n{screen}"
    );
    assert!(
        screen.contains("░ uncovered ·"),
        "the gap is marked uncovered:\n{screen}"
    );
    assert!(
        screen.contains('≡'),
        "text chunks 0 and 1 share is marked:\n{screen}"
    );

    // `x` moves on to the built-in chunkers (given comes last, so next is fixed), and round
    // again to the given cuts.
    tmux.type_text("x");
    if compact {
        tmux.wait_for(&["chunker fixed"], 120);
    } else {
        tmux.wait_for(&["chunker fixed", "chunks of 1024 tokens (fixed)"], 120);
    }
    for _ in 0..4 {
        tmux.type_text("x");
    }
    let given = if compact {
        "3 chunks"
    } else {
        "3 chunks (given (my-cuts.jsonl))"
    };
    tmux.wait_for(&["chunker given (my-cuts.jsonl)", given], 120);
    tmux.type_text("q");
    tmux.wait_for_prompt(opened[0], 10);
}

#[test]
fn tui_a_bad_cuts_file_is_refused_before_the_screen_opens() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cuts) = corpus_and_cuts(work.path());
    std::fs::write(&cuts, "{\"doc\": \"runbook.md\", \"start\": 0, \"end\": 10}\n{\"doc\": \"other.md\", \"start\": 0, \"end\": 10}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let out = common::seamscope(&work.path().join("cache"))
        .arg(&docs)
        .arg("--cuts")
        .arg(&cuts)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "line 2: no document of the corpus is `other.md` (the corpus holds runbook.md)"
        ),
        "{err}"
    );
}
