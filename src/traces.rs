//! Production traces read against the cuts: which of an application's retrieval misses a cut
//! may have caused, without gold.
//!
//! The steps: read the traces ([`trace_read`]: OpenInference/OTLP, Phoenix, LangSmith, Langfuse,
//! LangChain events), place every returned document in the corpus ([`place`]), recover the app's
//! cuts from the placed chunks ([`recover`]) and open the corpus on them (chunker `given`), then
//! replay each question on those cuts at the app's own budget and rank the queries by
//! boundary-suspicion ([`suspicion`]). Where a gold question set is given, the rank is scored
//! against it (precision at 10, ROC AUC) with the gold held out of the ranking itself.

mod feedback;
pub mod overlap;
pub mod phoenix;
pub mod place;
pub mod recover;
pub mod source;
pub mod suspicion;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;
pub use trace_read::{Feedback, TraceFormat, TraceRead, TracedQuery};

use crate::chunk::ChunkId;
use crate::corpus::{Corpus, DocId, Span};
use crate::eval::questions::Question;
use crate::layout::Layout;
use crate::retrieve::{QuerySettings, Trace};
pub use feedback::FeedbackAgreement;
use feedback::feedback_agreement;
use place::{PlacementCounts, Placements};
use recover::Recovered;
pub use source::TracesSource;
use suspicion::{Suspect, SuspicionInput};

/// A traces source that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TracesError {
    /// The file is not a regular file, or cannot be opened.
    #[error("cannot read traces from {path}: {why}")]
    Open {
        /// The path given.
        path: String,
        /// Why.
        why: String,
    },
    /// What it holds is not traces.
    #[error("{path}: {error}")]
    Read {
        /// The path given.
        path: String,
        /// What the reader found.
        error: trace_read::TraceError,
    },
    /// A Phoenix server's project could not be read.
    #[error(transparent)]
    Phoenix(#[from] phoenix::PhoenixError),
    /// None of the documents the traces returned is in the corpus.
    #[error(
        "none of the documents {traces} returned is in this corpus: were they retrieved from other files?"
    )]
    NothingPlaced {
        /// The source, as messages name it.
        traces: String,
    },
    /// The recovered cuts could not be written where the chunker `given` reads them.
    #[error("cannot write the recovered cuts to {path}: {why}")]
    WriteCuts {
        /// The cuts file.
        path: String,
        /// Why.
        why: String,
    },
}

/// Read traces from a file (JSONL or one JSON document): a regular file, or a link to one.
pub fn read_file(path: &Path) -> Result<TraceRead, TracesError> {
    let shown = crate::text::safe_name(&path.display().to_string());
    let meta = std::fs::metadata(path).map_err(|e| TracesError::Open {
        path: shown.clone(),
        why: e.to_string(),
    })?;
    if !meta.is_file() {
        return Err(TracesError::Open {
            path: shown,
            why: "not a regular file (a folder, FIFO, socket or device is not read)".into(),
        });
    }
    let file = std::fs::File::open(path).map_err(|e| TracesError::Open {
        path: shown.clone(),
        why: e.to_string(),
    })?;
    trace_read::read(std::io::BufReader::with_capacity(1 << 20, file))
        .map_err(|error| TracesError::Read { path: shown, error })
}

/// A document the app sent, as the report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct SentDocument {
    /// The chunk of the recovered layout it is (none when it was not placed).
    pub chunk: Option<ChunkId>,
    /// Its document's path, when placed.
    pub doc: Option<String>,
    /// Its byte span, when placed.
    pub span: Option<Span>,
    /// The score the app's retriever (or reranker) gave.
    pub score: Option<f64>,
    /// Why it was not placed.
    pub not_placed: Option<String>,
}

