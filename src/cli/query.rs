//! `seamscope query`: one question through the whole pipeline, shown like the white paper's
//! worked example: fused ranking, fire test, budget fill, context beside "without Seams".

use std::path::Path;

use seamscope::chunk::ChunkId;
use seamscope::retrieve::{EntryRef, ListSource, QuerySettings, Trace};
use seamscope::session::report::QueryReport;
use seamscope::session::{OpenCorpus, QueryTimings};

use seamscope::settings::{BUDGET_RANGE, DEPTH_RANGE, M_RANGE, Settings};

use super::common::{BuildBar, start_engine};
use super::{GlobalArgs, LayoutArgs, UsageError, range_text, u32_in, usize_in};

/// Query options as typed; each is checked against its range by clap, so a value out of range
/// is a usage error (exit 2) naming the range, never a wrapped or truncated number.
#[derive(Debug, clap::Args, Clone, Default)]
pub struct QueryArgs {
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "PLACES",
        value_parser = u32_in(M_RANGE),
        help = format!("Fire margin: places a seam must lead both chunks by, {} (default {})", range_text(&M_RANGE), Settings::default().m),
    )]
    m: Option<u32>,
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "CHUNKS",
        value_parser = usize_in(BUDGET_RANGE),
        help = format!("Chunks in the final context, {} (default {})", range_text(&BUDGET_RANGE), Settings::default().budget),
    )]
    budget: Option<usize>,
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "N",
        value_parser = usize_in(DEPTH_RANGE),
        help = format!("Results kept per search list, {} (default {})", range_text(&DEPTH_RANGE), Settings::default().depth),
    )]
    depth: Option<usize>,
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "C",
        value_parser = rrf_constant,
        help = format!("Reciprocal rank fusion constant c, a finite number 0 or more (default {})", Settings::default().rrf_c),
    )]
    rrf_c: Option<f64>,
    /// Side drop: a fired seam whose one half scores below this cosine against the question (and
    /// the other not) brings only the other chunk. `--side-drop` alone uses 0.25; off by default.
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "0.25",
        value_name = "COSINE",
        value_parser = side_drop_threshold
    )]
    side_drop: Option<f32>,
    /// Rows of the fused ranking to print (default 20; the JSON always holds all).
    #[arg(long, default_value_t = 20, value_name = "ROWS")]
    show: usize,
}

/// Parse `--side-drop`: a cosine between -1 and 1.
fn side_drop_threshold(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(t) if (-1.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("{text} is not a cosine between -1 and 1")),
    }
}

/// Parse `--rrf-c`: a finite number, 0 or more.
fn rrf_constant(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(c) if c.is_finite() && c >= 0.0 => Ok(c),
        _ => Err(format!("{text} is not a finite number 0 or more")),
    }
}

impl QueryArgs {
    /// `--m`, when given.
    pub fn m_given(&self) -> Option<u32> {
        self.m
    }

    /// `--budget`, when given.
    pub fn budget_given(&self) -> Option<usize> {
        self.budget
    }

    pub fn apply(&self, s: &mut Settings) -> anyhow::Result<()> {
        if let Some(m) = self.m {
            s.m = m;
        }
        if let Some(b) = self.budget {
            s.budget = b;
        }
        if let Some(d) = self.depth {
            s.depth = d;
        }
        if let Some(c) = self.rrf_c {
            s.rrf_c = c;
        }
        if self.side_drop.is_some() {
            s.side_drop = self.side_drop;
        }
        s.validate().map_err(|e| UsageError(e.to_string()))?;
        Ok(())
    }
}

