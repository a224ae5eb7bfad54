//! `seamscope bench query` on a small corpus: re-plans timed from real query inputs for each
//! slider, and a question file that is empty or bad is a clear error, never a panic or a silent
//! fallback.

mod common;

use common::seamscope;

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..40)
        .map(|i| format!("Step {i}. Drain the replica, then confirm the lag is under five seconds before promoting it. "))
        .collect();
    std::fs::write(dir.path().join("runbook.md"), text).unwrap();
    std::fs::write(
        dir.path().join("settings.toml"),
        "chunk_tokens = 120\nk = 30\n",
    )
    .unwrap();
    dir
}

fn bench(cache: &std::path::Path, corpus: &std::path::Path) -> std::process::Output {
    seamscope(cache)
        .arg("--config")
        .arg(corpus.join("settings.toml"))
        .args(["bench", "query", "--json"])
        .arg(corpus)
        .output()
        .unwrap()
}

#[test]
fn bench_query_times_each_slider_from_real_inputs() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out = bench(cache.path(), corpus.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("built-in questions"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let changes: Vec<&str> = v["replan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["m", "budget", "c"]);
    for r in v["replan"].as_array().unwrap() {
        let (min, median, max) = (
            r["min_us"].as_f64().unwrap(),
            r["median_us"].as_f64().unwrap(),
            r["max_us"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= median && median <= max, "{r}");
    }
    // Both sides are fused on every re-plan: the inputs hold seams and a chunks-only side.
    assert!(v["fused_entries_mean"].as_f64().unwrap() > 0.0);
    assert!(v["chunks_only_entries_mean"].as_f64().unwrap() > 0.0);
}

#[test]
fn bench_query_rejects_an_empty_or_bad_question_file() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let questions = corpus.path().join("questions.jsonl");

    std::fs::write(&questions, "\n  \n").unwrap();
    let out = bench(cache.path(), corpus.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("holds no questions"), "{stderr}");

    std::fs::write(&questions, "{\"id\": \"q1\", \"question\": \"why\"}\n").unwrap();
    let out = bench(cache.path(), corpus.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("questions.jsonl") && stderr.contains("line 1"),
        "{stderr}"
    );
}

#[test]
fn bench_ingest_embeds_the_pipeline_texts_once_each_over_alternating_rounds() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    // A second copy of the runbook: its chunks and seams repeat the first one's texts, which the
    // pipeline embeds once; the direct run must do the same work.
    let text = std::fs::read_to_string(corpus.path().join("runbook.md")).unwrap();
    std::fs::write(corpus.path().join("copy.md"), text).unwrap();
    let out = seamscope(cache.path())
        .arg("--config")
        .arg(corpus.path().join("settings.toml"))
        .args(["bench", "ingest", "--json"])
        .arg(corpus.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let count = |key: &str| v[key].as_u64().unwrap();
    assert!(
        count("distinct_texts") < count("chunks") + count("seams"),
        "{v}"
    );
    assert!(count("rounds") >= 3);
    for run in ["direct_seconds", "pipeline_seconds"] {
        let s = &v[run];
        let (min, median, max) = (
            s["min"].as_f64().unwrap(),
            s["median"].as_f64().unwrap(),
            s["max"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= median && median <= max, "{run}: {s}");
    }
    // Rounds alternate which run goes first.
    let order: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("bench: round "))
        .filter(|l| l.contains("..."))
        .map(|l| {
            if l.contains("direct") {
                "direct"
            } else {
                "pipeline"
            }
        })
        .collect();
    assert_eq!(
        order,
        [
            "direct", "pipeline", "pipeline", "direct", "direct", "pipeline"
        ]
    );
}

#[test]
fn bench_scale_indexes_varied_copies_each_in_a_child_and_measures_it() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out = seamscope(cache.path())
        .arg("--config")
        .arg(corpus.path().join("settings.toml"))
        .args([
            "bench",
            "scale",
            "--sizes",
            "1,2",
            "--questions",
            "2",
            "--json",
        ])
        .arg(corpus.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let field =
        |r: &serde_json::Value, f: &str| r[f].as_f64().unwrap_or_else(|| panic!("{f}: {r}"));
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (field(&rows[0], "copies"), field(&rows[1], "copies")),
        (1.0, 2.0)
    );
    assert_eq!(
        field(&rows[1], "documents"),
        2.0 * field(&rows[0], "documents")
    );
    // The second copy differs from the first: the cache cannot serve it, so it is embedded.
    let embedded = |r| field(r, "tokens_embedded");
    assert!(embedded(&rows[1]) > 1.9 * embedded(&rows[0]), "{rows:?}");
    for r in rows {
        // A child's own peak memory: at least the model's weights, far below a runaway.
        let peak = field(r, "cold_peak_rss_bytes");
        assert!((30e6..4e9).contains(&peak), "{r}");
        assert!(field(r, "index_bytes_on_disk") > 0.0);
        // A new k embeds only seams: fewer tokens than the cold build.
        let k_tokens = field(r, "k_change_tokens_embedded");
        assert!(0.0 < k_tokens && k_tokens < embedded(r), "{r}");
        let recall = field(r, "hnsw_recall_at_20");
        assert!((0.0..=1.0).contains(&recall));
        assert_eq!(r["search_mode"], "exact");
        let q = &r["query_ms"];
        assert!(q["min"].as_f64().unwrap() <= field(r, "query_p95_ms"));
    }
    // The screen's first frame, cold and warm, at each size.
    let frames = v["first_frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2, "{v}");
    for f in frames {
        assert!(
            field(f, "cold_seconds") > 0.0 && field(f, "warm_seconds") > 0.0,
            "{f}"
        );
    }
}

#[test]
fn bench_scale_open_only_times_the_first_frame_cold_and_warm() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out = seamscope(cache.path())
        .arg("--config")
        .arg(corpus.path().join("settings.toml"))
        .args(["bench", "scale", "--open-only", "--sizes", "1,3", "--json"])
        .arg(corpus.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["rows"].as_array().map(Vec::len),
        Some(0),
        "nothing indexed: {v}"
    );
    let frames = v["first_frames"].as_array().unwrap();
    let field =
        |r: &serde_json::Value, f: &str| r[f].as_f64().unwrap_or_else(|| panic!("{f}: {r}"));
    assert_eq!(frames.len(), 2);
    assert_eq!(
        field(&frames[1], "documents"),
        3.0 * field(&frames[0], "documents")
    );
    for f in frames {
        let (cold, cold_all) = (
            field(f, "cold_seconds"),
            field(f, "cold_all_documents_seconds"),
        );
        let (warm, warm_all) = (
            field(f, "warm_seconds"),
            field(f, "warm_all_documents_seconds"),
        );
        assert!(0.0 < cold && cold <= cold_all, "{f}");
        assert!(0.0 < warm && warm <= warm_all, "{f}");
    }
}

#[test]
fn bench_scale_refuses_a_size_out_of_range() {
    let cache = tempfile::tempdir().unwrap();
    let out = seamscope(cache.path())
        .args(["bench", "scale", "--sizes", "1,0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1..=64"));
}
