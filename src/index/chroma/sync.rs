//! Collections on the server: filling and checking them, searching them, and moving an index's
//! dense search onto them.

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};

use super::{ChromaClient, CollectionInfo, LAYOUT_VERSION};
use crate::index::remote::{
    CollectionSync, ServerStore, StoreKind, StoreSync, batches, fingerprint, spot_ids,
    spot_mismatch,
};
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
    spot_mismatch(&ids, &stored, local, "vector")
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
        json!(fingerprint(dim, &[local], batch)?),
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
        checked: if reason.is_some() {
            0
        } else {
            spot_ids(n).len()
        },
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
        let key = self.remote_key("Chroma")?;
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
        self.store = DenseStore::Server {
            kind: StoreKind::Chroma,
            url: client.url.clone(),
            collections: vec![chunk_name, seam_name],
        };
        Ok(StoreSync {
            kind: StoreKind::Chroma,
            url: client.url.clone(),
            collections: vec![chunk_sync, seam_sync],
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

impl ServerStore for ChromaClient {
    fn attach(
        self: Arc<Self>,
        set: &mut IndexSet,
        _laid: (&crate::corpus::Corpus, &crate::layout::Layout),
        settings: &crate::settings::Settings,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<StoreSync, IndexError> {
        set.attach_chroma(&self, &settings.chroma_prefix, progress)
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
}