/// Run one question.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    question: &str,
    layout: &LayoutArgs,
    args: &QueryArgs,
    json: bool,
) -> anyhow::Result<()> {
    seamscope::session::check_question(question).map_err(|e| UsageError(e.to_string()))?;
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    args.apply(&mut settings)?;
    let mut engine = start_engine(settings.clone())?;
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_corpus(corpus, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    super::common::report_skips(&open.corpus);
    if !open.report.reopened && !json {
        errln!(
            "seamscope: indexed {} first ({} chunks, {} seams)",
            corpus.display(),
            open.layout.chunks.len(),
            open.layout.seams.len()
        );
    }
    let qs = settings.query_settings();
    let (trace, timings) = engine.ask(&open, question, &qs)?;
    if json {
        let mut report = QueryReport::new(&open, &trace, timings);
        if open.indexes.dense_ready() {
            // Embedded again (milliseconds) rather than threaded out of `ask`: the same text
            // through the same model gives the same vector, and the engine's API stays as it is.
            report = report.with_question_vector(engine.embed_question(question)?);
        }
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", render(&open, &trace, &qs, args.show, timings))?;
    }
    Ok(())
}

fn rank_cell(e: &seamscope::retrieve::FusedEntry, source: ListSource) -> String {
    e.rank_in(source)
        .map_or_else(|| "-".to_string(), |r| r.to_string())
}

fn chunk_list(ids: &[ChunkId]) -> String {
    if ids.is_empty() {
        return "none".into();
    }
    ids.iter()
        .map(|c| c.0.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The reranked plan, when a reranker ran: each place in the order the fill walks, with the
/// reranker's score of each judged chunk and the fired pairs that stayed pinned.
fn rerank_section(out: &mut String, open: &OpenCorpus, trace: &Trace, show: usize) {
    use seamscope::retrieve::{PlanItem, RerankInput, RerankStatus};
    use std::fmt::Write;
    let RerankStatus::Applied { reranker, .. } = trace.rerank_status() else {
        return;
    };
    let score = |c: ChunkId| match &trace.input.rerank {
        RerankInput::Scores(s) => s.score_of(c),
        _ => None,
    };
    let _ = writeln!(
        out,
        "\n2b. Rerank by {} ({} of {} places)",
        seamscope::text::safe_name(reranker),
        show.min(trace.plan.entries.len()),
        trace.plan.entries.len()
    );
    let _ = writeln!(
        out,
        "  {:>4} {:>5}  {:<44} {:>9}",
        "pos", "fused", "entry", "score"
    );
    for e in trace.plan.entries.iter().take(show) {
        let (label, note) = match e.item {
            PlanItem::FiredSeam {
                seam, left, right, ..
            } => (
                open.entry_label(EntryRef::Seam(seam)),
                format!(
                    "fired: chunks {} and {} pinned here, not sent",
                    left.0, right.0
                ),
            ),
            PlanItem::DroppedSeam { seam } => (
                open.entry_label(EntryRef::Seam(seam)),
                "dropped".to_string(),
            ),
            PlanItem::Chunk { chunk, .. } => (
                open.entry_label(EntryRef::Chunk(chunk)),
                score(chunk).map_or_else(|| "not judged".to_string(), |s| format!("{s:>9.4}")),
            ),
        };
        let _ = writeln!(
            out,
            "  {:>4} {:>5}  {:<44} {}",
            e.position,
            format!("#{}", e.fused_position),
            truncate(&label, 44),
            note
        );
    }
}

/// The text report, in the shape of the white paper's worked example.
pub fn render(
    open: &OpenCorpus,
    trace: &Trace,
    qs: &QuerySettings,
    show: usize,
    t: QueryTimings,
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    header_lines(&mut out, open, trace, qs);
    fused_section(&mut out, open, trace, show);
    fire_section(&mut out, open, trace, qs.m);
    rerank_section(&mut out, open, trace, show);
    fill_section(&mut out, open, trace);
    context_section(&mut out, open, trace);
    let _ = writeln!(
        out,
        "\ntime      embed question {:.1} ms, search {:.1} ms, fuse to context {:.3} ms",
        t.embed * 1e3,
        t.search * 1e3,
        t.stages * 1e3
    );
    out
}

/// The question and the settings it ran under, the reranker among them.
fn header_lines(out: &mut String, open: &OpenCorpus, trace: &Trace, qs: &QuerySettings) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "question  {}",
        seamscope::text::safe_name(trace.question())
    );
    let _ = writeln!(
        out,
        "settings  k = {}, m = {}, budget {}, depth {}, c = {}; dense search {}; reranker: {}",
        qs.k,
        qs.m,
        qs.budget,
        qs.depth,
        qs.rrf_c,
        open.indexes.dense_search(),
        match trace.rerank_status() {
            seamscope::retrieve::RerankStatus::NotConfigured =>
                "none configured (stage skipped)".to_string(),
            seamscope::retrieve::RerankStatus::Applied {
                reranker,
                candidates,
                unscored,
            } => format!(
                "{reranker} rescored {candidates} chunks (fired pairs pinned){}",
                if unscored.is_empty() {
                    String::new()
                } else {
                    format!(", {} unscored", unscored.len())
                }
            ),
            seamscope::retrieve::RerankStatus::Failed { reranker, error } => {
                format!("{reranker} failed ({error}); fused order kept")
            }
        }
    );
}

/// 1. The fused ranking: each entry's rank in every list, its RRF score, seams marked.
fn fused_section(out: &mut String, open: &OpenCorpus, trace: &Trace, show: usize) {
    use std::fmt::Write;
    let fired: std::collections::HashMap<_, _> =
        trace.decisions.iter().map(|d| (d.seam, d.fires)).collect();

    let _ = writeln!(
        out,
        "\n1. Fused ranking ({} of {} entries)",
        show.min(trace.fused.len()),
        trace.fused.len()
    );
    let _ = writeln!(
        out,
        "  {:>4}  {:<44} {:<5} {:>6} {:>7} {:>6}  {:>8}",
        "pos", "entry", "kind", "dense", "bm25-ch", "bm25-s", "rrf"
    );
    for (i, e) in trace.fused.iter().take(show).enumerate() {
        let (kind, mark) = match e.entry {
            EntryRef::Chunk(_) => ("chunk", ""),
            EntryRef::Seam(s) => (
                "seam",
                if fired.get(&s).copied().unwrap_or(false) {
                    "  fires"
                } else {
                    "  dropped"
                },
            ),
        };
        let _ = writeln!(
            out,
            "  {:>4}  {:<44} {:<5} {:>6} {:>7} {:>6}  {:>8.5}{}",
            i + 1,
            truncate(&open.entry_label(e.entry), 44),
            kind,
            rank_cell(e, ListSource::Dense),
            rank_cell(e, ListSource::KeywordChunks),
            rank_cell(e, ListSource::KeywordSeams),
            e.score,
            mark
        );
    }
}

/// 2. The fire test of every seam the fill reached, and the first few beyond it.
fn fire_section(out: &mut String, open: &OpenCorpus, trace: &Trace, m: u32) {
    use std::fmt::Write;
    let _ = writeln!(out, "\n2. Fire test (m = {})", m);
    let reached: Vec<_> = trace.fill.steps.iter().map(|s| s.entry).collect();
    let mut shown = 0;
    for d in &trace.decisions {
        // Show every seam the budget fill reached, and the first few beyond it.
        let in_fill = reached.contains(&EntryRef::Seam(d.seam));
        if !in_fill && shown >= 8 {
            continue;
        }
        shown += 1;
        let _ = writeln!(
            out,
            "  {} at {}: {}{}",
            open.seam_label(d.seam),
            d.seam_position,
            d.arithmetic(),
            if d.fired_on_absence {
                "  (passed only because a linked chunk is absent)"
            } else {
                ""
            }
        );
        if let Some(drop) = trace.side_drops.iter().find(|s| s.seam == d.seam) {
            let _ = writeln!(out, "      side drop: {}", drop.reason());
        }
    }
    let rest = trace.decisions.len().saturating_sub(shown);
    if rest > 0 {
        let _ = writeln!(
            out,
            "  ... {rest} more seams deeper in the ranking (see --json)"
        );
    }
    if trace.decisions.is_empty() {
        let _ = writeln!(out, "  no seam in the ranking");
    }
}

/// 3. The budget fill, step by step.
fn fill_section(out: &mut String, open: &OpenCorpus, trace: &Trace) {
    use std::fmt::Write;
    let _ = writeln!(out, "\n3. Budget fill ({} slots)", trace.fill.budget);
    for step in &trace.fill.steps {
        let _ = writeln!(
            out,
            "  {:>4}  {:<44} {:<48} {} of {}",
            step.position,
            truncate(&open.entry_label(step.entry), 44),
            step.action.describe(),
            step.slots_used_after,
            trace.fill.budget
        );
    }
    if trace.fill.steps.is_empty() {
        let _ = writeln!(out, "  budget 0: nothing is sent");
    }
}

/// 4. The context with Seams, and without them when a chunks-only retrieval ran.
fn context_section(out: &mut String, open: &OpenCorpus, trace: &Trace) {
    use std::fmt::Write;
    let _ = writeln!(out, "\n4. Context");
    let _ = writeln!(
        out,
        "  with Seams      chunks {} ({} tokens)",
        chunk_list(&trace.fill.chunks),
        trace.tokens_sent
    );
    if let Some(run) = &trace.without_seams.retrieval {
        let tokens: u64 = run
            .fill
            .chunks
            .iter()
            .map(|c| u64::from(open.layout.chunk(*c).tokens))
            .sum();
        let _ = writeln!(
            out,
            "  without Seams   chunks {} ({} tokens; a real chunks-only retrieval)",
            chunk_list(&run.fill.chunks),
            tokens
        );
        let c = &run.comparison;
        if c.added.is_empty() && c.displaced.is_empty() {
            let _ = writeln!(out, "  differ          no: the same chunks");
        } else {
            let _ = writeln!(
                out,
                "  differ          Seams adds {}; displaces {}",
                chunk_list(&c.added),
                chunk_list(&c.displaced)
            );
        }
    }
    for c in &trace.fill.chunks {
        let _ = writeln!(out, "    {}", open.chunk_label(*c));
    }
}

fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width - 1).collect();
        t.push('…');
        t
    }
}
