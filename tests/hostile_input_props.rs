//! Hostile input never panics: arbitrary bytes fed to the corpus loader, the Markdown outline, the
//! question-file parser and the settings parser give a clear error or a valid result.

mod common;

use std::os::unix::ffi::OsStrExt;
use std::sync::OnceLock;

use proptest::prelude::*;
use seamscope::chunk::ChunkerKind;
use seamscope::chunk::markdown::{Dialect, outline};
use seamscope::corpus::{Corpus, CorpusError, LoadOptions, SkipReason, Span, decode_text};
use seamscope::eval::questions::{load_question_set, parse_file, resolve};
use seamscope::layout::Layout;
use seamscope::settings::Settings;
use seamscope::tokens::TokenCounter;

/// Cases per property: `PROPTEST_CASES` when set, else 96.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

/// The real tokenizer, loaded once for every case.
fn tokenizer() -> &'static TokenCounter {
    static TOKENIZER: OnceLock<TokenCounter> = OnceLock::new();
    TOKENIZER.get_or_init(common::tokenizer)
}

/// Bytes that are mostly text: arbitrary bytes, arbitrary Unicode, or Markdown-ish pieces
/// (fences, tables, headings) that exercise the scanners.
fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    let markdown = prop::collection::vec(
        prop::sample::select(vec![
            "```",
            "~~~",
            "```rust\n",
            "|",
            "| a | b |\n",
            "|---|---|\n",
            "# ",
            "## ",
            "\n",
            "\n\n",
            " ",
            "    ",
            "- ",
            "1. ",
            "> ",
            "é",
            "\u{200b}",
            "\r\n",
            "\t",
            "word ",
            "Figure 1: ",
            ". ",
            "`",
            "\\",
            "<!--",
            "-->",
        ]),
        0..80,
    )
    .prop_map(|parts| parts.concat().into_bytes());
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..1500),
        ".{0,400}".prop_map(String::into_bytes),
        markdown,
    ]
}

/// A file name of arbitrary bytes (no `/`, no NUL), as Linux allows.
fn file_name() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        any::<u8>().prop_filter("no / or NUL", |b| *b != b'/' && *b != 0),
        1..40,
    )
    .prop_filter("not . or ..", |n| n != b"." && n != b"..")
}

