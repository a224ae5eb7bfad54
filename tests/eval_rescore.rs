//! Scoring a strategy again from the lists it searched once: the same rows the grid gives, at
//! every `m` and budget, with no search (a stand-in embedder; the real tokenizer).

mod common;

use seamscope::chunk::fixed::FixedTokens;
use seamscope::corpus::{Corpus, DocId, Span};
use seamscope::embed::EmbedOptions;
use seamscope::embed::cache::VectorCache;
use seamscope::embed::testing::HashEmbedder;
use seamscope::eval::grid::{Embedding, GridSettings, prepare, run_grid};
use seamscope::eval::questions::Question;
use seamscope::eval::rescore::SearchedStrategy;
use seamscope::eval::strategy::Strategy;
use seamscope::layout::Layout;

fn corpus() -> Corpus {
    let para = |topic: &str, n: usize| -> String {
        (0..n)
            .map(|i| {
                format!("Note {i} on {topic}: step {i} has an owner, a check and a rollback plan. ")
            })
            .collect()
    };
    Corpus::from_texts([
        ("a.md", para("failover of the billing database", 40)),
        ("b.md", para("warehouse stock reconciliation", 40)),
    ])
}

/// Questions whose evidence is a stretch of text around each tenth note of both documents.
fn questions(corpus: &Corpus) -> Vec<Question> {
    let mut out = Vec::new();
    for doc in &corpus.documents {
        for i in (5..40).step_by(7) {
            let Some(start) = doc.text.find(&format!("Note {i} on")) else {
                continue;
            };
            let end = (start + 140).min(doc.text.len());
            let end = (end..=doc.text.len())
                .find(|&e| doc.text.is_char_boundary(e))
                .unwrap_or(doc.text.len());
            out.push(Question {
                id: format!("{}-{i}", doc.path),
                question: format!("step {i} owner check rollback {}", &doc.path),
                doc: DocId(doc.id.0),
                spans: vec![Span::new(start, end)],
                tags: vec![if i % 2 == 0 { "boundary" } else { "inside" }.to_string()],
            });
        }
    }
    out
}

fn grid(m: u32, budget: usize) -> GridSettings {
    GridSettings {
        budget,
        m,
        depth: 40,
        rrf_c: 60.0,
        chunk_tokens: 96,
        side_drop: None,
    }
}

#[test]
fn a_searched_strategy_rescored_at_any_m_and_budget_matches_the_grid() {
    let tokenizer = common::tokenizer();
    let corpus = corpus();
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 96 }, 24).unwrap();
    let questions = questions(&corpus);
    assert!(questions.len() >= 8);
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 64);
    let mut embedder = HashEmbedder::new(64, 256);
    let vectors: Vec<Vec<f32>> = questions
        .iter()
        .map(|q| seamscope::embed::embed_one(&mut embedder, &tokenizer, &q.question).unwrap())
        .collect();
    let seams = Strategy::Seams { k: 24 };
    let searched = {
        let mut model = Embedding {
            embedder: &mut embedder,
            tokenizer: &tokenizer,
            options: EmbedOptions::default(),
            cache: &mut cache,
            contexts: None,
        };
        let p = prepare(&mut model, &corpus, &layout, seams, &grid(1, 3)).unwrap();
        SearchedStrategy::search(p, &questions, &vectors, &grid(1, 3), &mut |_, _| true)
            .unwrap()
            .unwrap()
    };
    assert_eq!(searched.lists.len(), questions.len());

    let mut fire_rates = Vec::new();
    for (m, budget) in [(0, 3), (1, 3), (2, 3), (3, 5), (6, 5), (30, 3)] {
        let settings = grid(m, budget);
        let fast = searched.row(&layout, &questions, &settings);
        let mut model = Embedding {
            embedder: &mut embedder,
            tokenizer: &tokenizer,
            options: EmbedOptions::default(),
            cache: &mut cache,
            contexts: None,
        };
        let full = run_grid(
            &mut model,
            &corpus,
            &layout,
            &questions,
            &[seams],
            &settings,
            &mut |_| {},
        )
        .unwrap();
        let mut full = full.into_iter().next().unwrap();
        // The grid prepared again from a warm cache: nothing new was embedded that time.
        full.embedded_texts = fast.embedded_texts;
        assert_eq!(fast, full, "m = {m}, budget {budget}");
        fire_rates.push(fast.fires_per_question);
    }
    assert!(
        fire_rates.first() > fire_rates.last(),
        "a wider margin fires less: {fire_rates:?}"
    );
    assert_eq!(fire_rates.last(), Some(&0.0), "at m = 30 nothing fires");
}

