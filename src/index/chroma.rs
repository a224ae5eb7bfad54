//! Chunk and seam vectors kept in a Chroma server (its v2 HTTP API), searched there.
//!
//! The adapter is the [`DenseCollection`] shape and nothing more: a collection answers "the
//! `count` nearest ids to this vector, cosine, best first". Seamscope still embeds on this
//! machine (the vector cache is the source of every vector), keeps the keyword lists in tantivy
//! (Chroma's full-text filter does not rank by BM25), and runs fusion, the fire test and the budget
//! fill itself, exactly as over the embedded usearch files.
//!
//! Each index (corpus, chunker, `k`, model) becomes two collections, `<prefix>-<index key>-chunks`
//! and `-seams`, whose records are the ids `0..n` as text with client-supplied vectors. Their
//! metadata records a fingerprint of the vectors; reopening reuses a collection only when the
//! fingerprint, the count and a spot check of stored vectors agree, and refills it otherwise.

use std::time::Duration;

use serde_json::{Value, json};

mod sync;

pub use super::remote::{CollectionSync, StoreSync};
pub use sync::{ChromaCollection, collection_names};

/// Tenant and database the collections live in (Chroma's defaults).
const TENANT: &str = "default_tenant";
const DATABASE: &str = "default_database";

/// Records sent per `add` request, at most (the server's own limit may be lower).
const UPLOAD_BATCH: usize = 1000;

/// Version of the collections' layout (ids, metadata); bump when it changes.
const LAYOUT_VERSION: i64 = 1;

/// Why the Chroma server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ChromaError {
    /// The address is not an http(s) URL.
    #[error(
        "the Chroma address {url:?} is not usable: {why} (give it as http://HOST:PORT, the address `chroma run` prints)"
    )]
    Address {
        /// The address given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Nothing answered, or the connection failed.
    #[error(
        "cannot reach Chroma at {url}: {detail}; start a server (`chroma run --path DIR --port PORT`) or drop --chroma to use the embedded store"
    )]
    Unreachable {
        /// The server.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The server answered with an error status.
    #[error("Chroma at {url} refused to {action}: HTTP {status}: {message}")]
    Status {
        /// The server.
        url: String,
        /// What was asked.
        action: String,
        /// The HTTP status.
        status: u16,
        /// The server's own message.
        message: String,
    },
    /// The reply was not what the v2 API sends.
    #[error("Chroma at {url} sent a reply seamscope cannot read when asked to {action}: {what}")]
    Malformed {
        /// The server.
        url: String,
        /// What was asked.
        action: String,
        /// What is wrong with the reply.
        what: String,
    },
}

/// A connection to one Chroma server.
#[derive(Debug)]
pub struct ChromaClient {
    agent: ureq::Agent,
    /// The address requests go to, credentials included.
    base: String,
    /// The address as messages and reports show it: any password masked
    /// ([`crate::text::mask_credentials`]).
    url: String,
    /// How long the server has to connect and to send each part of a reply.
    timeout: Duration,
    max_batch: usize,
}

/// A collection as the server describes it.
#[derive(Debug, Clone)]
struct CollectionInfo {
    id: String,
    metadata: serde_json::Map<String, Value>,
}

