//! `seamscope cache` as a user runs it: what the cache holds, and `--prune` with two indexes on
//! disk: the texts of a removed index go, every text an index still records stays.

mod common;

use std::path::{Path, PathBuf};

use common::{json_of, seamscope};

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let text: String = (0..50)
        .map(|i| format!("Step {i}. Drain traffic from the primary, check the replica's lag, then promote it and watch the error rate. "))
        .collect();
    std::fs::write(dir.path().join("runbook.md"), text).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// `index --json` at `chunk_tokens`: its folder and the tokens it embedded.
fn index(cache: &Path, corpus: &Path, chunk_tokens: &str) -> (PathBuf, u64) {
    let v = json_of(
        seamscope(cache)
            .args(["index", "--chunk-tokens", chunk_tokens, "--json"])
            .arg(corpus),
    );
    let dir = v["build"]["dir"]
        .as_str()
        .unwrap_or_else(|| panic!("no build dir in {v}"));
    (
        PathBuf::from(dir),
        v["tokens_embedded"].as_u64().unwrap_or(0),
    )
}

fn cache_json(cache: &Path, args: &[&str]) -> serde_json::Value {
    json_of(seamscope(cache).arg("cache").args(args).arg("--json"))
}

#[test]
fn prune_keeps_every_text_an_index_records_and_drops_the_rest() {
    let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let corpus = corpus();
    let (first, embedded) = index(cache.path(), corpus.path(), "120");
    assert!(embedded > 0);
    let (second, _) = index(cache.path(), corpus.path(), "200");
    assert_ne!(first, second);

    let v = cache_json(cache.path(), &[]);
    assert_eq!(v["indexes"], 2, "{v}");
    assert!(
        v["layouts"].as_u64().unwrap_or(0) >= 2,
        "stored layouts: {v}"
    );
    let file = &v["vectors"][0];
    let entries = file["entries"].as_u64().unwrap_or(0);
    assert_eq!(file["indexes"], 2, "{v}");
    assert_eq!(
        file["used"].as_u64(),
        Some(entries),
        "both indexes use every text: {v}"
    );

    // Nothing to prune while both indexes are there.
    let v = cache_json(cache.path(), &["--prune"]);
    assert_eq!(v["vectors"][0]["pruned"]["removed"], 0, "{v}");

    // The first index goes: its texts are unused now; a dry run counts them and keeps them.
    std::fs::remove_dir_all(&first).unwrap_or_else(|e| panic!("{e}"));
    let v = cache_json(cache.path(), &["--prune", "--dry-run"]);
    let would = v["vectors"][0]["pruned"]["removed"].as_u64().unwrap_or(0);
    assert!(would > 0, "{v}");
    let v = cache_json(cache.path(), &[]);
    assert_eq!(
        v["vectors"][0]["entries"].as_u64(),
        Some(entries),
        "a dry run removes nothing"
    );

    let v = cache_json(cache.path(), &["--prune"]);
    assert_eq!(
        v["vectors"][0]["pruned"]["removed"].as_u64(),
        Some(would),
        "{v}"
    );
    let v = cache_json(cache.path(), &[]);
    assert_eq!(v["vectors"][0]["entries"].as_u64(), Some(entries - would));
    assert_eq!(
        v["vectors"][0]["used"], v["vectors"][0]["entries"],
        "every text left is one the second index records: {v}"
    );

    // The second index, built again from the cache, embeds nothing: prune kept all it needs.
    std::fs::remove_dir_all(&second).unwrap_or_else(|e| panic!("{e}"));
    let (_, embedded) = index(cache.path(), corpus.path(), "200");
    assert_eq!(embedded, 0, "the second index's texts were all kept");
    // The first one's texts were the ones removed.
    let (_, embedded) = index(cache.path(), corpus.path(), "120");
    assert!(embedded > 0);

    // The text report names what is there.
    let out = seamscope(cache.path())
        .args(["cache", "--prune", "--dry-run"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for part in [
        "vector cache",
        "indexes         2 folders",
        "stored layouts",
        "would remove 0 texts",
    ] {
        assert!(text.contains(part), "{part}:\n{text}");
    }
}

#[test]
fn prune_leaves_a_model_whole_when_an_index_does_not_record_its_texts() {
    let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let corpus = corpus();
    let (dir, _) = index(cache.path(), corpus.path(), "120");
    // As an index built before indexes recorded their texts.
    let manifest = dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| panic!("{e}"));
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    if let Some(files) = m["files"].as_object_mut() {
        files.remove("texts.keys");
    }
    std::fs::write(&manifest, m.to_string()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(dir.join("texts.keys")).unwrap_or_else(|e| panic!("{e}"));

    let v = cache_json(cache.path(), &["--prune"]);
    let file = &v["vectors"][0];
    assert!(file["pruned"].is_null(), "{v}");
    assert!(
        file["kept_because"]
            .as_str()
            .is_some_and(|w| w.contains("before indexes recorded their texts")),
        "{v}"
    );
}

/// The extraction cache is listed, and `--prune` removes the entries no extractor reads any
/// more (an older version's, a damaged one) and keeps the current one, which the next open
/// reads back.
#[test]
fn prune_drops_extracted_text_of_older_extractors_and_damaged_entries() {
    let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let corpus = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        corpus.path().join("page.html"),
        "<html><body><h1>Failover</h1><p>Promote the replica, then watch the error rate.</p></body></html>",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let chunks = || {
        json_of(
            seamscope(cache.path())
                .args(["chunks", "--json"])
                .arg(corpus.path()),
        )
    };
    assert_eq!(chunks()["documents"][0]["extractor"], "html");
    let extracted = cache.path().join("extracted");
    let live: Vec<PathBuf> = std::fs::read_dir(&extracted)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(live.len(), 1, "{live:?}");
    let entry = std::fs::read_to_string(&live[0]).unwrap_or_else(|e| panic!("{e}"));
    let older = entry.replacen("\"version\":\"", "\"version\":\"0-older+", 1);
    assert_ne!(older, entry, "the entry names its extractor's version");
    std::fs::write(extracted.join("0000older.json"), older).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(extracted.join("0000damaged.json"), "{\"format\": 1, \"ext")
        .unwrap_or_else(|e| panic!("{e}"));

    let v = cache_json(cache.path(), &[]);
    assert_eq!(v["extracted"]["entries"], 3, "{v}");
    assert_eq!(v["extracted"]["stale"], 2, "{v}");
    let dry = cache_json(cache.path(), &["--prune", "--dry-run"]);
    assert_eq!(dry["extracted"]["removed"], 0, "{dry}");
    assert!(extracted.join("0000older.json").exists());
    let pruned = cache_json(cache.path(), &["--prune"]);
    assert_eq!(pruned["extracted"]["removed"], 2, "{pruned}");
    assert!(!extracted.join("0000older.json").exists());
    assert!(!extracted.join("0000damaged.json").exists());
    assert!(live[0].exists(), "the current extractor's entry stays");
    let after = cache_json(cache.path(), &[]);
    assert_eq!(after["extracted"]["entries"], 1, "{after}");
    assert_eq!(after["extracted"]["stale"], 0, "{after}");
    assert_eq!(chunks()["documents"][0]["extractor"], "html");
}
