//! Traces that fight back get a clear, specific answer from `seamscope traces`, and none of their
//! text reaches the terminal raw: an unknown shape, broken lines, a folder or FIFO for a file,
//! escape sequences in questions, documents and names, a 10 MB document, documents from files the
//! corpus does not hold, secrets in metadata, a Phoenix server that is not there.

mod common;

use std::path::Path;

const GUIDE: &str = "The ledger settles payments every night. Reconciliation runs at two in the morning.\n\n\
The retention window is ninety days. After that the records are archived to cold storage.\n";
const RUNBOOK: &str =
    "Failover promotes the replica within thirty seconds. The old primary is fenced first.\n";

fn corpus(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("docs");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("guide.md"), GUIDE).unwrap();
    std::fs::write(root.join("runbook.md"), RUNBOOK).unwrap();
    root
}

fn run(dir: &Path, traces: &Path, extra: &[&str]) -> std::process::Output {
    let root = corpus(dir);
    let mut cmd = common::seamscope(&dir.join("cache"));
    cmd.arg("traces")
        .arg(&root)
        .arg("--traces")
        .arg(traces)
        .args(extra);
    cmd.output().expect("the command runs")
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A LangSmith retriever run.
fn run_line(id: &str, query: &str, docs: serde_json::Value) -> String {
    serde_json::json!({"id": id, "trace_id": id, "run_type": "retriever", "inputs": {"query": query},
        "extra": {"metadata": {"question_id": id}}, "outputs": {"documents": docs}})
    .to_string()
}

#[test]
fn an_unknown_shape_is_refused_with_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    std::fs::write(&file, "{\"hello\": \"world\"}\n{\"also\": 1}\n").unwrap();
    let out = run(dir.path(), &file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("no trace of a known shape"), "{said}");
    assert!(said.contains("expected OTLP JSON"), "{said}");
}

#[test]
fn a_folder_or_a_fifo_is_not_read_as_traces() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("not a regular file"), "{}", text(&out));
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Never opened: a FIFO with no writer would block forever.
    let out = run(dir.path(), &fifo, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("not a regular file"), "{}", text(&out));
}

#[test]
fn hostile_text_broken_lines_big_and_foreign_documents_and_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(10 * 1024 * 1024);
    let lines = [
        run_line(
            "q1",
            "When does \u{1b}[31mreconciliation\u{1b}[0m run?",
            serde_json::json!([
                {"page_content": "The ledger settles payments every night.", "metadata": {"source": "guide.md", "start_index": 0, "api_key": "sk-live-123456"}},
                {"page_content": "Reconciliation runs at two in the morning.", "metadata": {"source": "guide.md", "start_index": 41}}
            ]),
        ),
        "{not json at all".to_string(),
        run_line(
            "q2",
            "How fast is failover?",
            serde_json::json!([
                {"page_content": "Failover promotes the replica within thirty seconds.", "metadata": {"source": "runbook.md"}},
                {"page_content": big, "metadata": {"source": "runbook.md"}},
                {"page_content": "A paragraph from a file \u{1b}]0;pwned\u{7} this corpus never held.", "metadata": {"source": "\u{1b}[2Jelsewhere.md"}}
            ]),
        ),
    ];
    let file = dir.path().join("runs.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = run(dir.path(), &file, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{7}'),
        "raw control text on the terminal:\n{said:?}"
    );
    assert!(said.contains("2 retrieval steps"), "{said}");
    assert!(
        said.contains("1 records not read"),
        "the broken line is counted:\n{said}"
    );
    assert!(said.contains("not placed"), "{said}");
    let json = common::json_of(
        common::seamscope(&dir.path().join("cache"))
            .arg("traces")
            .arg(dir.path().join("docs"))
            .arg("--traces")
            .arg(&file)
            .arg("--json"),
    );
    let dump = json.to_string();
    assert!(
        !dump.contains("sk-live-123456"),
        "a secret in metadata is redacted"
    );
    let placement = &json["summary"]["placement"];
    assert_eq!(placement["distinct"], 5);
    assert_eq!(placement["not_placed"], 2, "{placement}");
    let whys: Vec<&str> = placement["not_placed_examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["why"].as_str().unwrap())
        .collect();
    assert!(
        whys.iter()
            .any(|w| w.contains("over the 1048576-byte limit")),
        "{whys:?}"
    );
    assert!(
        whys.iter().any(|w| w.contains("not in the corpus")),
        "{whys:?}"
    );
}

#[test]
fn a_phoenix_server_that_is_not_there_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let root = corpus(dir.path());
    let out = common::seamscope(&dir.path().join("cache"))
        .arg("traces")
        .arg(&root)
        .args([
            "--traces",
            &format!("phoenix:http://u:hunter2@127.0.0.1:{port}"),
            "--project",
            "app",
        ])
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("did not answer"), "{said}");
    assert!(!said.contains("hunter2"), "{said}");
    let out = common::seamscope(&dir.path().join("cache"))
        .arg("traces")
        .arg(&root)
        .args(["--traces", "phoenix:http://127.0.0.1:1"])
        .output()
        .unwrap();
    assert!(text(&out).contains("--project NAME"), "{}", text(&out));
}
