//! The vector cache: every text ever embedded with one model, keyed by a hash of the text.
//!
//! One file per model identity, checked by a trailing hash and written atomically, so a damaged
//! file is detected and rebuilt, never trusted. Saves take a file lock and merge what is on disk
//! first, so two processes embedding at once both keep their vectors.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Version 2 stores each text's token count beside its vector (so a cache hit needs no
/// tokenizing); a version-1 file reads as damaged and is rebuilt.
const MAGIC: &[u8; 8] = b"SSVEC002";

/// A text's cache key: the blake3 hash of its bytes.
pub type TextKey = [u8; 32];

/// The key of a text: its blake3 hash. A text with a run of more than 100 characters without
/// whitespace is keyed apart (the hash of a tag and the text): before over-long words were cut
/// for WordPiece ([`crate::tokens::bound_long_words`]) such a word was embedded as one `[UNK]`,
/// and a cache written then must not serve that vector. Every other key is unchanged, so the
/// vectors of ordinary text stay cached.
pub fn text_key(text: &str) -> TextKey {
    let long_run = text
        .split_whitespace()
        .any(|w| w.len() > 100 && w.chars().count() > 100);
    if long_run {
        let mut h = blake3::Hasher::new();
        h.update(b"seamscope: words over 100 characters read in pieces\0");
        h.update(text.as_bytes());
        return *h.finalize().as_bytes();
    }
    *blake3::hash(text.as_bytes()).as_bytes()
}

/// Vectors by text hash for one model, backed by one file.
#[derive(Debug)]
pub struct VectorCache {
    path: PathBuf,
    dim: usize,
    vectors: HashMap<TextKey, (Vec<f32>, u32)>,
    dirty: bool,
}

/// How opening the cache went.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CacheOpen {
    /// Not opened: a verified index was reopened and needed no vectors from the cache.
    NotOpened,
    /// No cache file yet.
    New,
    /// The file was read and verified.
    Loaded {
        /// Vectors in it.
        entries: usize,
    },
    /// The file was damaged and is ignored; it will be rewritten.
    Damaged {
        /// What was wrong.
        reason: String,
    },
}

impl VectorCache {
    /// The cache file for `identity` under `cache_dir`.
    pub fn path_for(cache_dir: &Path, identity: &str) -> PathBuf {
        let name = blake3::hash(identity.as_bytes()).to_hex();
        cache_dir
            .join("vectors")
            .join(format!("{}.bin", &name[..24]))
    }

    /// Open (or start) the cache of `embedder` under `cache_dir`.
    pub fn for_model(cache_dir: &Path, embedder: &dyn super::Embedder) -> (VectorCache, CacheOpen) {
        Self::open(
            Self::path_for(cache_dir, embedder.identity()),
            embedder.dim(),
        )
    }

    /// Open (or start) the cache at `path` for vectors of `dim` dimensions.
    pub fn open(path: PathBuf, dim: usize) -> (VectorCache, CacheOpen) {
        let mut cache = VectorCache {
            path,
            dim,
            vectors: HashMap::new(),
            dirty: false,
        };
        let state = match std::fs::read(&cache.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => CacheOpen::New,
            Err(e) => CacheOpen::Damaged {
                reason: format!("unreadable: {e}"),
            },
            Ok(bytes) => match decode(&bytes, dim) {
                Ok(v) => {
                    cache.vectors = v;
                    CacheOpen::Loaded {
                        entries: cache.vectors.len(),
                    }
                }
                Err(reason) => {
                    cache.dirty = true;
                    CacheOpen::Damaged { reason }
                }
            },
        };
        (cache, state)
    }

    /// The vector of a text and the text's token count, if cached.
    pub fn get(&self, key: &TextKey) -> Option<(&[f32], usize)> {
        self.vectors
            .get(key)
            .map(|(v, tokens)| (v.as_slice(), *tokens as usize))
    }

    /// Remember a text's vector and token count.
    pub fn insert(&mut self, key: TextKey, vector: Vec<f32>, tokens: usize) {
        debug_assert_eq!(vector.len(), self.dim);
        self.vectors.insert(key, (vector, tokens as u32));
        self.dirty = true;
    }

    /// Number of cached vectors.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// The file behind the cache.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock file that serialises saves of this cache between processes.
    fn lock_path(&self) -> PathBuf {
        self.path.with_extension("lock")
    }

