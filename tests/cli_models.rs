//! `seamscope models`: the real binary lists the default model and fastembed's catalog, sees what
//! a data directory holds, and says what to fetch by hand when the hub is away.

mod common;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// The binary with `data_dir` as its data directory and no hub settings from outside.
fn models(data_dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("seamscope").unwrap();
    cmd.arg("models")
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("HF_ENDPOINT")
        .env_remove("HF_TOKEN");
    cmd
}

/// The catalog entry of `kind` named `name` in a `--json` listing.
fn entry<'a>(listing: &'a Value, kind: &str, name: &str) -> &'a Value {
    listing["catalog"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == kind && e["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in the listing"))
}

#[test]
fn the_listing_names_the_catalog_with_dimensions_and_windows_and_nothing_installed() {
    let data = tempfile::tempdir().unwrap();
    let listing = common::json_of(models(data.path()).arg("--json"));
    for (kind, name, dim, window) in [
        ("embedder", "bge-small-en-v1.5", Some(384), 512),
        ("embedder", "bge-base-en-v1.5", Some(768), 512),
        ("embedder", "all-MiniLM-L6-v2", Some(384), 256),
        ("embedder", "all-MiniLM-L12-v2", Some(384), 128),
        ("embedder", "nomic-embed-text-v1.5", Some(768), 8192),
        ("embedder", "multilingual-e5-small", Some(384), 512),
        ("embedder", "multilingual-e5-base", Some(768), 512),
        ("embedder", "mxbai-embed-large-v1", Some(1024), 512),
        ("embedder", "gte-base-en-v1.5", Some(768), 8192),
        ("reranker", "bge-reranker-base", None, 512),
        ("reranker", "jina-reranker-v1-turbo-en", None, 8192),
    ] {
        let e = entry(&listing, kind, name);
        assert_eq!(e["dim"].as_u64(), dim, "{name}");
        assert_eq!(e["window"], window, "{name}");
        assert_eq!(e["installed"], false, "{name}");
        assert!(e["size_on_disk"].is_null(), "{name}");
    }
    assert!(
        listing["catalog"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["installed"] == false)
    );
    // Quantized variants are listed, and say how.
    assert_eq!(
        entry(&listing, "embedder", "bge-small-en-v1.5-q")["quantized"],
        "static"
    );
    // The pinned default comes first, marked, and is not in an empty data directory.
    let default = &listing["default"];
    assert_eq!(default["name"], "all-MiniLM-L6-v2-int8");
    assert_eq!(
        (&default["default"], &default["installed"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    assert_eq!(
        listing["cache_dir"].as_str().unwrap(),
        data.path().join("fastembed").to_str().unwrap()
    );

    // The table says the same to a person.
    let out = models(data.path()).assert().success().get_output().clone();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().nth(1).unwrap();
    assert!(
        first.starts_with("all-MiniLM-L6-v2-int8") && first.contains("default"),
        "{first}"
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("jina-reranker-v1-turbo-en "))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["jina-reranker-v1-turbo-en", "-", "8192", "-", "no"]);
}

#[test]
fn a_hand_laid_out_model_shows_installed_with_its_size_and_folder() {
    let data = tempfile::tempdir().unwrap();
    let folder = data
        .path()
        .join("fastembed")
        .join("models--Xenova--bge-small-en-v1.5");
    let snapshot = folder.join("snapshots").join("manual");
    let files = [
        ("onnx/model.onnx", 1000),
        ("tokenizer.json", 200),
        ("config.json", 30),
        ("special_tokens_map.json", 4),
        ("tokenizer_config.json", 5),
    ];
    for (file, size) in files {
        let path = snapshot.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, vec![b'x'; size]).unwrap();
    }
    std::fs::create_dir_all(folder.join("refs")).unwrap();
    // Written by hand, with the newline `echo` leaves.
    std::fs::write(folder.join("refs").join("main"), "manual\n").unwrap();

    let listing = common::json_of(models(data.path()).arg("--json"));
    let e = entry(&listing, "embedder", "bge-small-en-v1.5");
    assert_eq!(e["installed"], true);
    assert_eq!(e["size_on_disk"], 1239);
    assert_eq!(e["folder"].as_str().unwrap(), folder.to_str().unwrap());
    // Only that one.
    let installed: Vec<&Value> = listing["catalog"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["installed"] == true)
        .collect();
    assert_eq!(installed.len(), 1);

    let out = models(data.path()).assert().success().get_output().clone();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("bge-small-en-v1.5 "))
        .unwrap();
    assert!(
        row.contains("1.2 kB") && row.contains(&format!("yes  {}", folder.display())),
        "{row}"
    );

    // A file gone: no longer installed.
    std::fs::remove_file(snapshot.join("tokenizer.json")).unwrap();
    let listing = common::json_of(models(data.path()).arg("--json"));
    assert_eq!(
        entry(&listing, "embedder", "bge-small-en-v1.5")["installed"],
        false
    );
}

#[test]
fn the_default_model_shows_installed_in_the_real_data_directory() {
    let cache = tempfile::tempdir().unwrap();
    let places = seamscope::places::Places::of(&common::settings(cache.path()));
    let listing = common::json_of(models(&places.data_dir).arg("--json"));
    let default = &listing["default"];
    assert_eq!(default["installed"], true);
    assert!(default["size_on_disk"].as_u64().unwrap() > 1_000_000);
    assert_eq!(
        default["folder"].as_str().unwrap(),
        places.data_dir.join("model").to_str().unwrap()
    );
}

#[test]
fn fetching_offline_says_which_files_to_put_where_by_hand() {
    let data = tempfile::tempdir().unwrap();
    let folder = data
        .path()
        .join("fastembed")
        .join("models--jinaai--jina-reranker-v1-turbo-en");
    let out = models(data.path())
        .args(["--fetch", "jina-reranker-v1-turbo-en"])
        .env("HF_HUB_OFFLINE", "1")
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    for part in [
        "fastembed:jina-reranker-v1-turbo-en",
        "HF_HUB_OFFLINE is set",
        "jinaai/jina-reranker-v1-turbo-en",
        "onnx/model.onnx",
        "tokenizer.json",
        "--reranker-dir DIR",
        &folder.join("refs").join("main").display().to_string(),
    ] {
        assert!(err.contains(part), "missing {part}: {err}");
    }
    assert!(!folder.exists());

    // A hub that cannot be reached says so, with its address.
    let out = models(data.path())
        .args(["--fetch", "bge-small-en-v1.5"])
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("the hub at http://127.0.0.1:9 cannot be reached")
            && err.contains("--model-dir DIR")
            && err.contains("CLS pooling"),
        "{err}"
    );
}

#[test]
fn an_unknown_name_is_a_usage_error_with_close_names() {
    let data = tempfile::tempdir().unwrap();
    let out = models(data.path())
        .args(["--fetch", "mxbai-embed-large"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("mxbai-embed-large-v1") && err.contains("seamscope models"),
        "{err}"
    );
}
