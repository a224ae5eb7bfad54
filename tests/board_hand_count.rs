//! The board's context columns (tokens sent once and twice, passages returned twice, Chroma's
//! precision and IoU, stored once) checked against a hand count: on the sample corpus with its
//! gold set, `tune --per-question` lists what each row sent for each question; for three
//! questions the counts below were made by hand from those units (overlapping token ranges laid
//! side by side), and for every question the test recounts them from the units alone and sums
//! them into the row's columns.

mod common;

use common::{json_of, seamscope};
use serde_json::Value;

/// `(start, end)` token ranges of the places in `doc`.
fn ranges(places: &Value, doc: &str) -> Vec<(u64, u64)> {
    places
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["doc"] == doc)
        .map(|p| {
            (
                p["first_token"].as_u64().unwrap(),
                p["end_token"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn docs(places: &Value) -> Vec<String> {
    let mut d: Vec<String> = places
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["doc"].as_str().unwrap().to_string())
        .collect();
    d.sort();
    d.dedup();
    d
}

/// Tokens covered by `ranges`, each counted once.
fn union(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

fn len(ranges: &[(u64, u64)]) -> u64 {
    ranges.iter().map(|(s, e)| e - s).sum()
}

fn intersect(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| (x.0.max(y.0), x.1.min(y.1))))
        .filter(|(s, e)| s < e)
        .map(|(s, e)| e - s)
        .sum()
}

/// What a question's context holds, recounted from its units: tokens sent, sent once, sent
/// twice, pairs of units sharing text, evidence tokens, evidence returned.
#[derive(Debug, PartialEq)]
struct Count {
    sent: u64,
    distinct: u64,
    duplicated: u64,
    pairs: u64,
    evidence: u64,
    evidence_returned: u64,
}

fn recount(q: &Value) -> Count {
    let (mut sent, mut distinct, mut pairs) = (0, 0, 0);
    for doc in docs(&q["returned"]) {
        let r = ranges(&q["returned"], &doc);
        sent += len(&r);
        distinct += len(&union(r.clone()));
        for (i, a) in r.iter().enumerate() {
            pairs += r[i + 1..].iter().filter(|b| a.0 < b.1 && b.0 < a.1).count() as u64;
        }
    }
    let (mut evidence, mut evidence_returned) = (0, 0);
    for doc in docs(&q["gold"]) {
        let gold = union(ranges(&q["gold"], &doc));
        evidence += len(&gold);
        evidence_returned += intersect(&gold, &union(ranges(&q["returned"], &doc)));
    }
    Count {
        sent,
        distinct,
        duplicated: sent - distinct,
        pairs,
        evidence,
        evidence_returned,
    }
}

fn reported(q: &Value) -> Count {
    let n = |k: &str| q[k].as_u64().unwrap();
    Count {
        sent: n("tokens_sent"),
        distinct: n("distinct_tokens"),
        duplicated: n("duplicated_tokens"),
        pairs: n("passages_twice"),
        evidence: n("evidence_tokens"),
        evidence_returned: n("evidence_returned"),
    }
}

fn question<'a>(row: &'a Value, id: &str) -> &'a Value {
    row["per_question"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == id)
        .unwrap_or_else(|| panic!("no question {id} in {}", row["label"]))
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-9, "{what}: row says {a}, the count {b}");
}

