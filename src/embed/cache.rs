//! The vector cache: every text ever embedded with one model, keyed by a hash of the text.
//!
//! One file per model identity, checked by a trailing hash and written atomically, so a damaged
//! file is detected and rebuilt, never trusted. A whole file must also make sense: every vector
//! finite and of unit length (every embedder here gives unit vectors), each key once. Only a
//! regular file of at most [`crate::files::VECTOR_CACHE_LIMIT`] bytes is read (no link, FIFO or
//! device). Saves take a file lock and merge what is on disk first, so two processes embedding
//! at once both keep their vectors.
//!
//! A cache open in memory holds a shared lock on its `.inuse.lock` file for as long as it lives;
//! [`prune_file`] takes that lock exclusively or leaves the file alone, since a process holding
//! the vectors in memory (an index build, the screen, the MCP server) would write the pruned
//! texts back at its next save. The OS releases the lock of a process that ends or is killed,
//! so a crashed build never blocks a prune.

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
    /// The shared lock on the file's `.inuse.lock` while this cache lives (none where the cache
    /// folder cannot be written: then nothing is saved either).
    _in_use: Option<std::fs::File>,
}

/// The lock file a cache in memory holds shared and a prune takes exclusively.
fn in_use_path(path: &Path) -> PathBuf {
    path.with_extension("inuse.lock")
}

/// The lock file that serialises saves (and a prune's rewrite) of the cache file at `path`.
fn save_lock_path(path: &Path) -> PathBuf {
    path.with_extension("lock")
}

/// Hold the in-use lock of the cache file at `path`, shared: waits while a prune rewrites the
/// file (a moment), then lets any number of caches be open together. Best effort: a folder that
/// cannot be written gives no lock, and then no save either.
fn hold_in_use(path: &Path) -> Option<std::fs::File> {
    let dir = path.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    let lock = crate::files::open_lock(&in_use_path(path)).ok()?;
    lock.lock_shared().ok()?;
    Some(lock)
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

    /// Open (or start) the cache at `path` for vectors of `dim` dimensions. The in-use lock is
    /// taken before the file is read, so a prune under way finishes first.
    pub fn open(path: PathBuf, dim: usize) -> (VectorCache, CacheOpen) {
        let in_use = hold_in_use(&path);
        let mut cache = VectorCache {
            path,
            dim,
            vectors: HashMap::new(),
            dirty: false,
            _in_use: in_use,
        };
        let state = match read_cache_file(&cache.path) {
            Err(e) if e.is_missing() => CacheOpen::New,
            Err(e) => {
                // Rewritten (renamed over whatever is there) at the next save.
                cache.dirty = true;
                CacheOpen::Damaged {
                    reason: format!("unreadable: {e}"),
                }
            }
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
        let lock = crate::files::open_lock(&save_lock_path(&self.path))?;
        // Released when `lock` is dropped at the end of this function.
        lock.lock()?;
        if let Ok(bytes) = read_cache_file(&self.path)
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
    let bytes = read_cache_file(path).map_err(|e| format!("unreadable: {e}"))?;
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

/// Why [`prune_file`] left a file alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PruneRefused {
    /// A live process has the cache open in memory (its in-use lock is held).
    #[error(
        "in use: another seamscope process (an index build, the screen or the MCP server) holds these vectors and would write the pruned texts back; prune again when it has finished"
    )]
    InUse,
    /// The file is damaged, unreadable or cannot be locked or written: why.
    #[error("{0}")]
    Other(String),
}

/// Remove from the cache file at `path` every text `keep` refuses, written to a temporary file
/// and renamed over it. With `dry_run`, only count. The in-use lock is taken exclusively
/// without waiting (a cache open in any process refuses the prune: [`PruneRefused::InUse`]),
/// then the save lock, so no save interleaves. A damaged file is left alone (its reason is the
/// error).
pub fn prune_file(
    path: &Path,
    keep: &dyn Fn(&TextKey) -> bool,
    dry_run: bool,
) -> Result<PruneCount, PruneRefused> {
    let refused =
        |what: &str, e: &dyn std::fmt::Display| PruneRefused::Other(format!("{what}: {e}"));
    let in_use =
        crate::files::open_lock(&in_use_path(path)).map_err(|e| refused("cannot lock", &e))?;
    match in_use.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Err(PruneRefused::InUse),
        Err(std::fs::TryLockError::Error(e)) => return Err(refused("cannot lock", &e)),
    }
    let lock = (!dry_run)
        .then(|| crate::files::open_lock(&save_lock_path(path)))
        .transpose()
        .map_err(|e| refused("cannot lock", &e))?;
    if let Some(lock) = &lock {
        lock.lock().map_err(|e| refused("cannot lock", &e))?;
    }
    let bytes = read_cache_file(path).map_err(|e| refused("unreadable", &e))?;
    let dim = file_dim(&bytes).map_err(PruneRefused::Other)?;
    let mut map = decode(&bytes, dim).map_err(PruneRefused::Other)?;
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
        _in_use: None,
    };
    cache.write().map_err(|e| refused("cannot write", &e))?;
    drop(in_use);
    Ok(count)
}

