//! Property tests: for any text, chunks tile the document and seams stay inside their chunks.

mod common;

use proptest::prelude::*;
use seamscope::chunk::fixed::FixedTokens;
use seamscope::corpus::Corpus;
use seamscope::layout::Layout;
use seamscope::tokens::TokenCounter;

fn check_layout(corpus: &Corpus, layout: &Layout, chunk_tokens: usize, k: usize) {
    for doc in &corpus.documents {
        let chunks: Vec<_> = layout.chunks.iter().filter(|c| c.doc == doc.id).collect();
        assert!(!chunks.is_empty());
        // In order, disjoint, contiguous, covering the whole text.
        assert_eq!(chunks[0].span.start, 0);
        assert_eq!(chunks.last().map(|c| c.span.end), Some(doc.text.len()));
        for pair in chunks.windows(2) {
            assert_eq!(
                pair[0].span.end, pair[1].span.start,
                "chunks must be contiguous"
            );
        }
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.ordinal as usize, i);
            assert!(
                doc.text.is_char_boundary(c.span.start) && doc.text.is_char_boundary(c.span.end)
            );
            assert!(
                c.tokens as usize <= chunk_tokens,
                "chunk over budget: {}",
                c.tokens
            );
            if i + 1 < chunks.len() {
                assert!(!c.span.is_empty());
            }
        }
        let covered: String = chunks.iter().map(|c| doc.slice(c.span)).collect();
        assert_eq!(covered, doc.text, "chunks together hold every byte");
    }
    for s in &layout.seams {
        let left = layout.chunk(s.left);
        let right = layout.chunk(s.right);
        assert_eq!(left.doc, s.doc);
        assert_eq!(right.doc, s.doc, "a seam never crosses documents");
        assert_eq!(left.span.end, right.span.start);
        assert_eq!(s.cut, right.span.start);
        assert!(
            left.span.start <= s.span.start && s.span.end <= right.span.end,
            "seam inside its chunks"
        );
        assert!(s.span.start <= s.cut && s.cut <= s.span.end);
        let text = &corpus.doc(s.doc).text;
        assert!(text.is_char_boundary(s.span.start) && text.is_char_boundary(s.span.end));
        assert!(
            s.left_tokens as usize >= k.min(left.tokens as usize),
            "left side {} < k",
            s.left_tokens
        );
        assert!(
            s.right_tokens as usize >= k.min(right.tokens as usize),
            "right side {} < k",
            s.right_tokens
        );
    }
    let expected_seams: usize = corpus
        .documents
        .iter()
        .map(|d| layout.chunks.iter().filter(|c| c.doc == d.id).count() - 1)
        .sum();
    assert_eq!(layout.seams.len(), expected_seams, "one seam per cut");
}

fn text_strategy() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[a-z]{1,12}",
        "[A-Z][a-z]{0,8}",
        "[0-9]{1,6}",
        Just("stale-reads".to_string()),
        Just("naïve".to_string()),
        Just("日本語".to_string()),
        Just("🙂".to_string()),
        "[a-z]{30,80}",
    ];
    let sep = prop_oneof![
        4 => Just(" ".to_string()),
        1 => Just(". ".to_string()),
        1 => Just(".\r\n".to_string()),
        1 => Just("\n\n".to_string()),
        1 => Just(", ".to_string()),
        1 => Just("\t".to_string()),
    ];
    proptest::collection::vec((word, sep), 1..400)
        .prop_map(|v| v.into_iter().map(|(w, s)| w + &s).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn layout_invariants_hold_with_the_real_tokenizer(
        texts in proptest::collection::vec(text_strategy(), 1..4),
        chunk_tokens in 16usize..200,
        k in 1usize..80,
    ) {
        let tokenizer: TokenCounter = common::tokenizer();
        let corpus = Corpus::from_texts(texts.iter().enumerate().map(|(i, t)| (format!("d{i}.md"), t.clone())));
        let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: chunk_tokens }, k).unwrap();
        check_layout(&corpus, &layout, chunk_tokens, k);
    }
}

