//! Production traces from real producers, read against the sample corpus: a LangChain app
//! (scripts/trace-app.py: its own splitter, an InMemoryVectorStore, k = 5) answered the 130 gold
//! questions while instrumented by OpenInference over the OpenTelemetry SDK (OTLP JSON lines, and
//! over OTLP/HTTP into a Phoenix server) and collected by langchain_core's run collector
//! (LangSmith runs). `scripts/test` runs it and names the files (SEAMSCOPE_TEST_TRACES_DIR) and
//! the server (SEAMSCOPE_TEST_PHOENIX_URL, SEAMSCOPE_TEST_PHOENIX_PROJECT).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use seamscope::chunk::given::GivenCuts;
use seamscope::corpus::Corpus;
use seamscope::traces::{TraceFormat, TraceRead};

fn traces_dir() -> PathBuf {
    PathBuf::from(std::env::var("SEAMSCOPE_TEST_TRACES_DIR").unwrap_or_else(|_| {
        panic!(
            "SEAMSCOPE_TEST_TRACES_DIR is not set: scripts/test runs scripts/trace-app.py (a traced LangChain \
             app over sample-corpus) and sets it"
        )
    }))
}

fn phoenix() -> (String, String) {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!("{name} is not set: scripts/test starts a Phoenix server (scripts/phoenix-server) and sets it")
        })
    };
    (
        var("SEAMSCOPE_TEST_PHOENIX_URL"),
        var("SEAMSCOPE_TEST_PHOENIX_PROJECT"),
    )
}

fn sample() -> Corpus {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    Corpus::load(&root, &seamscope::corpus::LoadOptions::default())
        .expect("the sample corpus loads")
}

/// Each query by its question id: the question and what the app sent (text, source, start).
type Sent = BTreeMap<String, (String, Vec<(String, Option<String>, Option<u64>)>)>;

fn by_question(read: &TraceRead) -> Sent {
    read.queries
        .iter()
        .map(|q| {
            let id = q
                .question_id
                .clone()
                .expect("every traced query carries its question id");
            let sent = q
                .sent()
                .iter()
                .map(|d| {
                    (
                        d.content.to_string(),
                        d.meta_str("source").map(str::to_string),
                        d.meta_u64("start_index"),
                    )
                })
                .collect();
            (id, (q.question.clone(), sent))
        })
        .collect()
}

#[test]
fn otlp_langsmith_and_phoenix_hold_the_same_130_queries() {
    let dir = traces_dir();
    let otlp = seamscope::traces::read_file(&dir.join("otlp.jsonl")).expect("the OTLP file reads");
    assert_eq!(otlp.formats(), vec![TraceFormat::OtlpJson]);
    assert_eq!(otlp.queries.len(), 130, "one retrieval per gold question");
    assert_eq!(otlp.problem_count, 0, "{:?}", otlp.problems);
    let langsmith = seamscope::traces::read_file(&dir.join("langsmith.jsonl"))
        .expect("the LangSmith file reads");
    assert_eq!(langsmith.formats(), vec![TraceFormat::LangSmith]);
    let (url, project) = phoenix();
    let live = seamscope::traces::phoenix::read_project(&url, Some(&project), &mut |_| {})
        .expect("the Phoenix server's spans read");
    assert_eq!(live.formats(), vec![TraceFormat::OpenInferenceSpans]);
    let from_otlp = by_question(&otlp);
    assert_eq!(from_otlp.len(), 130, "130 distinct question ids");
    assert!(from_otlp.values().all(|(_, sent)| sent.len() == 5), "k = 5");
    assert_eq!(
        by_question(&langsmith),
        from_otlp,
        "LangSmith runs hold what the spans hold"
    );
    assert_eq!(
        by_question(&live),
        from_otlp,
        "Phoenix serves what the app sent it"
    );
    let order: Vec<&str> = live
        .queries
        .iter()
        .filter_map(|q| q.question_id.as_deref())
        .collect();
    let written: Vec<&str> = otlp
        .queries
        .iter()
        .filter_map(|q| q.question_id.as_deref())
        .collect();
    assert_eq!(
        order, written,
        "Phoenix's pages are read back in the order the app ran"
    );
}

