//! A bundle opened again: every file checked against the manifest (size and blake3), the
//! documents read back, the layout cut again from them and compared record by record with the
//! bundle's chunks and seams, and the vectors read from the `.npy` files. What comes back is
//! exactly what was deployed, or an error that names the file and what is wrong with it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{BUNDLE_VERSION, BundleFile, BundleSettings};
use crate::corpus::Corpus;
use crate::embed::Embedder;
use crate::index::{BuildReport, IndexSet};
use crate::layout::Layout;
use crate::session::report::{ChunkInfo, SeamRecord};
use crate::session::{Engine, EngineError, OpenCorpus};
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

/// Why a bundle does not open on the loaded engine: the bundle itself, or laying it out and
/// indexing it under its settings.
#[derive(Debug, thiserror::Error)]
pub enum OpenBundleError {
    /// The bundle is unreadable, damaged, from another version or for another model.
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// Its settings, layout or indexes failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
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

/// The files every bundle holds besides `manifest.json`.
const FILES: [&str; 6] = [
    "settings.json",
    "documents.jsonl",
    "chunks.jsonl",
    "seams.jsonl",
    "chunk_vectors.npy",
    "seam_vectors.npy",
];

/// Read the bundle in `folder`, checking every file against its manifest.
pub fn read_bundle(folder: &Path) -> Result<Bundle, BundleError> {
    let read = |name: &str| {
        std::fs::read(folder.join(name)).map_err(|e| BundleError::Read {
            folder: folder.to_path_buf(),
            name: name.to_string(),
            message: e.to_string(),
        })
    };
    let damaged = |name: &str, why: String| BundleError::Damaged {
        folder: folder.to_path_buf(),
        name: name.to_string(),
        why,
    };
    let manifest: ManifestFile = serde_json::from_slice(&read("manifest.json")?)
        .map_err(|e| damaged("manifest.json", e.to_string()))?;
    if manifest.bundle_version != BUNDLE_VERSION {
        return Err(BundleError::Version {
            folder: folder.to_path_buf(),
            found: manifest.bundle_version,
        });
    }
    let mut contents = Vec::with_capacity(FILES.len());
    for name in FILES {
        let entry = manifest
            .files
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| damaged(name, "the manifest does not list it".into()))?;
        let bytes = read(name)?;
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
        contents.push(bytes);
    }
    let [settings, documents, chunks, seams, chunk_npy, seam_npy] =
        <[Vec<u8>; 6]>::try_from(contents)
            .map_err(|_| damaged("manifest.json", "files missing".into()))?;
    let settings: BundleSettings =
        serde_json::from_slice(&settings).map_err(|e| damaged("settings.json", e.to_string()))?;
    if settings.dim == 0 {
        return Err(damaged(
            "settings.json",
            "dim is 0: a vector has at least one dimension".into(),
        ));
    }
    let documents: Vec<DocumentLine> = lines(folder, "documents.jsonl", &documents)?;
    let mut corpus = Corpus::from_texts(documents.into_iter().map(|d| (d.path, d.text)));
    corpus.root = folder.to_path_buf();
    let chunks: Vec<ChunkLine> = lines(folder, "chunks.jsonl", &chunks)?;
    let seams: Vec<SeamLine> = lines(folder, "seams.jsonl", &seams)?;
    let chunk_vectors =
        read_npy(&chunk_npy, settings.dim).map_err(|why| damaged("chunk_vectors.npy", why))?;
    let seam_vectors =
        read_npy(&seam_npy, settings.dim).map_err(|why| damaged("seam_vectors.npy", why))?;
    for (name, rows, records, expected) in [
        (
            "chunk_vectors.npy",
            chunk_vectors.len(),
            chunks.len(),
            settings.chunks,
        ),
        (
            "seam_vectors.npy",
            seam_vectors.len(),
            seams.len(),
            settings.seams,
        ),
    ] {
        if rows != records || records != expected {
            return Err(damaged(
                name,
                format!("{rows} vectors for {records} records; settings.json says {expected}"),
            ));
        }
    }
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

/// The rows of a float32 `.npy` file (version 1 or 2, little-endian, C order, two dimensions
/// with `dim` columns), or why it is not one.
pub fn read_npy(bytes: &[u8], dim: usize) -> Result<Vec<Vec<f32>>, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!(".npy version {v} is not read")),
    };
    let header = bytes
        .get(start..start + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("the .npy header is cut short")?;
    let compact: String = header.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.contains("'descr':'<f4'") || !compact.contains("'fortran_order':False") {
        return Err(format!(
            "expected little-endian float32 in C order, the header says {}",
            header.trim()
        ));
    }
    let shape = compact
        .split("'shape':(")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or("the .npy header has no shape")?;
    let dims: Vec<usize> = shape
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|e| format!("shape {shape}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let [rows, cols] = dims[..] else {
        return Err(format!("expected two dimensions, the shape is ({shape})"));
    };
    if cols == 0 {
        return Err(format!(
            "shape ({shape}) has no columns: a vector has at least one"
        ));
    }
    if cols != dim {
        return Err(format!("{cols} columns, settings.json says dim {dim}"));
    }
    let data = &bytes[start + header_len..];
    if data.len() != rows * cols * 4 {
        return Err(format!(
            "{} bytes of data for shape ({rows}, {cols})",
            data.len()
        ));
    }
    Ok(data
        .chunks_exact(cols * 4)
        .map(|row| {
            row.chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        })
        .collect())
}

