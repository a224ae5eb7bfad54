//! A `/rerank` service as the reranker (`reranker = "rerank:URL"`): TEI's protocol, or Cohere's
//! and Jina's when a model is named (they need one).
//!
//! TEI: `POST …/rerank {"query", "texts"}` → `[{"index", "score"}]`. Cohere (`/v2/rerank`) and
//! Jina (`/v1/rerank`): `{"model", "query", "documents", "top_n"}` →
//! `{"results": [{"index", "relevance_score"}]}`. Both answers are put back in input order; a
//! text the service left out, an index out of range or a score that is not a number fails the
//! question's rerank with the reason (the trace records it; the fused order stands). Requests
//! follow the reliability rules of [`super::http`].

use std::sync::Arc;

use serde_json::{Value, json};

use super::http::{Endpoint, Reliability, ServiceError, ServiceMeter, read_key};
use crate::retrieve::{RerankError, Reranker};
use crate::tokens::TokenCounter;

/// The two protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RerankProtocol {
    /// Text Embeddings Inference: `texts` in, a list of `{index, score}` out.
    Tei,
    /// Cohere and Jina: `model` + `documents` in, `{results: [{index, relevance_score}]}` out.
    Cohere,
}

/// The rerank endpoint for an address as a user gives it: a full `…/rerank` URL as it is, else
/// `/rerank` appended.
pub fn rerank_url(address: &str) -> String {
    let (path, query) = match address.split_once('?') {
        Some((p, q)) => (p.trim_end_matches('/'), format!("?{q}")),
        None => (address.trim_end_matches('/'), String::new()),
    };
    if path.ends_with("/rerank") {
        format!("{path}{query}")
    } else {
        format!("{path}/rerank{query}")
    }
}

/// A reranking service.
pub struct RerankService {
    endpoint: Endpoint,
    protocol: RerankProtocol,
    model: Option<String>,
    name: String,
    /// Counts tokens to keep question and text inside the reranker's window.
    tokenizer: Option<TokenCounter>,
    /// The reranker's window for question and text together (`reranker_max_tokens`).
    window: usize,
}

impl std::fmt::Debug for RerankService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RerankService")
            .field("name", &self.name)
            .field("protocol", &self.protocol)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl RerankService {
    /// A client for the service at `url`; `model` (when given) selects the Cohere/Jina protocol.
    pub fn new(
        url: &str,
        model: Option<String>,
        key_env: Option<&str>,
        reliability: Reliability,
    ) -> Result<RerankService, ServiceError> {
        let key = read_key(key_env, "rerank_key_env")?;
        Ok(RerankService::with_key(url, model, key, reliability))
    }

    /// A client for the service at `url` with `key` itself (what [`RerankService::new`] reads
    /// from the variable).
    pub fn with_key(
        url: &str,
        model: Option<String>,
        key: Option<String>,
        reliability: Reliability,
    ) -> RerankService {
        let endpoint = Endpoint::new(
            "the rerank service",
            rerank_url(url),
            key,
            reliability,
            Arc::new(ServiceMeter::default()),
        );
        let protocol = if model.is_some() {
            RerankProtocol::Cohere
        } else {
            RerankProtocol::Tei
        };
        let name = match &model {
            Some(m) => format!("rerank:{m}@{}", endpoint.shown()),
            None => format!("rerank@{}", endpoint.shown()),
        };
        RerankService {
            endpoint,
            protocol,
            model,
            name,
            tokenizer: None,
            window: usize::MAX,
        }
    }

    /// Keep every (question, text) pair inside `window` tokens counted by `tokenizer`: a text
    /// that would not fit loses its end, as a cross-encoder's own truncation drops it, so a
    /// service that refuses long inputs never sees one.
    pub fn with_window(mut self, tokenizer: TokenCounter, window: usize) -> RerankService {
        self.tokenizer = Some(tokenizer);
        self.window = window;
        self
    }

    /// `text` cut to what fits beside a question of `query_tokens` tokens.
    fn fit<'a>(&self, text: &'a str, query_tokens: usize) -> Result<&'a str, String> {
        let Some(tokenizer) = &self.tokenizer else {
            return Ok(text);
        };
        // Three special tokens hold a pair together ([CLS] q [SEP] t [SEP]).
        let room = self.window.saturating_sub(query_tokens + 3).max(1);
        let offsets = tokenizer.offsets(text).map_err(|e| e.to_string())?;
        Ok(if offsets.len() > room {
            &text[..offsets.ends[room - 1]]
        } else {
            text
        })
    }

    /// Scores in input order from an answer of either protocol.
    fn read_answer(&self, answer: &Value, expected: usize) -> Result<Vec<f32>, ServiceError> {
        let bad = |what: String| self.endpoint.malformed(what);
        let (items, score_key) = match (self.protocol, answer) {
            (RerankProtocol::Tei, Value::Array(items)) => (items, "score"),
            (RerankProtocol::Cohere, v) => (
                v.get("results")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad("no `results` list".to_string()))?,
                "relevance_score",
            ),
            (RerankProtocol::Tei, _) => {
                return Err(bad(
                    "not a list of {index, score} (a Cohere or Jina service needs --rerank-model)"
                        .to_string(),
                ));
            }
        };
        let mut scores: Vec<Option<f32>> = vec![None; expected];
        for item in items {
            let index = item
                .get("index")
                .and_then(Value::as_u64)
                .map(|i| i as usize)
                .filter(|&i| i < expected)
                .ok_or_else(|| bad(format!("an item without an index in 0..{expected}")))?;
            let score = item
                .get(score_key)
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite())
                .ok_or_else(|| bad(format!("item {index} has no finite `{score_key}`")))?;
            if scores[index].replace(score as f32).is_some() {
                return Err(bad(format!("index {index} appears twice")));
            }
        }
        scores
            .into_iter()
            .enumerate()
            .map(|(i, s)| s.ok_or_else(|| bad(format!("no score for text {i}"))))
            .collect()
    }
}

