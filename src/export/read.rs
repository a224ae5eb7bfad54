//! A bundle opened again: every file checked against the manifest (size and blake3), the
//! documents read back, the layout cut again from them and compared record by record with the
//! bundle's chunks and seams, and the vectors read from the `.npy` files ([`super::npy`]). Only
//! regular files are read, never through a link and never past a limit ([`crate::files`]), so a
//! bundle cannot hang the reader on a FIFO or fill memory from `/dev/zero`. What comes back is
//! exactly what was deployed, or an error that names the bundle, the file and what is wrong.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{BUNDLE_VERSION, BundleFile, BundleSettings, npy};
use crate::corpus::Corpus;
use crate::files::{JSON_LIMIT, ReadFileError, read_regular};
use crate::layout::Layout;
use crate::layout::records::{ChunkInfo, SeamRecord};
use crate::settings::Settings;

/// Why a bundle cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// A file of the bundle cannot be read.
    #[error("bundle {}: cannot read {name}: {message}", .folder.display())]
    Read {
        /// The bundle folder.
        folder: PathBuf,
        /// The file.
        name: String,
        /// Why.
        message: String,
    },
    /// A file differs from what the manifest recorded, or is missing from it.
    #[error("bundle {}: {name} is damaged: {why}; export the bundle again", .folder.display())]
    Damaged {
        /// The bundle folder.
        folder: PathBuf,
        /// The file.
        name: String,
        /// What differs.
        why: String,
    },
    /// The bundle was written in a format this seamscope does not read.
    #[error(
        "bundle {}: format version {found}, this seamscope reads version {BUNDLE_VERSION}: export it again with this seamscope", .folder.display()
    )]
    Version {
        /// The bundle folder.
        folder: PathBuf,
        /// The version it has.
        found: u32,
    },
    /// A line of a record file does not parse.
    #[error("bundle {}: {name} line {line}: {message}", .folder.display())]
    Record {
        /// The bundle folder.
        folder: PathBuf,
        /// The file.
        name: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The documents, cut again, do not give the bundle's chunks and seams.
    #[error(
        "bundle {}: {what}: the bundle was cut by another chunker version; export it again with this seamscope", .folder.display()
    )]
    Layout {
        /// The bundle folder.
        folder: PathBuf,
        /// What differs.
        what: String,
    },
    /// A setting of the bundle is out of range or unusable.
    #[error("bundle {}: settings.json: {why}", .folder.display())]
    Settings {
        /// The bundle folder.
        folder: PathBuf,
        /// What is wrong, as the settings check says it.
        why: String,
    },
    /// The bundle's vectors came from another model than the one loaded.
    #[error(
        "bundle {}: its vectors were made by the model {bundle}, this seamscope has {loaded}: questions would be embedded by another model; use the model the bundle names (SEAMSCOPE_MODEL_DIR) or export again", .folder.display()
    )]
    Model {
        /// The bundle folder.
        folder: PathBuf,
        /// The bundle's model identity.
        bundle: String,
        /// The loaded model's identity.
        loaded: String,
    },
}

#[derive(Deserialize)]
struct ManifestFile {
    bundle_version: u32,
    files: Vec<BundleFile>,
}

#[derive(Deserialize)]
struct DocumentLine {
    path: String,
    text: String,
}

/// One line of `chunks.jsonl`, as read back (its `text` is the document's span, checked through
/// the spans).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ChunkLine {
    /// The chunk's record, as every listing writes it.
    #[serde(flatten)]
    pub chunk: ChunkInfo,
    /// What was embedded and keyword-indexed.
    pub search_text: String,
}

/// One line of `seams.jsonl`, as read back.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SeamLine {
    /// The seam's record, as every listing writes it.
    #[serde(flatten)]
    pub seam: SeamRecord,
    /// What was embedded and keyword-indexed.
    pub search_text: String,
}

/// A bundle read back and checked.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// The folder it was read from.
    pub folder: PathBuf,
    /// The settings it was made with.
    pub settings: BundleSettings,
    /// Its documents (the corpus as it was exported).
    pub corpus: Corpus,
    /// Its chunks, in id order.
    pub chunks: Vec<ChunkLine>,
    /// Its seams, in id order.
    pub seams: Vec<SeamLine>,
    /// One vector per chunk, in id order.
    pub chunk_vectors: Vec<Vec<f32>>,
    /// One vector per seam, in id order.
    pub seam_vectors: Vec<Vec<f32>>,
}

/// At most this many bytes of a record file (`documents.jsonl`, `chunks.jsonl`,
/// `seams.jsonl`): they hold the whole corpus, so the cap is generous, but a file is never read
/// without one.
const RECORDS_LIMIT: u64 = 4 * 1024 * 1024 * 1024;

