//! The extraction cache: what an extractor made of a file, kept under the cache folder by the
//! file's content hash, the extractor's name and its version, so a warm open reads text back
//! instead of parsing the file again. A changed file, extractor or engine has another key and is
//! extracted again; an entry is written whole (temporary file, then rename) and verified when
//! read (its key, the hash of its text, a page map that fits the text), and one that does not
//! verify is extracted again and replaced, never trusted.
//!
//! Any extractor but the plain-text one goes through it (the text of a text file is the file).
//! Skips that come from the file itself (encrypted, a scan, damaged) are kept too, so a
//! 2,000-page scan is not rendered again on every open; a missing engine never is.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Extracted, Extractor, PageMap};
use crate::extract::{DocKind, SkipReason};

/// The layout of an entry; a change makes every older entry a miss.
const ENTRY_FORMAT: u32 = 1;

/// At most this many bytes of an entry are read (more is a damaged entry).
pub const ENTRY_LIMIT: u64 = 512 * 1024 * 1024;

/// The cache's folder under a cache directory.
pub fn cache_dir(cache_root: &Path) -> PathBuf {
    cache_root.join("extracted")
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    format: u32,
    file_hash: String,
    extractor: String,
    version: String,
    outcome: Outcome,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Text {
        text_hash: String,
        text: String,
        kind: DocKind,
        pages: PageMap,
    },
    Skip(SkipReason),
}

/// What the extraction cache holds, and what `--prune` did to it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CacheSurvey {
    /// The cache's folder.
    pub dir: PathBuf,
    /// Entries (one per file and extractor version).
    pub entries: usize,
    /// Their size in bytes.
    pub bytes: u64,
    /// Entries no current extractor reads: made by an older extractor or engine, or damaged.
    pub stale: usize,
    /// Their size in bytes.
    pub stale_bytes: u64,
    /// Stale entries removed (`--prune`; none on a dry run).
    pub removed: usize,
}

/// An entry's identity, read without its text.
#[derive(Deserialize)]
struct EntryHead {
    format: u32,
    extractor: String,
    version: String,
}

/// Survey the extraction cache under `dir`: every entry, and those no extractor of `current`
/// (each format's name and version as they stand) would read; with `remove`, delete those.
pub fn survey(dir: &Path, current: &[(String, String)], remove: bool) -> CacheSurvey {
    let mut report = CacheSurvey {
        dir: dir.to_path_buf(),
        ..CacheSurvey::default()
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    for path in files {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() || path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        report.entries += 1;
        report.bytes += meta.len();
        let head: Option<EntryHead> = crate::files::read_named(&path, ENTRY_LIMIT)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok());
        let live = head.is_some_and(|h| {
            h.format == ENTRY_FORMAT
                && current
                    .iter()
                    .any(|(name, version)| *name == h.extractor && *version == h.version)
        });
        if !live {
            report.stale += 1;
            report.stale_bytes += meta.len();
            if remove && std::fs::remove_file(&path).is_ok() {
                report.removed += 1;
            }
        }
    }
    report
}

/// What a look-up found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheState {
    /// The entry was read back and verified.
    Hit,
    /// No entry: extracted and stored.
    Miss,
    /// An entry was there but did not verify: extracted again and replaced.
    Rebuilt,
}

/// Where the entry of this file under this extractor lives.
fn entry_path(dir: &Path, file_hash: &str, extractor: &str, version: &str) -> PathBuf {
    let mut h = blake3::Hasher::new();
    for part in [file_hash, extractor, version] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    dir.join(format!("{}.json", &h.finalize().to_hex()[..32]))
}

/// Whether a skip is the file's own (worth keeping) rather than this machine's.
fn keepable(reason: &SkipReason) -> bool {
    matches!(
        reason,
        SkipReason::Encrypted { .. } | SkipReason::NoTextLayer { .. } | SkipReason::Damaged { .. }
    )
}

/// Read a verified entry, or say it is missing (`Ok(None)`) or damaged (`Err`).
fn read_entry(
    path: &Path,
    file_hash: &str,
    extractor: &str,
    version: &str,
) -> Result<Option<Result<Extracted, SkipReason>>, ()> {
    let bytes = match crate::files::read_regular(path, ENTRY_LIMIT) {
        Ok(b) => b,
        Err(crate::files::ReadFileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(_) => return Err(()),
    };
    let entry: Entry = serde_json::from_slice(&bytes).map_err(|_| ())?;
    if entry.format != ENTRY_FORMAT
        || entry.file_hash != file_hash
        || entry.extractor != extractor
        || entry.version != version
    {
        return Err(());
    }
    match entry.outcome {
        Outcome::Skip(reason) if keepable(&reason) => Ok(Some(Err(reason))),
        Outcome::Skip(_) => Err(()),
        Outcome::Text {
            text_hash,
            text,
            kind,
            pages,
        } => {
            let fits = pages.starts.windows(2).all(|w| w[0].byte <= w[1].byte)
                && pages
                    .starts
                    .iter()
                    .all(|s| s.byte <= text.len() && text.is_char_boundary(s.byte));
            if blake3::hash(text.as_bytes()).to_hex().as_str() != text_hash || !fits {
                return Err(());
            }
            Ok(Some(Ok(Extracted { text, kind, pages })))
        }
    }
}

/// Write an entry whole: a temporary file in the cache folder, renamed into place.
fn write_entry(dir: &Path, path: &Path, entry: &Entry) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".entry-")
        .tempfile_in(dir)?;
    serde_json::to_writer(&mut tmp, entry).map_err(std::io::Error::other)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// What the cache under `dir` holds for `bytes` read by `extractor`, without extracting: `None`
