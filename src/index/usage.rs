//! What the cache folder holds and what of it the indexes use: `seamscope cache`.
//!
//! Every index folder records the keys of the texts it was built from (`texts.keys`, listed and
//! hashed in its manifest like its other files). The vector cache of a model keeps every text
//! that model ever embedded; pruning removes from it the texts no index of that model records.
//! It is conservative: a model's cache is left whole when any of its index folders has no
//! readable, verified record (built by an older seamscope, or damaged), when no index names the
//! model at all, and nothing is pruned while a build is writing an index; a model's cache is
//! also left whole while any process has it open in memory (its in-use lock,
//! [`crate::embed::cache::prune_file`]): a build embedding, the screen, the MCP server, which
//! would write the pruned texts back.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::manifest::Manifest;
use super::staging::build_in_progress;
use crate::embed::cache::{
    PruneCount, PruneRefused, TextKey, VectorCache, in_use, prune_file, read_keys, text_key,
};
use crate::layout::store::store_dir;

/// The file in each index folder that records its texts' keys.
pub const TEXT_KEYS: &str = "texts.keys";

/// The first bytes of a `texts.keys` file.
const KEYS_MAGIC: &[u8; 8] = b"SSKEYS01";

/// Write the keys of `texts` (each once, sorted) into `dir/texts.keys`.
pub(super) fn write_text_keys(dir: &Path, texts: &[&[&str]]) -> std::io::Result<()> {
    let mut keys: Vec<TextKey> = texts
        .iter()
        .flat_map(|t| t.iter())
        .map(|t| text_key(t))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let mut buf = Vec::with_capacity(8 + 32 * keys.len());
    buf.extend_from_slice(KEYS_MAGIC);
    for key in &keys {
        buf.extend_from_slice(key);
    }
    std::fs::write(dir.join(TEXT_KEYS), buf)
}

/// The text keys an index folder records, checked against its manifest's size and hash.
fn read_text_keys(dir: &Path, manifest: &Manifest) -> Result<Vec<TextKey>, String> {
    let entry = manifest.files.get(TEXT_KEYS).ok_or_else(|| {
        "built before indexes recorded their texts (index the corpus again to record them)"
            .to_string()
    })?;
    // Never more than the manifest recorded, never a link, FIFO or device.
    let bytes = crate::files::read_regular(&dir.join(TEXT_KEYS), entry.bytes)
        .map_err(|e| format!("{TEXT_KEYS}: {e}"))?;
    let whole = bytes.len() as u64 == entry.bytes
        && blake3::hash(&bytes).to_hex().as_str() == entry.blake3
        && bytes.starts_with(KEYS_MAGIC)
        && (bytes.len() - 8) % 32 == 0;
    if !whole {
        return Err(format!("{TEXT_KEYS} does not match its manifest"));
    }
    Ok(bytes[8..]
        .chunks_exact(32)
        .map(|c| {
            let mut key = [0u8; 32];
            key.copy_from_slice(c);
            key
        })
        .collect())
}

/// One model's vector cache file.
#[derive(Debug, Clone, Serialize)]
pub struct VectorFile {
    /// The file.
    pub path: PathBuf,
    /// The model identity its index folders name (`None`: no index names it).
    pub model: Option<String>,
    /// Its size in bytes.
    pub bytes: u64,
    /// Texts cached (`None` when the file is damaged).
    pub entries: Option<usize>,
    /// Whether a live seamscope process has these vectors open in memory now (an index build,
    /// the screen, the MCP server): a prune leaves the file whole while it does.
    pub in_use: bool,
    /// Index folders built with this model.
    pub indexes: usize,
    /// Cached texts some index records (`None` when that cannot be known).
    pub used: Option<usize>,
    /// Why it is left whole by `--prune`, when it is.
    pub kept_because: Option<String>,
    /// What `--prune` removed (or, with `--dry-run`, would remove).
    pub pruned: Option<PruneCount>,
}

/// The whole cache folder.
#[derive(Debug, Clone, Serialize)]
pub struct CacheReport {
    /// The cache folder.
    pub cache_dir: PathBuf,
    /// One row per vector cache file.
    pub vectors: Vec<VectorFile>,
    /// Index folders.
    pub indexes: usize,
    /// Their size in bytes.
    pub index_bytes: u64,
    /// Stored document layouts.
    pub layouts: usize,
    /// Their size in bytes.
    pub layout_bytes: u64,
    /// Whether `--prune` ran (and whether only as a dry run).
    pub prune: Option<PruneMode>,
    /// Why nothing was pruned at all, when that is so.
    pub prune_refused: Option<String>,
}

/// How `--prune` ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PruneMode {
    /// Counted only.
    DryRun,
    /// Removed.
    Removed,
}

/// What the index folders say about one model.
#[derive(Default)]
struct ModelUse {
    indexes: usize,
    keys: HashSet<TextKey>,
    /// Why its keys are not all known.
    unknown: Option<String>,
}

