//! A deployable bundle of a tuned layout: the settings Seams runs with, every chunk and seam with
//! its links and texts, and their vectors, so a retrieval pipeline elsewhere can apply the same
//! Seams stage to its own rankings (`seamscope export`).
//!
//! Files, all in one folder:
//! - `settings.json`: bundle version, model identity, chunking and query settings;
//! - `documents.jsonl`: every document's path and whole text, so the bundle stands alone;
//! - `chunks.jsonl`, `seams.jsonl`: one record per line, in id order;
//! - `chunk_vectors.npy`, `seam_vectors.npy`: float32 `[rows, dim]`, row `i` = line `i`;
//! - `manifest.json`: every other file's size and blake3 hash.
//!
//! [`read`] opens a bundle again, checked file by file, so the screen and the query pipeline run on
//! exactly what was deployed.

pub mod npy;
pub mod provenance;
pub mod read;

pub use npy::npy_bytes;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkerKind;

use crate::embed::cache::{VectorCache, text_key};
use crate::layout::Layout;
use crate::layout::records::{ChunkInfo, SeamRecord};
use crate::retrieve::QuerySettings;

/// The bundle format this build writes (2 added `documents.jsonl` and the chunking settings
/// `chunker_kind`, `chunk_tokens`, `heading_prefix`, so a bundle can be opened again on its own).
pub const BUNDLE_VERSION: u32 = 2;

/// What can go wrong writing a bundle.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file of the bundle could not be written.
    #[error("cannot write {path}: {error}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why (quoted in the message, so not a `source`: a report of the whole chain says it once).
        error: std::io::Error,
    },
    /// The output folder exists and is not empty (a bundle never mixes with other files).
    #[error("{0} exists and is not empty: export into a new or empty folder")]
    NotEmpty(PathBuf),
    /// What is at the output path is not a folder (a file, a FIFO, a device, a link): a
    /// bundle is a folder and never replaces anything else.
    #[error("{} is {kind}, not a folder: export into a new or empty folder", path.display())]
    NotAFolder {
        /// The path named.
        path: PathBuf,
        /// What it is, in words.
        kind: &'static str,
    },
    /// A chunk's or seam's vector is not in the vector cache.
    #[error(
        "the vector of {0} is not in the vector cache: run `seamscope index` on the corpus first"
    )]
    MissingVector(String),
}

/// The settings a bundle was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleSettings {
    /// [`BUNDLE_VERSION`].
    pub bundle_version: u32,
    /// The embedding model's identity (name, weight hash, window), as the vector cache keys it.
    pub model: String,
    /// Vector dimension.
    pub dim: usize,
    /// The chunker and its settings, as the index names it (`fixed-1024`, `structure-40+headings`).
    pub chunker: String,
    /// The chunking strategy.
    pub chunker_kind: ChunkerKind,
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Whether search texts carry each chunk's heading path.
    pub heading_prefix: bool,
    /// Seam half-width in tokens.
    pub k: u32,
    /// Fire margin.
    pub m: u32,
    /// Final budget in chunks.
    pub budget: usize,
    /// Hits kept per search list.
    pub depth: usize,
    /// Reciprocal rank fusion constant.
    pub rrf_c: f64,
    /// Side drop's threshold, when on.
    pub side_drop: Option<f32>,
    /// Chunks and seams in the bundle.
    pub chunks: usize,
    /// Seams in the bundle.
    pub seams: usize,
    /// Where `m` came from (absent in bundles written before it was recorded).
    #[serde(default)]
    pub m_source: Option<provenance::MarginSource>,
    /// The calibration report `m` came from or was checked against, when one was given.
    #[serde(default)]
    pub calibration: Option<provenance::CalibrationOrigin>,
    /// The strategy-board row `k`, `m` and side drop came from (`export --from-tune`).
    #[serde(default)]
    pub tune: Option<provenance::TuneOrigin>,
    /// What questions get in front before they are embedded ("" for nothing): a store that
    /// serves the bundle must embed questions the same way.
    #[serde(default)]
    pub query_prefix: String,
    /// What chunk and seam texts got in front before they were embedded ("" for nothing).
    #[serde(default)]
    pub document_prefix: String,
}

#[derive(Serialize)]
struct DocumentRecord<'a> {
    path: &'a str,
    text: &'a str,
}

#[derive(Serialize)]
struct ChunkRecord<'a> {
    #[serde(flatten)]
    chunk: ChunkInfo,
    text: &'a str,
    search_text: &'a str,
}

#[derive(Serialize)]
struct SeamLine<'a> {
    #[serde(flatten)]
    seam: SeamRecord,
    text: &'a str,
    search_text: &'a str,
}

