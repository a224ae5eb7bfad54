//! Your loader's text: `--documents FILE` (the Documents a LangChain or LlamaIndex loader made)
//! and `--cuts FILE` alone (documents rebuilt from a split dump's own chunk text), through the
//! library and the real binary. The real LangChain dump of PDFs (langchain-community's
//! PyPDFLoader over the sample corpus rendered as PDFs, made by scripts/test and named in
//! SEAMSCOPE_TEST_LANGCHAIN_PDF_DOCS / SEAMSCOPE_TEST_LANGCHAIN_PDF_CUTS) is checked chunk by
//! chunk: every chunk seamscope places holds exactly its record's page_content; so is the real
//! LlamaIndex dump of the same PDFs (SimpleDirectoryReader's PDFReader and SentenceSplitter's
//! nodes: SEAMSCOPE_TEST_LLAMA_PDF_DOCS / SEAMSCOPE_TEST_LLAMA_PDF_CUTS).

mod common;

use std::path::{Path, PathBuf};

use common::{json_of, seamscope};
use seamscope::chunk::given::GivenCuts;
use seamscope::corpus::{Corpus, DocumentSource, LoadOptions};
use serde_json::Value;

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn load(source: DocumentSource) -> Corpus {
    let options = LoadOptions {
        source,
        ..LoadOptions::default()
    };
    Corpus::load(Path::new("unused"), &options).unwrap_or_else(|e| panic!("{e}"))
}

/// Every record's page_content is the text of the chunk placed for it, in file order.
fn assert_chunks_hold_their_records(corpus: &Corpus, cuts: &Path) {
    let given = GivenCuts::load(cuts, corpus).unwrap_or_else(|e| panic!("{e}"));
    let dump = records(cuts);
    assert_eq!(given.records, dump.len());
    // Records in file order, per document: the placed spans are sorted by start, and a
    // splitter writes each document's chunks in order, so the n-th record of a document is its
    // n-th span.
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for record in &dump {
        // LangChain names the file `source`, LlamaIndex `file_path`.
        let source = record["metadata"]["source"]
            .as_str()
            .or_else(|| record["metadata"]["file_path"].as_str())
            .unwrap_or_else(|| panic!("no source in {record}"));
        let doc = corpus
            .documents
            .iter()
            .find(|d| d.path == source)
            .unwrap_or_else(|| panic!("{source} is not a document"));
        let n = seen.entry(source.to_string()).or_default();
        let span = given.spans_of(&doc.path)[*n];
        *n += 1;
        let text = record["page_content"]
            .as_str()
            .or_else(|| record["text"].as_str())
            .unwrap_or_default();
        assert_eq!(doc.slice(span), text, "chunk {n} of {source}");
        // LangChain counts pages from 0, LlamaIndex labels them from 1.
        let page = record["metadata"]["page"]
            .as_u64()
            .map(|p| p as u32 + 1)
            .or_else(|| {
                record["metadata"]["page_label"]
                    .as_str()
                    .and_then(|l| l.parse().ok())
            });
        if let Some(page) = page {
            assert_eq!(
                doc.source.pages.page_at(span.start),
                Some(page),
                "the page map puts chunk {n} of {source} on its record's page"
            );
        }
    }
}

fn write(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap_or_else(|e| panic!("{e}"));
    path
}

/// A hand-made PyPDFLoader-like dump: two pages of one PDF, chunks counting from their page.
fn paged_dump(dir: &Path) -> (PathBuf, PathBuf) {
    let docs = write(
        dir,
        "docs.jsonl",
        &[
            r#"{"page_content": "Orders keep flowing in an outage. Reads may be stale.", "metadata": {"source": "manual.pdf", "page": 0, "page_label": "1"}}"#,
            r#"{"page_content": "Billing stays strongly consistent. Everything else may lag.", "metadata": {"source": "manual.pdf", "page": 1, "page_label": "2"}}"#,
        ],
    );
    let cuts = write(
        dir,
        "cuts.jsonl",
        &[
            r#"{"page_content": "Orders keep flowing in an outage.", "metadata": {"source": "manual.pdf", "page": 0, "start_index": 0}}"#,
            r#"{"page_content": "Reads may be stale.", "metadata": {"source": "manual.pdf", "page": 0, "start_index": 34}}"#,
            r#"{"page_content": "Billing stays strongly consistent.", "metadata": {"source": "manual.pdf", "page": 1, "start_index": 0}}"#,
            r#"{"page_content": "Everything else may lag.", "metadata": {"source": "manual.pdf", "page": 1, "start_index": 35}}"#,
        ],
    );
    (docs, cuts)
}

#[test]
fn a_loaders_pages_are_one_document_and_page_relative_chunks_land_on_their_page() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cuts) = paged_dump(dir.path());
    let corpus = load(DocumentSource::Loader(docs));
    assert_eq!(corpus.documents.len(), 1);
    let doc = &corpus.documents[0];
    assert_eq!(doc.path, "manual.pdf");
    assert_eq!(doc.source.extractor, "documents");
    assert_eq!(doc.source.pages.len(), 2);
    assert_chunks_hold_their_records(&corpus, &cuts);
    // The same chunks alone rebuild the same text (the loader's pages held nothing else).
    let rebuilt = load(DocumentSource::Chunks(cuts.clone()));
    assert_eq!(rebuilt.documents[0].text, doc.text);
    assert_eq!(rebuilt.documents[0].source.pages, doc.source.pages);
    assert_chunks_hold_their_records(&rebuilt, &cuts);
}

