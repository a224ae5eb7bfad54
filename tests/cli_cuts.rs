//! `--cuts FILE` end to end with the real binary: a LangChain dump made by the real
//! `langchain-text-splitters` package (scripts/test makes it and names it in
//! SEAMSCOPE_TEST_LANGCHAIN_CUTS), the committed LlamaIndex and plain fixtures, `eval` on given
//! cuts, a bundle of given cuts opened again, and bad files refused before anything is embedded.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{json_of, seamscope};
use serde_json::Value;

const SAMPLE: &str = "sample-corpus";

/// The LangChain cuts of sample-corpus/: the file scripts/test made, or one made now with the
/// test virtual environment's Python when the variable is not set.
fn langchain_cuts(work: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("SEAMSCOPE_TEST_LANGCHAIN_CUTS") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "SEAMSCOPE_TEST_LANGCHAIN_CUTS names {}, which is not a file",
            path.display()
        );
        return path;
    }
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pyseams-venv/bin/python");
    assert!(
        python.is_file(),
        "these tests need a cuts file made by langchain-text-splitters: run scripts/test (it sets SEAMSCOPE_TEST_LANGCHAIN_CUTS), or set SEAMSCOPE_TEST_LANGCHAIN_CUTS to the output of `python scripts/dump-cuts.py sample-corpus FILE`"
    );
    let out = work.join("langchain-cuts.jsonl");
    let status = std::process::Command::new(&python)
        .args(["scripts/dump-cuts.py", SAMPLE])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        status.success(),
        "scripts/dump-cuts.py failed (is langchain-text-splitters installed in the test venv?)"
    );
    out
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn chunks_json(cache: &Path, corpus: &Path, cuts: &Path) -> Value {
    json_of(
        seamscope(cache)
            .arg("chunks")
            .arg(corpus)
            .arg("--cuts")
            .arg(cuts)
            .arg("--json"),
    )
}

fn u(v: &Value, key: &str) -> usize {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}")) as usize
}

#[test]
fn cuts_a_langchain_dump_shows_its_chunks_and_a_seam_in_every_overlap() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cuts = langchain_cuts(work.path());
    let dump = records(&cuts);
    let v = chunks_json(&work.path().join("cache"), Path::new(SAMPLE), &cuts);
    assert_eq!(v["given"]["format"], "langchain");
    assert!(
        v["chunker"]
            .as_str()
            .is_some_and(|c| c.starts_with("given-")),
        "{}",
        v["chunker"]
    );
    let chunks = v["chunks"].as_array().unwrap_or_else(|| panic!("chunks"));
    assert_eq!(chunks.len(), dump.len(), "one chunk per Document");
    // Every chunk is exactly one Document's page_content, at its start_index.
    let text_of = |c: &Value| {
        let doc = std::fs::read_to_string(Path::new(SAMPLE).join(c["doc"].as_str().unwrap_or("")))
            .unwrap_or_default();
        doc[u(c, "start")..u(c, "end")].to_string()
    };
    let given: BTreeSet<(String, usize)> = dump
        .iter()
        .map(|d| {
            let source = d["metadata"]["source"].as_str().unwrap_or("");
            let name = source.rsplit('/').next().unwrap_or(source).to_string();
            (
                format!("{name}|{}", d["page_content"].as_str().unwrap_or("")),
                u(&d["metadata"], "start_index"),
            )
        })
        .collect();
    let shown: BTreeSet<(String, usize)> = chunks
        .iter()
        .map(|c| {
            (
                format!("{}|{}", c["doc"].as_str().unwrap_or(""), text_of(c)),
                u(c, "start"),
            )
        })
        .collect();
    assert_eq!(shown, given);
    // Token counts come from the model's tokenizer, never zero for real text.
    assert!(chunks.iter().all(|c| u(c, "tokens") > 0));
    // One seam per neighbouring pair in each document.
    let docs_with_chunks = v["documents"]
        .as_array()
        .map_or(0, |d| d.iter().filter(|d| u(d, "chunks") > 0).count());
    let seams = v["seams"].as_array().unwrap_or_else(|| panic!("seams"));
    assert_eq!(seams.len(), chunks.len() - docs_with_chunks);
    let mut overlapping = 0;
    for s in seams {
        let (l, r) = (&chunks[u(s, "left")], &chunks[u(s, "right")]);
        assert_eq!(u(s, "right"), u(s, "left") + 1);
        assert!(
            u(l, "start") <= u(s, "start") && u(s, "end") <= u(r, "end"),
            "{s} stays in its two chunks"
        );
        assert!(
            u(s, "start") <= u(s, "cut") && u(s, "cut") <= u(s, "end"),
            "{s} holds its cut"
        );
        if u(l, "end") > u(r, "start") {
            overlapping += 1;
            assert_eq!(
                s["overlap_bytes"].as_u64(),
                Some((u(l, "end") - u(r, "start")) as u64)
            );
            // The cut is the overlap's middle, moved back at most to a word start.
            let mid = (u(r, "start") + u(l, "end")) / 2;
            assert!(
                u(r, "start") <= u(s, "cut") && u(s, "cut") <= mid && mid - u(s, "cut") < 40,
                "{s}: cut near {mid}"
            );
        } else {
            assert_eq!(
                u(s, "cut"),
                (u(l, "end") + u(r, "start")) / 2,
                "{s}: a gap is cut in its middle"
            );
        }
    }
    assert!(
        overlapping > 10,
        "RecursiveCharacterTextSplitter(chunk_overlap=400) overlaps: {overlapping}"
    );
    // The text a splitter strips between chunks is uncovered.
    assert!(v["documents"].as_array().is_some_and(|d| {
        d.iter()
            .any(|d| d["uncovered"].as_array().is_some_and(|u| !u.is_empty()))
    }));
}

