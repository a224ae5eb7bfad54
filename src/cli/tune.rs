//! `seamscope tune`: a grid over chunk size × k × m × budget, ranked by failure rate, with tokens
//! sent and vectors as costs and the Pareto rows marked.

use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

use seamscope::layout::Layout;
use seamscope::tune::{
    TuneGrid, TuneProgress, TuneReport, TuneRow, gold_questions, passage_questions, tune,
};

use super::common::start_engine;
use super::tune_args::{TuneArgs, check_range};
use super::{GlobalArgs, UsageError};

/// Run the grid and print the ranked table (or JSON); `--strategies` and `--map` run the board
/// and the evidence-length map instead.
pub fn run(global: &GlobalArgs, corpus: &Path, args: &TuneArgs, json: bool) -> anyhow::Result<()> {
    if args.constraints().any() && args.strategies.is_none() && !args.map {
        return Err(UsageError(
            "--once, --max-vectors and --max-duplicate-share constrain the strategy board and the map: give --strategies all (or --map)".into(),
        )
        .into());
    }
    if args.per_question && !json {
        return Err(UsageError(
            "--per-question adds to the board's JSON: give --json as well".into(),
        )
        .into());
    }
    if args.strategies.is_some() || args.map {
        if args.traces.is_some() {
            return Err(UsageError(
                "--traces measures the grid's costs on your traced questions: leave out --strategies and --map (`seamscope traces` reads them against one layout)".into(),
            )
            .into());
        }
        return run_board_or_map(global, corpus, args, json);
    }
    let (settings, grid) = grid_of(global, args)?;
    let started = Instant::now();
    let mut engine = start_engine(settings.clone())?;
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let (questions, source) = questions_of(&engine, &docs, corpus, &settings, args, json)?;
    anyhow::ensure!(
        !questions.is_empty(),
        "no question to score (the corpus gave no passages)"
    );
    let traced = traced_questions(args)?;
    let traced_source = args
        .traces
        .as_deref()
        .map(|t| match (t.strip_prefix("phoenix:"), &args.project) {
            (Some(_), Some(p)) => format!("Phoenix project {}", seamscope::text::safe_name(p)),
            _ => seamscope::text::safe_name(t),
        })
        .unwrap_or_default();
    let traced = traced.as_ref().map(|qs| seamscope::tune::TracedQuestions {
        questions: qs,
        source: &traced_source,
    });
    let mut last = Instant::now();
    let report = tune(
        &mut engine,
        &docs,
        &questions,
        traced.as_ref(),
        &grid,
        &source,
        &mut |p| {
            if !json && last.elapsed().as_millis() >= 2000 {
                last = Instant::now();
                report_progress(p);
            }
            true
        },
    )?
    .ok_or_else(|| anyhow::anyhow!("tuning stopped early"))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!(
            "{}",
            render(&report, args.top, started.elapsed().as_secs_f64())
        )?;
    }
    Ok(())
}

/// `--strategies` or `--map`: one chunk size at one budget, run by `board.rs`.
fn run_board_or_map(
    global: &GlobalArgs,
    corpus: &Path,
    args: &TuneArgs,
    json: bool,
) -> anyhow::Result<()> {
    if args.chunk_sizes.len() > 1 || args.budgets.len() > 1 {
        return Err(UsageError(
            "--strategies and --map score one chunk size at one budget: give at most one --chunk-tokens and one --budget".into(),
        )
        .into());
    }
    if args.map {
        super::board::run_map(global, corpus, args, json)
    } else {
        super::board::run_board(global, corpus, args, json)
    }
}

