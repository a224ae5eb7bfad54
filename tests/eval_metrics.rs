//! Every evaluation metric on hand-built tiny corpora with hand-computed answers, the same budget
//! for every strategy, and the span classifier's rules as properties.

mod common;

use proptest::prelude::*;
use seamscope::chunk::fixed::FixedTokens;
use seamscope::chunk::{Chunk, ChunkId};
use seamscope::corpus::{Corpus, DocId, Span};
use seamscope::embed::EmbedOptions;
use seamscope::embed::cache::VectorCache;
use seamscope::embed::testing::HashEmbedder;
use seamscope::eval::grid::{Embedding, GridSettings, Retrieved, prepare, retrieve, score};
use seamscope::eval::metrics::{SpanClass, span_class};
use seamscope::eval::questions::Question;
use seamscope::eval::strategy::{Pointer, PointerId, Strategy, Unit, UnitId};
use seamscope::layout::{Layout, LayoutTimings};
use seamscope::tokens::TokenOffsets;

/// Unit ids from indexes.
fn ids(v: &[u32]) -> Vec<UnitId> {
    v.iter().copied().map(UnitId).collect()
}

/// 30 words of 4 bytes ("w00 " .. "w29 "), one token each, in three chunks of ten words.
fn tiny() -> (Layout, Vec<Unit>, Vec<Pointer>) {
    let offsets = TokenOffsets {
        starts: (0..30).map(|i| i * 4).collect(),
        ends: (0..30).map(|i| i * 4 + 3).collect(),
    };
    let chunks: Vec<Chunk> = (0..3)
        .map(|i| Chunk {
            id: ChunkId(i),
            doc: DocId(0),
            ordinal: i,
            span: Span::new(40 * i as usize, 40 * (i as usize + 1)),
            tokens: 10,
        })
        .collect();
    let units = chunks
        .iter()
        .map(|c| Unit {
            doc: c.doc,
            span: c.span,
            tokens: c.tokens,
        })
        .collect();
    let pointers = vec![
        Pointer {
            doc: DocId(0),
            span: Span::new(20, 60),
            links: ids(&[0, 1]),
            cut: None,
        },
        Pointer {
            doc: DocId(0),
            span: Span::new(60, 100),
            links: ids(&[1, 2]),
            cut: None,
        },
    ];
    let layout = Layout {
        offsets: vec![offsets],
        chunks,
        seams: Vec::new(),
        chunker: "hand".into(),
        k: 5,
        search: Default::default(),
        timings: LayoutTimings::default(),
        given: None,
        store: Default::default(),
    };
    (layout, units, pointers)
}

fn question(id: &str, spans: Vec<Span>, tag: &str) -> Question {
    Question {
        id: id.into(),
        question: "q".into(),
        doc: DocId(0),
        spans,
        tags: vec![tag.into()],
    }
}

#[test]
fn a_fire_on_evidence_inside_one_chunk_is_false_and_wastes_a_chunk() {
    let (layout, units, pointers) = tiny();
    // Words 1-3, wholly inside chunk 0 (and inside seam 0|1's window? no: it ends at byte 16).
    let q = question("inside", vec![Span::new(4, 16)], "inside");
    let r = Retrieved {
        units: ids(&[0, 1]),
        fired: vec![(PointerId(0), ids(&[0, 1]))],
        dropped: Vec::new(),
    };
    let s = score(&units, &pointers, &layout, &q, &r);
    assert!(s.answered);
    assert_eq!((s.fires, s.false_fires, s.wasted_fires), (1, 1, 1));
    assert_eq!(s.tokens_sent, 20);
    assert_eq!(
        s.token_overlap,
        (3, 20, 3),
        "3 evidence tokens, 20 sent, all 3 returned"
    );
    assert_eq!(s.classes, vec![SpanClass::Whole]);
}

