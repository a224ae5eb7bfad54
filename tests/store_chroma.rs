//! The Chroma-backed store against a real Chroma server (the one `scripts/test` starts on
//! loopback, named by SEAMSCOPE_TEST_CHROMA_URL): the sample questions give the embedded store's
//! fills, a reopen reuses the collections, a collection removed or altered on the server is
//! refilled, and a server that is not there is a clear error.

mod common;

use std::path::Path;

use serde_json::{Value, json};

/// The server the test run started.
fn server() -> String {
    std::env::var("SEAMSCOPE_TEST_CHROMA_URL").unwrap_or_else(|_| {
        panic!(
            "SEAMSCOPE_TEST_CHROMA_URL is not set: scripts/test starts a throwaway Chroma server and sets it; \
             by hand: scripts/chroma-server /tmp/chroma-data 8765 & SEAMSCOPE_TEST_CHROMA_URL=http://127.0.0.1:8765"
        )
    })
}

/// A settings file whose collection prefix no other run on this server uses, and the prefix.
fn config_and_prefix(dir: &Path) -> (std::path::PathBuf, String) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let prefix = format!("test{}x{nanos}", std::process::id());
    let path = dir.join("settings.toml");
    std::fs::write(&path, format!("chroma_prefix = \"{prefix}\"\n")).unwrap();
    (path, prefix)
}

/// A settings file whose collection prefix no other run on this server uses.
fn config(dir: &Path) -> std::path::PathBuf {
    config_and_prefix(dir).0
}

fn collections(url: &str) -> String {
    format!("{url}/api/v2/tenants/default_tenant/databases/default_database/collections")
}

