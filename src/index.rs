//! On-disk indexes for one corpus under one setting: vectors (usearch) and keywords (tantivy),
//! one collection each for chunks and seams, tied together by a verified manifest.
//!
//! An index folder is keyed by corpus fingerprint, chunker, `k` and model identity. Reopening an
//! unchanged corpus embeds nothing; a damaged or mismatched folder is rebuilt, never trusted.

pub mod chroma;
pub mod disk;
pub mod keywords;
pub mod lineage;
pub mod manifest;
pub mod pgvector;
pub mod remote;
pub mod report;
pub mod search;
mod staging;
pub mod store;
pub mod usage;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::corpus::Corpus;
use crate::embed::cache::{CacheOpen, VectorCache};
use crate::embed::{EmbedError, EmbedOptions, EmbedStats, Embedder, embed_texts};
use crate::layout::Layout;
use crate::spec::store::StoreKind;
use crate::tokens::TokenCounter;
use keywords::{KeywordError, KeywordIndex};
use lineage::CorpusChanges;
use manifest::{FORMAT_VERSION, Manifest};
use report::sizes;
pub use report::{BuildProgress, BuildReport, BuildStage, BuildTimings, IndexSizes};
use staging::{BUILD_LOCK, remove_stale_builds};
use vectors::{DenseCollection, SearchMode, VectorError, VectorIndex};

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
    /// The server holding the vectors failed (each store's error, from its own folder).
    #[error(transparent)]
    Server(#[from] remote::ServerError),
    /// The cache folder cannot be written, found before any embedding starts.
    #[error(
        "the cache folder {} cannot be written ({message}); nothing was embedded: choose a writable folder with --cache-dir, SEAMSCOPE_CACHE_DIR or cache_dir in settings.toml",
        crate::text::safe_name(&.dir.display().to_string())
    )]
    CacheNotWritable {
        /// The cache folder.
        dir: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The vector cache could not be saved (the texts embedded so far are in memory only).
    #[error("vector cache {}: {message}", crate::text::safe_name(&.path.display().to_string()))]
    CacheSave {
        /// The cache file.
        path: PathBuf,
        /// What went wrong (a full disk says so, with the space left).
        message: String,
    },
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
        message: disk::describe(&e, path),
    }
}

/// The open indexes of one corpus under one setting.
#[derive(Debug)]
pub struct IndexSet {
    /// The folder they live in (empty for a keyword-only set, which lives in memory).
    pub dir: PathBuf,
    /// What they were built from.
    pub manifest: Manifest,
    /// Chunk vectors, keyed by chunk id (the embedded usearch index, or a server's collection
    /// once a [`remote::ServerStore`] attached it).
    pub chunk_vectors: Box<dyn DenseCollection>,
    /// Seam vectors, keyed by seam id.
    pub seam_vectors: Box<dyn DenseCollection>,
    /// BM25 over chunk text.
    pub chunk_keywords: KeywordIndex,
    /// BM25 over seam windows.
    pub seam_keywords: KeywordIndex,
    /// Exact or approximate dense search.
    pub search_mode: SearchMode,
    /// Where the dense vectors are searched.
    pub store: DenseStore,
}

/// Where an index's dense vectors are searched. In JSON: `"embedded"`, or the store's name
/// holding its server and collections (`{"chroma": {"url", "collections"}}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DenseStore {
    /// usearch, in the index folder or in memory.
    Embedded,
    /// Collections in a server (Chroma: the chunk and the seam collection; pgvector: one
    /// collection of langchain-postgres's tables, searched through its HNSW indexes).
    Server {
        /// Which kind of server.
        kind: StoreKind,
        /// The server, any password masked.
        url: String,
        /// The collections' names.
        collections: Vec<String>,
    },
}

impl Serialize for DenseStore {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            DenseStore::Embedded => serializer.serialize_str(StoreKind::Embedded.label()),
            DenseStore::Server {
                kind,
                url,
                collections,
            } => {
                #[derive(Serialize)]
                struct At<'a> {
                    url: &'a str,
                    collections: &'a [String],
                }
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(kind.label(), &At { url, collections })?;
                map.end()
            }
        }
    }
}

impl DenseStore {
    /// Which kind of store searches the vectors.
    pub fn kind(&self) -> StoreKind {
        match self {
            DenseStore::Embedded => StoreKind::Embedded,
            DenseStore::Server { kind, .. } => *kind,
        }
    }

