//! What every server-backed vector store shares (Chroma in [`super::chroma`], Postgres with
//! pgvector in [`super::pgvector`]): the fingerprint of an index's vectors a stored collection
//! records, the spot check of stored vectors against the local ones before a collection is
//! reused, the id batches vectors are read and sent in, and the report of what attaching did.
//!
//! The local index (the usearch files, filled from the vector cache) is always the source; a
//! server's collection is a copy that is trusted only while its count, fingerprint and spot
//! checked vectors agree with it, and refilled otherwise.

use std::ops::Range;
use std::sync::Arc;

use serde::Serialize;

use super::vectors::DenseCollection;
use super::{IndexError, IndexSet};
use crate::corpus::Corpus;
use crate::layout::Layout;
use crate::settings::Settings;
pub use crate::spec::store::StoreKind;

/// Stored vectors compared with the local ones before a collection is reused.
pub const SPOT_CHECKS: usize = 8;

/// Largest difference allowed between a stored and a local vector component.
pub const SPOT_TOLERANCE: f32 = 1e-6;

/// A connected server that can take an index's dense search over: each store's client
/// implements it in the store's own folder, and `index::store::connect` opens the one the
/// settings name.
pub trait ServerStore: Send + Sync {
    /// Put `set`'s vectors on the server (reusing a collection that already holds exactly
    /// them) and move its dense search there. `laid` gives rows their text and metadata where
    /// the store keeps them; `progress(done, total)` counts vectors sent.
    fn attach(
        self: Arc<Self>,
        set: &mut IndexSet,
        laid: (&Corpus, &Layout),
        settings: &Settings,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<StoreSync, IndexError>;
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
    /// When reused: how many of its rows were read back and found equal to the index's (all
    /// of them for pgvector; a spot check of a few for Chroma, beside its count and
    /// fingerprint). 0 when uploaded.
    pub checked: usize,
    /// Why it was (re)filled, when it was.
    pub reason: Option<String>,
}

/// What attaching an index to a vector database server did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreSync {
    /// Which kind of server (`"chroma"`, `"pgvector"`).
    pub kind: StoreKind,
    /// The server, any password masked.
    pub url: String,
    /// The collections (Chroma: chunks, then seams; pgvector: one holding both kinds).
    pub collections: Vec<CollectionSync>,
    /// Seconds spent checking and uploading.
    pub seconds: f64,
}

impl IndexSet {
    /// The index folder's name, which names its collections on a server (`store` names the
    /// server in the error): the vectors must be in, and the index on disk.
    pub(super) fn remote_key(&self, store: &str) -> Result<String, IndexError> {
        if !self.dense_ready() {
            return Err(IndexError::Io {
                path: self.dir.clone(),
                message: format!("the vectors are not embedded yet; nothing to put in {store}"),
            });
        }
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|k| !k.is_empty())
            .ok_or_else(|| IndexError::Io {
                path: self.dir.clone(),
                message: "an index held only in memory has no key to name its collections".into(),
            })
    }
}

/// The id ranges `0..n` is read in, `batch` ids at a time.
pub fn batches(n: usize, batch: usize) -> impl Iterator<Item = Range<u32>> {
    let batch = batch.max(1);
    (0..n)
        .step_by(batch)
        .map(move |start| start as u32..(start + batch).min(n) as u32)
}

/// A fingerprint of the vectors of `parts` in order, each in id order, read a batch at a time:
/// what a stored collection is checked against. The first 32 hex digits of the BLAKE3 hash of
/// the dimension (u64, little-endian), then for each part its count (u64, little-endian) and
/// every component of every vector (f32, little-endian). Chroma keeps one part per collection;
/// a pgvector collection holds the chunks and then the seams.
pub fn fingerprint(
    dim: usize,
    parts: &[&dyn DenseCollection],
    batch: usize,
) -> Result<String, IndexError> {
    let mut h = blake3::Hasher::new();
    h.update(&(dim as u64).to_le_bytes());
    for local in parts {
        h.update(&(local.len() as u64).to_le_bytes());
        for ids in batches(local.len(), batch) {
            for v in local.vectors(ids)? {
                for x in v {
                    h.update(&x.to_le_bytes());
                }
            }
        }
    }
    Ok(h.finalize().to_hex()[..32].to_string())
}