/// One file of the bundle in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleFile {
    /// File name inside the bundle folder.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// blake3 of its bytes, hex.
    pub blake3: String,
}

/// What was written.
#[derive(Debug, Clone, Serialize)]
pub struct BundleReport {
    /// The folder.
    pub folder: PathBuf,
    /// The settings recorded.
    pub settings: BundleSettings,
    /// Every file with its size and hash.
    pub files: Vec<BundleFile>,
}

/// How the layout of a bundle was cut (the query settings travel separately), and where its
/// fire margin came from.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleLayout {
    /// The chunking strategy.
    pub chunker: ChunkerKind,
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Whether search texts carry heading paths.
    pub heading_prefix: bool,
    /// Where `m` came from.
    pub m_source: provenance::MarginSource,
    /// The calibration behind it, when one was given.
    pub calibration: Option<provenance::CalibrationOrigin>,
    /// The strategy-board row behind it, when one was given.
    pub tune: Option<provenance::TuneOrigin>,
    /// The embedder's query and document prefixes.
    pub prefixes: (String, String),
}

/// What a bundle is written from: the documents and their layout (an open corpus's, say).
#[derive(Debug, Clone, Copy)]
pub struct Laid<'a> {
    /// The documents.
    pub corpus: &'a crate::corpus::Corpus,
    /// Their chunks and seams.
    pub layout: &'a Layout,
}

/// Write the bundle of `open` (cut as `cut` says) under `settings` into `folder` (it must be
/// new or empty), with vectors from `cache` (the model's vector cache, which indexing filled).
///
/// The files are written into a staging folder beside it, `FOLDER.tmp-<pid>`, which is renamed
/// into place once the manifest is in: a failed export (a full disk, a missing vector) removes
/// the staging folder and leaves nothing a later export would refuse.
#[allow(clippy::too_many_arguments)]
pub fn write_bundle(
    open: Laid<'_>,
    cut: BundleLayout,
    settings: &QuerySettings,
    cache: &VectorCache,
    model: &str,
    dim: usize,
    folder: &Path,
) -> Result<BundleReport, ExportError> {
    if let Ok(here) = std::fs::symlink_metadata(folder)
        && !here.is_dir()
    {
        let kind = if here.file_type().is_symlink() {
            "a symbolic link"
        } else if here.is_file() {
            "a file"
        } else {
            "a special file (a FIFO, a device or a socket)"
        };
        return Err(ExportError::NotAFolder {
            path: folder.to_path_buf(),
            kind,
        });
    }
    if folder.exists() {
        let mut entries = std::fs::read_dir(folder).map_err(write_error(folder))?;
        if entries.next().is_some() {
            return Err(ExportError::NotEmpty(folder.to_path_buf()));
        }
    }
    // `.` or `..` have no name to put a sibling beside: name them by where they are.
    let target = match folder.file_name() {
        Some(_) => folder.to_path_buf(),
        None => folder.canonicalize().map_err(write_error(folder))?,
    };
    let staging = staging_folder(&target);
    if let Some(parent) = staging.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(write_error(parent))?;
    }
    // A staging folder of this process id is left from an export killed before it cleaned up.
    if std::fs::symlink_metadata(&staging).is_ok() {
        remove_staging(&staging).map_err(write_error(&staging))?;
    }
    std::fs::create_dir(&staging).map_err(write_error(&staging))?;
    let written = write_files(open, cut, settings, (cache, model, dim), &staging).and_then(
        |(settings, files)| {
            std::fs::rename(&staging, &target).map_err(write_error(folder))?;
            Ok((settings, files))
        },
    );
    match written {
        Ok((settings, files)) => Ok(BundleReport {
            folder: folder.to_path_buf(),
            settings,
            files,
        }),
        Err(e) => {
            // Best effort: the error that stopped the export is the one to report.
            let _ = remove_staging(&staging);
            Err(e)
        }
    }
}

/// The staging folder an export into `folder` writes first: `FOLDER.tmp-<pid>` beside it.
fn staging_folder(folder: &Path) -> PathBuf {
    let mut name = folder.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    folder.with_file_name(name)
}

