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

pub mod provenance;
pub mod read;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkerKind;

use crate::embed::cache::{VectorCache, text_key};
use crate::layout::Layout;
use crate::retrieve::QuerySettings;
use crate::session::OpenCorpus;
use crate::session::report::{ChunkInfo, SeamRecord};

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
    pub calibration: Option<crate::calibrate::provenance::CalibrationOrigin>,
    /// The strategy-board row `k`, `m` and side drop came from (`export --from-tune`).
    #[serde(default)]
    pub tune: Option<crate::board::origin::TuneOrigin>,
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

/// `rows` vectors of `dim` floats as a NumPy `.npy` file (version 1.0, little-endian float32,
/// C order), the format `numpy.load` reads.
pub fn npy_bytes(rows: &[&[f32]], dim: usize) -> Vec<u8> {
    let header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {dim}), }}",
        rows.len()
    );
    // Magic (6) + version (2) + header length (2) + header + padding + newline, to a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let header_len = header.len() + padding + 1;
    let mut out = Vec::with_capacity(10 + header_len + rows.len() * dim * 4);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header_len as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padding));
    out.push(b'\n');
    for row in rows {
        for v in row.iter().take(dim) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
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
    pub calibration: Option<crate::calibrate::provenance::CalibrationOrigin>,
    /// The strategy-board row behind it, when one was given.
    pub tune: Option<crate::board::origin::TuneOrigin>,
    /// The embedder's query and document prefixes.
    pub prefixes: (String, String),
}

/// Write the bundle of `open` (cut as `cut` says) under `settings` into `folder` (created; it
/// must be new or empty), with vectors from `cache` (the model's vector cache, which indexing
/// filled).
#[allow(clippy::too_many_arguments)]
pub fn write_bundle(
    open: &OpenCorpus,
    cut: BundleLayout,
    settings: &QuerySettings,
    cache: &VectorCache,
    model: &str,
    dim: usize,
    folder: &Path,
) -> Result<BundleReport, ExportError> {
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |error| ExportError::Write { path, error }
    };
    if folder.exists() {
        let mut entries = std::fs::read_dir(folder).map_err(write_err(folder))?;
        if entries.next().is_some() {
            return Err(ExportError::NotEmpty(folder.to_path_buf()));
        }
    }
    std::fs::create_dir_all(folder).map_err(write_err(folder))?;
    let layout: &Layout = &open.layout;
    let corpus = &open.corpus;
    let (chunk_search, seam_search) = layout.search_texts(corpus);
    let vector = |label: String, text: &str| -> Result<&[f32], ExportError> {
        cache
            .get(&text_key(text))
            .map(|(v, _)| v)
            .ok_or(ExportError::MissingVector(label))
    };
    let mut files = Vec::new();
    let mut put = |name: &str, bytes: Vec<u8>| -> Result<(), ExportError> {
        let path = folder.join(name);
        let mut file = std::fs::File::create(&path).map_err(write_err(&path))?;
        file.write_all(&bytes).map_err(write_err(&path))?;
        files.push(BundleFile {
            name: name.to_string(),
            bytes: bytes.len() as u64,
            blake3: blake3::hash(&bytes).to_hex().to_string(),
        });
        Ok(())
    };

    let mut document_lines = Vec::new();
    for doc in &corpus.documents {
        let record = DocumentRecord {
            path: &doc.path,
            text: &doc.text,
        };
        document_lines.extend(serde_json::to_vec(&record).unwrap_or_default());
        document_lines.push(b'\n');
    }
    let mut chunk_lines = Vec::new();
    let mut chunk_vectors = Vec::with_capacity(layout.chunks.len());
    for (c, search) in layout.chunks.iter().zip(&chunk_search) {
        let doc = corpus.doc(c.doc);
        let record = ChunkRecord {
            chunk: ChunkInfo::of(c, corpus),
            text: doc.slice(c.span),
            search_text: search,
        };
        chunk_lines.extend(serde_json::to_vec(&record).unwrap_or_default());
        chunk_lines.push(b'\n');
        chunk_vectors.push(vector(format!("chunk {}", c.id.0), search)?);
    }
    let mut seam_lines = Vec::new();
    let mut seam_vectors = Vec::with_capacity(layout.seams.len());
    for (s, search) in layout.seams.iter().zip(&seam_search) {
        let doc = corpus.doc(s.doc);
        let record = SeamLine {
            seam: SeamRecord::of(s, corpus),
            text: doc.slice(s.span),
            search_text: search,
        };
        seam_lines.extend(serde_json::to_vec(&record).unwrap_or_default());
        seam_lines.push(b'\n');
        seam_vectors.push(vector(format!("seam {}|{}", s.left.0, s.right.0), search)?);
    }
    let bundle_settings = BundleSettings {
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
    };
    put(
        "settings.json",
        serde_json::to_vec_pretty(&bundle_settings).unwrap_or_default(),
    )?;
    put("documents.jsonl", document_lines)?;
    put("chunks.jsonl", chunk_lines)?;
    put("seams.jsonl", seam_lines)?;
    put("chunk_vectors.npy", npy_bytes(&chunk_vectors, dim))?;
    put("seam_vectors.npy", npy_bytes(&seam_vectors, dim))?;
    let manifest = serde_json::json!({
        "bundle_version": BUNDLE_VERSION,
        "written_by": format!("seamscope {}", env!("CARGO_PKG_VERSION")),
        "files": files,
    });
    let path = folder.join("manifest.json");
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&manifest).unwrap_or_default(),
    )
    .map_err(write_err(&path))?;
    Ok(BundleReport {
        folder: folder.to_path_buf(),
        settings: bundle_settings,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_has_numpys_header_and_little_endian_rows() {
        let a = [1.0f32, 2.0];
        let b = [3.0f32, -0.5];
        let bytes = npy_bytes(&[&a, &b], 2);
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0, "the data starts 64-aligned");
        let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap_or_default();
        assert!(
            header.contains("'shape': (2, 2)") && header.ends_with('\n'),
            "{header}"
        );
        let data = &bytes[10 + header_len..];
        assert_eq!(data.len(), 16);
        assert_eq!(&data[12..16], &(-0.5f32).to_le_bytes());
    }
}
