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
    // The rule: a command line that is wrong as typed exits 2, a run that fails exits 1.
    let out = run(&[], "   ");
    assert_eq!(
        out.status.code(),
        Some(2),
        "an empty question is a usage error"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("the question is empty"));
    let out = run(&["--m", "-1"], "q");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--m"));
    let out = run(&["--depth", "0"], "q");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--depth") && stderr.contains("1..=100000"),
        "{stderr}"
    );
    let out = run(&["--rrf-c", "nan"], "q");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("finite number"));
    let missing = tempfile::tempdir().unwrap();
    let out = seamscope(cache.path())
        .arg("query")
        .arg(missing.path().join("nowhere"))
        .arg("q")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a missing corpus is a failed run"
    );
    let out = run(
        &["--budget", "0", "--chunk-tokens", "120", "--k", "30"],
        "replica",
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("budget 0: nothing is sent"));
}

#[test]
fn flag_values_out_of_range_are_usage_errors_never_wrapped() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    // 4294967297 = 2^32 + 1 once wrapped to m = 1 and ran; 99999999999 quoted m = 1215752191.
    for (flag, value) in [
        ("--m", "4294967297"),
        ("--m", "99999999999"),
        ("--m", "10001"),
        ("--budget", "18446744073709551617"),
        ("--depth", "-5"),
        ("--k", "0"),
        ("--chunk-tokens", "15"),
    ] {
        let out = seamscope(cache.path())
            .arg("query")
            .args([flag, value])
            .arg(corpus.path())
            .arg("q")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(value),
            "{flag} {value}: {stderr}"
        );
        assert!(!stderr.contains("1215752191"), "{stderr}");
    }
}

#[test]
fn query_help_states_the_real_defaults_and_ranges() {
    let out = assert_cmd::Command::cargo_bin("seamscope")
        .unwrap()
        .args(["query", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let defaults = seamscope::settings::Settings::default();
    for expected in [
        format!("0 to 10000 (default {})", defaults.m),
        format!("(default {})", defaults.budget),
        format!("(default {})", defaults.depth),
        format!("(default {})", defaults.k),
    ] {
        assert!(help.contains(&expected), "missing {expected:?}:\n{help}");
    }
    assert!(!help.contains("(default 3)"), "{help}");
}

#[test]
fn a_document_sized_question_is_refused_before_any_work() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let question = "why is the replica lagging ".repeat(3_704);
    assert!(question.chars().count() >= 100_000);
    let started = std::time::Instant::now();
    let out = seamscope(cache.path())
        .arg("query")
        .arg(corpus.path())
        .arg(&question)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("100008 characters") && stderr.contains("at most 2000 characters"),
        "{stderr}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "refused at once, not after indexing and embedding"
    );
    let cached = std::fs::read_dir(cache.path()).map_or(0, |d| d.count());
    assert_eq!(cached, 0, "nothing was indexed");
}