#[test]
fn each_rows_context_columns_match_a_hand_count() {
    // The sample cache the other sample tests share: its vectors are keyed by text and model,
    // so no other test's run changes what this one measures, and the corpus is embedded once.
    let cache = common::sample_cache();
    let board = json_of(
        seamscope(cache.as_path())
            .args(["tune", "sample-corpus", "--strategies", "overlap,seams"])
            .args(["--questions", "sample-corpus/questions.jsonl"])
            .args(["--overlaps", "15", "--k", "150", "--m", "0"])
            .args(["--side-drop", "off", "--resamples", "100"])
            .args(["--json", "--per-question"]),
    );
    let rows = board["rows"].as_array().unwrap();
    let row = |label: &str| {
        rows.iter()
            .find(|r| r["label"] == label)
            .unwrap_or_else(|| panic!("no row {label}"))
    };
    let (chunks, overlap, seams) = (
        row("chunks only"),
        row("overlap 15%"),
        row("Seams k 150 m 0"),
    );

    // By hand, from the units each row sent (1,024-token chunks; overlap 15% repeats 152–154
    // tokens between neighbours):
    // - A01, overlap: order-service-design 1740–2764 and 2610–3632 share 154 tokens,
    //   data-retention-policy 870–1893 and 1740–2764 share 153: 307 twice, 2 pairs; the gold
    //   span (order-service 1931–2136, 205 tokens) is held whole.
    // - A01, chunks only: of the 205 gold tokens, 89 are in a sent chunk (2047–3070): a miss.
    //   Seams: the seam at token 2047 fires and brings 1023–2047 and 2047–3070: all 205.
    // - A07, overlap: order-service 0–1023, 870–1893, 1740–2764, 2610–3632, 3480–4504: four
    //   neighbouring pairs sharing 153 + 153 + 154 + 152 = 612 tokens, of 5,116 sent.
    // - C03 (gold runbook 3936–4543, 607 tokens): overlap sends none of it; chunks only and
    //   Seams send 4094–5118, which holds 449.
    let by_hand = [
        (overlap, "A01", (5117, 4810, 307, 2, 205, 205)),
        (chunks, "A01", (5119, 5119, 0, 0, 205, 89)),
        (seams, "A01", (5119, 5119, 0, 0, 205, 205)),
        (overlap, "A07", (5116, 4504, 612, 4, 96, 96)),
        (overlap, "C03", (5119, 5119, 0, 0, 607, 0)),
        (chunks, "C03", (5120, 5120, 0, 0, 607, 449)),
        (seams, "C03", (5120, 5120, 0, 0, 607, 449)),
    ];
    for (r, id, (sent, distinct, duplicated, pairs, evidence, evidence_returned)) in by_hand {
        let q = question(r, id);
        let hand = Count {
            sent,
            distinct,
            duplicated,
            pairs,
            evidence,
            evidence_returned,
        };
        assert_eq!(reported(q), hand, "{} on {id}: {q}", r["label"]);
        assert_eq!(recount(q), hand, "{} on {id}: {q}", r["label"]);
    }
    assert_eq!(question(seams, "A01")["fires"], 1);
    assert_eq!(question(chunks, "A01")["answered"], false);
    assert_eq!(question(seams, "A01")["answered"], true);

    // Every question of every row: the figures are what its units hold, and the row's columns
    // are their sums (precision and IoU over the whole set, as Chroma defines them).
    for r in [chunks, overlap, seams] {
        let per = r["per_question"].as_array().unwrap();
        assert_eq!(per.len(), 130, "{}", r["label"]);
        let mut total = Count {
            sent: 0,
            distinct: 0,
            duplicated: 0,
            pairs: 0,
            evidence: 0,
            evidence_returned: 0,
        };
        for q in per {
            let c = recount(q);
            assert_eq!(reported(q), c, "{} on {}", r["label"], q["id"]);
            for p in q["returned"].as_array().unwrap() {
                assert!(p["first_token"].as_u64() < p["end_token"].as_u64(), "{p}");
            }
            total.sent += c.sent;
            total.distinct += c.distinct;
            total.duplicated += c.duplicated;
            total.pairs += c.pairs;
            total.evidence += c.evidence;
            total.evidence_returned += c.evidence_returned;
        }
        let n = per.len() as f64;
        let f = |k: &str| r[k].as_f64().unwrap();
        let label = r["label"].as_str().unwrap();
        close(f("tokens"), total.sent as f64 / n, label);
        close(f("distinct_tokens"), total.distinct as f64 / n, label);
        close(f("duplicated_tokens"), total.duplicated as f64 / n, label);
        close(
            f("duplicate_share"),
            total.duplicated as f64 / total.sent as f64,
            label,
        );
        close(f("passages_twice"), total.pairs as f64 / n, label);
        let hit = total.evidence_returned as f64;
        close(f("span_precision"), hit / total.sent as f64, label);
        close(
            f("span_iou"),
            hit / ((total.evidence + total.sent) as f64 - hit),
            label,
        );
    }
    // Overlap stores its shared text twice; chunks and Seams store each passage once.
    assert_eq!(overlap["stores_once"], false);
    assert_eq!(chunks["stores_once"], true);
    assert_eq!(seams["stores_once"], true);
}

#[test]
fn per_question_detail_needs_the_json() {
    let cache = tempfile::tempdir().unwrap();
    let out = seamscope(cache.path())
        .args(["tune", "sample-corpus", "--strategies", "overlap"])
        .arg("--per-question")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--per-question adds to the board's JSON"),
        "{err}"
    );
}
