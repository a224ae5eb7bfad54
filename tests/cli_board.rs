//! `seamscope tune --strategies` and `tune --map` as a user runs them, with the real model: the
//! JSON contract scripts read (rows with label, family, settings, failure rate, interval, tokens
//! and vectors; a verdict with winner, tied_with and each contender's p_best), rows that
//! reproduce `eval`'s numbers for the strategies both score, tuned SCAR rows, and the map's
//! bands and verdict.

mod common;

use std::path::Path;

use common::{json_of, operations_corpus, seamscope};
use serde_json::Value;

/// A question set over `operations.md`: each question quotes two or three sentences in a row, so
/// some evidence crosses a cut of 64-token chunks.
fn with_questions(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("operations.md")).unwrap();
    let sentences: Vec<(usize, usize)> = {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, _) in text.match_indices(". ") {
            out.push((start, i + 1));
            start = i + 2;
        }
        out
    };
    let mut lines = Vec::new();
    for (n, i) in (0..sentences.len() - 3).step_by(4).enumerate() {
        let take = 2 + n % 2;
        let (start, end) = (sentences[i].0, sentences[i + take - 1].1);
        let quote = &text[start..end];
        let words: Vec<&str> = quote.split_whitespace().collect();
        let question = format!(
            "{} {} {}",
            words[1..4].join(" "),
            words[words.len() / 2],
            words[words.len() - 1]
        );
        lines.push(
            serde_json::json!({
                "id": format!("q{n}"),
                "question": question,
                "doc": "operations.md",
                "spans": [{"start": start, "end": end, "text": quote}],
            })
            .to_string(),
        );
    }
    let path = dir.join("questions.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    path.display().to_string()
}

/// The row labelled `label`, or the folded row that has it among its members.
fn row_of<'a>(rows: &'a [Value], label: &str) -> &'a Value {
    rows.iter()
        .find(|r| {
            r["label"] == label
                || r["members"]
                    .as_array()
                    .is_some_and(|m| m.iter().any(|m| m["label"] == label))
        })
        .unwrap_or_else(|| panic!("no row {label}"))
}

fn rate(rows: &[Value], label: &str) -> f64 {
    row_of(rows, label)["failure_rate"].as_f64().unwrap()
}

/// Settings a row stands for: its members when folded, else one.
fn settings_in(rows: &[Value], family: &str) -> usize {
    rows.iter()
        .filter(|r| r["family"] == family)
        .map(|r| r["members"].as_array().map_or(1, Vec::len))
        .sum()
}