impl ChromaClient {
    /// Connect to the server at `url` (`http://HOST:PORT`): checks that it answers the v2 API and
    /// reads its batch limit. The server has `timeout` to accept the connection and to send each
    /// part of every reply (the `chroma_timeout_secs` setting): a stalled server fails then.
    pub fn connect(url: &str, timeout: Duration) -> Result<ChromaClient, ChromaError> {
        let address = |why| ChromaError::Address {
            url: crate::text::mask_credentials(url),
            why,
        };
        let given = url.trim();
        let (scheme, rest) = ["http://", "https://"]
            .into_iter()
            .find_map(|s| given.strip_prefix(s).map(|rest| (s, rest)))
            .ok_or_else(|| address("it must start with http:// or https://"))?;
        let rest = rest.trim_end_matches('/');
        let trimmed = format!("{scheme}{rest}");
        if rest.is_empty() || rest.contains(char::is_whitespace) {
            return Err(address("it has no host"));
        }
        if rest.contains('/') || rest.contains('?') {
            return Err(address(
                "it has a path; give only the server (the API paths are added)",
            ));
        }
        let timeout = timeout.max(Duration::from_millis(1));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(timeout))
            .timeout_per_read(Some(timeout))
            .timeout_per_write(Some(timeout))
            .timeout_recv_response(Some(timeout))
            .build()
            .into();
        let mut client = ChromaClient {
            agent,
            url: crate::text::mask_credentials(&trimmed),
            base: trimmed,
            timeout,
            max_batch: UPLOAD_BATCH,
        };
        client.call("GET", "/api/v2/heartbeat", None, "answer its heartbeat")?;
        let checks = client.call("GET", "/api/v2/pre-flight-checks", None, "say its limits")?;
        if let Some(limit) = checks.get("max_batch_size").and_then(Value::as_u64) {
            client.max_batch = (limit as usize).clamp(1, UPLOAD_BATCH);
        }
        Ok(client)
    }

    /// The server's address as given (without a trailing slash), any password masked.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn collections(&self) -> String {
        format!("/api/v2/tenants/{TENANT}/databases/{DATABASE}/collections")
    }

    /// One request; the reply's JSON (or `null` for an empty body) on a 2xx status.
    fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        action: &str,
    ) -> Result<Value, ChromaError> {
        self.call_status(method, path, body, action)
            .and_then(|(status, value)| self.require_ok(status, value, action))
    }

    fn require_ok(&self, status: u16, value: Value, action: &str) -> Result<Value, ChromaError> {
        if (200..300).contains(&status) {
            return Ok(value);
        }
        let message = value
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| crate::text::safe_name(&value.to_string()));
        Err(ChromaError::Status {
            url: self.url.clone(),
            action: action.to_string(),
            status,
            message: crate::text::safe_name(&message),
        })
    }

    /// One request; its status and JSON body, whatever the status.
    fn call_status(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        action: &str,
    ) -> Result<(u16, Value), ChromaError> {
        let address = format!("{}{path}", self.base);
        let sent = match (method, body) {
            ("GET", _) => self.agent.get(&address).call(),
            ("DELETE", _) => self.agent.delete(&address).call(),
            (_, Some(b)) => self
                .agent
                .post(&address)
                .content_type("application/json")
                .send(b.to_string()),
            (_, None) => self.agent.post(&address).send_empty(),
        };
        let (status, text) = sent
            .and_then(|mut r| {
                let status = r.status().as_u16();
                r.body_mut()
                    .with_config()
                    .limit(1 << 30)
                    .read_to_string()
                    .map(|t| (status, t))
            })
            .map_err(|e| ChromaError::Unreachable {
                url: self.url.clone(),
                detail: match e {
                    ureq::Error::HostNotFound => "the host name does not resolve".to_string(),
                    ureq::Error::Timeout(_) => format!(
                        "it did not answer within {} s (chroma_timeout_secs)",
                        self.timeout.as_secs_f64()
                    ),
                    // ureq may name the address it was given: show it masked.
                    other => other.to_string().replace(&self.base, &self.url),
                },
            })?;
        if text.trim().is_empty() {
            return Ok((status, Value::Null));
        }
        let value = serde_json::from_str(&text).map_err(|e| ChromaError::Malformed {
            url: self.url.clone(),
            action: action.to_string(),
            what: format!("not JSON ({e})"),
        })?;
        Ok((status, value))
    }

    fn malformed(&self, action: &str, what: impl Into<String>) -> ChromaError {
        ChromaError::Malformed {
            url: self.url.clone(),
            action: action.to_string(),
            what: what.into(),
        }
    }

    fn get_collection(&self, name: &str) -> Result<Option<CollectionInfo>, ChromaError> {
        let action = format!("describe collection {name}");
        let (status, value) = self.call_status(
            "GET",
            &format!("{}/{name}", self.collections()),
            None,
            &action,
        )?;
        if status == 404 {
            return Ok(None);
        }
        let value = self.require_ok(status, value, &action)?;
        self.collection_info(&value, &action).map(Some)
    }

    fn collection_info(&self, value: &Value, action: &str) -> Result<CollectionInfo, ChromaError> {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| self.malformed(action, "no collection id"))?;
        let metadata = value
            .get("metadata")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        Ok(CollectionInfo {
            id: id.to_string(),
            metadata,
        })
    }

    fn delete_collection(&self, name: &str) -> Result<(), ChromaError> {
        let path = format!("{}/{name}", self.collections());
        self.call("DELETE", &path, None, &format!("delete collection {name}"))
            .map(drop)
    }

    fn create_collection(
        &self,
        name: &str,
        metadata: Value,
    ) -> Result<CollectionInfo, ChromaError> {
        let action = format!("create collection {name}");
        let body = json!({
            "name": name,
            "metadata": metadata,
            "configuration": { "hnsw": { "space": "cosine" } },
            "get_or_create": false,
        });
        let value = self.call("POST", &self.collections(), Some(&body), &action)?;
        self.collection_info(&value, &action)
    }

    fn count(&self, id: &str, name: &str) -> Result<usize, ChromaError> {
        let action = format!("count collection {name}");
        let path = format!("{}/{id}/count", self.collections());
        let value = self.call("GET", &path, None, &action)?;
        value
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| self.malformed(&action, "the count is not a number"))
    }

    fn add(
        &self,
        id: &str,
        name: &str,
        first_id: usize,
        vectors: &[Vec<f32>],
    ) -> Result<(), ChromaError> {
        let ids: Vec<String> = (first_id..first_id + vectors.len())
            .map(|i| i.to_string())
            .collect();
        let body = json!({ "ids": ids, "embeddings": vectors });
        let path = format!("{}/{id}/add", self.collections());
        self.call(
            "POST",
            &path,
            Some(&body),
            &format!("add vectors to {name}"),
        )
        .map(drop)
    }

    /// The stored vectors of `ids` (as the server returns them, in any order).
    fn stored_vectors(
        &self,
        id: &str,
        name: &str,
        ids: &[u32],
    ) -> Result<Vec<(u32, Vec<f32>)>, ChromaError> {
        // An empty id list would mean "no filter" to the server: every record.
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let action = format!("read vectors of {name}");
        let body = json!({
            "ids": ids.iter().map(u32::to_string).collect::<Vec<_>>(),
            "include": ["embeddings"],
        });
        let path = format!("{}/{id}/get", self.collections());
        let value = self.call("POST", &path, Some(&body), &action)?;
        let got_ids = value
            .get("ids")
            .and_then(Value::as_array)
            .ok_or_else(|| self.malformed(&action, "no ids"))?;
        let embeddings = value
            .get("embeddings")
            .and_then(Value::as_array)
            .ok_or_else(|| self.malformed(&action, "no embeddings"))?;
        got_ids
            .iter()
            .zip(embeddings)
            .map(|(id, e)| {
                let id =
                    parse_id(id).ok_or_else(|| self.malformed(&action, "an id is not ours"))?;
                let v = e
                    .as_array()
                    .ok_or_else(|| self.malformed(&action, "an embedding is not a list"))?
                    .iter()
                    .map(|x| x.as_f64().map(|x| x as f32))
                    .collect::<Option<Vec<f32>>>()
                    .ok_or_else(|| self.malformed(&action, "an embedding holds a non-number"))?;
                Ok((id, v))
            })
            .collect()
    }

    /// The `count` nearest of the `len` records of collection `id` (named `name`) to `query`.
    fn query(
        &self,
        (id, name, len): (&str, &str, usize),
        query: &[f32],
        count: usize,
    ) -> Result<Vec<(u32, f32)>, ChromaError> {
        let action = format!("search {name}");
        let body = json!({
            "query_embeddings": [query],
            "n_results": count,
            "include": ["distances"],
        });
        let path = format!("{}/{id}/query", self.collections());
        let value = self
            .call("POST", &path, Some(&body), &action)
            .map_err(|mut e| {
                // Removed (or the server wiped) since it was filled: opening again refills it.
                if let ChromaError::Status {
                    status: 404,
                    message,
                    ..
                } = &mut e
                {
                    *message = format!(
                        "{}; open the corpus again (R on the screen, or run the command again) to fill it anew",
                        message.trim_end_matches('.')
                    );
                }
                e
            })?;
        let ids = value
            .pointer("/ids/0")
            .and_then(Value::as_array)
            .ok_or_else(|| self.malformed(&action, "no ids for the query"))?;
        let distances = value
            .pointer("/distances/0")
            .and_then(Value::as_array)
            .ok_or_else(|| self.malformed(&action, "no distances for the query"))?;
        if ids.len() != distances.len() {
            return Err(self.malformed(&action, "ids and distances differ in length"));
        }
        let mut hits = Vec::with_capacity(ids.len());
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        for (record, d) in ids.iter().zip(distances) {
            let id = parse_id(record)
                .filter(|&i| (i as usize) < len)
                .ok_or_else(|| {
                    self.malformed(
                        &action,
                        format!(
                            "it returned the id {}, which is not one of the collection's {} records: was it written by something else?",
                            crate::text::safe_name(&record.to_string()),
                            len
                        ),
                    )
                })?;
            // A repeated id would take two places in the ranking and push a real hit out: the
            // fusion and the fire test would run on a list the collection does not hold.
            if !seen.insert(id) {
                return Err(self.malformed(
                    &action,
                    format!(
                        "it returned the id {id} twice in one answer, so its ranking cannot be trusted: was the collection written by something else? (delete the collection to have it filled anew)"
                    ),
                ));
            }
            let distance = d
                .as_f64()
                .ok_or_else(|| self.malformed(&action, "a distance is not a number"))?;
            // Chroma's cosine space reports 1 - cosine similarity.
            hits.push((id, (1.0 - distance) as f32));
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(hits)
    }
}

