//! Embedding: the model behind a small trait, the long-text rule, and the vector cache.
//!
//! A text longer than the model's window is embedded as the normalised mean of the fewest windows
//! that cover it evenly with equal overlap, so the embedder never truncates silently.

pub mod cache;
pub mod catalog;
pub mod chat;
pub mod device;
pub mod http;
pub mod install;
pub mod install_gpu;
pub mod install_pdfium;
pub mod late;
pub mod model;
pub mod pipeline;
pub mod rerank_service;
pub mod reranker;
pub mod runtime;
pub mod service;
/// The embedder and reranker names, plain data below settings.
pub use crate::spec::model as spec;
pub mod testing;

use std::time::Instant;

use serde::Serialize;

use crate::corpus::Span;
use crate::tokens::{TokenCounter, TokenOffsets};
use cache::{VectorCache, text_key};

/// Errors from loading or running the embedding model.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The ONNX Runtime library is not where it should be.
    #[error(
        "ONNX Runtime library not found at {path}: run `seamscope setup` to install it, or set SEAMSCOPE_ORT_LIB (or `runtime_path` in settings) to an existing libonnxruntime"
    )]
    RuntimeMissing {
        /// The path tried.
        path: String,
    },
    /// The library could not be loaded.
    #[error(
        "cannot load ONNX Runtime from {path}: {message}; run `seamscope setup` to install a working copy"
    )]
    RuntimeUnusable {
        /// The path tried.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The library is older than `ort` supports.
    #[error(
        "ONNX Runtime at {path} is version {version}; seamscope needs 1.24 or newer: run `seamscope setup`, or point SEAMSCOPE_ORT_LIB at a newer library"
    )]
    RuntimeTooOld {
        /// The path tried.
        path: String,
        /// Its version.
        version: String,
    },
    /// Loading the runtime failed earlier in this process.
    #[error("{0}")]
    Runtime(String),
    /// This process already loaded (or tried to load) a different ONNX Runtime library.
    #[error(
        "ONNX Runtime is already loaded from {loaded} in this process, so {requested} cannot be used too: one process holds one runtime; run seamscope again with the runtime you want"
    )]
    RuntimeAlreadyLoaded {
        /// The library this process loaded first.
        loaded: String,
        /// The library asked for now.
        requested: String,
    },
    /// A model file is missing or unreadable.
    #[error(
        "cannot read model file {path}: {message}; run `seamscope setup`, or set SEAMSCOPE_MODEL_DIR (or `model_dir` in settings) to a folder with model.onnx and the tokenizer files"
    )]
    ModelFiles {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A reranker file is missing or unreadable.
    #[error(
        "cannot read reranker file {path}: {message}; the reranker folder (SEAMSCOPE_RERANKER_DIR or `reranker_dir`) needs model.onnx, tokenizer.json, config.json, special_tokens_map.json and tokenizer_config.json of a cross-encoder"
    )]
    RerankerFiles {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A window setting asks for more tokens than the model can read.
    #[error(
        "{setting} = {value} is more than the model in {model_dir} can read: its window is {window} tokens ({source_field}); set {setting} to {window} or less"
    )]
    WindowTooLarge {
        /// The setting's name.
        setting: &'static str,
        /// The value asked for.
        value: usize,
        /// The model's own window.
        window: usize,
        /// Which file and field states the window.
        source_field: &'static str,
        /// The model folder.
        model_dir: String,
    },
    /// The model failed to load or to run.
    #[error("embedding model error: {0}")]
    Model(String),
    /// Late chunking needs the model's token states, and this embedder gives only vectors.
    #[error(
        "late chunking needs the model's token states, and {0} gives only pooled vectors: use a local ONNX model (the pinned default, a folder or a catalog model)"
    )]
    NoTokenStates(String),
    /// The tokenizer failed.
    #[error(transparent)]
    Tokenizer(#[from] crate::tokens::TokenizerError),
    /// The model returned a different number of vectors than texts.
    #[error("the model returned {got} vectors for {expected} texts")]
    Count {
        /// Texts sent.
        expected: usize,
        /// Vectors received.
        got: usize,
    },
    /// The device asked for cannot be used.
    #[error(transparent)]
    Device(#[from] device::DeviceError),
    /// An embedding or rerank service failed for good.
    #[error(transparent)]
    Service(http::ServiceError),
    /// The embedder or reranker named in settings cannot be used as named.
    #[error("{0}")]
    Spec(String),
    /// The work was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
    /// A model of fastembed's catalog: unknown name, files not cached and no hub, or a failed fetch.
    #[error(transparent)]
    Catalog(#[from] catalog::CatalogError),
}

impl From<http::ServiceError> for EmbedError {
    fn from(e: http::ServiceError) -> Self {
        match e {
            http::ServiceError::Cancelled => EmbedError::Cancelled,
            other => EmbedError::Service(other),
        }
    }
}

/// Something that turns texts into unit vectors. One worker owns it (`&mut self`).
pub trait Embedder {
    /// Name and weight hash of the model: part of every cache key.
    fn identity(&self) -> &str;
    /// Vector length.
    fn dim(&self) -> usize;
    /// The model's window in tokens, special tokens included.
    fn max_tokens(&self) -> usize;
    /// Embed texts that each fit the window; returns one normalised vector per text.
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// [`Embedder::embed`], keeping what arrived when part of it fails: one slot per text
    /// (`None` where it did not arrive) and the failure, if any. An embedder that sends several
    /// requests at once overrides it, so one request's failure does not throw away the vectors
    /// the others delivered; the default is all or nothing.
    fn embed_keeping(&mut self, texts: &[&str]) -> (Vec<Option<Vec<f32>>>, Option<EmbedError>) {
        match self.embed(texts) {
            Ok(vectors) => (vectors.into_iter().map(Some).collect(), None),
            Err(e) => (vec![None; texts.len()], Some(e)),
        }
    }
    /// Embed questions (not documents): the same as [`Embedder::embed`] unless the model wants
    /// questions marked (e5's `query: `, bge's instruction; see [`pipeline`]).
    fn embed_queries(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed(texts)
    }
    /// Texts per call this embedder works best with, when it knows better than the `embed_slice`
    /// setting (a service sends several requests at once).
    fn slice_hint(&self) -> Option<usize> {
        None
    }
    /// The state of every token of `text` (which fits the window), for late chunking
    /// ([`late`]): a local model's last hidden layer. A service or a model that gives only
    /// pooled vectors cannot: the error says so.
    fn token_states(&mut self, _text: &str) -> Result<late::TokenStates, EmbedError> {
        Err(EmbedError::NoTokenStates(self.identity().to_string()))
    }
    /// The counters of a service embedder (requests, retries, tokens sent); `None` for a local
    /// model.
    fn service_meter(&self) -> Option<&std::sync::Arc<http::ServiceMeter>> {
        None
    }
}

/// The windows that cover a text of `offsets.len()` tokens when at most `window` tokens fit.
///
/// Uses the fewest windows; all have the same length and neighbours overlap equally, so a text
/// at most two windows long keeps its middle inside every window. Returns byte spans.
pub fn plan_windows(offsets: &TokenOffsets, text_len: usize, window: usize) -> Vec<Span> {
    let t = offsets.len();
    let window = window.max(1);
    if t <= window {
        return vec![Span::new(0, text_len)];
    }
    let n = t.div_ceil(window);
    (0..n)
        .map(|i| {
            let first = (i * (t - window) + (n - 1) / 2) / (n - 1);
            let last = first + window - 1;
            Span::new(offsets.starts[first], offsets.ends[last])
        })
        .collect()
}

/// [`plan_windows`] checked against the tokenizer: a window cut inside a word can tokenize into
/// a few more tokens on its own than it held inside the whole text (WordPiece reads a word from
/// where the window starts, and an over-long word is cut into pieces from there), and the model
/// would silently truncate what does not fit. Each window of a text that needs several is
/// counted again, and the windows are planned narrower until every one fits.
pub(crate) fn windows_that_fit(
    tokenizer: &TokenCounter,
    offsets: &TokenOffsets,
    text: &str,
    window: usize,
) -> Result<Vec<Span>, EmbedError> {
    let mut planned = window.max(1);
    loop {
        let spans = plan_windows(offsets, text.len(), planned);
        if spans.len() == 1 || planned == 1 {
            return Ok(spans);
        }
        let mut longest = 0;
        for span in &spans {
            longest = longest.max(tokenizer.count(&text[span.start..span.end])?);
        }
        if longest <= window {
            return Ok(spans);
        }
        planned = planned.saturating_sub(longest - window).max(1);
    }
}

/// What one embedding run did: cache hits, misses and time.
///
/// Every text asked for is counted once: `texts = cache_hits + cache_misses + duplicates_in_batch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EmbedStats {
    /// Texts asked for.
    pub texts: usize,
    /// Texts found in the vector cache.
    pub cache_hits: usize,
    /// Texts that had to be embedded.
    pub cache_misses: usize,
    /// Repeats of a text embedded earlier in the same batch, served from that one run: neither a
    /// cache hit nor a model run.
    pub duplicates_in_batch: usize,
    /// Tokens of the texts that were embedded.
    pub tokens_embedded: usize,
    /// Tokens of the texts served from the cache.
    pub tokens_cached: usize,
    /// Model windows run (a long text takes several).
    pub windows: usize,
    /// Seconds spent inside the model.
    pub model_seconds: f64,
    /// Seconds in total, including tokenizing, windowing and cache work.
    pub total_seconds: f64,
    /// What a service embedder sent (requests, retries, tokens); absent for a local model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<http::ServiceCounters>,
}

impl EmbedStats {
    /// Add another run's counts and times to these (for a report over several runs).
    pub fn add(&mut self, other: &EmbedStats) {
        self.texts += other.texts;
        self.cache_hits += other.cache_hits;
        self.cache_misses += other.cache_misses;
        self.duplicates_in_batch += other.duplicates_in_batch;
        self.tokens_embedded += other.tokens_embedded;
        self.tokens_cached += other.tokens_cached;
        self.windows += other.windows;
        self.model_seconds += other.model_seconds;
        self.total_seconds += other.total_seconds;
        if let Some(theirs) = &other.service {
            self.service
                .get_or_insert_with(Default::default)
                .add(theirs);
        }
    }
}

/// Progress of an embedding run, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedProgress {
    /// Tokens embedded so far.
    pub done_tokens: usize,
    /// Tokens to embed in all.
    pub total_tokens: usize,
}