#[test]
fn the_board_scores_every_family_reproduces_eval_and_gives_an_honest_verdict() {
    // The cache the tests of the unedited operations corpus share (see `operations_cache`).
    let cache = common::operations_cache();
    // What the test writes (the board report, the bundles) goes in a folder of its own.
    let work = tempfile::tempdir().unwrap();
    let corpus = operations_corpus();
    let questions = with_questions(corpus.path());
    let common_args = ["--chunk-tokens", "64", "--budget", "3"];
    let board = json_of(
        seamscope(&cache)
            .args(["tune"])
            .arg(corpus.path())
            .args(common_args)
            .args(["--strategies", "all", "--questions", &questions])
            .args(["--k", "24", "--m", "0-3", "--overlaps", "15"])
            .args(["--windows", "256/128", "--resamples", "2000", "--json"]),
    );
    let rows = board["rows"].as_array().unwrap();
    // Every family is on the board, each row with the contract's fields.
    for family in [
        "none",
        "overlap",
        "windows",
        "neighbour",
        "scar",
        "seams",
        "overlap+seams",
    ] {
        assert!(
            rows.iter().any(|r| r["family"] == family),
            "no {family} row"
        );
    }
    for r in rows {
        for field in [
            "label",
            "family",
            "settings",
            "failure_rate",
            "interval",
            "tokens",
            "vectors",
        ] {
            assert!(!r[field].is_null(), "row {r} lacks {field}");
        }
        let (lo, hi) = (
            r["interval"]["low"].as_f64().unwrap(),
            r["interval"]["high"].as_f64().unwrap(),
        );
        let f = r["failure_rate"].as_f64().unwrap();
        assert!(lo <= f && f <= hi, "{r}");
    }
    // What each row sends: overlapping chunks store and send text twice; chunks only, Seams and
    // windows (search vectors that bring the disjoint chunks) store each passage once and send
    // nothing twice.
    for r in rows {
        let once = r["stores_once"].as_bool().unwrap_or_else(|| panic!("{r}"));
        let dup = r["duplicate_share"].as_f64().unwrap();
        let (distinct, duplicated) = (
            r["distinct_tokens"].as_f64().unwrap(),
            r["duplicated_tokens"].as_f64().unwrap(),
        );
        assert!((0.0..1.0).contains(&dup), "{r}");
        assert!(distinct > 0.0 && duplicated >= 0.0, "{r}");
        let iou = r["span_iou"].as_f64().unwrap();
        assert!(
            iou > 0.0 && iou <= r["span_precision"].as_f64().unwrap() + 1e-12,
            "{r}"
        );
        match r["family"].as_str().unwrap() {
            "none" | "seams" | "windows" => {
                assert!(once, "{r}");
                assert_eq!(duplicated, 0.0, "{r}");
                assert_eq!(r["passages_twice"].as_f64(), Some(0.0), "{r}");
            }
            "overlap" => assert!(!once, "{r}"),
            _ => {}
        }
    }
    assert!(
        rows.iter()
            .filter(|r| r["family"] == "overlap")
            .any(|r| r["duplicate_share"].as_f64().unwrap() > 0.0
                && r["passages_twice"].as_f64().unwrap() > 0.0),
        "overlapping chunks send some text twice"
    );
    // SCAR is tuned: one setting per τ × penalty (6 × 3 by default); settings with the same
    // outcome on every question share a row that lists them.
    assert_eq!(settings_in(rows, "scar"), 18);
    let scar: Vec<&Value> = rows.iter().filter(|r| r["family"] == "scar").collect();
    assert!(scar.iter().all(|r| r["settings"]["tau"].is_number()));
    // Seams: 4 margins × side drop off and on.
    assert_eq!(settings_in(rows, "seams"), 8);
    for r in rows.iter().filter(|r| r["members"].is_array()) {
        let members = r["members"].as_array().unwrap();
        assert!(members.len() > 1, "{r}");
        // The row's settings are one of its members'.
        assert!(
            members.iter().any(|m| m["settings"] == r["settings"]),
            "{r}"
        );
    }
    // Rows sorted best first.
    let rates: Vec<f64> = rows
        .iter()
        .map(|r| r["failure_rate"].as_f64().unwrap())
        .collect();
    assert!(rates.windows(2).all(|w| w[0] <= w[1]));
    // The verdict: a winner or a tie, shares that add up, contenders named by row label.
    let v = &board["verdict"];
    let contenders = v["contenders"].as_array().unwrap();
    assert!(!contenders.is_empty());
    let shares: f64 = contenders
        .iter()
        .map(|c| c["p_best"].as_f64().unwrap())
        .sum();
    assert!(shares <= 1.0 + 1e-9);
    match v["winner"].as_str() {
        Some(w) => {
            assert!(contenders[0]["p_best"].as_f64().unwrap() >= 0.9);
            assert_eq!(contenders[0]["label"], w);
            assert!(v["tied_with"].as_array().unwrap().is_empty());
        }
        None => {
            assert!(contenders[0]["p_best"].as_f64().unwrap() < 0.9);
            assert_eq!(v["tied_with"].as_array().unwrap().len(), contenders.len());
        }
    }
    for c in contenders {
        assert!(
            rows.iter()
                .any(|r| r["label"] == c["label"] && r["p_best"].is_number())
        );
    }

    // `eval` on the same questions and settings gives the same failure rates for the strategies
    // both score.
    let eval = json_of(
        seamscope(&cache)
            .args(["eval"])
            .arg(corpus.path())
            .args(common_args)
            .args([
                "--k",
                "24",
                "--m",
                "2",
                "--seam-k",
                "24",
                "--questions",
                &questions,
                "--json",
            ]),
    );
    let eval_rows = eval["rows"].as_array().unwrap();
    let eval_rate = |label: &str| rate(eval_rows, label);
    assert_eq!(rate(rows, "chunks only"), eval_rate("no overlap"));
    assert_eq!(rate(rows, "Seams k 24 m 2"), eval_rate("Seams k=24"));
    assert_eq!(rate(rows, "windows 256/128"), eval_rate("windows 256/128"));
    let overlap = eval_rows
        .iter()
        .find(|r| r["label"].as_str().unwrap().starts_with("overlap"))
        .unwrap();
    assert_eq!(
        rate(rows, "overlap 15%"),
        overlap["failure_rate"].as_f64().unwrap()
    );

    // A Seams row goes into a bundle with its settings, recorded as the bundle's provenance
    // (the report saved by an editor that starts it with a byte-order mark still reads).
    let report = work.path().join("board.json");
    std::fs::write(&report, format!("\u{feff}{board}")).unwrap();
    let out = work.path().join("bundle");
    let label = "Seams k 24 m 3 + side drop 0.25";
    seamscope(&cache)
        .args(["export"])
        .arg(corpus.path())
        .arg("--out")
        .arg(&out)
        .arg("--from-tune")
        .arg(&report)
        .args(["--row", label])
        .assert()
        .success();
    let settings: Value =
        serde_json::from_slice(&std::fs::read(out.join("settings.json")).unwrap()).unwrap();
    assert_eq!(settings["k"], 24);
    assert_eq!(settings["m"], 3);
    assert_eq!(settings["budget"], 3);
    assert_eq!(settings["chunk_tokens"], 64, "{settings}");
    assert!((settings["side_drop"].as_f64().unwrap() - 0.25).abs() < 1e-6);
    assert_eq!(settings["m_source"], "tune");
    // A member of a folded row is exported with its own settings and named with its row.
    let recorded = settings["tune"]["row"].as_str().unwrap();
    assert!(recorded.starts_with(label), "{recorded}");
    assert_eq!(settings["tune"]["questions"], board["questions"]);
    // Another family's row cannot be a bundle: the error says how to deploy it elsewhere.
    let refused = seamscope(&cache)
        .args(["export"])
        .arg(corpus.path())
        .arg("--out")
        .arg(work.path().join("bundle2"))
        .arg("--from-tune")
        .arg(&report)
        .args(["--row", "overlap 15%"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("belongs to the overlap family") && err.contains("chunk_overlap=10"),
        "{err}"
    );
    assert!(!work.path().join("bundle2").join("settings.json").exists());
}

#[test]
fn the_map_scores_each_band_and_says_who_wins_where() {
    // The cache the tests of the unedited operations corpus share (see `operations_cache`).
    let cache = common::operations_cache();
    let corpus = operations_corpus();
    let map = json_of(
        seamscope(&cache)
            .args(["tune"])
            .arg(corpus.path())
            .args([
                "--chunk-tokens",
                "64",
                "--budget",
                "3",
                "--k",
                "24",
                "--map",
            ])
            .args([
                "--bands",
                "15-40,40-90",
                "--per-band",
                "20",
                "--resamples",
                "200",
            ])
            .args(["--m", "0-3", "--json"]),
    );
    let bands = map["map"]["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 2);
    assert_eq!(bands[0]["min_tokens"], 15);
    assert_eq!(bands[1]["max_tokens"], 90);
    for b in bands {
        let questions = b["questions"].as_u64().unwrap();
        assert!(questions >= 10, "{b}");
        assert!(b["split_questions"].as_u64().unwrap() <= questions);
        let rows = b["rows"].as_array().unwrap();
        // One row per family: its best setting in this band.
        assert_eq!(rows.len(), 7, "{b}");
        for r in rows {
            assert!(r["label"].is_string() && r["family"].is_string());
            let f = r["failure_rate"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&f));
        }
    }
    // Longer evidence is split more often by 64-token chunks.
    let split_share =
        |b: &Value| b["split_questions"].as_f64().unwrap() / b["questions"].as_f64().unwrap();
    assert!(split_share(&bands[1]) > split_share(&bands[0]), "{bands:?}");
    let verdict = map["map"]["verdict"].as_str().unwrap();
    assert!(verdict.contains("for evidence"), "{verdict}");
    // The map asks its own kind of question (one-sided by default), no other without gold.
    assert_eq!(map["map"]["kind"], "one-sided");
    assert!(map["map"]["other_verdicts"].as_array().unwrap().is_empty());
    assert!(map["map"]["kind_checked"].is_string());
    // Every band row says what it sends.
    for r in bands[0]["rows"].as_array().unwrap() {
        assert!(
            r["duplicate_share"].is_f64() && r["stores_once"].is_boolean(),
            "{r}"
        );
    }
}

#[test]
fn the_map_checks_each_kind_of_question_against_gold_and_places_gold_outside_its_bands() {
    // The cache the tests of the unedited operations corpus share (see `operations_cache`).
    let cache = common::operations_cache();
    let corpus = operations_corpus();
    let questions = with_questions(corpus.path());
    let map = json_of(
        seamscope(&cache)
            .args(["tune"])
            .arg(corpus.path())
            .args(["--chunk-tokens", "64", "--budget", "3", "--k", "24"])
            .args(["--map", "--bands", "40-60", "--per-band", "20"])
            .args([
                "--resamples",
                "200",
                "--m",
                "0-3",
                "--questions",
                &questions,
            ])
            .args(["--json"]),
    );
    let m = &map["map"];
    let bands = m["bands"].as_array().unwrap();
    // Gold evidence shorter than 40 or from 60 tokens on is in a gold-only band of its own,
    // never counted in the map's band.
    let in_bands: u64 = bands
        .iter()
        .map(|b| b["gold_questions"].as_u64().unwrap())
        .sum();
    let total = std::fs::read_to_string(&questions).unwrap().lines().count() as u64;
    assert_eq!(in_bands, total, "{bands:?}");
    let map_band = bands.iter().find(|b| b["gold_only"] == false).unwrap();
    assert_eq!(
        (
            map_band["min_tokens"].as_u64(),
            map_band["max_tokens"].as_u64()
        ),
        (Some(40), Some(60))
    );
    for b in bands.iter().filter(|b| b["gold_only"] == true) {
        assert_eq!(b["questions"], 0, "{b}");
        assert!(b["gold_questions"].as_u64().unwrap() > 0, "{b}");
        let (lo, hi) = (
            b["min_tokens"].as_u64().unwrap(),
            b["max_tokens"].as_u64().unwrap(),
        );
        assert!(hi <= 40 || lo >= 60, "{b}");
    }
    assert_eq!(
        m["gold_outside_bands"].as_u64().unwrap(),
        total - map_band["gold_questions"].as_u64().unwrap()
    );
    // With gold, every offline kind is asked about the same passages and checked against it.
    let kinds: Vec<&str> = m["agreement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    for k in ["one-sided", "whole-passage", "opening"] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    assert_eq!(m["other_verdicts"].as_array().unwrap().len(), 2);
    assert_eq!(map_band["kinds"].as_array().unwrap().len(), 2);
    for a in m["agreement"].as_array().unwrap() {
        assert!(a["gold_split"].as_u64().unwrap() > 0, "{a}");
        for f in a["families"].as_array().unwrap() {
            for side in ["map", "gold"] {
                let r = f[side].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&r), "{f}");
            }
        }
    }
    assert!(
        m["kind_checked"]
            .as_str()
            .unwrap()
            .starts_with("checked against this gold set: one-sided"),
        "{}",
        m["kind_checked"]
    );
}