    /// The server, any password masked (None for the embedded store).
    pub fn address(&self) -> Option<&str> {
        match self {
            DenseStore::Embedded => None,
            DenseStore::Server { url, .. } => Some(url),
        }
    }

    /// The screen's words for dense search in a server (None: embedded, where the search
    /// mode says it), in full or as the store's short name.
    pub fn screen_label(&self, short: bool) -> Option<&'static str> {
        let facts = self.kind().facts();
        facts
            .screen
            .map(|full| if short { facts.title } else { full })
    }
}

impl IndexSet {
    /// The keyword indexes of `layout` alone, held in memory, with no vectors yet
    /// ([`SearchMode::Pending`]): what a screen can search from the moment the text is cut,
    /// while [`open_or_build`] embeds. Nothing is written to disk.
    pub fn keywords_only(corpus: &Corpus, layout: &Layout) -> Result<IndexSet, IndexError> {
        IndexSet::in_memory(
            corpus,
            layout,
            (1, &[], &[]),
            SearchMode::Pending,
            Path::new(""),
        )
    }

    /// Indexes held in memory for a laid-out corpus whose vectors are given, as a bundle holds
    /// them (`vectors`: dimension, one per chunk, one per seam, in id order): the vectors as
    /// they are, keyword indexes built from the layout's search texts. `dir` says where they
    /// came from.
    pub fn with_vectors(
        corpus: &Corpus,
        layout: &Layout,
        vectors: (usize, &[Vec<f32>], &[Vec<f32>]),
        exact_search_limit: usize,
        dir: &Path,
    ) -> Result<IndexSet, IndexError> {
        let mode = if vectors.1.len().max(vectors.2.len()) <= exact_search_limit {
            SearchMode::Exact
        } else {
            SearchMode::Approximate
        };
        IndexSet::in_memory(corpus, layout, vectors, mode, dir)
    }

    fn in_memory(
        corpus: &Corpus,
        layout: &Layout,
        (dim, chunk_vectors, seam_vectors): (usize, &[Vec<f32>], &[Vec<f32>]),
        search_mode: SearchMode,
        dir: &Path,
    ) -> Result<IndexSet, IndexError> {
        let (chunk_search, seam_search) = layout.search_texts(corpus);
        let chunk_texts: Vec<&str> = chunk_search.iter().map(|t| t.as_ref()).collect();
        let seam_texts: Vec<&str> = seam_search.iter().map(|t| t.as_ref()).collect();
        let manifest = Manifest {
            format_version: FORMAT_VERSION,
            corpus_fingerprint: String::new(),
            chunker: layout.chunker.clone(),
            k: layout.k,
            model: String::new(),
            dim,
            chunks: layout.chunks.len(),
            seams: layout.seams.len(),
            documents: Default::default(),
            files: Default::default(),
        };
        Ok(IndexSet {
            dir: dir.to_path_buf(),
            manifest,
            chunk_vectors: Box::new(VectorIndex::build(dim, chunk_vectors)?),
            seam_vectors: Box::new(VectorIndex::build(dim, seam_vectors)?),
            chunk_keywords: KeywordIndex::build_in_ram(&chunk_texts)?,
            seam_keywords: KeywordIndex::build_in_ram(&seam_texts)?,
            search_mode,
            store: DenseStore::Embedded,
        })
    }

    /// Whether the dense vectors are in (false for [`IndexSet::keywords_only`]).
    pub fn dense_ready(&self) -> bool {
        self.search_mode != SearchMode::Pending
    }