/// Options for [`embed_texts`].
#[derive(Debug, Clone, Copy)]
pub struct EmbedOptions {
    /// Window texts per call into the model (keeps memory flat).
    pub slice: usize,
}

impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions { slice: 64 }
    }
}

/// What [`embed_texts`] must run: cached texts served, repeats pointed at their first copy,
/// and the windows of every other text.
struct EmbedPlan<'a> {
    /// Each text's vector, where the cache already has it.
    out: Vec<Option<Vec<f32>>>,
    /// Window texts to run: (owner text index, window text, tokens).
    jobs: Vec<(usize, &'a str, usize)>,
    /// Texts to embed, by key: (first index, token count).
    pending: std::collections::HashMap<cache::TextKey, (usize, usize)>,
    /// (repeat's index, first copy's index) of texts asked for twice.
    duplicates: Vec<(usize, usize)>,
}

/// Serve `texts` from `cache` where it can and cut the rest into windows of `window` tokens,
/// counting what it did in `stats`.
fn plan_embedding<'a>(
    cache: &VectorCache,
    tokenizer: &TokenCounter,
    texts: &[&'a str],
    window: usize,
    stats: &mut EmbedStats,
) -> Result<EmbedPlan<'a>, EmbedError> {
    let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
    // Window texts to run: (owner text index, window text, tokens).
    let mut jobs: Vec<(usize, &str, usize)> = Vec::new();
    // Texts to embed, by key: (first index, token count). A repeat of one is served from it.
    let mut pending: std::collections::HashMap<cache::TextKey, (usize, usize)> = Default::default();
    let mut duplicates: Vec<(usize, usize)> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let key = text_key(text);
        // A hit needs no tokenizing: the cache keeps each text's token count.
        if let Some((v, tokens)) = cache.get(&key) {
            out[i] = Some(v.to_vec());
            stats.cache_hits += 1;
            stats.tokens_cached += tokens;
            continue;
        }
        if let Some(&(first, _)) = pending.get(&key) {
            duplicates.push((i, first));
            stats.duplicates_in_batch += 1;
            continue;
        }
        stats.cache_misses += 1;
        let offsets = tokenizer.offsets(text)?;
        pending.insert(key, (i, offsets.len()));
        stats.tokens_embedded += offsets.len();
        for span in windows_that_fit(tokenizer, &offsets, text, window)? {
            let piece = &text[span.start..span.end];
            let n = offsets.count_in(span.start, span.end);
            jobs.push((i, piece, n));
        }
    }
    Ok(EmbedPlan {
        out,
        jobs,
        pending,
        duplicates,
    })
}

