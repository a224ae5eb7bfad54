//! Contextual retrieval's contexts: for each chunk, a language model behind an OpenAI-compatible
//! chat endpoint ([`crate::embed::chat`]) writes a short text situating the chunk in its
//! document, which is put before the chunk's text both where it is embedded and where BM25 reads
//! it. It mends the orphaned claim (a sentence whose subject is only named far above it), which
//! a seam does not; it costs one model call per chunk at ingestion.
//!
//! Contexts are cached on disk by document text, chunk span, model and prompt
//! ([`context_key`]), so a second run with the same chunks sends nothing. What was sent is
//! counted ([`ContextCost`]): calls, and the tokens the endpoint says it read and wrote.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, DocId, Span};
use crate::embed::chat::ChatClient;
use crate::session::EngineError;

/// What the model is asked to do (the system message).
pub const CONTEXT_PROMPT: &str = "You help a search engine find passages. You are given a \
document and one passage taken from it. Write one or two short sentences that place the passage \
in the document: what the document is, which part of it the passage comes from, and what its \
pronouns and unnamed subjects refer to. Reply with those sentences only.";

/// The longest document text sent with a chunk, in bytes: a longer document is sent as the
/// stretch of this length centred on the chunk (a real endpoint's window is finite).
pub const MAX_DOCUMENT_BYTES: usize = 24_000;

/// The message that asks for one chunk's context.
pub fn context_request(title: &str, document: &str, chunk: &str) -> String {
    format!(
        "<document title=\"{}\">\n{document}\n</document>\n\nThe passage to place in the \
         document:\n<chunk>\n{chunk}\n</chunk>",
        title.replace('"', "'")
    )
}

/// What contexts cost in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ContextCost {
    /// Model calls sent.
    pub calls: usize,
    /// Contexts the cache served.
    pub cached: usize,
    /// Tokens the endpoint says it read (0 where it does not say).
    pub tokens_sent: usize,
    /// Tokens the endpoint says it wrote.
    pub tokens_received: usize,
}

impl ContextCost {
    /// What was spent since `before` (an earlier reading of the same counter).
    pub fn since(self, before: ContextCost) -> ContextCost {
        ContextCost {
            calls: self.calls - before.calls,
            cached: self.cached - before.cached,
            tokens_sent: self.tokens_sent - before.tokens_sent,
            tokens_received: self.tokens_received - before.tokens_received,
        }
    }
}

/// One cached context, as a line of the cache file.
#[derive(Debug, Serialize, Deserialize)]
struct Cached {
    key: String,
    context: String,
}

/// Contexts by key, kept in a JSON-lines file (one per line, appended as they come, so an
/// interrupted run keeps what it paid for). A line that does not read is passed over.
#[derive(Debug)]
pub struct ContextCache {
    path: PathBuf,
    contexts: HashMap<String, String>,
}