    /// How dense search runs, for report lines: `exact`, `approximate (HNSW)`, or
    /// `HNSW in Chroma at URL` or `approximate (pgvector HNSW) in Postgres at URL` once
    /// attached to a server.
    pub fn dense_search(&self) -> String {
        match self.store.address() {
            None => self.search_mode.describe().to_string(),
            Some(url) => format!("{} at {url}", self.store.kind().facts().searched),
        }
    }
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

/// Check that the cache folder can hold indexes and vectors before any embedding, so a cache
/// folder that is a file or read-only fails at once instead of after minutes of work.
fn check_cache_writable(cache_dir: &Path) -> Result<(), IndexError> {
    for sub in ["indexes", "vectors"] {
        let dir = cache_dir.join(sub);
        std::fs::create_dir_all(&dir)
            .and_then(|()| tempfile::tempfile_in(&dir).map(drop))
            .map_err(|e| IndexError::CacheNotWritable {
                dir: cache_dir.to_path_buf(),
                message: e.to_string(),
            })?;
    }
    Ok(())
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

/// Embed one collection's texts, reporting progress as `stage`, and save the cache after it
/// (also when it failed: the texts it finished stay), so finished work survives an interruption.
fn embed_collection(
    (embedder, tokenizer): (&mut dyn Embedder, &TokenCounter),
    cache: &mut VectorCache,
    texts: &[&str],
    options: EmbedOptions,
    stage: BuildStage,
    progress: &mut dyn FnMut(BuildProgress) -> bool,
) -> Result<(Vec<Vec<f32>>, EmbedStats), IndexError> {
    let run = embed_texts(embedder, tokenizer, cache, texts, options, &mut |p| {
        progress(BuildProgress {
            stage,
            done: p.done_tokens,
            total: p.total_tokens,
        })
    });
    let done = keep_whole_texts(cache, run)?;
    cache.save().map_err(|e| IndexError::CacheSave {
        path: cache.path().to_path_buf(),
        message: disk::describe(&e, cache.path()),
    })?;
    Ok(done)
}

/// Write the vector and keyword indexes and their manifest into a staging folder beside `dir`,
/// then rename it to `dir`: a reader never sees half an index, and a killed build leaves a
/// staging folder whose lock nobody holds, which the next open removes.
fn write_index_folder(
    dir: &Path,
    cache_dir: &Path,
    (layout, fingerprint, documents): (&Layout, &str, std::collections::BTreeMap<String, String>),
    embedder: &dyn Embedder,
    vectors: (&[Vec<f32>], &[Vec<f32>]),
    texts: (&[&str], &[&str]),
) -> Result<(), IndexError> {
    let parent = dir.parent().unwrap_or(cache_dir);
    std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(parent)
        .map_err(io_err(parent))?;
    let sdir = staging.path();
    // Held until the folder is renamed into place: a folder whose lock nobody holds is the
    // remains of a killed build, which the next open removes.
    let build_lock = std::fs::File::create(sdir.join(BUILD_LOCK)).map_err(io_err(sdir))?;
    build_lock.lock().map_err(io_err(sdir))?;
    let dim = embedder.dim();
    let (chunk_vecs, seam_vecs) = vectors;
    let (chunk_texts, seam_texts) = texts;
    VectorIndex::build(dim, chunk_vecs)?.save(&sdir.join("chunks.usearch"))?;
    VectorIndex::build(dim, seam_vecs)?.save(&sdir.join("seams.usearch"))?;
    for (name, texts) in [("chunks.bm25", chunk_texts), ("seams.bm25", seam_texts)] {
        let kdir = sdir.join(name);
        std::fs::create_dir_all(&kdir).map_err(io_err(&kdir))?;
        KeywordIndex::build(&kdir, texts)?;
    }
    // Which texts this index uses, so `seamscope cache --prune` keeps their vectors.
    usage::write_text_keys(sdir, &[chunk_texts, seam_texts]).map_err(io_err(sdir))?;
    let mut manifest = Manifest {
        format_version: FORMAT_VERSION,
        corpus_fingerprint: fingerprint.to_string(),
        chunker: layout.chunker.clone(),
        k: layout.k,
        model: embedder.identity().to_string(),
        dim,
        chunks: layout.chunks.len(),
        seams: layout.seams.len(),
        documents,
        files: Default::default(),
    };
    manifest.record_files(sdir).map_err(io_err(sdir))?;
    manifest.write(sdir).map_err(io_err(sdir))?;
    let staged = staging.keep();
    if let Err(e) = std::fs::rename(&staged, dir) {
        let _ = std::fs::remove_dir_all(&staged);
        // Another process may have finished the same build first; use it if it verifies.
        if !dir.exists() {
            return Err(io_err(dir)(e));
        }
    }
    drop(build_lock);
    Ok(())
}

/// What reopening a verified index folder did: nothing embedded, nothing written.
fn reopened_report(dir: PathBuf, set: &IndexSet, open_seconds: f64) -> BuildReport {
    BuildReport {
        dir,
        reopened: true,
        rebuilt_because: None,
        vector_cache: CacheOpen::NotOpened,
        chunk_embedding: EmbedStats::default(),
        seam_embedding: EmbedStats::default(),
        timings: BuildTimings {
            open: open_seconds,
            ..BuildTimings::default()
        },
        bytes_on_disk: sizes(&set.manifest),
        search_mode: set.search_mode,
        changes: None,
        embedded_files: Vec::new(),
        store: None,
    }
}

/// An embedding run's result; when it failed or was cancelled, the texts it finished whole are
/// saved first, so the cache is what it was plus whole texts and a new run starts from there.
fn keep_whole_texts<T>(
    cache: &mut VectorCache,
    run: Result<T, EmbedError>,
) -> Result<T, IndexError> {
    match run {
        Ok(done) => Ok(done),
        Err(e) => {
            // The embedding error is the one to report; a failed save only loses the head start.
            let _ = cache.save();
            Err(e.into())
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
    if let Some(indexes) = dir.parent() {
        remove_stale_builds(indexes);
    }
    let indexes_dir = dir.parent().unwrap_or(cache_dir).to_path_buf();
    let pointer = lineage::pointer_path(&indexes_dir, corpus, layout, embedder.identity());
    let existing = (dir.as_path(), fingerprint.as_str(), layout);
    let rebuilt_because =
        match reopen_or_remove(existing, embedder, options, &pointer, started, progress)? {
            Existing::Reopened(opened) => return Ok(*opened),
            Existing::Absent(reason) => reason,
        };
    let open_secs = started.elapsed().as_secs_f64();
    check_cache_writable(cache_dir)?;

    let (mut cache, cache_state) = VectorCache::for_model(cache_dir, embedder);
    let documents = lineage::document_hashes(corpus);
    let previous = lineage::previous(&pointer, &indexes_dir).filter(|(d, _)| *d != dir);
    let changes = previous
        .as_ref()
        .map(|(d, m)| CorpusChanges::since(d, m, &documents));

    let t0 = Instant::now();
    // Search texts: the exact spans, with any search-only context (heading path, table header).
    let (chunk_search, seam_search) = layout.search_texts(corpus);
    let chunk_texts: Vec<&str> = chunk_search.iter().map(|t| t.as_ref()).collect();
    let seam_texts: Vec<&str> = seam_search.iter().map(|t| t.as_ref()).collect();
    let embedded_files = lineage::files_to_embed(corpus, layout, &cache, &chunk_texts, &seam_texts);
    let texts = (chunk_texts.as_slice(), seam_texts.as_slice());
    let (chunks, seams) =
        embed_layout((embedder, tokenizer), &mut cache, texts, options, progress)?;

    progress(BuildProgress::starting(BuildStage::WriteIndexes));
    write_index_folder(
        &dir,
        cache_dir,
        (layout, &fingerprint, documents),
        embedder,
        (&chunks.vectors, &seams.vectors),
        (&chunk_texts, &seam_texts),
    )?;
    let built = (dir.as_path(), fingerprint.as_str(), layout);
    let old = previous.map(|(old, _)| old);
    let set = adopt_new_index(built, embedder, options, &pointer, old)?;
    let t3 = Instant::now();
    let report = BuildReport {
        dir,
        reopened: false,
        rebuilt_because,
        vector_cache: cache_state,
        chunk_embedding: chunks.stats,
        seam_embedding: seams.stats,
        timings: BuildTimings {
            open: open_secs,
            embed_chunks: (chunks.done - t0).as_secs_f64(),
            embed_seams: (seams.done - chunks.done).as_secs_f64(),
            write_indexes: (t3 - seams.done).as_secs_f64(),
        },
        bytes_on_disk: sizes(&set.manifest),
        search_mode: set.search_mode,
        changes,
        embedded_files,
        store: None,
    };
    Ok((set, report))
}

/// What was in an index's folder before a build.
enum Existing {
    /// A verified index, reopened.
    Reopened(Box<(IndexSet, BuildReport)>),
    /// Nothing, or an index that did not verify (why, for the rebuild's report): the folder is
    /// gone now.
    Absent(Option<String>),
}

/// The verified index already in `dir` (see [`reopen_verified`]); one that does not verify is
/// removed, and why is kept for the rebuild's report.
fn reopen_or_remove(
    (dir, fingerprint, layout): (&Path, &str, &Layout),
    embedder: &dyn Embedder,
    options: BuildOptions,
    pointer: &Path,
    started: Instant,
    progress: &mut dyn FnMut(BuildProgress) -> bool,
) -> Result<Existing, IndexError> {
    if !dir.exists() {
        return Ok(Existing::Absent(None));
    }
    progress(BuildProgress::starting(BuildStage::Verify));
    let existing = (dir, fingerprint, layout);
    match reopen_verified(existing, embedder, options, pointer, started) {
        Ok(opened) => Ok(Existing::Reopened(Box::new(opened))),
        Err(reason) => {
            std::fs::remove_dir_all(dir).map_err(io_err(dir))?;
            Ok(Existing::Absent(Some(reason)))
        }
    }
}

/// One collection's search texts embedded: the vectors, the run's stats, and when it was done.
struct Embedded {
    vectors: Vec<Vec<f32>>,
    stats: EmbedStats,
    done: Instant,
}

/// The layout's chunk texts, then its seam texts, embedded (what the vector cache holds is not
/// embedded again).
fn embed_layout(
    (embedder, tokenizer): (&mut dyn Embedder, &TokenCounter),
    cache: &mut VectorCache,
    (chunk_texts, seam_texts): (&[&str], &[&str]),
    options: BuildOptions,
    progress: &mut dyn FnMut(BuildProgress) -> bool,
) -> Result<(Embedded, Embedded), IndexError> {
    let mut embed = |texts: &[&str], stage: BuildStage| {
        let (vectors, stats) = embed_collection(
            (&mut *embedder, tokenizer),
            cache,
            texts,
            options.embed,
            stage,
            progress,
        )?;
        Ok::<_, IndexError>(Embedded {
            vectors,
            stats,
            done: Instant::now(),
        })
    };
    let chunks = embed(chunk_texts, BuildStage::EmbedChunks)?;
    let seams = embed(seam_texts, BuildStage::EmbedSeams)?;
    Ok((chunks, seams))
}

/// The verified index already in `dir`, reported as reopened, and this corpus and setting
/// pointed at it (best effort: a read-only cache still serves the index it holds); `Err` with
/// why it does not verify.
fn reopen_verified(
    (dir, fingerprint, layout): (&Path, &str, &Layout),
    embedder: &dyn Embedder,
    options: BuildOptions,
    pointer: &Path,
    started: Instant,
) -> Result<(IndexSet, BuildReport), String> {
    let set = open_existing(dir, fingerprint, layout, embedder, options)?;
    let report = reopened_report(dir.to_path_buf(), &set, started.elapsed().as_secs_f64());
    let _ = lineage::point_at(pointer, dir);
    Ok((set, report))
}

/// Opens the index just written to `dir` (it must verify), then points this corpus and setting
/// at it and removes the `old` folder it supersedes (best effort: a reader that has it open
/// keeps its files on Unix).
fn adopt_new_index(
    (dir, fingerprint, layout): (&Path, &str, &Layout),
    embedder: &dyn Embedder,
    options: BuildOptions,
    pointer: &Path,
    old: Option<PathBuf>,
) -> Result<IndexSet, IndexError> {
    let set =
        open_existing(dir, fingerprint, layout, embedder, options).map_err(|m| IndexError::Io {
            path: dir.to_path_buf(),
            message: format!("freshly built index does not verify: {m}"),
        })?;
    lineage::point_at(pointer, dir).map_err(io_err(pointer))?;
    if let Some(old) = old {
        let _ = std::fs::remove_dir_all(old);
    }
    Ok(set)
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
        chunk_vectors: Box::new(chunk_vectors),
        seam_vectors: Box::new(seam_vectors),
        chunk_keywords,
        seam_keywords,
        search_mode,
        store: DenseStore::Embedded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_folder_that_is_a_file_is_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache");
        std::fs::write(&file, b"not a folder").unwrap();
        let msg = check_cache_writable(&file).unwrap_err().to_string();
        assert!(
            msg.contains("cannot be written") && msg.contains("nothing was embedded"),
            "{msg}"
        );
        assert!(check_cache_writable(&dir.path().join("fresh")).is_ok());
    }
}
