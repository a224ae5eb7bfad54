//! What opening or building an index reports: its stages and progress, the time per stage, and
//! the sizes on disk.

use std::path::PathBuf;

use serde::Serialize;

use super::chroma;
use super::lineage::{CorpusChanges, FileEmbedded};
use super::manifest::Manifest;
use super::vectors::SearchMode;
use crate::embed::EmbedStats;
use crate::embed::cache::CacheOpen;

/// The stages of building an index, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildStage {
    /// Checking an existing index folder.
    Verify,
    /// Embedding chunk texts.
    EmbedChunks,
    /// Embedding seam windows.
    EmbedSeams,
    /// Writing vector and keyword indexes.
    WriteIndexes,
    /// Checking and filling the collections of a vector database server (Chroma, Postgres).
    UploadVectors,
}

impl BuildStage {
    /// The stage in words, for progress lines and the screen.
    pub fn describe(self) -> &'static str {
        match self {
            BuildStage::Verify => "verifying the cached index",
            BuildStage::EmbedChunks => "embedding chunks",
            BuildStage::EmbedSeams => "embedding seams",
            BuildStage::WriteIndexes => "writing indexes",
            BuildStage::UploadVectors => "filling the vector store",
        }
    }
}

/// Progress of a build: a stage and how far it is, in its own units (tokens when embedding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    /// The stage.
    pub stage: BuildStage,
    /// Units done.
    pub done: usize,
    /// Units in all.
    pub total: usize,
}

impl BuildProgress {
    /// A stage just begun that is counted as one unit (verifying, writing the indexes).
    pub fn starting(stage: BuildStage) -> BuildProgress {
        BuildProgress {
            stage,
            done: 0,
            total: 1,
        }
    }
}

/// Seconds spent per stage of opening or building.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct BuildTimings {
    /// Checking and opening an existing folder.
    pub open: f64,
    /// Embedding chunks (cache work included).
    pub embed_chunks: f64,
    /// Embedding seams (cache work included).
    pub embed_seams: f64,
    /// Writing usearch and tantivy indexes and the manifest.
    pub write_indexes: f64,
}

/// What opening or building an index did.
#[derive(Debug, Clone, Serialize)]
pub struct BuildReport {
    /// The index folder.
    pub dir: PathBuf,
    /// True when an existing, verified index was reopened without embedding anything.
    pub reopened: bool,
    /// Why an existing folder was not used, when it was rebuilt.
    pub rebuilt_because: Option<String>,
    /// How the vector cache opened.
    pub vector_cache: CacheOpen,
    /// Embedding of chunk texts.
    pub chunk_embedding: EmbedStats,
    /// Embedding of seam windows.
    pub seam_embedding: EmbedStats,
    /// Time per stage.
    pub timings: BuildTimings,
    /// Bytes on disk: chunk vectors, seam vectors, chunk keywords, seam keywords.
    pub bytes_on_disk: IndexSizes,
    /// Whether dense search is exact or approximate at this size.
    pub search_mode: SearchMode,
    /// Which files differ from the index this corpus folder last had under this setting (none
    /// when there was none, or when a verified index was reopened).
    pub changes: Option<CorpusChanges>,
    /// Per file, the chunk and seam texts that were embedded (the vector cache held the rest).
    pub embedded_files: Vec<FileEmbedded>,
    /// What attaching the index to a Chroma server did, when its vectors live there.
    pub store: Option<chroma::StoreSync>,
}

impl BuildReport {
    /// The report of indexes made in memory (a keyword preview, a bundle): nothing embedded,
    /// nothing on disk. `reopened`: whether they hold vectors made earlier.
    pub fn in_memory(dir: PathBuf, reopened: bool, search_mode: SearchMode) -> BuildReport {
        BuildReport {
            dir,
            reopened,
            rebuilt_because: None,
            vector_cache: CacheOpen::NotOpened,
            chunk_embedding: EmbedStats::default(),
            seam_embedding: EmbedStats::default(),
            timings: BuildTimings::default(),
            bytes_on_disk: IndexSizes::default(),
            search_mode,
            changes: None,
            embedded_files: Vec::new(),
            store: None,
        }
    }
}

/// Sizes of the index files on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IndexSizes {
    /// usearch file of chunk vectors.
    pub chunk_vectors: u64,
    /// usearch file of seam vectors.
    pub seam_vectors: u64,
    /// tantivy folder of chunk text.
    pub chunk_keywords: u64,
    /// tantivy folder of seam text.
    pub seam_keywords: u64,
}

/// The sizes of the files a manifest records.
pub(super) fn sizes(m: &Manifest) -> IndexSizes {
    IndexSizes {
        chunk_vectors: m.bytes_under("chunks.usearch"),
        seam_vectors: m.bytes_under("seams.usearch"),
        chunk_keywords: m.bytes_under("chunks.bm25/"),
        seam_keywords: m.bytes_under("seams.bm25/"),
    }
}
