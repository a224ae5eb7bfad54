//! What a command does when its output cannot be written or when it fails under `--json`: a
//! full disk (`/dev/full` as stdout) is a clear error and exit 1, never a panic (exit 101); a
//! reader that goes away ends the run quietly; and a failing `--json` run prints exactly one
//! JSON document on stdout, the error document, holding what the command had made.

mod common;

use std::fs::File;
use std::path::PathBuf;
use std::process::Stdio;

/// The cache the sample-corpus tests share (the corpus is embedded once per build folder).
fn sample_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache")
}

/// The real binary on the shared cache, as `std::process::Command` (its stdout can be any file).
fn binary() -> std::process::Command {
    let _ = common::settings(&sample_cache());
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_seamscope"));
    cmd.env("SEAMSCOPE_CACHE_DIR", sample_cache());
    cmd
}

#[test]
fn a_full_disk_on_stdout_is_an_error_not_a_panic() {
    let out_dir = tempfile::tempdir().unwrap();
    let bundle = out_dir.path().join("bundle");
    let bundle = bundle.to_str().unwrap();
    for args in [
        &["chunks", "sample-corpus", "--json"][..],
        &["chunks", "sample-corpus"],
        &[
            "query",
            "sample-corpus",
            "What is kept for seven years?",
            "--json",
        ],
        &["query", "sample-corpus", "What is kept for seven years?"],
        &["eval", "sample-corpus", "--sweep-m", "1", "--json"],
        &["eval", "sample-corpus", "--sweep-m", "1"],
        &["export", "sample-corpus", "--out", bundle, "--json"],
    ] {
        let out = binary()
            .args(args)
            .stdout(File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.contains("error: cannot write to standard output: No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_reader_that_leaves_ends_the_run_quietly() {
    use std::os::unix::process::ExitStatusExt;
    // The pipe's reading end is closed before the command writes a byte.
    let mut child = binary()
        .args(["chunks", "sample-corpus", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
        "{:?}: {stderr}",
        out.status
    );
    assert!(stderr.is_empty(), "quiet: {stderr}");
}

#[test]
fn a_failing_json_run_prints_one_document() {
    // The sweep's rows are made, then the gate fails: the baseline's failure rates are far
    // lower than this run's.
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let rows: Vec<serde_json::Value> = ["chunks only", "Seams k=150 m=1"]
        .iter()
        .map(|label| {
            serde_json::json!({"label": label, "failure_rate": 0.0, "mean_tokens": 1.0, "vectors": 1})
        })
        .collect();
    let b = serde_json::json!({"version": 1, "questions": 130, "budget": 5,
        "description": "a perfect run", "embedder": null, "rows": rows});
    std::fs::write(&baseline, b.to_string()).unwrap();
    let out = common::seamscope(&sample_cache())
        .args([
            "eval",
            "sample-corpus",
            "--sweep-m",
            "1",
            "--json",
            "--compare",
        ])
        .arg(&baseline)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let mut documents =
        serde_json::Deserializer::from_str(&stdout).into_iter::<serde_json::Value>();
    let document = documents
        .next()
        .expect("a document")
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"));
    assert!(
        documents.next().is_none(),
        "exactly one JSON document on stdout: {stdout}"
    );
    let error = &document["error"];
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("failure rate rose")),
        "{document}"
    );
    assert_eq!(error["kind"], "failed", "{document}");
    assert_eq!(document["exit_code"], 1, "{document}");
    assert_eq!(
        document["output"]["rows"][0]["label"], "chunks only",
        "the rows made before the failure: {document}"
    );
}
