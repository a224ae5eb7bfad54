//! `seamscope questions check` on a damaged copy of the sample question set: ten spans shifted,
//! five given as text only, two misspelt (one also shifted) and one duplicate id are each
//! reported and repaired, the repaired file scores exactly as the original in `eval`, and the
//! repair is never written over the file it repairs.

mod common;

use std::path::{Path, PathBuf};

use common::{json_of, seamscope};
use serde_json::Value;

fn sample_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache")
}

/// Swap two letters in the middle of the first word of 8+ letters: a typo.
fn misspell(text: &str) -> String {
    let word = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| w.len() >= 8)
        .expect("a long word");
    let at = text.find(word).unwrap() + 3;
    let mut bytes = text.as_bytes().to_vec();
    bytes.swap(at, at + 1);
    String::from_utf8(bytes).unwrap()
}

/// The damaged copy, and the ids of each kind of damage.
fn damaged(dir: &Path) -> (PathBuf, Vec<String>) {
    let text = std::fs::read_to_string("sample-corpus/questions.jsonl").unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<String> = lines
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    for (i, line) in lines.iter_mut().enumerate().take(18) {
        let span = &mut line["spans"][0];
        match i {
            // Shifted by a few bytes, text unchanged.
            0..=9 => {
                let shift = 3 + i as u64;
                span["start"] = (span["start"].as_u64().unwrap() + shift).into();
                span["end"] = (span["end"].as_u64().unwrap() + shift).into();
            }
            // Text alone.
            10..=14 => {
                for s in line["spans"].as_array_mut().unwrap() {
                    let o = s.as_object_mut().unwrap();
                    o.remove("start");
                    o.remove("end");
                }
            }
            // A typo at the right offsets.
            15 => span["text"] = misspell(span["text"].as_str().unwrap()).into(),
            // A typo and offsets that are off.
            16 => {
                span["text"] = misspell(span["text"].as_str().unwrap()).into();
                span["start"] = (span["start"].as_u64().unwrap() + 40).into();
                span["end"] = (span["end"].as_u64().unwrap() + 40).into();
            }
            // Another question under the first one's id.
            _ => line["id"] = ids[0].clone().into(),
        }
    }
    let path = dir.join("questions.jsonl");
    let out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
    (path, ids)
}

fn failure_rates(cache: &Path, questions: &Path) -> Vec<(String, f64)> {
    let report = json_of(seamscope(cache).args([
        "eval",
        "sample-corpus",
        "--sweep-m",
        "1",
        "--questions",
        questions.to_str().unwrap(),
        "--json",
    ]));
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_string(),
                r["failure_rate"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_damaged_question_set_is_reported_repaired_and_scores_as_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let cache = sample_cache();
    let (file, ids) = damaged(dir.path());
    let file_arg = file.to_str().unwrap();

    // Without --fix: every problem reported, exit 1.
    let out = seamscope(&cache)
        .args(["questions", "check", "sample-corpus", file_arg])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("130 lines: 112 ok, 18 repairable, 0 not repairable"),
        "{text}"
    );

    // Never in place, by any name.
    let same = dir.path().join(".").join("questions.jsonl");
    let refused = seamscope(&cache)
        .args(["questions", "check", "sample-corpus", file_arg, "--fix"])
        .arg(&same)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("never written in place"));

    let fixed = dir.path().join("fixed.jsonl");
    let report = json_of(
        seamscope(&cache)
            .args([
                "questions",
                "check",
                "sample-corpus",
                file_arg,
                "--json",
                "--fix",
            ])
            .arg(&fixed),
    );
    let by_line = |n: usize| &report["questions"][n];
    let status = |n: usize| {
        by_line(n)["spans"][0]["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for n in 0..10 {
        assert_eq!(status(n), "shifted", "line {}", n + 1);
    }
    for n in 10..15 {
        assert_eq!(status(n), "text-only", "line {}", n + 1);
    }
    for n in 15..17 {
        assert_eq!(status(n), "fuzzy", "line {}", n + 1);
        let confidence = by_line(n)["spans"][0]["confidence"].as_f64().unwrap();
        assert!(confidence > 0.99 && confidence < 1.0, "{confidence}");
    }
    let renamed = by_line(17)["changes"][0].as_str().unwrap();
    assert!(
        renamed.contains(&format!("id {} → {}-2", ids[0], ids[0])),
        "{renamed}"
    );
    for n in 0..18 {
        assert_eq!(by_line(n)["action"], "repair", "line {}", n + 1);
    }
    let summary = &report["summary"];
    assert_eq!(summary["repaired"], 18);
    assert_eq!(summary["dropped"], 0);
    let classes: u64 = ["whole", "split", "absent"]
        .iter()
        .map(|c| summary[*c].as_u64().unwrap())
        .sum();
    assert_eq!(classes, 130);

    // The repaired file holds the original spans again and scores exactly as the original.
    let original = Path::new("sample-corpus/questions.jsonl");
    let repaired: Vec<Value> = std::fs::read_to_string(&fixed)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let before: Vec<Value> = std::fs::read_to_string(original)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(repaired.len(), before.len());
    for (r, b) in repaired.iter().zip(&before) {
        assert_eq!(r["spans"], b["spans"], "{}", b["id"]);
    }
    assert_eq!(
        failure_rates(&cache, &fixed),
        failure_rates(&cache, original)
    );
}
