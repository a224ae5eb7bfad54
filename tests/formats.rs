//! Extraction against real files: `scripts/test` renders every Markdown and text file of
//! `sample-corpus/` as HTML (Python-Markdown), DOCX (python-docx) and PDF (fpdf2) with
//! `scripts/make-formats.py`, so each document's true text is known, and exports the folder in
//! `SEAMSCOPE_TEST_FORMATS_DIR`.
//!
//! What a user relies on: extraction recovers at least 99% of each document's words in order
//! (a word-level diff; the figure is printed per document), the page chrome (nav, header,
//! aside, footer, scripts) is left out, the HTML version's heading paths equal the Markdown's,
//! and hostile files are each a named skip (or, for Latin-1 that declares its charset, read
//! correctly) while the rest of their folder opens.

use std::path::{Path, PathBuf};

use seamscope::chunk::heading::{heading_path, path_line};
use seamscope::chunk::markdown::{Dialect, outline};
use seamscope::corpus::{Corpus, DocKind, LoadOptions, SkipReason};
use seamscope::extract::{Format, extractor_for};

/// The least share of a document's words extraction must recover, in order.
const MIN_RECOVERED: f64 = 0.99;

/// The folder make-formats.py wrote; a missing one is a failure that says how to get it.
fn formats_dir() -> PathBuf {
    PathBuf::from(std::env::var("SEAMSCOPE_TEST_FORMATS_DIR").expect(
        "SEAMSCOPE_TEST_FORMATS_DIR is not set: run the tests with scripts/test, which renders \
         sample-corpus/ as PDF, HTML and DOCX with scripts/make-formats.py",
    ))
}

/// make-formats.py's index: the source folder and each stem's source file name.
struct Sources {
    dir: PathBuf,
    documents: Vec<(String, String)>,
    chrome_words: Vec<String>,
}

fn sources() -> Sources {
    let index = formats_dir().join("sources.json");
    let text = std::fs::read_to_string(&index)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", index.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let documents = v["documents"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(stem, name)| (stem.clone(), name.as_str().unwrap().to_string()))
        .collect::<Vec<_>>();
    assert!(documents.len() >= 10, "too few documents in {index:?}");
    Sources {
        dir: PathBuf::from(v["source_dir"].as_str().unwrap()),
        documents,
        chrome_words: v["chrome_words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect(),
    }
}

/// Runs of letters and digits: what "a word" is on both sides of the diff, so markup
/// (`#`, `|`, `-`, backticks) and punctuation never count.
fn words_of_plain(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The words a reader sees in Markdown: its text and code, without markers, fences or table
/// pipes (the same parser for the source and the extraction).
fn words_of_markdown(text: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Options, Parser};
    let mut seen = String::new();
    for event in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) | Event::Code(t) => {
                seen.push_str(&t);
                seen.push(' ');
            }
            Event::SoftBreak | Event::HardBreak | Event::End(_) => seen.push(' '),
            _ => {}
        }
    }
    words_of_plain(&seen)
}

fn words_of(text: &str, kind: DocKind) -> Vec<String> {
    match kind {
        DocKind::Markdown => words_of_markdown(text),
        _ => words_of_plain(text),
    }
}

/// The share of `truth`'s words that `got` holds in the same order (a longest common
/// subsequence, by Myers' diff), and the first few runs of words it lost.
fn recovered(truth: &[String], got: &[String]) -> (f64, Vec<String>) {
    use similar::{Algorithm, DiffOp, capture_diff_slices};
    let ops = capture_diff_slices(Algorithm::Myers, truth, got);
    let same: usize = ops
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    let lost = ops
        .iter()
        .filter_map(|op| match op {
            DiffOp::Delete {
                old_index, old_len, ..
            }
            | DiffOp::Replace {
                old_index, old_len, ..
            } => Some(truth[*old_index..old_index + old_len].join(" ")),
            _ => None,
        })
        .take(5)
        .collect();
    (same as f64 / truth.len().max(1) as f64, lost)
}

/// One source document's true words.
fn truth(sources: &Sources, name: &str) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(sources.dir.join(name)).unwrap();
    let kind = DocKind::from_path(Path::new(name));
    let words = words_of(&text, kind);
    (text, words)
}

fn extract(format: Format, path: &Path) -> seamscope::extract::Extracted {
    let extractor = extractor_for(format).unwrap();
    let bytes = std::fs::read(path).unwrap();
    extractor
        .extract(path, bytes)
        .unwrap_or_else(|reason| panic!("{}: skipped: {reason}", path.display()))
}

/// Every document of one format recovers at least [`MIN_RECOVERED`] of its words in order.
fn check_recovery(format: Format, folder: &str, ext: &str) -> Vec<(String, String)> {
    let sources = sources();
    let mut failures = Vec::new();
    let mut texts = Vec::new();
    for (stem, name) in &sources.documents {
        let (_, want) = truth(&sources, name);
        let path = formats_dir().join(folder).join(format!("{stem}.{ext}"));
        let got = extract(format, &path);
        let got_words = words_of(&got.text, got.kind);
        let (share, lost) = recovered(&want, &got_words);
        println!(
            "{} {stem}: {:.2}% of {} words recovered in order ({} words extracted){}",
            format.name(),
            share * 100.0,
            want.len(),
            got_words.len(),
            if lost.is_empty() {
                String::new()
            } else {
                format!("; first lost: {lost:?}")
            }
        );
        if share < MIN_RECOVERED {
            failures.push(format!("{stem}: {:.2}%", share * 100.0));
        }
        for word in &sources.chrome_words {
            assert!(
                !got.text.contains(word.as_str()),
                "{stem}.{ext}: the page chrome's {word:?} was not dropped"
            );
        }
        texts.push((name.clone(), got.text));
    }
    assert!(
        failures.is_empty(),
        "{} extraction recovered under {}% of the words of: {failures:?}",
        format.name(),
        MIN_RECOVERED * 100.0
    );
    texts
}