/// The settings the grid starts from and the grid itself (the settings' size and budget when
/// none is given, k 100, 150 and 200), checked.
fn grid_of(
    global: &GlobalArgs,
    args: &TuneArgs,
) -> anyhow::Result<(seamscope::settings::Settings, TuneGrid)> {
    let mut settings = global.settings()?;
    if let Some(c) = args.chunker {
        settings.chunker = c.into();
    }
    let or = |given: &[usize], default: Vec<usize>| {
        if given.is_empty() {
            default
        } else {
            given.to_vec()
        }
    };
    let ks = or(&args.ks, vec![100, 150, 200]);
    let budgets = or(&args.budgets, vec![settings.budget]);
    let sizes = or(&args.chunk_sizes, vec![settings.chunk_tokens]);
    check_range(&ks, "--k", seamscope::settings::K_RANGE)?;
    // The range settings take (a board or a single run takes 5000 as well).
    check_range(
        &budgets,
        "--budget",
        1..=*seamscope::settings::BUDGET_RANGE.end(),
    )?;
    check_range(&sizes, "--chunk-tokens", 16..=1_000_000)?;
    settings.validate().map_err(|e| UsageError(e.to_string()))?;
    let grid = TuneGrid {
        chunk_tokens: dedup(sizes),
        ks: dedup(ks),
        ms: args.ms.clone(),
        budgets: dedup(budgets),
        side_drops: args.side_drops.clone(),
    };
    Ok((settings, grid))
}

/// The questions the grid is scored on: the gold set given, or passages drawn from the corpus
/// (saying so when the corpus has a gold set that could be used instead).
fn questions_of(
    engine: &seamscope::session::Engine,
    docs: &seamscope::corpus::Corpus,
    corpus: &Path,
    settings: &seamscope::settings::Settings,
    args: &TuneArgs,
    json: bool,
) -> anyhow::Result<(Vec<seamscope::tune::TuneQuestion>, String)> {
    if let Some(path) = &args.questions {
        let qs = super::common::load_question_file(path, docs)?;
        return Ok(gold_questions(&path.display().to_string(), &qs));
    }
    let layout = Layout::for_settings(docs, &engine.tokenizer, settings)?;
    let drawn = passage_questions(docs, &layout, args.passages, args.seed);
    let set = seamscope::corpus::questions_path(corpus);
    if !json && set.is_file() {
        errln!(
            "tune: {} has a question set; --questions {} scores on its gold evidence instead",
            corpus.display(),
            set.display()
        );
    }
    Ok(drawn)
}

/// The questions of the traces `--traces` names (`None` without it); an error when they hold
/// no retrieval step.
fn traced_questions(args: &TuneArgs) -> anyhow::Result<Option<Vec<seamscope::tune::TuneQuestion>>> {
    let Some(traces) = &args.traces else {
        return Ok(None);
    };
    let read = super::traces::read_source(traces, args.project.as_deref())?;
    anyhow::ensure!(
        !read.queries.is_empty(),
        "{}: no retrieval step with a question in these traces (nothing to measure the grid on)",
        seamscope::text::safe_name(traces)
    );
    Ok(Some(
        read.queries
            .iter()
            .map(|q| seamscope::tune::TuneQuestion::traced(&q.question))
            .collect(),
    ))
}

/// A progress line on stderr.
fn report_progress(p: TuneProgress) {
    match p {
        TuneProgress::Opening {
            chunk_tokens,
            k,
            build,
        } => {
            errln!("tune: chunk {chunk_tokens}, k {k}: indexing ({build:?})")
        }
        TuneProgress::Searching {
            chunk_tokens,
            k,
            done,
            total,
        } => {
            errln!("tune: chunk {chunk_tokens}, k {k}: searched {done} of {total} questions")
        }
    }
}