/// Read the bundle in `folder`, checking every file against its manifest. Only regular files
/// are read, never through a symbolic link and never past a limit: the JSON files' fixed one,
/// the vectors' from the rows and dimension settings.json gives.
pub fn read_bundle(folder: &Path) -> Result<Bundle, BundleError> {
    let damaged = |name: &str, why: String| damaged_file(folder, name, why);
    let manifest: ManifestFile =
        serde_json::from_slice(&read_file(folder, "manifest.json", JSON_LIMIT)?)
            .map_err(|e| damaged("manifest.json", e.to_string()))?;
    if manifest.bundle_version != BUNDLE_VERSION {
        return Err(BundleError::Version {
            folder: folder.to_path_buf(),
            found: manifest.bundle_version,
        });
    }
    let listed = |name: &str, limit: u64| read_listed(folder, &manifest, name, limit);
    let settings = parse_settings(folder, &listed("settings.json", JSON_LIMIT)?)?;
    let (chunk_limit, seam_limit) = vector_limits(folder, &settings)?;
    let documents: Vec<DocumentLine> = lines(
        folder,
        "documents.jsonl",
        &listed("documents.jsonl", RECORDS_LIMIT)?,
    )?;
    let mut corpus = Corpus::from_texts(documents.into_iter().map(|d| (d.path, d.text)));
    corpus.root = folder.to_path_buf();
    let chunks: Vec<ChunkLine> = lines(
        folder,
        "chunks.jsonl",
        &listed("chunks.jsonl", RECORDS_LIMIT)?,
    )?;
    let seams: Vec<SeamLine> = lines(
        folder,
        "seams.jsonl",
        &listed("seams.jsonl", RECORDS_LIMIT)?,
    )?;
    for (name, records, expected) in [
        ("chunks.jsonl", chunks.len(), settings.chunks),
        ("seams.jsonl", seams.len(), settings.seams),
    ] {
        if records != expected {
            return Err(damaged(
                name,
                format!("{records} records; settings.json says {expected}"),
            ));
        }
    }
    let chunk_vectors = npy::read_npy(
        &listed("chunk_vectors.npy", chunk_limit)?,
        settings.chunks,
        settings.dim,
    )
    .map_err(|why| damaged("chunk_vectors.npy", why))?;
    let seam_vectors = npy::read_npy(
        &listed("seam_vectors.npy", seam_limit)?,
        settings.seams,
        settings.dim,
    )
    .map_err(|why| damaged("seam_vectors.npy", why))?;
    Ok(Bundle {
        folder: folder.to_path_buf(),
        settings,
        corpus,
        chunks,
        seams,
        chunk_vectors,
        seam_vectors,
    })
}

/// The error for a file of the bundle in `folder` that is not what it should be.
fn damaged_file(folder: &Path, name: &str, why: String) -> BundleError {
    BundleError::Damaged {
        folder: folder.to_path_buf(),
        name: name.to_string(),
        why,
    }
}

/// The file `name` as the manifest records it: listed there, its size checked before its bytes
/// are read (at most `limit`), then its length and blake3 against the manifest's.
fn read_listed(
    folder: &Path,
    manifest: &ManifestFile,
    name: &str,
    limit: u64,
) -> Result<Vec<u8>, BundleError> {
    let damaged = |name: &str, why: String| damaged_file(folder, name, why);
    let entry = manifest
        .files
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| damaged(name, "the manifest does not list it".into()))?;
    let bytes = match read_regular(&folder.join(name), limit.min(entry.bytes)) {
        Ok(bytes) => bytes,
        Err(ReadFileError::TooLarge { bytes, .. }) if entry.bytes <= limit => {
            return Err(damaged(
                name,
                format!("{bytes} bytes, the manifest says {}", entry.bytes),
            ));
        }
        Err(e) => return Err(read_error(folder, name, &e)),
    };
    if bytes.len() as u64 != entry.bytes {
        return Err(damaged(
            name,
            format!("{} bytes, the manifest says {}", bytes.len(), entry.bytes),
        ));
    }
    if blake3::hash(&bytes).to_hex().as_str() != entry.blake3 {
        return Err(damaged(
            name,
            "its blake3 differs from the manifest's".into(),
        ));
    }
    Ok(bytes)
}

/// settings.json parsed, with at least one dimension.
fn parse_settings(folder: &Path, bytes: &[u8]) -> Result<BundleSettings, BundleError> {
    let damaged = |name: &str, why: String| damaged_file(folder, name, why);
    let settings: BundleSettings =
        serde_json::from_slice(bytes).map_err(|e| damaged("settings.json", e.to_string()))?;
    if settings.dim == 0 {
        return Err(damaged(
            "settings.json",
            "dim is 0: a vector has at least one dimension".into(),
        ));
    }
    Ok(settings)
}

/// The largest chunk_vectors.npy and seam_vectors.npy the rows and dimension of `settings`
/// allow.
fn vector_limits(folder: &Path, settings: &BundleSettings) -> Result<(u64, u64), BundleError> {
    let npy_limit = |rows: usize, what: &str| {
        npy::npy_limit(rows, settings.dim).ok_or_else(|| {
            damaged_file(
                folder,
                "settings.json",
                format!(
                    "{rows} {what} of {} dimensions cannot be held",
                    settings.dim
                ),
            )
        })
    };
    Ok((
        npy_limit(settings.chunks, "chunks")?,
        npy_limit(settings.seams, "seams")?,
    ))
}

