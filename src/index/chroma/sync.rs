//! Collections on the server: filling and checking them, searching them, and moving an index's
//! dense search onto them.

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

use super::{ChromaClient, CollectionInfo, LAYOUT_VERSION, SPOT_CHECKS, SPOT_TOLERANCE};
use crate::index::vectors::{DenseCollection, SearchMode};
use crate::index::{DenseStore, IndexError, IndexSet};
use crate::settings::check_chroma_prefix;

/// One collection of vectors in Chroma, searched over HTTP.
#[derive(Debug)]
pub struct ChromaCollection {
    client: Arc<ChromaClient>,
    id: String,
    name: String,
    len: usize,
}

impl ChromaCollection {
    /// The collection's name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl DenseCollection for ChromaCollection {
    fn len(&self) -> usize {
        self.len
    }

    fn search(
        &self,
        query: &[f32],
        count: usize,
        _mode: SearchMode,
    ) -> Result<Vec<(u32, f32)>, IndexError> {
        if count == 0 || self.len == 0 {
            return Ok(Vec::new());
        }
        let collection = (self.id.as_str(), self.name.as_str(), self.len);
        Ok(self.client.query(collection, query, count.min(self.len))?)
    }

    fn vectors(&self, ids: Range<u32>) -> Result<Vec<Vec<f32>>, IndexError> {
        let wanted: Vec<u32> = ids.clone().collect();
        let mut got = Vec::with_capacity(wanted.len());
        for batch in wanted.chunks(self.client.max_batch.max(1)) {
            got.extend(self.client.stored_vectors(&self.id, &self.name, batch)?);
        }
        got.sort_by_key(|(id, _)| *id);
        if got.iter().map(|(id, _)| *id).ne(ids) {
            return Err(self
                .client
                .malformed(
                    &format!("read vectors of {}", self.name),
                    "records are missing",
                )
                .into());
        }
        Ok(got.into_iter().map(|(_, v)| v).collect())
    }
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
    /// Why it was (re)filled, when it was.
    pub reason: Option<String>,
}

/// What attaching an index to a Chroma server did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreSync {
    /// The server.
    pub url: String,
    /// Chunks, then seams.
    pub collections: Vec<CollectionSync>,
    /// Seconds spent checking and uploading.
    pub seconds: f64,
}

/// The id ranges `0..n` is read in, `batch` ids at a time.
fn batches(n: usize, batch: usize) -> impl Iterator<Item = Range<u32>> {
    let batch = batch.max(1);
    (0..n)
        .step_by(batch)
        .map(move |start| start as u32..(start + batch).min(n) as u32)
}

/// A fingerprint of a collection's vectors in id order, read a batch at a time: what a stored
/// collection is checked against.
fn fingerprint(
    dim: usize,
    local: &dyn DenseCollection,
    batch: usize,
) -> Result<String, IndexError> {
    let mut h = blake3::Hasher::new();
    h.update(&(dim as u64).to_le_bytes());
    h.update(&(local.len() as u64).to_le_bytes());
    for ids in batches(local.len(), batch) {
        for v in local.vectors(ids)? {
            for x in v {
                h.update(&x.to_le_bytes());
            }
        }
    }
    Ok(h.finalize().to_hex()[..32].to_string())
}

/// Ids spread over `0..n` for a spot check: the first, the last and some between.
fn spot_ids(n: usize) -> Vec<u32> {
    if n == 0 {
        return Vec::new();
    }
    let mut ids: Vec<u32> = (0..SPOT_CHECKS)
        .map(|i| (i * (n - 1) / (SPOT_CHECKS - 1).max(1)) as u32)
        .collect();
    ids.dedup();
    ids
}

/// Why a stored collection cannot be reused as it holds `local`'s vectors, or `None` when it can.
fn stale_because(
    client: &ChromaClient,
    (name, found): (&str, &CollectionInfo),
    expected: &serde_json::Map<String, Value>,
    local: &dyn DenseCollection,
) -> Result<Option<String>, IndexError> {
    for (key, value) in expected {
        if found.metadata.get(key) != Some(value) {
            return Ok(Some(format!(
                "its metadata `{key}` does not match these vectors"
            )));
        }
    }
    let count = client.count(&found.id, name)?;
    if count != local.len() {
        return Ok(Some(format!(
            "it holds {count} records, the index has {}",
            local.len()
        )));
    }
    let ids = spot_ids(local.len());
    let stored = client.stored_vectors(&found.id, name, &ids)?;
    if stored.len() != ids.len() {
        return Ok(Some("some records are missing".to_string()));
    }
    for (id, v) in stored {
        let mine = local.vectors(id..id + 1)?;
        let same = mine.first().is_some_and(|m| {
            v.len() == m.len()
                && v.iter()
                    .zip(m)
                    .all(|(a, b)| (a - b).abs() <= SPOT_TOLERANCE)
        });
        if !same {
            return Ok(Some(format!(
                "its stored vector {id} differs from the index's"
            )));
        }
    }
    Ok(None)
}

