//! Files written to attack the terminal, fed to the real binary: a bundle whose manifest names a
//! model, a chunker and a document with escape sequences (a window title, a screen clear, an OSC
//! 52 clipboard write, a C1 CSI and a bidi override), an `.npy` header holding them, a view file
//! whose corpus path holds them, a question file whose id and document hold them, and a
//! baseline whose row label holds them. Whatever the command says about them, no ESC, BEL, C1
//! control or bidi override may reach stdout or stderr. The hostile files are kept in
//! `tests/fixtures/hostile/`; a bundle's manifest is written here, as its hashes follow the files.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::hostile::{FIXTURES, bundle};

/// The cache the sample-corpus tests share (the corpus is embedded once per build folder).
fn sample_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache")
}

/// Characters a terminal acts on instead of showing.
fn acts_on_terminal(c: char) -> bool {
    matches!(c, '\u{1b}' | '\u{7}' | '\u{7f}'..='\u{9f}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || (c.is_control() && c != '\n' && c != '\t')
}

/// Assert that neither stream of `out` holds a character a terminal would act on, and that the
/// run failed cleanly (exit 1 or 2, not a panic); stderr as text.
fn assert_inert(case: &str, out: &Output) -> String {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !bytes.contains(&0x1b) && !bytes.contains(&0x07),
            "{case}: raw ESC or BEL on {stream}: {:?}",
            String::from_utf8_lossy(bytes)
        );
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.chars().any(acts_on_terminal),
            "{case}: a control character on {stream}: {text:?}"
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{case}: exit {:?}\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    stderr
}

#[test]
fn hostile_bundle_fields_are_named_without_reaching_the_terminal() {
    let cache = tempfile::tempdir().unwrap();
    for (variant, said) in [
        (
            "bundle-model",
            "its vectors were made by the model ␛]0;title␇",
        ),
        ("bundle-chunker", "unknown variant `␛]0;title␇␛[2J␛]52;c;"),
        ("bundle-npy", "the header says {'descr': '>f8␛]0;title␇"),
        ("bundle-docname", "of ␛]0;title␇␛[2J␛]52;c;"),
    ] {
        let dir = bundle(variant);
        for json in [false, true] {
            let mut cmd = common::seamscope(cache.path());
            cmd.arg("import").arg(dir.path());
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            let stderr = assert_inert(variant, &out);
            assert!(stderr.contains(said), "{variant}: {stderr}");
        }
    }
}

#[test]
fn a_view_file_whose_corpus_path_holds_escapes() {
    let cache = tempfile::tempdir().unwrap();
    let out = common::seamscope(cache.path())
        .arg("--open")
        .arg(Path::new(FIXTURES).join("view.json"))
        .output()
        .unwrap();
    let stderr = assert_inert("view file", &out);
    assert!(
        stderr.contains("/nonexistent/␛]0;title␇␛[2J"),
        "the path is named, made visible: {stderr}"
    );
}

#[test]
fn a_question_file_whose_id_and_document_hold_escapes() {
    let questions = Path::new(FIXTURES).join("questions.jsonl");
    for json in [false, true] {
        let mut cmd = common::seamscope(&sample_cache());
        cmd.args(["eval", "sample-corpus", "--sweep-m", "1", "--questions"])
            .arg(&questions);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        let stderr = assert_inert("question file", &out);
        assert!(
            stderr.contains("(␛]0;title␇␛[2J") && stderr.contains("is not in the corpus"),
            "{stderr}"
        );
    }
}

#[test]
fn a_baseline_whose_row_label_holds_escapes() {
    let baseline = Path::new(FIXTURES).join("baseline.json");
    for json in [false, true] {
        let mut cmd = common::seamscope(&sample_cache());
        cmd.args([
            "eval",
            "sample-corpus",
            "--sweep-m",
            "1",
            "--fail-over",
            "100",
            "--compare",
        ])
        .arg(&baseline);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.chars().any(acts_on_terminal),
                "baseline: a control character on {stream}: {text:?}"
            );
        }
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = if json { &out.stderr } else { &out.stdout };
        let said = String::from_utf8_lossy(said);
        assert!(
            said.contains("␛]0;title␇␛[2J␛]52;c;") && said.contains("only in the baseline"),
            "{said}"
        );
    }
}

#[test]
fn a_bundle_of_zero_dimensional_vectors_is_refused_not_a_panic() {
    // dim 0 and an `.npy` of shape (83, 0): once "chunk size must be non-zero", exit 101.
    let cache = tempfile::tempdir().unwrap();
    let dir = bundle("bundle-dim0");
    let out = common::seamscope(cache.path())
        .arg("import")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = assert_inert("dim 0", &out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("settings.json is damaged: dim is 0"),
        "{stderr}"
    );
}

