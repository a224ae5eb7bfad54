//! The model side of an evaluation: the embedder, its tokenizer and the shared vector cache.

use super::contextual::ContextWriter;
use crate::embed::cache::VectorCache;
use crate::embed::{EmbedOptions, Embedder};
use crate::session::Engine;
use crate::tokens::TokenCounter;

/// The model side of an evaluation: an embedder, its tokenizer and the slice size.
pub struct Embedding<'a> {
    /// The embedder (the real model in the app; a test embedder in unit tests).
    pub embedder: &'a mut dyn Embedder,
    /// The embedder's tokenizer.
    pub tokenizer: &'a TokenCounter,
    /// Texts per call into the model.
    pub options: EmbedOptions,
    /// The vector cache every strategy shares, so no text is embedded twice.
    pub cache: &'a mut VectorCache,
    /// The language model that writes contextual retrieval's contexts (None: contextual
    /// strategies are refused, saying what they need).
    pub contexts: Option<&'a mut ContextWriter>,
}

impl<'a> Embedding<'a> {
    /// The engine's model and tokenizer with `cache` (see [`Engine::vector_cache`]).
    pub fn of(engine: &'a mut Engine, cache: &'a mut VectorCache) -> Embedding<'a> {
        Embedding {
            embedder: &mut engine.embedder,
            tokenizer: &engine.tokenizer,
            options: EmbedOptions {
                slice: engine.settings.embed_slice,
            },
            cache,
            contexts: None,
        }
    }
}