#[test]
fn a_fire_across_its_cut_is_neither_false_nor_waste() {
    let (layout, units, pointers) = tiny();
    // Words 8-11 cross the cut at byte 40 between chunks 0 and 1.
    let q = question("split", vec![Span::new(32, 48)], "boundary");
    let r = Retrieved {
        units: ids(&[0, 1]),
        fired: vec![(PointerId(0), ids(&[0, 1]))],
        dropped: Vec::new(),
    };
    let s = score(&units, &pointers, &layout, &q, &r);
    assert!(s.answered);
    assert_eq!((s.fires, s.false_fires, s.wasted_fires), (1, 0, 0));
    assert_eq!(s.classes, vec![SpanClass::Split]);
    // The wrong seam (1|2) firing for the same question is false, and chunk 2 is wasted.
    let wrong = Retrieved {
        units: ids(&[1, 2]),
        fired: vec![(PointerId(1), ids(&[1, 2]))],
        dropped: Vec::new(),
    };
    let s = score(&units, &pointers, &layout, &q, &wrong);
    assert_eq!((s.false_fires, s.wasted_fires), (1, 1));
    assert!(!s.answered, "chunk 0's half is missing");
}

#[test]
fn recall_counts_a_span_only_when_fully_covered() {
    let (layout, units, pointers) = tiny();
    let q = question("split", vec![Span::new(32, 48)], "boundary");
    let half = Retrieved {
        units: ids(&[0]),
        fired: vec![],
        dropped: Vec::new(),
    };
    let s = score(&units, &pointers, &layout, &q, &half);
    assert!(!s.answered);
    assert_eq!(
        s.token_overlap,
        (4, 10, 2),
        "two of the four evidence tokens returned"
    );
    // Two spans: both must be covered.
    let q2 = question("two", vec![Span::new(4, 8), Span::new(84, 88)], "inside");
    let s = score(
        &units,
        &pointers,
        &layout,
        &q2,
        &Retrieved {
            units: ids(&[0, 1]),
            fired: vec![],
            dropped: Vec::new(),
        },
    );
    assert!(!s.answered);
    let s = score(
        &units,
        &pointers,
        &layout,
        &q2,
        &Retrieved {
            units: ids(&[2, 0]),
            fired: vec![],
            dropped: Vec::new(),
        },
    );
    assert!(s.answered);
    // Overlapping units make a straddling span WHOLE and count duplicated tokens as sent.
    let overlap = vec![
        Unit {
            doc: DocId(0),
            span: Span::new(0, 48),
            tokens: 12,
        },
        Unit {
            doc: DocId(0),
            span: Span::new(32, 120),
            tokens: 22,
        },
    ];
    let s = score(
        &overlap,
        &[],
        &layout,
        &q,
        &Retrieved {
            units: ids(&[0, 1]),
            fired: vec![],
            dropped: Vec::new(),
        },
    );
    assert_eq!(s.classes, vec![SpanClass::Whole]);
    assert_eq!(s.tokens_sent, 34);
}

#[test]
fn every_strategy_fills_the_same_budget_and_shares_cached_vectors() {
    let tokenizer = common::tokenizer();
    let para = |topic: &str, n: usize| -> String {
        (0..n)
            .map(|i| {
                format!(
                    "Note {i} on {topic}: the procedure has steps, owners and a rollback plan. "
                )
            })
            .collect()
    };
    let corpus = Corpus::from_texts([
        ("a.md", para("failover of the billing database", 40)),
        ("b.md", para("warehouse stock reconciliation", 40)),
    ]);
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 128 }, 30).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 64);
    let mut embedder = HashEmbedder::new(64, 256);
    let settings = GridSettings {
        budget: 3,
        m: 1,
        depth: 50,
        rrf_c: 60.0,
        chunk_tokens: 128,
        side_drop: None,
    };
    let doc = &corpus.documents[0];
    let start = doc.text.find("Note 20 on").unwrap();
    let q = Question {
        id: "q".into(),
        question: "billing database failover rollback plan".into(),
        doc: DocId(0),
        spans: vec![Span::new(start, start + 60)],
        tags: vec!["boundary".into()],
    };
    let qv = seamscope::embed::embed_one(&mut embedder, &tokenizer, &q.question).unwrap();
    let mut first_chunk_misses = None;
    for strategy in Strategy::grid(128, 30, &[20, 30]) {
        let mut model = Embedding {
            embedder: &mut embedder,
            tokenizer: &tokenizer,
            options: EmbedOptions::default(),
            cache: &mut cache,
            contexts: None,
        };
        let p = prepare(&mut model, &corpus, &layout, strategy, &settings).unwrap();
        let r = retrieve(&p, &qv, &q.question, &settings).unwrap();
        assert!(r.units.len() <= 3, "{}: {} units", p.label, r.units.len());
        let mut sorted = r.units.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), r.units.len(), "{}: a unit twice", p.label);
        let s = score(&p.units, &p.pointers, &layout, &q, &r);
        let max_unit = p.units.iter().map(|u| u64::from(u.tokens)).max().unwrap();
        assert!(s.tokens_sent <= 3 * max_unit);
        match strategy {
            Strategy::NoOverlap => first_chunk_misses = Some(p.embedding.cache_misses),
            Strategy::Seams { .. } | Strategy::NeighbourExpansion | Strategy::Windows { .. } => {
                // The baseline chunks come from the cache: only new texts are embedded.
                assert!(p.embedding.cache_hits >= layout.chunks.len(), "{}", p.label);
            }
            _ => {}
        }
        if let Strategy::Overlap { .. } = strategy {
            assert!(p.units.len() > layout.chunks.len());
            assert!(p.units.windows(2).any(|w| w[0].span.overlaps(&w[1].span)));
        }
        if let Strategy::Windows { .. } = strategy {
            // 256-token windows over 128-token chunks: every window leads to two or three chunks.
            assert!(p.pointers.len() >= layout.chunks.len() - 2);
            assert!(p.pointers.iter().all(|w| w.links.len() >= 2));
        }
    }
    assert_eq!(first_chunk_misses, Some(layout.chunks.len()));
}

