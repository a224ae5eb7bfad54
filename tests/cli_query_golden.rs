//! Golden output of `seamscope query --json` on a small hand-made corpus: the structure and the
//! key values (layout, rankings, fire decisions, budget fill, both baselines), not timings or raw
//! search scores.
//!
//! The golden file is `tests/golden/query_two_docs.json`. After a deliberate change, rewrite it
//! with `SEAMSCOPE_UPDATE_GOLDEN=1 cargo nextest run --test cli_query_golden` and review the diff.

mod common;

use std::path::{Path, PathBuf};

use common::seamscope;
use serde_json::Value;

const OUTAGE: &str = "The order service accepts purchases during a regional outage. \
It writes each order to a local journal first. When the region returns, the journal is replayed \
in order. Billing records are never written to the journal. Billing stays strongly consistent \
and waits for the primary region. ";

const REPLICA: &str = "Replica promotion needs care. Drain traffic from the replica before \
promoting it. Confirm the replication lag is under five seconds. After promotion, point the \
writers at the new primary and watch the error rate. ";

const QUESTION: &str = "Why is billing never written to the journal?";

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let outage = format!("# Outages\n\n{}", OUTAGE.repeat(3));
    std::fs::write(dir.path().join("outage.md"), outage).unwrap();
    std::fs::write(dir.path().join("replica.txt"), REPLICA.repeat(3)).unwrap();
    dir
}

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/query_two_docs.json")
}

/// The output without what may change between runs or machines: timings and the raw scores of
/// each search list (the rankings and the RRF scores, which follow from ranks, stay).
fn stable(mut v: Value) -> Value {
    fn strip(v: &mut Value, in_list: bool) {
        match v {
            Value::Object(map) => {
                if in_list {
                    map.remove("score");
                }
                for (key, child) in map.iter_mut() {
                    strip(child, key == "hits" || key == "per_list");
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| strip(item, in_list)),
            _ => {}
        }
    }
    if let Value::Object(map) = &mut v {
        map.remove("timings");
        map.remove("question_vector");
    }
    strip(&mut v, false);
    v
}

fn run_query(cache: &Path, corpus: &Path) -> Value {
    let out = seamscope(cache)
        .args(["query", "--json", "--chunk-tokens", "60", "--k", "15"])
        .args(["--m", "1", "--budget", "3"])
        .arg(corpus)
        .arg(QUESTION)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ids(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn query_json_matches_the_golden_file_and_holds_together() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let v = run_query(cache.path(), corpus.path());

    // The key values, checked against each other.
    let trace = &v["trace"];
    assert_eq!(trace["settings"]["m"], 1);
    assert_eq!(trace["settings"]["budget"], 3);
    assert_eq!(trace["settings"]["k"], 15);
    assert_eq!(trace["input"]["question"], QUESTION);
    assert_eq!(v["dense_search"], "exact");
    let chunks = v["chunks"].as_array().unwrap();
    let seams = v["seams"].as_array().unwrap();
    assert_eq!(chunks.len(), 5);
    assert_eq!(seams.len(), 3, "one seam per cut, none across documents");
    for seam in seams {
        let (l, r) = (
            seam["left"].as_u64().unwrap(),
            seam["right"].as_u64().unwrap(),
        );
        assert_eq!(r, l + 1);
        assert_eq!(chunks[l as usize]["doc"], chunks[r as usize]["doc"]);
    }
    let fill = ids(&trace["fill"]["chunks"]);
    assert!(fill.len() <= 3);
    let context = trace["context"].as_array().unwrap();
    assert_eq!(context.len(), fill.len());
    let mut sent = 0;
    for (c, id) in context.iter().zip(&fill) {
        assert_eq!(c["chunk"].as_u64(), Some(*id));
        assert_eq!(c["tokens"], chunks[*id as usize]["tokens"]);
        sent += c["tokens"].as_u64().unwrap();
    }
    assert_eq!(trace["tokens_sent"].as_u64(), Some(sent));
    for d in trace["decisions"].as_array().unwrap() {
        let pos = d["seam_position"].as_u64().unwrap();
        let left = d["left"]["counted_position"].as_u64().unwrap();
        let right = d["right"]["counted_position"].as_u64().unwrap();
        let m = d["m"].as_u64().unwrap();
        assert_eq!(m, 1);
        assert_eq!(
            d["fires"].as_bool(),
            Some(pos + m <= left && pos + m <= right)
        );
    }
    let run = &trace["without_seams"]["retrieval"];
    assert_eq!(run["comparison"]["baseline"], "chunks_only_retrieval");
    assert_eq!(ids(&run["comparison"]["with_seams"]), fill);
    assert_eq!(
        ids(&run["comparison"]["without_seams"]),
        ids(&run["fill"]["chunks"])
    );
    assert!(
        run["fused"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["entry"].get("chunk").is_some()),
        "the chunks-only ranking holds chunks only"
    );
    assert_eq!(
        trace["without_seams"]["seams_removed"]["baseline"],
        "seams_removed"
    );

    // The whole stable output against the golden file.
    let got = stable(v);
    let path = golden_path();
    let pretty = serde_json::to_string_pretty(&got).unwrap() + "\n";
    if std::env::var_os("SEAMSCOPE_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &pretty).unwrap();
        return;
    }
    let want: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    if got != want {
        let seen = std::env::temp_dir().join("query_two_docs.got.json");
        std::fs::write(&seen, &pretty).unwrap();
        panic!(
            "query --json differs from {} (this run's output: {}); after a deliberate change, \
             rerun with SEAMSCOPE_UPDATE_GOLDEN=1 and review the diff",
            path.display(),
            seen.display()
        );
    }
}
