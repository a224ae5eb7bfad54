//! The pgvector-backed store against a real Postgres + pgvector server (the one `scripts/test`
//! starts on loopback, named by SEAMSCOPE_TEST_PG_URL), each test in a fresh database: the sample
//! questions give the embedded store's fills (differences only where HNSW missed an entry, with
//! the recall measured), the search walks the HNSW index, a reopen reuses the collection, a
//! damaged or half-written one is refilled, passwords never show, and a server that is not there
//! or stops answering is a clear error within the timeout.

mod common;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::pg;
use serde_json::Value;

/// The password the tests put in SEAMSCOPE_PG_PASSWORD (the test server trusts loopback, so it
/// is sent and ignored): it must never appear in anything seamscope prints.
const PASSWORD: &str = "pg-s3cret-never-shown";

/// What one `index --json` run reports of its collection: name, uploaded, reason.
fn synced(report: &Value) -> (String, bool, String) {
    let c = &report["build"]["store"]["collections"][0];
    (
        c["name"]
            .as_str()
            .expect("the index reports its collection")
            .to_string(),
        c["uploaded"].as_bool().unwrap(),
        c["reason"].as_str().unwrap_or("").to_string(),
    )
}

fn run_with(cache: &Path, url: &str, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = common::seamscope(cache);
    cmd.env("SEAMSCOPE_PG_PASSWORD", PASSWORD)
        .arg("--store")
        .arg(format!("pgvector:{url}"))
        .args(args);
    cmd
}

/// Run and return stdout as JSON, checking that no output holds the password.
fn json_clean(cmd: &mut assert_cmd::Command) -> Value {
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stdout.contains(PASSWORD) && !stderr.contains(PASSWORD),
        "the password leaked:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(&stdout).expect("the command prints JSON")
}