/// One traced query, read against the cuts.
#[derive(Debug, Clone, Serialize)]
pub struct QueryVerdict {
    /// Its place in the traces (0-based, in the order read).
    pub index: usize,
    /// The question.
    pub question: String,
    /// The question id the app's metadata gave, if any.
    pub question_id: Option<String>,
    /// The trace and span.
    pub trace_id: String,
    /// The retriever span's id.
    pub span_id: String,
    /// What the app sent, in its order.
    pub sent: Vec<SentDocument>,
    /// The app's budget: the documents it sent.
    pub budget: usize,
    /// The replay's chunks-only context (a real chunks-only retrieval on the app's cuts).
    pub replay_without_seams: Vec<ChunkId>,
    /// The replay's context with Seams.
    pub replay_with_seams: Vec<ChunkId>,
    /// What Seams would add to what the app sent.
    pub seams_adds: Vec<ChunkId>,
    /// What the app sent that Seams' context would not hold.
    pub seams_displaces: Vec<ChunkId>,
    /// Tokens of the chunks Seams adds.
    pub tokens_added: u64,
    /// Seams fired in the replay's fill.
    pub fires: usize,
    /// The suspect cuts beside the sent chunks, best first.
    pub suspects: Vec<Suspect>,
    /// Its boundary-suspicion (0: none).
    pub suspicion: f64,
    /// Its place in the suspicion rank (1 = most suspect).
    pub rank: usize,
    /// Against gold, when a question set was given and names this question.
    pub gold: Option<GoldVerdict>,
    /// Feedback and annotations the trace carries on this retrieval (Phoenix span annotations,
    /// LangSmith feedback).
    pub feedback: Vec<Feedback>,
    /// What an overlapping splitter would have sent, when it was replayed.
    pub overlap: Option<overlap::OverlapSent>,
}

/// What gold says of a traced query (used only to score the rank, never in it).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GoldVerdict {
    /// The app's context misses some of the gold evidence.
    pub app_missed: bool,
    /// A cut of the app's layout splits the gold evidence.
    pub split: bool,
}

impl GoldVerdict {
    /// A miss that a cut caused: what the rank is meant to find.
    pub fn boundary_miss(&self) -> bool {
        self.app_missed && self.split
    }
}

/// Figures over all traced queries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TracesSummary {
    /// Retrieval steps read.
    pub queries: usize,
    /// Formats read, by name.
    pub formats: Vec<String>,
    /// Spans (runs, observations, events) read.
    pub spans: usize,
    /// Retrieval steps inside another of their trace (an ensemble's lists), read as part of it.
    pub nested_steps: usize,
    /// Problems in the source (not read), counted.
    pub problems: usize,
    /// How the documents were placed.
    pub placement: PlacementCounts,
    /// Chunks of the recovered layout, how many the app returned, and the cuts recovered
    /// between two returned chunks.
    pub layout_chunks: usize,
    /// Chunks the app returned somewhere in the traces.
    pub layout_chunks_seen: usize,
    /// Cuts recovered between two returned chunks that meet.
    pub recovered_cuts: usize,
    /// The share of queries where Seams' context differs from what the app sent.
    pub seams_changes: f64,
    /// The share of queries where Seams' replay differs from the replay without Seams (the
    /// part of the change that is Seams' own, not the replay's retrieval).
    pub seams_changes_replay: f64,
    /// The share of queries whose replay without Seams sent exactly what the app sent.
    pub replay_matches_app: f64,
    /// Chunks Seams adds per query (against what the app sent), on average.
    pub chunks_added_per_query: f64,
    /// Tokens of those chunks per query, on average.
    pub tokens_added_per_query: f64,
    /// Seams fired in the replay's fill, per query.
    pub fires_per_query: f64,
    /// The share of queries with a missing neighbour of a sent chunk ranking just past the
    /// budget (or inside it) in the replay.
    pub neighbour_just_missed: f64,
    /// The share of queries with any suspicion above 0.
    pub suspect_share: f64,
    /// m and the near window used.
    pub m: u32,
    /// Places past the budget counted as "just past" (0: each query's budget).
    pub near: usize,
    /// The searches the replay fused.
    pub search: Option<ReplaySearch>,
    /// The rank against gold, when gold was given.
    pub agreement: Option<Agreement>,
    /// The rank against each kind of feedback the traces carry.
    pub feedback: Vec<FeedbackAgreement>,
    /// Overlap's figures, when it was replayed.
    pub overlap: Option<overlap::OverlapSummary>,
}