#[test]
fn every_returned_document_is_placed_and_the_recovered_cuts_are_the_splitters() {
    let dir = traces_dir();
    let corpus = sample();
    let read = seamscope::traces::read_file(&dir.join("otlp.jsonl")).unwrap();
    let prepared = seamscope::traces::prepare(read, &corpus);
    let counts = prepared.placements.counts();
    assert_eq!(counts.not_placed, 0, "{:?}", counts.not_placed_examples);
    assert_eq!(
        counts.by_metadata, counts.distinct,
        "source and start_index place each"
    );
    // The splitter's own chunks, placed as `--cuts` places them.
    let splitter =
        GivenCuts::load(&dir.join("cuts.jsonl"), &corpus).expect("the splitter's cuts place");
    let mut splitter_chunks = BTreeSet::new();
    let mut splitter_cuts = BTreeSet::new();
    for (i, doc) in corpus.documents.iter().enumerate() {
        let spans = splitter.spans_of(&doc.path);
        for s in spans {
            splitter_chunks.insert((i, s.start, s.end));
        }
        for pair in spans.windows(2) {
            splitter_cuts.insert((i, pair[0].end, pair[1].start));
        }
    }
    // Every chunk the app returned is one of the splitter's chunks.
    let seen: Vec<(usize, usize, usize)> = prepared
        .recovered
        .chunks
        .iter()
        .filter(|c| c.seen)
        .map(|c| (c.doc.0 as usize, c.span.start, c.span.end))
        .collect();
    assert!(seen.len() > 100, "{} chunks returned", seen.len());
    for c in &seen {
        assert!(
            splitter_chunks.contains(c),
            "{c:?} is not a chunk of the splitter"
        );
    }
    // Every cut between two returned chunks that the splitter made next to each other is
    // recovered, and nothing else is.
    let seen_set: BTreeSet<(usize, usize, usize)> = seen.iter().copied().collect();
    let expected: BTreeSet<(usize, usize)> = corpus
        .documents
        .iter()
        .enumerate()
        .flat_map(|(i, doc)| {
            let spans = splitter.spans_of(&doc.path).to_vec();
            let seen_set = &seen_set;
            spans
                .windows(2)
                .filter(|p| {
                    seen_set.contains(&(i, p[0].start, p[0].end))
                        && seen_set.contains(&(i, p[1].start, p[1].end))
                })
                .map(|p| (i, p[1].start))
                .collect::<Vec<_>>()
        })
        .collect();
    let recovered: BTreeSet<(usize, usize)> = prepared
        .recovered
        .recovered_cuts
        .iter()
        .map(|(d, at)| (d.0 as usize, *at))
        .collect();
    assert_eq!(recovered, expected, "the recovered cuts are the splitter's");
    assert!(!splitter_cuts.is_empty());
}