/// Embed `texts`, serving what it can from `cache` and storing what it computes there.
///
/// `progress` is called after every slice and may return `false` to cancel.
pub fn embed_texts(
    embedder: &mut dyn Embedder,
    tokenizer: &TokenCounter,
    cache: &mut VectorCache,
    texts: &[&str],
    options: EmbedOptions,
    progress: &mut dyn FnMut(EmbedProgress) -> bool,
) -> Result<(Vec<Vec<f32>>, EmbedStats), EmbedError> {
    let started = Instant::now();
    let window = embedder
        .max_tokens()
        .saturating_sub(tokenizer.special_tokens())
        .max(1);
    let mut stats = EmbedStats {
        texts: texts.len(),
        ..EmbedStats::default()
    };
    let EmbedPlan {
        mut out,
        jobs,
        pending,
        duplicates,
    } = plan_embedding(cache, tokenizer, texts, window, &mut stats)?;
    stats.windows = jobs.len();
    let total_tokens: usize = jobs.iter().map(|j| j.2).sum();
    let mut done_tokens = 0;
    // A text goes into the cache as soon as its last window is in, so an interrupted run
    // leaves every whole text it finished there.
    let mut windows = WindowSums::of(texts.len(), &jobs);
    let meter_before = embedder.service_meter().map(|m| m.counters());
    let slice_len = embedder.slice_hint().unwrap_or(options.slice).max(1);
    let result = (|| {
        for slice in jobs.chunks(slice_len) {
            let pieces: Vec<&str> = slice.iter().map(|j| j.1).collect();
            let t0 = Instant::now();
            // What arrived is kept even when part of the slice failed (a service's other
            // requests): every text whose windows are all in goes into the cache below, and
            // the failure is reported after.
            let (vectors, failure) = embedder.embed_keeping(&pieces);
            stats.model_seconds += t0.elapsed().as_secs_f64();
            if vectors.len() != pieces.len() {
                return Err(failure.unwrap_or(EmbedError::Count {
                    expected: pieces.len(),
                    got: vectors.len(),
                }));
            }
            for ((owner, _, n), v) in slice.iter().zip(vectors) {
                let Some(v) = v else { continue };
                done_tokens += n;
                if let Some(v) = windows.add(*owner, v) {
                    let key = text_key(texts[*owner]);
                    let tokens = pending.get(&key).map_or(0, |&(_, tokens)| tokens);
                    cache.insert(key, v.clone(), tokens);
                    out[*owner] = Some(v);
                }
            }
            if let Some(e) = failure {
                return Err(e);
            }
            if !progress(EmbedProgress {
                done_tokens,
                total_tokens,
            }) {
                return Err(EmbedError::Cancelled);
            }
        }
        Ok(())
    })();
    if let (Some(before), Some(meter)) = (meter_before, embedder.service_meter()) {
        stats.service = Some(meter.counters().since(&before));
    }
    result?;
    let vectors = every_vector(out, &duplicates)?;
    stats.total_seconds = started.elapsed().as_secs_f64();
    Ok((vectors, stats))
}

