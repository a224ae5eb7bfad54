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

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::IndexError;
use super::vectors::{DenseCollection, SearchMode};

/// Tenant and database the collections live in (Chroma's defaults).
const TENANT: &str = "default_tenant";
const DATABASE: &str = "default_database";

/// Records sent per `add` request, at most (the server's own limit may be lower).
const UPLOAD_BATCH: usize = 1000;

/// Stored vectors compared with the local ones before a collection is reused.
const SPOT_CHECKS: usize = 8;

/// Largest difference allowed between a stored and a local vector component.
const SPOT_TOLERANCE: f32 = 1e-6;

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
    url: String,
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
    /// reads its batch limit.
    pub fn connect(url: &str) -> Result<ChromaClient, ChromaError> {
        let address = |why| ChromaError::Address {
            url: url.to_string(),
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
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(5)))
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let mut client = ChromaClient {
            agent,
            url: trimmed,
            max_batch: UPLOAD_BATCH,
        };
        client.call("GET", "/api/v2/heartbeat", None, "answer its heartbeat")?;
        let checks = client.call("GET", "/api/v2/pre-flight-checks", None, "say its limits")?;
        if let Some(limit) = checks.get("max_batch_size").and_then(Value::as_u64) {
            client.max_batch = (limit as usize).clamp(1, UPLOAD_BATCH);
        }
        Ok(client)
    }

    /// The server's address, as given (without a trailing slash).
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
        let address = format!("{}{path}", self.url);
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
                    ureq::Error::Timeout(_) => "it did not answer in time".to_string(),
                    other => other.to_string(),
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

    fn count(&self, collection: &CollectionInfo, name: &str) -> Result<usize, ChromaError> {
        let action = format!("count collection {name}");
        let path = format!("{}/{}/count", self.collections(), collection.id);
        let value = self.call("GET", &path, None, &action)?;
        value
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| self.malformed(&action, "the count is not a number"))
    }

    fn add(
        &self,
        collection: &CollectionInfo,
        name: &str,
        first_id: usize,
        vectors: &[Vec<f32>],
    ) -> Result<(), ChromaError> {
        let ids: Vec<String> = (first_id..first_id + vectors.len())
            .map(|i| i.to_string())
            .collect();
        let body = json!({ "ids": ids, "embeddings": vectors });
        let path = format!("{}/{}/add", self.collections(), collection.id);
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
        collection: &CollectionInfo,
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
        let path = format!("{}/{}/get", self.collections(), collection.id);
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

    fn query(
        &self,
        collection: &ChromaCollection,
        query: &[f32],
        count: usize,
    ) -> Result<Vec<(u32, f32)>, ChromaError> {
        let action = format!("search {}", collection.name);
        let body = json!({
            "query_embeddings": [query],
            "n_results": count,
            "include": ["distances"],
        });
        let path = format!("{}/{}/query", self.collections(), collection.id);
        let value = self.call("POST", &path, Some(&body), &action)?;
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
        for (id, d) in ids.iter().zip(distances) {
            let id = parse_id(id)
                .filter(|&i| (i as usize) < collection.len)
                .ok_or_else(|| {
                    self.malformed(
                        &action,
                        format!(
                            "it returned the id {}, which is not one of the collection's {} records: was it written by something else?",
                            crate::text::safe_name(&id.to_string()),
                            collection.len
                        ),
                    )
                })?;
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

/// One collection of vectors in Chroma, searched over HTTP.
#[derive(Debug)]
pub struct ChromaCollection {
    client: Arc<ChromaClient>,
    id: String,
    name: String,
    len: usize,
}

impl ChromaCollection {
    /// The collection's name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl DenseCollection for ChromaCollection {
    fn len(&self) -> usize {
        self.len
    }

    fn search(
        &self,
        query: &[f32],
        count: usize,
        _mode: SearchMode,
    ) -> Result<Vec<(u32, f32)>, IndexError> {
        if count == 0 || self.len == 0 {
            return Ok(Vec::new());
        }
        Ok(self.client.query(self, query, count.min(self.len))?)
    }

    fn vectors(&self, ids: Range<u32>) -> Result<Vec<Vec<f32>>, IndexError> {
        let info = CollectionInfo {
            id: self.id.clone(),
            metadata: Default::default(),
        };
        let wanted: Vec<u32> = ids.clone().collect();
        let mut got = Vec::with_capacity(wanted.len());
        for batch in wanted.chunks(self.client.max_batch.max(1)) {
            got.extend(self.client.stored_vectors(&info, &self.name, batch)?);
        }
        got.sort_by_key(|(id, _)| *id);
        if got.iter().map(|(id, _)| *id).ne(ids) {
            return Err(self
                .client
                .malformed(
                    &format!("read vectors of {}", self.name),
                    "records are missing",
                )
                .into());
        }
        Ok(got.into_iter().map(|(_, v)| v).collect())
    }
}

/// What attaching one collection did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectionSync {
    /// The collection's name on the server.
    pub name: String,
    /// Vectors it holds.
    pub vectors: usize,
    /// Whether they were uploaded now (false: the stored collection verified and was reused).
    pub uploaded: bool,
    /// Why it was (re)filled, when it was.
    pub reason: Option<String>,
}

/// What attaching an index to a Chroma server did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreSync {
    /// The server.
    pub url: String,
    /// Chunks, then seams.
    pub collections: Vec<CollectionSync>,
    /// Seconds spent checking and uploading.
    pub seconds: f64,
}

/// A fingerprint of vectors in id order: what a stored collection is checked against.
fn fingerprint(dim: usize, vectors: &[Vec<f32>]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&(dim as u64).to_le_bytes());
    h.update(&(vectors.len() as u64).to_le_bytes());
    for v in vectors {
        for x in v {
            h.update(&x.to_le_bytes());
        }
    }
    h.finalize().to_hex()[..32].to_string()
}