/// One request to the server, its JSON reply.
fn http(method: &str, url: &str, body: Option<Value>) -> Value {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(true)
        .build()
        .into();
    let mut reply = match (method, body) {
        ("GET", _) => agent.get(url).call(),
        ("DELETE", _) => agent.delete(url).call(),
        (_, Some(b)) => agent
            .post(url)
            .content_type("application/json")
            .send(b.to_string()),
        (_, None) => agent.post(url).send_empty(),
    }
    .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let text = reply.body_mut().read_to_string().unwrap();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Names and upload flags of the collections an `index --json` run reports.
fn synced(report: &Value) -> Vec<(String, bool, String)> {
    report["build"]["store"]["collections"]
        .as_array()
        .expect("the index reports its Chroma collections")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["uploaded"].as_bool().unwrap(),
                c["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn the_chroma_store_answers_the_sample_questions_as_the_embedded_one_does() {
    let url = server();
    let cache = tempfile::tempdir().unwrap();
    let (cfg, prefix) = config_and_prefix(cache.path());
    let run = |args: &[&str]| {
        let mut cmd = common::seamscope(cache.path());
        cmd.arg("--config").arg(&cfg).arg("--chroma").arg(&url);
        cmd.args(args);
        cmd
    };

    // Every question of questions.jsonl both ways, from a fresh prefix: both collections filled.
    let bench = common::json_of(&mut run(&["bench", "store", "sample-corpus", "--json"]));
    eprintln!("{}", serde_json::to_string_pretty(&bench).unwrap());
    assert_eq!(bench["questions"], 130);
    assert_eq!(
        bench["differs"], 0,
        "every question gives the embedded store's ranking and fills, ties aside: {:?}",
        bench["differing_questions"]
    );
    let identical = bench["identical"].as_u64().unwrap();
    let tied = bench["differs_only_in_ties"].as_u64().unwrap();
    assert_eq!(identical + tied, 130);
    assert!(
        bench["same_fills"].as_u64().unwrap() + tied >= 130,
        "the fills agree wherever no tie moved"
    );
    assert!(bench["max_score_difference"].as_f64().unwrap() < 1e-4);
    for c in bench["store"]["collections"].as_array().unwrap() {
        assert_eq!(c["uploaded"], true, "a fresh prefix is filled: {c}");
        assert!(c["vectors"].as_u64().unwrap() > 10);
    }
    for store in ["embedded", "store_latency"] {
        assert!(bench[store]["dense_ms"]["median"].as_f64().unwrap() > 0.0);
    }

    // Reopened: the collections verify and are reused, nothing uploaded.
    let reopened = common::json_of(&mut run(&["index", "sample-corpus", "--json"]));
    let names: Vec<String> = synced(&reopened).into_iter().map(|c| c.0).collect();
    assert!(
        synced(&reopened).iter().all(|c| !c.1),
        "{:?}",
        synced(&reopened)
    );
    assert!(
        reopened["dense_search"]
            .as_str()
            .unwrap()
            .contains(&format!("HNSW in Chroma at {url}"))
    );

    // A collection removed on the server is filled again; the other is kept.
    http(
        "DELETE",
        &format!("{}/{}", collections(&url), names[1]),
        None,
    );
    let refilled = synced(&common::json_of(&mut run(&[
        "index",
        "sample-corpus",
        "--json",
    ])));
    assert!(!refilled[0].1, "the chunk collection is kept: {refilled:?}");
    assert!(
        refilled[1].1 && refilled[1].2.contains("no such collection"),
        "{refilled:?}"
    );

    // A stored vector changed behind seamscope's back is found and the collection refilled.
    let info = http("GET", &format!("{}/{}", collections(&url), names[0]), None);
    let id = info["id"].as_str().unwrap();
    let dim = 384;
    let mut other = vec![0.0f32; dim];
    other[0] = 1.0;
    http(
        "POST",
        &format!("{}/{id}/upsert", collections(&url)),
        Some(json!({ "ids": ["0"], "embeddings": [other] })),
    );
    let repaired = synced(&common::json_of(&mut run(&[
        "index",
        "sample-corpus",
        "--json",
    ])));
    assert!(
        repaired[0].1 && repaired[0].2.contains("stored vector 0 differs"),
        "{repaired:?}"
    );

    // A question over the store: the trace says where dense search ran.
    let answer = common::json_of(&mut run(&[
        "query",
        "sample-corpus",
        "How long is an idle session kept before it expires?",
        "--json",
    ]));
    assert_eq!(answer["dense_store"]["chroma"]["url"], url.as_str());
    assert!(
        !answer["trace"]["fill"]["chunks"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // A long-running session (the screen, the MCP server) whose collection vanishes from the
    // server: the question fails saying what to do, and opening again fills it anew.
    let settings = seamscope::settings::Settings {
        store: seamscope::spec::store::Store::Chroma(url.clone()),
        chroma_prefix: prefix,
        ..common::settings(cache.path())
    };
    let mut engine = seamscope::session::Engine::load(settings).unwrap();
    let open = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    http(
        "DELETE",
        &format!("{}/{}", collections(&url), names[0]),
        None,
    );
    let qs = engine.settings.query_settings();
    let question = "How long is an idle session kept before it expires?";
    let gone = engine.ask(&open, question, &qs).unwrap_err().to_string();
    assert!(
        gone.contains("HTTP 404") && gone.contains("open the corpus again"),
        "{gone}"
    );
    let reopened = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    assert!(reopened.report.store.as_ref().unwrap().collections[0].uploaded);
    assert!(engine.ask(&reopened, question, &qs).is_ok());

    for name in &names {
        http("DELETE", &format!("{}/{name}", collections(&url)), None);
    }
}

#[test]
fn a_corpus_without_seams_keeps_an_empty_seam_collection() {
    let url = server();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("one");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(
        corpus.join("note.txt"),
        "Badges are renewed every year at the front desk.\n",
    )
    .unwrap();
    let cfg = config(dir.path());
    let run = |args: &[&str]| {
        let mut cmd = common::seamscope(&dir.path().join("cache"));
        cmd.arg("--config").arg(&cfg).arg("--chroma").arg(&url);
        cmd.args(args);
        cmd
    };
    let corpus_arg = corpus.to_str().unwrap();
    let first = synced(&common::json_of(&mut run(&["index", corpus_arg, "--json"])));
    assert!(first.iter().all(|c| c.1), "{first:?}");
    let again = synced(&common::json_of(&mut run(&["index", corpus_arg, "--json"])));
    assert!(
        again.iter().all(|c| !c.1),
        "an empty collection verifies too: {again:?}"
    );
    let answer = common::json_of(&mut run(&[
        "query",
        corpus_arg,
        "When are badges renewed?",
        "--json",
    ]));
    assert_eq!(answer["trace"]["fill"]["chunks"], json!([0]));
    assert!(answer["seams"].as_array().unwrap().is_empty());
    for (name, _, _) in &again {
        http("DELETE", &format!("{}/{name}", collections(&url)), None);
    }
}

#[test]
fn a_chroma_server_that_is_not_there_is_named_with_what_to_do() {
    let cache = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = common::seamscope(cache.path())
        .args(["query", "sample-corpus", "What is a seam?"])
        .args(["--chroma", &format!("http://127.0.0.1:{port}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot reach Chroma at http://127.0.0.1:{port}"))
            && err.contains("chroma run"),
        "{err}"
    );
    let bad = common::seamscope(cache.path())
        .args([
            "query",
            "sample-corpus",
            "What is a seam?",
            "--chroma",
            "localhost:1",
        ])
        .output()
        .unwrap();
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a malformed address is a usage error"
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("chroma_url"));
}

/// A loopback server that accepts connections and never answers. Returns its port.
fn stalled_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

#[test]
fn a_stalled_server_fails_after_chroma_timeout_secs_and_no_password_is_shown() {
    // No Chroma server needed: the stall is a listener that never answers.
    let cache = tempfile::tempdir().unwrap();
    let settings = cache.path().join("settings.toml");
    std::fs::write(&settings, "chroma_timeout_secs = 2\n").unwrap();
    let url = format!("http://alice:s3cret@127.0.0.1:{}", stalled_server());
    for json in [false, true] {
        let started = std::time::Instant::now();
        let mut cmd = common::seamscope(cache.path());
        cmd.arg("--config").arg(&settings).args([
            "query",
            "sample-corpus",
            "What is a seam?",
            "--chroma",
            &url,
        ]);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        let took = started.elapsed();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("did not answer within 2 s (chroma_timeout_secs)")
                && stderr.contains("http://alice:***@127.0.0.1:"),
            "{stderr}"
        );
        assert!(
            !format!("{stdout}{stderr}").contains("s3cret"),
            "{stdout}{stderr}"
        );
        // The model loads and the corpus is laid out first; the stall itself costs 2 s, not 120.
        assert!(took < std::time::Duration::from_secs(60), "took {took:?}");
    }
    // Out of range is a usage error naming the setting.
    std::fs::write(&settings, "chroma_timeout_secs = 0\n").unwrap();
    let out = common::seamscope(cache.path())
        .arg("--config")
        .arg(&settings)
        .args(["query", "sample-corpus", "What is a seam?"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("chroma_timeout_secs"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
