//! `seamscope traces CORPUS --traces SOURCE`: an application's production traces read against
//! the cuts: every returned document placed, the app's cuts recovered, each question replayed on
//! them at the app's budget, and the queries ranked by how likely a cut caused a miss.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use seamscope::chunk::ChunkerKind;
use seamscope::settings::{M_RANGE, Settings};
use seamscope::text::{safe, safe_name};
use seamscope::traces::{ReplayOptions, ReplaySearch, TracesReport, TracesSource};

use super::common::{BuildBar, report_skips, start_engine};
use super::{GlobalArgs, UsageError, range_text, u32_in, usize_in};

/// Options of `traces`.
#[derive(Debug, clap::Args, Clone)]
pub struct TracesArgs {
    /// The traces: a file of OTLP JSON (one request per line, as a collector's file exporter
    /// writes, or one document), JSONL of OpenInference spans, LangSmith runs, Langfuse
    /// observations or LangChain astream_events; the format is detected.
    /// Or `phoenix:http://HOST:PORT` with `--project NAME`: a live Phoenix server's spans,
    /// through its REST API (the key, if it wants one, from PHOENIX_API_KEY).
    #[arg(long, value_name = "SOURCE")]
    traces: String,
    /// The Phoenix project to read (with `--traces phoenix:URL`).
    #[arg(long, value_name = "NAME")]
    project: Option<String>,
    /// A gold question set (ids matching the traces' `question_id` metadata): used only to
    /// score the suspicion rank (precision at 10, ROC AUC), never in it.
    #[arg(long, value_name = "FILE", value_parser = super::args::non_empty_path)]
    questions: Option<PathBuf>,
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "PLACES",
        value_parser = u32_in(M_RANGE),
        help = format!("Fire margin of the replay, {} (default from settings, {})", range_text(&M_RANGE), Settings::default().m),
    )]
    m: Option<u32>,
    /// Your splitter's chunks as a cuts file (what `--cuts` reads: LangChain `Document`s,
    /// LlamaIndex nodes or plain records): the replay runs on them instead of the cuts
    /// recovered from the traces.
    #[arg(long, value_name = "FILE", value_parser = super::args::non_empty_path)]
    cuts: Option<PathBuf>,
    /// Replay every query at this budget instead of the number of documents its app sent.
    #[arg(long, value_name = "CHUNKS", value_parser = usize_in(1..=1000))]
    budget: Option<usize>,
    /// Places past the budget at which a missing neighbour counts as just missed (default: the
    /// budget itself).
    #[arg(long, value_name = "PLACES", value_parser = usize_in(0..=1000))]
    near: Option<usize>,
    /// Also replay an overlapping splitter: each of the app's chunks reaching back this
    /// percentage of its length (0: not replayed), for its cost on your questions: tokens sent,
    /// and sent twice.
    #[arg(long, default_value_t = 15, value_name = "PERCENT", value_parser = u32_in(0..=90))]
    overlap: u32,
    /// The searches the replay fuses: `dense` (a vector store's retriever, as most apps run)
    /// or `hybrid` (seamscope's dense and BM25, fused).
    #[arg(long, value_enum, default_value = "dense")]
    search: SearchArg,
    /// Queries listed, most suspect first.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = usize_in(1..=100_000))]
    top: usize,
}

/// `--search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SearchArg {
    Dense,
    Hybrid,
}

/// Run `traces`.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    args: &TracesArgs,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    if let Some(m) = args.m {
        settings.m = m;
    }
    settings.validate().map_err(|e| UsageError(e.to_string()))?;
    let docs =
        seamscope::corpus::Corpus::load(corpus, &seamscope::places::load_options(&settings))?;
    report_skips(&docs);
    let read = read_source(&args.traces, args.project.as_deref())?;
    if !json {
        announce_read(args, &read);
    }
    let prepared = seamscope::traces::prepare(read, &docs);
    let cuts = match &args.cuts {
        Some(file) => file.clone(),
        None => prepared
            .write_recovered_cuts(&docs, &seamscope::places::Places::of(&settings).cache_dir)?,
    };
    settings.chunker = ChunkerKind::Given;
    settings.cuts_file = Some(cuts);
    settings.documents_file = None;
    let mut engine = start_engine(settings.clone())?;
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_loaded(docs, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let gold = match &args.questions {
        Some(path) => Some(load_gold(path, &open.corpus)?),
        None => None,
    };
    let options = replay_options(&settings, args);
    let search = options.search;
    let total = prepared.read.queries.len();
    let progress = indicatif::ProgressBar::new(total as u64);
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut report = seamscope::traces::judge(
        &prepared,
        &open.corpus,
        &open.layout,
        options,
        gold.as_deref(),
        |question, qs| seamscope::traces::replay(&mut engine, &open, question, qs, search),
        &mut |done, _| progress.set_position(done as u64),
    )
    .map_err(anyhow::Error::msg)?;
    progress.finish_and_clear();
    if args.overlap > 0 {
        replay_overlap(
            &mut engine,
            &open,
            &settings,
            args.overlap,
            search,
            &mut report,
        )?;
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!(
            "{}",
            render(&report, &open.layout, args.top, args.cuts.is_some())
        )?;
    }
    Ok(())
}

