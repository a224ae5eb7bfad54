//! `seamscope eval` end to end on a small corpus with a question set: the strategy table,
//! `--csv FILE` (a header row and one row per strategy), and `--sweep-m` as a table and as CSV.

mod common;

use std::path::Path;

use common::seamscope;

const TEAMS: [&str; 4] = ["billing", "dispatch", "security", "warehouse"];
const THINGS: [&str; 5] = [
    "the replica lag dashboard",
    "every open customs declaration",
    "the quarterly access review",
    "the carrier rate tables",
    "the failover runbook",
];

/// The CSV header `eval --csv` writes.
const HEADER: &str = "strategy,vectors,vectors_vs_chunks,failure_rate,failure_boundary,failure_inside,mean_tokens,fire_rate,fires_per_question,false_fire_rate,waste_rate,whole,split,absent,answer_in_one_chunk,span_recall,span_precision,span_iou";

fn sentence(i: usize) -> String {
    format!(
        "The {} team checks {} in week {} and files ticket {}.",
        TEAMS[i % TEAMS.len()],
        THINGS[i % THINGS.len()],
        i + 1,
        1000 + i * 7
    )
}

/// One document of numbered sentences and five questions quoting one or two of them.
fn corpus() -> tempfile::TempDir {
    let text: String = (0..48).map(|i| sentence(i) + " ").collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ops.md"), &text).unwrap();
    let lines: Vec<String> = [4usize, 13, 22, 31, 40]
        .iter()
        .enumerate()
        .map(|(n, &i)| {
            let quote = if n % 2 == 0 {
                sentence(i)
            } else {
                format!("{} {}", sentence(i), sentence(i + 1))
            };
            let start = text.find(&quote).unwrap();
            serde_json::json!({
                "id": format!("q{n}"),
                "question": format!("which ticket does the {} team file in week {}", TEAMS[i % TEAMS.len()], i + 1),
                "doc": "ops.md",
                "spans": [{"start": start, "end": start + quote.len(), "text": quote}],
                "tags": [if n % 2 == 0 { "inside" } else { "boundary" }],
            })
            .to_string()
        })
        .collect();
    std::fs::write(dir.path().join("questions.jsonl"), lines.join("\n")).unwrap();
    dir
}

fn eval(cache: &Path, corpus: &Path, extra: &[&str]) -> String {
    let out = seamscope(cache)
        .args(["eval", "--chunk-tokens", "120", "--k", "30"])
        .args(extra)
        .arg(corpus)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "eval {extra:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The strategy labels of a printed table: the lines after the `strategy` header up to the
/// first blank line.
fn table_labels(text: &str) -> Vec<String> {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("strategy "));
    assert!(lines.next().is_some(), "no table header in:\n{text}");
    lines
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            // A label may hold spaces ("Seams k=30 m=1"): it ends where the vectors column
            // ("1.86x") begins.
            let words: Vec<&str> = l.split_whitespace().collect();
            let vectors = words.iter().position(|w| {
                w.strip_suffix('x')
                    .is_some_and(|n| n.parse::<f64>().is_ok())
            });
            words[..vectors.unwrap_or(words.len())].join(" ")
        })
        .collect()
}

/// The CSV file's rows (after the header) as fields; labels are quoted and hold no commas.
fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(HEADER),
        "the header row of {}",
        path.display()
    );
    let columns = HEADER.split(',').count();
    lines
        .map(|l| {
            let fields: Vec<String> = l
                .split(',')
                .map(|f| f.trim_matches('"').to_string())
                .collect();
            assert_eq!(
                fields.len(),
                columns,
                "a row with the wrong field count: {l}"
            );
            fields
        })
        .collect()
}

