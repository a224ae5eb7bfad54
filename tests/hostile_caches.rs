//! The cache folder and the files a user names, attacked through the file system (issue 28):
//! a cuts file that never ends (`/dev/zero`, once 3.4 GB in 12 s), a stored layout that is a
//! link to `/dev/zero` (once 14 GB for `index` and an OOM kill of `query`), FIFOs in place of a
//! stored layout or of the vector cache (once hanging `index`, `query` and `cache`), a stored
//! layout rewritten with a recomputed checksum (once trusted: a chunk of 2,087 tokens and two of
//! none), and `cache --prune` while another process holds the vectors (once undone by the
//! build's next save). Links and FIFOs are made here; every run has a time limit, so a reader
//! that blocks fails the test instead of hanging it.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{json_of, seamscope};

/// Longer than any of these runs takes on two busy cores, far shorter than a hang.
const LIMIT: Duration = Duration::from_secs(300);

/// Make a FIFO at `path`.
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Three documents of prose, each several chunks of 120 tokens.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (name, topic) in [
        ("failover.md", "the replica"),
        ("billing.txt", "the invoice run"),
        ("rollout.md", "the canary"),
    ] {
        let text: String = (0..40)
            .map(|i| format!("Step {i}. Check {topic} before the change, write down what you saw, and tell the on-call lead when it looks wrong. "))
            .collect();
        std::fs::write(dir.path().join(name), text).unwrap_or_else(|e| panic!("{e}"));
    }
    dir
}

/// `seamscope ARGS --json` with the corpus, under the time limit; its JSON.
fn run_json(cache: &Path, args: &[&str], corpus: &Path) -> serde_json::Value {
    json_of(
        seamscope(cache)
            .args(args)
            .arg(corpus)
            .arg("--json")
            .timeout(LIMIT),
    )
}

fn index(cache: &Path, corpus: &Path) -> serde_json::Value {
    run_json(cache, &["index", "--chunk-tokens", "120"], corpus)
}

fn query(cache: &Path, corpus: &Path) -> serde_json::Value {
    json_of(
        seamscope(cache)
            .args(["query", "--chunk-tokens", "120", "--json"])
            .arg(corpus)
            .arg("what do you check before the change?")
            .timeout(LIMIT),
    )
}

/// Every stored layout file under the cache.
fn layout_files(cache: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(cache.join("layouts"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "layout"));
    files.sort();
    files
}

/// (tokens of every chunk, tokens sent) of a query's trace.
fn chunk_tokens_and_sent(v: &serde_json::Value) -> (Vec<u64>, u64) {
    let chunks = v["chunks"]
        .as_array()
        .unwrap_or_else(|| panic!("no chunks in {v}"));
    let tokens = chunks
        .iter()
        .map(|c| c["tokens"].as_u64().unwrap_or(u64::MAX))
        .collect();
    let sent = v["trace"]["tokens_sent"]
        .as_u64()
        .unwrap_or_else(|| panic!("no tokens_sent in {v}"));
    (tokens, sent)
}

#[test]
fn a_cuts_file_that_never_ends_is_refused_at_once_by_index_and_mcp() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let corpus = corpus();
    let zero = work.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap_or_else(|e| panic!("{e}"));
    let pipe = work.path().join("pipe.jsonl");
    fifo(&pipe);
    for (file, says) in [
        (Path::new("/dev/zero"), "a device"),
        (zero.as_path(), "a device"),
        (pipe.as_path(), "a FIFO (named pipe)"),
    ] {
        let expected = format!(
            "cuts file {}: cannot read it: it is {says}, not a regular file",
            file.display()
        );
        for command in [&["index"][..], &["mcp"][..]] {
            let out = seamscope(&cache)
                .args(command)
                .arg(corpus.path())
                .arg("--cuts")
                .arg(file)
                .timeout(LIMIT)
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{command:?} {file:?}: {err}");
            assert!(err.contains(&expected), "{command:?}: {err}");
        }
    }
}

