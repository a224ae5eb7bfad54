//! An OpenAI-compatible `/v1/embeddings` service as the embedder (`embedder = "openai:URL"`):
//! OpenAI, Azure OpenAI, TEI, Ollama, vLLM, Infinity, LM Studio.
//!
//! Texts go out in requests bounded by inputs and by tokens (counted with the local tokenizer),
//! several requests at once, each retried by the rules of [`super::http`]. The first answer fixes
//! the dimension; an answer of another dimension, count or shape fails the run with the reason, and
//! nothing from it is kept. The key is read from the environment variable the user names, sent in
//! a header, and never printed or written.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::http::{Endpoint, Reliability, ServiceError, ServiceMeter, read_key};
use super::{EmbedError, Embedder, normalize};
use crate::tokens::TokenCounter;

/// How to reach and use one embedding service.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// The address as given: a base (`http://host:8080`, `…/v1`) or the full `…/embeddings` URL.
    pub url: String,
    /// The model name sent with every request.
    pub model: String,
    /// The environment variable holding the key, if the service needs one.
    pub key_env: Option<String>,
    /// The longest text, in local-tokenizer tokens, sent whole; longer texts are embedded as the
    /// mean of even windows (as for the local model).
    pub window: usize,
    /// The `dimensions` asked of the service (models that can shorten their vectors); also the
    /// dimension its answers must have.
    pub dimensions: Option<usize>,
    /// Texts per request, at most.
    pub request_inputs: usize,
    /// Tokens per request, at most (a single longer text goes alone).
    pub request_tokens: usize,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Timeouts and retries.
    pub reliability: Reliability,
}

/// The embeddings endpoint for an address as a user gives it: a full `…/embeddings` URL is used
/// as it is; a base ending in a version (`/v1`) or an Azure deployment gets `/embeddings`;
/// anything else gets `/v1/embeddings`. A query string (Azure's `api-version`) is kept.
pub fn embeddings_url(address: &str) -> String {
    let (path, query) = match address.split_once('?') {
        Some((p, q)) => (p.trim_end_matches('/'), format!("?{q}")),
        None => (address.trim_end_matches('/'), String::new()),
    };
    let last = path.rsplit('/').next().unwrap_or("");
    let versioned =
        last.len() >= 2 && last.starts_with('v') && last[1..].chars().all(|c| c.is_ascii_digit());
    if path.ends_with("/embeddings") {
        format!("{path}{query}")
    } else if versioned || path.contains("/deployments/") {
        format!("{path}/embeddings{query}")
    } else {
        format!("{path}/v1/embeddings{query}")
    }
}

/// An OpenAI-compatible embedding service.
pub struct ServiceEmbedder {
    endpoint: Endpoint,
    options: ServiceOptions,
    tokenizer: TokenCounter,
    dim: usize,
    identity: String,
}

impl std::fmt::Debug for ServiceEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceEmbedder")
            .field("url", &self.endpoint.shown())
            .field("model", &self.options.model)
            .field("dim", &self.dim)
            .finish_non_exhaustive()
    }
}

impl ServiceEmbedder {
    /// Reach the service and learn its dimension from one short request, so a wrong address,
    /// key or model fails before any corpus work.
    pub fn connect(
        options: ServiceOptions,
        tokenizer: TokenCounter,
    ) -> Result<ServiceEmbedder, EmbedError> {
        let key = read_key(options.key_env.as_deref(), "embed_key_env")?;
        let endpoint = Endpoint::new(
            "the embedding service",
            embeddings_url(&options.url),
            key,
            options.reliability.clone(),
            Arc::new(ServiceMeter::default()),
        );
        let mut embedder = ServiceEmbedder {
            endpoint,
            tokenizer,
            dim: 0,
            identity: String::new(),
            options,
        };
        let never = || false;
        let probe = embedder.request(&["dimension probe"], 0, &never)?;
        let dim = probe.first().map_or(0, Vec::len);
        if dim == 0 {
            return Err(embedder
                .endpoint
                .malformed("its first answer held no vector")
                .into());
        }
        if let Some(asked) = embedder.options.dimensions
            && asked != dim
        {
            return Err(embedder
                .endpoint
                .malformed(format!(
                    "it answered {dim}-dimensional vectors where embed_dimensions asks for {asked}"
                ))
                .into());
        }
        embedder.dim = dim;
        embedder.identity = format!(
            "openai:{}/d{dim}/w{}",
            embedder.options.model, embedder.options.window
        );
        Ok(embedder)
    }

