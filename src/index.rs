//! On-disk indexes for one corpus under one setting: vectors (usearch) and keywords (tantivy),
//! one collection each for chunks and seams, tied together by a verified manifest.
//!
//! An index folder is keyed by corpus fingerprint, chunker, `k` and model identity. Reopening an
//! unchanged corpus embeds nothing; a damaged or mismatched folder is rebuilt, never trusted.

pub mod keywords;
pub mod manifest;
pub mod search;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::corpus::Corpus;
use crate::embed::cache::{CacheOpen, VectorCache};
use crate::embed::{EmbedError, EmbedOptions, EmbedStats, Embedder, embed_texts};
use crate::layout::Layout;
use crate::tokens::TokenCounter;
use keywords::{KeywordError, KeywordIndex};
use manifest::{FORMAT_VERSION, Manifest};
use vectors::{SearchMode, VectorError, VectorIndex};

/// Why an index could not be opened or built.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Embedding failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The vector index failed.
    #[error(transparent)]
    Vector(#[from] VectorError),
    /// The keyword index failed.
    #[error(transparent)]
    Keyword(#[from] KeywordError),
    /// A file operation failed.
    #[error("index folder {path}: {message}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |e| IndexError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

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

/// The open indexes of one corpus under one setting.
#[derive(Debug)]
pub struct IndexSet {
    /// The folder they live in.
    pub dir: PathBuf,
    /// What they were built from.
    pub manifest: Manifest,
    /// Chunk vectors, keyed by chunk id.
    pub chunk_vectors: VectorIndex,
    /// Seam vectors, keyed by seam id.
    pub seam_vectors: VectorIndex,
    /// BM25 over chunk text.
    pub chunk_keywords: KeywordIndex,
    /// BM25 over seam windows.
    pub seam_keywords: KeywordIndex,
    /// Exact or approximate dense search.
    pub search_mode: SearchMode,
}

/// Where the indexes of `layout` over a corpus with this `fingerprint` live under `cache_dir`.
pub fn index_dir(cache_dir: &Path, fingerprint: &str, layout: &Layout, model: &str) -> PathBuf {
    let mut h = blake3::Hasher::new();
    for part in [
        FORMAT_VERSION.to_string(),
        fingerprint.to_string(),
        layout.chunker.clone(),
        layout.k.to_string(),
        model.to_string(),
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    cache_dir.join("indexes").join(&h.finalize().to_hex()[..24])
}

/// Options for [`open_or_build`].
#[derive(Debug, Clone, Copy)]
pub struct BuildOptions {
    /// Above this many vectors in a collection, dense search is approximate.
    pub exact_search_limit: usize,
    /// Embedding slice size.
    pub embed: EmbedOptions,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            exact_search_limit: 50_000,
            embed: EmbedOptions::default(),
        }
    }
}

/// Open the verified indexes of `layout`, or build them (embedding only what the vector cache
/// does not already hold).
#[allow(clippy::too_many_arguments)]
pub fn open_or_build(
    corpus: &Corpus,
    layout: &Layout,
    embedder: &mut dyn Embedder,
    tokenizer: &TokenCounter,
    cache_dir: &Path,
    options: BuildOptions,
    progress: &mut dyn FnMut(BuildProgress) -> bool,
) -> Result<(IndexSet, BuildReport), IndexError> {
    // Hash the corpus once: the folder name, the manifest check and the new manifest all use it.
    let fingerprint = corpus.fingerprint();
    let dir = index_dir(cache_dir, &fingerprint, layout, embedder.identity());
    let started = Instant::now();
    let mut rebuilt_because = None;
    if dir.exists() {
        progress(BuildProgress {
            stage: BuildStage::Verify,
            done: 0,
            total: 1,
        });
        match open_existing(&dir, &fingerprint, layout, embedder, options) {
            Ok(set) => {
                let report = BuildReport {
                    dir: dir.clone(),
                    reopened: true,
                    rebuilt_because: None,
                    vector_cache: CacheOpen::New,
                    chunk_embedding: EmbedStats::default(),
                    seam_embedding: EmbedStats::default(),
                    timings: BuildTimings {
                        open: started.elapsed().as_secs_f64(),
                        ..BuildTimings::default()
                    },
                    bytes_on_disk: sizes(&set.manifest),
                    search_mode: set.search_mode,
                };
                return Ok((set, report));
            }
            Err(reason) => {
                rebuilt_because = Some(reason);
                std::fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
            }
        }
    }
    let open_secs = started.elapsed().as_secs_f64();

    let (mut cache, cache_state) = VectorCache::for_model(cache_dir, embedder);

    let t0 = Instant::now();
    // Search texts: the exact spans, with any search-only context (heading path, table header).
    let (chunk_search, seam_search) = layout.search_texts(corpus);
    let chunk_texts: Vec<&str> = chunk_search.iter().map(|t| t.as_ref()).collect();
    let seam_texts: Vec<&str> = seam_search.iter().map(|t| t.as_ref()).collect();
    let (chunk_vecs, chunk_stats) = embed_texts(
        embedder,
        tokenizer,
        &mut cache,
        &chunk_texts,
        options.embed,
        &mut |p| {
            progress(BuildProgress {
                stage: BuildStage::EmbedChunks,
                done: p.done_tokens,
                total: p.total_tokens,
            })
        },
    )?;
    // Save after each collection so finished work survives an interruption.
    cache.save().map_err(io_err(cache.path()))?;
    let t1 = Instant::now();
    let (seam_vecs, seam_stats) = embed_texts(
        embedder,
        tokenizer,
        &mut cache,
        &seam_texts,
        options.embed,
        &mut |p| {
            progress(BuildProgress {
                stage: BuildStage::EmbedSeams,
                done: p.done_tokens,
                total: p.total_tokens,
            })
        },
    )?;
    cache.save().map_err(io_err(cache.path()))?;
    let t2 = Instant::now();

    progress(BuildProgress {
        stage: BuildStage::WriteIndexes,
        done: 0,
        total: 1,
    });
    let parent = dir.parent().unwrap_or(cache_dir);
    std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(parent)
        .map_err(io_err(parent))?;
    let sdir = staging.path();
    let dim = embedder.dim();
    VectorIndex::build(dim, &chunk_vecs)?.save(&sdir.join("chunks.usearch"))?;
    VectorIndex::build(dim, &seam_vecs)?.save(&sdir.join("seams.usearch"))?;
    for (name, texts) in [("chunks.bm25", &chunk_texts), ("seams.bm25", &seam_texts)] {
        let kdir = sdir.join(name);
        std::fs::create_dir_all(&kdir).map_err(io_err(&kdir))?;
        KeywordIndex::build(&kdir, texts)?;
    }
    let mut manifest = Manifest {
        format_version: FORMAT_VERSION,
        corpus_fingerprint: fingerprint.clone(),
        chunker: layout.chunker.clone(),
        k: layout.k,
        model: embedder.identity().to_string(),
        dim,
        chunks: layout.chunks.len(),
        seams: layout.seams.len(),
        files: Default::default(),
    };
    manifest.record_files(sdir).map_err(io_err(sdir))?;
    manifest.write(sdir).map_err(io_err(sdir))?;
    let staged = staging.keep();
    if let Err(e) = std::fs::rename(&staged, &dir) {
        let _ = std::fs::remove_dir_all(&staged);
        // Another process may have finished the same build first; use it if it verifies.
        if !dir.exists() {
            return Err(io_err(&dir)(e));
        }
    }
    let set = open_existing(&dir, &fingerprint, layout, embedder, options).map_err(|m| {
        IndexError::Io {
            path: dir.clone(),
            message: format!("freshly built index does not verify: {m}"),
        }
    })?;
    let t3 = Instant::now();
    let report = BuildReport {
        dir,
        reopened: false,
        rebuilt_because,
        vector_cache: cache_state,
        chunk_embedding: chunk_stats,
        seam_embedding: seam_stats,
        timings: BuildTimings {
            open: open_secs,
            embed_chunks: (t1 - t0).as_secs_f64(),
            embed_seams: (t2 - t1).as_secs_f64(),
            write_indexes: (t3 - t2).as_secs_f64(),
        },
        bytes_on_disk: sizes(&set.manifest),
        search_mode: set.search_mode,
    };
    Ok((set, report))
}

fn sizes(m: &Manifest) -> IndexSizes {
    IndexSizes {
        chunk_vectors: m.bytes_under("chunks.usearch"),
        seam_vectors: m.bytes_under("seams.usearch"),
        chunk_keywords: m.bytes_under("chunks.bm25/"),
        seam_keywords: m.bytes_under("seams.bm25/"),
    }
}

/// Open a folder only if its manifest matches this corpus, layout and model and every file
/// verifies. Returns the reason otherwise.
fn open_existing(
    dir: &Path,
    fingerprint: &str,
    layout: &Layout,
    embedder: &dyn Embedder,
    options: BuildOptions,
) -> Result<IndexSet, String> {
    let manifest = Manifest::read(dir)?;
    let expected = (
        FORMAT_VERSION,
        fingerprint,
        layout.chunker.as_str(),
        layout.k,
        embedder.identity(),
        embedder.dim(),
        layout.chunks.len(),
        layout.seams.len(),
    );
    let found = (
        manifest.format_version,
        manifest.corpus_fingerprint.as_str(),
        manifest.chunker.as_str(),
        manifest.k,
        manifest.model.as_str(),
        manifest.dim,
        manifest.chunks,
        manifest.seams,
    );
    if expected != found {
        return Err("the manifest does not match this corpus, settings and model".into());
    }
    manifest.verify(dir)?;
    let chunk_vectors =
        VectorIndex::load(&dir.join("chunks.usearch"), manifest.dim, manifest.chunks)
            .map_err(|e| e.to_string())?;
    let seam_vectors = VectorIndex::load(&dir.join("seams.usearch"), manifest.dim, manifest.seams)
        .map_err(|e| e.to_string())?;
    let chunk_keywords = KeywordIndex::open(&dir.join("chunks.bm25")).map_err(|e| e.to_string())?;
    let seam_keywords = KeywordIndex::open(&dir.join("seams.bm25")).map_err(|e| e.to_string())?;
    if chunk_keywords.len() != manifest.chunks || seam_keywords.len() != manifest.seams {
        return Err("keyword index entry counts do not match the manifest".into());
    }
    let search_mode = if manifest.chunks.max(manifest.seams) <= options.exact_search_limit {
        SearchMode::Exact
    } else {
        SearchMode::Approximate
    };
    Ok(IndexSet {
        dir: dir.to_path_buf(),
        manifest,
        chunk_vectors,
        seam_vectors,
        chunk_keywords,
        seam_keywords,
        search_mode,
    })
}
