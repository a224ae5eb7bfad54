//! `seamscope bench store`: every question of the corpus over the embedded store and over a
//! server (`--store chroma:URL` / `--chroma URL`, or `--store pgvector:URL`), from the same
//! question vectors and the same keyword lists: whether the fused rankings, fire decisions and
//! budget fills agree (where they differ, whether only tied dense scores explain it), the
//! server's dense recall against the embedded store's lists (exact on a corpus this size), and
//! each store's search latency per query.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use seamscope::index::IndexSet;
use seamscope::index::remote::StoreSync;
use seamscope::retrieve::{EntryRef, ListSource, RankedList, RankingInput, Trace};
use seamscope::session::{Engine, OpenCorpus};

use super::super::common::{BuildBar, start_engine};
use super::super::{GlobalArgs, UsageError};
use super::query::bench_questions;
use super::{Spread, percentile};

/// Two dense scores this close are a tie: the stores compute cosines in different code, so the
/// same pair may come out in either order.
const TIE: f32 = 1e-5;

/// How one question came out over the two stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Agreement {
    /// Same fused ranking, fire decisions and fills.
    Identical,
    /// Fills or ranking differ, and only dense scores tied within [`TIE`] changed places.
    DiffersOnlyInTies,
    /// They differ beyond ties.
    Differs,
}

/// Latency of one store, in milliseconds per query.
#[derive(Debug, Serialize)]
struct StoreLatency {
    /// Dense search alone: the chunk and the seam collection, one query each.
    dense_ms: Spread,
    /// The 95th percentile of `dense_ms`.
    dense_p95_ms: f64,
    /// Every search list of a question (dense and keyword), as `query` times it.
    search_ms: Spread,
    /// The 95th percentile of `search_ms`.
    search_p95_ms: f64,
}

#[derive(Debug, Serialize)]
struct StoreBench {
    corpus: String,
    questions: usize,
    questions_from: String,
    /// The server and what attaching to it did.
    store: StoreSync,
    chunks: usize,
    seams: usize,
    identical: usize,
    differs_only_in_ties: usize,
    differs: usize,
    /// Questions whose budget fill with Seams (and without) is the same both ways.
    same_fills: usize,
    /// Questions that differ beyond ties although the server's dense lists hold every entry of
    /// the embedded store's: a difference HNSW's misses do not explain (0 when all is well).
    differs_with_complete_recall: usize,
    /// Ids of the questions that differ beyond ties (their text, for a look with `query`).
    differing_questions: Vec<String>,
    /// The largest difference between the two stores' cosine for the same entry and question.
    max_score_difference: f32,
    /// The server's dense lists against the embedded store's: the share of the embedded list's
    /// entries the server's list holds, per question (1 where both are the same set).
    dense_recall: Recall,
    /// How the server plans the chunk search of the first question, where it can say (pgvector:
    /// its `EXPLAIN`, which names the HNSW index it walks).
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<String>,
    embedded: StoreLatency,
    store_latency: StoreLatency,
}

/// Recall of the server's dense lists against the embedded store's, over the questions.
#[derive(Debug, Serialize)]
struct Recall {
    /// Mean over the questions.
    mean: f64,
    /// The lowest.
    min: f64,
    /// Questions whose server list holds every entry of the embedded one.
    complete: usize,
}

/// The share of `exact`'s entries that `other` holds (1 for an empty `exact`).
fn recall(exact: &RankedList, other: &RankedList) -> f64 {
    if exact.hits.is_empty() {
        return 1.0;
    }
    let found = exact
        .hits
        .iter()
        .filter(|h| other.hits.iter().any(|o| o.entry == h.entry))
        .count();
    found as f64 / exact.hits.len() as f64
}

/// The dense list of a ranking input.
fn dense(input: &RankingInput) -> Option<&RankedList> {
    match input {
        RankingInput::Lists(lists) => lists.iter().find(|l| l.source == ListSource::Dense),
        RankingInput::Fused(_) => None,
    }
}

