//! Contextual retrieval's contexts against the loopback chat stand-in `scripts/test` starts
//! (`scripts/embed-server.py`, address in `SEAMSCOPE_TEST_EMBED_URL`): it answers with an
//! extractive context (the document's title, the heading above the chunk, the document's first
//! sentence), not a language model's; what is tested is the request, the cache and the counts.

mod common;

use seamscope::corpus::{Corpus, DocId, Span};
use seamscope::embed::chat::{ChatClient, LlmConfig};
use seamscope::eval::contextual::{ContextCache, ContextCost, chunk_contexts};

fn server() -> String {
    std::env::var("SEAMSCOPE_TEST_EMBED_URL").expect(
        "SEAMSCOPE_TEST_EMBED_URL is not set: run the tests with scripts/test, which starts the loopback embedding and chat stand-in (scripts/embed-server)",
    )
}

/// A scenario of its own on the server, so its counts are this test's alone.
fn scenario() -> String {
    format!(
        "contexts-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

fn requests_seen(id: &str) -> u64 {
    let url = format!("{}/faults/{id}/stats", server());
    let text = ureq::get(&url)
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_str(&text).unwrap();
    stats["requests"].as_u64().unwrap()
}

#[test]
fn each_chunk_gets_its_context_once_and_a_rerun_sends_nothing() {
    let text = "# Nimbus gateway\n\nNimbus is the upload gateway of the billing team. It keeps \
                failed uploads.\n\n## Limits\n\nIt holds at most ten thousand entries before \
                the oldest are dropped.\n";
    let corpus = Corpus::from_texts([("nimbus.md", text.to_string())]);
    let claim = text.find("It holds").unwrap();
    let chunks = vec![
        (DocId(0), Span::new(0, claim)),
        (DocId(0), Span::new(claim, text.len())),
    ];
    let id = scenario();
    let client = ChatClient::new(LlmConfig::new(
        format!("{}/faults/{id}/count/v1", server()),
        "stand-in",
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut cache = ContextCache::open(dir.path()).unwrap();
    let mut cost = ContextCost::default();
    let mut seen = Vec::new();
    let contexts = chunk_contexts(
        &client,
        &mut cache,
        &corpus,
        &chunks,
        &mut cost,
        &mut |d, t| seen.push((d, t)),
    )
    .unwrap();
    assert_eq!(seen, vec![(1, 2), (2, 2)]);
    // The orphaned claim's context names what "It" is and where it stands.
    assert_eq!(
        contexts[1],
        "From nimbus.md, section Limits. Nimbus is the upload gateway of the billing team."
    );
    assert_eq!((cost.calls, cost.cached), (2, 0));
    assert!(cost.tokens_sent > cost.tokens_received && cost.tokens_received > 0);
    assert_eq!(requests_seen(&id), 2);

    let mut reopened = ContextCache::open(dir.path()).unwrap();
    let mut again = ContextCost::default();
    let cached = chunk_contexts(
        &client,
        &mut reopened,
        &corpus,
        &chunks,
        &mut again,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(cached, contexts);
    assert_eq!((again.calls, again.cached), (0, 2));
    assert_eq!(requests_seen(&id), 2, "a rerun sent a request");
}

/// Contextual chunks beside chunks only and Seams on the sample's gold questions, the contexts
/// from the stand-in: every row is scored, the contextual rows search other texts, a rerun sends
/// no request and embeds nothing; without an endpoint the strategy says what it needs.
#[test]
fn contextual_rows_on_the_sample_and_a_rerun_sends_nothing() {
    use seamscope::eval::contextual::ContextWriter;
    use seamscope::eval::grid::GridSettings;
    use seamscope::eval::run::{search_strategies, search_strategies_with};
    use seamscope::eval::strategy::Strategy;

    let (mut engine, open, questions, vectors) = common::sample_with_questions();
    let grid = GridSettings::from_settings(&engine.settings);
    let k = open.layout.k;
    let strategies = [
        Strategy::NoOverlap,
        Strategy::Contextual,
        Strategy::Seams { k },
        Strategy::ContextualSeams { k },
    ];
    let refused = search_strategies(
        &mut engine,
        &open,
        &questions,
        &vectors,
        &strategies[1..2],
        &grid,
        &mut |_| true,
    )
    .expect_err("contextual retrieval without an endpoint is refused");
    assert!(refused.to_string().contains("--llm-url"), "{refused}");

    let id = scenario();
    let contexts = tempfile::tempdir().unwrap();
    let endpoint = LlmConfig::new(format!("{}/faults/{id}/count/v1", server()), "stand-in");
    let mut writer =
        ContextWriter::new(ChatClient::new(endpoint).unwrap(), contexts.path()).unwrap();
    let run = |engine: &mut seamscope::session::Engine, writer: &mut ContextWriter| {
        let asked = (&questions[..], &vectors[..], &strategies[..]);
        search_strategies_with(engine, &open, asked, &grid, Some(writer), &mut |_| true)
            .unwrap()
            .unwrap()
    };
    let first = run(&mut engine, &mut writer);
    let chunks = open.layout.chunks.len();
    assert_eq!(writer.cost.calls, chunks, "one call per chunk, once");
    assert_eq!(
        writer.cost.cached, chunks,
        "the second contextual row reuses the first's"
    );
    let rows: Vec<_> = first
        .iter()
        .map(|s| s.row(&open.layout, &questions, &grid))
        .collect();
    common::print_rows(&rows);
    eprintln!(
        "contexts: {} calls, {} tokens sent, {} received",
        writer.cost.calls, writer.cost.tokens_sent, writer.cost.tokens_received
    );
    assert_ne!(first[1].lists, first[0].lists);
    let calls = requests_seen(&id);
    assert_eq!(calls, chunks as u64);

    let mut again_writer = ContextWriter::new(
        ChatClient::new(LlmConfig::new(
            format!("{}/faults/{id}/count/v1", server()),
            "stand-in",
        ))
        .unwrap(),
        contexts.path(),
    )
    .unwrap();
    let again = run(&mut engine, &mut again_writer);
    assert_eq!(again_writer.cost.calls, 0);
    assert_eq!(requests_seen(&id), calls, "a rerun sent a request");
    for (once, twice) in first.iter().zip(&again) {
        assert_eq!(twice.embedded_texts, 0, "{}: embedded again", twice.label);
        assert_eq!(
            twice.lists, once.lists,
            "{}: searched otherwise",
            twice.label
        );
    }
}