/// A folder of `files` documents of about 150 tokens each: no passage of 200 tokens or more.
fn short_files(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let things = [
        "pager", "ledger", "replica", "backup", "invoice", "badge", "router", "archive",
    ];
    for f in 0..files {
        let text: String = (0..10)
            .map(|s| {
                format!(
                    "Team {f} checks the {} in room {} every {} days before the audit. ",
                    things[(f + s) % things.len()],
                    f * 10 + s,
                    s + 2
                )
            })
            .collect();
        std::fs::write(dir.path().join(format!("note-{f}.md")), text).unwrap();
    }
    dir
}

fn tune(cache: &Path, corpus: &Path, args: &[&str]) -> std::process::Output {
    seamscope(cache)
        .args(["tune"])
        .arg(corpus)
        .args(["--chunk-tokens", "64", "--k", "24", "--m", "0-2"])
        .args(["--overlaps", "15", "--windows", "64/32"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_map_claims_only_the_lengths_it_measured() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = short_files(6);
    let map_args = ["--map", "--per-band", "15", "--resamples", "200"];
    let out = tune(
        cache.path(),
        corpus.path(),
        &[&map_args[..], &["--json"]].concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let map: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bands = map["map"]["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 4);
    for b in bands {
        let (lo, hi) = (
            b["min_tokens"].as_f64().unwrap(),
            b["max_tokens"].as_f64().unwrap(),
        );
        let n = b["questions"].as_u64().unwrap();
        if lo >= 200.0 {
            // Files of ~150 tokens hold no passage of 200 tokens or more.
            assert_eq!(n, 0, "{b}");
            assert!(b["rows"].as_array().unwrap().is_empty(), "{b}");
            assert!(b["shorter"].as_u64().unwrap() > 0, "{b}");
        } else {
            assert!(n > 0, "{b}");
            let mean = b["mean_evidence_tokens"].as_f64().unwrap();
            assert!(
                lo <= mean && mean < hi,
                "a band holds passages of its length: {b}"
            );
        }
    }
    let verdict = map["map"]["verdict"].as_str().unwrap();
    let (claims, silent) = verdict
        .split_once("; not measured: ")
        .unwrap_or_else(|| panic!("the unmeasured bands are named: {verdict}"));
    assert!(
        !claims.contains("800") && !claims.contains("400"),
        "{verdict}"
    );
    assert!(
        silent.contains("no passage of 200–400 tokens")
            && silent.contains("no passage of 400–800 tokens"),
        "{verdict}"
    );

    // Far longer bands than any file: not measured, said in the text report.
    let out = tune(
        cache.path(),
        corpus.path(),
        &[&map_args[..], &["--bands", "50-100,5000-9000"]].concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("5000–9000 tokens: no passage of this length, not measured: every passage drawn was shorter"),
        "{text}"
    );
    assert!(
        !text.contains("mean 1"),
        "no mean of a band it did not measure: {text}"
    );
    let verdict_line = text
        .lines()
        .find(|l| l.starts_with("map verdict:"))
        .unwrap();
    assert!(verdict_line.contains("~50–100 tokens"), "{verdict_line}");
    assert!(
        !verdict_line.contains("~50–9000") && !verdict_line.contains("beyond ~"),
        "{verdict_line}"
    );

    // A band given twice, or two that overlap: a usage error before any work.
    for bands in ["100-200,100-200", "50-150,100-200"] {
        let out = tune(
            cache.path(),
            corpus.path(),
            &[&map_args[..], &["--bands", bands]].concat(),
        );
        assert_eq!(out.status.code(), Some(2), "{bands}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("given twice") || err.contains("overlap"),
            "{err}"
        );
    }
}

#[test]
fn a_corpus_of_seven_tokens_measures_no_band() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = tempfile::tempdir().unwrap();
    std::fs::write(
        corpus.path().join("tiny.md"),
        "Replicas serve stale reads today.",
    )
    .unwrap();
    let out = tune(
        cache.path(),
        corpus.path(),
        &["--map", "--per-band", "10", "--resamples", "100", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let map: Value = serde_json::from_slice(&out.stdout).unwrap();
    for b in map["map"]["bands"].as_array().unwrap() {
        assert_eq!(b["questions"], 0, "its one passage is in no band: {b}");
    }
    let verdict = map["map"]["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("no verdict: no band had passages of its length"),
        "{verdict}"
    );
}

#[test]
fn a_board_that_cannot_conclude_says_so_and_deploys_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = operations_corpus();
    let all = std::fs::read_to_string(with_questions(corpus.path())).unwrap();
    let one = corpus.path().join("one.jsonl");
    std::fs::write(&one, all.lines().next().unwrap()).unwrap();
    let one = one.display().to_string();
    let out = tune(
        cache.path(),
        corpus.path(),
        &[
            "--budget",
            "3",
            "--strategies",
            "all",
            "--questions",
            &one,
            "--resamples",
            "500",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("verdict: nothing can be concluded: only one question was scored"),
        "{text}"
    );
    assert!(!text.contains("to deploy"), "{text}");
    // Budget 0 sends nothing: a usage error, for the board, the map and calibrate alike.
    for args in [
        &["--budget", "0", "--strategies", "all"][..],
        &["--budget", "0", "--map"],
    ] {
        let out = tune(cache.path(), corpus.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("budget 0 sends no chunk"), "{err}");
    }
    // From a settings file too (calibrate's own flag starts at 1).
    let config = corpus.path().join("zero.toml");
    std::fs::write(&config, "budget = 0\n").unwrap();
    for command in ["calibrate", "tune"] {
        let out = seamscope(cache.path())
            .args([command])
            .arg(corpus.path())
            .arg("--config")
            .arg(&config)
            .args(if command == "tune" {
                &["--map"][..]
            } else {
                &[]
            })
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("budget 0 sends no chunk"), "{command}: {err}");
    }
}

/// The family of the verdict's leader (its winner, or its first contender).
fn leader_family(verdict: &Value) -> String {
    verdict["contenders"][0]["family"]
        .as_str()
        .unwrap_or_else(|| panic!("no contender in {verdict}"))
        .to_string()
}

#[test]
fn constraints_judge_only_the_rows_that_satisfy_them_and_name_the_winner_without_them() {
    // The sample corpus with its gold set: overlap leads without constraints; asked for a
    // strategy that stores each passage once, the board judges among the others and still says
    // what overlap would have done.
    // The sample cache the other sample tests share: its vectors are keyed by text and model,
    // so no other test's run changes what this one measures, and the corpus is embedded once.
    let cache = common::sample_cache();
    let args = [
        "--strategies",
        "overlap,neighbour,scar,seams",
        "--questions",
        "sample-corpus/questions.jsonl",
        "--overlaps",
        "10",
        "--k",
        "150",
        "--m",
        "0-4",
        "--side-drop",
        "off",
        "--resamples",
        "2000",
    ];
    let board = json_of(
        seamscope(cache.as_path())
            .args(["tune", "sample-corpus"])
            .args(args)
            .args(["--once", "--json"]),
    );
    assert_eq!(board["options"]["constraints"]["once"], true);
    let rows = board["rows"].as_array().unwrap();
    for r in rows {
        let once = r["stores_once"].as_bool().unwrap();
        // A row is left out exactly when it stores text twice, and says so.
        assert_eq!(r["excluded"].is_string(), !once, "{r}");
        if !once {
            assert_eq!(r["excluded"], "stores overlapping text", "{r}");
            assert!(r["p_best"].is_null(), "a left-out row has no share: {r}");
        }
    }
    let judged = leader_family(&board["verdict"]);
    assert!(
        ["none", "neighbour", "scar", "seams"].contains(&judged.as_str()),
        "{judged}"
    );
    for c in board["verdict"]["contenders"].as_array().unwrap() {
        assert_ne!(c["family"], "overlap", "{c}");
    }
    // Without the constraint, the verdict over every row is there too.
    let free = &board["unconstrained"];
    assert!(free["contenders"].is_array(), "{board}");
    assert_eq!(leader_family(free), "overlap", "{free}");

    // The text board says what was left out and who would lead without the constraint.
    let out = seamscope(cache.as_path())
        .args(["tune", "sample-corpus"])
        .args(args)
        .arg("--once")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("constraints: each passage stored once"),
        "{text}"
    );
    assert!(
        text.contains("⊘ left out by the constraints: overlap 10% (stores overlapping text)"),
        "{text}"
    );
    assert!(
        text.contains("verdict (among the rows that satisfy the constraints):"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("without the constraints: ") && l.contains("overlap 10%")),
        "{text}"
    );
    // A constraint that would leave out chunks only is refused before anything runs.
    let refused = seamscope(cache.as_path())
        .args(["tune", "sample-corpus", "--strategies", "all"])
        .args(["--max-vectors", "0.5"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("chunks only stores 1×"), "{err}");
}
