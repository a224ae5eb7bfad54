//! The `index` command as a user runs it: summary, JSON, reopening, rebuilds and bad input.

mod common;

use common::seamscope;

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..60)
        .map(|i| format!("Section {i}. The runbook says to drain traffic before promoting the replica, and to check lag first. "))
        .collect();
    std::fs::write(dir.path().join("runbook.md"), text).unwrap();
    std::fs::write(dir.path().join("logo.png"), [0x89, b'P', 0, 0]).unwrap();
    dir
}

#[test]
fn index_prints_what_it_did_then_reopens_without_embedding() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let v = common::json_of(
        seamscope(cache.path())
            .args(["index", "--chunk-tokens", "200", "--k", "50", "--json"])
            .arg(corpus.path()),
    );
    assert_eq!(v["documents"], 1);
    assert_eq!(v["skipped"][0]["path"], "logo.png");
    assert_eq!(v["skipped"][0]["reason"], "binary");
    let chunks = v["chunks"].as_u64().unwrap();
    assert!(chunks >= 5);
    assert_eq!(v["seams"].as_u64().unwrap(), chunks - 1);
    assert_eq!(v["build"]["reopened"], false);
    assert!(v["tokens_embedded"].as_u64().unwrap() > 0);
    assert_eq!(v["stored_layouts"]["built"], 1, "{v}");
    // Indexed again: the document's layout is read back, not tokenized again.
    let again = common::json_of(
        seamscope(cache.path())
            .args(["index", "--chunk-tokens", "200", "--k", "50", "--json"])
            .arg(corpus.path()),
    );
    assert_eq!(
        (
            again["stored_layouts"]["reused"].as_u64(),
            again["chunks"].as_u64()
        ),
        (Some(1), Some(chunks)),
        "{again}"
    );

    let out = seamscope(cache.path())
        .args(["index", "--chunk-tokens", "200", "--k", "50"])
        .arg(corpus.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("none: reopened a verified index"), "{text}");
    assert!(text.contains("skipped logo.png: binary file"), "{text}");
    assert!(text.contains("x chunks alone"), "{text}");
}

#[test]
fn a_damaged_index_is_rebuilt_with_a_message() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let run = || {
        seamscope(cache.path())
            .args(["index", "--chunk-tokens", "200", "--k", "50", "--json"])
            .arg(corpus.path())
            .output()
            .unwrap()
    };
    let first: serde_json::Value = serde_json::from_slice(&run().stdout).unwrap();
    let dir = std::path::PathBuf::from(first["build"]["dir"].as_str().unwrap());
    std::fs::write(dir.join("chunks.usearch"), b"truncated").unwrap();
    let out = run();
    assert!(out.status.success());
    let second: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(second["build"]["reopened"], false);
    assert!(
        second["build"]["rebuilt_because"]
            .as_str()
            .unwrap()
            .contains("chunks.usearch")
    );
}

#[test]
fn bad_input_gets_a_clear_error_and_exit_code() {
    let cache = tempfile::tempdir().unwrap();
    let out = seamscope(cache.path())
        .args(["index", "/definitely/not/here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot open corpus at /definitely/not/here")
    );

    let corpus = corpus();
    let out = seamscope(cache.path())
        .args(["index", "--k", "0"])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a value out of range is a usage error"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--k") && stderr.contains("1..=4096"),
        "{stderr}"
    );

    let out = seamscope(cache.path())
        .args(["index", "--k", "-3", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error exits 2");

    let empty = tempfile::tempdir().unwrap();
    let out = seamscope(cache.path())
        .arg("index")
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no usable documents"));
}

#[test]
fn a_model_window_past_the_models_own_is_refused_before_anything_is_cut() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let config = cache.path().join("settings.toml");
    std::fs::write(&config, "model_max_tokens = 1000\n").unwrap();
    let out = seamscope(cache.path())
        .arg("index")
        .arg("--config")
        .arg(&config)
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("model_max_tokens = 1000") && stderr.contains("window is 512 tokens"),
        "{stderr}"
    );
}

#[test]
fn nothing_usable_lists_the_skips_in_text_and_json_and_names_say_it_once() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("logo.png"), [0x89, b'P', 0, 0]).unwrap();
    std::fs::write(dir.path().join("bad\nname.txt"), "").unwrap();
    let out = seamscope(cache.path())
        .args(["index", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 skipped")
            && stderr.contains("logo.png: binary file")
            && stderr.contains("bad␊name.txt: empty"),
        "{stderr}"
    );
    assert!(!stderr.contains("--verbose"), "{stderr}");
    assert!(
        !stderr.lines().any(|l| l.starts_with("name.txt")),
        "a newline in a name does not break the listing: {stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exit_code"], 1);
    let skipped = v["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{v}");
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "logo.png" && s["reason"] == "binary"),
        "{v}"
    );

    // A missing corpus: the operating system's reason once, not twice.
    let out = seamscope(cache.path())
        .args(["index", "/definitely/not/here"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("os error 2").count(), 1, "{stderr}");
}

#[test]
fn names_with_newlines_stay_on_one_line_in_listings() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    std::fs::write(
        dir.path().join("two\nlines.md"),
        "A short document with a hostile name.",
    )
    .unwrap();
    let out = seamscope(cache.path())
        .arg("chunks")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("two␊lines.md#0"), "{stdout}");
    assert!(
        !stdout.lines().any(|l| l.starts_with("lines.md")),
        "{stdout}"
    );
}

#[test]
fn cache_edges_a_file_as_cache_and_leftovers_of_a_killed_build() {
    let corpus = corpus();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cache-is-a-file");
    std::fs::write(&file, b"x").unwrap();
    let out = seamscope(dir.path())
        .env("SEAMSCOPE_CACHE_DIR", &file)
        .arg("index")
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot be written") && stderr.contains("nothing was embedded"),
        "{stderr}"
    );

    // A build killed mid-write left its staging folder; the next open removes it.
    let cache = tempfile::tempdir().unwrap();
    let leftover = cache.path().join("indexes").join(".build-killed");
    std::fs::create_dir_all(leftover.join("chunks.bm25")).unwrap();
    std::fs::write(leftover.join("build.lock"), b"").unwrap();
    // An hour ago: a folder younger than a minute may be a live build about to take its lock.
    std::fs::File::open(&leftover)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    let out = seamscope(cache.path())
        .args(["index", "--chunk-tokens", "200", "--k", "50"])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!leftover.exists(), "the killed build's folder is gone");
}

#[test]
fn an_empty_place_is_blamed_on_where_it_came_from() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    for (variable, flag, holds) in [
        ("SEAMSCOPE_CACHE_DIR", "--cache-dir", "a path"),
        ("SEAMSCOPE_CHROMA_URL", "--chroma", "a server address"),
        (
            "SEAMSCOPE_STORE",
            "--store",
            "a store (embedded, chroma:URL or pgvector:URL)",
        ),
    ] {
        let out = seamscope(cache.path())
            .env(variable, "")
            .arg("index")
            .arg(corpus.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("environment variable {variable} is set but empty"))
                && stderr.contains(holds),
            "{stderr}"
        );
        assert!(!stderr.contains(flag), "no flag was typed: {stderr}");
    }

    let out = seamscope(cache.path())
        .args(["index", "--cache-dir", ""])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--cache-dir") && stderr.contains("the path is empty"),
        "{stderr}"
    );
}
