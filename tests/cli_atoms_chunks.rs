//! The `atoms` and `chunks` commands as a user runs them, plus `--chunker` and `--heading-prefix`
//! on `index`: JSON that can be checked independently, and bad input.

mod common;

use serde_json::Value;

use common::seamscope;

const GUIDE: &str = "# Guide\n\n## Setup\n\nThe installer needs 2 GB of disk and takes about 5 minutes on a laptop.\n\n\
```sh\nmake install\nmake test\n```\n\n## Limits\n\n| limit | value |\n|---|---|\n| users | 40 |\n| disk | 2 GB |\n| rate | 100/s |\n\n\
Rate limits reset every 60 seconds, and a burst of 20 extra requests is allowed.\n";

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guide.md"), GUIDE).unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        "Plain notes with 3 numbers but no atoms, since this is not Markdown at all.\n",
    )
    .unwrap();
    dir
}

fn json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn atoms_counts_and_survival_as_json_and_table() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    let v = json(
        &seamscope(cache.path())
            .args(["atoms", "--json"])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    assert_eq!(v["documents"], 2);
    assert_eq!(v["markdown_documents"], 1);
    assert_eq!(v["budget"], 1024);
    let count = |class: &str| {
        v["lengths"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["class"] == class)
            .map(|l| l["count"].as_u64().unwrap())
    };
    assert_eq!(count("fence"), Some(1));
    assert_eq!(count("table"), Some(1));
    assert_eq!(count("row"), Some(3));
    assert_eq!(count("figure_sentence"), Some(2));
    let chunkers = v["chunkers"].as_array().unwrap();
    let names: Vec<&str> = chunkers
        .iter()
        .map(|c| c["chunker"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "fixed-1024",
            "sentence-1024",
            "recursive-1024",
            "structure-1024"
        ]
    );
    // One chunk per document at this budget: everything is whole.
    for c in chunkers {
        for class in c["classes"].as_array().unwrap() {
            assert_eq!(class["whole"], class["atoms"], "{c}");
        }
    }

    let out = seamscope(cache.path())
        .args([
            "atoms",
            "--budget-tokens",
            "16",
            "--chunker",
            "fixed,structure",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("chunk budget 16 tokens"), "{text}");
    assert!(
        text.contains("fixed-16") && text.contains("structure-16"),
        "{text}"
    );
    assert!(!text.contains("sentence-16"), "{text}");
    assert!(text.contains("figure sentence"), "{text}");
}

#[test]
fn chunks_json_lets_anyone_check_the_layout() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    let v = json(
        &seamscope(cache.path())
            .args([
                "chunks",
                "--chunker",
                "structure",
                "--chunk-tokens",
                "24",
                "--k",
                "8",
                "--heading-prefix",
                "--json",
            ])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    assert_eq!(v["chunker"], "structure-24+headings");
    assert_eq!(v["k"], 8);
    let chunks = v["chunks"].as_array().unwrap();
    for doc in v["documents"].as_array().unwrap() {
        let path = doc["path"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.path().join(path)).unwrap();
        let mine: Vec<&Value> = chunks.iter().filter(|c| c["doc"] == path).collect();
        let mut at = 0;
        let mut tokens = 0;
        for c in &mine {
            assert_eq!(c["start"].as_u64().unwrap() as usize, at, "contiguous");
            at = c["end"].as_u64().unwrap() as usize;
            let n = c["tokens"].as_u64().unwrap();
            assert!(n <= 24);
            tokens += n;
        }
        assert_eq!(at, text.len(), "the chunks cover {path}");
        assert_eq!(tokens, doc["tokens"].as_u64().unwrap());
    }
    // Seams link adjacent chunks of one document and lie inside them.
    for s in v["seams"].as_array().unwrap() {
        let l = &chunks[s["left"].as_u64().unwrap() as usize];
        let r = &chunks[s["right"].as_u64().unwrap() as usize];
        assert_eq!(l["doc"], s["doc"]);
        assert_eq!(l["end"], r["start"]);
        assert_eq!(s["cut"], r["start"]);
        assert!(s["start"].as_u64() >= l["start"].as_u64());
        assert!(s["end"].as_u64() <= r["end"].as_u64());
    }
    // Search prefixes name the heading path; a chunk that starts inside the table gets its header.
    let prefixes: Vec<&str> = chunks
        .iter()
        .filter_map(|c| c["search_prefix"].as_str())
        .collect();
    assert!(
        prefixes.iter().any(|p| p.starts_with("Guide > ")),
        "{prefixes:?}"
    );
    assert!(
        prefixes
            .iter()
            .any(|p| p.ends_with("| limit | value |\n|---|---|\n")),
        "{prefixes:?}"
    );
}

#[test]
fn chunker_choice_and_heading_prefix_key_their_own_index() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    let index = |extra: &[&str]| {
        json(
            &seamscope(cache.path())
                .args(["index", "--chunk-tokens", "24", "--k", "8", "--json"])
                .args(extra)
                .arg(dir.path())
                .output()
                .unwrap(),
        )
    };
    let fixed = index(&[]);
    let structure = index(&["--chunker", "structure"]);
    let headings = index(&["--chunker", "structure", "--heading-prefix"]);
    assert_eq!(fixed["chunker"], "fixed-24");
    assert_eq!(structure["chunker"], "structure-24");
    assert_eq!(headings["chunker"], "structure-24+headings");
    let dirs: std::collections::HashSet<String> = [&fixed, &structure, &headings]
        .iter()
        .map(|v| v["build"]["dir"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(dirs.len(), 3, "each setting has its own index folder");
    // Same spans with and without the prefix: the prefix is for search only.
    assert_eq!(structure["chunks"], headings["chunks"]);
    let again = index(&["--chunker", "structure", "--heading-prefix=true"]);
    assert_eq!(again["build"]["reopened"], true);
}

#[test]
fn atoms_splits_failures_into_cuts_and_rank_misses() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    let quote = "Rate limits reset every 60 seconds";
    let start = GUIDE.find(quote).unwrap();
    let questions = dir.path().join("q.jsonl");
    std::fs::write(
        &questions,
        format!(
            "{}\n",
            serde_json::json!({
                "id": "r1", "question": "How often do rate limits reset?", "doc": "guide.md",
                "spans": [{"start": start, "end": start + quote.len(), "text": quote}]
            })
        ),
    )
    .unwrap();
    let v = json(
        &seamscope(cache.path())
            .args([
                "atoms",
                "--chunker",
                "fixed,structure",
                "--budget-tokens",
                "24",
                "--json",
            ])
            .arg("--questions")
            .arg(&questions)
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    let rows = v["retrieval"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "chunks only and Seams, per chunker");
    for r in rows {
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(n("questions"), 1);
        assert_eq!(n("answered") + n("cut") + n("rank_miss"), 1, "{r}");
    }
    assert_eq!(rows[0]["chunker"], "fixed-24");
    assert_eq!(rows[2]["chunker"], "structure-24");
    // The structure-aware chunker keeps this sentence whole, so it cannot be a cut there.
    assert_eq!(rows[2]["cut"], 0);
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    let out = seamscope(cache.path())
        .args(["chunks", "--chunker", "paragraphs", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("structure"));

    let out = seamscope(cache.path())
        .args(["atoms", "--budget-tokens", "3"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a value out of range is a usage error"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--budget-tokens"));

    let out = seamscope(cache.path())
        .args(["atoms", "no-such-folder"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-folder"));

    let missing = dir.path().join("missing.jsonl");
    let out = seamscope(cache.path())
        .args(["atoms", "--questions"])
        .arg(&missing)
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.jsonl"));
}

#[test]
fn global_options_may_come_before_the_command() {
    let cache = tempfile::tempdir().unwrap();
    let dir = corpus();
    let out = seamscope(cache.path())
        .arg("--cache-dir")
        .arg(cache.path())
        .args(["chunks", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = seamscope(cache.path())
        .args(["--theme", "dark", "chunks"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--theme"));
}

#[test]
fn a_reader_that_leaves_early_ends_seamscope_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let cache = tempfile::tempdir().unwrap();
    let _ = common::settings(cache.path());
    // `seamscope chunks --json --chunk-tokens 16 sample-corpus | head -c 100`: 2 MB, far more
    // than a pipe holds.
    let mut child = Command::new(env!("CARGO_BIN_EXE_seamscope"))
        .args(["chunks", "--json", "--chunk-tokens", "16", "sample-corpus"])
        .env("SEAMSCOPE_CACHE_DIR", cache.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone (its end of the pipe dropped above).
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
        "{:?}",
        out.status
    );
}

/// The fixed chunker's cuts move back to a word start at most 40 bytes: the sample's moves are
/// reported and within it, and a cut that falls deep in a 300-byte URL stays at its token
/// boundary instead of moving back to the URL's start.
#[test]
fn fixed_cuts_move_back_to_a_word_at_most_the_bound_and_say_how_far() {
    let dir = tempfile::tempdir().unwrap();
    let sample = json(
        &seamscope(dir.path())
            .args(["chunks", "sample-corpus", "--json"])
            .output()
            .unwrap(),
    );
    let moves = &sample["cut_moves"];
    let seams = sample["seams"].as_array().unwrap().len() as u64;
    assert_eq!(
        moves["cuts"].as_u64(),
        Some(seams),
        "one cut per seam: {moves}"
    );
    assert!(moves["moved"].as_u64().unwrap() <= seams, "{moves}");
    assert!(moves["max_bytes"].as_u64().unwrap() <= 40, "{moves}");
    assert_eq!(moves["bound_bytes"], 40);

    let corpus = tempfile::tempdir().unwrap();
    let url = format!("https://example.com/{}", "x1y2z3".repeat(50));
    let text = format!("{} {url} {}", "word ".repeat(100), "tail ".repeat(100));
    std::fs::write(corpus.path().join("links.txt"), &text).unwrap();
    let v = json(
        &seamscope(dir.path())
            .args(["chunks", "--chunk-tokens", "130", "--json"])
            .arg(corpus.path())
            .output()
            .unwrap(),
    );
    let first_end = v["chunks"][0]["end"].as_u64().unwrap() as usize;
    let url_at = text.find("https").unwrap();
    assert!(
        first_end > url_at + 40 && first_end < url_at + url.len(),
        "the cut stays inside the URL, where the tokens put it: {first_end} (URL at {url_at})"
    );
    assert_eq!(
        v["cut_moves"]["max_bytes"].as_u64(),
        Some(0),
        "{}",
        v["cut_moves"]
    );
}
