//! Documents that the user's own loader made, instead of files seamscope reads itself, so the text
//! seamscope cuts is exactly the text the production splitter saw:
//!
//! - a **loader dump** (`--documents FILE`): LangChain `Document`s (`page_content`,
//!   `metadata.source`, `metadata.page`) or LlamaIndex documents (`text`, `metadata.file_path`
//!   or `file_name`, `metadata.page_label`) as JSON Lines or one JSON array. Each source's
//!   records, in page order, become one document with a page map;
//! - a **split dump alone** (`--cuts FILE` and no corpus): each document rebuilt from its
//!   chunks' own text where their offsets place them. Text no chunk covers is unknown: it is
//!   written as spaces (so sentence edges and offsets stay right) and listed in the document's
//!   [`TextSource::unknown`], which the screen and `chunks --json` show. Two chunks that put
//!   different characters at the same place are an error naming both records.

// A dump is refused once, before any work: the error's size does not matter (the corpus error
// boxes it), and boxing every variant here would only make the code harder to read.
#![allow(clippy::result_large_err)]

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{Corpus, DocId, DocKind, Document, Span};
use crate::cuts::records::{self, RawCut, page_of};
use crate::cuts::{OffsetUnit, RecordAt};
use crate::extract::{PageMap, PageStart, TextSource};

/// At most this many bytes of a loader or split dump.
pub const DUMP_LIMIT: u64 = 1024 * 1024 * 1024;

/// The extractor name of documents a loader dump gave.
pub const LOADER: &str = "documents";
/// The extractor name of documents rebuilt from a split dump's chunks.
pub const REBUILT: &str = "cuts";

/// Why a dump gives no documents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// The file could not be read (missing, not a regular file, too large, not UTF-8).
    #[error("cannot read {file}: {why}")]
    Read {
        /// The file.
        file: String,
        /// Why not.
        why: String,
    },
    /// A record is not what a loader writes.
    #[error("{file}, {at}: {why}")]
    Record {
        /// The file.
        file: String,
        /// The record.
        at: RecordAt,
        /// What is wrong with it.
        why: String,
    },
    /// The file holds no records.
    #[error("{file} holds no documents: write one JSON object per line, or one JSON array of them")]
    Empty {
        /// The file.
        file: String,
    },
    /// Two chunks of a split dump put different text at the same place.
    #[error(
        "{file}: {first} and {second} contradict each other in {doc}{page} at character {at}: {first} has {first_has:?}, {second} has {second_has:?}"
    )]
    Contradiction {
        /// The file.
        file: String,
        /// The document.
        doc: String,
        /// ", page N" when the offsets count from a page.
        page: String,
        /// The first record.
        first: RecordAt,
        /// The record that contradicts it.
        second: RecordAt,
        /// Character offset (in the page, or the document) where they differ.
        at: usize,
        /// What the first record has there.
        first_has: String,
        /// What the second has.
        second_has: String,
    },
}

/// One record of a loader dump: a source's page (or whole text).
struct LoadedRecord {
    source: String,
    page: Option<u32>,
    text: String,
}

/// The documents of a loader dump.
pub fn load_documents(file: &Path) -> Result<Corpus, DumpError> {
    let name = file.display().to_string();
    let values = read_values(file)?;
    let mut records = Vec::with_capacity(values.len());
    for (at, value) in values {
        let fail = |why: String| DumpError::Record {
            file: name.clone(),
            at,
            why,
        };
        let Value::Object(map) = value else {
            return Err(fail("not a JSON object".into()));
        };
        records.push(loaded_record(records::unwrap_serialised(map)).map_err(fail)?);
    }
    // Sources in the order they first appear; each source's records by page (a record without a
    // page keeps its place), so a dump written page by page or shuffled gives the same document.
    let mut order: Vec<String> = Vec::new();
    let mut by_source: HashMap<String, Vec<LoadedRecord>> = HashMap::new();
    for r in records {
        if !by_source.contains_key(&r.source) {
            order.push(r.source.clone());
        }
        by_source.entry(r.source.clone()).or_default().push(r);
    }
    let mut documents = Vec::new();
    for source in order {
        let mut pages = by_source.remove(&source).unwrap_or_default();
        pages.sort_by_key(|r| r.page.unwrap_or(0));
        let pieces: Vec<(Option<u32>, String)> =
            pages.into_iter().map(|r| (r.page, r.text)).collect();
        let (text, map) = join_pages(&pieces);
        if text.trim().is_empty() {
            continue;
        }
        documents.push(document(
            documents.len(),
            source,
            text,
            map,
            LOADER,
            Vec::new(),
        ));
    }
    finish(file, documents)
}