#[test]
fn the_report_is_the_same_from_the_otlp_file_the_langsmith_file_and_phoenix() {
    let dir = traces_dir();
    // The sample cache the other sample tests share: its vectors are keyed by text and model,
    // so no other test's run changes what this one measures, and the corpus is embedded once.
    let cache = common::sample_cache();
    let (url, project) = phoenix();
    let sample_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    let run = |args: &[&str]| {
        let mut cmd = common::seamscope(cache.as_path());
        cmd.arg("traces")
            .arg(&sample_dir)
            .args(args)
            .arg("--questions")
            .arg(sample_dir.join("questions.jsonl"))
            .arg("--json");
        common::json_of(&mut cmd)
    };
    let otlp = run(&["--traces", &dir.join("otlp.jsonl").display().to_string()]);
    let langsmith = run(&[
        "--traces",
        &dir.join("langsmith.jsonl").display().to_string(),
    ]);
    let live = run(&["--traces", &format!("phoenix:{url}"), "--project", &project]);
    let per_query = |report: &serde_json::Value| -> BTreeMap<String, serde_json::Value> {
        report["queries"]
            .as_array()
            .expect("queries")
            .iter()
            .map(|q| {
                let id = q["question_id"].as_str().expect("an id").to_string();
                let keep = serde_json::json!({
                    "rank": q["rank"], "suspicion": q["suspicion"], "budget": q["budget"],
                    "sent": q["sent"].as_array().unwrap().iter().map(|s| s["chunk"].clone()).collect::<Vec<_>>(),
                    "with": q["replay_with_seams"], "without": q["replay_without_seams"],
                    "adds": q["seams_adds"], "gold": q["gold"], "overlap": q["overlap"],
                });
                (id, keep)
            })
            .collect()
    };
    assert_eq!(per_query(&otlp).len(), 130);
    assert_eq!(
        per_query(&langsmith),
        per_query(&otlp),
        "LangSmith runs give the same verdicts"
    );
    assert_eq!(
        per_query(&live),
        per_query(&otlp),
        "Phoenix gives the same verdicts"
    );
    // Feedback: the app logged a code evaluator's `retrieval_hit` on each retrieval span to Phoenix
    // (score 0 "miss" where its documents lacked some gold evidence). Read back with the spans,
    // it marks exactly the queries the gold check calls missed, and the rank is scored against it.
    let misses_by_feedback: BTreeMap<String, bool> = live["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let hit = q["feedback"]
                .as_array()
                .expect("feedback")
                .iter()
                .find(|f| f["name"] == "retrieval_hit")
                .unwrap_or_else(|| panic!("no retrieval_hit annotation read back: {q}"));
            let id = q["question_id"].as_str().unwrap().to_string();
            (id, hit["score"].as_f64().expect("a score") == 0.0)
        })
        .collect();
    let misses_by_gold: BTreeMap<String, bool> = live["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let id = q["question_id"].as_str().unwrap().to_string();
            (id, q["gold"]["app_missed"].as_bool().expect("gold"))
        })
        .collect();
    assert_eq!(misses_by_feedback, misses_by_gold);
    let feedback = live["summary"]["feedback"]
        .as_array()
        .expect("the feedback agreement");
    let hit = feedback
        .iter()
        .find(|f| f["name"] == "retrieval_hit")
        .expect("retrieval_hit in the summary");
    assert_eq!(hit["scored"], 130, "{hit}");
    assert_eq!(hit["lowest_score"], 0.0, "{hit}");
    let missed = misses_by_gold.values().filter(|m| **m).count();
    assert_eq!(hit["lowest"], missed, "{hit}");
    assert!(
        (0.0..=1.0).contains(&hit["roc_auc"].as_f64().expect("both scores given")),
        "{hit}"
    );
    // The files carry no feedback: the agreement is Phoenix's alone.
    assert_eq!(otlp["summary"]["feedback"], serde_json::json!([]));

    let summary = &otlp["summary"];
    assert_eq!(summary["placement"]["not_placed"], 0);
    // The app's retrieval is dense over its own chunks with the same model: the dense replay on
    // the recovered cuts sends what it sent for most queries (the inferred chunks between
    // returned ones are not the app's, which moves some ranks).
    let matches = summary["replay_matches_app"].as_f64().unwrap();
    assert!(
        matches > 0.5,
        "the replay is faithful to the app: {matches}"
    );
    // Overlap replayed on the app's own chunks, reaching back 15%: what it sends, and twice.
    let overlap = &summary["overlap"];
    assert_eq!(overlap["percent"], 15, "{overlap}");
    let tokens = overlap["tokens_per_query"].as_f64().unwrap();
    let twice = overlap["tokens_twice_per_query"].as_f64().unwrap();
    assert!(tokens > 0.0 && twice >= 0.0 && twice < tokens, "{overlap}");
    let agreement = &summary["agreement"];
    assert_eq!(agreement["matched"], 130);
    // The rank, gold held out of it, finds the app's boundary misses better than chance: its
    // ten most suspect queries hold more of them than the base rate, and its ROC AUC is above
    // one half by a clear step (measured 0.70 at 10 against 0.52, AUC 0.63; docs/src/traces.md).
    let auc = agreement["roc_auc"]
        .as_f64()
        .expect("both kinds of query are there");
    let at_10 = agreement["precision_at_10"].as_f64().unwrap();
    let base = agreement["boundary_misses"].as_f64().unwrap() / 130.0;
    assert!(auc > 0.55, "ROC AUC {auc}");
    assert!(at_10 > base, "precision at 10 {at_10}, base rate {base}");
    // The white paper's worked example: the app sent neither half of the passage around a cut
    // whose seam fires, so no cut beside a sent chunk points at it; judging every cut whose seam
    // the replay reached finds it, and Seams' context brings both halves.
    let a01 = otlp["queries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["question_id"] == "A01")
        .expect("A01 is traced");
    assert_eq!(a01["gold"]["app_missed"], true, "{a01}");
    let top = &a01["suspects"][0];
    assert_eq!(top["tier"], 4, "{top}");
    assert_eq!(top["sent_by_app"], false, "{top}");
    assert_eq!(top["seam_fires"], true, "{top}");
    assert!(top["margin"].is_f64(), "the seam's margin is given: {top}");
    let with_seams: Vec<&serde_json::Value> = a01["replay_with_seams"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert!(
        with_seams.contains(&&top["left"]) && with_seams.contains(&&top["right"]),
        "{a01}"
    );
    // Every query whose best cut's seam fires ranks above every query without one, and among
    // them the seam's margin over what the app sent orders them.
    let queries = otlp["queries"].as_array().unwrap();
    let mut by_rank: Vec<&serde_json::Value> = queries.iter().collect();
    by_rank.sort_by_key(|q| q["rank"].as_u64());
    let fires = |q: &serde_json::Value| q["suspects"][0]["seam_fires"] == true;
    let first_quiet = by_rank
        .iter()
        .position(|q| !fires(q))
        .unwrap_or(by_rank.len());
    assert!(
        by_rank[first_quiet..].iter().all(|q| !fires(q)),
        "firing queries first"
    );
    let margins: Vec<f64> = by_rank[..first_quiet]
        .iter()
        .filter_map(|q| q["suspects"][0]["margin"].as_f64())
        .collect();
    assert!(
        margins.windows(2).all(|w| w[0] >= w[1]),
        "margins descend: {margins:?}"
    );
}

#[test]
fn a_hybrid_apps_nested_retrievers_give_one_query_per_question() {
    // The same app retrieving as a hybrid app does (scripts/trace-app.py --hybrid: BM25Retriever
    // and the vector store fused by EnsembleRetriever, the first five sent by a wrapper): four
    // retriever spans per question, each inside the one before. Only the outermost is what the
    // app sent; the lists it fused are counted, not read as questions of their own.
    let dir = traces_dir();
    let otlp = seamscope::traces::read_file(&dir.join("hybrid-otlp.jsonl")).unwrap();
    let langsmith = seamscope::traces::read_file(&dir.join("hybrid-langsmith.jsonl")).unwrap();
    for read in [&otlp, &langsmith] {
        assert_eq!(read.queries.len(), 30, "one query per question asked");
        assert_eq!(
            read.nested_steps, 90,
            "the ensemble and its two lists, each time"
        );
        assert_eq!(read.problem_count, 0, "{:?}", read.problems);
    }
    let sent = by_question(&otlp);
    assert_eq!(sent.len(), 30);
    assert!(
        sent.values().all(|(_, docs)| docs.len() == 5),
        "the first five"
    );
    assert_eq!(
        by_question(&langsmith),
        sent,
        "LangSmith runs hold the same"
    );
    let prepared = seamscope::traces::prepare(otlp, &sample());
    assert_eq!(prepared.placements.counts().not_placed, 0);
}

#[test]
fn tune_with_traces_measures_every_row_on_the_traced_questions() {
    // The sample app asked exactly the gold set's 130 questions, so each grid point's cost on the
    // traced queries must equal its cost on the gold questions: the same texts searched on the
    // same layout, joined to the same row. A wrong join, a missed query or another layout shows.
    let dir = traces_dir();
    let cache = common::sample_cache();
    let sample_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    let mut cmd = common::seamscope(cache.as_path());
    cmd.arg("tune")
        .arg(&sample_dir)
        .arg("--questions")
        .arg(sample_dir.join("questions.jsonl"))
        .args(["--k", "150", "--m", "1,4", "--side-drop", "off,0.25"])
        .arg("--traces")
        .arg(dir.join("otlp.jsonl"))
        .arg("--json");
    let report = common::json_of(&mut cmd);
    assert_eq!(report["traced"][1], 130, "{}", report["traced"]);
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(
        rows.len(),
        2 * 2 + 1,
        "two margins × two side drops, and Seams off"
    );
    for row in rows {
        let traced = &row["traced"];
        assert_eq!(
            traced["mean_tokens"], row["mean_tokens"],
            "tokens on the traced questions: {row}"
        );
        assert_eq!(
            traced["fires_per_query"], row["fires_per_question"],
            "fires on the traced questions: {row}"
        );
    }
    assert!(
        rows.iter()
            .any(|r| r["traced"]["fires_per_query"].as_f64() > Some(0.0)),
        "some row fires on the traced questions"
    );

    // Traces with no retrieval step, and --traces beside the board, are refused in words.
    let empty = tempfile::tempdir().unwrap();
    let file = empty.path().join("none.jsonl");
    std::fs::write(&file, "").unwrap();
    let out = common::seamscope(cache.as_path())
        .arg("tune")
        .arg(&sample_dir)
        .arg("--traces")
        .arg(&file)
        .args(["--k", "150", "--m", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("none.jsonl"), "{err}");
    let out = common::seamscope(cache.as_path())
        .arg("tune")
        .arg(&sample_dir)
        .arg("--traces")
        .arg(dir.join("otlp.jsonl"))
        .args(["--strategies", "all"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leave out --strategies"), "{err}");
}