#[test]
fn stored_layouts_and_a_vector_cache_that_are_links_or_fifos_are_rebuilt_without_waiting() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let corpus = corpus();
    let fresh = index(&cache, corpus.path());
    assert_eq!(fresh["stored_layouts"]["built"], 3, "{fresh}");
    let truth = chunk_tokens_and_sent(&query(&cache, corpus.path()));
    let files = layout_files(&cache);
    assert_eq!(files.len(), 3);
    let vectors = {
        let v = json_of(seamscope(&cache).args(["cache", "--json"]).timeout(LIMIT));
        PathBuf::from(v["vectors"][0]["path"].as_str().unwrap_or_default())
    };
    assert!(vectors.is_file(), "{}", vectors.display());

    // One layout a link to /dev/zero, one a FIFO; the vector cache a FIFO; the index gone, so
    // the next run lays out and embeds again.
    let rebuild = |cache: &Path| {
        for f in &files {
            std::fs::remove_file(f).unwrap_or_else(|e| panic!("{e}"));
        }
        std::os::unix::fs::symlink("/dev/zero", &files[0]).unwrap_or_else(|e| panic!("{e}"));
        fifo(&files[1]);
        std::fs::remove_file(&vectors).unwrap_or_else(|e| panic!("{e}"));
        fifo(&vectors);
        std::fs::remove_dir_all(cache.join("indexes")).unwrap_or_else(|e| panic!("{e}"));
    };
    rebuild(&cache);
    // `cache` and `cache --prune` report the FIFO as damaged instead of waiting on it.
    for args in [
        &["cache", "--json"][..],
        &["cache", "--prune", "--json"][..],
    ] {
        let v = json_of(seamscope(&cache).args(args).timeout(LIMIT));
        let why = v["vectors"][0]["kept_because"].as_str().unwrap_or_default();
        assert!(why.contains("FIFO"), "{args:?}: {v}");
    }
    let again = index(&cache, corpus.path());
    assert_eq!(again["stored_layouts"]["damaged"], 2, "{again}");
    assert_eq!(again["chunks"], fresh["chunks"], "{again}");
    assert_eq!(
        again["build"]["vector_cache"]["state"], "damaged",
        "the FIFO is not a cache: {again}"
    );
    assert_eq!(chunk_tokens_and_sent(&query(&cache, corpus.path())), truth);
    // Everything hostile was replaced by a real file.
    for f in files.iter().chain([&vectors]) {
        let kind = std::fs::symlink_metadata(f).unwrap_or_else(|e| panic!("{e}"));
        assert!(kind.is_file(), "{} is still hostile", f.display());
    }
}

