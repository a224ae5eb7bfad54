//! `seamscope query` as a user runs it: the report's shape, JSON, and bad input.

mod common;

use common::seamscope;

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..50)
        .map(|i| format!("Step {i}. Before promoting a replica, drain its traffic and confirm the lag is under five seconds. "))
        .collect();
    std::fs::write(dir.path().join("runbook.md"), text).unwrap();
    dir
}

#[test]
fn a_never_indexed_corpus_is_indexed_then_the_report_has_every_stage() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out = seamscope(cache.path())
        .args(["query", "--chunk-tokens", "120", "--k", "30"])
        .arg(corpus.path())
        .arg("How do I promote a replica safely?")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for part in [
        "1. Fused ranking",
        "2. Fire test (m = 1)",
        "3. Budget fill (5 slots)",
        "4. Context",
        "without Seams",
    ] {
        assert!(text.contains(part), "missing {part}:\n{text}");
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("indexed"));

    let out = seamscope(cache.path())
        .args([
            "query",
            "--chunk-tokens",
            "120",
            "--k",
            "30",
            "--json",
            "--m",
            "2",
            "--budget",
            "3",
        ])
        .arg(corpus.path())
        .arg("replica lag")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["trace"]["settings"]["m"], 2);
    assert!(v["trace"]["fill"]["chunks"].as_array().unwrap().len() <= 3);
    assert!(v["trace"]["fused"].as_array().unwrap().len() > 3);
    assert!(v["chunks"].as_array().unwrap().len() >= 4);
}

#[test]
fn bad_query_input_gets_clear_messages() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let run = |args: &[&str], question: &str| {
        seamscope(cache.path())
            .arg("query")
            .args(args)
            .arg(corpus.path())
            .arg(question)
            .output()
            .unwrap()
    };
    let out = run(&[], "   ");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the question is empty"));
    let out = run(&["--m", "-1"], "q");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--m must be 0 or more"));
    let out = run(&["--depth", "0"], "q");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--depth must be at least 1"));
    let out = run(
        &["--budget", "0", "--chunk-tokens", "120", "--k", "30"],
        "replica",
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("budget 0: nothing is sent"));
}
