//! Dense vectors of one collection (chunks or seams) in a usearch index on disk.
//!
//! Search is exact while the collection is small enough for that to be quick, so an explorer
//! shows true ranks; above the limit it uses HNSW and says so.

use std::ops::Range;
use std::path::Path;

use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// An error from usearch, with what was being done.
#[derive(Debug, thiserror::Error)]
#[error("vector index {action}: {message}")]
pub struct VectorError {
    /// What was being done.
    pub action: &'static str,
    /// usearch's message.
    pub message: String,
}

fn err<E: std::fmt::Display>(action: &'static str) -> impl FnOnce(E) -> VectorError {
    move |e| VectorError {
        action,
        message: e.to_string(),
    }
}

/// How a search was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// Every vector compared: true ranks.
    Exact,
    /// HNSW graph search: ranks may differ from the true ones.
    Approximate,
    /// The vectors are still being embedded: no dense search yet, keyword lists only (the
    /// screen shows a corpus this way until its vectors arrive).
    Pending,
}

impl SearchMode {
    /// How the mode reads in a report line: `exact`, `approximate (HNSW)`, `pending (keyword
    /// lists only)`.
    pub fn describe(self) -> &'static str {
        match self {
            SearchMode::Exact => "exact",
            SearchMode::Approximate => "approximate (HNSW)",
            SearchMode::Pending => "pending (keyword lists only)",
        }
    }
}

/// One collection's dense search (chunks or seams), wherever its vectors live: the shape every
/// store adapter fills (the embedded usearch files here, a Chroma server in
/// [`super::chroma`]). Ids are `0..len`, the collection's chunk or seam ids.
pub trait DenseCollection: std::fmt::Debug + Send + Sync {
    /// Number of vectors.
    fn len(&self) -> usize;

    /// Whether the collection holds nothing.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `count` nearest ids to `query` with their cosine similarity, best first, ties by id.
    /// `mode` says whether an embedded index compares every vector or walks its graph; a
    /// server searches as it is configured to.
    fn search(
        &self,
        query: &[f32],
        count: usize,
        mode: SearchMode,
    ) -> Result<Vec<(u32, f32)>, super::IndexError>;

    /// The stored vectors of `ids`, in id order.
    fn vectors(&self, ids: Range<u32>) -> Result<Vec<Vec<f32>>, super::IndexError>;

    /// How a server would run the search of `count` nearest to `query`, in its own words (a
    /// database's query plan), where it can say; `None` for a store without a planner.
    fn explain(&self, _query: &[f32], _count: usize) -> Result<Option<String>, super::IndexError> {
        Ok(None)
    }
}

/// Cosine-distance vectors keyed `0..n`.
pub struct VectorIndex {
    index: Index,
    dim: usize,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VectorIndex({} x {})", self.len(), self.dim)
    }
}

fn options(dim: usize) -> IndexOptions {
    IndexOptions {
        dimensions: dim,
        metric: MetricKind::Cos,
        quantization: ScalarKind::F32,
        ..IndexOptions::default()
    }
}

impl VectorIndex {
    /// Build an index of `vectors` (key `i` is `vectors[i]`).
    pub fn build(dim: usize, vectors: &[Vec<f32>]) -> Result<VectorIndex, VectorError> {
        let index = Index::new(&options(dim)).map_err(err("create"))?;
        index
            .reserve(vectors.len().max(1))
            .map_err(err("reserve"))?;
        for (i, v) in vectors.iter().enumerate() {
            if v.len() != dim {
                return Err(VectorError {
                    action: "add",
                    message: format!("vector {i} has {} dimensions, expected {dim}", v.len()),
                });
            }
            index.add(i as u64, v).map_err(err("add"))?;
        }
        Ok(VectorIndex { index, dim })
    }

    /// Save to `path`: serialised in memory, then written by std, so a failed write says why
    /// (a full disk with the space left) where usearch's own file writer says only "Failed to
    /// serialize into stream".
    pub fn save(&self, path: &Path) -> Result<(), VectorError> {
        let mut bytes = vec![0u8; self.index.serialized_length()];
        self.index.save_to_buffer(&mut bytes).map_err(err("save"))?;
        std::fs::write(path, &bytes).map_err(|e| VectorError {
            action: "save",
            message: super::disk::describe(&e, path),
        })
    }

