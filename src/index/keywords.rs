//! BM25 keyword search over one collection (chunks or seams), as a tantivy index on disk.
//!
//! Chunks and seams have separate indexes, so words near a cut (which a seam repeats) are not
//! counted twice in either collection's statistics.

use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexReader, doc};

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

    /// Open an existing index in `dir`.
    pub fn open(dir: &Path) -> Result<KeywordIndex, KeywordError> {
        let index = Index::open_in_dir(dir).map_err(err("open"))?;
        let body = index.schema().get_field("body").map_err(err("schema"))?;
        let reader = index.reader().map_err(err("open reader"))?;
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
}