    /// The endpoint's address as messages show it (credentials masked).
    pub fn url(&self) -> &str {
        self.endpoint.shown()
    }

    /// Each text as it is sent: a window cut from a longer text can tokenize to a token or two
    /// more on its own (a word piece at its start becomes a word); such a text loses its last
    /// tokens, exactly as the local model's truncation drops them, so a strict service never
    /// refuses it and both embed the same words.
    fn fit_to_window<'a>(&self, texts: &[&'a str]) -> Result<Vec<(&'a str, usize)>, EmbedError> {
        let specials = self.tokenizer.special_tokens();
        let room = self.options.window.saturating_sub(specials).max(1);
        texts
            .iter()
            .map(|text| {
                let offsets = self.tokenizer.offsets(text)?;
                Ok(if offsets.len() > room {
                    (&text[..offsets.ends[room - 1]], room + specials)
                } else {
                    (*text, offsets.len() + specials)
                })
            })
            .collect()
    }

    /// Group texts (by index) into requests bounded by inputs and tokens.
    fn plan_requests(&self, texts: &[(&str, usize)]) -> Vec<(Vec<usize>, usize)> {
        let mut requests: Vec<(Vec<usize>, usize)> = Vec::new();
        let mut current: (Vec<usize>, usize) = (Vec::new(), 0);
        for (i, &(_, tokens)) in texts.iter().enumerate() {
            let full = current.0.len() >= self.options.request_inputs.max(1)
                || (!current.0.is_empty()
                    && current.1 + tokens > self.options.request_tokens.max(1));
            if full {
                requests.push(std::mem::take(&mut current));
            }
            current.0.push(i);
            current.1 += tokens;
        }
        if !current.0.is_empty() {
            requests.push(current);
        }
        requests
    }

    /// One request for `texts` (already planned to fit), checked and normalised.
    fn request(
        &self,
        texts: &[&str],
        tokens: usize,
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<Vec<f32>>, ServiceError> {
        let mut body = json!({ "model": self.options.model, "input": texts });
        if let Some(d) = self.options.dimensions {
            body["dimensions"] = json!(d);
        }
        let window = self.options.window;
        let hint = move |status: u16, message: &str| -> String {
            let lower = message.to_lowercase();
            match status {
                401 | 403 => "; check the key (the variable embed_key_env names) and that it may use this model".to_string(),
                404 => "; check the address (an OpenAI-compatible base such as http://HOST:PORT/v1) and the model name (--embed-model)".to_string(),
                400 | 413 | 422 if ["token", "length", "long", "context", "size"].iter().any(|w| lower.contains(w)) => format!(
                    "; the service may read fewer than the {window} tokens seamscope sends whole: lower --embed-window (or embed_request_tokens)"
                ),
                _ => String::new(),
            }
        };
        let answer = self.endpoint.post(&body, stop, &hint)?;
        let vectors = self.read_answer(&answer, texts.len())?;
        let reported = answer
            .pointer("/usage/prompt_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        self.endpoint
            .meter()
            .answered(texts.len(), tokens, reported);
        Ok(vectors)
    }

    /// The vectors of an answer, in input order, each checked and normalised.
    fn read_answer(&self, answer: &Value, expected: usize) -> Result<Vec<Vec<f32>>, ServiceError> {
        let bad = |what: String| self.endpoint.malformed(what);
        let data = answer
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no `data` list".to_string()))?;
        if data.len() != expected {
            return Err(bad(format!("{} vectors for {expected} texts", data.len())));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
        for (position, item) in data.iter().enumerate() {
            let index = match item.get("index") {
                Some(i) => i
                    .as_u64()
                    .map(|i| i as usize)
                    .filter(|&i| i < expected)
                    .ok_or_else(|| bad(format!("index {i} is not one of 0..{expected}")))?,
                None => position,
            };
            let mut vector = match item.get("embedding") {
                Some(Value::Array(values)) => values
                    .iter()
                    .map(|v| v.as_f64().map(|x| x as f32))
                    .collect::<Option<Vec<f32>>>()
                    .ok_or_else(|| {
                        bad(format!("vector {index} holds a value that is not a number"))
                    })?,
                Some(Value::String(b64)) => decode_base64_f32(b64).ok_or_else(|| {
                    bad(format!("vector {index} is not base64 of little-endian f32"))
                })?,
                _ => return Err(bad(format!("item {position} has no `embedding`"))),
            };
            if self.dim != 0 && vector.len() != self.dim {
                return Err(bad(format!(
                    "a {}-dimensional vector where its first answer had {} dimensions: the model behind it changed; nothing of this request was kept",
                    vector.len(),
                    self.dim
                )));
            }
            if vector.iter().any(|x| !x.is_finite()) {
                return Err(bad(format!("vector {index} holds NaN or infinity")));
            }
            if vector.iter().all(|x| *x == 0.0) {
                return Err(bad(format!("vector {index} is all zeros")));
            }
            normalize(&mut vector);
            if out[index].replace(vector).is_some() {
                return Err(bad(format!("index {index} appears twice")));
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| bad(format!("no vector for text {i}"))))
            .collect()
    }
}

impl Embedder for ServiceEmbedder {
    fn identity(&self) -> &str {
        &self.identity
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn max_tokens(&self) -> usize {
        self.options.window
    }
    fn slice_hint(&self) -> Option<usize> {
        Some(self.options.request_inputs.max(1) * self.options.concurrency.max(1))
    }
    fn service_meter(&self) -> Option<&Arc<ServiceMeter>> {
        Some(self.endpoint.meter())
    }
    /// Every request of `texts`, up to `concurrency` at once; the first failure stops the rest
    /// and is the error (the vectors of this call are then all dropped: see
    /// [`Embedder::embed_keeping`] for the call that keeps them).
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let (slots, failure) = self.embed_keeping(texts);
        if let Some(e) = failure {
            return Err(e);
        }
        let got = slots.iter().filter(|v| v.is_some()).count();
        slots
            .into_iter()
            .map(|v| {
                v.ok_or(EmbedError::Count {
                    expected: texts.len(),
                    got,
                })
            })
            .collect()
    }

    /// Every request of `texts`, up to `concurrency` at once. The first failure stops the
    /// requests not yet sent and is the error, and every request answered before or while it
    /// failed keeps its vectors: they were paid for, and a rerun should not pay again.
    fn embed_keeping(&mut self, texts: &[&str]) -> (Vec<Option<Vec<f32>>>, Option<EmbedError>) {
        let fitted = match self.fit_to_window(texts) {
            Ok(f) => f,
            Err(e) => return (vec![None; texts.len()], Some(e)),
        };
        let requests = self.plan_requests(&fitted);
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let error: Mutex<Option<ServiceError>> = Mutex::new(None);
        let out: Mutex<Vec<Option<Vec<f32>>>> = Mutex::new(vec![None; texts.len()]);
        let workers = self.options.concurrency.clamp(1, requests.len().max(1));
        let this = &*self;
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    let stop = || failed.load(Ordering::Relaxed);
                    loop {
                        let r = next.fetch_add(1, Ordering::Relaxed);
                        if r >= requests.len() || stop() {
                            return;
                        }
                        let (indexes, tokens) = &requests[r];
                        let batch: Vec<&str> = indexes.iter().map(|&i| fitted[i].0).collect();
                        match this.request(&batch, *tokens, &stop) {
                            Ok(vectors) => {
                                // A poisoned lock means another worker panicked; what this
                                // one holds still belongs in its slots.
                                let mut slots = match out.lock() {
                                    Ok(s) => s,
                                    Err(poisoned) => poisoned.into_inner(),
                                };
                                for (&i, v) in indexes.iter().zip(vectors) {
                                    slots[i] = Some(v);
                                }
                            }
                            // Another request's failure ended this one's retries: not the
                            // reason, the first failure is.
                            Err(ServiceError::Cancelled) if stop() => return,
                            Err(e) => {
                                let first = !failed.swap(true, Ordering::Relaxed);
                                if first {
                                    let mut slot = match error.lock() {
                                        Ok(s) => s,
                                        Err(poisoned) => poisoned.into_inner(),
                                    };
                                    *slot = Some(e);
                                }
                                return;
                            }
                        }
                    }
                });
            }
        });
        let out = match out.into_inner() {
            Ok(o) => o,
            Err(poisoned) => poisoned.into_inner(),
        };
        let error = match error.into_inner() {
            Ok(e) => e,
            Err(poisoned) => poisoned.into_inner(),
        };
        let failure = match error {
            Some(e) => Some(e.into()),
            None if out.iter().any(Option::is_none) => {
                Some(EmbedError::Model("a request thread panicked".into()))
            }
            None => None,
        };
        (out, failure)
    }
}

