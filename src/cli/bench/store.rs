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
use seamscope::index::remote::{RemoteKind, StoreSync};
use seamscope::retrieve::{EntryRef, ListSource, RankedList, RankingInput, Trace};
use seamscope::session::OpenCorpus;

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
    if settings.chroma_url.is_none() && settings.pg_url.is_none() {
        return Err(UsageError(
            "bench store compares the embedded store with a server: give it with --store chroma:http://HOST:PORT or --store pgvector:postgresql://USER@HOST:PORT/DATABASE (or --chroma, SEAMSCOPE_STORE)".into(),
        )
        .into());
    }
    let embedded_settings = seamscope::settings::Settings {
        chroma_url: None,
        pg_url: None,
        ..settings.clone()
    };
    let mut engine = start_engine(embedded_settings)?;
    let docs = engine.load_corpus(corpus)?;
    let (questions, questions_from) = bench_questions(corpus, &docs)?;
    let mut bar = BuildBar::new();
    let embedded: OpenCorpus = engine.open_loaded(docs, &mut |p| bar.update(p))?;
    // The same layout and index folder, its vectors now searched on the server.
    engine.settings.chroma_url = settings.chroma_url.clone();
    engine.settings.pg_url = settings.pg_url.clone();
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
    let mut counts = [0usize; 3];
    let mut same_fills = 0;
    let mut differing = Vec::new();
    let mut max_score_difference = 0f32;
    let (mut dense_e, mut dense_c, mut search_e, mut search_c) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut recalls = Vec::new();
    let mut unexplained = 0;
    // One untimed question first: connections and caches warm.
    if let Some(first) = questions.first() {
        engine.ask(&embedded, first, &qs)?;
        engine.ask(&served, first, &qs)?;
    }
    for q in &questions {
        let vector = engine.embed_question(q)?;
        dense_e.push(dense_ms(&embedded.indexes, &vector, qs.depth)?);
        dense_c.push(dense_ms(&served.indexes, &vector, qs.depth)?);
        let (te, timing_e) = engine.ask(&embedded, q, &qs)?;
        let (tc, timing_c) = engine.ask(&served, q, &qs)?;
        search_e.push(timing_e.search * 1e3);
        search_c.push(timing_c.search * 1e3);
        let (de, dc) = (Decided::of(&te), Decided::of(&tc));
        if de.same_fills(&dc) {
            same_fills += 1;
        }
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
        if let (Some(a), Some(b)) = lists[0] {
            recalls.push(recall(a, b));
        }
        let mut tied = true;
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
        counts[agreement as usize] += 1;
        if agreement == Agreement::Differs {
            differing.push(q.clone());
            if complete {
                unexplained += 1;
            }
        }
    }
    let latency = |dense: &[f64], search: &[f64]| StoreLatency {
        dense_ms: Spread::of(dense),
        dense_p95_ms: percentile(dense, 0.95),
        search_ms: Spread::of(search),
        search_p95_ms: percentile(search, 0.95),
    };
    let report = StoreBench {
        corpus: corpus.display().to_string(),
        questions: questions.len(),
        questions_from,
        store: sync,
        plan,
        chunks: embedded.layout.chunks.len(),
        seams: embedded.layout.seams.len(),
        identical: counts[0],
        differs_only_in_ties: counts[1],
        differs: counts[2],
        same_fills,
        differs_with_complete_recall: unexplained,
        differing_questions: differing,
        max_score_difference,
        dense_recall: Recall {
            mean: recalls.iter().sum::<f64>() / recalls.len().max(1) as f64,
            min: recalls.iter().copied().fold(1.0, f64::min),
            complete: recalls.iter().filter(|&&r| r >= 1.0).count(),
        },
        embedded: latency(&dense_e, &search_e),
        store_latency: latency(&dense_c, &search_c),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    print(&report)?;
    Ok(())
}

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
    outln!("latency per query (ms)       median     mean      p95      max")?;
    let (server_dense, server_all) = match r.store.kind {
        RemoteKind::Chroma => ("Chroma dense (HTTP)", "Chroma, all lists"),
        RemoteKind::Pgvector => ("pgvector dense (HNSW)", "pgvector, all lists"),
    };
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
            server_all,
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
