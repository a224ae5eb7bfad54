//! An in-memory search collection for comparing strategies: exact dense search and BM25.
//!
//! The app's own indexes live on disk (`index/`); an evaluation builds one of these per strategy
//! from vectors served by the shared vector cache, so no text is embedded twice.

use crate::embed::cosine;
use crate::index::keywords::{KeywordError, KeywordIndex};

/// Vectors and a BM25 index over the same entries, numbered `0..n`.
pub struct Collection {
    vectors: Vec<Vec<f32>>,
    keywords: KeywordIndex,
}

impl std::fmt::Debug for Collection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Collection({} entries)", self.vectors.len())
    }
}

impl Collection {
    /// A collection of `texts` with their `vectors` (same order).
    pub fn build(texts: &[&str], vectors: Vec<Vec<f32>>) -> Result<Collection, KeywordError> {
        Ok(Collection {
            keywords: KeywordIndex::build_in_ram(texts)?,
            vectors,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether the collection is empty.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// Entry `i`'s vector.
    pub fn vector(&self, i: usize) -> Option<&[f32]> {
        self.vectors.get(i).map(Vec::as_slice)
    }

    /// The `depth` entries nearest to `query` by cosine, exactly; ties by entry number.
    pub fn dense(&self, query: &[f32], depth: usize) -> Vec<(u32, f32)> {
        let mut hits: Vec<(u32, f32)> = self
            .vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32, cosine(query, v)))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(depth);
        hits
    }

    /// The `depth` best entries for `question` by BM25.
    pub fn keywords(&self, question: &str, depth: usize) -> Result<Vec<(u32, f32)>, KeywordError> {
        self.keywords.search(question, depth)
    }
}