/// Ids spread over `0..n` for a spot check: the first, the last and some between.
fn spot_ids(n: usize) -> Vec<u32> {
    if n == 0 {
        return Vec::new();
    }
    let mut ids: Vec<u32> = (0..SPOT_CHECKS)
        .map(|i| (i * (n - 1) / (SPOT_CHECKS - 1).max(1)) as u32)
        .collect();
    ids.dedup();
    ids
}

/// Why a stored collection cannot be reused as it is, or `None` when it can.
fn stale_because(
    client: &ChromaClient,
    name: &str,
    found: &CollectionInfo,
    expected: &serde_json::Map<String, Value>,
    vectors: &[Vec<f32>],
) -> Result<Option<String>, ChromaError> {
    for (key, value) in expected {
        if found.metadata.get(key) != Some(value) {
            return Ok(Some(format!(
                "its metadata `{key}` does not match these vectors"
            )));
        }
    }
    let count = client.count(found, name)?;
    if count != vectors.len() {
        return Ok(Some(format!(
            "it holds {count} records, the index has {}",
            vectors.len()
        )));
    }
    let ids = spot_ids(vectors.len());
    let stored = client.stored_vectors(found, name, &ids)?;
    if stored.len() != ids.len() {
        return Ok(Some("some records are missing".to_string()));
    }
    for (id, v) in stored {
        let local = &vectors[id as usize];
        let same = v.len() == local.len()
            && v.iter()
                .zip(local)
                .all(|(a, b)| (a - b).abs() <= SPOT_TOLERANCE);
        if !same {
            return Ok(Some(format!(
                "its stored vector {id} differs from the index's"
            )));
        }
    }
    Ok(None)
}