    /// Write the cache if it changed: to a temporary file first, then renamed over the old one.
    ///
    /// Under an exclusive lock, the file on disk is read again and every vector another process
    /// saved since this one opened it is kept (a save without this lost the first writer's work).
    pub fn save(&mut self) -> std::io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let lock = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.lock_path())?;
        // Released when `lock` is dropped at the end of this function.
        lock.lock()?;
        if let Ok(bytes) = std::fs::read(&self.path)
            && let Ok(on_disk) = decode(&bytes, self.dim)
        {
            for (key, entry) in on_disk {
                self.vectors.entry(key).or_insert(entry);
            }
        }
        self.write()?;
        drop(lock);
        Ok(())
    }

    /// Write the cache as it is in memory (the caller holds the lock): to a temporary file,
    /// then renamed over the old one.
    fn write(&mut self) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut buf = Vec::with_capacity(24 + self.vectors.len() * (36 + 4 * self.dim) + 32);
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&(self.dim as u32).to_le_bytes());
        buf.extend_from_slice(&(self.vectors.len() as u64).to_le_bytes());
        let mut keys: Vec<&TextKey> = self.vectors.keys().collect();
        keys.sort();
        for key in keys {
            let (vector, tokens) = &self.vectors[key];
            buf.extend_from_slice(key);
            buf.extend_from_slice(&tokens.to_le_bytes());
            for x in vector {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = blake3::hash(&buf);
        buf.extend_from_slice(sum.as_bytes());
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&buf)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&self.path).map_err(|e| e.error)?;
        self.dirty = false;
        Ok(())
    }
}

/// The texts of one cache file, read for `seamscope cache`: its vector length and every key.
#[derive(Debug)]
pub struct CacheFileKeys {
    /// Vector length.
    pub dim: usize,
    /// The key of every cached text.
    pub keys: Vec<TextKey>,
}

/// Read the keys of the cache file at `path` (any vector length); why not, if it is damaged.
pub fn read_keys(path: &Path) -> Result<CacheFileKeys, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("unreadable: {e}"))?;
    let dim = file_dim(&bytes)?;
    let map = decode(&bytes, dim)?;
    Ok(CacheFileKeys {
        dim,
        keys: map.into_keys().collect(),
    })
}

/// What pruning one cache file removed (or would remove).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PruneCount {
    /// Texts kept.
    pub kept: usize,
    /// Texts removed.
    pub removed: usize,
    /// The file's size before, in bytes.
    pub bytes_before: u64,
    /// Its size after (the same as before on a dry run's estimate of what stays).
    pub bytes_after: u64,
}

/// Remove from the cache file at `path` every text `keep` refuses, under the cache's lock so no
/// save interleaves, written to a temporary file and renamed over it. With `dry_run`, only count.
/// A damaged file is left alone (its reason is the error).
pub fn prune_file(
    path: &Path,
    keep: &dyn Fn(&TextKey) -> bool,
    dry_run: bool,
) -> Result<PruneCount, String> {
    let lock = (!dry_run)
        .then(|| {
            std::fs::File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path.with_extension("lock"))
        })
        .transpose()
        .map_err(|e| format!("cannot lock: {e}"))?;
    if let Some(lock) = &lock {
        lock.lock().map_err(|e| format!("cannot lock: {e}"))?;
    }
    let bytes = std::fs::read(path).map_err(|e| format!("unreadable: {e}"))?;
    let dim = file_dim(&bytes)?;
    let mut map = decode(&bytes, dim)?;
    let before = map.len();
    map.retain(|key, _| keep(key));
    let record = 36 + 4 * dim as u64;
    let count = PruneCount {
        kept: map.len(),
        removed: before - map.len(),
        bytes_before: bytes.len() as u64,
        bytes_after: 20 + map.len() as u64 * record + 32,
    };
    if dry_run || count.removed == 0 {
        return Ok(count);
    }
    let mut cache = VectorCache {
        path: path.to_path_buf(),
        dim,
        vectors: map,
        dirty: true,
    };
    cache.write().map_err(|e| format!("cannot write: {e}"))?;
    Ok(count)
}