proptest! {
    #[test]
    fn span_classes_follow_the_seed_on_any_tiling(
        cuts in proptest::collection::btree_set(1usize..200, 0..8),
        a in 0usize..220,
        len in 1usize..60,
    ) {
        let mut edges: Vec<usize> = std::iter::once(0).chain(cuts).chain(std::iter::once(200)).collect();
        edges.dedup();
        let chunks: Vec<Span> = edges.windows(2).map(|w| Span::new(w[0], w[1])).collect();
        let span = Span::new(a, a + len);
        let touching = chunks.iter().filter(|c| c.overlaps(&span)).count();
        let class = span_class(span, &chunks);
        if touching == 0 {
            prop_assert_eq!(class, SpanClass::Absent);
        } else if touching == 1 && span.end <= 200 {
            prop_assert_eq!(class, SpanClass::Whole, "one chunk holds it (half-open edges)");
        } else if span.end <= 200 {
            prop_assert_eq!(class, SpanClass::Split);
        } else {
            // Running past the last chunk: never WHOLE, since no chunk holds its last byte.
            prop_assert_ne!(class, SpanClass::Whole);
        }
    }
}

/// A Markdown corpus whose chunks sit under headings, for the search-text tests.
fn headed_corpus() -> Corpus {
    let section = |title: &str, topic: &str| -> String {
        let body: String = (0..30)
            .map(|i| format!("Step {i} of {topic} names an owner and a rollback plan. "))
            .collect();
        format!("# {title}\n\n{body}\n\n")
    };
    Corpus::from_texts([(
        "runbook.md",
        section("Billing failover", "the billing failover") + &section("Stock sync", "stock sync"),
    )])
}

#[test]
fn eval_embeds_and_searches_the_texts_the_live_index_does() {
    let tokenizer = common::tokenizer();
    let corpus = headed_corpus();
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 96 }, 20)
        .unwrap()
        .with_heading_prefix(true);
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 64);
    let mut embedder = HashEmbedder::new(64, 256);
    // What the live index embeds: the layout's search texts (heading path in front).
    let (chunk_texts, _) = layout.search_texts(&corpus);
    let exact = layout.chunk_texts(&corpus);
    let prefixed = chunk_texts
        .iter()
        .zip(&exact)
        .filter(|(search, exact)| search.len() > exact.len() && search.ends_with(**exact))
        .count();
    assert!(
        prefixed >= layout.chunks.len() - 1,
        "only the opening chunk lacks a prefix"
    );
    let texts: Vec<&str> = chunk_texts.iter().map(|t| t.as_ref()).collect();
    seamscope::embed::embed_texts(
        &mut embedder,
        &tokenizer,
        &mut cache,
        &texts,
        EmbedOptions::default(),
        &mut |_| true,
    )
    .unwrap();
    let settings = GridSettings {
        budget: 3,
        m: 1,
        depth: 50,
        rrf_c: 60.0,
        chunk_tokens: 96,
        side_drop: None,
    };
    let mut model = Embedding {
        embedder: &mut embedder,
        tokenizer: &tokenizer,
        options: EmbedOptions::default(),
        cache: &mut cache,
        contexts: None,
    };
    // The evaluation's chunks are those very texts: every one comes from the cache.
    let p = prepare(&mut model, &corpus, &layout, Strategy::NoOverlap, &settings).unwrap();
    assert_eq!(
        p.embedding.cache_misses, 0,
        "eval embedded texts the index never searches"
    );
    assert_eq!(p.embedding.cache_hits, layout.chunks.len());
}