/// Whether two dense lists hold the same entries at the same scores, apart from the order of
/// entries whose scores tie; and the largest score difference for an entry in both.
fn same_up_to_ties(a: &RankedList, b: &RankedList) -> (bool, f32) {
    let mut max_diff = 0f32;
    for h in &a.hits {
        if let Some(o) = b.hits.iter().find(|o| o.entry == h.entry) {
            max_diff = max_diff.max((o.score - h.score).abs());
        }
    }
    if a.hits.len() != b.hits.len() {
        return (false, max_diff);
    }
    // Where the entries at a place differ, both scores tie, and `a`'s entry stands in `b` at a
    // score tied with its own.
    let tied = a.hits.iter().zip(&b.hits).all(|(x, y)| {
        x.entry == y.entry
            || ((x.score - y.score).abs() <= TIE
                && b.hits
                    .iter()
                    .any(|o| o.entry == x.entry && (o.score - x.score).abs() <= TIE))
    });
    (tied, max_diff)
}

/// What a Seams stage decides for one question.
#[derive(Debug, PartialEq)]
struct Decided {
    /// The fused ranking's order.
    fused: Vec<EntryRef>,
    /// Each fire test: seam and whether it fired.
    fires: Vec<(u32, bool)>,
    /// The fill with Seams.
    fill: Vec<u32>,
    /// The fill without Seams.
    fill_without: Vec<u32>,
}

impl Decided {
    fn of(t: &Trace) -> Decided {
        Decided {
            fused: t.fused.iter().map(|e| e.entry).collect(),
            fires: t.decisions.iter().map(|d| (d.seam.0, d.fires)).collect(),
            fill: t.fill.chunks.iter().map(|c| c.0).collect(),
            fill_without: t
                .without_seams
                .shown()
                .without_seams
                .iter()
                .map(|c| c.0)
                .collect(),
        }
    }

    fn same_fills(&self, other: &Decided) -> bool {
        self.fill == other.fill && self.fill_without == other.fill_without
    }
}