/// Whether a live process has the cache file at `path` open in memory (holds its in-use lock).
pub fn in_use(path: &Path) -> bool {
    crate::files::open_existing_lock(&in_use_path(path))
        .is_ok_and(|lock| matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
}

/// The bytes of a cache file: a regular file (never a link, FIFO or device) within the limit.
fn read_cache_file(path: &Path) -> Result<Vec<u8>, crate::files::ReadFileError> {
    crate::files::read_regular(path, crate::files::VECTOR_CACHE_LIMIT)
}

/// The vector length a cache file's header gives.
fn file_dim(bytes: &[u8]) -> Result<usize, String> {
    if bytes.len() < 20 + 32 || &bytes[..8] != MAGIC {
        return Err("not a seamscope vector cache (bad header) or an older format".into());
    }
    Ok(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize)
}

/// How far from 1 a cached vector's length may be: every embedder gives unit vectors (the
/// float error of normalising 4,096 numbers is far below this).
const UNIT_TOLERANCE: f32 = 1e-3;

/// Why a cached vector makes no sense, if it does not: a NaN or an infinity, or a length
/// other than 1 (a zero vector included), which cosine search cannot rank by.
fn check_vector(v: &[f32]) -> Result<(), String> {
    if let Some(j) = v.iter().position(|x| !x.is_finite()) {
        return Err(format!("its vector holds {} at {j}", v[j]));
    }
    let norm = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if (norm - 1.0).abs() > f64::from(UNIT_TOLERANCE) {
        return Err(format!("its vector has length {norm:.4}, not 1"));
    }
    Ok(())
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
    let mut previous: Option<TextKey> = None;
    for (i, rec) in body[20..].chunks_exact(record).enumerate() {
        let mut key = [0u8; 32];
        key.copy_from_slice(&rec[..32]);
        // Written in key order, each key once: anything else was not written by a save.
        if previous.is_some_and(|p| p >= key) {
            return Err(format!("entry {i} is out of key order or repeats a key"));
        }
        previous = Some(key);
        let tokens = u32::from_le_bytes([rec[32], rec[33], rec[34], rec[35]]);
        let v: Vec<f32> = rec[36..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        check_vector(&v).map_err(|why| format!("entry {i}: {why}"))?;
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
        c.insert(text_key("a"), vec![0.6, 0.8, 0.0], 7);
        c.save().unwrap();
        let (c2, state) = VectorCache::open(path.clone(), 3);
        assert_eq!(state, CacheOpen::Loaded { entries: 1 });
        assert_eq!(c2.get(&text_key("a")), Some((&[0.6f32, 0.8, 0.0][..], 7)));
        drop(c2);

        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let (c3, state) = VectorCache::open(path.clone(), 3);
        assert!(matches!(state, CacheOpen::Damaged { .. }));
        assert!(c3.is_empty());

        let (_, state) = VectorCache::open(path, 4);
        assert!(matches!(state, CacheOpen::Damaged { .. }));
    }

    /// The bytes of a cache file holding `entries` as given (in this order), with a true
    /// trailer: what someone who rewrote a cache file and recomputed its checksum would write.
    fn forged(dim: usize, entries: &[(TextKey, Vec<f32>)]) -> Vec<u8> {
        let mut buf = Vec::new();
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&(dim as u32).to_le_bytes());
        buf.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (key, v) in entries {
            buf.extend_from_slice(key);
            buf.extend_from_slice(&1u32.to_le_bytes());
            for x in v {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = blake3::hash(&buf);
        buf.extend_from_slice(sum.as_bytes());
        buf
    }

    #[test]
    fn a_whole_cache_file_whose_vectors_make_no_sense_is_not_trusted() {
        let (a, b) = (text_key("a"), text_key("b"));
        let (first, second) = if a < b { (a, b) } else { (b, a) };
        let unit = vec![0.6f32, 0.8];
        assert!(
            decode(
                &forged(2, &[(first, unit.clone()), (second, unit.clone())]),
                2
            )
            .is_ok()
        );
        for (entries, says) in [
            (vec![(first, vec![f32::NAN, 0.0])], "NaN"),
            (vec![(first, vec![f32::INFINITY, 0.0])], "inf"),
            (vec![(first, vec![0.0, 0.0])], "length 0.0000"),
            (vec![(first, vec![3.0, 4.0])], "length 5.0000"),
            (
                vec![(first, unit.clone()), (first, unit.clone())],
                "repeats a key",
            ),
            (
                vec![(second, unit.clone()), (first, unit.clone())],
                "out of key order",
            ),
        ] {
            match decode(&forged(2, &entries), 2) {
                Err(why) => assert!(why.contains(says), "{why}"),
                Ok(_) => panic!("{says}: a lying cache file was trusted"),
            }
        }
        // Opened, such a file reads as damaged, serves nothing and is rewritten at the next save.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        std::fs::write(&path, forged(2, &[(first, vec![3.0, 4.0])])).unwrap();
        let (mut c, state) = VectorCache::open(path.clone(), 2);
        assert!(matches!(state, CacheOpen::Damaged { .. }), "{state:?}");
        assert!(c.get(&first).is_none());
        c.save().unwrap();
        drop(c);
        let (_, state) = VectorCache::open(path, 2);
        assert_eq!(state, CacheOpen::Loaded { entries: 0 });
    }

    /// Run `f` on another thread and give its result, or fail the test if it blocks.
    fn within_30s<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("{what} hung"))
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_file_that_is_a_fifo_or_a_link_to_dev_zero_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.bin");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let zero = dir.path().join("zero.bin");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        for (path, says) in [(fifo, "FIFO"), (zero, "symbolic link")] {
            let p = path.clone();
            let (mut cache, state) = within_30s("opening", move || VectorCache::open(p, 2));
            match &state {
                CacheOpen::Damaged { reason } => assert!(reason.contains(says), "{reason}"),
                other => panic!("{says}: {other:?}"),
            }
            let p = path.clone();
            let keys = within_30s("reading the keys", move || read_keys(&p));
            assert!(keys.is_err_and(|e| e.contains(says)));
            let p = path.clone();
            let pruned = within_30s("pruning", move || prune_file(&p, &|_| true, false));
            assert!(matches!(pruned, Err(PruneRefused::InUse)), "{pruned:?}");
            // The save renames a real file over the hostile one.
            cache.insert(text_key("x"), vec![1.0, 0.0], 1);
            let saved = within_30s("saving", move || cache.save().map(|()| cache));
            drop(saved.unwrap());
            let p = path.clone();
            let pruned = within_30s("pruning", move || prune_file(&p, &|_| true, false));
            assert_eq!(pruned.map(|c| c.kept), Ok(1));
        }
    }

    #[test]
    fn a_prune_leaves_a_cache_that_is_open_in_memory_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors").join("v.bin");
        let (mut c, _) = VectorCache::open(path.clone(), 2);
        c.insert(text_key("old"), vec![1.0, 0.0], 1);
        c.save().unwrap();
        // A build holds the cache (and would save "old" back): the prune refuses, even dry.
        assert!(in_use(&path));
        for dry_run in [true, false] {
            assert_eq!(
                prune_file(&path, &|_| false, dry_run),
                Err(PruneRefused::InUse)
            );
        }
        c.insert(text_key("new"), vec![0.0, 1.0], 1);
        c.save().unwrap();
        drop(c);
        // Its process is gone (the OS drops the lock of a killed one the same way).
        assert!(!in_use(&path));
        let keep_new = |k: &TextKey| *k == text_key("new");
        let count = prune_file(&path, &keep_new, false).unwrap();
        assert_eq!((count.kept, count.removed), (1, 1));
        // A cache opened after the prune sees the pruned file, and its save keeps it pruned.
        let (mut after, state) = VectorCache::open(path.clone(), 2);
        assert_eq!(state, CacheOpen::Loaded { entries: 1 });
        after.insert(text_key("later"), vec![1.0, 0.0], 1);
        after.save().unwrap();
        assert!(after.get(&text_key("old")).is_none());
        drop(after);
        assert_eq!(read_keys(&path).map(|k| k.keys.len()), Ok(2));
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
                        let (x, y) = (w as f32 + 1.0, i as f32 + 1.0);
                        let norm = (x * x + y * y).sqrt();
                        c.insert(text_key(&format!("{w}-{i}")), vec![x / norm, y / norm], 1);
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
