//! `seamscope tune` and the `eval` regression gate as a user runs them on a small corpus with a
//! question set: every grid point in the JSON, the Pareto rows, a k change that embeds only
//! seams, `--compare` failing on a regression and passing otherwise, and question files checked
//! whole before anything is indexed.

mod common;

use std::path::Path;

use common::seamscope;

const TEAMS: [&str; 5] = ["billing", "dispatch", "security", "warehouse", "finance"];
const THINGS: [&str; 6] = [
    "the replica lag dashboard",
    "every open customs declaration",
    "the quarterly access review",
    "the carrier rate tables",
    "the failover runbook",
    "the cold storage sensors",
];

/// One document of varied sentences and a question set quoting it: some answers inside one
/// sentence, some across two.
fn corpus() -> tempfile::TempDir {
    let text: String = (0..60)
        .map(|i| {
            format!(
                "The {} team checks {} in week {} and files ticket {}. ",
                TEAMS[i % TEAMS.len()],
                THINGS[i % THINGS.len()],
                i + 1,
                1000 + i * 7
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ops.md"), &text).unwrap();
    let mut lines = Vec::new();
    for (n, i) in [3usize, 11, 19, 27, 35, 43, 51].iter().enumerate() {
        let sentence = |j: usize| {
            format!(
                "The {} team checks {} in week {} and files ticket {}.",
                TEAMS[j % TEAMS.len()],
                THINGS[j % THINGS.len()],
                j + 1,
                1000 + j * 7
            )
        };
        // Even questions: one sentence; odd ones: two sentences in a row.
        let quote = if n % 2 == 0 {
            sentence(*i)
        } else {
            format!("{} {}", sentence(*i), sentence(i + 1))
        };
        let start = text.find(&quote).unwrap();
        lines.push(
            serde_json::json!({
                "id": format!("q{n}"),
                "question": format!("which ticket does the {} team file in week {}", TEAMS[i % TEAMS.len()], i + 1),
                "doc": "ops.md",
                "spans": [{"start": start, "end": start + quote.len(), "text": quote}],
                "tags": [if n % 2 == 0 { "inside" } else { "boundary" }],
                "source": "hand-written"
            })
            .to_string(),
        );
    }
    std::fs::write(dir.path().join("questions.jsonl"), lines.join("\n")).unwrap();
    dir
}

fn questions(dir: &Path) -> String {
    dir.join("questions.jsonl").display().to_string()
}

#[test]
fn tune_lists_every_grid_point_with_costs_and_marks_the_pareto_rows() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out = seamscope(cache.path())
        .args(["tune", "--k", "20,30", "--m", "0-5", "--budget", "2,3"])
        .args(["--chunk-tokens", "120", "--json", "--questions"])
        .arg(questions(corpus.path()))
        .arg(corpus.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("ignored unknown field \"source\""),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["rows"].as_array().unwrap();
    // 2 k × 6 m × 2 budgets × side drop off and at 0.25, plus Seams off per budget.
    assert_eq!(rows.len(), 2 * 6 * 2 * 2 + 2);
    let side_drop_rows = rows.iter().filter(|r| r["side_drop"].is_number()).count();
    assert_eq!(side_drop_rows, 2 * 6 * 2, "side drop is a row of its own");
    assert_eq!(json["questions"], 7);
    for r in rows {
        for key in [
            "failure_rate",
            "interval",
            "mean_tokens",
            "vectors",
            "pareto",
            "budget",
        ] {
            assert!(r.get(key).is_some(), "a row lacks {key}: {r}");
        }
    }
    let failures: Vec<u64> = rows
        .iter()
        .map(|r| r["failures"].as_u64().unwrap())
        .collect();
    assert!(
        failures.windows(2).all(|w| w[0] <= w[1]),
        "ranked: {failures:?}"
    );
    assert!(rows.iter().any(|r| r["pareto"] == true));
    assert!(
        rows.iter().any(|r| r["m"].is_null() && r["k"].is_null()),
        "Seams off rows"
    );
    let layouts = json["layouts"].as_array().unwrap();
    assert_eq!(layouts.len(), 2);
    // The second k shares every chunk with the first: only its seam windows are embedded.
    let seams = layouts[1]["seams"].as_u64().unwrap();
    assert!(layouts[1]["embedded_texts"].as_u64().unwrap() <= seams);

    let out = seamscope(cache.path())
        .args([
            "tune",
            "--k",
            "20,30",
            "--m",
            "1,3",
            "--chunk-tokens",
            "120",
            "--questions",
        ])
        .arg(questions(corpus.path()))
        .arg(corpus.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for part in [
        "ranked by failure rate",
        "◆ Pareto",
        "best: chunk 120",
        "Seams off",
    ] {
        assert!(text.contains(part), "missing {part:?}:\n{text}");
    }
}

#[test]
fn compare_fails_on_a_regression_and_passes_otherwise() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let eval = |extra: &[&str]| {
        seamscope(cache.path())
            .args([
                "eval",
                "--chunk-tokens",
                "120",
                "--k",
                "30",
                "--sweep-m",
                "1,3",
            ])
            .args(extra)
            .arg(corpus.path())
            .output()
            .unwrap()
    };
    let out = eval(&["--save-baseline", baseline.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert_eq!(saved["questions"], 7);
    // chunks only, then each margin with side drop off and on.
    assert_eq!(saved["rows"].as_array().unwrap().len(), 5);
    let labels: Vec<&str> = saved["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"Seams k=30 m=1 + side drop 0.25"),
        "{labels:?}"
    );

    // The same run against its own baseline: nothing rose, exit 0.
    let out = eval(&["--compare", baseline.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("+0.0 points") && !text.contains("REGRESSED"),
        "{text}"
    );

    // A baseline where every strategy failed nothing: any failure now is a regression.
    let mut better = saved.clone();
    for row in better["rows"].as_array_mut().unwrap() {
        row["failure_rate"] = serde_json::json!(0.0);
    }
    let better_path = dir.path().join("better.json");
    std::fs::write(&better_path, better.to_string()).unwrap();
    let any_failed = saved["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["failure_rate"].as_f64().unwrap() > 0.0);
    assert!(
        any_failed,
        "the small set must miss something for this test: {saved}"
    );
    let out = eval(&["--compare", better_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("REGRESSED"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("failure rate rose by more than 0.0"));
    // Allowing 100 points lets it pass.
    let out = eval(&[
        "--compare",
        better_path.to_str().unwrap(),
        "--fail-over",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(0));
    // The baseline names the embedder it measured; another embedder's baseline is refused,
    // naming both, since two models' failure rates do not compare point for point.
    let embedder = saved["embedder"]
        .as_str()
        .expect("the baseline names its embedder");
    assert!(embedder.starts_with("all-MiniLM-L6-v2-int8@"), "{embedder}");
    let mut foreign = saved.clone();
    foreign["embedder"] = serde_json::json!("openai:text-embedding-3-small/d1536/w8192");
    let foreign_path = dir.path().join("foreign.json");
    std::fs::write(&foreign_path, foreign.to_string()).unwrap();
    let out = eval(&["--compare", foreign_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("openai:text-embedding-3-small/d1536/w8192") && err.contains(embedder),
        "{err}"
    );
    // A file that is not a baseline is a clear error.
    std::fs::write(dir.path().join("junk.json"), "{}").unwrap();
    let out = eval(&["--compare", dir.path().join("junk.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a seamscope baseline"));
}

#[test]
fn a_bad_question_file_is_refused_before_anything_is_indexed() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let bad = corpus.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\":\"a\",\"question\":\"q\",\"doc\":\"ops.md\",\"spans\":[]}\n\
         {\"id\":\"b\",\"question\":\"\",\"doc\":\"ops.md\",\"spans\":[{\"start\":0,\"end\":3,\"text\":\"The\"}]}\n\
         {\"id\":\"c\",\"question\":\"q\",\"doc\":\"nope.md\",\"spans\":[{\"start\":0,\"end\":3,\"text\":\"The\"}]}\n\
         {\"id\":\"d\",\"question\":\"q\",\"doc\":\"ops.md\",\"spans\":[{\"start\":0,\"end\":99999,\"text\":\"The\"}]}\n",
    )
    .unwrap();
    for command in ["eval", "calibrate", "tune"] {
        let out = seamscope(cache.path())
            .args([command, "--chunk-tokens", "120", "--k", "30", "--questions"])
            .arg(&bad)
            .arg(corpus.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {stderr}");
        for part in [
            "4 problem(s)",
            "line 1 (a): \"spans\" is empty",
            "line 2 (b): the question is empty",
            "line 3 (c): document nope.md is not in the corpus",
            "line 4 (d): span 0..99999",
        ] {
            assert!(
                stderr.contains(part),
                "{command}: missing {part:?} in {stderr}"
            );
        }
        // Nothing was embedded or indexed first.
        let indexes = cache.path().join("indexes");
        let built = indexes.is_dir() && std::fs::read_dir(&indexes).unwrap().next().is_some();
        assert!(!built, "{command} indexed before checking the questions");
    }
}