/// Every text's vector, in order: a duplicate gets its first occurrence's. `Err` when one is
/// missing.
fn every_vector(
    mut out: Vec<Option<Vec<f32>>>,
    duplicates: &[(usize, usize)],
) -> Result<Vec<Vec<f32>>, EmbedError> {
    for &(i, first) in duplicates {
        out[i] = out[first].clone();
    }
    let expected = out.len();
    out.into_iter()
        .map(|v| v.ok_or(EmbedError::Count { expected, got: 0 }))
        .collect()
}

/// The windows of each text summed as they arrive, until its last one is in.
struct WindowSums {
    /// Per text: the sum of its windows so far, and how many.
    sums: Vec<Option<(Vec<f32>, usize)>>,
    /// Per text: windows still to come.
    left: Vec<usize>,
}

impl WindowSums {
    /// Nothing in yet for `texts` texts, whose windows are `jobs` (owner, piece, tokens).
    fn of(texts: usize, jobs: &[(usize, &str, usize)]) -> Self {
        let mut left: Vec<usize> = vec![0; texts];
        for (owner, _, _) in jobs {
            left[*owner] += 1;
        }
        WindowSums {
            sums: vec![None; texts],
            left,
        }
    }

    /// One window of text `owner` is in; with its last one, the text's vector (the windows'
    /// normalised sum when there were several).
    fn add(&mut self, owner: usize, v: Vec<f32>) -> Option<Vec<f32>> {
        match &mut self.sums[owner] {
            Some((acc, count)) => {
                acc.iter_mut().zip(&v).for_each(|(a, b)| *a += b);
                *count += 1;
            }
            slot => *slot = Some((v, 1)),
        }
        self.left[owner] -= 1;
        if self.left[owner] != 0 {
            return None;
        }
        let (mut v, count) = self.sums[owner].take()?;
        if count > 1 {
            normalize(&mut v);
        }
        Some(v)
    }
}