/// Remove a staging folder (or whatever else holds its name, without following a link).
fn remove_staging(staging: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(staging) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(staging),
        Ok(_) => std::fs::remove_file(staging),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Write every file of the bundle and its manifest into `folder`, each as soon as it is made,
/// so only one file's bytes are held at a time; returns the settings and the files.
fn write_files(
    open: Laid<'_>,
    cut: BundleLayout,
    settings: &QuerySettings,
    (cache, model, dim): (&VectorCache, &str, usize),
    folder: &Path,
) -> Result<(BundleSettings, Vec<BundleFile>), ExportError> {
    let layout: &Layout = open.layout;
    let corpus = open.corpus;
    let (chunk_search, seam_search) = layout.search_texts(corpus);
    let vector = |label: String, text: &str| -> Result<&[f32], ExportError> {
        cache
            .get(&text_key(text))
            .map(|(v, _)| v)
            .ok_or(ExportError::MissingVector(label))
    };
    let mut files = Vec::new();
    let mut put = |name: &str, bytes: Vec<u8>| -> Result<(), ExportError> {
        files.push(write_bundle_file(folder, name, &bytes)?);
        Ok(())
    };

    let bundle_settings = bundle_settings(layout, &cut, settings, (model, dim));
    put(
        "settings.json",
        serde_json::to_vec_pretty(&bundle_settings).unwrap_or_default(),
    )?;

    let documents = corpus.documents.iter().map(|doc| DocumentRecord {
        path: &doc.path,
        text: &doc.text,
    });
    put("documents.jsonl", json_lines(documents))?;
    let chunks = layout
        .chunks
        .iter()
        .zip(&chunk_search)
        .map(|(c, search)| ChunkRecord {
            chunk: ChunkInfo::of(c, corpus),
            text: corpus.doc(c.doc).slice(c.span),
            search_text: search,
        });
    put("chunks.jsonl", json_lines(chunks))?;
    let seams = layout
        .seams
        .iter()
        .zip(&seam_search)
        .map(|(s, search)| SeamLine {
            seam: SeamRecord::of(s, corpus),
            text: corpus.doc(s.doc).slice(s.span),
            search_text: search,
        });
    put("seams.jsonl", json_lines(seams))?;
    let chunk_vectors = layout
        .chunks
        .iter()
        .zip(&chunk_search)
        .map(|(c, search)| vector(format!("chunk {}", c.id.0), search))
        .collect::<Result<Vec<_>, _>>()?;
    put("chunk_vectors.npy", npy_bytes(&chunk_vectors, dim))?;
    let seam_vectors = layout
        .seams
        .iter()
        .zip(&seam_search)
        .map(|(s, search)| vector(format!("seam {}|{}", s.left.0, s.right.0), search))
        .collect::<Result<Vec<_>, _>>()?;
    put("seam_vectors.npy", npy_bytes(&seam_vectors, dim))?;
    let manifest = serde_json::json!({
        "bundle_version": BUNDLE_VERSION,
        "written_by": format!("seamscope {}", env!("CARGO_PKG_VERSION")),
        "files": files,
    });
    let path = folder.join("manifest.json");
    let mut file = std::fs::File::create_new(&path).map_err(write_error(&path))?;
    file.write_all(&serde_json::to_vec_pretty(&manifest).unwrap_or_default())
        .and_then(|()| file.sync_all())
        .map_err(write_error(&path))?;
    Ok((bundle_settings, files))
}

/// The error for a failed write of `path`.
fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError {
    let path = path.to_path_buf();
    move |error| ExportError::Write { path, error }
}

/// Writes one new file of the bundle, synced, and returns its manifest entry (size and hash).
fn write_bundle_file(folder: &Path, name: &str, bytes: &[u8]) -> Result<BundleFile, ExportError> {
    let path = folder.join(name);
    let mut file = std::fs::File::create_new(&path).map_err(write_error(&path))?;
    file.write_all(bytes).map_err(write_error(&path))?;
    file.sync_all().map_err(write_error(&path))?;
    Ok(BundleFile {
        name: name.to_string(),
        bytes: bytes.len() as u64,
        blake3: blake3::hash(bytes).to_hex().to_string(),
    })
}

/// The bundle's settings.json: the model, the layout and the query settings it was cut with,
/// and where they came from.
fn bundle_settings(
    layout: &Layout,
    cut: &BundleLayout,
    settings: &QuerySettings,
    (model, dim): (&str, usize),
) -> BundleSettings {
    BundleSettings {
        bundle_version: BUNDLE_VERSION,
        model: model.to_string(),
        dim,
        chunker: layout.chunker.clone(),
        chunker_kind: cut.chunker,
        chunk_tokens: cut.chunk_tokens,
        heading_prefix: cut.heading_prefix,
        k: settings.k,
        m: settings.m,
        budget: settings.budget,
        depth: settings.depth,
        rrf_c: settings.rrf_c,
        side_drop: settings.side_drop,
        chunks: layout.chunks.len(),
        seams: layout.seams.len(),
        m_source: Some(cut.m_source),
        calibration: cut.calibration.clone(),
        tune: cut.tune.clone(),
        query_prefix: cut.prefixes.0.clone(),
        document_prefix: cut.prefixes.1.clone(),
    }
}

/// Records as JSON Lines, one object a line.
fn json_lines<T: serde::Serialize>(records: impl Iterator<Item = T>) -> Vec<u8> {
    let mut lines = Vec::new();
    for record in records {
        lines.extend(serde_json::to_vec(&record).unwrap_or_default());
        lines.push(b'\n');
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;
    use crate::settings::Settings;
    use crate::tokens::TokenCounter;

    /// A small corpus laid out in 16-token chunks, with a vector cache holding every chunk's and
    /// seam's vector but `leave_out` (a seam's index).
    /// A corpus and its layout, as a bundle is written from them.
    struct Open {
        corpus: Corpus,
        layout: Layout,
    }

    impl Open {
        fn laid(&self) -> Laid<'_> {
            Laid {
                corpus: &self.corpus,
                layout: &self.layout,
            }
        }
    }

    fn fixture(dir: &Path, leave_out: Option<usize>) -> (Open, VectorCache, Settings) {
        let text: String = (0..12)
            .map(|i| format!("Dashboard {i} is checked on day {i} by team {i}. "))
            .collect();
        let corpus = Corpus::from_texts([("a.md", text)]);
        let settings = Settings {
            chunk_tokens: 16,
            k: 4,
            ..Settings::default()
        };
        let layout =
            Layout::for_settings(&corpus, &TokenCounter::whitespace_for_tests(), &settings)
                .unwrap_or_else(|e| panic!("{e}"));
        let (chunks, seams) = layout.search_texts(&corpus);
        let (mut cache, _) = VectorCache::open(dir.join("cache.bin"), 2);
        for text in &chunks {
            cache.insert(text_key(text), vec![1.0, 0.5], 3);
        }
        for (i, text) in seams.iter().enumerate() {
            if Some(i) != leave_out {
                cache.insert(text_key(text), vec![0.5, 1.0], 3);
            }
        }
        (Open { corpus, layout }, cache, settings)
    }

    fn export(
        open: &Open,
        cache: &VectorCache,
        s: &Settings,
        out: &Path,
    ) -> Result<BundleReport, ExportError> {
        let cut = BundleLayout {
            chunker: s.chunker,
            chunk_tokens: s.chunk_tokens,
            heading_prefix: s.heading_prefix,
            m_source: provenance::MarginSource::Settings,
            calibration: None,
            tune: None,
            prefixes: Default::default(),
        };
        write_bundle(
            open.laid(),
            cut,
            &s.query_settings(),
            cache,
            "test-model",
            2,
            out,
        )
    }

    #[test]
    fn a_failed_export_leaves_nothing_and_the_next_one_succeeds() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("bundle");
        // A seam's vector is missing: found after four files are written.
        let (open, cache, settings) = fixture(dir.path(), Some(0));
        assert!(open.layout.seams.len() > 1);
        let failed = export(&open, &cache, &settings, &out);
        assert!(
            matches!(failed, Err(ExportError::MissingVector(_))),
            "{failed:?}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name())
            // The vector cache's own files (cache.bin and its in-use lock) are not the export's.
            .filter(|n| !n.to_string_lossy().starts_with("cache."))
            .collect();
        assert!(left.is_empty(), "a failed export left {left:?}");

        let (open, cache, settings) = fixture(dir.path(), None);
        let report = export(&open, &cache, &settings, &out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.files.len(), 6);
        let bundle = read::read_bundle(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bundle.seam_vectors.len(), open.layout.seams.len());
        assert!(
            !staging_folder(&out).exists(),
            "the staging folder was renamed"
        );
        // An export into an empty folder the user made is renamed over it.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap_or_else(|e| panic!("{e}"));
        export(&open, &cache, &settings, &empty).unwrap_or_else(|e| panic!("{e}"));
        assert!(empty.join("manifest.json").exists());
        assert!(matches!(
            export(&open, &cache, &settings, &out),
            Err(ExportError::NotEmpty(_))
        ));
    }

    #[test]
    fn a_staging_folder_left_by_a_killed_export_is_cleared() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (open, cache, settings) = fixture(dir.path(), None);
        let out = dir.path().join("bundle");
        let stale = staging_folder(&out);
        std::fs::create_dir(&stale).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(stale.join("chunks.jsonl"), b"half").unwrap_or_else(|e| panic!("{e}"));
        export(&open, &cache, &settings, &out).unwrap_or_else(|e| panic!("{e}"));
        assert!(!stale.exists());
        assert!(read::read_bundle(&out).is_ok());
    }
}