#[test]
fn the_pgvector_store_answers_the_sample_questions_as_the_embedded_one_does() {
    let url = pg::fresh_database("store");
    let cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| run_with(cache.path(), &url, args);

    // Every question of questions.jsonl both ways, into an empty database: tables, collection
    // and HNSW indexes created.
    let bench = json_clean(&mut run(&["bench", "store", "sample-corpus", "--json"]));
    eprintln!("{}", serde_json::to_string_pretty(&bench).unwrap());
    assert_eq!(bench["questions"], 130);
    assert_eq!(bench["store"]["kind"], "pgvector");
    assert_eq!(bench["store"]["url"], url.as_str());
    let plan = bench["plan"]
        .as_str()
        .expect("pgvector explains its search");
    assert!(
        plan.contains("Index Scan using seamscope_hnsw_") && plan.contains("_chunk"),
        "the search walks the collection's HNSW index: {plan}"
    );
    assert_eq!(
        bench["differs_with_complete_recall"], 0,
        "a question whose dense lists hold every entry of the embedded store's gives its fills, ties aside: {:?}",
        bench["differing_questions"]
    );
    let recall = bench["dense_recall"]["mean"].as_f64().unwrap();
    assert!(recall > 0.95, "HNSW recall against exact search: {recall}");
    let differs = bench["differs"].as_u64().unwrap();
    let incomplete = 130 - bench["dense_recall"]["complete"].as_u64().unwrap();
    assert!(
        differs <= incomplete,
        "{differs} differ, {incomplete} miss an entry"
    );
    assert!(bench["max_score_difference"].as_f64().unwrap() < 1e-4);
    let c = &bench["store"]["collections"][0];
    assert_eq!(c["uploaded"], true, "an empty database is filled: {c}");
    for store in ["embedded", "store_latency"] {
        assert!(bench[store]["dense_ms"]["median"].as_f64().unwrap() > 0.0);
    }

    // The layout the Python package shares: the collection's metadata and one row of each kind.
    let name = c["name"].as_str().unwrap().to_string();
    let rows = pg::sql(
        &url,
        &format!(
            "SELECT c.cmetadata::text, c.uuid::text FROM langchain_pg_collection c WHERE c.name = '{name}'"
        ),
    );
    let meta: Value = serde_json::from_str(rows[0][0].as_deref().unwrap()).unwrap();
    let uuid = rows[0][1].clone().unwrap();
    assert_eq!(meta["seamscope_layout"], 1);
    assert_eq!(meta["dim"], 384);
    assert_eq!(meta["k"], 150);
    assert_eq!(meta["chunks"], bench["chunks"]);
    assert_eq!(meta["seams"], bench["seams"]);
    assert!(
        meta["model"]
            .as_str()
            .unwrap()
            .starts_with("all-MiniLM-L6-v2")
    );
    assert_eq!(meta["fingerprint"].as_str().unwrap().len(), 32);
    let seam = pg::sql(
        &url,
        "SELECT cmetadata::text, length(document), vector_dims(embedding) FROM langchain_pg_embedding WHERE id = 'seam-0'",
    );
    let seam_meta: Value = serde_json::from_str(seam[0][0].as_deref().unwrap()).unwrap();
    assert_eq!(seam_meta["kind"], "seam");
    assert_eq!(seam_meta["id"], 0);
    assert!(seam_meta["left"].is_number() && seam_meta["right"].is_number());
    assert!(seam_meta["end"].as_u64() > seam_meta["start"].as_u64());
    assert_ne!(
        seam[0][1].as_deref(),
        Some("0"),
        "the seam's search text is kept"
    );
    assert_eq!(seam[0][2].as_deref(), Some("384"));

    // Reopened: the collection verifies and is reused, nothing uploaded.
    let reopened = json_clean(&mut run(&["index", "sample-corpus", "--json"]));
    assert!(!synced(&reopened).1, "{:?}", synced(&reopened));
    let dense = reopened["dense_search"].as_str().unwrap();
    assert!(
        dense.contains("approximate (pgvector HNSW) in Postgres at") && dense.contains(&url),
        "{dense}"
    );

    // A stored vector changed behind seamscope's back is found and the collection refilled.
    pg::sql(
        &url,
        "UPDATE langchain_pg_embedding SET embedding = array_fill(0.01, ARRAY[384])::vector WHERE id = 'chunk-0'",
    );
    let repaired = synced(&json_clean(&mut run(&["index", "sample-corpus", "--json"])));
    assert!(
        repaired.1 && repaired.2.contains("its stored vector of chunk-0 differs"),
        "{repaired:?}"
    );
    // Reused only when every row reads back equal, and it says so.
    let verified = json_clean(&mut run(&["index", "sample-corpus", "--json"]));
    let c = &verified["build"]["store"]["collections"][0];
    assert_eq!(c["uploaded"], false, "{c}");
    assert_eq!(c["checked"], c["vectors"], "every row was read back: {c}");
    let said = run(&["index", "sample-corpus"]).output().unwrap();
    let said = String::from_utf8_lossy(&said.stdout);
    assert!(
        said.contains(&format!(
            "reused: every one of its {} rows read back equal to the index's (vector, text, metadata)",
            c["vectors"]
        )),
        "{said}"
    );
    // Two rows' vectors overwritten where a spot check does not look (rows 1 and 2, with each
    // other's), then one row's metadata edited: each is found, and the collection refilled.
    pg::sql(
        &url,
        "UPDATE langchain_pg_embedding e SET embedding = o.embedding \
         FROM langchain_pg_embedding o \
         WHERE (e.id, o.id) IN (('chunk-1', 'chunk-2'), ('chunk-2', 'chunk-1'))",
    );
    let swapped = synced(&json_clean(&mut run(&["index", "sample-corpus", "--json"])));
    assert!(
        swapped.1 && swapped.2.contains("its stored vector of chunk-1 differs"),
        "{swapped:?}"
    );
    pg::sql(
        &url,
        "UPDATE langchain_pg_embedding SET cmetadata = jsonb_set(cmetadata, '{start}', '123456') \
         WHERE id = 'seam-1'",
    );
    let edited = synced(&json_clean(&mut run(&["index", "sample-corpus", "--json"])));
    assert!(
        edited.1 && edited.2.contains("its stored metadata of seam-1 differs"),
        "{edited:?}"
    );
    // Half-written: rows without the metadata that a finished fill writes last, or rows missing.
    pg::sql(
        &url,
        &format!("UPDATE langchain_pg_collection SET cmetadata = NULL WHERE name = '{name}'"),
    );
    let refilled = synced(&json_clean(&mut run(&["index", "sample-corpus", "--json"])));
    assert!(
        refilled.1 && refilled.2.contains("no seamscope metadata"),
        "{refilled:?}"
    );
    pg::sql(
        &url,
        "DELETE FROM langchain_pg_embedding WHERE id IN ('seam-1', 'seam-2')",
    );
    let counted = synced(&json_clean(&mut run(&["index", "sample-corpus", "--json"])));
    assert!(
        counted.1 && counted.2.contains("rows, the index has"),
        "{counted:?}"
    );
    // Each refill replaced the old collection and its indexes: one collection, two indexes.
    let left = pg::sql(
        &url,
        "SELECT (SELECT count(*) FROM langchain_pg_collection), \
                (SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'seamscope_hnsw_%')",
    );
    assert_eq!(left[0], vec![Some("1".into()), Some("2".into())]);
    assert!(
        pg::sql(
            &url,
            &format!("SELECT 1 FROM langchain_pg_collection WHERE uuid = '{uuid}'")
        )
        .is_empty(),
        "the damaged collection is gone"
    );

    // A question over the store: the trace says where dense search ran.
    let question = "How long is an idle session kept before it expires?";
    let answer = json_clean(&mut run(&["query", "sample-corpus", question, "--json"]));
    assert_eq!(answer["dense_store"]["pgvector"]["url"], url.as_str());
    assert_eq!(answer["dense_search"], "approximate");
    assert!(
        !answer["trace"]["fill"]["chunks"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // A long-running session (the screen, the MCP server) through a proxy that stops passing
    // anything on: the question fails within pg_timeout_secs, and once the server answers again
    // the next question connects anew.
    let proxy = pg::Proxy::to(&url);
    let database = url.rsplit('/').next().unwrap();
    let proxied = format!("postgresql://postgres@127.0.0.1:{}/{database}", proxy.port);
    let settings = seamscope::settings::Settings {
        store: seamscope::spec::store::Store::Pgvector(proxied.clone()),
        pg_timeout_secs: 2,
        ..common::settings(cache.path())
    };
    let mut engine = seamscope::session::Engine::load(settings).unwrap();
    let open = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    assert!(!open.report.store.as_ref().unwrap().collections[0].uploaded);
    let qs = engine.settings.query_settings();
    let (before, _) = engine.ask(&open, question, &qs).unwrap();
    proxy.stall.store(true, Ordering::SeqCst);
    let started = Instant::now();
    let stalled = engine.ask(&open, question, &qs).unwrap_err().to_string();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stalled.contains("did not answer within 2 s (pg_timeout_secs)"),
        "{stalled}"
    );
    proxy.stall.store(false, Ordering::SeqCst);
    let (after, _) = engine.ask(&open, question, &qs).unwrap();
    assert_eq!(before.fill.chunks, after.fill.chunks);
    // The server goes away under the session: said at once, and the next question connects anew.
    proxy.cut();
    let started = Instant::now();
    let cut = engine.ask(&open, question, &qs).unwrap_err().to_string();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        cut.contains("cannot reach Postgres at") && cut.contains("connection closed"),
        "{cut}"
    );
    let (back, _) = engine.ask(&open, question, &qs).unwrap();
    assert_eq!(before.fill.chunks, back.fill.chunks);

    // The collection removed under the session: the question says what to do, and opening
    // again fills it anew.
    pg::sql(
        &url,
        &format!("DELETE FROM langchain_pg_collection WHERE name = '{name}'"),
    );
    let gone = engine.ask(&open, question, &qs).unwrap_err().to_string();
    assert!(gone.contains("open the corpus again"), "{gone}");
    let reopened = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    assert!(reopened.report.store.as_ref().unwrap().collections[0].uploaded);
    let (again, _) = engine.ask(&reopened, question, &qs).unwrap();
    assert_eq!(before.fill.chunks, again.fill.chunks);
}