/// The vector length a cache file's header gives.
fn file_dim(bytes: &[u8]) -> Result<usize, String> {
    if bytes.len() < 20 + 32 || &bytes[..8] != MAGIC {
        return Err("not a seamscope vector cache (bad header) or an older format".into());
    }
    Ok(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize)
}

fn decode(bytes: &[u8], dim: usize) -> Result<HashMap<TextKey, (Vec<f32>, u32)>, String> {
    if bytes.len() >= 8 && bytes[..5] == MAGIC[..5] && bytes[..8] != MAGIC[..] {
        return Err("written in an older format; its vectors are embedded again once".into());
    }
    if bytes.len() < 20 + 32 || &bytes[..8] != MAGIC {
        return Err("not a seamscope vector cache (bad header)".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if blake3::hash(body).as_bytes() != sum {
        return Err("checksum mismatch (truncated or corrupted)".into());
    }
    let file_dim = u32::from_le_bytes([body[8], body[9], body[10], body[11]]) as usize;
    if file_dim != dim {
        return Err(format!(
            "holds {file_dim}-d vectors, the model gives {dim}-d"
        ));
    }
    let mut count_bytes = [0u8; 8];
    count_bytes.copy_from_slice(&body[12..20]);
    let count = u64::from_le_bytes(count_bytes) as usize;
    let record = 36 + 4 * dim;
    if body.len() != 20 + count.saturating_mul(record) {
        return Err("length does not match its entry count".into());
    }
    let mut map = HashMap::with_capacity(count);
    for rec in body[20..].chunks_exact(record) {
        let mut key = [0u8; 32];
        key.copy_from_slice(&rec[..32]);
        let tokens = u32::from_le_bytes([rec[32], rec[33], rec[34], rec[35]]);
        let v = rec[36..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        map.insert(key, (v, tokens));
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_texts_with_an_over_long_word_get_new_keys() {
        let plain = "an ordinary chunk of text, with words of every length";
        assert_eq!(text_key(plain), *blake3::hash(plain.as_bytes()).as_bytes());
        let edge = format!("a {} b", "x".repeat(100));
        assert_eq!(text_key(&edge), *blake3::hash(edge.as_bytes()).as_bytes());
        let long = format!("a {} b", "x".repeat(101));
        assert_ne!(text_key(&long), *blake3::hash(long.as_bytes()).as_bytes());
        assert_eq!(text_key(&long), text_key(&long.clone()));
    }

    #[test]
    fn round_trips_and_detects_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let (mut c, state) = VectorCache::open(path.clone(), 3);
        assert_eq!(state, CacheOpen::New);
        c.insert(text_key("a"), vec![1.0, 2.0, 3.0], 7);
        c.save().unwrap();
        let (c2, state) = VectorCache::open(path.clone(), 3);
        assert_eq!(state, CacheOpen::Loaded { entries: 1 });
        assert_eq!(c2.get(&text_key("a")), Some((&[1.0f32, 2.0, 3.0][..], 7)));

        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let (c3, state) = VectorCache::open(path.clone(), 3);
        assert!(matches!(state, CacheOpen::Damaged { .. }));
        assert!(c3.is_empty());

        let (_, state) = VectorCache::open(path, 4);
        assert!(matches!(state, CacheOpen::Damaged { .. }));
    }

    #[test]
    fn two_writers_keep_each_others_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors").join("v.bin");
        // Both open the same (empty) cache, as two processes starting together do.
        let (mut first, _) = VectorCache::open(path.clone(), 2);
        let (mut second, _) = VectorCache::open(path.clone(), 2);
        first.insert(text_key("first"), vec![1.0, 0.0], 3);
        second.insert(text_key("second"), vec![0.0, 1.0], 4);
        first.save().unwrap();
        second.save().unwrap();
        let (merged, state) = VectorCache::open(path.clone(), 2);
        assert_eq!(state, CacheOpen::Loaded { entries: 2 });
        assert_eq!(
            merged.get(&text_key("first")),
            Some((&[1.0f32, 0.0][..], 3))
        );

        // The same from threads saving at the same time, many times over.
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..10 {
                        let (mut c, _) = VectorCache::open(path.clone(), 2);
                        c.insert(text_key(&format!("{w}-{i}")), vec![w as f32, i as f32], 1);
                        c.save().unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let (all, _) = VectorCache::open(path, 2);
        assert_eq!(all.len(), 2 + 40);
    }
}