/// The suspicion rank scored against gold.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// Traced queries matched to a gold question.
    pub matched: usize,
    /// Of them, misses whose evidence a cut splits.
    pub boundary_misses: usize,
    /// The share of boundary misses among the first 10 of the rank (of matched queries).
    pub precision_at_10: Option<f64>,
    /// The ROC AUC of the suspicion score against "a boundary miss".
    pub roc_auc: Option<f64>,
}

/// Everything `seamscope traces` reports.
#[derive(Debug, Clone, Serialize)]
pub struct TracesReport {
    /// The figures over all queries.
    pub summary: TracesSummary,
    /// Every query, in rank order (most suspect first).
    pub queries: Vec<QueryVerdict>,
}

/// Which searches the replay fuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplaySearch {
    /// Dense search alone, as a vector store's retriever runs (the default: the retriever
    /// most traced apps run, so the replay's chunks-only side can be what the app sent).
    Dense,
    /// seamscope's hybrid search: dense and BM25, fused.
    Hybrid,
}

/// `input` with only the searches `search` keeps: for [`ReplaySearch::Dense`], the dense list
/// of the Seams side and of the chunks-only side.
pub fn keep_searches(
    mut input: crate::retrieve::QueryInput,
    search: ReplaySearch,
) -> crate::retrieve::QueryInput {
    use crate::retrieve::{ListSource, RankingInput};
    if search == ReplaySearch::Hybrid {
        return input;
    }
    let dense = |r: &mut RankingInput| {
        if let RankingInput::Lists(lists) = r {
            lists.retain(|l| l.source == ListSource::Dense);
        }
    };
    dense(&mut input.ranking);
    if let Some(c) = input.chunks_only.as_mut() {
        dense(c);
    }
    input
}

/// Replay one question on `open` as `search` says (dense alone, or hybrid), under `settings`:
/// what every front end hands [`judge`] and [`judge_overlap`] as their `ask`.
pub fn replay(
    engine: &mut crate::session::Engine,
    open: &crate::session::OpenCorpus,
    question: &str,
    settings: &QuerySettings,
    search: ReplaySearch,
) -> Result<Trace, String> {
    let (input, _) = engine
        .search(open, question, settings, false)
        .map_err(|e| e.to_string())?;
    let input = keep_searches(input, search);
    open.with_lookups(|l| crate::retrieve::replan(&input, settings, l))
        .map_err(|e| e.to_string())
}

/// How to replay.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    /// The query settings (m, depth, c; the budget is each query's own unless `budget`).
    pub query: QuerySettings,
    /// A budget for every query instead of what each sent.
    pub budget: Option<usize>,
    /// Places past the budget counted as "just past" (`None`: the budget itself).
    pub near: Option<usize>,
    /// The searches the replay fuses.
    pub search: ReplaySearch,
}

/// The placement and recovered layout of a trace read (before any model is loaded).
pub struct Prepared {
    /// The traces.
    pub read: TraceRead,
    /// Every distinct document placed or not.
    pub placements: Placements,
    /// The app's layout.
    pub recovered: Recovered,
}

/// Place the documents of `read` in `corpus` and recover the app's layout.
pub fn prepare(read: TraceRead, corpus: &Corpus) -> Prepared {
    let placements = Placements::of(&read, corpus);
    let recovered = Recovered::from_spans(corpus, &placements.spans());
    Prepared {
        read,
        placements,
        recovered,
    }
}