#[test]
fn eval_prints_the_table_and_writes_one_csv_row_per_strategy() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out_dir = tempfile::tempdir().unwrap();
    let csv = out_dir.path().join("grid.csv");
    let text = eval(
        cache.path(),
        corpus.path(),
        &["--seam-k", "20,30", "--csv", csv.to_str().unwrap()],
    );
    assert!(text.contains("5 questions on"), "{text}");
    assert!(text.contains("failure rate by tag"), "{text}");
    let labels = table_labels(&text);
    assert!(labels.len() >= 4, "{labels:?}\n{text}");
    for want in ["Seams k=20", "Seams k=30"] {
        assert!(
            labels.iter().any(|l| l.starts_with(want)),
            "no {want} row: {labels:?}"
        );
    }
    let rows = csv_rows(&csv);
    let csv_labels: Vec<String> = rows.iter().map(|r| r[0].clone()).collect();
    assert_eq!(csv_labels, labels, "one CSV row per table row, same order");
    for row in &rows {
        let failure: f64 = row[3].parse().unwrap();
        assert!((0.0..=1.0).contains(&failure), "{row:?}");
        let whole: usize = row[11].parse().unwrap();
        let split: usize = row[12].parse().unwrap();
        let absent: usize = row[13].parse().unwrap();
        assert_eq!(
            whole + split + absent,
            5,
            "every gold span is classed: {row:?}"
        );
    }
}

#[test]
fn eval_sweep_m_prints_a_table_and_also_writes_csv() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let text = eval(cache.path(), corpus.path(), &["--sweep-m", "1,4"]);
    let expected = [
        "chunks only",
        "Seams k=30 m=1",
        "Seams k=30 m=1 + side drop 0.25",
        "Seams k=30 m=4",
        "Seams k=30 m=4 + side drop 0.25",
    ];
    assert_eq!(table_labels(&text), expected, "{text}");

    let out_dir = tempfile::tempdir().unwrap();
    let csv = out_dir.path().join("sweep.csv");
    let again = eval(
        cache.path(),
        corpus.path(),
        &["--sweep-m", "1,4", "--csv", csv.to_str().unwrap()],
    );
    assert_eq!(again, text, "--csv changes nothing on screen");
    let rows = csv_rows(&csv);
    let labels: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(labels, expected);
    // The chunks-only row has no seams: it fires nothing.
    assert_eq!(rows[0][7].parse::<f64>().unwrap(), 0.0);
}

#[test]
fn eval_json_keeps_stdout_one_document_and_reports_progress_on_stderr() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    // 120 questions (the five, repeated under new ids): enough for a line per tenth.
    let file = corpus.path().join("questions.jsonl");
    let five: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let many: Vec<String> = (0..120)
        .map(|i| {
            let mut q = five[i % 5].clone();
            q["id"] = format!("q{i}").into();
            q.to_string()
        })
        .collect();
    std::fs::write(&file, many.join("\n")).unwrap();
    // A file the corpus leaves out: the JSON document lists it, with its reason.
    std::fs::write(corpus.path().join("empty.txt"), "").unwrap();
    for extra in [&["--seam-k", "30"][..], &["--sweep-m", "0,2"][..]] {
        let out = seamscope(cache.path())
            .args(["eval", "--chunk-tokens", "120", "--k", "30", "--json"])
            .args(extra)
            .arg(corpus.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}):\n{stderr}"));
        assert!(
            json["rows"].as_array().is_some_and(|rows| rows.len() >= 2),
            "{json}"
        );
        let skipped = json["skipped"]
            .as_array()
            .unwrap_or_else(|| panic!("{json}"));
        assert!(
            skipped
                .iter()
                .any(|s| s["path"] == "empty.txt" && s["reason"] == "empty"),
            "{json}"
        );
        let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("eval: ")).collect();
        assert!(
            lines.contains(&"eval: embedding questions: 120/120 (100%)")
                && lines.iter().any(|l| l.starts_with("eval: [1/"))
                && lines.iter().any(|l| l.starts_with("eval: [2/")),
            "{extra:?}: progress on stderr:\n{stderr}"
        );
        // At a modest rate: a line per stage, tenths only after 5 quiet seconds.
        assert!(lines.len() < 30, "{} lines:\n{stderr}", lines.len());
    }
}