impl Reranker for RerankService {
    fn name(&self) -> &str {
        &self.name
    }

    fn score(&mut self, query: &str, texts: &[&str]) -> Result<Vec<f32>, RerankError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let query_tokens = match &self.tokenizer {
            Some(t) => t.offsets(query).map(|o| o.len()).unwrap_or(0),
            None => 0,
        };
        let texts = texts
            .iter()
            .map(|t| self.fit(t, query_tokens))
            .collect::<Result<Vec<&str>, String>>()
            .map_err(|message| RerankError::Model {
                reranker: self.name.clone(),
                message,
            })?;
        let texts = texts.as_slice();
        let body = match (&self.protocol, &self.model) {
            (RerankProtocol::Cohere, Some(model)) => json!({
                "model": model, "query": query, "documents": texts, "top_n": texts.len(),
            }),
            _ => json!({ "query": query, "texts": texts, "raw_scores": false }),
        };
        let hint = |status: u16, _: &str| {
            match status {
            401 | 403 => "; check the key (the variable rerank_key_env names)".to_string(),
            404 => "; check the address (TEI: http://HOST:PORT; Cohere: https://api.cohere.com/v2; Jina: https://api.jina.ai/v1) and --rerank-model".to_string(),
            422 | 400 => "; a Cohere or Jina service needs --rerank-model NAME".to_string(),
            _ => String::new(),
        }
        };
        let never = || false;
        let fail = |e: ServiceError| RerankError::Model {
            reranker: self.name.clone(),
            message: e.to_string(),
        };
        let answer = self.endpoint.post(&body, &never, &hint).map_err(fail)?;
        let scores = self.read_answer(&answer, texts.len()).map_err(fail)?;
        // Requests and texts are counted; tokens are not (nothing here counts them honestly).
        self.endpoint.meter().answered(texts.len(), 0, 0);
        Ok(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(model: Option<&str>) -> RerankService {
        RerankService::new(
            "http://127.0.0.1:9",
            model.map(str::to_string),
            None,
            Reliability::default(),
        )
        .unwrap()
    }

    /// A rerank service that answers every request 401 with a body echoing the key it was
    /// sent, as real services do (tests/fixtures/hostile/service-401-openai.json).
    #[test]
    fn a_rerank_service_that_echoes_the_key_never_gets_it_into_the_error() {
        use crate::embed::testing::loopback::Loopback;
        let server = Loopback::start(|r| {
            let sent = r.header("authorization").unwrap_or("").to_string();
            let body = include_str!("../../tests/fixtures/hostile/service-401-openai.json")
                .replace("Bearer {KEY}", &sent)
                .trim()
                .to_string();
            (401, Vec::new(), body)
        });
        let key = "rk-live-0123456789abcdef";
        let url = format!("{}/?token=tok-in-the-url-42", server.base);
        let mut rerank =
            RerankService::with_key(&url, None, Some(key.to_string()), Reliability::default());
        assert!(
            !rerank.name().contains("tok-in-the-url-42"),
            "{}",
            rerank.name()
        );
        let e = rerank
            .score("question", &["a text"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("HTTP 401"), "{e}");
        assert!(e.contains("Incorrect API key provided"), "{e}");
        for secret in [key, "0123456789abcdef", "tok-in-the-url-42"] {
            assert!(!e.contains(secret), "{secret} in {e}");
        }
    }

    #[test]
    fn addresses_become_the_rerank_endpoint() {
        assert_eq!(rerank_url("http://h:8080"), "http://h:8080/rerank");
        assert_eq!(
            rerank_url("https://api.cohere.com/v2/"),
            "https://api.cohere.com/v2/rerank"
        );
        assert_eq!(
            rerank_url("https://api.jina.ai/v1/rerank"),
            "https://api.jina.ai/v1/rerank"
        );
    }

    #[test]
    fn both_protocols_come_back_in_input_order() {
        let tei = service(None);
        let answer = json!([{"index": 2, "score": 0.9}, {"index": 0, "score": 0.5}, {"index": 1, "score": 0.1}]);
        assert_eq!(tei.read_answer(&answer, 3).unwrap(), vec![0.5, 0.1, 0.9]);
        let cohere = service(Some("rerank-v3.5"));
        let answer = json!({"results": [{"index": 1, "relevance_score": 0.7}, {"index": 0, "relevance_score": 0.2}]});
        assert_eq!(cohere.read_answer(&answer, 2).unwrap(), vec![0.2, 0.7]);
    }

    #[test]
    fn answers_that_do_not_fit_are_refused_with_the_reason() {
        let tei = service(None);
        let missing = tei
            .read_answer(&json!([{"index": 0, "score": 0.5}]), 2)
            .unwrap_err();
        assert!(
            missing.to_string().contains("no score for text 1"),
            "{missing}"
        );
        let twice = tei
            .read_answer(
                &json!([{"index": 0, "score": 0.5}, {"index": 0, "score": 0.4}]),
                2,
            )
            .unwrap_err();
        assert!(twice.to_string().contains("appears twice"), "{twice}");
        let shape = tei.read_answer(&json!({"results": []}), 1).unwrap_err();
        assert!(shape.to_string().contains("--rerank-model"), "{shape}");
        let nan = service(Some("m"))
            .read_answer(
                &json!({"results": [{"index": 0, "relevance_score": "x"}]}),
                1,
            )
            .unwrap_err();
        assert!(nan.to_string().contains("finite"), "{nan}");
    }
}
