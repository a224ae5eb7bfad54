//! PDF extraction through pdfium (installed by `seamscope setup`; scripts/test runs it first):
//! good PDFs open with their page map, hostile ones (encrypted, a scan, truncated, zero bytes,
//! another format renamed) are each a named skip beside the files that open, no input panics,
//! and the extraction cache gives back the same documents warm, rebuilding damaged entries.

use std::path::{Path, PathBuf};

use seamscope::corpus::{Corpus, LoadOptions, SkipReason};
use seamscope::extract::pdf::Pdf;
use seamscope::extract::{Extractor, Format};

const FIXTURES: &str = "tests/fixtures/pdf";

/// The pdfium library the tests use; missing is a failure that says what to run.
fn pdfium() -> PathBuf {
    let path = seamscope::places::Places::of(&seamscope::settings::Settings::default()).pdfium_path;
    assert!(
        path.is_file(),
        "pdfium is not installed at {}: run `cargo run -- setup` (scripts/test does)",
        path.display()
    );
    path
}

fn options(cache: Option<&Path>) -> LoadOptions {
    LoadOptions {
        pdfium_library: Some(pdfium()),
        extraction_cache: cache.map(Path::to_path_buf),
        ..LoadOptions::default()
    }
}

/// The fixtures and a Markdown file, copied into a fresh folder.
fn hostile_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(FIXTURES).unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path.file_name().unwrap_or_default();
        std::fs::copy(&path, dir.path().join(name)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(
        dir.path().join("notes.md"),
        "# Notes\n\nPlain notes beside the PDFs.\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn skip_of<'a>(corpus: &'a Corpus, path: &str) -> &'a SkipReason {
    &corpus
        .skipped
        .iter()
        .find(|s| s.path == path)
        .unwrap_or_else(|| panic!("{path} was not skipped: {:?}", corpus.skipped))
        .reason
}

#[test]
fn hostile_pdfs_are_named_skips_and_the_rest_opens() {
    let dir = hostile_folder();
    let corpus = Corpus::load(dir.path(), &options(None)).unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = corpus.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["good.pdf", "notes.md"]);

    let good = &corpus.documents[0];
    assert_eq!(good.source.extractor, "pdf");
    assert!(
        good.source.version.contains("pdfium"),
        "{}",
        good.source.version
    );
    assert_eq!(good.source.pages.len(), 2);
    let two = good
        .text
        .find("Page two begins")
        .unwrap_or_else(|| panic!("{}", good.text));
    assert_eq!(good.source.pages.page_at(0), Some(1));
    assert_eq!(good.source.pages.page_at(two), Some(2));
    assert_eq!(good.source.pages.page_at(two - 1), Some(1));
    // Reading order, pages joined by a blank line, pdfium's CRLF gone.
    assert!(
        good.text.contains("every night.\nA second paragraph"),
        "{}",
        good.text
    );
    assert!(
        good.text.contains("ninety days.\n\nPage two"),
        "{}",
        good.text
    );
    assert!(!good.text.contains('\r'));

    assert_eq!(
        skip_of(&corpus, "encrypted.pdf"),
        &SkipReason::Encrypted {
            format: "pdf".into()
        }
    );
    assert_eq!(
        skip_of(&corpus, "scan.pdf"),
        &SkipReason::NoTextLayer { pages: 2 }
    );
    for damaged in ["truncated.pdf", "zero-byte.pdf", "renamed-text.pdf"] {
        let reason = skip_of(&corpus, damaged);
        assert!(
            matches!(reason, SkipReason::Damaged { format, .. } if format == "pdf"),
            "{damaged}: {reason:?}"
        );
        // The reason reads as words a user can act on.
        assert!(
            reason.to_string().starts_with("not a readable pdf file"),
            "{reason}"
        );
    }
    assert!(
        skip_of(&corpus, "zero-byte.pdf")
            .to_string()
            .contains("0 bytes")
    );
    assert_eq!(corpus.skipped.len(), 5, "{:?}", corpus.skipped);
}