#[test]
fn an_os_error_is_said_once() {
    // The message quotes the OS error and carries it as its cause too: once printed twice.
    let cache = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = common::seamscope(cache.path())
        .args(["export", "sample-corpus", "--out"])
        .arg(out_dir.path().join("bundle"))
        .args(["--calibration", "/nonexistent/calibration.json"])
        .output()
        .unwrap();
    let stderr = assert_inert("missing calibration report", &out);
    assert!(
        stderr.contains("cannot read the calibration report /nonexistent/calibration.json"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("os error 2").count(), 1, "{stderr}");
}

#[test]
fn corpus_text_with_c1_controls_leaves_json_escaped_and_text_pictured() {
    // serde_json escapes ESC and BEL but writes C1 controls (U+009B is CSI to some terminals)
    // and bidi overrides raw: the JSON on stdout carries them as \u escapes instead.
    let cache = tempfile::tempdir().unwrap();
    let corpus = tempfile::tempdir().unwrap();
    let hostile = "Clause one.\u{9b}2J \u{1b}]0;title\u{7} \u{202e}reversed\u{202c} text.\n";
    std::fs::write(corpus.path().join("terms\u{9b}2J.md"), hostile.repeat(40)).unwrap();
    let out = common::seamscope(cache.path())
        .args(["chunks", "--json"])
        .arg(corpus.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.chars().any(acts_on_terminal),
        "a control character on stdout: {stdout:?}"
    );
    let listing: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let text = listing.to_string();
    assert!(
        text.contains("\u{9b}2J") || text.contains("\\u009b2J"),
        "the document's name survives, escaped: {text:.400}"
    );
    let plain = common::seamscope(cache.path())
        .arg("chunks")
        .arg(corpus.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success());
    assert!(
        !text.chars().any(acts_on_terminal),
        "a control character on stdout: {text:?}"
    );
}

#[test]
fn a_missing_file_is_named_with_its_os_error_once_in_every_command() {
    let cache = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let bundle_out = out_dir.path().join("b");
    let bundle_out = bundle_out.to_str().unwrap();
    let cases: [&[&str]; 9] = [
        &["eval", "--questions", "/nonexistent", "sample-corpus"],
        &["calibrate", "--questions", "/nonexistent", "sample-corpus"],
        &["tune", "--questions", "/nonexistent", "sample-corpus"],
        &["import", "/nonexistent"],
        &["index", "--cuts", "/nonexistent", "sample-corpus"],
        &["query", "--cuts", "/nonexistent", "sample-corpus", "why?"],
        &["chunks", "/nonexistent"],
        &["--open", "/nonexistent"],
        &[
            "export",
            "sample-corpus",
            "--from-tune",
            "/nonexistent",
            "--out",
            bundle_out,
        ],
    ];
    for args in cases {
        for json in [false, true] {
            let mut cmd = common::seamscope(cache.path());
            cmd.args(args);
            if json && args[0] != "--open" {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            assert!(!out.status.success(), "{args:?} failed");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                stderr.contains("/nonexistent"),
                "{args:?}: the path is named:\n{stderr}"
            );
            for (what, text) in [("stderr", &stderr), ("stdout", &stdout)] {
                assert!(
                    text.matches("No such file or directory").count() <= 1
                        && text.matches("os error 2").count() <= 1,
                    "{args:?} (json {json}): the OS error once on {what}:\n{text}"
                );
            }
        }
    }
}

#[test]
fn an_error_that_quotes_the_os_error_does_not_carry_it_again() {
    // Each message quotes its OS error; carried as a `source` too, every report of the whole
    // chain (`{:#}`, the MCP server's and the screen's) said it twice. Only the CLI's last line
    // dropped the repeat.
    use seamscope::board::origin::TuneOrigin;
    use seamscope::calibrate::provenance::CalibrationOrigin;
    use seamscope::export::ExportError;
    let missing = std::path::Path::new("/nonexistent/report.json");
    let errors: Vec<anyhow::Error> = vec![
        TuneOrigin::read(missing, None).unwrap_err().into(),
        CalibrationOrigin::read(missing).unwrap_err().into(),
        ExportError::Write {
            path: missing.to_path_buf(),
            error: std::io::Error::from(std::io::ErrorKind::NotFound),
        }
        .into(),
    ];
    for e in errors {
        let chain = format!("{e:#}");
        let os = e.root_cause().to_string();
        assert!(chain.contains("/nonexistent/report.json"), "{chain}");
        assert_eq!(chain.matches(&os).count(), 1, "{chain}");
    }
}
