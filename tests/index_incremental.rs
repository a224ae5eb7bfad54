//! Editing, adding and deleting files: the next index embeds only the changed files' texts, says
//! which files changed, replaces the superseded index folder, and answers exactly as a build
//! from scratch does.

mod common;

use std::path::Path;

use seamscope::retrieve::EntryRef;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::settings::Settings;

const QUESTIONS: [&str; 3] = [
    "Why does the order service accept stale reads?",
    "How long are audit logs kept?",
    "What happens when a replica lags behind?",
];

/// A corpus of three sample documents, cut small so each has several chunks and seams.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    for (name, bytes) in [
        ("order.md", "order-service-design.md"),
        ("retention.md", "data-retention-policy.md"),
        ("runbook.md", "runbook-database-failover.md"),
    ] {
        let text = std::fs::read_to_string(sample.join(bytes)).unwrap();
        // The first 4,000 bytes (cut at a line end) keep the test quick.
        let end = text[..4_000].rfind('\n').unwrap();
        std::fs::write(dir.path().join(name), &text[..end]).unwrap();
    }
    dir
}

fn engine(cache: &Path) -> Engine {
    let settings = Settings {
        chunk_tokens: 200,
        k: 40,
        ..common::settings(cache)
    };
    Engine::load(settings).expect("the real model loads")
}

/// The top of every search list and the context, by entry: what a user sees of a query.
fn answers(engine: &mut Engine, open: &OpenCorpus) -> Vec<(Vec<EntryRef>, Vec<u32>)> {
    let qs = engine.settings.query_settings();
    QUESTIONS
        .iter()
        .map(|q| {
            let (trace, _) = engine.ask(open, q, &qs).unwrap();
            let fused = trace.fused.iter().take(12).map(|e| e.entry).collect();
            let context = trace.context.iter().map(|c| c.chunk.0).collect();
            (fused, context)
        })
        .collect()
}

#[test]
fn an_edit_embeds_only_that_file_and_answers_as_a_fresh_build() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let mut engine = engine(cache.path());
    let first = engine.open_corpus(corpus.path(), &mut |_| true).unwrap();
    let r = &first.report;
    assert!(r.changes.is_none(), "nothing to compare with yet");
    let files: Vec<&str> = r.embedded_files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["order.md", "retention.md", "runbook.md"]);
    let first_dir = r.dir.clone();

    // Edit one sentence in the middle of one file.
    let path = corpus.path().join("retention.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let middle = text.len() / 2 + text[text.len() / 2..].find(". ").unwrap() + 2;
    let edited = format!(
        "{}Audit logs are kept for nine years in the cold archive. {}",
        &text[..middle],
        &text[middle..]
    );
    std::fs::write(&path, edited).unwrap();

    let second = engine.open_corpus(corpus.path(), &mut |_| true).unwrap();
    let r = &second.report;
    let changes = r.changes.as_ref().expect("the previous index is compared");
    assert_eq!(changes.modified, ["retention.md"]);
    assert!(changes.added.is_empty() && changes.removed.is_empty());
    assert_eq!(changes.unchanged, 2);
    // Only the edited file's texts were embedded: at least the chunk holding the edit and a seam
    // or two, never every chunk of the file, and nothing of the other files.
    assert_eq!(r.embedded_files.len(), 1, "{:?}", r.embedded_files);
    let edited_file = &r.embedded_files[0];
    assert_eq!(edited_file.path, "retention.md");
    let retention_doc = second
        .corpus
        .documents
        .iter()
        .find(|d| d.path == "retention.md")
        .unwrap()
        .id;
    let retention_chunks = second
        .layout
        .chunks
        .iter()
        .filter(|c| c.doc == retention_doc)
        .count();
    assert!(edited_file.chunks >= 1 && edited_file.chunks < retention_chunks);
    let misses = r.chunk_embedding.cache_misses + r.seam_embedding.cache_misses;
    assert_eq!(misses, edited_file.chunks + edited_file.seams);
    let texts = second.layout.chunks.len() + second.layout.seams.len();
    assert_eq!(
        r.chunk_embedding.cache_hits + r.seam_embedding.cache_hits,
        texts - misses,
        "every other text is served from the cache"
    );
    assert!(
        !first_dir.exists(),
        "the superseded index folder is removed"
    );
    assert!(r.dir.exists());

    // A build from scratch, in a cache of its own, answers the same.
    let incremental = answers(&mut engine, &second);
    let fresh_cache = tempfile::tempdir().unwrap();
    let mut fresh = self::engine(fresh_cache.path());
    let scratch = fresh.open_corpus(corpus.path(), &mut |_| true).unwrap();
    assert!(scratch.report.changes.is_none());
    assert_eq!(answers(&mut fresh, &scratch), incremental);
}

#[test]
fn added_and_removed_files_are_named_and_only_the_new_one_is_embedded() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let mut engine = engine(cache.path());
    engine.open_corpus(corpus.path(), &mut |_| true).unwrap();
    std::fs::remove_file(corpus.path().join("runbook.md")).unwrap();
    let note = "The billing ledger is reconciled every night against the payment provider. ";
    std::fs::write(corpus.path().join("ledger.md"), note.repeat(40)).unwrap();

    // Through the command line: `index --json` says what changed and what was embedded.
    let v = common::json_of(
        common::seamscope(cache.path())
            .args(["index", "--chunk-tokens", "200", "--k", "40", "--json"])
            .arg(corpus.path()),
    );
    let changes = &v["build"]["changes"];
    assert_eq!(changes["added"], serde_json::json!(["ledger.md"]));
    assert_eq!(changes["removed"], serde_json::json!(["runbook.md"]));
    assert_eq!(changes["modified"], serde_json::json!([]));
    assert_eq!(changes["unchanged"], 2);
    let embedded = v["build"]["embedded_files"].as_array().unwrap();
    assert_eq!(embedded.len(), 1, "{embedded:?}");
    assert_eq!(embedded[0]["path"], "ledger.md");
    assert!(embedded[0]["chunks"].as_u64().unwrap() >= 1);
    assert_eq!(v["device"]["used"], "cpu");
}
