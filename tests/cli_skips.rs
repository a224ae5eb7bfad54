//! Nothing dropped silently: a folder that mixes readable pages with files that cannot be read
//! opens with the readable ones, and every command says how many files it skipped and why,
//! grouped, on its summary line, while `--json` lists each file with its reason.

mod common;

use std::io::Write;

use common::{json_of, seamscope};

/// A folder as a new user has one: a Markdown note, an HTML page, a page in Latin-1 that does
/// not say so, a ZIP renamed to .docx, a text file renamed to .docx, and an empty file.
fn mixed_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("notes.md"),
        "# Notes\n\nThe failover drill runs every quarter.\n",
    )
    .unwrap();
    std::fs::write(
        p.join("page.html"),
        "<!doctype html><html><head><title>x</title><script>var hidden = 1;</script></head>\
         <body><nav>Home | Docs</nav><main><h1>Ledger</h1><p>The ledger closes at &amp; after \
         midnight.</p><ul><li>first</li><li>second</li></ul></main><footer>(c)</footer></body></html>",
    )
    .unwrap();
    std::fs::write(
        p.join("latin.html"),
        b"<html><body><p>caf\xe9 cr\xe8me</p></body></html>",
    )
    .unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(p.join("export.docx")).unwrap());
    zip.start_file("notes.txt", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"not a Word document").unwrap();
    zip.finish().unwrap();
    std::fs::write(p.join("renamed.docx"), "plain text, renamed").unwrap();
    std::fs::write(p.join("empty.txt"), "   \n").unwrap();
    dir
}

#[test]
fn chunks_opens_the_pages_and_sums_up_the_skips_by_reason() {
    let cache = tempfile::tempdir().unwrap();
    let dir = mixed_folder();
    let out = seamscope(cache.path())
        .arg("chunks")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(": 2 documents, "), "{stdout}");
    assert!(
        stdout.contains(
            "  4 skipped: 2 damaged or misnamed DOCX files, 1 empty file (no text), 1 file not in UTF-8 (--json lists each file and why)"
        ),
        "{stdout}"
    );

    let v = json_of(
        seamscope(cache.path())
            .args(["chunks", "--json"])
            .arg(dir.path()),
    );
    let docs: Vec<&str> = v["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(docs, ["notes.md", "page.html"], "{v}");
    let skipped = v["skipped"].as_array().unwrap();
    let reasons: Vec<(&str, &str)> = skipped
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("empty.txt", "empty"),
            ("export.docx", "damaged"),
            ("latin.html", "invalid_utf8"),
            ("renamed.docx", "damaged"),
        ],
        "{v}"
    );
    assert!(
        skipped[1]["error"]
            .as_str()
            .unwrap()
            .contains("a ZIP but not a Word document"),
        "{v}"
    );
    // The HTML page is read as its text: the first chunk starts at its heading, without the
    // navigation, the script or the footer.
    let page_chunk = v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["doc"] == "page.html")
        .unwrap();
    assert_eq!(page_chunk["start"], 0, "{page_chunk}");
}

#[test]
fn atoms_says_what_it_skipped_on_stderr_and_in_its_json() {
    let cache = tempfile::tempdir().unwrap();
    let dir = mixed_folder();
    let out = seamscope(cache.path())
        .args(["atoms", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(": 2 documents, 4 skipped: 2 damaged or misnamed DOCX files"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["skipped"].as_array().map(Vec::len), Some(4), "{v}");
}

#[test]
fn a_folder_of_unreadable_files_names_each_with_the_grouped_line() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.docx"), "text").unwrap();
    std::fs::write(dir.path().join("b.docx"), "text").unwrap();
    let out = seamscope(cache.path())
        .arg("chunks")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 skipped: 2 damaged or misnamed DOCX files")
            && stderr.contains("a.docx: not a readable docx file: not a ZIP archive"),
        "{stderr}"
    );
}

#[test]
fn a_200_mb_page_is_a_named_skip_under_the_size_limit_and_the_rest_opens() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("page.html"),
        "<h1>Ledger</h1><p>Closes at midnight.</p>",
    )
    .unwrap();
    // A sparse file: 200 MB by its size, refused by the limit before a byte is read.
    let huge = std::fs::File::create(dir.path().join("dump.html")).unwrap();
    huge.set_len(200 * 1024 * 1024).unwrap();
    let out = seamscope(cache.path())
        .arg("chunks")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(": 1 documents, ")
            && stdout.contains("  1 skipped: 1 file over the 8388608-byte size limit"),
        "{stdout}"
    );
    let v = json_of(
        seamscope(cache.path())
            .args(["chunks", "--json"])
            .arg(dir.path()),
    );
    assert_eq!(v["skipped"][0]["path"], "dump.html", "{v}");
    assert_eq!(v["skipped"][0]["reason"], "too_large", "{v}");
    assert_eq!(v["skipped"][0]["bytes"], 200 * 1024 * 1024, "{v}");
}