/// What was read from the traces, on stderr: retrieval steps, spans, formats, nested steps and
/// records not read.
fn announce_read(args: &TracesArgs, read: &seamscope::traces::TraceRead) {
    errln!(
        "seamscope: {}: {} retrieval steps in {} spans ({}){}{}",
        safe_name(&source_label(args)),
        read.queries.len(),
        read.spans,
        read.formats()
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", "),
        match read.nested_steps {
            0 => String::new(),
            n => format!(
                "; {n} retrieval steps inside another (an ensemble's lists) read as part of it"
            ),
        },
        match read.problem_count {
            0 => String::new(),
            n => format!("; {n} records not read (--json lists them)"),
        }
    );
}

/// The replay's options: the query settings, and the budget, "near" and search `args` give.
fn replay_options(settings: &Settings, args: &TracesArgs) -> ReplayOptions {
    ReplayOptions {
        query: settings.query_settings(),
        budget: args.budget,
        near: args.near,
        search: match args.search {
            SearchArg::Dense => ReplaySearch::Dense,
            SearchArg::Hybrid => ReplaySearch::Hybrid,
        },
    }
}

/// Replay every query on the app's layout with each chunk reaching back `percent` of its length.
fn replay_overlap(
    engine: &mut seamscope::session::Engine,
    open: &seamscope::session::OpenCorpus,
    settings: &Settings,
    percent: u32,
    search: ReplaySearch,
    report: &mut TracesReport,
) -> anyhow::Result<()> {
    let cache_dir = seamscope::places::Places::of(settings).cache_dir;
    let cuts =
        seamscope::traces::overlap::write_cuts(&open.layout, &open.corpus, percent, &cache_dir)
            .map_err(|e| anyhow::anyhow!("cannot write the overlapping cuts: {e}"))?;
    let overlap_settings = Settings {
        cuts_file: Some(cuts),
        ..settings.clone()
    };
    let layout = seamscope::layout::Layout::for_settings_stored(
        &open.corpus,
        &engine.tokenizer,
        &overlap_settings,
        &cache_dir,
    )?;
    let mut bar = BuildBar::for_engine(engine);
    let over = engine.index_layout(open.corpus.clone(), layout, &mut |p| bar.update(p));
    bar.finish();
    let over = over?;
    seamscope::traces::judge_overlap(
        report,
        &open.layout,
        &over.layout,
        percent,
        settings.query_settings(),
        |question, qs| seamscope::traces::replay(engine, &over, question, qs, search),
        &mut |_, _| {},
    )
    .map_err(anyhow::Error::msg)
}

