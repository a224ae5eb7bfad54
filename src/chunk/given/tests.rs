//! Placing given cuts: each format, bytes and characters, overlaps, gaps, and every refusal
//! with the record it names.

use std::path::Path;

use super::*;
use crate::corpus::{DocKind, SkipReason, SkippedFile};

/// Two documents: `a.md` (ASCII) and `docs/é.txt` (two-byte characters).
fn corpus() -> Corpus {
    let doc = |id: u32, path: &str, text: &str| Document {
        id: DocId(id),
        path: path.to_string(),
        text: text.to_string(),
        kind: DocKind::Text,
        source: crate::extract::TextSource::plain(),
    };
    Corpus {
        root: std::path::PathBuf::from("/nonexistent/corpus"),
        documents: vec![
            doc(0, "a.md", "One two three. Four five six. Seven eight nine."),
            doc(1, "docs/é.txt", "café crème brûlée, s'il vous plaît."),
        ],
        skipped: vec![SkippedFile {
            path: "big.bin".into(),
            reason: SkipReason::Binary,
        }],
    }
}

fn place(content: &str) -> Result<GivenCuts, CutsError> {
    GivenCuts::parse(Path::new("cuts.jsonl"), content, &corpus())
}

fn problem(content: &str) -> (Option<RecordAt>, CutsProblem) {
    let e = place(content).unwrap_err();
    (e.at, *e.problem)
}

#[test]
fn plain_bytes_place_as_given_and_sort_by_start() {
    let g = place(
        "{\"doc\": \"a.md\", \"start\": 15, \"end\": 29}\n{\"doc\": \"a.md\", \"start\": 0, \"end\": 14}\n",
    )
    .unwrap();
    assert_eq!(g.format, CutsFormat::Plain);
    assert_eq!(g.spans_of("a.md"), &[Span::new(0, 14), Span::new(15, 29)]);
    assert_eq!(g.spans_of("docs/é.txt"), &[] as &[Span]);
    assert_eq!((g.records, g.documents()), (2, 1));
    assert!(g.name().starts_with("given-"));
}

#[test]
fn character_offsets_become_byte_offsets() {
    // "café crème": 10 characters, 12 bytes.
    let g = place("{\"offsets\": \"chars\"}\n{\"doc\": \"é.txt\", \"start\": 0, \"end\": 10, \"text\": \"café crème\"}\n").unwrap();
    assert_eq!(g.spans_of("docs/é.txt"), &[Span::new(0, 12)]);
    let g = place("{\"doc\": \"docs/é.txt\", \"start\": 5, \"end\": 10, \"offsets\": \"chars\"}")
        .unwrap();
    assert_eq!(g.spans_of("docs/é.txt"), &[Span::new(6, 12)]);
}

#[test]
fn langchain_start_index_is_checked_or_found() {
    let text = "One two three. Four five six. Seven eight nine.";
    let start = text.find("Four").unwrap_or(0);
    let line = |content: &str, start: i64| {
        format!(
            "{{\"page_content\": \"{content}\", \"metadata\": {{\"source\": \"/home/me/corpus/a.md\", \"start_index\": {start}}}}}"
        )
    };
    let g = place(&format!(
        "{}\n{}",
        line("One two three.", 0),
        line("Four five six.", start as i64)
    ))
    .unwrap();
    assert_eq!(g.format, CutsFormat::LangChain);
    assert_eq!(
        g.spans_of("a.md"),
        &[Span::new(0, 14), Span::new(start, start + 14)]
    );
    // Without a usable start_index (-1, or none), the text is found after the previous start.
    let g = place(&format!("{}\n{}", line("Four five", -1), line("Seven", -1))).unwrap();
    assert_eq!(g.spans_of("a.md")[1].start, text.find("Seven").unwrap_or(0));
    let (at, p) = problem(&format!("{}\n{}", line("Seven", -1), line("Four", -1)));
    assert_eq!(at, Some(RecordAt::Line(2)));
    assert!(
        matches!(p, CutsProblem::TextNotFound { ref after, .. } if after.contains("previous chunk")),
        "{p}"
    );
    // Two chunks of the same text, one after the other, without start_index: the second is
    // looked for after the first, as LangChain's own search does.
    let twice = "Ping. Ping. Pong.";
    let doc = Document {
        id: DocId(0),
        path: "echo.md".into(),
        text: twice.into(),
        kind: DocKind::Text,
        source: crate::extract::TextSource::plain(),
    };
    let echo = Corpus {
        root: std::path::PathBuf::from("/nonexistent/corpus"),
        documents: vec![doc],
        skipped: Vec::new(),
    };
    let record = |content: &str| {
        format!("{{\"page_content\": \"{content}\", \"metadata\": {{\"source\": \"echo.md\"}}}}")
    };
    let g = GivenCuts::parse(
        Path::new("cuts.jsonl"),
        &[record("Ping."), record("Ping."), record("Pong.")].join("\n"),
        &echo,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        g.spans_of("echo.md"),
        &[Span::new(0, 5), Span::new(6, 11), Span::new(12, 17)]
    );
    // A third "Ping." has no place left after the second.
    let e = GivenCuts::parse(
        Path::new("cuts.jsonl"),
        &[record("Ping."), record("Ping."), record("Ping.")].join("\n"),
        &echo,
    )
    .unwrap_err();
    assert_eq!(e.at, Some(RecordAt::Line(3)));
    assert!(
        matches!(*e.problem, CutsProblem::TextNotFound { .. }),
        "{e}"
    );
    let (at, p) = problem(&line("One two thre", 1));
    assert_eq!(at, Some(RecordAt::Line(1)));
    assert!(matches!(p, CutsProblem::TextMismatch { .. }), "{p}");
}

