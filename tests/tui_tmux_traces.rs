//! The traces page as a user meets it: the real binary in tmux on `sample-corpus/` with the real
//! model and real traces (scripts/trace-app.py: a LangChain app instrumented by OpenInference,
//! its OTLP JSON lines; `scripts/test` names their folder in SEAMSCOPE_TEST_TRACES_DIR).
//! `seamscope sample-corpus --traces otlp.jsonl` opens on the traces page, which reads and
//! judges the traces once the corpus is embedded; A01 is listed with the suspect `seamscope
//! traces` names for it; Enter replays it on the explore page with what the app sent pinned
//! beside seamscope's answer. At 80 × 24 (one pane at a time) and at 200 × 50.

mod common;

use std::path::PathBuf;

use common::tmux::Tmux;

fn traces_dir() -> PathBuf {
    PathBuf::from(std::env::var("SEAMSCOPE_TEST_TRACES_DIR").unwrap_or_else(|_| {
        panic!(
            "SEAMSCOPE_TEST_TRACES_DIR is not set: scripts/test runs scripts/trace-app.py (a traced LangChain \
             app over sample-corpus) and sets it"
        )
    }))
}

/// A01's rank and its suspect in words, as `seamscope traces` reports them.
fn a01_in_the_report(traces: &std::path::Path, cache: &std::path::Path) -> (usize, String) {
    let out = common::seamscope(cache)
        .args(["traces", "sample-corpus", "--traces"])
        .arg(traces)
        .args(["--top", "100000", "--overlap", "0"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("seamscope traces runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `  rank  id        suspicion  why`
    let line = text
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("A01"))
        .unwrap_or_else(|| panic!("A01 is not in the report:\n{text}"));
    let fields: Vec<&str> = line.split_whitespace().collect();
    let rank = fields[0]
        .parse()
        .unwrap_or_else(|_| panic!("no rank in {line}"));
    (rank, fields[3..].join(" "))
}

fn replay_a01(width: u16, height: u16) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let traces = traces_dir().join("otlp.jsonl");
    assert!(traces.is_file(), "{} is not there", traces.display());
    // The cache the sample-corpus tests share: the app's cuts are embedded once per run.
    let cache = common::sample_cache();
    let (rank, why) = a01_in_the_report(&traces, &cache);

    let tmux = Tmux::start_sized(&root, &format!("traces-{width}"), width, height);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' sample-corpus --traces '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        traces.display(),
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    let page = tmux.wait_for(&["Traces · ", "queries read", "your app sent: "], 600);
    assert!(
        page.contains("130 queries read"),
        "the app answered the 130 gold questions:\n{page}"
    );
    assert!(!page.contains('\u{1b}'), "no raw escape reaches the screen");

    // The cursor down to A01 (the list keeps it in view), its suspect in the words the CLI used
    // (cut at the row's end on a narrow screen).
    for _ in 1..rank {
        tmux.keys(&["Down"]);
    }
    let start: String = why.chars().take(usize::from(width) / 2 - 20).collect();
    let listed = tmux.wait_until("A01 under the cursor with its suspect", 20, |s| {
        s.lines()
            .any(|l| l.contains("▸") && l.contains("A01") && l.contains(&start))
    });
    assert!(listed.contains("with Seams: "), "{listed}");

    tmux.keys(&["Enter"]);
    let replayed = tmux.wait_for(&["your app sent", "with Seams"], 120);
    assert!(
        replayed.contains("Your app sent vs with Seams"),
        "the comparison pane:\n{replayed}"
    );
    tmux.type_text("q");
}

#[test]
fn tui_the_traces_page_at_80x24_lists_a01_and_replays_it_beside_the_app() {
    replay_a01(80, 24);
}

#[test]
fn tui_the_traces_page_at_200x50_lists_a01_and_replays_it_beside_the_app() {
    replay_a01(200, 50);
}