impl BundleSettings {
    /// Put the bundle's chunking and query settings into `settings` (everything else stays).
    pub fn apply(&self, settings: &mut Settings) {
        settings.chunker = self.chunker_kind;
        settings.chunk_tokens = self.chunk_tokens;
        settings.heading_prefix = self.heading_prefix;
        settings.k = self.k as usize;
        settings.m = self.m;
        settings.budget = self.budget;
        settings.depth = self.depth;
        settings.rrf_c = self.rrf_c;
        settings.side_drop = self.side_drop;
    }
}

/// Only the settings of the bundle in `folder` (unchecked: [`read_bundle`] checks everything),
/// for a front end to set itself up before the bundle opens.
pub fn read_settings(folder: &Path) -> Result<BundleSettings, BundleError> {
    let name = "settings.json";
    let bytes = std::fs::read(folder.join(name)).map_err(|e| BundleError::Read {
        folder: folder.to_path_buf(),
        name: name.to_string(),
        message: e.to_string(),
    })?;
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

impl Engine {
    /// Open the bundle `seamscope export` wrote into `folder`, read-only: its documents, its
    /// layout (cut again under its settings and checked against its records), its vectors and
    /// keyword indexes in memory. The engine's settings take the bundle's chunking and query
    /// settings; the loaded model must be the one the bundle's vectors came from. Nothing is
    /// embedded but the questions. (It lives with the bundle reader, so that the session knows
    /// nothing of the bundle format.)
    pub fn open_bundle(&mut self, folder: &Path) -> Result<OpenCorpus, OpenBundleError> {
        let bundle = read_bundle(folder)?;
        let loaded = self.embedder.identity().to_string();
        let prefixes = (
            bundle.settings.query_prefix.as_str(),
            bundle.settings.document_prefix.as_str(),
        );
        if prefixes
            != (
                self.embedder.query_prefix(),
                self.embedder.document_prefix(),
            )
        {
            return Err(BundleError::Model {
                folder: folder.to_path_buf(),
                bundle: format!(
                    "{} with query prefix {:?} and document prefix {:?}",
                    bundle.settings.model, prefixes.0, prefixes.1
                ),
                loaded: format!(
                    "{loaded} with query prefix {:?} and document prefix {:?}",
                    self.embedder.query_prefix(),
                    self.embedder.document_prefix()
                ),
            }
            .into());
        }
        if bundle.settings.model != loaded || bundle.settings.dim != self.embedder.dim() {
            return Err(BundleError::Model {
                folder: folder.to_path_buf(),
                bundle: bundle.settings.model.clone(),
                loaded,
            }
            .into());
        }
        let mut settings = self.settings.clone();
        bundle.settings.apply(&mut settings);
        if settings.chunker == crate::chunk::ChunkerKind::Given {
            // Given cuts travel in the bundle: its chunks.jsonl is a plain cuts file.
            settings.cuts_file = Some(folder.join("chunks.jsonl"));
        }
        settings.validate().map_err(EngineError::from)?;
        let layout = Layout::for_settings(&bundle.corpus, &self.tokenizer, &settings)
            .map_err(EngineError::from)?;
        bundle.check_layout(&layout)?;
        let indexes = IndexSet::with_vectors(
            &bundle.corpus,
            &layout,
            (
                bundle.settings.dim,
                &bundle.chunk_vectors,
                &bundle.seam_vectors,
            ),
            settings.exact_search_limit,
            folder,
        )
        .map_err(EngineError::from)?;
        self.settings = settings;
        let report = BuildReport::in_memory(folder.to_path_buf(), true, indexes.search_mode);
        Ok(OpenCorpus {
            corpus: bundle.corpus,
            layout,
            indexes,
            report,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::npy_bytes;

    #[test]
    fn npy_round_trips_and_bad_headers_are_named() {
        let a = [1.0f32, -2.5, 3.25];
        let b = [0.0f32, 0.5, -0.125];
        let bytes = npy_bytes(&[&a, &b], 3);
        assert_eq!(read_npy(&bytes, 3), Ok(vec![a.to_vec(), b.to_vec()]));
        assert!(read_npy(&bytes, 4).unwrap_err().contains("3 columns"));
        assert!(
            read_npy(&bytes[..bytes.len() - 4], 3)
                .unwrap_err()
                .contains("bytes of data")
        );
        assert!(
            read_npy(b"PK\x03\x04 not numpy", 3)
                .unwrap_err()
                .contains("not a .npy")
        );
        let mut f8 = bytes.clone();
        let at = f8.windows(3).position(|w| w == b"<f4").unwrap_or(0);
        f8[at + 2] = b'8';
        assert!(read_npy(&f8, 3).unwrap_err().contains("float32"));
        // Shape (83, 0) under dim 0: no columns, refused (once a panic in chunks_exact(0)).
        let mut no_columns = npy_bytes(&[], 0);
        let at = no_columns
            .windows(6)
            .position(|w| w == b"(0, 0)")
            .unwrap_or(0);
        no_columns[at..at + 6].copy_from_slice(b"(83,0)");
        assert!(read_npy(&no_columns, 0).unwrap_err().contains("no columns"));
    }
}
