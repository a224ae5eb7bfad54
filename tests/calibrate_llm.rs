//! The language-model question generator against a local HTTP server started by each test:
//! success, retry after a 5xx, no retry after a 4xx, a malformed reply, a timeout, and an
//! endpoint nobody listens on. Only 127.0.0.1 is ever contacted.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use seamscope::calibrate::{GenError, LlmConfig, LlmQuestions, QuestionGenerator};

/// What the test server does with one connection.
#[derive(Clone)]
enum Reply {
    /// Answer with this status and body.
    Answer(u16, String),
    /// Read the request, then say nothing for this long and close.
    Stall(Duration),
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    request_line: String,
    headers: Vec<String>,
    body: String,
}

/// A server that answers one connection per reply, in order, then stops accepting.
struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().ok()?;
        }
        headers.push(line);
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen {
        request_line: request_line.trim_end().to_string(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn serve(replies: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    thread::spawn(move || {
        for reply in replies {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let log = Arc::clone(&log);
            // One thread per connection, so a stalled reply does not hold up the next one.
            thread::spawn(move || {
                if let Some(req) = read_request(&mut stream) {
                    log.lock().unwrap().push(req);
                }
                match reply {
                    Reply::Answer(status, body) => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    Reply::Stall(d) => thread::sleep(d),
                }
            });
        }
    });
    Server { base, seen }
}

fn completion(content: &str) -> String {
    serde_json::json!({
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    })
    .to_string()
}

fn config(base: &str) -> LlmConfig {
    LlmConfig {
        connect_timeout: Duration::from_millis(500),
        timeout: Duration::from_millis(500),
        retries: 2,
        backoff: Duration::from_millis(20),
        ..LlmConfig::new(base, "test-model")
    }
}

const SENTENCE: &str = "Shipment records are kept for six years after delivery.";

#[test]
fn llm_generator_posts_a_chat_completion_and_reads_the_question() {
    let server = serve(vec![Reply::Answer(
        200,
        completion("  \"How long are shipment records kept?\"\n"),
    )]);
    let mut g = LlmQuestions::new(LlmConfig {
        api_key: Some("sk-test".into()),
        ..config(&server.base)
    })
    .unwrap();
    let q = g.question(SENTENCE, "Retention. Shipment records are kept.");
    assert_eq!(q.unwrap(), "How long are shipment records kept?");
    assert_eq!(g.name(), "llm:test-model");
    assert!(g.describe().contains(&server.base));

    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].request_line, "POST /v1/chat/completions HTTP/1.1");
    assert!(
        seen[0]
            .headers
            .iter()
            .any(|h| h.eq_ignore_ascii_case("authorization: Bearer sk-test")),
        "{:?}",
        seen[0].headers
    );
    let body: serde_json::Value = serde_json::from_str(&seen[0].body).unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][0]["role"], "system");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains(SENTENCE) && user.contains("Retention."),
        "{user}"
    );
}

#[test]
fn llm_generator_retries_a_server_error_then_succeeds() {
    let server = serve(vec![
        Reply::Answer(503, "{\"error\": \"loading model\"}".into()),
        Reply::Answer(200, completion("Who keeps the records?")),
    ]);
    let mut g = LlmQuestions::new(config(&server.base)).unwrap();
    assert_eq!(g.question(SENTENCE, "").unwrap(), "Who keeps the records?");
    assert_eq!(server.seen.lock().unwrap().len(), 2);
    // No key configured: no Authorization header is sent.
    assert!(
        server.seen.lock().unwrap()[0]
            .headers
            .iter()
            .all(|h| !h.to_ascii_lowercase().starts_with("authorization"))
    );
}

#[test]
fn llm_generator_stops_at_a_client_error_without_retrying() {
    let server = serve(vec![
        Reply::Answer(401, "{\"error\": \"invalid api key\"}".into()),
        Reply::Answer(200, completion("never asked")),
    ]);
    let mut g = LlmQuestions::new(config(&server.base)).unwrap();
    let err = g.question(SENTENCE, "").unwrap_err();
    match &err {
        GenError::Status {
            status, attempts, ..
        } => assert_eq!((*status, *attempts), (401, 1)),
        other => panic!("expected an HTTP status error, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("401") && message.contains("invalid api key"),
        "{message}"
    );
    assert!(err.is_fatal());
}

#[test]
fn llm_generator_names_the_url_when_the_reply_is_malformed() {
    let server = serve(vec![
        Reply::Answer(200, "<html>this is not an API</html>".into()),
        Reply::Answer(200, "{\"choices\": []}".into()),
    ]);
    let mut g = LlmQuestions::new(config(&server.base)).unwrap();
    let err = g.question(SENTENCE, "").unwrap_err();
    assert!(matches!(err, GenError::Malformed { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&format!("{}/chat/completions", server.base))
            && message.contains("not JSON"),
        "{message}"
    );
    let err = g.question(SENTENCE, "").unwrap_err();
    assert!(
        err.to_string().contains("choices[0].message.content"),
        "{err}"
    );
    assert!(err.is_fatal());
}

#[test]
fn llm_generator_times_out_and_retries_with_backoff() {
    // The server stalls far longer than the 300 ms limit, on every attempt.
    let stall = Duration::from_secs(5);
    let server = serve(vec![Reply::Stall(stall), Reply::Stall(stall)]);
    let mut g = LlmQuestions::new(LlmConfig {
        timeout: Duration::from_millis(300),
        retries: 1,
        ..config(&server.base)
    })
    .unwrap();
    let started = Instant::now();
    let err = g.question(SENTENCE, "").unwrap_err();
    let took = started.elapsed();
    match &err {
        GenError::Timeout { attempts, url, .. } => {
            assert_eq!(*attempts, 2);
            assert!(url.starts_with(&server.base));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(
        took >= Duration::from_millis(600) && took < Duration::from_secs(3),
        "two attempts of 300 ms plus a 20 ms wait took {took:?}"
    );
    assert!(err.to_string().contains("--llm-timeout"), "{err}");
}

#[test]
fn llm_generator_reports_an_unreachable_endpoint_at_once() {
    // A port that was just free and now has no listener: the connection is refused.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}/v1");
    let mut g = LlmQuestions::new(config(&base)).unwrap();
    let started = Instant::now();
    let err = g.question(SENTENCE, "").unwrap_err();
    assert!(matches!(err, GenError::Unreachable { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&format!("127.0.0.1:{port}/v1/chat/completions")),
        "{message}"
    );
    assert!(message.contains("--llm-url"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "no retries on a refused connection"
    );
}