#[test]
fn overlap_keeps_another_chunkers_cuts_and_only_adds_overlap() {
    let tokenizer = common::tokenizer();
    let corpus = headed_corpus();
    let chunker = seamscope::chunk::ChunkerKind::Sentence.build(96);
    let layout = Layout::build(&corpus, &tokenizer, chunker.as_ref(), 20).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 64);
    let mut embedder = HashEmbedder::new(64, 256);
    let mut model = Embedding {
        embedder: &mut embedder,
        tokenizer: &tokenizer,
        options: EmbedOptions::default(),
        cache: &mut cache,
        contexts: None,
    };
    let settings = GridSettings {
        budget: 3,
        m: 1,
        depth: 50,
        rrf_c: 60.0,
        chunk_tokens: 96,
        side_drop: None,
    };
    let p = prepare(
        &mut model,
        &corpus,
        &layout,
        Strategy::Overlap { tokens: 15 },
        &settings,
    )
    .unwrap();
    // One unit per sentence-packed chunk, each ending where that chunk ends and starting about
    // 15 tokens earlier: the chunker's own cuts, plus overlap.
    assert_eq!(p.units.len(), layout.chunks.len());
    for (u, c) in p.units.iter().zip(&layout.chunks) {
        assert_eq!(u.span.end, c.span.end);
        assert!(u.span.start <= c.span.start);
        let offs = &layout.offsets[c.doc.0 as usize];
        let extra = offs.count_in(u.span.start, c.span.start);
        // 15 tokens, then back to the start of the word they begin in.
        assert!(extra <= 18, "{extra} tokens of overlap");
        if c.ordinal > 0 {
            assert!(extra > 0, "chunk {} gained no overlap", c.id.0);
        }
    }
}

#[test]
fn preparing_a_strategy_reports_the_tokens_it_embeds_part_by_part() {
    let tokenizer = common::tokenizer();
    let text: String = (0..60)
        .map(|i| format!("Note {i}: drain the primary, check the lag, promote the replica. "))
        .collect();
    let corpus = Corpus::from_texts([("a.md", text)]);
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 128 }, 30).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 64);
    let mut embedder = HashEmbedder::new(64, 256);
    let settings = GridSettings {
        budget: 3,
        m: 1,
        depth: 50,
        rrf_c: 60.0,
        chunk_tokens: 128,
        side_drop: None,
    };
    let mut model = Embedding {
        embedder: &mut embedder,
        tokenizer: &tokenizer,
        options: EmbedOptions { slice: 4 },
        cache: &mut cache,
        contexts: None,
    };
    let mut heard: Vec<(String, usize, usize)> = Vec::new();
    let strategy = Strategy::Seams { k: 30 };
    let p = seamscope::eval::grid::prepare_reporting(
        &mut model,
        &corpus,
        &layout,
        strategy,
        &settings,
        &mut |part, p| heard.push((part.to_string(), p.done_tokens, p.total_tokens)),
    )
    .unwrap();
    assert!(!p.pointers.is_empty());
    for part in ["units", "pointers", "seam halves"] {
        let reports: Vec<_> = heard.iter().filter(|h| h.0 == part).collect();
        assert!(reports.len() >= 2, "{part}: progress as it goes: {heard:?}");
        let last = reports.last().unwrap();
        assert!(last.2 > 0 && last.1 == last.2, "{part} ends done: {last:?}");
        assert!(
            reports.windows(2).all(|w| w[0].1 <= w[1].1),
            "{part}: never goes back"
        );
    }
}