/// Little-endian f32 values from standard base64 (OpenAI's `encoding_format: "base64"`).
fn decode_base64_f32(text: &str) -> Option<Vec<f32>> {
    let mut bytes = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b'\n' | b'\r' | b' ' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
        }
    }
    if bytes.len() % 4 != 0 || bytes.is_empty() {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_become_the_embeddings_endpoint() {
        assert_eq!(
            embeddings_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/v1/embeddings"
        );
        assert_eq!(
            embeddings_url("https://api.openai.com/v1/"),
            "https://api.openai.com/v1/embeddings"
        );
        assert_eq!(
            embeddings_url("http://h:1/embeddings"),
            "http://h:1/embeddings"
        );
        assert_eq!(
            embeddings_url(
                "https://x.openai.azure.com/openai/deployments/emb?api-version=2024-02-01"
            ),
            "https://x.openai.azure.com/openai/deployments/emb/embeddings?api-version=2024-02-01"
        );
        assert_eq!(
            embeddings_url("http://localhost:11434/v1"),
            "http://localhost:11434/v1/embeddings"
        );
    }

    use crate::embed::cache::{VectorCache, text_key};
    use crate::embed::testing::loopback::{Loopback, embeddings_answer, vector_of};
    use crate::embed::{EmbedOptions, embed_texts};

    fn options(base: &str, concurrency: usize) -> ServiceOptions {
        ServiceOptions {
            url: format!("{base}/v1"),
            model: "m".into(),
            key_env: None,
            window: 256,
            dimensions: None,
            request_inputs: 1,
            request_tokens: 8192,
            concurrency,
            reliability: Reliability {
                timeout: std::time::Duration::from_secs(30),
                retries: 0,
                first_backoff: std::time::Duration::from_millis(10),
            },
        }
    }

    /// The repro of issue 28's lost vectors: one request of many fails for good while others
    /// are in flight. Every text whose answer came back is in the cache afterwards (it was paid
    /// for); only the failed request's text and those never sent are not.
    #[test]
    fn a_failed_request_keeps_every_vector_the_other_requests_delivered() {
        for concurrency in [4, 8] {
            let delivered = Arc::new(Mutex::new(Vec::<String>::new()));
            let tally = delivered.clone();
            // Request 1 is the dimension probe; request 12 fails, after the requests sent
            // beside it have had time to answer.
            let server = Loopback::start(move |r| {
                if r.n == 12 {
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    let body = r#"{"error": {"message": "input rejected by policy"}}"#;
                    return (400, Vec::new(), body.to_string());
                }
                if r.n > 1
                    && let Some(texts) = r.json()["input"].as_array()
                {
                    let mut seen = tally.lock().unwrap();
                    seen.extend(texts.iter().map(|t| t.as_str().unwrap().to_string()));
                }
                embeddings_answer(r, 8)
            });
            let tokenizer = TokenCounter::whitespace_for_tests();
            let mut embedder =
                ServiceEmbedder::connect(options(&server.base, concurrency), tokenizer.clone())
                    .unwrap();
            let texts: Vec<String> = (0..63).map(|i| format!("text number {i}")).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let dir = tempfile::tempdir().unwrap();
            let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 8);
            let e = embed_texts(
                &mut embedder,
                &tokenizer,
                &mut cache,
                &refs,
                EmbedOptions::default(),
                &mut |_| true,
            )
            .unwrap_err();
            assert!(e.to_string().contains("input rejected by policy"), "{e}");
            let delivered = delivered.lock().unwrap().clone();
            // Requests 2 to 11 arrived before the failure and were all answered.
            assert!(
                delivered.len() >= 10,
                "concurrency {concurrency}: {delivered:?}"
            );
            assert_eq!(
                cache.len(),
                delivered.len(),
                "concurrency {concurrency}: every delivered vector is kept"
            );
            for text in &delivered {
                let (kept, _) = cache
                    .get(&text_key(text))
                    .expect("a delivered text is cached");
                let mut expected = vector_of(text, 8);
                crate::embed::normalize(&mut expected);
                assert_eq!(kept, expected.as_slice(), "{text}");
            }
            assert!(
                server.arrived() < 64,
                "the requests not yet sent were not sent"
            );
        }
    }

    #[test]
    fn base64_vectors_decode_as_little_endian_f32() {
        // [1.0, -2.5] as little-endian f32: 00 00 80 3f 00 00 20 c0
        assert_eq!(decode_base64_f32("AACAPwAAIMA="), Some(vec![1.0, -2.5]));
        assert_eq!(decode_base64_f32("AACA"), None);
        assert_eq!(decode_base64_f32("!!!!"), None);
    }
}