/// Embed one question, windowing it like any other text if it is long. Not cached; a model that
/// marks questions (a query prefix) gets them marked.
pub fn embed_one(
    embedder: &mut dyn Embedder,
    tokenizer: &TokenCounter,
    text: &str,
) -> Result<Vec<f32>, EmbedError> {
    let window = embedder
        .max_tokens()
        .saturating_sub(tokenizer.special_tokens())
        .max(1);
    let offsets = tokenizer.offsets(text)?;
    let pieces: Vec<&str> = windows_that_fit(tokenizer, &offsets, text, window)?
        .into_iter()
        .map(|s| &text[s.start..s.end])
        .collect();
    let vectors = embedder.embed_queries(&pieces)?;
    let mut sum = vec![0f32; embedder.dim()];
    for v in &vectors {
        sum.iter_mut().zip(v).for_each(|(a, b)| *a += b);
    }
    if vectors.len() != pieces.len() || vectors.is_empty() {
        return Err(EmbedError::Count {
            expected: pieces.len(),
            got: vectors.len(),
        });
    }
    normalize(&mut sum);
    Ok(sum)
}

/// Scale a vector to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 1e-12 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(n: usize) -> TokenOffsets {
        TokenOffsets {
            starts: (0..n).map(|i| i * 2).collect(),
            ends: (0..n).map(|i| i * 2 + 1).collect(),
        }
    }

    /// Fails on its `fail_on`-th call, after answering the calls before it.
    struct FailingEmbedder {
        inner: testing::HashEmbedder,
        calls: usize,
        fail_on: usize,
    }

    impl Embedder for FailingEmbedder {
        fn identity(&self) -> &str {
            "failing"
        }
        fn dim(&self) -> usize {
            self.inner.dim()
        }
        fn max_tokens(&self) -> usize {
            self.inner.max_tokens()
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls += 1;
            if self.calls == self.fail_on {
                return Err(EmbedError::Model("the service went away".into()));
            }
            self.inner.embed(texts)
        }
    }

    #[test]
    fn an_interrupted_run_caches_exactly_the_texts_it_finished() {
        let tokenizer = TokenCounter::whitespace_for_tests();
        let dir = tempfile::tempdir().unwrap();
        let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 16);
        // Window 6 with 2 special tokens: 4 words per window. "long" takes 2 windows, which
        // the slice of 2 windows splits across the second and third calls.
        let long = "w1 w2 w3 w4 w5 w6";
        let texts = ["a b", "c d", "e f", long, "g h"];
        let mut embedder = FailingEmbedder {
            inner: testing::HashEmbedder::new(16, 6),
            calls: 0,
            fail_on: 3,
        };
        let run = embed_texts(
            &mut embedder,
            &tokenizer,
            &mut cache,
            &texts,
            EmbedOptions { slice: 2 },
            &mut |_| true,
        );
        assert!(run.is_err());
        // Calls 1 and 2 held windows of "a b", "c d", "e f" and the first half of `long`.
        for t in ["a b", "c d", "e f"] {
            assert!(cache.get(&text_key(t)).is_some(), "{t} was finished");
        }
        assert!(
            cache.get(&text_key(long)).is_none(),
            "half a text is never cached"
        );
        assert!(cache.get(&text_key("g h")).is_none());
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn short_text_is_one_window() {
        assert_eq!(plan_windows(&offsets(10), 20, 254), vec![Span::new(0, 20)]);
    }

    #[test]
    fn long_text_uses_fewest_even_windows() {
        // 300 tokens, window 254: two windows [0,254) and [46,300), overlap 208.
        let w = plan_windows(&offsets(300), 600, 254);
        assert_eq!(
            w,
            vec![Span::new(0, 2 * 253 + 1), Span::new(92, 2 * 299 + 1)]
        );
        // The middle token (150) lies inside both windows.
        assert!(w.iter().all(|s| s.start <= 300 && 300 < s.end));
        // 1,024 tokens: five windows of 254 with equal steps of 192.5 tokens (rounded).
        let w = plan_windows(&offsets(1024), 2048, 254);
        assert_eq!(w.len(), 5);
        let firsts: Vec<usize> = w.iter().map(|s| s.start / 2).collect();
        assert_eq!(firsts, vec![0, 193, 385, 578, 770]);
        assert_eq!(w[4].end, 2 * 1023 + 1);
    }
}
