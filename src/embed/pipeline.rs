//! The embedder a run uses, whatever its kind, with the user's query and document prefixes.
//!
//! Some models expect questions and passages marked (e5: `query: ` / `passage: `; bge: an
//! instruction before the question). The prefixes are settings; the document prefix changes every
//! stored vector, so it is part of the identity (and so of every cache key), while the query
//! prefix changes only questions and is named beside it.

use std::sync::Arc;

use super::device::DeviceReport;
use super::http::ServiceMeter;
use super::late::TokenStates;
use super::model::ModelEmbedder;
use super::service::ServiceEmbedder;
use super::{EmbedError, Embedder};
use crate::corpus::Span;
use crate::tokens::TokenCounter;

/// The loaded model or client behind a [`PipelineEmbedder`].
pub enum EmbedderKind {
    /// A local ONNX model (the pinned default, a folder, or a catalog model's files).
    Local(Box<ModelEmbedder>),
    /// An OpenAI-compatible service.
    Service(Box<ServiceEmbedder>),
    /// Any other embedder (a catalog model, a test embedder).
    Other(Box<dyn Embedder + Send>),
}

/// The embedder of a run: a model or a service, the prefixes, and the identity every cache key,
/// calibration record, baseline and bundle carries.
pub struct PipelineEmbedder {
    inner: EmbedderKind,
    query_prefix: String,
    document_prefix: String,
    /// Tokens the longer prefix takes, kept free in every window.
    prefix_tokens: usize,
    identity: String,
}

impl PipelineEmbedder {
    /// Wrap a loaded embedder with the prefixes.
    pub fn new(
        inner: EmbedderKind,
        query_prefix: &str,
        document_prefix: &str,
        tokenizer: &TokenCounter,
    ) -> Result<PipelineEmbedder, EmbedError> {
        let count = |p: &str| -> Result<usize, EmbedError> {
            if p.is_empty() {
                Ok(0)
            } else {
                // Without the special tokens: the window already leaves room for them.
                Ok(tokenizer
                    .count(p)?
                    .saturating_sub(tokenizer.special_tokens()))
            }
        };
        let prefix_tokens = count(query_prefix)?.max(count(document_prefix)?);
        let mut identity = inner.as_embedder().identity().to_string();
        if !document_prefix.is_empty() {
            let hash = blake3::hash(document_prefix.as_bytes()).to_hex();
            identity.push_str(&format!("+doc:{}", &hash[..8]));
        }
        Ok(PipelineEmbedder {
            inner,
            query_prefix: query_prefix.to_string(),
            document_prefix: document_prefix.to_string(),
            prefix_tokens,
            identity,
        })
    }

    /// The local ONNX model, when it is one.
    pub fn local_model(&self) -> Option<&ModelEmbedder> {
        match &self.inner {
            EmbedderKind::Local(m) => Some(m.as_ref()),
            _ => None,
        }
    }

    /// Where a local model runs; `None` for a service (it runs where the service runs).
    pub fn device(&self) -> Option<&DeviceReport> {
        self.local_model().map(ModelEmbedder::device)
    }

    /// The identity every cache key, calibration record, baseline and bundle carries (the
    /// same as [`Embedder::identity`], callable without the trait in scope).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The query prefix in force ("" for none).
    pub fn query_prefix(&self) -> &str {
        &self.query_prefix
    }

    /// The document prefix in force ("" for none).
    pub fn document_prefix(&self) -> &str {
        &self.document_prefix
    }

    /// One line for headers: the identity, where a service lives, and the prefixes.
    pub fn describe(&self) -> String {
        let mut line = match &self.inner {
            EmbedderKind::Service(s) => format!("{} at {}", self.identity, s.url()),
            _ => self.identity.clone(),
        };
        if !self.query_prefix.is_empty() {
            line.push_str(&format!(
                " · query prefix {:?}",
                crate::text::safe_name(&self.query_prefix)
            ));
        }
        line
    }

    fn with_prefix(prefix: &str, texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| format!("{prefix}{t}")).collect()
    }
}

impl EmbedderKind {
    fn as_embedder(&self) -> &dyn Embedder {
        match self {
            EmbedderKind::Local(m) => m.as_ref(),
            EmbedderKind::Service(s) => s.as_ref(),
            EmbedderKind::Other(o) => o.as_ref(),
        }
    }

    fn as_embedder_mut(&mut self) -> &mut dyn Embedder {
        match self {
            EmbedderKind::Local(m) => m.as_mut(),
            EmbedderKind::Service(s) => s.as_mut(),
            EmbedderKind::Other(o) => o.as_mut(),
        }
    }
}

impl Embedder for PipelineEmbedder {
    fn identity(&self) -> &str {
        &self.identity
    }
    fn dim(&self) -> usize {
        self.inner.as_embedder().dim()
    }
    fn max_tokens(&self) -> usize {
        self.inner
            .as_embedder()
            .max_tokens()
            .saturating_sub(self.prefix_tokens)
            .max(2)
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.document_prefix.is_empty() {
            return self.inner.as_embedder_mut().embed(texts);
        }
        let owned = Self::with_prefix(&self.document_prefix, texts);
        let marked: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.inner.as_embedder_mut().embed(&marked)
    }
    fn embed_keeping(&mut self, texts: &[&str]) -> (Vec<Option<Vec<f32>>>, Option<EmbedError>) {
        if self.document_prefix.is_empty() {
            return self.inner.as_embedder_mut().embed_keeping(texts);
        }
        let owned = Self::with_prefix(&self.document_prefix, texts);
        let marked: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.inner.as_embedder_mut().embed_keeping(&marked)
    }
    fn embed_queries(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.query_prefix.is_empty() {
            return self.inner.as_embedder_mut().embed_queries(texts);
        }
        let owned = Self::with_prefix(&self.query_prefix, texts);
        let marked: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.inner.as_embedder_mut().embed_queries(&marked)
    }
    fn slice_hint(&self) -> Option<usize> {
        self.inner.as_embedder().slice_hint()
    }
    fn token_states(&mut self, text: &str) -> Result<TokenStates, EmbedError> {
        if self.document_prefix.is_empty() {
            return self.inner.as_embedder_mut().token_states(text);
        }
        // The prefix's tokens go with the first real token of the text, as `[CLS]` does.
        let marked = format!("{}{text}", self.document_prefix);
        let shift = self.document_prefix.len();
        let mut read = self.inner.as_embedder_mut().token_states(&marked)?;
        let first = read
            .spans
            .iter()
            .filter(|s| s.start >= shift && s.end > s.start)
            .map(|s| s.start - shift)
            .next()
            .unwrap_or(0);
        for span in &mut read.spans {
            *span = if span.start >= shift {
                Span::new(span.start - shift, span.end - shift)
            } else {
                Span::new(first, first)
            };
        }
        Ok(read)
    }
    fn service_meter(&self) -> Option<&Arc<ServiceMeter>> {
        self.inner.as_embedder().service_meter()
    }
}