#[test]
fn default_settings_on_a_long_text() {
    let tokenizer = common::tokenizer();
    let para = "The service keeps taking orders during an outage. Reads may be stale for a while, \
                which the team accepted after long debate. ";
    let text = para.repeat(200);
    let corpus = Corpus::from_texts([("long.md", text)]);
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 1024 }, 150).unwrap();
    check_layout(&corpus, &layout, 1024, 150);
    assert!(layout.chunks.len() >= 4);
    // Full chunks hold close to 1,024 tokens (a cut moves back at most one word).
    for c in &layout.chunks[..layout.chunks.len() - 1] {
        assert!(c.tokens >= 1000, "chunk of {} tokens", c.tokens);
    }
    // Seam windows snap outward to sentence starts and ends.
    for s in &layout.seams {
        let w = corpus.documents[0].slice(s.span);
        assert!(
            w.starts_with("The ") || w.starts_with("Reads "),
            "window starts mid-sentence: {w:.40}"
        );
        assert!(w.ends_with('.'), "window ends mid-sentence");
    }
}

/// Given cuts from random points of a text: each chunk runs from one point to a later one,
/// starting after the previous chunk's start and ending after its end, so chunks overlap, touch
/// or leave gaps, and never nest.
fn given_cuts(text: &str, points: &[(u16, u16)]) -> String {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at = |f: u16| bounds[(f as usize * (bounds.len() - 1)) / u16::MAX as usize];
    let mut lines = Vec::new();
    let (mut last_start, mut last_end) = (None::<usize>, 0usize);
    let mut starts: Vec<usize> = points.iter().map(|p| at(p.0)).collect();
    starts.sort_unstable();
    starts.dedup();
    for (start, (_, len)) in starts.into_iter().zip(points) {
        let end = at(*len).max(last_end + 1).max(start + 1);
        let Some(end) = bounds.iter().copied().find(|&b| b >= end) else {
            break;
        };
        if last_start.is_some_and(|s| s >= start) {
            continue;
        }
        lines.push(format!(
            "{{\"doc\": \"d0.md\", \"start\": {start}, \"end\": {end}}}"
        ));
        (last_start, last_end) = (Some(start), end);
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn given_cuts_keep_their_spans_and_seams_stay_inside_their_two_chunks(
        text in text_strategy(),
        points in proptest::collection::vec((any::<u16>(), any::<u16>()), 1..12),
        k in 1usize..60,
    ) {
        let tokenizer: TokenCounter = common::tokenizer();
        let corpus = Corpus::from_texts([("d0.md".to_string(), text.clone())]);
        let content = given_cuts(&text, &points);
        prop_assume!(!content.is_empty());
        let cuts = seamscope::chunk::given::GivenCuts::parse(std::path::Path::new("p.jsonl"), &content, &corpus)
            .unwrap_or_else(|e| panic!("{e}\n{content}"));
        let layout = Layout::build(&corpus, &tokenizer, &cuts, k).unwrap();
        prop_assert_eq!(layout.chunks.len(), content.lines().count());
        for pair in layout.chunks.windows(2) {
            prop_assert!(pair[0].span.start < pair[1].span.start && pair[0].span.end < pair[1].span.end);
        }
        prop_assert_eq!(layout.seams.len(), layout.chunks.len() - 1);
        for s in &layout.seams {
            let (l, r) = (layout.chunk(s.left).span, layout.chunk(s.right).span);
            prop_assert!(l.start <= s.span.start && s.span.end <= r.end, "seam inside its two chunks");
            prop_assert!(s.span.start <= s.cut && s.cut <= s.span.end);
            prop_assert!(text.is_char_boundary(s.cut));
            // The cut lies between the chunks: inside the overlap, the gap, or at the shared edge.
            prop_assert!(r.start.min(l.end) <= s.cut && s.cut <= r.start.max(l.end));
        }
    }
}