/// Rewrite a stored layout as someone who knows the format would: every token moved to the
/// start of the text (in order, within the text), and the trailing blake3 recomputed.
fn forge(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{e}"));
    const HEADER: usize = 8 + 4 + 32 + 24;
    let tokens = u64::from_le_bytes(bytes[52..60].try_into().unwrap_or_default()) as usize;
    for i in 0..2 * tokens {
        let at = HEADER + 4 * i;
        bytes[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
    }
    let body = bytes.len() - 32;
    let sum = *blake3::hash(&bytes[..body]).as_bytes();
    bytes[body..].copy_from_slice(&sum);
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_stored_layout_rewritten_with_a_true_checksum_is_rebuilt_not_trusted() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let corpus = corpus();
    index(&cache, corpus.path());
    let truth = chunk_tokens_and_sent(&query(&cache, corpus.path()));
    assert!(truth.0.iter().all(|&t| t > 0 && t <= 120), "{truth:?}");
    let files = layout_files(&cache);
    assert_eq!(files.len(), 3);
    for f in &files {
        forge(f);
    }
    let again = index(&cache, corpus.path());
    assert_eq!(
        (
            again["stored_layouts"]["reused"].as_u64(),
            again["stored_layouts"]["damaged"].as_u64()
        ),
        (Some(0), Some(3)),
        "{again}"
    );
    assert_eq!(chunk_tokens_and_sent(&query(&cache, corpus.path())), truth);
    // Rewritten with the truth: the next run reuses all three.
    let warm = index(&cache, corpus.path());
    assert_eq!(warm["stored_layouts"]["reused"], 3, "{warm}");
}

#[test]
fn prune_leaves_vectors_whole_while_another_process_holds_them_and_not_after_it_dies() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = work.path().join("cache");
    let corpus = corpus();
    let first = index(&cache, corpus.path());
    let first_dir = PathBuf::from(first["build"]["dir"].as_str().unwrap_or_default());
    run_json(&cache, &["index", "--chunk-tokens", "200"], corpus.path());
    // The first index goes: its texts are what a prune removes.
    std::fs::remove_dir_all(&first_dir).unwrap_or_else(|e| panic!("{e}"));
    let survey = |args: &[&str]| json_of(seamscope(&cache).args(args).timeout(LIMIT));
    let before = survey(&["cache", "--json"]);
    let path = PathBuf::from(before["vectors"][0]["path"].as_str().unwrap_or_default());
    let entries = before["vectors"][0]["entries"].as_u64().unwrap_or(0);
    assert_eq!(before["vectors"][0]["in_use"], false, "{before}");

    // A build embedding now holds the vectors in memory (this process, through the library).
    let (held, _) = seamscope::embed::cache::VectorCache::open(path.clone(), 384);
    assert_eq!(held.len() as u64, entries);
    let v = survey(&["cache", "--prune", "--json"]);
    let row = &v["vectors"][0];
    assert!(row["pruned"].is_null(), "{v}");
    assert_eq!(row["in_use"], true, "{v}");
    assert!(
        row["kept_because"]
            .as_str()
            .is_some_and(|w| w.starts_with("in use: another seamscope process")),
        "{v}"
    );
    let out = seamscope(&cache)
        .args(["cache", "--prune"])
        .timeout(LIMIT)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("in use by a running seamscope")
            && text.contains("prune: kept whole: in use"),
        "{text}"
    );
    assert_eq!(
        survey(&["cache", "--json"])["vectors"][0]["entries"],
        entries
    );
    drop(held);

    // A holder that is killed: the OS drops its lock, and the prune goes ahead.
    let lock = path.with_extension("inuse.lock");
    let mut holder = std::process::Command::new("flock")
        // --no-fork: the process that holds the lock is the one killed (a forked `sleep`
        // would inherit the lock and keep it).
        .args(["--shared", "--no-fork"])
        .arg(&lock)
        .args(["sleep", "600"])
        .spawn()
        .unwrap_or_else(|e| panic!("flock: {e}"));
    let mut held = false;
    for _ in 0..100 {
        if survey(&["cache", "--json"])["vectors"][0]["in_use"] == true {
            held = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(held, "flock never took the lock");
    holder.kill().unwrap_or_else(|e| panic!("{e}"));
    let _ = holder.wait();
    let v = survey(&["cache", "--prune", "--json"]);
    let removed = v["vectors"][0]["pruned"]["removed"].as_u64();
    assert!(removed.is_some_and(|n| n > 0), "{v}");
    assert_eq!(
        survey(&["cache", "--json"])["vectors"][0]["entries"].as_u64(),
        Some(entries - removed.unwrap_or(0))
    );
}

#[test]
fn a_layout_the_real_tokenizer_and_chunkers_made_always_makes_sense() {
    // No false alarm: text the tokenizer drops (control characters, combining marks, zero-width
    // characters), scripts it splits per character, long words and odd line ends all pass the
    // sense check, for every chunker, so a stored layout is only ever rebuilt when it lies.
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let docs = work.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir("sample-corpus").unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.extension().is_some_and(|e| e != "jsonl") {
            let name = path.file_name().unwrap_or_default();
            std::fs::copy(&path, docs.join(name)).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let odd: String = (0..30)
        .map(|i| {
            format!(
                "Line {i}: bell\u{7}here, e\u{301}te\u{301} de\u{301}compose\u{301}, zero\u{200b}width, \u{feff}mark, 東京の天気は晴れ, emoji 👩‍👩‍👧 ok, \u{fffd} replaced, tab\tand\r\nCRLF, {}.\n\n",
                "x".repeat(150 + i)
            )
        })
        .collect();
    std::fs::write(docs.join("odd.txt"), &odd).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        docs.join("odd.md"),
        format!("# Odd\n\n{odd}\n```\n\u{7}\u{7}\n```\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let settings = seamscope::settings::Settings::default();
    let corpus =
        seamscope::corpus::Corpus::load(&docs, &seamscope::places::load_options(&settings))
            .unwrap_or_else(|e| panic!("{e}"));
    let tokenizer = common::tokenizer();
    let cache = work.path().join("cache");
    for kind in seamscope::chunk::ChunkerKind::ALL {
        for chunk_tokens in [64, 1024] {
            let s = seamscope::settings::Settings {
                chunker: kind,
                chunk_tokens,
                ..seamscope::settings::Settings::default()
            };
            let lay_out = || {
                seamscope::layout::Layout::for_settings_stored(&corpus, &tokenizer, &s, &cache)
                    .unwrap_or_else(|e| panic!("{e}"))
            };
            let cold = lay_out();
            let warm = lay_out();
            assert_eq!(
                (warm.store.reused, warm.store.damaged),
                (corpus.documents.len(), 0),
                "{kind} at {chunk_tokens}"
            );
            assert_eq!(warm.chunks, cold.chunks, "{kind} at {chunk_tokens}");
        }
    }
}
