//! The `openai:URL` embedder and the `rerank:URL` reranker against the loopback service that
//! `scripts/test` starts (`scripts/embed-server.py`: the pinned MiniLM through ONNX Runtime, with
//! fault injection by path). Its address comes in `SEAMSCOPE_TEST_EMBED_URL`.
//!
//! What a user relies on: the service's vectors give the same answers as the local model on every
//! sample question; a fault run (429 with Retry-After, 500s, slow answers, a dropped connection, a
//! wrong dimension) ends in the same index or a clear error, never a partial or mixed cache; the
//! key is never printed or written.

mod common;

use std::path::{Path, PathBuf};

use seamscope::embed::cache::text_key;
use seamscope::embed::cosine;
use seamscope::eval::questions::load_questions;
use seamscope::retrieve::Trace;
use seamscope::session::Engine;
use seamscope::settings::Settings;

/// The test server's address; a missing one is a failure that says how to get it.
fn server() -> String {
    std::env::var("SEAMSCOPE_TEST_EMBED_URL").expect(
        "SEAMSCOPE_TEST_EMBED_URL is not set: run the tests with scripts/test, which starts the loopback embedding server (scripts/embed-server)",
    )
}

/// Settings for the service at `base` (the server, or one of its fault paths).
fn service_settings(cache: &Path, base: &str) -> Settings {
    Settings {
        embedder: Some(format!("openai:{base}/v1")),
        embed_model: Some("all-MiniLM-L6-v2".into()),
        embed_window: Some(256),
        ..common::settings(cache)
    }
}

