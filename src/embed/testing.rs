//! A deterministic stand-in embedder for unit tests of pure logic. Never used by the app.

use super::{EmbedError, Embedder};

/// Hashes character trigrams of each word into a small vector: similar words give similar
/// vectors, with no model. For tests of caching, indexing and plumbing only.
#[derive(Debug, Clone)]
pub struct HashEmbedder {
    dim: usize,
    max_tokens: usize,
    /// Texts embedded so far (each window counts once): lets tests prove cache hits.
    pub calls: usize,
}

impl HashEmbedder {
    /// A test embedder of `dim` dimensions with a window of `max_tokens`.
    pub fn new(dim: usize, max_tokens: usize) -> Self {
        HashEmbedder {
            dim,
            max_tokens,
            calls: 0,
        }
    }
}

impl Embedder for HashEmbedder {
    fn identity(&self) -> &str {
        "test-hash-embedder"
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn max_tokens(&self) -> usize {
        self.max_tokens
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.calls += texts.len();
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; self.dim];
                for word in t.split_whitespace() {
                    let w: Vec<char> = word.to_lowercase().chars().collect();
                    for tri in w.windows(3.min(w.len())) {
                        let s: String = tri.iter().collect();
                        let h = blake3::hash(s.as_bytes());
                        let idx =
                            u64::from_le_bytes(h.as_bytes()[..8].try_into().unwrap_or([0; 8]));
                        v[(idx % self.dim as u64) as usize] += 1.0;
                    }
                }
                super::normalize(&mut v);
                v
            })
            .collect())
    }
}

#[cfg(test)]
pub mod loopback;