#[test]
fn cuts_llamaindex_and_plain_files_load() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let fixtures = Path::new("tests/fixtures/cuts");
    let v = chunks_json(&cache, Path::new(SAMPLE), &fixtures.join("llamaindex.json"));
    assert_eq!(v["given"]["format"], "llamaindex");
    let spans: Vec<(usize, usize)> = v["chunks"].as_array().map_or(Vec::new(), |c| {
        c.iter().map(|c| (u(c, "start"), u(c, "end"))).collect()
    });
    assert_eq!(spans, [(0, 7869), (7224, 14836), (14105, 22097)]);
    assert_eq!(v["seams"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["seams"][0]["overlap_bytes"], 7869 - 7224);

    let v = chunks_json(&cache, Path::new(SAMPLE), &fixtures.join("plain.jsonl"));
    assert_eq!(v["given"]["format"], "plain");
    let chunks = v["chunks"].as_array().unwrap_or_else(|| panic!("chunks"));
    let guide: Vec<(usize, usize)> = chunks
        .iter()
        .filter(|c| c["doc"] == "guide-ingest-pipeline.md")
        .map(|c| (u(c, "start"), u(c, "end")))
        .collect();
    assert_eq!(
        guide,
        [(0, 5627), (4982, 11866), (13485, 24264)],
        "sorted by start"
    );
    assert!(
        chunks.iter().any(|c| c["doc"] == "rate_limiter.py"),
        "a path relative to the working folder"
    );
    let doc = v["documents"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["path"] == "guide-ingest-pipeline.md"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        doc["uncovered"],
        serde_json::json!([{"start": 11866, "end": 13485}])
    );
    let gap = v["seams"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["gap_bytes"].is_u64()))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (u(&gap, "gap_bytes"), u(&gap, "cut")),
        (13485 - 11866, (11866 + 13485) / 2)
    );
    // Documents the file never names have no chunks: their text is all uncovered.
    let other = v["documents"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["path"] == "onboarding-handbook.txt"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (u(&other, "chunks"), other["uncovered"][0]["start"].as_u64()),
        (0, Some(0))
    );

    // The text listing says which file and format.
    let out = seamscope(&cache)
        .args(["chunks", SAMPLE, "--cuts"])
        .arg(fixtures.join("plain.jsonl"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("plain.jsonl read as plain (4 records over 2 of 13 documents)"),
        "{text}"
    );
    assert!(text.contains("mid-gap of 1619 B"), "{text}");
}