#[test]
fn a_missing_engine_is_a_skip_with_the_fix_and_other_files_open() {
    let dir = hostile_folder();
    let corpus = Corpus::load(
        dir.path(),
        &LoadOptions {
            pdfium_library: Some(dir.path().join("no-such-libpdfium.so")),
            ..LoadOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = corpus.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["notes.md"]);
    let reason = skip_of(&corpus, "good.pdf");
    assert!(
        matches!(reason, SkipReason::EngineMissing { fix, .. } if fix.contains("seamscope setup")),
        "{reason:?}"
    );
}

#[test]
fn no_truncation_or_corruption_of_a_pdf_panics() {
    let pdf = Pdf::new(pdfium());
    let good =
        std::fs::read(Path::new(FIXTURES).join("good.pdf")).unwrap_or_else(|e| panic!("{e}"));
    let whole = pdf
        .extract(Path::new("good.pdf"), good.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut opened = 0;
    let mut inputs: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
    // Every 13th byte flipped in turn: damage inside the streams and the cross-reference table.
    for at in (0..good.len()).step_by(13) {
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        inputs.push(bad);
    }
    for bytes in inputs {
        match pdf.extract(Path::new("x.pdf"), bytes) {
            Ok(x) => {
                opened += 1;
                // Whatever opens keeps a page map that fits its text.
                assert!(
                    x.pages
                        .starts
                        .iter()
                        .all(|s| s.byte <= x.text.len() && x.text.is_char_boundary(s.byte))
                );
            }
            Err(
                SkipReason::Damaged { .. }
                | SkipReason::NoTextLayer { .. }
                | SkipReason::Encrypted { .. },
            ) => {}
            Err(other) => panic!("unexpected skip {other:?}"),
        }
    }
    assert!(whole.text.contains("zebracorn"));
    // Most single-byte flips leave a readable PDF (pdfium repairs), so both paths were taken.
    assert!(opened > 0);
}

#[test]
fn a_warm_load_reads_the_cache_and_a_damaged_entry_is_rebuilt() {
    let dir = hostile_folder();
    let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cold =
        Corpus::load(dir.path(), &options(Some(cache.path()))).unwrap_or_else(|e| panic!("{e}"));
    let entries: Vec<PathBuf> = std::fs::read_dir(cache.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    // good, encrypted, scan, truncated, zero-byte, renamed: each kept (text or the file's skip).
    assert_eq!(entries.len(), 6, "{entries:?}");
    let warm =
        Corpus::load(dir.path(), &options(Some(cache.path()))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(warm.documents, cold.documents);
    assert_eq!(warm.skipped, cold.skipped);
    for entry in &entries {
        std::fs::write(entry, b"{\"format\": 1, \"broken").unwrap_or_else(|e| panic!("{e}"));
    }
    let rebuilt =
        Corpus::load(dir.path(), &options(Some(cache.path()))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rebuilt.documents, cold.documents);
    assert_eq!(rebuilt.skipped, cold.skipped);
    let again = std::fs::read(&entries[0]).unwrap_or_else(|e| panic!("{e}"));
    assert!(serde_json::from_slice::<serde_json::Value>(&again).is_ok());
}

#[test]
fn a_forced_format_and_an_extension_table_pick_the_extractor() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(
        Path::new(FIXTURES).join("good.pdf"),
        dir.path().join("report.bin"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // By extension `.bin` is text, and binary: skipped.
    let plain = Corpus::load(dir.path(), &options(None));
    assert!(plain.is_err());
    let forced = Corpus::load(
        dir.path(),
        &LoadOptions {
            forced_format: Some(Format::Pdf),
            ..options(None)
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(forced.documents[0].source.extractor, "pdf");
    let mapped = Corpus::load(
        dir.path(),
        &LoadOptions {
            extension_formats: vec![("bin".into(), Format::Pdf)],
            ..options(None)
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mapped.documents[0].text, forced.documents[0].text);
}

mod common;

#[test]
fn chunks_json_names_the_extractor_and_each_chunks_pages() {
    let corpus = hostile_folder();
    let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let v = common::json_of(
        common::seamscope(cache.path())
            .arg("--pdfium")
            .arg(pdfium())
            .args(["chunks", "--json", "--chunk-tokens", "16"])
            .arg(corpus.path()),
    );
    let docs = v["documents"].as_array().unwrap_or_else(|| panic!("{v}"));
    let good = docs
        .iter()
        .find(|d| d["path"] == "good.pdf")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(good["extractor"], "pdf");
    assert_eq!(good["pages"], 2);
    let notes = docs.iter().find(|d| d["path"] == "notes.md");
    assert_eq!(notes.map(|d| d["extractor"].clone()), Some("text".into()));
    let pages: Vec<serde_json::Value> = v["chunks"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .filter(|c| c["doc"] == "good.pdf")
        .map(|c| c["pages"].clone())
        .collect();
    // 16-token chunks over two pages: the first on page 1, the last on page 2.
    assert!(pages.len() >= 3, "{pages:?}");
    assert_eq!(pages.first(), Some(&serde_json::json!([1, 1])));
    assert_eq!(pages.last(), Some(&serde_json::json!([2, 2])));
    // A text document's chunks carry no pages.
    assert!(
        v["chunks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["doc"] == "notes.md")
            .all(|c| c.get("pages").is_none())
    );
}

#[test]
fn setup_dry_run_lists_pdfium_and_fetches_nothing() {
    let (cache, data) = (
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")),
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")),
    );
    let v = common::json_of(
        common::seamscope(cache.path())
            .arg("--data-dir")
            .arg(data.path())
            .args(["setup", "--dry-run", "--json"]),
    );
    assert_eq!(v["pdfium"]["installed"], false);
    assert_eq!(v["pdfium"]["package"], "pypdfium2 5.15.2");
    let path = v["pdfium"]["path"].as_str().unwrap_or_default();
    assert!(path.starts_with(&*data.path().to_string_lossy()), "{path}");
    assert!(
        path.ends_with("pdfium/libpdfium.so") || !cfg!(target_os = "linux"),
        "{path}"
    );
    assert_eq!(
        std::fs::read_dir(data.path())
            .map(|d| d.count())
            .unwrap_or(1),
        0
    );
}