/// Time dense search alone on both collections of `indexes`, in milliseconds.
fn dense_ms(indexes: &IndexSet, vector: &[f32], depth: usize) -> anyhow::Result<f64> {
    let t = Instant::now();
    indexes
        .chunk_vectors
        .search(vector, depth, indexes.search_mode)?;
    indexes
        .seam_vectors
        .search(vector, depth, indexes.search_mode)?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Run the store comparison on `corpus` and print it.
pub fn run(global: &GlobalArgs, corpus: &Path, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    if !settings.store.is_server() {
        return Err(UsageError(
            "bench store compares the embedded store with a server: give it with --store chroma:http://HOST:PORT or --store pgvector:postgresql://USER@HOST:PORT/DATABASE (or --chroma, SEAMSCOPE_STORE)".into(),
        )
        .into());
    }
    let embedded_settings = seamscope::settings::Settings {
        store: seamscope::spec::store::Store::Embedded,
        ..settings.clone()
    };
    let mut engine = start_engine(embedded_settings)?;
    let docs = engine.load_corpus(corpus)?;
    let (questions, questions_from) = bench_questions(corpus, &docs)?;
    let mut bar = BuildBar::new();
    let embedded: OpenCorpus = engine.open_loaded(docs, &mut |p| bar.update(p))?;
    // The same layout and index folder, its vectors now searched on the server.
    engine.settings.store = settings.store.clone();
    let served =
        engine.index_layout(embedded.corpus.clone(), embedded.layout.clone(), &mut |p| {
            bar.update(p)
        })?;
    bar.finish();
    let sync = served
        .report
        .store
        .clone()
        .ok_or_else(|| anyhow::anyhow!("the index did not attach to the server"))?;

    let qs = settings.query_settings();
    let plan = match questions.first() {
        Some(first) => {
            let vector = engine.embed_question(first)?;
            served.indexes.chunk_vectors.explain(&vector, qs.depth)?
        }
        None => None,
    };
    let stores = Stores {
        embedded: &embedded,
        served: &served,
        settings: &qs,
    };
    let tally = compare_questions(&mut engine, &stores, &questions)?;
    let report = StoreBench {
        corpus: corpus.display().to_string(),
        questions: questions.len(),
        questions_from,
        store: sync,
        plan,
        chunks: embedded.layout.chunks.len(),
        seams: embedded.layout.seams.len(),
        identical: tally.counts[0],
        differs_only_in_ties: tally.counts[1],
        differs: tally.counts[2],
        same_fills: tally.same_fills,
        differs_with_complete_recall: tally.unexplained,
        dense_recall: Recall {
            mean: tally.recalls.iter().sum::<f64>() / tally.recalls.len().max(1) as f64,
            min: tally.recalls.iter().copied().fold(1.0, f64::min),
            complete: tally.recalls.iter().filter(|&&r| r >= 1.0).count(),
        },
        embedded: latency(&tally.dense_ms[0], &tally.search_ms[0]),
        store_latency: latency(&tally.dense_ms[1], &tally.search_ms[1]),
        differing_questions: tally.differing,
        max_score_difference: tally.max_score_difference,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    print(&report)?;
    Ok(())
}

/// The two opened stores a question is asked of, and the query settings it is asked with.
struct Stores<'a> {
    embedded: &'a OpenCorpus,
    served: &'a OpenCorpus,
    settings: &'a seamscope::retrieve::QuerySettings,
}

/// One question asked of both stores: how the answers agree and how long each store took.
struct QuestionComparison {
    agreement: Agreement,
    /// Whether the budget fills are the same.
    same_fills: bool,
    /// The served dense list's recall of the embedded one, when both have one.
    dense_recall: Option<f64>,
    /// Whether every served list holds all of its embedded counterpart.
    complete: bool,
    /// The largest score difference between tied entries.
    max_score_difference: f32,
    /// Dense search alone, in milliseconds: embedded, then served.
    dense_ms: [f64; 2],
    /// Every search list of the question, in milliseconds: embedded, then served.
    search_ms: [f64; 2],
}

/// The questions' comparisons added up.
#[derive(Default)]
struct Tally {
    /// Questions per [`Agreement`], in its order.
    counts: [usize; 3],
    same_fills: usize,
    differing: Vec<String>,
    /// Questions that differ beyond ties although the served lists were complete.
    unexplained: usize,
    max_score_difference: f32,
    recalls: Vec<f64>,
    dense_ms: [Vec<f64>; 2],
    search_ms: [Vec<f64>; 2],
}

impl Tally {
    /// Counts one question's comparison.
    fn add(&mut self, question: &str, c: QuestionComparison) {
        if c.same_fills {
            self.same_fills += 1;
        }
        if let Some(r) = c.dense_recall {
            self.recalls.push(r);
        }
        self.max_score_difference = self.max_score_difference.max(c.max_score_difference);
        for store in 0..2 {
            self.dense_ms[store].push(c.dense_ms[store]);
            self.search_ms[store].push(c.search_ms[store]);
        }
        self.counts[c.agreement as usize] += 1;
        if c.agreement == Agreement::Differs {
            self.differing.push(question.to_string());
            if c.complete {
                self.unexplained += 1;
            }
        }
    }
}

/// Asks every question of both stores (after one untimed question that warms connections and
/// caches) and adds up how they compare.
fn compare_questions(
    engine: &mut Engine,
    stores: &Stores<'_>,
    questions: &[String],
) -> anyhow::Result<Tally> {
    if let Some(first) = questions.first() {
        engine.ask(stores.embedded, first, stores.settings)?;
        engine.ask(stores.served, first, stores.settings)?;
    }
    let mut tally = Tally::default();
    for q in questions {
        let comparison = compare_question(engine, stores, q)?;
        tally.add(q, comparison);
    }
    Ok(tally)
}

/// Asks one question of both stores, timing their dense search and whole search.
fn compare_question(
    engine: &mut Engine,
    stores: &Stores<'_>,
    q: &str,
) -> anyhow::Result<QuestionComparison> {
    let (embedded, served, qs) = (stores.embedded, stores.served, stores.settings);
    let vector = engine.embed_question(q)?;
    let dense_ms = [
        dense_ms(&embedded.indexes, &vector, qs.depth)?,
        dense_ms(&served.indexes, &vector, qs.depth)?,
    ];
    let (te, timing_e) = engine.ask(embedded, q, qs)?;
    let (tc, timing_c) = engine.ask(served, q, qs)?;
    let search_ms = [timing_e.search * 1e3, timing_c.search * 1e3];
    let (de, dc) = (Decided::of(&te), Decided::of(&tc));
    let lists = [
        (dense(&te.input.ranking), dense(&tc.input.ranking)),
        (
            te.input.chunks_only.as_ref().and_then(dense),
            tc.input.chunks_only.as_ref().and_then(dense),
        ),
    ];
    let complete = lists.iter().all(|pair| match pair {
        (Some(a), Some(b)) => recall(a, b) >= 1.0,
        _ => true,
    });
    let dense_recall = match lists[0] {
        (Some(a), Some(b)) => Some(recall(a, b)),
        _ => None,
    };
    let mut tied = true;
    let mut max_score_difference = 0f32;
    for pair in lists {
        if let (Some(a), Some(b)) = pair {
            let (same, diff) = same_up_to_ties(a, b);
            tied &= same;
            max_score_difference = max_score_difference.max(diff);
        }
    }
    let agreement = if de == dc {
        Agreement::Identical
    } else if tied {
        Agreement::DiffersOnlyInTies
    } else {
        Agreement::Differs
    };
    Ok(QuestionComparison {
        agreement,
        same_fills: de.same_fills(&dc),
        dense_recall,
        complete,
        max_score_difference,
        dense_ms,
        search_ms,
    })
}

/// One store's latency from its per-question timings.
fn latency(dense: &[f64], search: &[f64]) -> StoreLatency {
    StoreLatency {
        dense_ms: Spread::of(dense),
        dense_p95_ms: percentile(dense, 0.95),
        search_ms: Spread::of(search),
        search_p95_ms: percentile(search, 0.95),
    }
}

/// The store comparison as lines of text: what was compared, how far the stores agree, then
/// their latency.
fn print(r: &StoreBench) -> Result<(), crate::cli::out::StdoutError> {
    let safe = seamscope::text::safe_name;
    outln!(
        "corpus       {} · {} chunks, {} seams · {} questions ({})",
        safe(&r.corpus),
        r.chunks,
        r.seams,
        r.questions,
        safe(&r.questions_from)
    )?;
    let label = r.store.kind.label();
    for c in &r.store.collections {
        outln!(
            "{label:<12} {} · {} vectors · {}",
            safe(&c.name),
            c.vectors,
            if c.uploaded { "uploaded" } else { "reused" }
        )?;
    }
    outln!(
        "agreement    {} identical · {} differ only where dense scores tie (within {TIE:e}) · {} differ",
        r.identical,
        r.differs_only_in_ties,
        r.differs
    )?;
    outln!(
        "fills        {} of {} questions fill the same context with and without Seams on both stores",
        r.same_fills,
        r.questions
    )?;
    outln!(
        "scores       largest cosine difference for the same entry: {:.2e}",
        r.max_score_difference
    )?;
    outln!(
        "recall       the {label} dense lists hold {:.4} of the embedded store's entries on average (lowest {:.4}; {} of {} questions complete)",
        r.dense_recall.mean,
        r.dense_recall.min,
        r.dense_recall.complete,
        r.questions
    )?;
    if let Some(plan) = &r.plan {
        // The line that says how the rows are found.
        let scan = plan
            .lines()
            .find(|l| l.contains("Scan"))
            .unwrap_or_else(|| plan.lines().next().unwrap_or(""));
        outln!(
            "plan         {}",
            safe(scan.trim().trim_start_matches("->").trim())
        )?;
    }
    for q in &r.differing_questions {
        outln!("differs      {}", safe(q))?;
    }
    print_latency(r)
}

/// The latency table: dense search alone and all lists, each store, in milliseconds per query.
fn print_latency(r: &StoreBench) -> Result<(), crate::cli::out::StdoutError> {
    outln!("latency per query (ms)       median     mean      p95      max")?;
    let facts = r.store.kind.facts();
    let (server_dense, server_all) = (facts.dense_alone, format!("{}, all lists", facts.title));
    let rows = [
        (
            "embedded dense (usearch)",
            &r.embedded.dense_ms,
            r.embedded.dense_p95_ms,
        ),
        (
            server_dense,
            &r.store_latency.dense_ms,
            r.store_latency.dense_p95_ms,
        ),
        (
            "embedded, all lists",
            &r.embedded.search_ms,
            r.embedded.search_p95_ms,
        ),
        (
            server_all.as_str(),
            &r.store_latency.search_ms,
            r.store_latency.search_p95_ms,
        ),
    ];
    for (name, spread, p95) in rows {
        outln!(
            "  {name:<26} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            spread.median,
            spread.mean,
            p95,
            spread.max
        )?;
    }
    Ok(())
}