/// Put `local`'s vectors (ids `0..n`) into the collection `name`, reusing a stored one that
/// verifies; vectors are read and sent a batch at a time.
fn sync_collection(
    client: &Arc<ChromaClient>,
    name: &str,
    (dim, local): (usize, &dyn DenseCollection),
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(ChromaCollection, CollectionSync), IndexError> {
    let n = local.len();
    let batch = client.max_batch.max(1);
    let mut expected = serde_json::Map::new();
    expected.insert("seamscope_layout".into(), json!(LAYOUT_VERSION));
    expected.insert("seamscope_dim".into(), json!(dim as i64));
    expected.insert("seamscope_count".into(), json!(n as i64));
    expected.insert(
        "seamscope_vectors".into(),
        json!(fingerprint(dim, local, batch)?),
    );
    let stale = match client.get_collection(name)? {
        Some(found) => match stale_because(client, (name, &found), &expected, local)? {
            None => Ok(found.id),
            Some(reason) => {
                client.delete_collection(name)?;
                Err(reason)
            }
        },
        None => Err("the server had no such collection".to_string()),
    };
    let (id, reason) = match stale {
        Ok(id) => (id, None),
        Err(reason) => {
            let info = client.create_collection(name, Value::Object(expected))?;
            for ids in batches(n, batch) {
                let first = ids.start as usize;
                let done = ids.end as usize;
                client.add(&info.id, name, first, &local.vectors(ids)?)?;
                progress(done, n);
            }
            let count = client.count(&info.id, name)?;
            if count != n {
                return Err(client
                    .malformed(
                        &format!("fill collection {name}"),
                        format!("it holds {count} records after {n} were added"),
                    )
                    .into());
            }
            (info.id, Some(reason))
        }
    };
    let sync = CollectionSync {
        name: name.to_string(),
        vectors: n,
        uploaded: reason.is_some(),
        reason,
    };
    let collection = ChromaCollection {
        client: Arc::clone(client),
        id,
        name: name.to_string(),
        len: n,
    };
    Ok((collection, sync))
}

/// The collection names of an index: `<prefix>-<key>-chunks` and `-seams`.
pub fn collection_names(prefix: &str, key: &str) -> [String; 2] {
    ["chunks", "seams"].map(|kind| format!("{prefix}-{key}-{kind}"))
}

impl IndexSet {
    /// Move this index's dense search to Chroma: the chunk and seam vectors go into two
    /// collections named after the index folder (`prefix-key-chunks`, `prefix-key-seams`),
    /// reused when they already hold exactly these vectors, and every later search of this set
    /// asks the server. Keyword indexes stay local. `progress(done, total)` counts vectors
    /// uploaded.
    pub fn attach_chroma(
        &mut self,
        client: &Arc<ChromaClient>,
        prefix: &str,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<StoreSync, IndexError> {
        let started = Instant::now();
        check_chroma_prefix(prefix).map_err(|message| IndexError::Io {
            path: self.dir.clone(),
            message,
        })?;
        if !self.dense_ready() {
            return Err(IndexError::Io {
                path: self.dir.clone(),
                message: "the vectors are not embedded yet; nothing to put in Chroma".into(),
            });
        }
        let key = self
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|k| !k.is_empty())
            .ok_or_else(|| IndexError::Io {
                path: self.dir.clone(),
                message: "an index held only in memory has no key to name its collections".into(),
            })?;
        let [chunk_name, seam_name] = collection_names(prefix, &key);
        let dim = self.manifest.dim;
        let total = self.chunk_vectors.len() + self.seam_vectors.len();
        let offset = self.chunk_vectors.len();
        let (chunks, chunk_sync) = sync_collection(
            client,
            &chunk_name,
            (dim, self.chunk_vectors.as_ref()),
            &mut |d, _| progress(d, total),
        )?;
        let (seams, seam_sync) = sync_collection(
            client,
            &seam_name,
            (dim, self.seam_vectors.as_ref()),
            &mut |d, _| progress(offset + d, total),
        )?;
        self.chunk_vectors = Box::new(chunks);
        self.seam_vectors = Box::new(seams);
        // Chroma always searches its HNSW graph.
        self.search_mode = SearchMode::Approximate;
        self.store = DenseStore::Chroma {
            url: client.url.clone(),
            collections: [chunk_name, seam_name],
        };
        Ok(StoreSync {
            url: client.url.clone(),
            collections: vec![chunk_sync, seam_sync],
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_are_named_after_the_prefix_and_the_index() {
        assert_eq!(
            collection_names("p", "abc"),
            ["p-abc-chunks".to_string(), "p-abc-seams".to_string()]
        );
    }

    #[test]
    fn spot_checks_cover_both_ends() {
        assert_eq!(spot_ids(0), Vec::<u32>::new());
        assert_eq!(spot_ids(1), vec![0]);
        let ids = spot_ids(100);
        assert_eq!((ids[0], *ids.last().unwrap()), (0, 99));
        assert_eq!(ids.len(), SPOT_CHECKS);
    }

    #[test]
    fn the_fingerprint_follows_every_component() {
        let a = vec![vec![0.1, 0.2], vec![0.3, 0.4]];
        let mut b = a.clone();
        b[1][1] = 0.400_001;
        let of = |v: &[Vec<f32>], batch| {
            let index = crate::index::vectors::VectorIndex::build(2, v).unwrap();
            fingerprint(2, &index, batch).unwrap()
        };
        assert_ne!(of(&a, 1), of(&b, 1));
        assert_eq!(of(&a, 1), of(&a.clone(), 2), "the same however it is read");
    }
}