/// The documents a split dump's chunks rebuild, where their offsets place them.
pub fn documents_from_cuts(file: &Path) -> Result<Corpus, DumpError> {
    let name = file.display().to_string();
    let bytes = read(file)?;
    let (_, cuts) = records::read_records(&bytes).map_err(|(at, problem)| match at {
        Some(at) => DumpError::Record {
            file: name.clone(),
            at,
            why: problem.to_string(),
        },
        None => DumpError::Read {
            file: name.clone(),
            why: problem.to_string(),
        },
    })?;
    // Documents in the order they first appear, pages in page order.
    let mut order: Vec<String> = Vec::new();
    let mut pages: HashMap<String, Vec<PageCuts<'_>>> = HashMap::new();
    for cut in &cuts {
        let record_fail = |why: &str| DumpError::Record {
            file: name.clone(),
            at: cut.at,
            why: why.to_string(),
        };
        if cut.text.is_none() {
            return Err(record_fail(
                "the chunk has no text: without a corpus folder (or --documents), documents are rebuilt from the chunks' own text",
            ));
        }
        if cut.start.is_none() {
            return Err(record_fail(
                "the chunk has no offset (LangChain's start_index, LlamaIndex's start_char_idx): without a corpus folder (or --documents) nothing says where it lies; split with add_start_index=True, or give the documents",
            ));
        }
        if !pages.contains_key(&cut.doc) {
            order.push(cut.doc.clone());
        }
        let doc_pages = pages.entry(cut.doc.clone()).or_default();
        match doc_pages.iter_mut().find(|(p, _)| *p == cut.page) {
            Some((_, list)) => list.push(cut),
            None => doc_pages.push((cut.page, vec![cut])),
        }
    }
    let mut documents = Vec::new();
    for doc in order {
        let mut doc_pages = pages.remove(&doc).unwrap_or_default();
        doc_pages.sort_by_key(|(p, _)| p.unwrap_or(0));
        let mut pieces = Vec::new();
        let mut unknown_by_page = Vec::new();
        for (page, cuts) in doc_pages {
            let (text, unknown) = rebuild(&name, &doc, page, &cuts)?;
            pieces.push((page, text));
            unknown_by_page.push(unknown);
        }
        let (text, map) = join_pages(&pieces);
        // Unknown spans were counted in their page's bytes: move each by its page's start.
        let mut unknown = Vec::new();
        let mut page_start = 0;
        for (i, spans) in unknown_by_page.into_iter().enumerate() {
            if i > 0 {
                page_start = map.starts.get(i).map_or(page_start, |s| s.byte);
            }
            unknown.extend(
                spans
                    .into_iter()
                    .map(|s| Span::new(s.start + page_start, s.end + page_start)),
            );
        }
        documents.push(document(documents.len(), doc, text, map, REBUILT, unknown));
    }
    finish(file, documents)
}

/// One page of a document (`None`: offsets count from the document's start) and its chunks.
type PageCuts<'c> = (Option<u32>, Vec<&'c RawCut>);

/// One page's (or a whole document's) text from its chunks: each chunk's characters at its
/// offset, gaps as spaces (returned as unknown byte spans).
fn rebuild(
    file: &str,
    doc: &str,
    page: Option<u32>,
    cuts: &[&RawCut],
) -> Result<(String, Vec<Span>), DumpError> {
    // Every position holds a character and the record that put it there.
    let mut cells: Vec<Option<(char, RecordAt)>> = Vec::new();
    for cut in cuts {
        let (Some(start), Some(text)) = (cut.start, cut.text.as_deref()) else {
            continue;
        };
        let chars: Vec<char> = match cut.unit {
            OffsetUnit::Chars => text.chars().collect(),
            // Byte offsets into text that is all ASCII count characters too; anything else is
            // placed by bytes below.
            OffsetUnit::Bytes => text.chars().collect(),
        };
        let start = match cut.unit {
            OffsetUnit::Chars => start,
            OffsetUnit::Bytes => byte_to_cell(&cells, start),
        };
        if cells.len() < start + chars.len() {
            cells.resize(start + chars.len(), None);
        }
        for (i, c) in chars.into_iter().enumerate() {
            match cells[start + i] {
                Some((have, first)) if have != c => {
                    return Err(DumpError::Contradiction {
                        file: file.to_string(),
                        doc: doc.to_string(),
                        page: page.map(|p| format!(", page {p}")).unwrap_or_default(),
                        first,
                        second: cut.at,
                        at: start + i,
                        first_has: have.to_string(),
                        second_has: c.to_string(),
                    });
                }
                Some(_) => {}
                None => cells[start + i] = Some((c, cut.at)),
            }
        }
    }
    let mut text = String::with_capacity(cells.len());
    let mut unknown: Vec<Span> = Vec::new();
    for cell in cells {
        match cell {
            Some((c, _)) => text.push(c),
            None => {
                let at = text.len();
                text.push(' ');
                match unknown.last_mut() {
                    Some(last) if last.end == at => last.end = at + 1,
                    _ => unknown.push(Span::new(at, at + 1)),
                }
            }
        }
    }
    Ok((text, unknown))
}