impl ContextCache {
    /// The cache in `cache_dir` (empty when its file is not there yet).
    pub fn open(cache_dir: &Path) -> std::io::Result<ContextCache> {
        let path = cache_dir.join("contexts.jsonl");
        let mut contexts = HashMap::new();
        match std::fs::File::open(&path) {
            Ok(file) => {
                for line in std::io::BufReader::new(file).lines() {
                    if let Ok(c) = serde_json::from_str::<Cached>(&line?) {
                        contexts.insert(c.key, c.context);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(ContextCache { path, contexts })
    }

    /// Contexts held.
    pub fn len(&self) -> usize {
        self.contexts.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.contexts.is_empty()
    }

    fn get(&self, key: &str) -> Option<&String> {
        self.contexts.get(key)
    }

    fn insert(&mut self, key: String, context: String) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        let line = serde_json::to_string(&Cached {
            key: key.clone(),
            context: context.clone(),
        })
        .map_err(std::io::Error::other)?;
        writeln!(file, "{line}")?;
        self.contexts.insert(key, context);
        Ok(())
    }
}

/// The cache key of a chunk's context: the document's text, the chunk's span, the model and the
/// prompt (a change to any writes a new context).
pub fn context_key(document: &str, span: Span, model: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [CONTEXT_PROMPT, model] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(&(span.start as u64).to_le_bytes());
    h.update(&(span.end as u64).to_le_bytes());
    h.update(document.as_bytes());
    h.finalize().to_hex().to_string()
}

/// A chat endpoint with the contexts it already wrote: what contextual retrieval needs.
pub struct ContextWriter {
    /// The endpoint.
    pub client: ChatClient,
    /// Its cached contexts.
    pub cache: ContextCache,
    /// What it cost so far.
    pub cost: ContextCost,
}

impl ContextWriter {
    /// The endpoint `client` with the contexts cached in `cache_dir`.
    pub fn new(client: ChatClient, cache_dir: &Path) -> Result<ContextWriter, EngineError> {
        Ok(ContextWriter {
            client,
            cache: ContextCache::open(cache_dir).map_err(EngineError::ContextCache)?,
            cost: ContextCost::default(),
        })
    }

    /// Each of `chunks`' context ([`chunk_contexts`]), its cost added to [`ContextWriter::cost`].
    pub fn contexts(
        &mut self,
        corpus: &Corpus,
        chunks: &[(DocId, Span)],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<String>, EngineError> {
        chunk_contexts(
            &self.client,
            &mut self.cache,
            corpus,
            chunks,
            &mut self.cost,
            progress,
        )
    }
}

/// Each of `chunks`' context (by document and span), from the cache or written by `client`;
/// `progress(done, total)` after each.
pub fn chunk_contexts(
    client: &ChatClient,
    cache: &mut ContextCache,
    corpus: &Corpus,
    chunks: &[(DocId, Span)],
    cost: &mut ContextCost,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<String>, EngineError> {
    let mut out = Vec::with_capacity(chunks.len());
    for (i, &(doc, span)) in chunks.iter().enumerate() {
        let document = corpus.doc(doc);
        let key = context_key(&document.text, span, client.model());
        if let Some(context) = cache.get(&key) {
            cost.cached += 1;
            out.push(context.clone());
        } else {
            let around = around(&document.text, span, MAX_DOCUMENT_BYTES);
            let request = context_request(&document.path, around, document.slice(span));
            let reply = client.complete(CONTEXT_PROMPT, &request)?;
            cost.calls += 1;
            cost.tokens_sent += reply.prompt_tokens.unwrap_or(0);
            cost.tokens_received += reply.completion_tokens.unwrap_or(0);
            let context = reply.content.trim().to_string();
            cache
                .insert(key, context.clone())
                .map_err(EngineError::ContextCache)?;
            out.push(context);
        }
        progress(i + 1, chunks.len());
    }
    Ok(out)
}

/// At most `limit` bytes of `text` centred on `span` (the whole text when it fits), cut at
/// character boundaries.
fn around(text: &str, span: Span, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let middle = span.start + (span.end - span.start) / 2;
    let mut start = middle.saturating_sub(limit / 2).min(text.len() - limit);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + limit).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_document_is_sent_as_the_stretch_around_the_chunk() {
        let text = "é".repeat(100);
        let got = around(&text, Span::new(100, 110), 21);
        let at = got.as_ptr() as usize - text.as_ptr() as usize;
        assert!(got.len() <= 21 && !got.is_empty());
        assert!(at <= 100 && at + got.len() >= 110, "{at}+{}", got.len());
        assert_eq!(around("short", Span::new(0, 5), 21), "short");
    }

    #[test]
    fn the_key_changes_with_the_span_the_model_and_the_text() {
        let key = context_key("doc", Span::new(0, 3), "m");
        assert_ne!(key, context_key("doc", Span::new(0, 2), "m"));
        assert_ne!(key, context_key("doc", Span::new(0, 3), "n"));
        assert_ne!(key, context_key("dog", Span::new(0, 3), "m"));
        assert_eq!(key, context_key("doc", Span::new(0, 3), "m"));
    }

    #[test]
    fn the_cache_keeps_what_was_written_and_passes_over_a_damaged_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = ContextCache::open(dir.path()).unwrap();
        cache.insert("a".into(), "context a".into()).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("contexts.jsonl"))
            .unwrap();
        writeln!(file, "{{not json").unwrap();
        let again = ContextCache::open(dir.path()).unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again.get("a").map(String::as_str), Some("context a"));
    }
}