/// Files that must be refused, the line each names, and what the message says.
fn bad_files() -> Vec<(&'static str, String, &'static str)> {
    let ok = r#"{"doc": "guide-ingest-pipeline.md", "start": 0, "end": 100}"#;
    vec![
        ("missing document", format!("{ok}\n{{\"doc\": \"nowhere.md\", \"start\": 0, \"end\": 10}}"), "line 2: no document of the corpus is `nowhere.md`"),
        ("past the end", format!("{ok}\n\n{{\"doc\": \"rate_limiter.py\", \"start\": 0, \"end\": 99999}}"), "line 3: end 99999 is past the end of rate_limiter.py"),
        ("not JSON", format!("{ok}\n{{\"doc\": "), "line 2: not JSON"),
        ("start after end", r#"{"doc": "rate_limiter.py", "start": 50, "end": 10}"#.to_string(), "line 1: start 50 is not before end 10"),
        ("text differs", r#"{"page_content": "Not the text", "metadata": {"source": "sample-corpus/rate_limiter.py", "start_index": 0}}"#.to_string(), "line 1: its text is not the text of rate_limiter.py"),
        ("nested", format!("{ok}\n{{\"doc\": \"guide-ingest-pipeline.md\", \"start\": 10, \"end\": 20}}"), "line 2: its span of guide-ingest-pipeline.md (bytes 10..20) lies wholly inside the chunk of line 1"),
    ]
}

#[test]
fn cuts_bad_files_fail_before_anything_is_embedded() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    for (what, content, says) in bad_files() {
        let file = work.path().join("bad.jsonl");
        std::fs::write(&file, content).unwrap_or_else(|e| panic!("{e}"));
        for command in ["index", "chunks"] {
            let out = seamscope(&cache)
                .args([command, SAMPLE, "--cuts"])
                .arg(&file)
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{what} ({command}): {err}");
            assert!(
                err.contains(&format!("cuts file {}, {says}", file.display())),
                "{what} ({command}): {err}"
            );
        }
    }
    // Nothing was embedded: no vector was written anywhere under the cache folder.
    let files: Vec<PathBuf> = walk(&cache);
    assert!(files.is_empty(), "the cache holds {files:?}");

    // Usage mistakes exit 2 and say what to do.
    let out = seamscope(&cache)
        .args(["chunks", SAMPLE, "--chunker", "given"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --cuts FILE"));
    let out = seamscope(&cache)
        .args([
            "chunks",
            SAMPLE,
            "--chunker",
            "fixed",
            "--cuts",
            "tests/fixtures/cuts/plain.jsonl",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot go with --chunker fixed"));
}

/// Every file under `dir` (none when it does not exist).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            if e.path().is_dir() {
                walk(&e.path())
            } else {
                vec![e.path()]
            }
        })
        .collect()
}

/// Two documents of the sample corpus with their questions, and the LangChain cuts of just them.
fn two_documents(work: &Path, cuts: &Path) -> (PathBuf, PathBuf) {
    let docs = ["guide-ingest-pipeline.md", "rate_limiter.py"];
    let corpus = work.join("two");
    std::fs::create_dir_all(&corpus).unwrap_or_else(|e| panic!("{e}"));
    for d in docs {
        std::fs::copy(Path::new(SAMPLE).join(d), corpus.join(d)).unwrap_or_else(|e| panic!("{e}"));
    }
    let questions: Vec<String> = std::fs::read_to_string(Path::new(SAMPLE).join("questions.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            serde_json::from_str::<Value>(l).is_ok_and(|q| docs.iter().any(|d| q["doc"] == *d))
        })
        .map(str::to_string)
        .collect();
    std::fs::write(corpus.join("questions.jsonl"), questions.join("\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    let kept: Vec<String> = records(cuts)
        .into_iter()
        .filter(|r| {
            docs.iter().any(|d| {
                r["metadata"]["source"]
                    .as_str()
                    .is_some_and(|s| s.ends_with(d))
            })
        })
        .map(|r| r.to_string())
        .collect();
    let file = work.join("two-cuts.jsonl");
    std::fs::write(&file, kept.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    (corpus, file)
}

#[test]
fn cuts_eval_runs_on_langchain_cuts_and_names_them_the_base() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let (corpus, cuts) = two_documents(work.path(), &langchain_cuts(work.path()));
    let rows = json_of(
        seamscope(&cache)
            .arg("eval")
            .arg(&corpus)
            .arg("--cuts")
            .arg(&cuts)
            .args(["--seam-k", "150", "--json"]),
    );
    let rows = rows["rows"].as_array().unwrap_or_else(|| panic!("rows"));
    let label = |i: usize| rows[i]["label"].as_str().unwrap_or("").to_string();
    assert_eq!(label(0), "given chunks");
    assert!(rows.iter().any(|r| r["label"] == "Seams k=150"), "{rows:?}");
    let chunks = records(&cuts).len() as f64;
    assert_eq!(rows[0]["vectors"].as_f64(), Some(chunks));
    for r in rows {
        let f = r["failure_rate"].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&f), "{r}");
    }
    // The table says what the base is (the vectors come from the cache this time).
    let out = seamscope(&cache)
        .arg("eval")
        .arg(&corpus)
        .arg("--cuts")
        .arg(&cuts)
        .args(["--seam-k", "150"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("given chunks of") && text.contains("(LangChain format)"),
        "{text}"
    );
    assert!(text.contains("base: the given chunks"), "{text}");
}

#[test]
fn cuts_a_bundle_of_given_cuts_opens_again() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let (corpus, _) = two_documents(work.path(), &langchain_cuts(work.path()));
    let out_dir = work.path().join("bundle");
    let export = seamscope(&cache)
        .arg("export")
        .arg(&corpus)
        .args(["--cuts", "tests/fixtures/cuts/plain.jsonl", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    // Opening it cuts its documents again from its own chunks.jsonl and checks every span.
    let v = json_of(seamscope(&cache).arg("import").arg(&out_dir).arg("--json"));
    assert_eq!(v["settings"]["chunker_kind"], "given", "{v}");
    assert_eq!(v["settings"]["chunks"], 4);
}
