//! Orphaned chunks (seed 004): a chunk that holds none of the content words of its heading path or
//! of its document's title. A question names its subject; a chunk that never does sits where
//! every document's similar sentence sits, and nothing pulls it toward this one.
//!
//! The title is the document's first level-1 heading, else its file name's words
//! (`access-control-policy.txt` → access, control, policy). The heading path is the chain of
//! headings in force where the chunk starts. Content words are those the offline question
//! generator keeps (no function words, three letters or more, or a digit); a chunk word matches
//! when it is the same word, lowercased, with or without a final `s`. A chunk with no title or
//! heading words to look for is not counted either way.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use super::{Example, Finding, FindingKind, Location, excerpt};
use crate::calibrate::KeywordQuestions;
use crate::chunk::heading::{heading_path, path_line};
use crate::chunk::markdown::{Dialect, outline};
use crate::corpus::{Corpus, DocKind, Document};
use crate::layout::Layout;

/// A word as matching compares it: lowercased, a final `s` dropped.
fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    match w.strip_suffix('s') {
        Some(base) if base.chars().count() >= 3 => base.to_string(),
        _ => w,
    }
}

/// The document's title: its first level-1 heading, else its file name's words.
pub fn title(doc: &Document) -> String {
    if doc.kind == DocKind::Markdown
        && let Some(h) = outline(&doc.text, Dialect::Markdown)
            .headings
            .iter()
            .find(|h| h.level == 1)
    {
        return h.title.clone();
    }
    let name = std::path::Path::new(&doc.path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| doc.path.clone());
    name.replace(['-', '_', '.'], " ")
}

/// Chunks with none of their heading path's or title's content words.
pub fn orphaned_chunks(corpus: &Corpus, layout: &Layout) -> Finding {
    let mut measured = 0;
    let mut cases = Vec::new();
    for doc in &corpus.documents {
        let headings = if doc.kind == DocKind::Markdown {
            outline(&doc.text, Dialect::Markdown).headings
        } else {
            Vec::new()
        };
        let title = title(doc);
        for chunk in layout.chunks.iter().filter(|c| c.doc == doc.id) {
            let path = heading_path(&headings, chunk.span.start);
            let mut wanted: Vec<String> = KeywordQuestions::content_words(&title);
            for h in &path {
                wanted.extend(KeywordQuestions::content_words(&h.title));
            }
            let mut seen = HashSet::new();
            wanted.retain(|w| seen.insert(stem(w)));
            if wanted.is_empty() {
                continue;
            }
            measured += 1;
            let words: HashSet<String> = doc.slice(chunk.span).unicode_words().map(stem).collect();
            if wanted.iter().any(|w| words.contains(&stem(w))) {
                continue;
            }
            let line = path_line(&path);
            let place = if line.is_empty() {
                format!("title \"{title}\"")
            } else {
                format!("title \"{title}\", heading path \"{line}\"")
            };
            cases.push(Example {
                location: Location::of(corpus, doc.id, chunk.span, None),
                detail: format!(
                    "chunk {} ({}, {} tokens) holds none of {} ({place})",
                    chunk.id.0,
                    chunk.stable_key(&doc.path),
                    chunk.tokens,
                    wanted.join(", ")
                ),
                excerpt: excerpt(corpus, doc.id, chunk.span),
                severity: f64::from(chunk.tokens),
            });
        }
    }
    Finding::new(
        FindingKind::OrphanedChunk,
        measured,
        "chunks",
        "a chunk none of whose words (lowercased, a final s dropped) is a content word of its document's title (first # heading, else the file name) or of the heading path where it starts; chunks with no such words to look for are not counted; worst: the longest".into(),
        cases,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_far_below_its_heading_that_never_names_it_is_orphaned() {
        let text = "# Northwind Logistics letter\n\nNorthwind freight recovered. \
                    Revenue grew three percent that quarter and margin held firm.";
        let corpus = Corpus::from_texts([("letter.md", text)]);
        let mut layout = crate::layout::of_words(&corpus, 1000);
        let cut = text.find("Revenue").unwrap();
        layout.chunks = vec![
            crate::chunk::Chunk {
                id: crate::chunk::ChunkId(0),
                doc: corpus.documents[0].id,
                ordinal: 0,
                span: crate::corpus::Span::new(0, cut),
                tokens: 5,
            },
            crate::chunk::Chunk {
                id: crate::chunk::ChunkId(1),
                doc: corpus.documents[0].id,
                ordinal: 1,
                span: crate::corpus::Span::new(cut, text.len()),
                tokens: 10,
            },
        ];
        let f = orphaned_chunks(&corpus, &layout);
        assert_eq!((f.count, f.of), (1, 2), "{f:?}");
        assert_eq!(f.locations[0].start, cut);
        assert!(
            f.examples[0]
                .detail
                .contains("northwind, logistics, letter"),
            "{}",
            f.examples[0].detail
        );
    }

    #[test]
    fn plain_text_is_titled_by_its_file_name() {
        let corpus = Corpus::from_texts([("access-control_policy.txt", "x")]);
        assert_eq!(title(&corpus.documents[0]), "access control policy");
    }
}
