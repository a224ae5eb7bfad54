//! `seamscope mcp` driven by a scripted client over stdio, as a coding agent runs it: the
//! handshake, the four tools and their input schemas, the worked example's trace (checked against
//! `seamscope query --json`), `explain` on the seam that decides it, small `eval` and `calibrate`
//! runs, and bad calls answered as errors while the server carries on.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// Generous: the machine is slow and shared, and a fresh cache embeds the corpus first.
const STARTUP: Duration = Duration::from_secs(900);
const CALL: Duration = Duration::from_secs(600);
/// A line that is no message is answered at once, by the wire, before any tool runs.
const LINE_REPLY: Duration = Duration::from_secs(60);

/// A client speaking newline-delimited JSON-RPC to the server's stdin and stdout.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
    next_id: u64,
    /// The last line read from stdout, as it came.
    last_line: String,
}

impl Client {
    fn start(cache: &std::path::Path) -> Client {
        Client::start_with(cache, &[])
    }

    /// The server with more arguments after `mcp sample-corpus`.
    fn start_with(cache: &std::path::Path, extra: &[&str]) -> Client {
        let _ = common::settings(cache);
        let mut child = Command::new(env!("CARGO_BIN_EXE_seamscope"))
            .args(["mcp", "sample-corpus"])
            .args(extra)
            .env("SEAMSCOPE_CACHE_DIR", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 1,
            last_line: String::new(),
        }
    }

    /// Write raw bytes and a newline: a line that may be no message at all.
    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("the server reads stdin");
        stdin.write_all(b"\n").expect("newline");
        stdin.flush().expect("flush");
    }

    /// The next response (skipping notifications), whatever its id.
    fn next_response(&mut self) -> Value {
        loop {
            let message = self.receive(LINE_REPLY);
            if message.get("id").is_some() {
                return message;
            }
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("the server reads stdin");
        stdin.flush().expect("flush");
    }

    /// The next message on stdout; every line must be one JSON-RPC message.
    fn receive(&mut self, timeout: Duration) -> Value {
        let line = self
            .lines
            .recv_timeout(timeout)
            .unwrap_or_else(|e| panic!("no message from the server within {timeout:?}: {e}"));
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        self.last_line = line;
        message
    }

    /// Send a request and wait for the response with its id (skipping notifications).
    fn request(&mut self, method: &str, params: Value, timeout: Duration) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.receive(timeout);
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(
                message.get("id").is_none(),
                "a response to another request: {message}"
            );
        }
    }

    /// The handshake's first request; the server's answer.
    fn initialize(&mut self) -> Value {
        self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cli_mcp test", "version": "0"}
            }),
            STARTUP,
        )
    }

    /// Call a tool; the result object (or the JSON-RPC error).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            CALL,
        )
    }

    /// Close stdin and wait for the server to exit; its stderr.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let mut waited = Duration::ZERO;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(waited < CALL, "the server did not exit after stdin closed");
            std::thread::sleep(Duration::from_millis(100));
            waited += Duration::from_millis(100);
        };
        let stderr = self.stderr.join().expect("stderr thread");
        assert!(status.success(), "the server failed: {status}\n{stderr}");
        stderr
    }
}

/// The text of a tool result, asserting whether it is an error.
fn text(response: &Value, error: bool) -> String {
    let result = &response["result"];
    assert_eq!(
        result["isError"].as_bool().unwrap_or(false),
        error,
        "isError should be {error}: {response}"
    );
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {response}"))
        .to_string()
}

/// The A01 question and its gold spans, from the sample corpus' question file.
fn worked_example() -> Value {
    let file = std::fs::read_to_string("sample-corpus/questions.jsonl").expect("questions");
    file.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .find(|q| q["id"] == "A01")
        .expect("A01 is in the question file")
}

/// The seam whose cut falls inside one of the question's gold spans, from a query report's
/// chunk and seam tables (a seam's cut is its right chunk's start): `(left, right)`.
fn splitting_seam(report: &Value, question: &Value) -> (u64, u64) {
    let chunks = report["chunks"].as_array().expect("chunks");
    let chunk = |id: &Value| {
        chunks
            .iter()
            .find(|c| c["id"] == *id)
            .expect("a chunk the seam names")
    };
    report["seams"]
        .as_array()
        .expect("seams")
        .iter()
        .find_map(|s| {
            let right = chunk(&s["right"]);
            let cut = right["start"].as_u64()?;
            let inside = right["doc"] == question["doc"]
                && question["spans"].as_array()?.iter().any(|sp| {
                    sp["start"].as_u64().is_some_and(|a| a < cut)
                        && sp["end"].as_u64().is_some_and(|b| cut < b)
                });
            inside.then(|| (s["left"].as_u64().unwrap(), s["right"].as_u64().unwrap()))
        })
        .expect("a cut falls inside the worked example's evidence")
}

