//! Embedding statistics that say what they count: a cache hit was found in the cache, a repeat
//! within one batch is counted apart, and a reopened index says it never opened the cache.

mod common;

use seamscope::chunk::fixed::FixedTokens;
use seamscope::corpus::Corpus;
use seamscope::embed::cache::{CacheOpen, VectorCache};
use seamscope::embed::testing::HashEmbedder;
use seamscope::embed::{EmbedOptions, embed_texts};
use seamscope::index::{BuildOptions, open_or_build};
use seamscope::layout::Layout;

#[test]
fn embed_stats_repeats_in_one_batch_are_not_cache_hits() {
    let tokenizer = common::tokenizer();
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, state) = VectorCache::open(dir.path().join("v.bin"), 8);
    assert_eq!(state, CacheOpen::New);
    let mut embedder = HashEmbedder::new(8, 256);
    let texts = ["alpha beta", "gamma delta", "alpha beta", "alpha beta"];
    let (vectors, stats) = embed_texts(
        &mut embedder,
        &tokenizer,
        &mut cache,
        &texts,
        EmbedOptions::default(),
        &mut |_| true,
    )
    .unwrap();
    assert_eq!(vectors[0], vectors[2]);
    assert_eq!(vectors[0], vectors[3]);
    assert_eq!(stats.texts, 4);
    assert_eq!(stats.cache_hits, 0, "the cache was empty: {stats:?}");
    assert_eq!(stats.cache_misses, 2);
    assert_eq!(stats.duplicates_in_batch, 2);
    assert_eq!(embedder.calls, 2);

    // The same batch again: every text is now found in the cache (repeats too).
    let (_, stats) = embed_texts(
        &mut embedder,
        &tokenizer,
        &mut cache,
        &texts,
        EmbedOptions::default(),
        &mut |_| true,
    )
    .unwrap();
    assert_eq!(stats.cache_hits, 4, "{stats:?}");
    assert_eq!(stats.cache_misses, 0);
    assert_eq!(stats.duplicates_in_batch, 0);
    assert_eq!(embedder.calls, 2);
}

#[test]
fn embed_stats_a_reopened_index_did_not_open_the_vector_cache() {
    let tokenizer = common::tokenizer();
    let text = "Orders keep flowing during an outage. Reads may be stale for a while. ".repeat(30);
    let corpus = Corpus::from_texts([("notes.md", text)]);
    let layout = Layout::build(&corpus, &tokenizer, &FixedTokens { tokens: 64 }, 16).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut embedder = HashEmbedder::new(16, 256);
    let mut build = || {
        open_or_build(
            &corpus,
            &layout,
            &mut embedder,
            &tokenizer,
            cache.path(),
            BuildOptions::default(),
            &mut |_| true,
        )
        .unwrap()
        .1
    };
    let first = build();
    assert!(!first.reopened);
    assert_eq!(first.vector_cache, CacheOpen::New);
    let again = build();
    assert!(again.reopened);
    assert_eq!(again.vector_cache, CacheOpen::NotOpened);
}