#[test]
fn llamaindex_nodes_place_by_character_index() {
    let node = r#"{"metadata": {"file_path": "/data/docs/é.txt", "file_name": "é.txt"}, "text": "crème", "start_char_idx": 5, "end_char_idx": 10}"#;
    let g = place(node).unwrap();
    assert_eq!(g.format, CutsFormat::LlamaIndex);
    assert_eq!(g.spans_of("docs/é.txt"), &[Span::new(6, 12)]);
}

#[test]
fn overlaps_and_gaps_are_kept() {
    let g = place(
        "{\"doc\": \"a.md\", \"start\": 0, \"end\": 20}\n{\"doc\": \"a.md\", \"start\": 15, \"end\": 30}\n{\"doc\": \"a.md\", \"start\": 35, \"end\": 40}\n",
    )
    .unwrap();
    assert_eq!(
        g.spans_of("a.md"),
        &[Span::new(0, 20), Span::new(15, 30), Span::new(35, 40)]
    );
}

#[test]
fn every_refusal_names_its_record() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "{\"doc\": \"nope.md\", \"start\": 0, \"end\": 3}",
            1,
            "no document of the corpus is `nope.md`",
        ),
        (
            "{\"doc\": \"big.bin\", \"start\": 0, \"end\": 3}",
            1,
            "which the corpus left out",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 0, \"end\": 3}\n{\"doc\": \"a.md\", \"start\": 0, \"end\": 99}",
            2,
            "past the end of a.md, which has 47 bytes",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 5, \"end\": 5}",
            1,
            "start 5 is not before end 5",
        ),
        (
            "{\"doc\": \"é.txt\", \"start\": 4, \"end\": 8}",
            1,
            "inside a multi-byte character",
        ),
        (
            "{\"doc\": \"é.txt\", \"start\": 0, \"end\": 99, \"offsets\": \"chars\"}",
            1,
            "which has 35 characters",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 0, \"end\": 3, \"text\": \"Two\"}",
            1,
            "its text is not the text of a.md",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 0, \"end\": 9}\n\n{\"doc\": \"a.md\", \"start\": 0, \"end\": 9}",
            3,
            "same span of a.md (bytes 0..9) as line 1",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 0, \"end\": 20}\n{\"doc\": \"a.md\", \"start\": 5, \"end\": 9}",
            2,
            "wholly inside the chunk of line 1",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 5, \"end\": 9}\n{\"doc\": \"a.md\", \"start\": 0, \"end\": 20}",
            1,
            "wholly inside the chunk of line 2",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 0, \"end\": 9}\n{\"doc\": 7}",
            2,
            "`doc` is 7, not a string",
        ),
        (
            "{\"doc\": \"a.md\", \"start\": 0, \"end\": 9}\n{oops",
            2,
            "not JSON",
        ),
    ];
    for (content, line, says) in cases {
        let e = place(content).unwrap_err();
        assert_eq!(e.at, Some(RecordAt::Line(*line)), "{content}: {e}");
        let message = e.to_string();
        assert!(
            message.starts_with(&format!("cuts file cuts.jsonl, line {line}: ")),
            "{message}"
        );
        assert!(message.contains(says), "{content}: {message}");
    }
    let e = place("").unwrap_err();
    assert_eq!((e.at, *e.problem), (None, CutsProblem::NoRecords));
}