/// The verdict of every traced query, `ask` replaying each question on the recovered layout
/// (`layout`, the one [`Prepared::recovered`] was written as), with the settings given.
pub fn judge(
    prepared: &Prepared,
    corpus: &Corpus,
    layout: &Layout,
    options: ReplayOptions,
    gold: Option<&[Question]>,
    mut ask: impl FnMut(&str, &QuerySettings) -> Result<Trace, String>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<TracesReport, String> {
    let chunk_at: HashMap<(DocId, usize, usize), ChunkId> = layout
        .chunks
        .iter()
        .map(|c| ((c.doc, c.span.start, c.span.end), c.id))
        .collect();
    let gold_by_id: HashMap<&str, &Question> = gold
        .unwrap_or_default()
        .iter()
        .map(|q| (q.id.as_str(), q))
        .collect();
    let total = prepared.read.queries.len();
    let mut verdicts = Vec::with_capacity(total);
    for (index, q) in prepared.read.queries.iter().enumerate() {
        progress(index, total);
        let sent = sent_documents(q, prepared, corpus, &chunk_at);
        let sent_chunks: Vec<ChunkId> = sent.iter().filter_map(|s| s.chunk).collect();
        let budget = options.budget.unwrap_or(q.sent().len()).max(1);
        let settings = QuerySettings {
            budget,
            ..options.query
        };
        let trace = ask(&q.question, &settings)?;
        let near = options.near.unwrap_or(budget);
        let (suspects, suspicion) = suspicion::suspects(&SuspicionInput {
            layout,
            sent: &sent_chunks,
            budget,
            trace: &trace,
            near,
        });
        let with_seams: Vec<ChunkId> = trace.context.iter().map(|c| c.chunk).collect();
        let without: Vec<ChunkId> = trace.without_seams.shown().without_seams.clone();
        let (seams_adds, seams_displaces, tokens_added) = seams_changes(&trace, &sent_chunks);
        let fires = trace.decisions_reached().filter(|(_, d)| d.fires).count();
        let gold = q
            .question_id
            .as_deref()
            .and_then(|id| gold_by_id.get(id))
            .map(|g| gold_verdict(g, &sent, layout, &corpus.doc(g.doc).text));
        verdicts.push(QueryVerdict {
            index,
            question: q.question.clone(),
            question_id: q.question_id.clone(),
            trace_id: q.trace_id.clone(),
            span_id: q.span_id.clone(),
            sent,
            budget,
            replay_without_seams: without,
            replay_with_seams: with_seams,
            seams_adds,
            seams_displaces,
            tokens_added,
            fires,
            suspects,
            suspicion,
            rank: 0,
            gold,
            feedback: q.feedback.clone(),
            overlap: None,
        });
    }
    progress(total, total);
    rank_by_suspicion(&mut verdicts);
    let summary = summarise(prepared, &verdicts, options);
    Ok(TracesReport {
        summary,
        queries: verdicts,
    })
}

/// Rank the verdicts: highest suspicion first; ties keep the traces' order (a stable sort).
fn rank_by_suspicion(verdicts: &mut [QueryVerdict]) {
    verdicts.sort_by(|a, b| b.suspicion.total_cmp(&a.suspicion));
    for (i, v) in verdicts.iter_mut().enumerate() {
        v.rank = i + 1;
    }
}

/// What the app sent for query `q`: each document placed in `corpus` (and matched to its chunk
/// of the recovered layout, by its span in `chunk_at`), or why it was not placed.
fn sent_documents(
    q: &TracedQuery,
    prepared: &Prepared,
    corpus: &Corpus,
    chunk_at: &HashMap<(DocId, usize, usize), ChunkId>,
) -> Vec<SentDocument> {
    q.sent()
        .iter()
        .map(|d| match prepared.placements.get(d) {
            Ok(p) => SentDocument {
                chunk: chunk_at.get(&(p.doc, p.span.start, p.span.end)).copied(),
                doc: Some(corpus.doc(p.doc).path.clone()),
                span: Some(p.span),
                score: d.score,
                not_placed: None,
            },
            Err(why) => SentDocument {
                chunk: None,
                doc: None,
                span: None,
                score: d.score,
                not_placed: Some(why),
            },
        })
        .collect()
}

/// What the replay with Seams changes in what the app sent: the chunks it adds, those it
/// displaces, and the tokens it adds.
fn seams_changes(trace: &Trace, sent_chunks: &[ChunkId]) -> (Vec<ChunkId>, Vec<ChunkId>, u64) {
    let with_seams: Vec<ChunkId> = trace.context.iter().map(|c| c.chunk).collect();
    let sent_set: HashSet<ChunkId> = sent_chunks.iter().copied().collect();
    let with_set: HashSet<ChunkId> = with_seams.iter().copied().collect();
    let seams_adds: Vec<ChunkId> = with_seams
        .iter()
        .copied()
        .filter(|c| !sent_set.contains(c))
        .collect();
    let seams_displaces: Vec<ChunkId> = sent_chunks
        .iter()
        .copied()
        .filter(|c| !with_set.contains(c))
        .collect();
    let tokens_added = trace
        .context
        .iter()
        .filter(|c| !sent_set.contains(&c.chunk))
        .map(|c| u64::from(c.tokens))
        .sum();
    (seams_adds, seams_displaces, tokens_added)
}

/// Replay every query of `report` chunks-only on `layout`, the app's layout with each chunk
/// reaching back `percent` of its length (written by [`overlap::write_cuts`] from `base`, so its
/// chunk ids are the app's), at each query's budget; fill in what overlap sent and its figures.
pub fn judge_overlap(
    report: &mut TracesReport,
    base: &Layout,
    layout: &Layout,
    percent: u32,
    query: QuerySettings,
    mut ask: impl FnMut(&str, &QuerySettings) -> Result<Trace, String>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), String> {
    if layout.chunks.len() != base.chunks.len() {
        return Err(format!(
            "the overlapping layout has {} chunks where the app's has {}",
            layout.chunks.len(),
            base.chunks.len()
        ));
    }
    let total = report.queries.len();
    for (i, v) in report.queries.iter_mut().enumerate() {
        progress(i, total);
        let settings = QuerySettings {
            budget: v.budget,
            ..query
        };
        let trace = ask(&v.question, &settings)?;
        let context = trace.without_seams.shown().without_seams.clone();
        v.overlap = Some(overlap::sent(layout, &context));
    }
    progress(total, total);
    let n = total.max(1) as f64;
    let changed = report
        .queries
        .iter()
        .filter(|v| {
            let sent: HashSet<ChunkId> = sent_ids(v).into_iter().collect();
            let over: HashSet<ChunkId> = v
                .overlap
                .as_ref()
                .map(|o| o.chunks.iter().copied().collect())
                .unwrap_or_default();
            sent != over
        })
        .count();
    let tokens: u64 = report
        .queries
        .iter()
        .filter_map(|v| v.overlap.as_ref().map(|o| o.tokens))
        .sum();
    let twice: u64 = report
        .queries
        .iter()
        .filter_map(|v| v.overlap.as_ref().map(|o| o.tokens_twice))
        .sum();
    report.summary.overlap = Some(overlap::OverlapSummary {
        percent,
        changes: changed as f64 / n,
        tokens_per_query: tokens as f64 / n,
        tokens_twice_per_query: twice as f64 / n,
        duplicate_share: if tokens == 0 {
            0.0
        } else {
            twice as f64 / tokens as f64
        },
    });
    Ok(())
}

/// What gold says of one traced query: did the app's context hold all of each evidence span,
/// and does a cut of the app's layout split one.
fn gold_verdict(
    gold: &Question,
    sent: &[SentDocument],
    layout: &Layout,
    text: &str,
) -> GoldVerdict {
    let doc_path_spans: Vec<Span> = sent
        .iter()
        .filter_map(|s| s.chunk)
        .filter_map(|c| layout.chunks.get(c.0 as usize))
        .filter(|c| c.doc == gold.doc)
        .map(|c| c.span)
        .collect();
    let covered = |span: &Span| covers(text, &doc_path_spans, *span);
    let app_missed = !gold.spans.iter().all(covered);
    let doc_chunks: Vec<Span> = layout
        .chunks
        .iter()
        .filter(|c| c.doc == gold.doc)
        .map(|c| c.span)
        .collect();
    let split = gold.spans.iter().any(|g| {
        let whole = doc_chunks
            .iter()
            .any(|c| c.start <= g.start && g.end <= c.end);
        let touched = doc_chunks
            .iter()
            .filter(|c| c.start < g.end && g.start < c.end)
            .count();
        !whole && touched >= 2
    });
    GoldVerdict { app_missed, split }
}

/// Whether the union of `spans` holds every byte of `target` that is not white space: a
/// splitter strips the white space between its chunks (LangChain's leaves the `\n\n` of a
/// paragraph break in no chunk), and evidence across such a gap is held whole by the two chunks.
fn covers(text: &str, spans: &[Span], target: Span) -> bool {
    let blank = |a: usize, b: usize| text.get(a..b).is_some_and(|t| t.trim().is_empty());
    let mut sorted: Vec<Span> = spans.to_vec();
    sorted.sort_by_key(|s| s.start);
    let mut at = target.start;
    for s in sorted {
        if s.end <= at {
            continue;
        }
        if s.start > at && !blank(at, s.start.min(target.end)) {
            return false;
        }
        at = at.max(s.end);
        if at >= target.end {
            return true;
        }
    }
    blank(at, target.end)
}

fn summarise(
    prepared: &Prepared,
    verdicts: &[QueryVerdict],
    options: ReplayOptions,
) -> TracesSummary {
    let n = verdicts.len().max(1) as f64;
    let share =
        |f: &dyn Fn(&QueryVerdict) -> bool| verdicts.iter().filter(|v| f(v)).count() as f64 / n;
    let same = |a: &[ChunkId], b: &[ChunkId]| {
        let a: HashSet<&ChunkId> = a.iter().collect();
        let b: HashSet<&ChunkId> = b.iter().collect();
        a == b
    };
    let matched: Vec<&QueryVerdict> = verdicts.iter().filter(|v| v.gold.is_some()).collect();
    let agreement = (!matched.is_empty()).then(|| {
        let labels: Vec<bool> = matched
            .iter()
            .map(|v| v.gold.is_some_and(|g| g.boundary_miss()))
            .collect();
        let scored: Vec<(f64, bool)> = matched
            .iter()
            .zip(&labels)
            .map(|(v, l)| (v.suspicion, *l))
            .collect();
        Agreement {
            matched: matched.len(),
            boundary_misses: labels.iter().filter(|l| **l).count(),
            precision_at_10: suspicion::precision_at(&labels, 10),
            roc_auc: suspicion::roc_auc(&scored),
        }
    });
    let feedback = feedback_agreement(verdicts);
    TracesSummary {
        feedback,
        queries: verdicts.len(),
        formats: prepared
            .read
            .formats()
            .iter()
            .map(|f| f.name().to_string())
            .collect(),
        spans: prepared.read.spans,
        nested_steps: prepared.read.nested_steps,
        problems: prepared.read.problem_count,
        placement: prepared.placements.counts(),
        layout_chunks: prepared.recovered.chunks.len(),
        layout_chunks_seen: prepared.recovered.seen(),
        recovered_cuts: prepared.recovered.recovered_cuts.len(),
        seams_changes: share(&|v| !same(&v.replay_with_seams, &sent_ids(v))),
        seams_changes_replay: share(&|v| !same(&v.replay_with_seams, &v.replay_without_seams)),
        replay_matches_app: share(&|v| same(&v.replay_without_seams, &sent_ids(v))),
        chunks_added_per_query: verdicts.iter().map(|v| v.seams_adds.len()).sum::<usize>() as f64
            / n,
        tokens_added_per_query: verdicts.iter().map(|v| v.tokens_added).sum::<u64>() as f64 / n,
        fires_per_query: verdicts.iter().map(|v| v.fires).sum::<usize>() as f64 / n,
        neighbour_just_missed: share(&|v| {
            v.suspects.iter().any(|s| {
                s.neighbour_rank
                    .is_some_and(|r| r <= v.budget + options.near.unwrap_or(v.budget))
            })
        }),
        suspect_share: share(&|v| v.suspicion > 0.0),
        m: options.query.m,
        near: options.near.unwrap_or(0),
        search: Some(options.search),
        agreement,
        overlap: None,
    }
}

fn sent_ids(v: &QueryVerdict) -> Vec<ChunkId> {
    v.sent.iter().filter_map(|s| s.chunk).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_covered_only_by_chunks_that_hold_all_of_it() {
        let text = "aaaaaaaaaabbbbbbbbbbcccccccccc";
        let spans = [Span::new(0, 10), Span::new(10, 20)];
        assert!(covers(text, &spans, Span::new(5, 15)));
        assert!(!covers(text, &spans, Span::new(5, 25)));
        assert!(!covers(
            text,
            &[Span::new(0, 10), Span::new(12, 20)],
            Span::new(5, 15)
        ));
        // A paragraph break between two chunks is in neither, and needs to be in neither.
        let text = "first para.\n\nsecond para.";
        let spans = [Span::new(0, 11), Span::new(13, 25)];
        assert!(covers(text, &spans, Span::new(6, 20)));
        assert!(!covers(text, &spans[..1], Span::new(6, 20)));
    }
}