/// Ids spread over `0..n` for a spot check: the first, the last and some between.
pub fn spot_ids(n: usize) -> Vec<u32> {
    if n == 0 {
        return Vec::new();
    }
    let mut ids: Vec<u32> = (0..SPOT_CHECKS)
        .map(|i| (i * (n - 1) / (SPOT_CHECKS - 1).max(1)) as u32)
        .collect();
    ids.dedup();
    ids
}

/// Why the `stored` vectors (id, vector) of a spot check do not match `local`'s, or `None` when
/// every one of `ids` came back equal within [`SPOT_TOLERANCE`]. `what` names the kind
/// (`vector`, `chunk vector`).
pub fn spot_mismatch(
    ids: &[u32],
    stored: &[(u32, Vec<f32>)],
    local: &dyn DenseCollection,
    what: &str,
) -> Result<Option<String>, IndexError> {
    if stored.len() != ids.len() {
        return Ok(Some("some records are missing".to_string()));
    }
    for (id, v) in stored {
        let mine = local.vectors(*id..*id + 1)?;
        let same = mine.first().is_some_and(|m| {
            v.len() == m.len()
                && v.iter()
                    .zip(m)
                    .all(|(a, b)| (a - b).abs() <= SPOT_TOLERANCE)
        });
        if !same {
            return Ok(Some(format!(
                "its stored {what} {id} differs from the index's"
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vectors::VectorIndex;

    #[test]
    fn spot_checks_cover_both_ends() {
        assert_eq!(spot_ids(0), Vec::<u32>::new());
        assert_eq!(spot_ids(1), vec![0]);
        let ids = spot_ids(100);
        assert_eq!((ids[0], *ids.last().unwrap()), (0, 99));
        assert_eq!(ids.len(), SPOT_CHECKS);
    }

    #[test]
    fn the_fingerprint_follows_every_component_and_every_part() {
        let a = vec![vec![0.1, 0.2], vec![0.3, 0.4]];
        let mut b = a.clone();
        b[1][1] = 0.400_001;
        let index = |v: &[Vec<f32>]| VectorIndex::build(2, v).unwrap();
        let of = |v: &[Vec<f32>], batch| fingerprint(2, &[&index(v)], batch).unwrap();
        assert_ne!(of(&a, 1), of(&b, 1));
        assert_eq!(of(&a, 1), of(&a.clone(), 2), "the same however it is read");
        // Where the chunks end and the seams start is part of it.
        let (one, two) = (index(&a[..1]), index(&a[1..]));
        let (none, both) = (index(&[]), index(&a));
        assert_ne!(
            fingerprint(2, &[&one, &two], 1).unwrap(),
            fingerprint(2, &[&both, &none], 1).unwrap()
        );
    }

    #[test]
    fn a_spot_check_names_the_first_vector_that_differs() {
        let local = VectorIndex::build(2, &[vec![1.0, 0.0], vec![0.0, 1.0]]).unwrap();
        let ids = [0, 1];
        let good = vec![(0, vec![1.0, 0.0]), (1, vec![0.0, 1.0])];
        assert_eq!(spot_mismatch(&ids, &good, &local, "vector").unwrap(), None);
        let bad = vec![(0, vec![1.0, 0.0]), (1, vec![0.0, 0.5])];
        let why = spot_mismatch(&ids, &bad, &local, "seam vector").unwrap();
        assert_eq!(
            why.as_deref(),
            Some("its stored seam vector 1 differs from the index's")
        );
        let short = spot_mismatch(&ids, &good[..1], &local, "vector").unwrap();
        assert_eq!(short.as_deref(), Some("some records are missing"));
    }
}

/// A vector-store server's failure, whichever store it is: each store's folder turns its own
/// error into this (`impl From<ChromaError> for IndexError`), so the index names no store.
#[derive(Debug)]
pub struct ServerError(pub Box<dyn std::error::Error + Send + Sync>);

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}