fn dedup(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

fn row_line(r: &TuneRow, traced: bool) -> String {
    let (k, m) = match (r.k, r.m) {
        (Some(k), Some(m)) => (k.to_string(), m.to_string()),
        _ => ("-".to_string(), "off".to_string()),
    };
    let side = r
        .side_drop
        .map_or_else(|| "-".to_string(), |t| format!("{t:.2}"));
    let on_traces = match (traced, r.traced) {
        (true, Some(t)) => format!(" {:>7.0} {:>6.2}", t.mean_tokens, t.fires_per_query),
        (true, None) => format!(" {:>7} {:>6}", "-", "-"),
        (false, _) => String::new(),
    };
    format!(
        "  {:>6} {:>5} {:>4} {:>5} {:>6} {:>6.1}% [{:>4.1}–{:>4.1}] {:>7.0} {:>7} {:>6.2} {:>6.2} {:>6.2}{on_traces}  {}",
        r.chunk_tokens,
        k,
        m,
        side,
        r.budget,
        r.failure_rate * 100.0,
        r.interval.low * 100.0,
        r.interval.high * 100.0,
        r.mean_tokens,
        r.vectors,
        r.fires_per_question,
        r.false_fires_per_question,
        r.wasted_fires_per_question,
        if r.pareto { "◆ Pareto" } else { "" }
    )
    .trim_end()
    .to_string()
}

/// The ranked table: the top rows, then any Pareto rows below them, then what each layout cost.
pub fn render(r: &TuneReport, top: usize, seconds: f64) -> String {
    let mut out = String::new();
    render_preamble(&mut out, r, seconds);
    let _ = writeln!(out);
    render_rows(&mut out, r, top);
    render_best_and_layouts(&mut out, r);
    out
}

/// What was tuned on (the grid, the embedder, the order; the traces, if any).
fn render_preamble(out: &mut String, r: &TuneReport, seconds: f64) {
    let _ = writeln!(
        out,
        "tuning on {}: {} grid points (chunk sizes {:?} × k {:?} × {} margins × budgets {:?}) plus Seams off, in {:.1}s",
        r.source,
        r.grid.points(),
        r.grid.chunk_tokens,
        r.grid.ks,
        r.grid.ms.len(),
        r.grid.budgets,
        seconds
    );
    if let Some(e) = &r.embedder {
        let _ = writeln!(out, "embedder: {}", seamscope::text::safe_name(e));
    }
    let _ = writeln!(
        out,
        "ranked by failure rate (the context misses part of the evidence), then tokens, then vectors"
    );
    if let Some((source, queries)) = &r.traced {
        let _ = writeln!(
            out,
            "your traces: {queries} queries from {source}; \"yours\" and \"fires\" after it are each row's tokens sent and fires per traced query (traces carry no gold: no failure rate there)"
        );
    }
}

/// The table's head, its `top` rows, the Pareto rows below them, and how many more there are.
fn render_rows(out: &mut String, r: &TuneReport, top: usize) {
    let traced = r.traced.is_some();
    let _ = writeln!(
        out,
        "  {:>6} {:>5} {:>4} {:>5} {:>6} {:>7} {:<11} {:>7} {:>7} {:>6} {:>6} {:>6}{}",
        "chunk",
        "k",
        "m",
        "side",
        "budget",
        "fail",
        "95% int.",
        "tokens",
        "vectors",
        "fires",
        "false",
        "waste",
        if traced {
            format!(" {:>7} {:>6}", "yours", "fires")
        } else {
            String::new()
        }
    );
    for row in r.rows.iter().take(top) {
        let _ = writeln!(out, "{}", row_line(row, traced));
    }
    let more: Vec<&TuneRow> = r.rows.iter().skip(top).filter(|x| x.pareto).collect();
    if !more.is_empty() {
        let _ = writeln!(out, "  … Pareto rows further down:");
        for row in more {
            let _ = writeln!(out, "{}", row_line(row, traced));
        }
    }
    let hidden = r.rows.len().saturating_sub(top);
    if hidden > 0 {
        let _ = writeln!(out, "  ({hidden} more rows in --json)");
    }
}

/// The best row, the table's legend, and what each layout cost.
fn render_best_and_layouts(out: &mut String, r: &TuneReport) {
    if let Some(best) = r.best() {
        let _ = writeln!(
            out,
            "\nbest: {} fails {:.1}% ({} of {} questions) sending {:.0} tokens on average",
            best.label(),
            best.failure_rate * 100.0,
            best.failures,
            r.questions,
            best.mean_tokens
        );
    }
    let _ = writeln!(
        out,
        "◆ Pareto: no other row is as good on failure, tokens and vectors and better on one\nside: the side-drop threshold (- = off); waste: fires per question that brought a chunk holding\nnone of the evidence\n\nlayouts (each question searched once per layout; m and budget rescored from the kept searches)"
    );
    for l in &r.layouts {
        let _ = writeln!(
            out,
            "  chunk {:>5} k {:>4}: {} chunks + {} seams, {} texts embedded, open {:.1}s, search {:.2}s, rescore {:.3}s",
            l.chunk_tokens,
            l.k,
            l.chunks,
            l.seams,
            l.embedded_texts,
            l.open_seconds,
            l.search_seconds,
            l.rescore_seconds
        );
    }
}
