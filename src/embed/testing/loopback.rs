//! A tiny HTTP/1.1 server on 127.0.0.1 for unit tests of the service clients: each request
//! (numbered in arrival order from 1) goes to a handler that says what to answer, so a test can
//! play a hostile service (a 401 that echoes the key, a redirect, an absurd `Retry-After`, one
//! request of many that fails) without Python or a model. One connection per request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// Arrival number, from 1.
    pub n: usize,
    /// The request line's path (with its query).
    pub path: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// What to answer: status, extra headers, body.
pub type Reply = (u16, Vec<(String, String)>, String);

/// A running server; it stops with the test process.
pub struct Loopback {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    arrived: Arc<AtomicUsize>,
}

impl Loopback {
    /// Serve every request with `handler`.
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Loopback {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let base = format!("http://{}", listener.local_addr().expect("its address"));
        let arrived = Arc::new(AtomicUsize::new(0));
        let handler = Arc::new(handler);
        let counter = arrived.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let handler = handler.clone();
                let counter = counter.clone();
                std::thread::spawn(move || {
                    let Ok(read_half) = stream.try_clone() else {
                        return;
                    };
                    let mut reader = BufReader::new(read_half);
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
                    let mut headers = Vec::new();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                            break;
                        }
                        if let Some((name, value)) = h.split_once(':') {
                            headers.push((name.trim().to_lowercase(), value.trim().to_string()));
                        }
                    }
                    let length = headers
                        .iter()
                        .find(|(n, _)| n == "content-length")
                        .and_then(|(_, v)| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    let mut body = vec![0u8; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let request = Request {
                        n: counter.fetch_add(1, Ordering::SeqCst) + 1,
                        path,
                        headers,
                        body: String::from_utf8_lossy(&body).into_owned(),
                    };
                    let (status, extra, body) = handler(&request);
                    let mut head = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                        body.len()
                    );
                    for (name, value) in extra {
                        head.push_str(&format!("{name}: {value}\r\n"));
                    }
                    head.push_str("\r\n");
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body.as_bytes());
                    let _ = stream.flush();
                });
            }
        });
        Loopback { base, arrived }
    }

    /// Requests that have arrived so far.
    pub fn arrived(&self) -> usize {
        self.arrived.load(Ordering::SeqCst)
    }
}

/// A deterministic unit-free vector of `dim` values for a text (what a fake service answers).
pub fn vector_of(text: &str, dim: usize) -> Vec<f32> {
    let hash = blake3::hash(text.as_bytes());
    (0..dim)
        .map(|i| f32::from(hash.as_bytes()[i % 32]) + 1.0)
        .collect()
}

/// An OpenAI-shaped embeddings answer for the request's `input`, `dim` dimensions each.
pub fn embeddings_answer(request: &Request, dim: usize) -> Reply {
    let input = request.json()["input"].clone();
    let texts: Vec<String> = match input {
        serde_json::Value::Array(items) => items
            .iter()
            .map(|t| t.as_str().unwrap_or("").to_string())
            .collect(),
        serde_json::Value::String(t) => vec![t],
        _ => Vec::new(),
    };
    let data: Vec<serde_json::Value> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| serde_json::json!({"index": i, "embedding": vector_of(t, dim)}))
        .collect();
    (
        200,
        Vec::new(),
        serde_json::json!({ "data": data }).to_string(),
    )
}