#[test]
fn an_agent_lists_the_tools_gets_the_worked_example_trace_and_a_seam_explained() {
    // The cache the other sample-corpus tests share, so the corpus is embedded once per build folder.
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let a01 = worked_example();
    let question = a01["question"].as_str().expect("question").to_string();

    let mut client = Client::start(&cache);
    let init = client.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "seamscope", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // tools/list: the six tools, each with an input schema naming its inputs.
    let list = client.request("tools/list", json!({}), CALL);
    let tools = list["result"]["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["calibrate", "doctor", "eval", "explain", "query", "traces"]
    );
    let schema = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["inputSchema"].clone())
            .expect("the tool is listed")
    };
    for tool in ["query", "calibrate"] {
        let description = tools
            .iter()
            .find(|t| t["name"] == tool)
            .and_then(|t| t["description"].as_str())
            .unwrap_or_default();
        assert!(
            description.contains("compact") && description.contains("detail \"full\""),
            "{tool}: {description}"
        );
    }
    for (tool, inputs, required) in [
        (
            "query",
            &["question", "k", "m", "budget", "depth", "detail"][..],
            &["question"][..],
        ),
        (
            "explain",
            &["question", "seam", "m", "budget"],
            &["question", "seam"],
        ),
        (
            "eval",
            &["questions", "mode", "budget", "m", "margins"],
            &[],
        ),
        (
            "calibrate",
            &["budget", "passages", "max_m", "questions", "detail"],
            &[],
        ),
        ("doctor", &["budget", "questions", "seed", "detail"], &[]),
        (
            "traces",
            &["traces", "questions", "m", "search", "top", "detail"],
            &["traces"],
        ),
    ] {
        let s = schema(tool);
        assert_eq!(s["type"], "object", "{tool}: {s}");
        for input in inputs {
            assert!(
                s["properties"][*input].is_object(),
                "{tool} takes {input}: {s}"
            );
        }
        let mut listed: Vec<&str> = s["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        listed.sort_unstable();
        assert_eq!(listed, required, "{tool} requires: {s}");
    }

    // query, detail full: the worked example's trace, the same fill as `seamscope query --json`.
    let report: Value = serde_json::from_str(&text(
        &client.call("query", json!({"question": question, "detail": "full"})),
        false,
    ))
    .expect("query returns JSON");
    let cli = common::seamscope(&cache)
        .args(["query", "sample-corpus", &question, "--json"])
        .output()
        .expect("query runs");
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let cli: Value = serde_json::from_slice(&cli.stdout).expect("query --json");
    assert_eq!(report["trace"]["fill"], cli["trace"]["fill"]);
    assert_eq!(report["trace"]["fused"], cli["trace"]["fused"]);
    assert_eq!(report["trace"]["settings"], cli["trace"]["settings"]);
    assert_eq!(report["seams"], cli["seams"]);

    // The cut inside A01's evidence: its seam fires and brings both chunks.
    let (left, right) = splitting_seam(&report, &a01);
    let fill = report["trace"]["fill"]["chunks"].as_array().expect("fill");
    assert!(fill.contains(&json!(left)) && fill.contains(&json!(right)));
    let seam_id = report["seams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["left"] == json!(left))
        .map(|s| s["id"].clone())
        .unwrap();
    let decision = report["trace"]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["seam"] == seam_id)
        .expect("the seam is in the ranking")
        .clone();
    assert_eq!(decision["fires"], true, "{decision}");

    // explain: in words, with the arithmetic the trace recorded.
    let words = text(
        &client.call(
            "explain",
            json!({"question": question, "seam": format!("{left}|{right}")}),
        ),
        false,
    );
    let (s, m) = (
        decision["seam_position"].as_u64().unwrap(),
        decision["m"].as_u64().unwrap(),
    );
    let arithmetic = format!(
        "{s} + {m} = {} ≤ {} (chunk {left}) and ≤ {} (chunk {right}): fires",
        s + m,
        decision["left"]["counted_position"],
        decision["right"]["counted_position"]
    );
    for part in [
        format!("seam {left}|{right} joins chunk {left} ("),
        "pos(seam) + m ≤ pos(left) and ≤ pos(right)".to_string(),
        arithmetic,
        format!("fired: added chunk {left} and chunk {right}"),
        format!("Context with Seams: chunk {left} in, chunk {right} in."),
    ] {
        assert!(words.contains(&part), "missing {part:?} in:\n{words}");
    }
    // The same seam named by its id explains the same way.
    let by_id = text(
        &client.call(
            "explain",
            json!({"question": question, "seam": seam_id.to_string()}),
        ),
        false,
    );
    assert_eq!(by_id, words);

    // Bad calls: tool errors with clear messages, or protocol errors; never a crash.
    let unknown = text(
        &client.call(
            "explain",
            json!({"question": question, "seam": "9000|9001"}),
        ),
        true,
    );
    assert!(unknown.contains("there is no chunk 9000"), "{unknown}");
    let far = text(
        &client.call(
            "explain",
            json!({"question": question, "seam": format!("{left}|{}", right + 5)}),
        ),
        true,
    );
    assert!(far.contains(&format!("there is no seam {left}|")), "{far}");
    let empty = text(&client.call("query", json!({"question": "  "})), true);
    assert!(empty.contains("the question is empty"), "{empty}");
    let range = text(
        &client.call("query", json!({"question": question, "m": 20000})),
        true,
    );
    assert!(
        range.contains("`m` = 20000 is out of range: 0 to 10000"),
        "{range}"
    );
    let negative = client.call("query", json!({"question": question, "budget": -1}));
    assert!(
        negative["error"].is_object() || negative["result"]["isError"] == true,
        "{negative}"
    );
    let missing = client.call("no_such_tool", json!({}));
    assert!(missing["error"]["message"].is_string(), "{missing}");

    // The server still answers, with the settings asked for.
    let small: Value = serde_json::from_str(&text(
        &client.call(
            "query",
            json!({"question": question, "m": 0, "budget": 3, "detail": "full"}),
        ),
        false,
    ))
    .unwrap();
    assert_eq!(small["trace"]["settings"]["m"], 0);
    assert_eq!(small["trace"]["settings"]["budget"], 3);
    assert!(small["trace"]["fill"]["chunks"].as_array().unwrap().len() <= 3);

    // By default query answers compactly: the same context, the fired seam with its
    // arithmetic, tokens sent and the context without Seams, in a few KB.
    let compact_text = text(&client.call("query", json!({"question": question})), false);
    assert!(
        compact_text.len() < 8 * 1024,
        "{} bytes: {compact_text}",
        compact_text.len()
    );
    let compact: Value = serde_json::from_str(&compact_text).unwrap();
    assert_eq!(compact["detail"], "compact");
    let context: Vec<&Value> = compact["context"].as_array().unwrap().iter().collect();
    assert_eq!(
        context
            .iter()
            .map(|c| c["chunk"].clone())
            .collect::<Vec<_>>(),
        report["trace"]["fill"]["chunks"]
            .as_array()
            .unwrap()
            .clone()
    );
    assert!(context.iter().all(|c| c["doc"].is_string()
        && c["first_line"].is_string()
        && c["tokens"].as_u64().is_some_and(|t| t > 0)));
    assert_eq!(compact["tokens_sent"], report["trace"]["tokens_sent"]);
    let fired = compact["fired_seams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["pair"] == format!("{left}|{right}"))
        .expect("the seam that decides the worked example is listed")
        .clone();
    assert_eq!(fired["seam_rank"], decision["seam_position"]);
    assert_eq!(fired["left_rank"], decision["left"]["fused_position"]);
    assert_eq!(fired["right_rank"], decision["right"]["fused_position"]);
    assert!(
        fired["test"].as_str().unwrap().ends_with(": fires"),
        "{fired}"
    );
    assert_eq!(
        compact["without_seams"]["context"]
            .as_array()
            .unwrap()
            .len(),
        report["trace"]["without_seams"]["retrieval"]["comparison"]["without_seams"]
            .as_array()
            .unwrap()
            .len()
    );

    // eval (the cheap sweep) and a small calibration run end to end.
    let eval: Value = serde_json::from_str(&text(
        &client.call("eval", json!({"margins": [1, 2]})),
        false,
    ))
    .unwrap();
    let labels: Vec<&str> = eval["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["label"].as_str())
        .collect();
    assert_eq!(labels[0], "chunks only", "{labels:?}");
    assert!(labels.iter().any(|l| l.ends_with("m=2")), "{labels:?}");
    assert!(eval["questions"].as_u64().unwrap() > 0);
    let calibration: Value = serde_json::from_str(&text(
        &client.call(
            "calibrate",
            json!({"passages": 20, "samples": 5, "max_m": 4}),
        ),
        false,
    ))
    .unwrap();
    assert_eq!(calibration["setup"]["budget"], 5, "{calibration}");
    let recommended = &calibration["verdict"]["recommended_m"];
    assert!(
        recommended.is_null() || recommended.as_u64().is_some_and(|m| m <= 4),
        "{recommended}"
    );
    // doctor: the sample corpus' two cuts inside fenced blocks, compact (no location lists).
    let doctor: Value = serde_json::from_str(&text(
        &client.call("doctor", json!({"questions": 10})),
        false,
    ))
    .unwrap();
    let fences = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "cut-in-fence")
        .unwrap();
    assert_eq!(fences["count"], 2, "{fences}");
    assert_eq!(fences["locations"].as_array().map(Vec::len), Some(0));
    assert!(doctor["score"]["formula"].is_string(), "{doctor}");
    let bad = text(
        &client.call("eval", json!({"questions": "no/such/file.jsonl"})),
        true,
    );
    assert!(bad.contains("no/such/file.jsonl"), "{bad}");

    let stderr = client.finish();
    assert!(stderr.contains("serving MCP on stdio"), "{stderr}");
}

#[test]
fn the_server_answers_while_a_new_corpus_is_still_being_embedded() {
    // An empty cache: the sample corpus is embedded from scratch (tens of seconds), after the
    // handshake. With --open-wait 0 a call made meanwhile says how far indexing is, at once.
    let cache = tempfile::tempdir().unwrap();
    let mut client = Client::start_with(cache.path(), &["--open-wait", "0"]);
    let init = client.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "seamscope", "{init}");
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let tools = client.request("tools/list", json!({}), CALL);
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 6);
    let early = client.call(
        "query",
        json!({"question": "What is kept for seven years?"}),
    );
    let message = text(&early, true);
    assert!(
        message.contains("still being opened (") && message.contains("call again"),
        "{message}"
    );
    // Asked again until the corpus is open: then a whole trace.
    let mut waited = Duration::ZERO;
    let trace = loop {
        let reply = client.call(
            "query",
            json!({"question": "What is kept for seven years?"}),
        );
        if reply["result"]["isError"] != json!(true) {
            break text(&reply, false);
        }
        assert!(text(&reply, true).contains("still being opened"), "{reply}");
        assert!(waited < STARTUP, "the corpus never opened");
        std::thread::sleep(Duration::from_secs(2));
        waited += Duration::from_secs(2);
    };
    let report: Value = serde_json::from_str(&trace).expect("the answer is JSON");
    assert!(
        !report["context"].as_array().unwrap().is_empty(),
        "{report}"
    );
    let stderr = client.finish();
    assert!(stderr.contains("embedding chunks"), "{stderr}");
}

