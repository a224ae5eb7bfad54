//! The sample corpus and its question set: quotes match their spans, and each question's evidence
//! sits where its tags say at default settings (1,024-token chunks, k = 150).

mod common;

use std::path::Path;

use seamscope::chunk::fixed::FixedTokens;
use seamscope::corpus::{Corpus, DocKind, LoadOptions, SkipReason};
use seamscope::eval::questions::load_questions;
use seamscope::layout::Layout;

fn sample() -> (Corpus, Layout) {
    let corpus = Corpus::load(Path::new("sample-corpus"), &LoadOptions::default()).unwrap();
    let layout = Layout::build(
        &corpus,
        &common::tokenizer(),
        &FixedTokens { tokens: 1024 },
        150,
    )
    .unwrap();
    (corpus, layout)
}

#[test]
fn the_corpus_is_large_varied_and_clean() {
    let (corpus, layout) = sample();
    assert!(
        corpus.documents.len() >= 12,
        "{} documents",
        corpus.documents.len()
    );
    assert!(
        layout.total_tokens() >= 70_000,
        "{} tokens",
        layout.total_tokens()
    );
    let kinds = |k: DocKind| corpus.documents.iter().filter(|d| d.kind == k).count();
    assert!(
        kinds(DocKind::Markdown) > corpus.documents.len() / 2,
        "mostly Markdown"
    );
    assert!(kinds(DocKind::Text) >= 1 && kinds(DocKind::Code) >= 1);
    assert!(
        corpus
            .skipped
            .iter()
            .any(|s| s.path == "questions.jsonl" && s.reason == SkipReason::Excluded)
    );
    assert_eq!(corpus.skipped.len(), 1, "{:?}", corpus.skipped);
    let fenced = corpus.documents.iter().any(|d| d.text.contains("```"));
    let tables = corpus
        .documents
        .iter()
        .any(|d| d.text.contains("\n|---") || d.text.contains("\n| ---"));
    assert!(
        fenced && tables,
        "a technical guide with fenced code and tables"
    );
}

#[test]
fn every_question_quotes_its_span_and_sits_where_its_tags_say() {
    let (corpus, layout) = sample();
    let questions = match load_questions(Path::new("sample-corpus/questions.jsonl"), &corpus) {
        Ok(q) => q,
        Err(errors) => panic!(
            "question file problems:\n{}",
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    };
    let count = |tag: &str| questions.iter().filter(|q| q.has_tag(tag)).count();
    assert!(questions.len() >= 60, "{} questions", questions.len());
    assert!(count("boundary") >= 25, "{} boundary", count("boundary"));
    assert!(count("inside") + count("edge") >= 20);
    assert!(count("short") >= 3 && count("partial") >= 3);

    let mut problems = Vec::new();
    for q in &questions {
        let chunks: Vec<_> = layout.chunks.iter().filter(|c| c.doc == q.doc).collect();
        let split = q.spans.iter().any(|s| {
            chunks
                .iter()
                .any(|c| s.start < c.span.start && c.span.start < s.end)
        });
        let tags = q.tags.join(",");
        if q.has_tag("boundary") && !split {
            problems.push(format!("{} [{tags}]: no cut splits its evidence", q.id));
        }
        if (q.has_tag("inside") || q.has_tag("edge")) && split {
            problems.push(format!("{} [{tags}]: a cut splits its evidence", q.id));
        }
        if q.has_tag("edge") {
            let near_cut = q.spans.iter().any(|s| {
                layout
                    .seams
                    .iter()
                    .filter(|w| w.doc == q.doc)
                    .any(|w| w.span.overlaps(s))
            });
            if !near_cut {
                problems.push(format!(
                    "{} [{tags}]: no edge evidence reaches a seam window",
                    q.id
                ));
            }
        }
        // Questions are asked in a user's words, not copied from the evidence.
        let text = corpus.doc(q.doc).text.to_lowercase();
        if text.contains(&q.question.to_lowercase()) {
            problems.push(format!(
                "{}: the question is copied from the document",
                q.id
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