proptest! {
    // 96 cases by default; PROPTEST_CASES asks for more (a longer hunt).
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn hostile_decode_text_is_text_or_a_reason(bytes in file_bytes()) {
        match decode_text(bytes.clone()) {
            Ok(text) => {
                prop_assert_eq!(text.as_bytes(), &bytes[..]);
                prop_assert!(!text.trim().is_empty());
            }
            Err(reason) => {
                let expected = matches!(
                    reason,
                    SkipReason::Binary | SkipReason::InvalidUtf8 { .. } | SkipReason::Empty
                );
                prop_assert!(expected, "unexpected reason {reason:?}");
            }
        }
    }

    #[test]
    fn hostile_corpus_load_gives_documents_or_says_why(name in file_name(), bytes in file_bytes()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(std::ffi::OsStr::from_bytes(&name));
        std::fs::write(&path, &bytes).unwrap();
        for root in [dir.path(), path.as_path()] {
            match Corpus::load(root, &LoadOptions::default()) {
                Ok(corpus) => {
                    prop_assert_eq!(corpus.documents.len(), 1);
                    let doc = &corpus.documents[0];
                    prop_assert_eq!(doc.text.as_bytes(), &bytes[..]);
                    // The loaded text goes through every chunker without a panic, and the
                    // chunks stay on character boundaries inside the document.
                    for kind in [ChunkerKind::Fixed, ChunkerKind::Structure, ChunkerKind::Recursive] {
                        let chunker = kind.build(24);
                        let layout = Layout::build(&corpus, tokenizer(), chunker.as_ref(), 6);
                        let Ok(layout) = layout else { continue };
                        for c in &layout.chunks {
                            prop_assert!(c.span.start <= c.span.end && c.span.end <= doc.text.len());
                            prop_assert!(doc.text.is_char_boundary(c.span.start));
                            prop_assert!(doc.text.is_char_boundary(c.span.end));
                        }
                    }
                }
                Err(CorpusError::NoDocuments { skipped, .. }) => {
                    // Every file is accounted for: skipped with a reason, or hidden (and the
                    // message says hidden names are never read).
                    let none_skipped = skipped.is_empty();
                    let error = CorpusError::NoDocuments { path: root.to_path_buf(), skipped };
                    let message = error.to_string();
                    if none_skipped {
                        prop_assert!(name.starts_with(b"."), "{}", message);
                        prop_assert!(message.contains("never read"), "{}", message);
                    }
                }
                Err(e) => prop_assert!(false, "an existing folder failed to open: {e}"),
            }
        }
    }

    #[test]
    fn hostile_markdown_outlines_hold_true_spans(bytes in file_bytes()) {
        let text = String::from_utf8_lossy(&bytes);
        for dialect in [Dialect::Markdown, Dialect::Plain] {
            let o = outline(&text, dialect);
            let mut spans: Vec<Span> = o.fences.iter().map(|f| f.span).collect();
            for t in &o.tables {
                spans.extend([t.span, t.header, t.delimiter]);
                spans.extend(t.rows.iter().copied());
            }
            spans.extend(o.headings.iter().map(|h| h.span));
            spans.extend(o.prose.iter().map(|p| p.span));
            spans.extend(o.front_matter);
            for s in spans {
                prop_assert!(s.start <= s.end && s.end <= text.len(), "{s:?}");
                prop_assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
            }
            for p in &o.prose {
                prop_assert!(p.span.start <= p.content_start && p.content_start <= p.span.end);
            }
            for t in &o.tables {
                prop_assert!(t.span.contains(&t.header));
                prop_assert!(t.rows.iter().all(|r| t.span.contains(r)));
            }
        }
    }

    #[test]
    fn hostile_question_text_parses_or_names_the_line(text in ".{0,600}") {
        let file = parse_file(&text);
        for e in &file.errors {
            prop_assert!(!e.to_string().is_empty());
        }
        let corpus = Corpus::from_texts([("a.md", "héllo wörld, stale reads 🙂 done")]);
        let _ = resolve(&corpus, &file.questions);
    }

    #[test]
    fn hostile_question_lines_resolve_to_true_spans_or_errors(
        start in prop_oneof![4 => 0usize..36, 1 => any::<usize>()],
        len in prop_oneof![4 => 0usize..12, 1 => any::<usize>()],
        unit in prop::sample::select(vec!["byte", "char", "words", ""]),
        quote in prop_oneof![".{0,12}".boxed(), Just("wörld".to_string()).boxed()],
        quote_the_text in any::<bool>(),
        doc in prop::sample::select(vec!["a.md", "a.md", "b.md", "", "../a.md"]),
        extra in prop::sample::select(vec!["", "", ",\"tags\":[1]", ",\"spans\":[]", ",\"x\":{}", "}"]),
    ) {
        let text = "héllo wörld, stale reads 🙂 done";
        let corpus = Corpus::from_texts([("a.md", text)]);
        // Half the time the quote is what the offsets really cover, so good lines occur too.
        let end = start.saturating_add(len);
        let covered = match unit {
            "char" => (end <= text.chars().count())
                .then(|| text.chars().skip(start).take(len).collect::<String>()),
            _ => text.get(start..end).map(str::to_string),
        };
        let quote = match covered {
            Some(covered) if quote_the_text => covered,
            _ => quote,
        };
        let line = format!(
            "{{\"id\":\"q\",\"question\":\"where\",\"doc\":{},\"unit\":{},\"spans\":[{{\"start\":{},\"end\":{},\"text\":{}}}]{}}}",
            serde_json::json!(doc),
            serde_json::json!(unit),
            start,
            end,
            serde_json::json!(quote),
            extra
        );
        let file = parse_file(&line);
        let (questions, errors) = resolve(&corpus, &file.questions);
        for e in &errors {
            prop_assert!(!e.to_string().is_empty());
        }
        for q in &questions {
            for span in &q.spans {
                prop_assert!(span.start < span.end && span.end <= text.len());
                prop_assert_eq!(&text[span.start..span.end], quote.as_str());
            }
        }
    }

    #[test]
    fn hostile_question_file_bytes_load_or_say_why(bytes in file_bytes()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("questions.jsonl");
        std::fs::write(&path, &bytes).unwrap();
        let corpus = Corpus::from_texts([("a.md", "héllo wörld, stale reads")]);
        match load_question_set(&path, &corpus) {
            Ok((questions, _)) => {
                // Only a file of blank lines (or none) can hold no error and no question.
                if questions.is_empty() {
                    let text = String::from_utf8_lossy(&bytes);
                    prop_assert!(text.lines().all(|l| l.trim().is_empty()));
                }
            }
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                prop_assert!(errors.iter().all(|e| !e.to_string().is_empty()));
            }
        }
    }

    #[test]
    fn hostile_settings_text_is_settings_or_an_error(text in settings_text()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.toml");
        std::fs::write(&path, &text).unwrap();
        match Settings::load(&path) {
            Ok(settings) => prop_assert!(settings.validate().is_ok()),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
        if let Ok(s) = std::str::from_utf8(&text)
            && let Ok(settings) = toml::from_str::<Settings>(s)
        {
            // Parsed is not validated: validation decides, without a panic either way.
            let _ = settings.validate();
            let _ = settings.query_settings();
        }
    }
}

/// TOML-ish settings files: arbitrary bytes, or known keys with hostile values.
fn settings_text() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        "chunk_tokens",
        "chunker",
        "heading_prefix",
        "k",
        "m",
        "budget",
        "depth",
        "rrf_c",
        "max_file_bytes",
        "embed_slice",
        "embed_batch",
        "model_max_tokens",
        "rerank_candidates",
        "reranker_max_tokens",
        "exact_search_limit",
        "side_drop",
        "cache_dir",
        "unknown_key",
    ]);
    let value = prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
        prop::sample::select(vec![
            "nan",
            "inf",
            "-inf",
            "-0.0",
            "true",
            "\"fixed\"",
            "\"structure\"",
            "\"\"",
            "[1, 2]",
            "{}",
            "1e999",
            "0",
            "-1",
            "4294967296",
            "18446744073709551616",
            "\"\\u0000\"",
            "'''x'''",
        ])
        .prop_map(String::from),
        ".{0,12}",
    ];
    let assignments = prop::collection::vec((key, value), 0..8).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k} = {v}\n"))
            .collect::<String>()
            .into_bytes()
    });
    prop_oneof![assignments, prop::collection::vec(any::<u8>(), 0..300)]
}