#[test]
fn the_binary_opens_a_loader_dump_and_a_split_dump_without_a_corpus_folder() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cuts) = paged_dump(dir.path());
    let cache = dir.path().join("cache");
    let with_docs = json_of(
        seamscope(&cache)
            .args(["chunks", "--json", "--documents"])
            .arg(&docs)
            .arg("--cuts")
            .arg(&cuts),
    );
    let alone = json_of(
        seamscope(&cache)
            .args(["chunks", "--json", "--cuts"])
            .arg(&cuts),
    );
    for v in [&with_docs, &alone] {
        assert_eq!(v["documents"].as_array().map(Vec::len), Some(1), "{v}");
        assert_eq!(v["chunks"].as_array().map(Vec::len), Some(4), "{v}");
        assert_eq!(v["seams"].as_array().map(Vec::len), Some(3), "{v}");
    }
    // No corpus and nothing to stand for one: a usage error that says what to give.
    let out = seamscope(&cache)
        .arg("chunks")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--documents FILE"), "{err}");
}

#[test]
fn contradicting_chunks_are_refused_naming_both_lines() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cuts = write(
        dir.path(),
        "cuts.jsonl",
        &[
            r#"{"page_content": "Reads may be stale.", "metadata": {"source": "a.md", "start_index": 0}}"#,
            r#"{"page_content": "be fresh.", "metadata": {"source": "a.md", "start_index": 10}}"#,
        ],
    );
    let out = seamscope(&dir.path().join("cache"))
        .args(["chunks", "--cuts"])
        .arg(&cuts)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1 and line 2 contradict each other in a.md at character 13"),
        "{err}"
    );
}

/// The real LangChain dump of PDFs, when scripts/test made one.
fn real_pdf_dump() -> Option<(PathBuf, PathBuf)> {
    let docs = std::env::var_os("SEAMSCOPE_TEST_LANGCHAIN_PDF_DOCS")?;
    let cuts = std::env::var_os("SEAMSCOPE_TEST_LANGCHAIN_PDF_CUTS")?;
    Some((PathBuf::from(docs), PathBuf::from(cuts)))
}

#[test]
fn a_real_langchain_dump_of_pdfs_opens_with_documents_and_with_cuts_alone() {
    let Some((docs, cuts)) = real_pdf_dump() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "SEAMSCOPE_TEST_LANGCHAIN_PDF_DOCS / _CUTS are not set: scripts/test makes them"
        );
        eprintln!("skipped: run scripts/test, which makes the LangChain dump of PDFs");
        return;
    };
    let loaded = load(DocumentSource::Loader(docs.clone()));
    assert!(
        loaded.documents.len() >= 5,
        "{} documents",
        loaded.documents.len()
    );
    for d in &loaded.documents {
        assert!(!d.source.pages.is_empty(), "{} has no page map", d.path);
    }
    assert_chunks_hold_their_records(&loaded, &cuts);
    let rebuilt = load(DocumentSource::Chunks(cuts.clone()));
    assert_eq!(rebuilt.documents.len(), loaded.documents.len());
    assert_chunks_hold_their_records(&rebuilt, &cuts);
}

/// The real LlamaIndex dump of the PDFs (one Document per page with `page_label`, nodes with
/// page-relative `start_char_idx`): the same checks as the LangChain dump, the rebuilt documents
/// from the nodes alone too.
#[test]
fn a_real_llama_index_dump_of_pdfs_opens_with_documents_and_with_cuts_alone() {
    let (Some(docs), Some(cuts)) = (
        std::env::var_os("SEAMSCOPE_TEST_LLAMA_PDF_DOCS"),
        std::env::var_os("SEAMSCOPE_TEST_LLAMA_PDF_CUTS"),
    ) else {
        panic!("SEAMSCOPE_TEST_LLAMA_PDF_DOCS / _CUTS are not set: scripts/test makes them");
    };
    let (docs, cuts) = (PathBuf::from(docs), PathBuf::from(cuts));
    let first = &records(&docs)[0];
    assert!(first["text"].is_string() && first["metadata"]["page_label"].is_string());
    let loaded = load(DocumentSource::Loader(docs));
    assert!(loaded.documents.len() >= 5, "{}", loaded.documents.len());
    for d in &loaded.documents {
        assert!(!d.source.pages.is_empty(), "{} has no page map", d.path);
    }
    assert_chunks_hold_their_records(&loaded, &cuts);
    let rebuilt = load(DocumentSource::Chunks(cuts.clone()));
    assert_eq!(rebuilt.documents.len(), loaded.documents.len());
    assert_chunks_hold_their_records(&rebuilt, &cuts);
}