/// when there is no usable entry.
pub fn lookup(
    dir: &Path,
    extractor: &dyn Extractor,
    bytes: &[u8],
) -> Option<Result<Extracted, SkipReason>> {
    let file_hash = blake3::hash(bytes).to_hex().to_string();
    let name = extractor.format().name();
    let version = extractor.version();
    let entry_at = entry_path(dir, &file_hash, name, &version);
    read_entry(&entry_at, &file_hash, name, &version)
        .ok()
        .flatten()
}

/// Extract `bytes` with `extractor` through the cache in `dir` (see the module's notes). A
/// cache that cannot be written costs only speed: the extraction is returned all the same.
pub fn extract_cached(
    dir: &Path,
    extractor: &dyn Extractor,
    path: &Path,
    bytes: Vec<u8>,
) -> (Result<Extracted, SkipReason>, CacheState) {
    let file_hash = blake3::hash(&bytes).to_hex().to_string();
    let name = extractor.format().name();
    let version = extractor.version();
    let entry_at = entry_path(dir, &file_hash, name, &version);
    let state = match read_entry(&entry_at, &file_hash, name, &version) {
        Ok(Some(found)) => return (found, CacheState::Hit),
        Ok(None) => CacheState::Miss,
        Err(()) => CacheState::Rebuilt,
    };
    let result = extractor.extract(path, bytes);
    let outcome = match &result {
        Ok(x) => Some(Outcome::Text {
            text_hash: blake3::hash(x.text.as_bytes()).to_hex().to_string(),
            text: x.text.clone(),
            kind: x.kind,
            pages: x.pages.clone(),
        }),
        Err(reason) if keepable(reason) => Some(Outcome::Skip(reason.clone())),
        Err(_) => None,
    };
    if let Some(outcome) = outcome {
        let entry = Entry {
            format: ENTRY_FORMAT,
            file_hash,
            extractor: name.to_string(),
            version,
            outcome,
        };
        // Best effort by design: a read-only cache folder slows the next open, nothing more.
        let _ = write_entry(dir, &entry_at, &entry);
    }
    (result, state)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::extract::{Format, PageStart};

    /// An extractor that counts its calls and upper-cases the text, two pages.
    struct Counting {
        calls: AtomicUsize,
        version: &'static str,
    }

    impl Extractor for Counting {
        fn format(&self) -> Format {
            Format::Html
        }
        fn version(&self) -> String {
            self.version.into()
        }
        fn extract(&self, _path: &Path, bytes: Vec<u8>) -> Result<Extracted, SkipReason> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            if bytes.is_empty() {
                return Err(SkipReason::Damaged {
                    format: "html".into(),
                    error: "empty".into(),
                });
            }
            let text = String::from_utf8_lossy(&bytes).to_uppercase();
            Ok(Extracted {
                pages: PageMap::new(vec![
                    PageStart { byte: 0, page: 1 },
                    PageStart {
                        byte: text.len() / 2,
                        page: 2,
                    },
                ]),
                text,
                kind: DocKind::Markdown,
            })
        }
    }

    fn counting(version: &'static str) -> Counting {
        Counting {
            calls: AtomicUsize::new(0),
            version,
        }
    }

    #[test]
    fn a_warm_read_skips_the_extractor_and_a_change_re_extracts() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let x = counting("1");
        let p = Path::new("a.html");
        let (first, s1) = extract_cached(dir.path(), &x, p, b"hello there".to_vec());
        let (second, s2) = extract_cached(dir.path(), &x, p, b"hello there".to_vec());
        assert_eq!((s1, s2), (CacheState::Miss, CacheState::Hit));
        assert_eq!(first, second);
        assert_eq!(x.calls.load(Ordering::SeqCst), 1);
        // A changed file and a changed extractor version are new keys.
        let (_, s3) = extract_cached(dir.path(), &x, p, b"hello world".to_vec());
        let y = counting("2");
        let (_, s4) = extract_cached(dir.path(), &y, p, b"hello there".to_vec());
        assert_eq!((s3, s4), (CacheState::Miss, CacheState::Miss));
        // A damaged file's skip is kept too.
        let (e1, _) = extract_cached(dir.path(), &x, p, Vec::new());
        let (e2, s5) = extract_cached(dir.path(), &x, p, Vec::new());
        assert!(matches!(e1, Err(SkipReason::Damaged { .. })));
        assert_eq!((e1, s5), (e2, CacheState::Hit));
    }

    #[test]
    fn a_damaged_entry_is_rebuilt_never_trusted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let x = counting("1");
        let p = Path::new("a.html");
        let (good, _) = extract_cached(dir.path(), &x, p, b"some text".to_vec());
        let entries: Vec<PathBuf> = std::fs::read_dir(dir.path())
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        assert_eq!(entries.len(), 1);
        let entry = &entries[0];
        let original = std::fs::read_to_string(entry).unwrap_or_else(|e| panic!("{e}"));
        for damaged in [
            original.replace("SOME TEXT", "SOME TEXX"),
            original[..original.len() / 2].to_string(),
            String::new(),
            original.replace("\"byte\":4", "\"byte\":400"),
        ] {
            assert_ne!(damaged, original);
            std::fs::write(entry, &damaged).unwrap_or_else(|e| panic!("{e}"));
            let (again, state) = extract_cached(dir.path(), &x, p, b"some text".to_vec());
            assert_eq!(state, CacheState::Rebuilt, "{damaged}");
            assert_eq!(again, good);
            // Rebuilt in place: the next read is a hit.
            let (_, next) = extract_cached(dir.path(), &x, p, b"some text".to_vec());
            assert_eq!(next, CacheState::Hit);
        }
    }
}