/// The traces `--traces` (and `--project`) name: a file, or a Phoenix server's project
/// (`traces` and `tune --traces` read them).
pub(super) fn read_source(
    traces: &str,
    project: Option<&str>,
) -> anyhow::Result<seamscope::traces::TraceRead> {
    let source = TracesSource::parse(traces, project).map_err(UsageError)?;
    let bar = indicatif::ProgressBar::new_spinner();
    if !std::io::IsTerminal::is_terminal(&std::io::stderr())
        || !matches!(source, TracesSource::Phoenix { .. })
    {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let read = source.read(&mut |n| bar.set_message(format!("{n} spans read from Phoenix")));
    bar.finish_and_clear();
    Ok(read?)
}

/// The source as the messages name it.
fn source_label(args: &TracesArgs) -> String {
    match (&args.traces.strip_prefix("phoenix:"), &args.project) {
        (Some(_), Some(project)) => format!("Phoenix project {project}"),
        _ => args.traces.clone(),
    }
}

fn load_gold(
    path: &Path,
    corpus: &seamscope::corpus::Corpus,
) -> anyhow::Result<Vec<seamscope::eval::questions::Question>> {
    match seamscope::eval::questions::load_question_set(path, corpus) {
        Ok((questions, _)) => Ok(questions),
        Err(errors) => {
            let first: Vec<String> = errors.iter().take(3).map(|e| e.to_string()).collect();
            anyhow::bail!(
                "the question set {} does not load ({} problems; first: {})",
                safe_name(&path.display().to_string()),
                errors.len(),
                first.join("; ")
            )
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// The report as text: how the traces were placed and replayed, the queries worth reading
/// first, and the figures over all queries.
fn render(
    report: &TracesReport,
    layout: &seamscope::layout::Layout,
    top: usize,
    given_cuts: bool,
) -> String {
    let mut out = String::new();
    render_setup(&mut out, &report.summary, layout, given_cuts);
    let _ = writeln!(out);
    render_queries(&mut out, report, top);
    let _ = writeln!(out);
    render_over_all(&mut out, &report.summary);
    out
}

/// The report's first lines: the documents placed (and a few not), the layout, the replay.
fn render_setup(
    out: &mut String,
    s: &seamscope::traces::TracesSummary,
    layout: &seamscope::layout::Layout,
    given_cuts: bool,
) {
    let p = &s.placement;
    let placed = p.distinct - p.not_placed;
    let _ = writeln!(
        out,
        "placed    {placed} of {} distinct documents returned ({} by metadata, {} by exact text, {} by words, {} fuzzy){}",
        p.distinct,
        p.by_metadata,
        p.by_exact_text,
        p.by_words,
        p.fuzzy,
        if p.not_placed > 0 {
            format!("; {} not placed (--json says why)", p.not_placed)
        } else {
            String::new()
        }
    );
    for n in p.not_placed_examples.iter().take(3) {
        let _ = writeln!(
            out,
            "            not placed: {}\"{}…\": {}",
            n.source
                .as_deref()
                .map(|s| format!("{} ", safe_name(s)))
                .unwrap_or_default(),
            safe(&n.starts),
            safe(&n.why)
        );
    }
    if given_cuts {
        let _ = writeln!(
            out,
            "layout    your cuts file: {} chunks ({}); the traces returned {} of them",
            layout.chunks.len(),
            layout.chunker,
            s.layout_chunks_seen
        );
    } else {
        let _ = writeln!(
            out,
            "layout    the app's cuts: {} chunks, {} returned in the traces, {} cuts recovered between returned chunks (the rest inferred; {})",
            s.layout_chunks, s.layout_chunks_seen, s.recovered_cuts, layout.chunker
        );
    }
    let _ = writeln!(
        out,
        "replay    {} search, m = {}, each query at its app's budget; the replay without Seams sent exactly what the app sent in {}",
        match s.search {
            Some(ReplaySearch::Hybrid) => "hybrid",
            _ => "dense",
        },
        s.m,
        pct(s.replay_matches_app)
    );
}

/// The queries worth reading first, the `top` most suspect.
fn render_queries(out: &mut String, report: &TracesReport, top: usize) {
    let _ = writeln!(
        out,
        "Queries worth reading first (boundary-suspicion, highest first; gold not used)"
    );
    let _ = writeln!(out, "  rank  id        suspicion  why");
    for v in report.queries.iter().take(top) {
        let id = v.question_id.as_deref().unwrap_or("-");
        let _ = writeln!(
            out,
            "  {:>4}  {:<8}  {:>9.2}  {}",
            v.rank,
            safe_name(id),
            v.suspicion,
            v.why()
        );
        let _ = writeln!(
            out,
            "                            {}",
            safe(&shorten(&v.question, 90))
        );
    }
}

/// The figures over all queries: what Seams would change, fires, overlap, and agreement with
/// gold and with the traces' feedback.
fn render_over_all(out: &mut String, s: &seamscope::traces::TracesSummary) {
    let _ = writeln!(out, "Over all {} queries", s.queries);
    let _ = writeln!(
        out,
        "  Seams would change what the app sent in {} ({} against the replay without Seams); it adds {:.2} chunks and {:.0} tokens per query",
        pct(s.seams_changes),
        pct(s.seams_changes_replay),
        s.chunks_added_per_query,
        s.tokens_added_per_query
    );
    let _ = writeln!(
        out,
        "  fires {:.2} per query; a missing neighbour just past the budget in {}; any suspicion in {}",
        s.fires_per_query,
        pct(s.neighbour_just_missed),
        pct(s.suspect_share)
    );
    if let Some(o) = &s.overlap {
        let _ = writeln!(
            out,
            "  overlap {}% instead would change what the app sent in {}; it sends {:.0} tokens per query, {:.0} of them twice ({:.1}%)",
            o.percent,
            pct(o.changes),
            o.tokens_per_query,
            o.tokens_twice_per_query,
            100.0 * o.duplicate_share
        );
    }
    if let Some(a) = &s.agreement {
        let _ = writeln!(
            out,
            "  against gold (held out of the rank): {} queries matched, {} misses whose evidence a cut splits; precision at 10 {}, ROC AUC {}",
            a.matched,
            a.boundary_misses,
            a.precision_at_10.map_or("-".into(), |x| format!("{x:.2}")),
            a.roc_auc.map_or("-".into(), |x| format!("{x:.2}"))
        );
    }
    for f in &s.feedback {
        let _ = writeln!(
            out,
            "  against the traces' feedback {}: {} queries scored, {} at its lowest score ({}); precision at 10 {}, ROC AUC {}",
            seamscope::text::safe_name(&f.name),
            f.scored,
            f.lowest,
            f.lowest_score,
            f.precision_at_10.map_or("-".into(), |x| format!("{x:.2}")),
            f.roc_auc.map_or("-".into(), |x| format!("{x:.2}"))
        );
    }
}

fn shorten(text: &str, n: usize) -> String {
    let mut s: String = text.chars().take(n).collect();
    if text.chars().count() > n {
        s.push('…');
    }
    s
}