/// The cell a byte offset names, counting the cells placed so far as UTF-8 (unknown cells are
/// one byte); past the end, one cell per byte.
fn byte_to_cell(cells: &[Option<(char, RecordAt)>], byte: usize) -> usize {
    let mut at = 0;
    for (i, cell) in cells.iter().enumerate() {
        if at >= byte {
            return i;
        }
        at += cell.map_or(1, |(c, _)| c.len_utf8());
    }
    cells.len() + byte.saturating_sub(at)
}

/// Pages joined in order, a blank line between two, and where each begins.
fn join_pages(pieces: &[(Option<u32>, String)]) -> (String, PageMap) {
    let mut text = String::new();
    let mut starts = Vec::new();
    for (i, (page, piece)) in pieces.iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
        }
        if let Some(page) = page
            && starts.last().is_none_or(|s: &PageStart| s.page != *page)
        {
            starts.push(PageStart {
                byte: text.len(),
                page: *page,
            });
        }
        text.push_str(piece);
    }
    // A map only when every piece named its page: a partial one would put unpaged text on the
    // page before it.
    let paged = pieces.iter().all(|(p, _)| p.is_some());
    (
        text,
        if paged {
            PageMap::new(starts)
        } else {
            PageMap::default()
        },
    )
}

fn document(
    i: usize,
    path: String,
    text: String,
    pages: PageMap,
    extractor: &str,
    unknown: Vec<Span>,
) -> Document {
    let kind = match DocKind::from_path(Path::new(&path)) {
        // A PDF's or a web page's text is prose, whatever the loader kept of its markup.
        DocKind::Code => DocKind::Text,
        other => other,
    };
    Document {
        id: DocId(i as u32),
        path,
        text,
        kind,
        source: TextSource {
            extractor: extractor.to_string(),
            version: "1".to_string(),
            pages,
            unknown,
        },
    }
}

fn finish(file: &Path, documents: Vec<Document>) -> Result<Corpus, DumpError> {
    if documents.is_empty() {
        return Err(DumpError::Empty {
            file: file.display().to_string(),
        });
    }
    Ok(Corpus {
        root: file.to_path_buf(),
        documents,
        skipped: Vec::new(),
    })
}