    /// Load from `path`, checking its dimensions and size.
    pub fn load(path: &Path, dim: usize, expected_len: usize) -> Result<VectorIndex, VectorError> {
        let index = Index::new(&options(dim)).map_err(err("create"))?;
        index.load(&path.to_string_lossy()).map_err(err("load"))?;
        if index.dimensions() != dim || index.size() != expected_len {
            return Err(VectorError {
                action: "load",
                message: format!(
                    "{} holds {} vectors of {} dimensions, expected {expected_len} of {dim}",
                    path.display(),
                    index.size(),
                    index.dimensions()
                ),
            });
        }
        Ok(VectorIndex { index, dim })
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.index.size()
    }

    /// Whether the index holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stored vector of `key`.
    pub fn vector(&self, key: u32) -> Result<Vec<f32>, VectorError> {
        let mut v = vec![0f32; self.dim];
        let found = self
            .index
            .get(u64::from(key), &mut v)
            .map_err(err("read"))?;
        if found == 0 {
            return Err(VectorError {
                action: "read",
                message: format!("no vector {key}"),
            });
        }
        Ok(v)
    }

    /// The `count` nearest keys to `query` with cosine similarity, best first, ties by key.
    pub fn search(
        &self,
        query: &[f32],
        count: usize,
        mode: SearchMode,
    ) -> Result<Vec<(u32, f32)>, VectorError> {
        if count == 0 || self.is_empty() {
            return Ok(Vec::new());
        }
        let count = count.min(self.len());
        let matches = match mode {
            SearchMode::Exact => self.index.exact_search(query, count),
            SearchMode::Approximate => self.index.search(query, count),
            SearchMode::Pending => return Ok(Vec::new()),
        }
        .map_err(err("search"))?;
        let mut hits: Vec<(u32, f32)> = matches
            .keys
            .iter()
            .zip(&matches.distances)
            .map(|(&k, &d)| (k as u32, 1.0 - d))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(hits)
    }
}

impl DenseCollection for VectorIndex {
    fn len(&self) -> usize {
        VectorIndex::len(self)
    }

    fn search(
        &self,
        query: &[f32],
        count: usize,
        mode: SearchMode,
    ) -> Result<Vec<(u32, f32)>, super::IndexError> {
        Ok(VectorIndex::search(self, query, count, mode)?)
    }

    fn vectors(&self, ids: Range<u32>) -> Result<Vec<Vec<f32>>, super::IndexError> {
        Ok(ids
            .map(|id| self.vector(id))
            .collect::<Result<Vec<_>, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_search_finds_true_neighbours_and_round_trips() {
        let vs = vec![
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.6, 0.8, 0.0],
        ];
        let idx = VectorIndex::build(3, &vs).unwrap();
        let hits = idx.search(&[1.0, 0.1, 0.0], 3, SearchMode::Exact).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 2, 1]);
        assert!((hits[0].1 - 0.995).abs() < 0.01);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v.usearch");
        idx.save(&p).unwrap();
        // A full disk is said as one, with the space left.
        let full = idx.save(Path::new("/dev/full")).unwrap_err().to_string();
        assert!(
            full.starts_with("vector index save: the disk is full ("),
            "{full}"
        );
        let back = VectorIndex::load(&p, 3, 3).unwrap();
        assert_eq!(
            back.search(&[0.0, 1.0, 0.0], 1, SearchMode::Exact).unwrap()[0].0,
            1
        );
        assert!(VectorIndex::load(&p, 3, 4).is_err());
        assert_eq!(back.vectors(0..3).unwrap(), vs, "stored exactly");
    }

    #[test]
    fn approximate_search_finds_an_obvious_neighbour() {
        let vs: Vec<Vec<f32>> = (0..200)
            .map(|i| {
                let a = i as f32 * 0.03;
                vec![a.cos(), a.sin(), 0.1]
            })
            .collect();
        let idx = VectorIndex::build(3, &vs).unwrap();
        let exact = idx.search(&vs[50], 5, SearchMode::Exact).unwrap();
        let approx = idx.search(&vs[50], 5, SearchMode::Approximate).unwrap();
        assert_eq!(exact[0].0, 50);
        assert_eq!(approx[0].0, 50);
        assert_eq!(approx.len(), 5);
    }
}