#[test]
fn bad_addresses_and_absent_servers_are_clear_errors_with_no_password_shown() {
    let cache = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let query = ["query", "sample-corpus", "What is a seam?"];
    let output = |store: &str, json: bool| {
        let mut cmd = common::seamscope(cache.path());
        cmd.env("SEAMSCOPE_PG_PASSWORD", PASSWORD)
            .args(query)
            .args(["--store", store]);
        if json {
            cmd.arg("--json");
        }
        let started = Instant::now();
        let out = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !text.contains(PASSWORD) && !text.contains("s3cret"),
            "{text}"
        );
        (out.status.code(), text, started.elapsed())
    };
    // Nothing listens: named, with what to do, quickly (the model loads first).
    for json in [false, true] {
        let (code, text, took) = output(
            &format!("pgvector:postgresql://postgres@127.0.0.1:{port}/db"),
            json,
        );
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains(&format!(
                "cannot reach Postgres at postgresql://postgres@127.0.0.1:{port}/db"
            )) && text.contains("SEAMSCOPE_PG_PASSWORD"),
            "{text}"
        );
        assert!(took < Duration::from_secs(60), "took {took:?}");
    }
    // A password in the address is refused, shown masked.
    let (code, text, _) = output(
        &format!("pgvector:postgresql://alice:s3cret@127.0.0.1:{port}/db"),
        false,
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("postgresql://alice:***@127.0.0.1") && text.contains("holds a password"),
        "{text}"
    );
    // Malformed stores are usage errors, the value masked.
    for (store, said) in [
        ("pgvector:", "needs the server's address"),
        ("mongo:postgresql://alice:s3cret@h/db", "unknown store"),
        ("pgvector:http://h:1", "pg_url"),
    ] {
        let (code, text, _) = output(store, false);
        assert_eq!(code, Some(2), "{store}: {text}");
        assert!(text.contains(said), "{store}: {text}");
    }
    // A server that accepts and never answers fails after pg_timeout_secs.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let stalled = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let settings = cache.path().join("settings.toml");
    std::fs::write(&settings, "pg_timeout_secs = 2\n").unwrap();
    let started = Instant::now();
    let out = common::seamscope(cache.path())
        .arg("--config")
        .arg(&settings)
        .args(query)
        .args([
            "--store",
            &format!("pgvector:postgresql://postgres@127.0.0.1:{stalled}/db"),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("did not answer within 2 s (pg_timeout_secs)"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn one_database_holds_one_index_at_a_time_and_never_takes_rows_it_did_not_write() {
    let url = pg::fresh_database("ids");
    let dir = tempfile::tempdir().unwrap();
    let corpus = |name: &str, text: &str| {
        let folder = dir.path().join(name);
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("note.txt"), text).unwrap();
        folder.to_str().unwrap().to_string()
    };
    let badges = corpus(
        "badges",
        "Badges are renewed every year at the front desk.\n",
    );
    let keys = corpus(
        "keys",
        "Keys to the archive are signed out at the loading dock.\n",
    );
    let cache = dir.path().join("cache");
    let index = |folder: &str| {
        synced(&json_clean(&mut run_with(
            &cache,
            &url,
            &["index", folder, "--json"],
        )))
    };
    // A corpus without seams: an empty seam kind verifies too, and the question is answered.
    let first = index(&badges);
    assert!(first.1, "{first:?}");
    assert!(!index(&badges).1, "reopened, nothing written");
    let answer = json_clean(&mut run_with(
        &cache,
        &url,
        &["query", &badges, "When are badges renewed?", "--json"],
    ));
    assert_eq!(answer["trace"]["fill"]["chunks"], serde_json::json!([0]));
    // Another index's rows take the same ids (chunk-0): filling it replaces the first
    // collection, saying so, and the first is refilled when it is opened again.
    let second = index(&keys);
    assert!(
        second.1 && second.2.contains(&format!("it replaced {}", first.0)),
        "{second:?}"
    );
    let again = index(&badges);
    assert!(
        again.1 && again.2.contains("no such collection"),
        "{again:?}"
    );
    // Rows of a collection that is not one of seamscope's index collections are never taken,
    // even one carrying the shared layout's metadata (a bundle the Python package's add_bundle
    // wrote under the user's own collection name).
    pg::sql(
        &url,
        "DELETE FROM langchain_pg_collection WHERE name LIKE 'seamscope-%'; \
         INSERT INTO langchain_pg_collection (uuid, name, cmetadata) VALUES (gen_random_uuid(), 'team-docs', '{\"seamscope_layout\": 1}'); \
         INSERT INTO langchain_pg_embedding (id, collection_id, embedding, document, cmetadata) \
           SELECT 'chunk-0', uuid, array_fill(0.1, ARRAY[384])::vector, 'theirs', '{}' \
           FROM langchain_pg_collection WHERE name = 'team-docs';",
    );
    let out = run_with(&cache, &url, &["index", &keys]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("team-docs") && err.contains("not one of seamscope's index collections"),
        "{err}"
    );
    let theirs = pg::sql(
        &url,
        "SELECT document FROM langchain_pg_embedding WHERE id = 'chunk-0'",
    );
    assert_eq!(theirs, vec![vec![Some("theirs".to_string())]]);
    // The failed fill left nothing behind.
    let ours = pg::sql(
        &url,
        "SELECT count(*) FROM langchain_pg_collection WHERE name LIKE 'seamscope-%'",
    );
    assert_eq!(ours, vec![vec![Some("0".to_string())]]);
}

#[test]
fn a_server_that_asks_for_a_password_when_none_was_given_says_so() {
    use std::io::{Read, Write};
    // A loopback stand-in for a Postgres that wants a password: it reads the startup message
    // and answers AuthenticationCleartextPassword ('R', length 8, code 3), as a server with
    // password authentication does.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut length = [0u8; 4];
            if stream.read_exact(&mut length).is_err() {
                continue;
            }
            let mut rest = vec![0u8; (u32::from_be_bytes(length) as usize).saturating_sub(4)];
            let _ = stream.read_exact(&mut rest);
            let _ = stream.write_all(&[b'R', 0, 0, 0, 8, 0, 0, 0, 3]);
            let _ = stream.flush();
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let cache = tempfile::tempdir().unwrap();
    let out = common::seamscope(cache.path())
        .env_remove("SEAMSCOPE_PG_PASSWORD")
        .env_remove("PGPASSWORD")
        .args(["query", "sample-corpus", "What is a seam?", "--store"])
        .arg(format!(
            "pgvector:postgresql://postgres@127.0.0.1:{port}/db"
        ))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "Postgres at postgresql://postgres@127.0.0.1:{port}/db asks for a password and none was given: set SEAMSCOPE_PG_PASSWORD"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("start the server"), "{stderr}");
}

#[test]
fn a_fill_that_waits_for_another_fill_of_the_database_says_it_replaced_its_work() {
    let url = pg::fresh_database("turns");
    let cache = tempfile::tempdir().unwrap();
    // The local index first, so the fill below starts within a few seconds.
    let built = common::seamscope(cache.path())
        .args(["index", "sample-corpus"])
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    // Another fill holds the database's fill lock for a while, as a concurrent `index` does.
    let holder = {
        let url = url.clone();
        std::thread::spawn(move || {
            pg::sql(
                &url,
                "BEGIN; SELECT pg_advisory_xact_lock(hashtext('seamscope-fill')); \
                 SELECT pg_sleep(8); COMMIT;",
            )
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let report = json_clean(&mut run_with(
        cache.path(),
        &url,
        &["index", "sample-corpus", "--json"],
    ));
    let _ = holder.join();
    let (_, uploaded, reason) = synced(&report);
    assert!(
        uploaded
            && reason.contains(
                "another seamscope fill of this database ran at the same time: this one waited for it"
            ),
        "{reason}"
    );
}