fn read(file: &Path) -> Result<String, DumpError> {
    let fail = |why: String| DumpError::Read {
        file: file.display().to_string(),
        why,
    };
    let bytes = crate::files::read_regular(file, DUMP_LIMIT).map_err(|e| fail(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The JSON values of a dump with where each is: one per non-blank line, or the items of one
/// array when the file starts with `[`.
fn read_values(file: &Path) -> Result<Vec<(RecordAt, Value)>, DumpError> {
    let name = file.display().to_string();
    let values = records::json_values(&read(file)?).map_err(|(at, problem)| DumpError::Record {
        file: name.clone(),
        at: at.unwrap_or(RecordAt::Line(1)),
        why: problem.to_string(),
    })?;
    if values.is_empty() {
        return Err(DumpError::Empty { file: name });
    }
    Ok(values)
}

/// A LangChain or LlamaIndex document record.
fn loaded_record(map: Map<String, Value>) -> Result<LoadedRecord, String> {
    let meta = map.get("metadata").and_then(Value::as_object);
    let text = match (
        map.get("page_content"),
        map.get("text"),
        map.get("text_resource"),
    ) {
        (Some(Value::String(t)), _, _) | (None, Some(Value::String(t)), _) => t.clone(),
        (None, None | Some(Value::Null), Some(Value::Object(r))) => match r.get("text") {
            Some(Value::String(t)) => t.clone(),
            _ => return Err("text_resource has no \"text\"".into()),
        },
        (Some(other), _, _) => return Err(format!("page_content is {other}, not a string")),
        _ => {
            return Err(
                "neither a LangChain Document (page_content + metadata.source) nor a LlamaIndex document (text + metadata.file_path)".into(),
            );
        }
    };
    let source = meta
        .and_then(|m| {
            ["source", "file_path", "file_name"]
                .into_iter()
                .find_map(|k| m.get(k).and_then(Value::as_str))
        })
        .ok_or("its metadata names no source (metadata.source, file_path or file_name)")?;
    Ok(LoadedRecord {
        source: source.to_string(),
        page: meta.and_then(page_of),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(content: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("dump.jsonl");
        std::fs::write(&path, content).unwrap_or_else(|e| panic!("{e}"));
        (dir, path)
    }

    #[test]
    fn a_loaders_pages_become_one_document_with_a_page_map() {
        let (_dir, path) = write(concat!(
            r#"{"page_content": "Second page.", "metadata": {"source": "m/a.pdf", "page": 1}, "type": "Document"}"#,
            "\n",
            r#"{"page_content": "First page.", "metadata": {"source": "m/a.pdf", "page": 0}}"#,
            "\n",
            r#"{"text": "Node text.", "metadata": {"file_path": "/d/b.txt"}}"#,
            "\n"
        ));
        let corpus = load_documents(&path).unwrap_or_else(|e| panic!("{e}"));
        let a = &corpus.documents[0];
        assert_eq!(a.path, "m/a.pdf");
        assert_eq!(a.text, "First page.\n\nSecond page.");
        assert_eq!(a.source.extractor, LOADER);
        assert_eq!(a.source.pages.page_at(0), Some(1));
        assert_eq!(a.source.pages.page_at(13), Some(2));
        assert_eq!(corpus.documents[1].text, "Node text.");
        assert!(corpus.documents[1].source.pages.is_empty());
    }

    #[test]
    fn a_record_without_a_source_is_named() {
        let (_dir, path) = write("{\"page_content\": \"x\", \"metadata\": {}}\n");
        let err = load_documents(&path).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("line 1") && e.contains("names no source")),
            "{err:?}"
        );
    }

    #[test]
    fn chunks_alone_rebuild_their_documents_with_the_gaps_unknown() {
        let (_dir, path) = write(concat!(
            r#"{"page_content": "Alpha beta", "metadata": {"source": "a.md", "start_index": 0}}"#,
            "\n",
            r#"{"page_content": "beta gamma.", "metadata": {"source": "a.md", "start_index": 6}}"#,
            "\n",
            r#"{"page_content": "Delta.", "metadata": {"source": "a.md", "start_index": 19}}"#,
            "\n"
        ));
        let corpus = documents_from_cuts(&path).unwrap_or_else(|e| panic!("{e}"));
        let a = &corpus.documents[0];
        assert_eq!(a.text, "Alpha beta gamma.  Delta.");
        assert_eq!(a.source.unknown, vec![Span::new(17, 19)]);
        assert_eq!(a.source.extractor, REBUILT);
    }

    #[test]
    fn contradicting_chunks_are_an_error_naming_both() {
        let (_dir, path) = write(concat!(
            r#"{"page_content": "Alpha beta", "metadata": {"source": "a.md", "start_index": 0}}"#,
            "\n",
            r#"{"page_content": "bent", "metadata": {"source": "a.md", "start_index": 6}}"#,
            "\n"
        ));
        let err = documents_from_cuts(&path).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                format!(
                    "{}: line 1 and line 2 contradict each other in a.md at character 8: line 1 has \"t\", line 2 has \"n\"",
                    path.display()
                )
                .as_str()
            )
        );
    }

    #[test]
    fn page_relative_chunks_rebuild_each_page() {
        let (_dir, path) = write(concat!(
            r#"{"page_content": "Page two text.", "metadata": {"source": "a.pdf", "page": 1, "start_index": 0}}"#,
            "\n",
            r#"{"page_content": "Page one.", "metadata": {"source": "a.pdf", "page": 0, "start_index": 0}}"#,
            "\n",
            r#"{"page_content": "text.", "metadata": {"source": "a.pdf", "page": 1, "start_index": 9}}"#,
            "\n"
        ));
        let corpus = documents_from_cuts(&path).unwrap_or_else(|e| panic!("{e}"));
        let a = &corpus.documents[0];
        assert_eq!(a.text, "Page one.\n\nPage two text.");
        assert_eq!(a.source.pages.page_at(11), Some(2));
        let err = {
            let (_d, p) = write(r#"{"page_content": "x", "metadata": {"source": "a.pdf"}}"#);
            documents_from_cuts(&p).err().map(|e| e.to_string())
        };
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("add_start_index=True")),
            "{err:?}"
        );
    }
}