#[test]
fn a_stopped_search_returns_nothing() {
    let tokenizer = common::tokenizer();
    let corpus = corpus();
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 96 }, 24).unwrap();
    let questions = questions(&corpus);
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = VectorCache::open(dir.path().join("v.bin"), 64);
    let mut embedder = HashEmbedder::new(64, 256);
    let vectors = vec![vec![0.0; 64]; questions.len()];
    let mut model = Embedding {
        embedder: &mut embedder,
        tokenizer: &tokenizer,
        options: EmbedOptions::default(),
        cache: &mut cache,
        contexts: None,
    };
    let p = prepare(
        &mut model,
        &corpus,
        &layout,
        Strategy::NoOverlap,
        &grid(1, 3),
    )
    .unwrap();
    let mut asked = 0;
    let stopped = SearchedStrategy::search(p, &questions, &vectors, &grid(1, 3), &mut |done, _| {
        asked = done;
        done < 2
    });
    assert_eq!(stopped.unwrap(), None);
    assert_eq!(asked, 2);
}

/// The evaluation searches as the live index does: the same lists, built by the same code, for
/// the baseline's Seams at the layout's own k (real model, a small corpus).
#[test]
fn eval_lists_match_the_live_index_lists() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = tempfile::tempdir().unwrap();
    let text: String = (0..80)
        .map(|i| {
            format!(
                "Section {i}: the {} team reviews {} and files ticket {}. ",
                ["billing", "dispatch", "security", "warehouse"][i % 4],
                [
                    "the failover runbook",
                    "carrier rates",
                    "access logs",
                    "cold storage"
                ][i % 4],
                2000 + i
            )
        })
        .collect();
    std::fs::write(corpus_dir.path().join("ops.md"), text).unwrap();
    let mut settings = common::settings(dir.path());
    settings.chunk_tokens = 128;
    settings.k = 30;
    let mut engine = seamscope::session::Engine::load(settings.clone()).unwrap();
    let open = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    let grid = seamscope::eval::grid::GridSettings::from_settings(&settings);
    let (mut cache, _) = engine.vector_cache();
    let mut model = seamscope::eval::grid::Embedding::of(&mut engine, &mut cache);
    let p = seamscope::eval::grid::prepare(
        &mut model,
        &open.corpus,
        &open.layout,
        Strategy::Seams { k: 30 },
        &grid,
    )
    .unwrap();
    // Chunks and seam windows come from the cache the index filled; only the seam halves (for
    // side drop) are new.
    assert_eq!(p.embedding.cache_misses, 2 * p.pointers.len());
    for q in [
        "who reviews the failover runbook",
        "ticket 2042 carrier rates",
        "cold storage",
    ] {
        let v = seamscope::embed::embed_one(&mut engine.embedder, &engine.tokenizer, q).unwrap();
        let live = open.indexes.search(&v, q, grid.depth).unwrap().with_seams;
        let eval = seamscope::eval::grid::search_lists(&p, &v, q, &grid).unwrap();
        assert_eq!(live.len(), eval.len());
        for (l, e) in live.iter().zip(&eval) {
            assert_eq!(l.source, e.source);
            let entries = |list: &seamscope::retrieve::RankedList| -> Vec<_> {
                list.hits.iter().map(|h| h.entry).collect()
            };
            if l.source == seamscope::retrieve::ListSource::Dense {
                // Cosines computed by usearch and directly may differ in the last bits: the
                // same entries, in the same order wherever scores differ by more than that.
                let (a, b) = (entries(l), entries(e));
                let mut sa = a.clone();
                let mut sb = b.clone();
                sa.sort_by_key(|x| format!("{x:?}"));
                sb.sort_by_key(|x| format!("{x:?}"));
                assert_eq!(sa, sb, "{q}: dense entries");
                assert_eq!(a[..5], b[..5], "{q}: the dense top 5");
            } else {
                assert_eq!(entries(l), entries(e), "{q}: {:?}", l.source);
            }
        }
    }
}