/// Each heading's path (itself and its parents), in document order.
fn heading_paths(text: &str) -> Vec<String> {
    let headings = outline(text, Dialect::Markdown).headings;
    headings
        .iter()
        .map(|h| path_line(&heading_path(&headings, h.span.start + 1)))
        .collect()
}

#[test]
fn html_recovers_the_words_in_order_and_the_markdowns_heading_paths() {
    let sources = sources();
    let texts = check_recovery(Format::Html, "html", "html");
    let mut compared = 0;
    for (name, extracted) in texts {
        if !name.ends_with(".md") {
            continue;
        }
        let (source, _) = truth(&sources, &name);
        let want = heading_paths(&source);
        assert!(!want.is_empty(), "{name} has no headings to compare");
        assert_eq!(heading_paths(&extracted), want, "{name}: heading paths");
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} Markdown documents compared");
}

#[test]
fn docx_recovers_the_words_in_order_and_the_headings() {
    let sources = sources();
    for (name, extracted) in check_recovery(Format::Docx, "docx", "docx") {
        if !name.ends_with(".md") {
            continue;
        }
        let (source, _) = truth(&sources, &name);
        // make-formats.py writes a heading's inline code as plain text (Word has no code
        // mark), so the backticks are compared away; every title and level must match.
        let unmarked = |paths: Vec<String>| -> Vec<String> {
            paths.into_iter().map(|p| p.replace('`', "")).collect()
        };
        assert_eq!(
            unmarked(heading_paths(&extracted)),
            unmarked(heading_paths(&source)),
            "{name}: heading paths"
        );
    }
}

#[test]
fn pdf_recovers_the_words_in_order() {
    check_recovery(Format::Pdf, "pdf", "pdf");
}

/// A long PDF's start (what the screen draws while the whole is extracted) is the first pages
/// of the whole extraction, byte for byte, with those pages' map, and ends at a paragraph.
#[test]
fn a_pdfs_start_is_its_first_pages_as_the_whole_extraction_has_them() {
    let path = formats_dir().join("pdf").join("order-service-design.pdf");
    let whole = extract(Format::Pdf, &path);
    assert!(whole.pages.len() >= 4, "{} pages", whole.pages.len());
    let budget = whole.pages.starts[2].byte + 300;
    let extractor = extractor_for(Format::Pdf).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let start = extractor
        .extract_start(&path, &bytes, budget)
        .expect("a PDF has a start");
    assert!(start.text.len() <= budget && start.text.len() > whole.pages.starts[1].byte);
    assert!(whole.text.starts_with(&start.text));
    assert!(whole.text[start.text.len()..].starts_with('\n'));
    let begun: Vec<_> = whole
        .pages
        .starts
        .iter()
        .filter(|p| p.byte < start.text.len())
        .copied()
        .collect();
    assert_eq!(
        start.pages.starts, begun,
        "the pages that begin within the start"
    );
    assert!(begun.len() >= 2);
    // Past the whole text, the start is the whole.
    let all = extractor.extract_start(&path, &bytes, usize::MAX).unwrap();
    assert_eq!(all, whole);
}

#[test]
fn hostile_files_are_named_skips_and_the_rest_opens() {
    let folder = formats_dir().join("hostile");
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(formats_dir().join("hostile-expected.json")).unwrap(),
    )
    .unwrap();
    let latin1 = expected["latin1_text"].as_str().unwrap();
    let corpus = Corpus::load(&folder, &LoadOptions::default()).unwrap();
    let paths: Vec<&str> = corpus.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["good.html", "latin1-declared.html"], "{corpus:?}");
    let declared = &corpus.documents[1];
    assert!(
        declared.text.contains(latin1),
        "a declared Latin-1 page is read in its charset: {:?}",
        declared.text
    );
    assert_eq!(declared.kind, DocKind::Markdown);
    assert!(declared.text.starts_with("# Latin-1 page"));
    let reason = |path: &str| {
        corpus
            .skipped
            .iter()
            .find(|s| s.path == path)
            .map(|s| s.reason.clone())
            .unwrap_or_else(|| panic!("{path} was not skipped: {:?}", corpus.skipped))
    };
    assert!(matches!(
        reason("latin1-undeclared.html"),
        SkipReason::InvalidUtf8 { .. }
    ));
    let renamed = reason("renamed-zip.docx");
    assert!(
        renamed
            .to_string()
            .contains("a ZIP but not a Word document"),
        "{renamed}"
    );
    let not_zip = reason("not-a-zip.docx");
    assert!(not_zip.to_string().contains("not a ZIP"), "{not_zip}");
    assert_eq!(corpus.skipped.len(), 3, "{:?}", corpus.skipped);
    assert_eq!(
        seamscope::corpus::skip_summary(&corpus.skipped).as_deref(),
        Some("3 skipped: 2 damaged or misnamed DOCX files, 1 file not in UTF-8")
    );
}