/// A unique fault scenario path on the server: `<server>/faults/<name-pid-time>/<spec>`.
fn faults(name: &str, spec: &str) -> (String, String) {
    let id = format!(
        "{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    (format!("{}/faults/{id}/{spec}", server()), id)
}

fn scenario_stats(id: &str) -> serde_json::Value {
    let url = format!("{}/faults/{id}/stats", server());
    let text = ureq::get(&url)
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The fill with Seams and the chunks-only fill of a trace.
fn fills(t: &Trace) -> (Vec<u32>, Vec<u32>) {
    (
        t.fill.chunks.iter().map(|c| c.0).collect(),
        t.without_seams
            .shown()
            .without_seams
            .iter()
            .map(|c| c.0)
            .collect(),
    )
}

#[test]
fn every_sample_question_gets_the_same_fill_through_the_service_as_locally() {
    let local_cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let mut local = common::engine(&local_cache);
    let service_cache = tempfile::tempdir().unwrap();
    let mut service = Engine::load(service_settings(service_cache.path(), &server())).unwrap();
    assert_eq!(
        service.embedder.identity(),
        "openai:all-MiniLM-L6-v2/d384/w256"
    );
    let corpus = Path::new("sample-corpus");
    let open_local = local.open_corpus(corpus, &mut |_| true).unwrap();
    let open_service = service.open_corpus(corpus, &mut |_| true).unwrap();
    let stats = &open_service.report.chunk_embedding;
    let sent = stats.service.expect("a service run reports what it sent");
    assert!(sent.requests > 0 && sent.tokens_sent > 0, "{sent:?}");

    // Every chunk and seam vector, the service's against the local model's.
    let (local_vectors, _) = local.vector_cache();
    let (service_vectors, _) = service.vector_cache();
    let (chunks, seams) = open_service.layout.search_texts(&open_service.corpus);
    let mut lowest = 1.0f32;
    for text in chunks.iter().chain(seams.iter()) {
        let key = text_key(text);
        let a = local_vectors.get(&key).expect("local vector").0;
        let b = service_vectors.get(&key).expect("service vector").0;
        lowest = lowest.min(cosine(a, b));
    }
    assert!(lowest >= 0.999, "lowest chunk/seam cosine {lowest}");

    let questions = load_questions(
        Path::new("sample-corpus/questions.jsonl"),
        &open_local.corpus,
    )
    .unwrap();
    assert_eq!(questions.len(), 130);
    let settings = local.settings.query_settings();
    let mut lowest_question = 1.0f32;
    for q in &questions {
        let a = local.embed_question(&q.question).unwrap();
        let b = service.embed_question(&q.question).unwrap();
        lowest_question = lowest_question.min(cosine(&a, &b));
        let (with_local, _) = local.ask(&open_local, &q.question, &settings).unwrap();
        let (with_service, _) = service.ask(&open_service, &q.question, &settings).unwrap();
        assert_eq!(
            fills(&with_service),
            fills(&with_local),
            "{}: the service's fill differs from the local model's",
            q.id
        );
    }
    assert!(
        lowest_question >= 0.999,
        "lowest question cosine {lowest_question}"
    );
    eprintln!("lowest cosine: chunks and seams {lowest}, questions {lowest_question}");
}

/// A small corpus of two documents, several chunks each.
fn small_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["order-service-design.md", "runbook-database-failover.md"] {
        std::fs::copy(Path::new("sample-corpus").join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn index_json(cache: &Path, corpus: &Path, base: &str, extra: &[&str]) -> std::process::Output {
    common::seamscope(cache)
        .args(["index", "--json", "--chunk-tokens", "256", "--k", "40"])
        .args(["--embedder", &format!("openai:{base}/v1")])
        .args(["--embed-model", "all-MiniLM-L6-v2", "--embed-window", "256"])
        .args(extra)
        .arg(corpus)
        .output()
        .unwrap()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The vector cache file of a cache folder (there is one per embedder identity).
fn cache_files(cache: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(cache.join("vectors")) {
        Ok(dir) => dir
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "bin"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_fault_run_retries_through_429_500_slow_and_dropped_answers_and_builds_the_same_index() {
    let corpus = small_corpus();
    let clean_cache = tempfile::tempdir().unwrap();
    let clean = json(&index_json(
        clean_cache.path(),
        corpus.path(),
        &server(),
        &[],
    ));

    // The probe meets a 429 asking for 0.3 s, a 500, a dropped connection and an answer slower
    // than the 20 s timeout; then every third request of the build answers 503.
    let (base, id) = faults("faults", "429:1:0.3+500:1+drop:1+slow:1:30+503every:3");
    let faulty_cache = tempfile::tempdir().unwrap();
    let config = faulty_cache.path().join("settings.toml");
    // The timeout leaves room for a server busy with other tests' requests (it runs one
    // inference at a time), and small requests keep each answer quick.
    std::fs::write(
        &config,
        "embed_timeout_secs = 20\nembed_request_inputs = 8\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let out = index_json(
        faulty_cache.path(),
        corpus.path(),
        &base,
        &["--embed-concurrency", "2", "--config", &config],
    );
    let faulty = json(&out);
    let stats = scenario_stats(&id);
    assert_eq!(stats["status"]["429"], 1, "{stats}");
    assert_eq!(stats["status"]["500"], 1, "{stats}");
    assert_eq!(stats["dropped"], 1, "{stats}");
    assert!(stats["status"]["503"].as_u64().unwrap() >= 2, "{stats}");
    // index --json reports the build's retries (the probe's own come before the build).
    let retries = faulty["service"]["retries"].as_u64().unwrap();
    assert!(
        retries >= 2,
        "the 503s during the build were retried: {retries}"
    );
    eprintln!(
        "fault run: server saw {stats}; index --json reports {retries} retries, {} requests",
        faulty["service"]["requests"]
    );
    assert!(faulty["service"]["requests"].as_u64().unwrap() > 0);

    // The same index: the same chunks, seams and vectors as the clean run.
    for field in ["chunks", "seams", "vectors", "tokens"] {
        assert_eq!(faulty[field], clean[field], "{field}");
    }
    let a = cache_files(clean_cache.path());
    let b = cache_files(faulty_cache.path());
    assert_eq!((a.len(), b.len()), (1, 1));
    let (va, _) = seamscope::embed::cache::VectorCache::open(a[0].clone(), 384);
    let (vb, _) = seamscope::embed::cache::VectorCache::open(b[0].clone(), 384);
    assert_eq!(va.len(), vb.len());

    // 429's Retry-After was honoured: the request after the first 429 came at least 0.3 s later.
    let arrivals: Vec<f64> = stats["arrivals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        arrivals[1] - arrivals[0] >= 0.29,
        "retried after {:.3} s, Retry-After said 0.3",
        arrivals[1] - arrivals[0]
    );
}

#[test]
fn a_wrong_dimension_mid_run_is_a_clear_error_and_the_cache_keeps_only_whole_texts() {
    let corpus = small_corpus();
    let cache = tempfile::tempdir().unwrap();
    // The probe and the first two requests answer 384 dimensions; then 192.
    let (base, _) = faults("dim", "dimafter:3:192");
    let out = index_json(
        cache.path(),
        corpus.path(),
        &base,
        &["--embed-concurrency", "1"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("192-dimensional") && err.contains("384"),
        "the error names both dimensions: {err}"
    );
    // What it finished is kept, 384-d only (the cache file is checked by its dimension on read).
    let files = cache_files(cache.path());
    assert_eq!(files.len(), 1, "one cache file for the one identity");
    let (kept, state) = seamscope::embed::cache::VectorCache::open(files[0].clone(), 384);
    assert!(
        matches!(state, seamscope::embed::cache::CacheOpen::Loaded { .. }),
        "{state:?}"
    );
    assert!(
        !kept.is_empty(),
        "the whole batches before the fault are kept"
    );

    // A new run against a sound service takes those from the cache and embeds the rest.
    let v = json(&index_json(cache.path(), corpus.path(), &server(), &[]));
    let from_cache = v["build"]["chunk_embedding"]["cache_hits"]
        .as_u64()
        .unwrap()
        + v["build"]["seam_embedding"]["cache_hits"].as_u64().unwrap();
    assert_eq!(from_cache as usize, kept.len());
}

#[test]
fn a_service_that_keeps_failing_gives_up_with_the_reason_and_settings_to_raise() {
    let corpus = small_corpus();
    let cache = tempfile::tempdir().unwrap();
    let (base, _) = faults("giveup", "500:1000");
    // Few retries, so the test is quick.
    let config = cache.path().join("settings.toml");
    std::fs::write(&config, "embed_retries = 2\nembed_timeout_secs = 5\n").unwrap();
    let out = common::seamscope(cache.path())
        .args(["index", "--chunk-tokens", "256"])
        .args(["--embedder", &format!("openai:{base}")])
        .args(["--embed-model", "all-MiniLM-L6-v2"])
        .arg("--config")
        .arg(&config)
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("failed 3 times in a row") && err.contains("HTTP 500"),
        "{err}"
    );
    assert!(err.contains("embed_retries"), "{err}");
    assert!(cache_files(cache.path()).is_empty(), "nothing was embedded");
}

#[test]
fn the_key_is_sent_but_never_printed_or_written() {
    let corpus = small_corpus();
    let cache = tempfile::tempdir().unwrap();
    let secret = "sk-test-4f1c9e2a77d0b3";
    let out = common::seamscope(cache.path())
        .args(["index", "--chunk-tokens", "256"])
        .args(["--embedder", &format!("openai:{}", server())])
        .args(["--embed-model", "all-MiniLM-L6-v2", "--embed-window", "256"])
        .args(["--embed-key-env", "SEAMSCOPE_TEST_SECRET"])
        .env("SEAMSCOPE_TEST_SECRET", secret)
        .arg(corpus.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!printed.contains(secret));
    for entry in walkdir::WalkDir::new(cache.path()) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds the key",
                entry.path().display()
            );
        }
    }
    // A named variable that is not set is an error naming it, before any request.
    let out = common::seamscope(cache.path())
        .args(["index"])
        .args(["--embedder", &format!("openai:{}", server())])
        .args(["--embed-model", "all-MiniLM-L6-v2"])
        .args(["--embed-key-env", "SEAMSCOPE_TEST_UNSET_KEY"])
        .env_remove("SEAMSCOPE_TEST_UNSET_KEY")
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SEAMSCOPE_TEST_UNSET_KEY"));
}

#[test]
fn a_wrong_model_name_or_address_fails_before_any_corpus_work_with_a_hint() {
    let corpus = small_corpus();
    let cache = tempfile::tempdir().unwrap();
    let out = common::seamscope(cache.path())
        .args(["index"])
        .args(["--embedder", &format!("openai:{}", server())])
        .args(["--embed-model", "no-such-model"])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("HTTP 404") && err.contains("--embed-model"),
        "{err}"
    );
    // No model name at all: a usage error.
    let out = common::seamscope(cache.path())
        .args(["index", "--embedder", &format!("openai:{}", server())])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("embed_model"));
}

#[test]
fn a_rerank_service_rescores_the_candidates_and_the_trace_shows_each_score() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    // The test service reads 256 tokens at a time: longer chunks must be cut to fit, not sent.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("settings.toml");
    std::fs::write(&config, "reranker_max_tokens = 256\n").unwrap();
    for (reranker, model) in [
        (format!("rerank:{}", server()), None),
        (format!("rerank:{}/v2", server()), Some("all-MiniLM-L6-v2")),
    ] {
        let mut cmd = common::seamscope(&cache);
        cmd.args(["query", "--json", "--reranker", &reranker])
            .arg("--config")
            .arg(&config);
        if let Some(m) = model {
            cmd.args(["--rerank-model", m]);
        }
        let v = common::json_of(cmd.args([
            "sample-corpus",
            "Why is the order service allowed to show customers slightly out-of-date order information?",
        ]));
        let scores = &v["trace"]["input"]["rerank"];
        assert_eq!(scores["kind"], "scores", "{scores}");
        let list = scores["scores"]
            .as_array()
            .unwrap_or_else(|| panic!("rerank scores in the trace: {scores}"));
        assert!(!list.is_empty());
        assert!(
            scores["reranker"].as_str().unwrap().starts_with("rerank"),
            "{scores}"
        );
    }
    // The text report lists the reranked plan: each judged chunk's score, fired pairs pinned.
    let out = common::seamscope(&cache)
        .args(["query", "--reranker", &format!("rerank:{}", server())])
        .arg("--config")
        .arg(&config)
        .args([
            "sample-corpus",
            "Why is the order service allowed to show customers slightly out-of-date order information?",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("2b. Rerank by rerank@"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("fired: chunks") && l.contains("pinned here, not sent")),
        "{text}"
    );
    assert!(
        text.lines()
            .filter(|l| l
                .trim_end()
                .rsplit(' ')
                .next()
                .is_some_and(|w| w.parse::<f32>().is_ok()))
            .count()
            >= 3,
        "judged chunks show their scores: {text}"
    );
}

/// Issue 28's key leak: a service whose 401 echoes the request's `Authorization` header (as
/// OpenAI's does), an address with a key in its query, and a rerank service doing the same. The
/// key reaches no message: not stderr, not the `--json` error document, not the `embedder`
/// line, not `query`'s settings line nor the trace's rerank error.
#[test]
fn a_service_that_echoes_the_key_gets_it_into_no_message() {
    let corpus = small_corpus();
    let cache = tempfile::tempdir().unwrap();
    let secret = "sk-test-echoed-4f1c9e2a77d0b3";
    let url_key = "AIzaSyUrlKey000111";
    let (base, _) = faults("echo", "echo401");
    let out = common::seamscope(cache.path())
        .args(["index", "--json"])
        .args(["--embedder", &format!("openai:{base}/v1?key={url_key}")])
        .args(["--embed-model", "all-MiniLM-L6-v2"])
        .args(["--embed-key-env", "SEAMSCOPE_TEST_SECRET"])
        .env("SEAMSCOPE_TEST_SECRET", secret)
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stderr.contains("HTTP 401") && stderr.contains("Incorrect API key provided: Bearer ***"),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("key=***"),
        "{doc}"
    );
    for printed in [&stderr, &stdout] {
        for leak in [secret, "4f1c9e2a77d0b3", url_key] {
            assert!(!printed.contains(leak), "{leak} printed: {printed}");
        }
    }

    // A rerank service that echoes its key: the question runs on the fused order, and neither
    // the settings line nor the trace carries the key.
    let sample_cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let (rerank_base, _) = faults("echo-rerank", "echo401");
    let question = "Why is the order service allowed to show customers slightly out-of-date order information?";
    for json in [false, true] {
        let mut cmd = common::seamscope(&sample_cache);
        cmd.arg("query");
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .args([
                "--reranker",
                &format!("rerank:{rerank_base}?token={url_key}"),
            ])
            .args(["--rerank-key-env", "SEAMSCOPE_TEST_SECRET"])
            .env("SEAMSCOPE_TEST_SECRET", secret)
            .args(["sample-corpus", question])
            .output()
            .unwrap();
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{printed}");
        assert!(printed.contains("HTTP 401"), "{printed}");
        for leak in [secret, "4f1c9e2a77d0b3", url_key] {
            assert!(!printed.contains(leak), "{leak} printed: {printed}");
        }
        if json {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let error = v["trace"]["input"]["rerank"]["error"].to_string();
            assert!(error.contains("Bearer ***"), "{error}");
        }
    }
}

/// Issue 28's lost vectors: with `embed_concurrency` 4 (the default) and 8, one request of the
/// build fails for good while others are in flight. Every text whose answer came back is in the
/// cache (the server's count of texts it answered, less the dimension probe), and the next run
/// embeds only the rest.
#[test]
fn a_request_that_fails_keeps_the_vectors_the_other_requests_delivered() {
    let corpus = small_corpus();
    for concurrency in ["4", "8"] {
        let cache = tempfile::tempdir().unwrap();
        let config = cache.path().join("settings.toml");
        std::fs::write(&config, "embed_request_inputs = 4\n").unwrap();
        let config = config.display().to_string();
        // The probe is request 1; the 7th fails with a 400.
        let (base, id) = faults("keep", "fail400:7");
        let out = common::seamscope(cache.path())
            .args(["index", "--chunk-tokens", "128"])
            .args(["--embedder", &format!("openai:{base}/v1")])
            .args(["--embed-model", "all-MiniLM-L6-v2", "--embed-window", "256"])
            .args(["--embed-concurrency", concurrency, "--config", &config])
            .arg(corpus.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("HTTP 400") && err.contains("fail400:7"),
            "{err}"
        );
        let stats = scenario_stats(&id);
        let answered = stats["inputs_embedded"].as_u64().unwrap() as usize - 1;
        assert!(answered >= 20, "requests 2 to 6 were answered: {stats}");
        let files = cache_files(cache.path());
        assert_eq!(files.len(), 1);
        let (kept, _) = seamscope::embed::cache::VectorCache::open(files[0].clone(), 384);
        assert_eq!(
            kept.len(),
            answered,
            "concurrency {concurrency}: every text the service answered is kept ({stats})"
        );
        // The rerun takes them from the cache and sends only the rest.
        let out = common::seamscope(cache.path())
            .args(["index", "--json", "--chunk-tokens", "128"])
            .args(["--embedder", &format!("openai:{}/v1", server())])
            .args(["--embed-model", "all-MiniLM-L6-v2", "--embed-window", "256"])
            .args(["--embed-concurrency", concurrency, "--config", &config])
            .arg(corpus.path())
            .output()
            .unwrap();
        let v = json(&out);
        let hits = v["build"]["chunk_embedding"]["cache_hits"]
            .as_u64()
            .unwrap()
            + v["build"]["seam_embedding"]["cache_hits"].as_u64().unwrap();
        assert_eq!(hits as usize, kept.len());
    }
}
