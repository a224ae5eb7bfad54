//! The real model, the vector cache and the on-disk indexes.

mod common;

use seamscope::embed::{Embedder, cosine};
use seamscope::index::vectors::SearchMode;

fn write_corpus(dir: &std::path::Path) {
    let para = |topic: &str, n: usize| -> String {
        (0..n)
            .map(|i| format!("Paragraph {i} about {topic}: the team wrote down why each choice was made, and what it would cost to undo it later. "))
            .collect()
    };
    std::fs::write(
        dir.join("orders.md"),
        para("order intake during regional outages", 40),
    )
    .unwrap();
    std::fs::write(
        dir.join("billing.txt"),
        para("billing records and strong consistency", 30),
    )
    .unwrap();
}

#[test]
fn a_paraphrase_is_nearer_than_an_unrelated_sentence() {
    let cache = tempfile::tempdir().unwrap();
    let mut engine = common::engine(cache.path());
    let v = engine
        .embedder
        .embed(&[
            "The order service keeps accepting purchases while a region is down.",
            "During a regional outage, new orders are still taken by the ordering system.",
            "Bake the bread at two hundred degrees for forty minutes.",
        ])
        .unwrap();
    assert_eq!(engine.embedder.dim(), 384);
    for x in &v {
        let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "vectors are normalised");
    }
    let para = cosine(&v[0], &v[1]);
    let unrelated = cosine(&v[0], &v[2]);
    assert!(
        para > unrelated + 0.3,
        "paraphrase {para} vs unrelated {unrelated}"
    );
}

/// A two-document corpus, a private cache, and an engine cutting 256-token chunks with k = 40.
fn small_setup() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    seamscope::session::Engine,
) {
    let corpus_dir = tempfile::tempdir().unwrap();
    write_corpus(corpus_dir.path());
    let cache = tempfile::tempdir().unwrap();
    let mut engine = common::engine(cache.path());
    engine.settings.chunk_tokens = 256;
    engine.settings.k = 40;
    (corpus_dir, cache, engine)
}

#[test]
fn reopening_embeds_nothing_and_changing_k_reembeds_only_seams() {
    let (corpus_dir, _cache, mut engine) = small_setup();

    let first = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    assert!(!first.report.reopened);
    let chunks = first.layout.chunks.len();
    let seams = first.layout.seams.len();
    assert!(chunks >= 6 && seams >= 4, "{chunks} chunks, {seams} seams");
    assert_eq!(first.report.chunk_embedding.cache_misses, chunks);
    assert_eq!(first.report.seam_embedding.cache_misses, seams);
    assert_eq!(first.indexes.search_mode, SearchMode::Exact);
    assert_eq!(first.indexes.chunk_vectors.len(), chunks);
    assert_eq!(first.indexes.seam_keywords.len(), seams);

    // Unchanged corpus: the verified index is reopened, nothing is embedded.
    let again = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    assert!(again.report.reopened);
    assert_eq!(
        again.report.chunk_embedding.cache_misses + again.report.seam_embedding.cache_misses,
        0
    );
    assert_eq!(again.report.dir, first.report.dir);

    // A new k: every chunk comes from the cache; only seams are embedded.
    engine.settings.k = 60;
    let wider = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    assert!(!wider.report.reopened);
    assert_eq!(
        wider.report.chunk_embedding.cache_misses, 0,
        "no chunk re-embedded"
    );
    assert_eq!(wider.report.chunk_embedding.cache_hits, chunks);
    assert_eq!(
        wider.report.seam_embedding.cache_misses, seams,
        "every seam's text changed"
    );
    assert_ne!(wider.report.dir, first.report.dir);

    // Back to the first k: both indexes exist, so nothing is embedded at all.
    engine.settings.k = 40;
    let back = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    assert!(back.report.reopened);
}

#[test]
fn a_truncated_index_file_is_rebuilt_not_trusted() {
    let (corpus_dir, cache, mut engine) = small_setup();
    let first = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    let file = first.report.dir.join("seams.usearch");
    let len = std::fs::metadata(&file).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_len(len / 2).unwrap();
    drop(f);

    let second = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    assert!(!second.report.reopened);
    let why = second
        .report
        .rebuilt_because
        .clone()
        .expect("a reason is given");
    assert!(why.contains("seams.usearch"), "{why}");
    // The vectors themselves come from the cache: the rebuild embeds nothing.
    assert_eq!(
        second.report.chunk_embedding.cache_misses + second.report.seam_embedding.cache_misses,
        0
    );
    assert!(
        engine
            .open_corpus(corpus_dir.path(), &mut |_| true)
            .unwrap()
            .report
            .reopened
    );

    // A damaged vector cache is detected and rebuilt too.
    // (The folder also holds the cache's save lock, `<id>.lock`.)
    let cache_file = std::fs::read_dir(cache.path().join("vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "bin"))
        .unwrap();
    std::fs::write(&cache_file, b"garbage").unwrap();
    std::fs::remove_dir_all(&first.report.dir).unwrap();
    let third = engine
        .open_corpus(corpus_dir.path(), &mut |_| true)
        .unwrap();
    assert!(matches!(
        third.report.vector_cache,
        seamscope::embed::cache::CacheOpen::Damaged { .. }
    ));
    assert_eq!(
        third.report.chunk_embedding.cache_misses,
        third.layout.chunks.len()
    );
}

#[test]
fn a_long_text_is_embedded_in_windows_not_truncated() {
    let cache = tempfile::tempdir().unwrap();
    let mut engine = common::engine(cache.path());
    let mut vc = seamscope::embed::cache::VectorCache::open(cache.path().join("v.bin"), 384).0;
    // The key fact sits at the very end of a 700-token text: truncation at 256 would lose it.
    let filler =
        "The warehouse schedule lists shifts, docks and forklifts for each day of the week. "
            .repeat(40);
    let long = format!("{filler} Billing records must always be strongly consistent.");
    let (v, stats) = seamscope::embed::embed_texts(
        &mut engine.embedder,
        &engine.tokenizer,
        &mut vc,
        &[long.as_str(), filler.as_str()],
        Default::default(),
        &mut |_| true,
    )
    .unwrap();
    assert!(stats.windows >= 6, "{} windows", stats.windows);
    let q = engine
        .embedder
        .embed(&["billing records strongly consistent"])
        .unwrap();
    assert!(
        cosine(&q[0], &v[0]) > cosine(&q[0], &v[1]),
        "the tail of a long text counts"
    );
}