/// Put `vectors` (ids `0..n`) into the collection `name`, reusing a stored one that verifies.
fn sync_collection(
    client: &Arc<ChromaClient>,
    name: &str,
    dim: usize,
    vectors: &[Vec<f32>],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(ChromaCollection, CollectionSync), ChromaError> {
    let mut expected = serde_json::Map::new();
    expected.insert("seamscope_layout".into(), json!(LAYOUT_VERSION));
    expected.insert("seamscope_dim".into(), json!(dim as i64));
    expected.insert("seamscope_count".into(), json!(vectors.len() as i64));
    expected.insert("seamscope_vectors".into(), json!(fingerprint(dim, vectors)));
    let reason = match client.get_collection(name)? {
        Some(found) => match stale_because(client, name, &found, &expected, vectors)? {
            None => {
                let collection = ChromaCollection {
                    client: Arc::clone(client),
                    id: found.id,
                    name: name.to_string(),
                    len: vectors.len(),
                };
                let sync = CollectionSync {
                    name: name.to_string(),
                    vectors: vectors.len(),
                    uploaded: false,
                    reason: None,
                };
                return Ok((collection, sync));
            }
            Some(reason) => {
                client.delete_collection(name)?;
                reason
            }
        },
        None => "the server had no such collection".to_string(),
    };
    let info = client.create_collection(name, Value::Object(expected))?;
    let batch = client.max_batch.max(1);
    for (i, slice) in vectors.chunks(batch).enumerate() {
        client.add(&info, name, i * batch, slice)?;
        progress((i * batch + slice.len()).min(vectors.len()), vectors.len());
    }
    let count = client.count(&info, name)?;
    if count != vectors.len() {
        return Err(client.malformed(
            &format!("fill collection {name}"),
            format!(
                "it holds {count} records after {} were added",
                vectors.len()
            ),
        ));
    }
    let collection = ChromaCollection {
        client: Arc::clone(client),
        id: info.id,
        name: name.to_string(),
        len: vectors.len(),
    };
    let sync = CollectionSync {
        name: name.to_string(),
        vectors: vectors.len(),
        uploaded: true,
        reason: Some(reason),
    };
    Ok((collection, sync))
}

/// The collection names of an index: `<prefix>-<key>-chunks` and `-seams`.
pub fn collection_names(prefix: &str, key: &str) -> [String; 2] {
    ["chunks", "seams"].map(|kind| format!("{prefix}-{key}-{kind}"))
}

/// Check a collection name prefix against Chroma's rules (3–512 characters of letters, digits,
/// `.`, `_`, `-`, starting with a letter or digit).
pub fn check_prefix(prefix: &str) -> Result<(), String> {
    let ok_chars = prefix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    let starts = prefix
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let ends = prefix
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if ok_chars && starts && ends && (1..=400).contains(&prefix.len()) {
        Ok(())
    } else {
        Err(format!(
            "chroma_prefix {:?} must be 1 to 400 letters, digits, '.', '_' or '-', starting and ending with a letter or digit",
            crate::text::safe_name(prefix)
        ))
    }
}

impl super::IndexSet {
    /// Move this index's dense search to Chroma: the chunk and seam vectors go into two
    /// collections named after the index folder (`prefix-key-chunks`, `prefix-key-seams`),
    /// reused when they already hold exactly these vectors, and every later search of this set
    /// asks the server. Keyword indexes stay local. `progress(done, total)` counts vectors
    /// uploaded.
    pub fn attach_chroma(
        &mut self,
        client: &Arc<ChromaClient>,
        prefix: &str,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<StoreSync, IndexError> {
        let started = Instant::now();
        check_prefix(prefix).map_err(|message| IndexError::Io {
            path: self.dir.clone(),
            message,
        })?;
        if !self.dense_ready() {
            return Err(IndexError::Io {
                path: self.dir.clone(),
                message: "the vectors are not embedded yet; nothing to put in Chroma".into(),
            });
        }
        let key = self
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|k| !k.is_empty())
            .ok_or_else(|| IndexError::Io {
                path: self.dir.clone(),
                message: "an index held only in memory has no key to name its collections".into(),
            })?;
        let [chunk_name, seam_name] = collection_names(prefix, &key);
        let dim = self.manifest.dim;
        let chunk_vectors = self
            .chunk_vectors
            .vectors(0..self.chunk_vectors.len() as u32)?;
        let seam_vectors = self
            .seam_vectors
            .vectors(0..self.seam_vectors.len() as u32)?;
        let total = chunk_vectors.len() + seam_vectors.len();
        let (chunks, chunk_sync) =
            sync_collection(client, &chunk_name, dim, &chunk_vectors, &mut |d, _| {
                progress(d, total)
            })?;
        let offset = chunk_vectors.len();
        let (seams, seam_sync) =
            sync_collection(client, &seam_name, dim, &seam_vectors, &mut |d, _| {
                progress(offset + d, total)
            })?;
        self.chunk_vectors = Box::new(chunks);
        self.seam_vectors = Box::new(seams);
        // Chroma always searches its HNSW graph.
        self.search_mode = SearchMode::Approximate;
        self.store = super::DenseStore::Chroma {
            url: client.url.clone(),
            collections: [chunk_name, seam_name],
        };
        Ok(StoreSync {
            url: client.url.clone(),
            collections: vec![chunk_sync, seam_sync],
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked_before_anything_is_sent() {
        for (url, why) in [
            ("localhost:8000", "http://"),
            ("ftp://h:1", "http://"),
            ("http://", "no host"),
            ("http://h:1/api/v2", "path"),
        ] {
            let msg = ChromaClient::connect(url).unwrap_err().to_string();
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
        let msg = ChromaClient::connect(&format!("http://127.0.0.1:{port}/"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(&format!("cannot reach Chroma at http://127.0.0.1:{port}"))
                && msg.contains("chroma run"),
            "{msg}"
        );
    }

    #[test]
    fn prefixes_follow_chromas_name_rules() {
        assert!(check_prefix("seamscope").is_ok());
        assert!(check_prefix("team.a_1").is_ok());
        for bad in ["", "-x", "x-", "a b", "x/y", "é"] {
            assert!(check_prefix(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            collection_names("p", "abc"),
            ["p-abc-chunks".to_string(), "p-abc-seams".to_string()]
        );
    }

    #[test]
    fn spot_checks_cover_both_ends() {
        assert_eq!(spot_ids(0), Vec::<u32>::new());
        assert_eq!(spot_ids(1), vec![0]);
        let ids = spot_ids(100);
        assert_eq!((ids[0], *ids.last().unwrap()), (0, 99));
        assert_eq!(ids.len(), SPOT_CHECKS);
    }

    #[test]
    fn the_fingerprint_follows_every_component() {
        let a = vec![vec![0.1, 0.2], vec![0.3, 0.4]];
        let mut b = a.clone();
        b[1][1] = 0.400_001;
        assert_ne!(fingerprint(2, &a), fingerprint(2, &b));
        assert_eq!(fingerprint(2, &a), fingerprint(2, &a.clone()));
    }
}