/// Survey the cache folder; with `prune`, also remove (or with [`PruneMode::DryRun`] count)
/// the cached texts no index uses.
pub fn survey(cache_dir: &Path, prune: Option<PruneMode>) -> CacheReport {
    let found = IndexSurvey::of(cache_dir);
    let prune_refused = match prune {
        Some(_) if found.building => {
            Some("an index is being built now; prune again when it is done".to_string())
        }
        _ => None,
    };
    let vectors: Vec<VectorFile> = read_dir_sorted(&cache_dir.join("vectors"))
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "bin"))
        .map(|path| {
            let usage = found.models.get(&path);
            vector_file(path, usage, prune, prune_refused.as_deref())
        })
        .collect();
    let layouts_dir = store_dir(cache_dir);
    let layout_files = read_dir_sorted(&layouts_dir);
    CacheReport {
        cache_dir: cache_dir.to_path_buf(),
        vectors,
        indexes: found.indexes,
        index_bytes: found.index_bytes,
        layouts: layout_files.len(),
        layout_bytes: layout_files
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum(),
        prune,
        prune_refused,
    }
}

/// What the index folders of a cache say: the texts each model's indexes use, how many
/// folders and bytes, and whether a build is under way.
struct IndexSurvey {
    /// Per vector cache file: its model and the use its indexes make of it.
    models: BTreeMap<PathBuf, (String, ModelUse)>,
    /// Index folders.
    indexes: usize,
    /// Their bytes.
    index_bytes: u64,
    /// A build folder of a live build is there.
    building: bool,
}

impl IndexSurvey {
    /// Read every index folder under `cache_dir`.
    fn of(cache_dir: &Path) -> Self {
        let mut survey = IndexSurvey {
            models: BTreeMap::new(),
            indexes: 0,
            index_bytes: 0,
            building: false,
        };
        for entry in read_dir_sorted(&cache_dir.join("indexes")) {
            let name = entry.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with(".build-") {
                survey.building |= build_in_progress(&entry);
                continue;
            }
            if !entry.is_dir() || name == "latest" {
                continue;
            }
            survey.indexes += 1;
            survey.index_bytes += folder_bytes(&entry);
            let manifest = match Manifest::read(&entry) {
                Ok(m) => m,
                // A folder with no readable manifest names no model: the next open rebuilds it.
                Err(_) => continue,
            };
            let file = VectorCache::path_for(cache_dir, &manifest.model);
            let (_, usage) = survey
                .models
                .entry(file)
                .or_insert_with(|| (manifest.model.clone(), ModelUse::default()));
            usage.indexes += 1;
            match read_text_keys(&entry, &manifest) {
                Ok(keys) => usage.keys.extend(keys),
                Err(why) => {
                    let folder = entry.file_name().unwrap_or_default().to_string_lossy();
                    usage
                        .unknown
                        .get_or_insert(format!("index {folder}: {why}"));
                }
            }
        }
        survey
    }
}

/// One vector cache file: its entries, how many of them its model's indexes use, why it is
/// kept whole, and (with `prune`, unless pruning was refused) what pruning removed.
fn vector_file(
    path: PathBuf,
    usage: Option<&(String, ModelUse)>,
    prune: Option<PruneMode>,
    prune_refused: Option<&str>,
) -> VectorFile {
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    let keys = read_keys(&path);
    let entries = keys.as_ref().ok().map(|k| k.keys.len());
    let used = match (&keys, usage) {
        (Ok(k), Some((_, u))) if u.unknown.is_none() => {
            Some(k.keys.iter().filter(|key| u.keys.contains(*key)).count())
        }
        _ => None,
    };
    let kept_because = match (&keys, usage) {
        (Err(why), _) => Some(format!("damaged ({why}); the next build rewrites it")),
        (_, None) => Some("no index names this model; delete the file by hand to drop it".into()),
        (_, Some((_, u))) => u.unknown.clone(),
    };
    let (pruned, kept_because) = match (prune, prune_refused, kept_because, usage) {
        (Some(mode), None, None, Some((_, u))) => {
            let keep = |key: &TextKey| u.keys.contains(key);
            match prune_file(&path, &keep, mode == PruneMode::DryRun) {
                Ok(count) => (Some(count), None),
                Err(why @ PruneRefused::InUse) => (None, Some(why.to_string())),
                Err(PruneRefused::Other(why)) => (None, Some(format!("not pruned: {why}"))),
            }
        }
        (_, _, kept_because, _) => (None, kept_because),
    };
    VectorFile {
        model: usage.map(|(m, _)| m.clone()),
        indexes: usage.map_or(0, |(_, u)| u.indexes),
        in_use: in_use(&path),
        path,
        bytes,
        entries,
        used,
        kept_because,
        pruned,
    }
}

/// The entries of `dir`, sorted (none when it cannot be read).
fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Bytes of every file under `dir`.
fn folder_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}