#[test]
fn a_corpus_that_cannot_be_read_stops_the_server_before_it_serves() {
    let cache = tempfile::tempdir().unwrap();
    let _ = common::settings(cache.path());
    let out = Command::new(env!("CARGO_BIN_EXE_seamscope"))
        .args(["mcp", "no-such-folder"])
        .env("SEAMSCOPE_CACHE_DIR", cache.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on the protocol channel");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-folder"), "{err}");
}

#[test]
fn hostile_lines_and_paths_get_errors_and_the_server_carries_on() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let allowed = tempfile::tempdir().unwrap();
    let mut client = Client::start_with(&cache, &["--allow-dir", allowed.path().to_str().unwrap()]);
    client.initialize();
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Lines that are no message: each answered, with the id when one can be read.
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let mut long =
        br#"{"jsonrpc": "2.0", "id": 999, "method": "ping", "params": {"pad": ""#.to_vec();
    long.extend(std::iter::repeat_n(b'x', 5 * 1024 * 1024));
    long.extend_from_slice(br#""}}"#);
    let cases: Vec<(&str, Vec<u8>, i64, Value)> = vec![
        ("garbage", b"this is not json".to_vec(), -32700, Value::Null),
        ("invalid UTF-8", b"{\"jsonrpc\": \"2.0\xff\xfe\"}".to_vec(), -32700, Value::Null),
        ("nesting past 128", deep.into_bytes(), -32700, Value::Null),
        ("a 5 MB line", long, -32700, Value::Null),
        ("a batch", b"[1, 2]".to_vec(), -32600, Value::Null),
        (
            "a method that is a number",
            br#"{"jsonrpc": "2.0", "id": 41, "method": 5}"#.to_vec(),
            -32600,
            json!(41),
        ),
        (
            "arguments that is not an object",
            br#"{"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "query", "arguments": "why?"}}"#.to_vec(),
            -32602,
            json!(42),
        ),
        (
            "an argument of the wrong type",
            br#"{"jsonrpc": "2.0", "id": 43, "method": "tools/call", "params": {"name": "query", "arguments": {"question": "why?", "budget": "five"}}}"#.to_vec(),
            -32602,
            json!(43),
        ),
    ];
    for (case, line, code, id) in cases {
        client.send_raw(&line);
        let reply = client.next_response();
        assert_eq!(reply["error"]["code"], code, "{case}: {reply}");
        assert_eq!(reply["id"], id, "{case}: {reply}");
        assert!(reply["error"]["message"].is_string(), "{case}: {reply}");
    }

    // Question files: only regular files inside the corpus folder or an --allow-dir folder,
    // at most 16 MiB; /dev/stdin would read the protocol itself, a FIFO would block.
    let fifo = allowed.path().join("questions.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let big = allowed.path().join("big.jsonl");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(17 * 1024 * 1024)
        .unwrap();
    let link = allowed.path().join("passwd.jsonl");
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    for (tool, path, said) in [
        ("eval", "/dev/stdin".to_string(), "outside the folders"),
        (
            "calibrate",
            "/etc/passwd".to_string(),
            "outside the folders",
        ),
        ("eval", link.display().to_string(), "outside the folders"),
        ("eval", fifo.display().to_string(), "not a regular file"),
        (
            "calibrate",
            fifo.display().to_string(),
            "not a regular file",
        ),
        (
            "eval",
            big.display().to_string(),
            "more than the 16777216 (16 MiB)",
        ),
        ("eval", "/dev/zero".to_string(), "outside the folders"),
    ] {
        let reply = text(&client.call(tool, json!({"questions": path})), true);
        assert!(reply.contains(said), "{tool} {path}: {reply}");
    }
    // A question file whose id and document hold escape sequences: named in the tool error,
    // with C1 controls and bidi overrides as \u escapes on the wire (ESC and BEL are escaped by
    // JSON itself).
    std::fs::copy(
        "tests/fixtures/hostile/questions.jsonl",
        allowed.path().join("hostile.jsonl"),
    )
    .unwrap();
    let reply = client.call(
        "eval",
        json!({"questions": allowed.path().join("hostile.jsonl")}),
    );
    assert!(
        text(&reply, true).contains("is not in the corpus"),
        "{reply}"
    );
    assert!(
        !client.last_line.chars().any(
            |c| matches!(c, '\u{1b}' | '\u{7}' | '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}')
        ),
        "a raw control character on the wire: {:?}",
        client.last_line
    );

    // A question file in the allowed folder is read.
    std::fs::copy(
        "sample-corpus/questions.jsonl",
        allowed.path().join("gold.jsonl"),
    )
    .unwrap();
    let eval: Value = serde_json::from_str(&text(
        &client.call(
            "eval",
            json!({"questions": allowed.path().join("gold.jsonl"), "margins": [1]}),
        ),
        false,
    ))
    .unwrap();
    assert_eq!(eval["questions"], 130, "{eval}");

    // Still serving, compactly: calibrate at its defaults answers in under 8 KB.
    let calibration = text(&client.call("calibrate", json!({})), false);
    assert!(
        calibration.len() < 8 * 1024,
        "{} bytes: {calibration}",
        calibration.len()
    );
    let calibration: Value = serde_json::from_str(&calibration).unwrap();
    assert_eq!(calibration["detail"], "compact");
    assert!(
        calibration["verdict"]["summary"].is_string(),
        "{calibration}"
    );
    assert_eq!(
        calibration["curve"]["points"].as_array().map(Vec::len),
        Some(31),
        "m from 0 to 30: {calibration}"
    );
    let stderr = client.finish();
    assert!(stderr.contains("serving MCP on stdio"), "{stderr}");
}
