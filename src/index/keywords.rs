//! BM25 keyword search over one collection (chunks or seams), as a tantivy index on disk.
//!
//! Chunks and seams have separate indexes, so words near a cut (which a seam repeats) are not
//! counted twice in either collection's statistics.

use std::path::Path;
use std::sync::Arc;

use tantivy::collector::TopDocs;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::query::QueryParser;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexReader, ReloadPolicy, doc};

/// An error from tantivy, with what was being done.
#[derive(Debug, thiserror::Error)]
#[error("keyword index {action}: {message}")]
pub struct KeywordError {
    /// What was being done.
    pub action: &'static str,
    /// tantivy's message.
    pub message: String,
}

fn err(action: &'static str) -> impl FnOnce(tantivy::TantivyError) -> KeywordError {
    move |e| KeywordError {
        action,
        message: e.to_string(),
    }
}

/// One BM25 collection: entries are numbered `0..n` by the caller.
pub struct KeywordIndex {
    index: Index,
    reader: IndexReader,
    body: Field,
}

impl std::fmt::Debug for KeywordIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeywordIndex")
    }
}

/// A finished index folder opened for reading only.
///
/// tantivy takes a "meta lock" (it creates `.tantivy-meta.lock`) whenever a reader loads, to keep
/// a writer's garbage collection from deleting files under it, so a read-only cache could not
/// even serve a query. A finished index is never written again (a build writes a fresh folder
/// and renames it into place), so there is no writer to exclude: the lock is granted without
/// touching the disk. Everything else goes to the memory-mapped folder.
#[derive(Debug, Clone)]
struct FinishedIndexDirectory(MmapDirectory);

impl Directory for FinishedIndexDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.0.get_file_handle(path)
    }
    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.0.delete(path)
    }
    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.0.exists(path)
    }
    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.0.open_write(path)
    }
    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }
    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.0.atomic_write(path, data)
    }
    fn sync_directory(&self) -> std::io::Result<()> {
        self.0.sync_directory()
    }
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }
    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.0.watch(watch_callback)
    }
}

fn schema() -> (Schema, Field, Field) {
    let mut b = Schema::builder();
    let id = b.add_u64_field("id", INDEXED | STORED | FAST);
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("en_stem")
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let body = b.add_text_field(
        "body",
        TextOptions::default().set_indexing_options(indexing),
    );
    (b.build(), id, body)
}

impl KeywordIndex {
    /// Build an index of `texts` (entry `i` is `texts[i]`) in the empty folder `dir`.
    pub fn build(dir: &Path, texts: &[&str]) -> Result<KeywordIndex, KeywordError> {
        let (schema, _, _) = schema();
        let index = Index::create_in_dir(dir, schema).map_err(err("create"))?;
        Self::fill(index, texts)?;
        Self::open(dir)
    }

    /// Build an index of `texts` held in memory only (for evaluations that compare strategies).
    pub fn build_in_ram(texts: &[&str]) -> Result<KeywordIndex, KeywordError> {
        let (schema, _, _) = schema();
        let index = Index::create_in_ram(schema);
        Self::fill(index, texts)
    }

    fn fill(index: Index, texts: &[&str]) -> Result<KeywordIndex, KeywordError> {
        let schema = index.schema();
        let id = schema.get_field("id").map_err(err("schema"))?;
        let body = schema.get_field("body").map_err(err("schema"))?;
        let mut writer: tantivy::IndexWriter = index
            .writer_with_num_threads(1, 50_000_000)
            .map_err(err("open writer"))?;
        for (i, text) in texts.iter().enumerate() {
            writer
                .add_document(doc!(id => i as u64, body => *text))
                .map_err(err("add document"))?;
        }
        writer.commit().map_err(err("commit"))?;
        writer.wait_merging_threads().map_err(err("merge"))?;
        let reader = index.reader().map_err(err("open reader"))?;
        Ok(KeywordIndex {
            index,
            reader,
            body,
        })
    }

    /// Open a finished index in `dir` for searching. Nothing is written to the folder, so a
    /// read-only cache serves queries.
    pub fn open(dir: &Path) -> Result<KeywordIndex, KeywordError> {
        let folder = MmapDirectory::open(dir).map_err(|e| KeywordError {
            action: "open",
            message: e.to_string(),
        })?;
        let index = Index::open(FinishedIndexDirectory(folder)).map_err(err("open"))?;
        let body = index.schema().get_field("body").map_err(err("schema"))?;
        // Manual: a finished index never changes, so nothing needs watching.
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(err("open reader"))?;
        Ok(KeywordIndex {
            index,
            reader,
            body,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.reader.searcher().num_docs() as usize
    }

    /// Whether the index holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The top `depth` entries for `query` by BM25, best first, ties by entry number.
    ///
    /// Query syntax characters are taken leniently, so any question text is a valid query.
    pub fn search(&self, query: &str, depth: usize) -> Result<Vec<(u32, f32)>, KeywordError> {
        if depth == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let parser = QueryParser::for_index(&self.index, vec![self.body]);
        let (q, _ignored) = parser.parse_query_lenient(&sanitize(query));
        let top = searcher
            .search(&q, &TopDocs::with_limit(depth).order_by_score())
            .map_err(err("search"))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let column = searcher
                .segment_reader(addr.segment_ord)
                .fast_fields()
                .u64("id")
                .map_err(err("read ids"))?;
            if let Some(id) = column.first(addr.doc_id) {
                hits.push((id as u32, score));
            }
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(hits)
    }
}

/// Turn a question into plain lowercase words: query-syntax characters become spaces, and
/// lowercasing keeps `AND`, `OR` and `NOT` from being read as operators.
fn sanitize(query: &str) -> String {
    query
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_bm25_and_survives_query_syntax() {
        let dir = tempfile::tempdir().unwrap();
        let texts = [
            "billing records must stay strongly consistent",
            "the warehouse ships parcels every morning",
            "stale reads are accepted during a regional outage",
        ];
        let idx = KeywordIndex::build(dir.path(), &texts).unwrap();
        assert_eq!(idx.len(), 3);
        let hits = idx
            .search("Why stale reads? (outage) AND \"billing:", 10)
            .unwrap();
        assert_eq!(hits[0].0, 2);
        assert!(hits.iter().any(|h| h.0 == 0));
        assert!(!hits.iter().any(|h| h.0 == 1));
        assert!(idx.search("   ", 10).unwrap().is_empty());
        let reopened = KeywordIndex::open(dir.path()).unwrap();
        assert_eq!(reopened.search("parcels", 5).unwrap()[0].0, 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_finished_index_opens_and_searches_without_writing() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("chunks.bm25");
        std::fs::create_dir(&folder).unwrap();
        drop(KeywordIndex::build(&folder, &["stale reads in an outage", "parcels ship"]).unwrap());
        let listing = |p: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        // Lock files are not index content (the manifest leaves them out); without them, an
        // open that takes tantivy's meta lock would have to create one.
        for name in listing(&folder) {
            if name.ends_with(".lock") {
                std::fs::remove_file(folder.join(name)).unwrap();
            }
        }
        let before = listing(&folder);
        let modified = std::fs::metadata(&folder).unwrap().modified().unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let opened = KeywordIndex::open(&folder);
        let hits = opened.as_ref().map(|k| k.search("outage", 5));
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(hits.unwrap().unwrap()[0].0, 0);
        // No lock file was created (root ignores the permissions; this catches it).
        assert_eq!(listing(&folder), before);
        assert_eq!(
            std::fs::metadata(&folder).unwrap().modified().unwrap(),
            modified
        );
    }
}