/// The regular file `name` of the bundle in `folder`, at most `limit` bytes.
fn read_file(folder: &Path, name: &str, limit: u64) -> Result<Vec<u8>, BundleError> {
    read_regular(&folder.join(name), limit).map_err(|e| read_error(folder, name, &e))
}

fn read_error(folder: &Path, name: &str, error: &ReadFileError) -> BundleError {
    BundleError::Read {
        folder: folder.to_path_buf(),
        name: name.to_string(),
        message: error.to_string(),
    }
}

/// Parse a JSON Lines file, naming the line that does not parse.
fn lines<T: for<'de> Deserialize<'de>>(
    folder: &Path,
    name: &str,
    bytes: &[u8],
) -> Result<Vec<T>, BundleError> {
    let record = |line: usize, message: String| BundleError::Record {
        folder: folder.to_path_buf(),
        name: name.to_string(),
        line,
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| record(0, e.to_string()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| record(i + 1, e.to_string())))
        .collect()
}

impl BundleSettings {
    /// Put the bundle's chunking and query settings into `settings` (everything else stays)
    /// and check them against their ranges: a value out of range is an error naming the bundle
    /// in `folder`. A bundle of given cuts takes them from its own `chunks.jsonl`.
    pub fn apply(&self, folder: &Path, settings: &mut Settings) -> Result<(), BundleError> {
        settings.chunker = self.chunker_kind;
        settings.chunk_tokens = self.chunk_tokens;
        settings.heading_prefix = self.heading_prefix;
        settings.k = self.k as usize;
        settings.m = self.m;
        settings.budget = self.budget;
        settings.depth = self.depth;
        settings.rrf_c = self.rrf_c;
        settings.side_drop = self.side_drop;
        if settings.chunker == crate::chunk::ChunkerKind::Given {
            // Given cuts travel in the bundle: its chunks.jsonl is a plain cuts file.
            settings.cuts_file = Some(folder.join("chunks.jsonl"));
        }
        settings.validate().map_err(|e| BundleError::Settings {
            folder: folder.to_path_buf(),
            why: e.to_string(),
        })
    }
}

/// Only the settings of the bundle in `folder` (unchecked against the manifest:
/// [`read_bundle`] checks everything), for a front end to set itself up before the bundle
/// opens.
pub fn read_settings(folder: &Path) -> Result<BundleSettings, BundleError> {
    let name = "settings.json";
    let bytes = read_file(folder, name, JSON_LIMIT)?;
    serde_json::from_slice(&bytes).map_err(|e| BundleError::Damaged {
        folder: folder.to_path_buf(),
        name: name.to_string(),
        why: e.to_string(),
    })
}

impl Bundle {
    /// Check that `layout` (the bundle's documents cut again under its settings) gives exactly
    /// the bundle's chunks and seams: ids, documents, spans, token counts, links, search texts.
    pub fn check_layout(&self, layout: &Layout) -> Result<(), BundleError> {
        let fail = |what: String| {
            Err(BundleError::Layout {
                folder: self.folder.clone(),
                what,
            })
        };
        if layout.chunker != self.settings.chunker {
            return fail(format!(
                "the bundle names its chunker {}, its settings give {}",
                self.settings.chunker, layout.chunker
            ));
        }
        if layout.chunks.len() != self.chunks.len() || layout.seams.len() != self.seams.len() {
            return fail(format!(
                "{} chunks and {} seams in the bundle, {} and {} when its documents are cut again",
                self.chunks.len(),
                self.seams.len(),
                layout.chunks.len(),
                layout.seams.len()
            ));
        }
        let (chunk_search, seam_search) = layout.search_texts(&self.corpus);
        for ((c, line), search) in layout.chunks.iter().zip(&self.chunks).zip(&chunk_search) {
            let again = ChunkInfo::of(c, &self.corpus);
            if again != line.chunk || search.as_ref() != line.search_text {
                let l = &line.chunk;
                return fail(format!(
                    "chunk {} differs (bytes {}..{} of {} in the bundle, {}..{} of {} cut again)",
                    l.id, l.start, l.end, l.doc, again.start, again.end, again.doc
                ));
            }
        }
        for ((s, line), search) in layout.seams.iter().zip(&self.seams).zip(&seam_search) {
            let again = SeamRecord::of(s, &self.corpus);
            if again != line.seam || search.as_ref() != line.search_text {
                let l = &line.seam;
                return fail(format!(
                    "seam {}|{} differs (cut at byte {} of {} in the bundle, {} cut again)",
                    l.left, l.right, l.cut, l.doc, again.cut
                ));
            }
        }
        Ok(())
    }
}