#[test]
fn the_name_follows_the_placed_spans_not_the_file_text() {
    let a = place("{\"doc\": \"a.md\", \"start\": 0, \"end\": 14}").unwrap();
    let b = place("{ \"start\": 0, \"end\": 14, \"doc\": \"./a.md\" }\n").unwrap();
    let c = place("{\"doc\": \"a.md\", \"start\": 0, \"end\": 15}").unwrap();
    assert_eq!(a.name(), b.name());
    assert_ne!(a.name(), c.name());
}

#[test]
fn a_document_name_with_escape_sequences_cannot_reach_the_terminal() {
    let e = place(r#"{"doc": "evil\u001b]0;title\u0007\u001b[2J.md", "start": 0, "end": 3}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no document of the corpus is"), "{e}");
    assert!(!e.chars().any(|c| c == '\u{1b}' || c == '\u{7}'), "{e:?}");
}

#[test]
fn crlf_line_ends_are_named_with_or_without_start_index() {
    // Python's text mode reads the document's CRLF as LF: the splitter's text has no `\r`.
    let doc = Document {
        id: DocId(0),
        path: "win.md".into(),
        text: "Line one.\r\nLine two.\r\nLine three.\r\n".into(),
        kind: DocKind::Text,
        source: crate::extract::TextSource::plain(),
    };
    let win = Corpus {
        root: std::path::PathBuf::from("/nonexistent/corpus"),
        documents: vec![doc],
        skipped: Vec::new(),
    };
    let parse = |content: &str| {
        GivenCuts::parse(Path::new("cuts.jsonl"), content, &win)
            .unwrap_err()
            .to_string()
    };
    let searched =
        parse(r#"{"page_content": "Line one.\nLine two.", "metadata": {"source": "win.md"}}"#);
    assert!(searched.contains("CRLF line ends"), "{searched}");
    let offset = parse(
        r#"{"page_content": "Line two.\nLine three.", "metadata": {"source": "win.md", "start_index": 10}}"#,
    );
    assert!(offset.contains("CRLF line ends"), "{offset}");
    // A one-line text that is simply not there says nothing about line ends.
    let absent = parse(r#"{"page_content": "Line four.", "metadata": {"source": "win.md"}}"#);
    assert!(!absent.contains("CRLF"), "{absent}");
}

/// Why loading the cuts file at `path` failed, loaded on another thread so a reader that blocks
/// (on a FIFO) or reads without end (`/dev/zero`) fails the test instead of hanging it.
#[cfg(unix)]
fn load_refusal(path: &Path) -> String {
    let path = path.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(
            GivenCuts::load(&path, &corpus())
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    });
    match rx.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(Ok(())) => panic!("the cuts file loaded"),
        Ok(Err(e)) => e,
        Err(_) => panic!("reading the cuts file hung"),
    }
}

#[cfg(unix)]
#[test]
fn a_cuts_file_that_never_ends_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let zero = dir.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap_or_else(|e| panic!("{e}"));
    let fifo = dir.path().join("fifo.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(made.success());
    for (path, says) in [
        (Path::new("/dev/zero"), "it is a device, not a regular file"),
        (zero.as_path(), "it is a device, not a regular file"),
        (
            fifo.as_path(),
            "it is a FIFO (named pipe), not a regular file",
        ),
    ] {
        let e = load_refusal(path);
        assert!(
            e.contains(&path.display().to_string()) && e.contains(says),
            "{e}"
        );
    }
    // A link to a real cuts file is followed, as any path a user types.
    let real = dir.path().join("real.jsonl");
    std::fs::write(&real, "{\"doc\": \"a.md\", \"start\": 0, \"end\": 14}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap_or_else(|e| panic!("{e}"));
    let cuts = GivenCuts::load(&link, &corpus()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cuts.records, 1);
}