fn parse_id(id: &Value) -> Option<u32> {
    id.as_str().and_then(|s| s.parse().ok())
}

/// A Chroma failure as the index's error.
impl From<ChromaError> for super::IndexError {
    fn from(e: ChromaError) -> Self {
        super::IndexError::Server(super::remote::ServerError(Box::new(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    const SECOND: Duration = Duration::from_secs(1);

    /// A loopback server that answers each request with `reply(path)` (a JSON body), or never
    /// answers when `reply` gives `None`. Returns its address.
    fn fake_server(reply: fn(&str) -> Option<String>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut first = String::new();
                    let _ = reader.read_line(&mut first);
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    let path = first.split(' ').nth(1).unwrap_or("").to_string();
                    match reply(&path) {
                        Some(json) => {
                            let _ = write!(
                                stream,
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{json}",
                                json.len()
                            );
                        }
                        // Stalled: hold the connection open, say nothing.
                        None => std::thread::sleep(Duration::from_secs(60)),
                    }
                });
            }
        });
        format!("127.0.0.1:{port}")
    }

    fn healthy(path: &str) -> Option<String> {
        Some(match path {
            p if p.ends_with("/heartbeat") => r#"{"nanosecond heartbeat": 1}"#.into(),
            p if p.ends_with("/pre-flight-checks") => r#"{"max_batch_size": 100}"#.into(),
            // Ids 0 and 1, then 0 again.
            _ => r#"{"ids": [["0", "1", "0"]], "distances": [[0.1, 0.2, 0.3]]}"#.into(),
        })
    }

    #[test]
    fn a_stalled_server_fails_after_the_timeout() {
        let address = fake_server(|_| None);
        let started = std::time::Instant::now();
        let msg = ChromaClient::connect(&format!("http://{address}"), SECOND)
            .unwrap_err()
            .to_string();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert!(
            msg.contains("did not answer within 1 s (chroma_timeout_secs)"),
            "{msg}"
        );
    }

    #[test]
    fn duplicate_ids_in_an_answer_are_refused() {
        let address = fake_server(healthy);
        let client = ChromaClient::connect(&format!("http://{address}"), SECOND).unwrap();
        let msg = client
            .query(("c1", "seamscope-x-chunks", 10), &[0.0, 1.0], 3)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("returned the id 0 twice"), "{msg}");
    }

    #[test]
    fn credentials_never_reach_a_message_or_report() {
        let address = fake_server(healthy);
        let client =
            ChromaClient::connect(&format!("http://alice:s3cret@{address}/"), SECOND).unwrap();
        assert_eq!(client.url(), format!("http://alice:***@{address}"));
        let msg = client
            .query(("c1", "seamscope-x-chunks", 10), &[0.0, 1.0], 3)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("alice:***@") && !msg.contains("s3cret"),
            "{msg}"
        );
        let stalled = fake_server(|_| None);
        let msg = ChromaClient::connect(&format!("http://alice:s3cret@{stalled}"), SECOND)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("alice:***@") && !msg.contains("s3cret"),
            "{msg}"
        );
        let msg = ChromaClient::connect("http://alice:s3cret@h:1/api", SECOND)
            .unwrap_err()
            .to_string();
        assert!(!msg.contains("s3cret"), "{msg}");
    }

    #[test]
    fn addresses_are_checked_before_anything_is_sent() {
        for (url, why) in [
            ("localhost:8000", "http://"),
            ("ftp://h:1", "http://"),
            ("http://", "no host"),
            ("http://h:1/api/v2", "path"),
        ] {
            let msg = ChromaClient::connect(url, SECOND).unwrap_err().to_string();
            assert!(msg.contains(why), "{url}: {msg}");
        }
    }

    #[test]
    fn a_closed_port_is_unreachable_with_what_to_do() {
        // Bind then drop: the port is free and nothing listens on it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let msg = ChromaClient::connect(&format!("http://127.0.0.1:{port}/"), SECOND)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(&format!("cannot reach Chroma at http://127.0.0.1:{port}"))
                && msg.contains("chroma run"),
            "{msg}"
        );
    }
}
