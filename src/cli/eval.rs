//! `seamscope eval`: the strategy comparison of DESIGN.md §7 on a question set, under one budget,
//! and (with `--sweep-m`) Seams at several margins against chunks-only retrieval.

use std::path::{Path, PathBuf};

use seamscope::eval::grid::{GridRow, GridSettings};
use seamscope::eval::strategy::Strategy;
use seamscope::text::{safe, safe_name};

use super::common::{BuildBar, start_engine};

mod progress;
use super::{GlobalArgs, LayoutArgs, UsageError};
use progress::EvalProgressLines;

/// Options of `eval`.
#[derive(Debug, clap::Args, Clone)]
pub struct EvalArgs {
    /// Question file (JSONL with gold spans); default: questions.jsonl in the corpus folder.
    #[arg(long, value_name = "FILE")]
    questions: Option<PathBuf>,
    /// Seam half-widths to compare, comma-separated.
    #[arg(long = "seam-k", value_delimiter = ',', default_value = "100,150,200")]
    seam_k: Vec<usize>,
    /// Chunks in the final context (default from settings, 5).
    #[arg(long)]
    budget: Option<usize>,
    /// Fire margin for Seams (default from settings).
    #[arg(long)]
    m: Option<u32>,
    /// Also write the table as CSV to this file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Instead of the grid: Seams at these margins against chunks-only retrieval.
    #[arg(long, value_delimiter = ',', value_name = "M,M,...")]
    sweep_m: Option<Vec<u32>>,
    /// Save this run's rows as a baseline (JSON) for a later --compare.
    #[arg(long, value_name = "FILE")]
    save_baseline: Option<PathBuf>,
    /// Compare this run with a saved baseline, print what changed, and exit 1 when a row's
    /// failure rate rises by more than --fail-over points.
    #[arg(long, value_name = "FILE")]
    compare: Option<PathBuf>,
    /// Percentage points a failure rate may rise before --compare fails (default 0: any rise).
    #[arg(
        long,
        value_name = "POINTS",
        default_value_t = 0.0,
        requires = "compare"
    )]
    fail_over: f64,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn tag_rate(r: &GridRow, tags: &[&str]) -> String {
    let (f, n) = tags.iter().fold((0, 0), |acc, t| {
        let (f, n) = r.by_tag.get(*t).copied().unwrap_or((0, 0));
        (acc.0 + f, acc.1 + n)
    });
    if n == 0 {
        "-".into()
    } else {
        pct(f as f64 / n as f64)
    }
}

/// Width of the strategy column: the longest label, at least 22.
fn label_width(rows: &[GridRow]) -> usize {
    rows.iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(22)
}

fn print_grid(rows: &[GridRow]) -> Result<(), crate::cli::out::StdoutError> {
    let w = label_width(rows);
    outln!(
        "  {:<w$} {:>7} {:>7} {:>9} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "strategy",
        "vectors",
        "fail",
        "boundary",
        "inside",
        "tokens",
        "fire",
        "false",
        "waste",
        "whole",
        "recall",
        "prec",
        "IoU"
    )?;
    for r in rows {
        let seams = matches!(r.strategy, Strategy::Seams { .. });
        let or_dash = |s: String| if seams { s } else { "-".into() };
        outln!(
            "  {:<w$} {:>6.2}x {:>7} {:>9} {:>7} {:>7.0} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            r.label,
            r.vectors_vs_chunks,
            pct(r.failure_rate),
            tag_rate(r, &["boundary"]),
            tag_rate(r, &["inside", "edge"]),
            r.mean_tokens,
            or_dash(pct(r.fire_rate)),
            or_dash(pct(r.false_fire_rate)),
            or_dash(pct(r.waste_rate)),
            pct(r.answer_in_one_chunk),
            pct(r.span_recall),
            format!("{:.2}%", r.span_precision * 100.0),
            format!("{:.2}%", r.span_iou * 100.0),
        )?;
    }
    Ok(())
}

fn csv(rows: &[GridRow]) -> String {
    let mut out = String::from(
        "strategy,vectors,vectors_vs_chunks,failure_rate,failure_boundary,failure_inside,mean_tokens,fire_rate,fires_per_question,false_fire_rate,waste_rate,whole,split,absent,answer_in_one_chunk,span_recall,span_precision,span_iou\n",
    );
    for r in rows {
        let rate = |tags: &[&str]| tag_rate(r, tags).trim_end_matches('%').to_string();
        out.push_str(&format!(
            "\"{}\",{},{:.4},{:.4},{},{},{:.1},{:.4},{:.4},{:.4},{:.4},{},{},{},{:.4},{:.4},{:.5},{:.5}\n",
            r.label,
            r.vectors,
            r.vectors_vs_chunks,
            r.failure_rate,
            rate(&["boundary"]),
            rate(&["inside", "edge"]),
            r.mean_tokens,
            r.fire_rate,
            r.fires_per_question,
            r.false_fire_rate,
            r.waste_rate,
            r.span_classes.0,
            r.span_classes.1,
            r.span_classes.2,
            r.answer_in_one_chunk,
            r.span_recall,
            r.span_precision,
            r.span_iou
        ));
    }
    out
}

/// With given cuts, the chunks-only row is the user's chunks, which may overlap: it is labelled
/// `given chunks`, not `no overlap`.
fn name_given_base(mut rows: Vec<GridRow>, layout: &seamscope::layout::Layout) -> Vec<GridRow> {
    if layout.given.is_some() {
        for r in rows
            .iter_mut()
            .filter(|r| matches!(r.strategy, Strategy::NoOverlap))
        {
            r.label = "given chunks".into();
        }
    }
    rows
}

/// Write the rows to `--csv FILE` when asked.
fn write_csv(args: &EvalArgs, rows: &[GridRow]) -> anyhow::Result<()> {
    if let Some(path) = &args.csv {
        seamscope::files::write_output(path, csv(rows).as_bytes())
            .map_err(|e| anyhow::anyhow!("{}", safe(&e.to_string())))?;
    }
    Ok(())
}

/// Check the output files named on the command line before the run: a bad path fails at once,
/// not after minutes of work.
fn check_writable(path: &Path, flag: &str) -> anyhow::Result<()> {
    Ok(super::args::check_output_file(flag, path)?)
}

/// Save and compare baselines as the flags ask; an error when the comparison regressed.
fn gate(
    embedder: &str,
    args: &EvalArgs,
    rows: &[GridRow],
    questions: usize,
    budget: usize,
    description: String,
    json: bool,
) -> anyhow::Result<()> {
    use seamscope::eval::baseline::{Baseline, compare};
    if let Some(path) = &args.save_baseline {
        let b = Baseline::of(
            rows,
            questions,
            budget,
            description,
            Some(embedder.to_string()),
        );
        seamscope::files::write_output(path, serde_json::to_string_pretty(&b)?.as_bytes())
            .map_err(|e| anyhow::anyhow!("baseline: {}", safe(&e.to_string())))?;
        if !json {
            errln!("eval: baseline saved to {}", path.display());
        }
    }
    let Some(path) = &args.compare else {
        return Ok(());
    };
    let baseline = read_baseline(path, embedder)?;
    let cmp = compare(&baseline, rows, questions, budget, args.fail_over);
    // With --json the comparison goes to stderr, so stdout stays the rows' JSON.
    let out = comparison_text(&cmp, path, args.fail_over);
    if json {
        err!("{out}");
    } else {
        out!("{out}")?;
    }
    let regressed: Vec<&str> = cmp
        .changes
        .iter()
        .filter(|c| c.regressed)
        .map(|c| c.label.as_str())
        .collect();
    anyhow::ensure!(
        regressed.is_empty(),
        "failure rate rose by more than {:.1} points against {}: {}",
        args.fail_over,
        path.display(),
        regressed.join(", ")
    );
    Ok(())
}

/// The baseline `--compare` names, refused when it was measured with another embedder.
fn read_baseline(
    path: &Path,
    embedder: &str,
) -> anyhow::Result<seamscope::eval::baseline::Baseline> {
    let bytes = seamscope::files::read_json(path).map_err(|e| {
        anyhow::anyhow!(
            "cannot read baseline {}: {e}",
            seamscope::text::safe_name(&path.display().to_string())
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "the baseline {} is not UTF-8: {e}",
            seamscope::text::safe_name(&path.display().to_string())
        )
    })?;
    let baseline = seamscope::eval::baseline::Baseline::parse(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if let Some(theirs) = baseline.embedder.as_deref().filter(|b| *b != embedder) {
        anyhow::bail!(
            "the baseline {} was measured with the embedder {}, and this run embeds with {}: failure rates of two models do not compare point for point; save a baseline with this embedder (--save-baseline) or run with the baseline's",
            seamscope::text::safe_name(&path.display().to_string()),
            seamscope::text::safe_name(theirs),
            seamscope::text::safe_name(embedder)
        );
    }
    Ok(baseline)
}

/// The comparison with a baseline as lines of text: each row's failure rate and tokens before
/// and after, and the rows only one side has.
fn comparison_text(
    cmp: &seamscope::eval::baseline::BaselineComparison,
    path: &Path,
    fail_over: f64,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "\ncompared with {} (allowed rise: {:.1} points)\n",
        path.display(),
        fail_over
    ));
    if let Some(m) = &cmp.mismatch {
        out.push_str(&format!("  note: {m}\n"));
    }
    for c in &cmp.changes {
        out.push_str(&format!(
            "  {:<24} {:>6.1}% → {:>6.1}%  {:>+6.1} points  tokens {:>6.0} → {:>6.0}{}\n",
            c.label,
            c.before * 100.0,
            c.after * 100.0,
            c.points,
            c.tokens.0,
            c.tokens.1,
            if c.regressed { "  REGRESSED" } else { "" }
        ));
    }
    for l in &cmp.missing {
        out.push_str(&format!("  {l:<24} only in the baseline\n"));
    }
    for l in &cmp.new {
        out.push_str(&format!("  {l:<24} new in this run\n"));
    }
    out
}

/// The settings `eval` runs under, with its own flags checked before any work: exit 2 for a
/// value out of range or a file that cannot be written or read.
fn checked_settings(
    global: &GlobalArgs,
    layout: &LayoutArgs,
    args: &EvalArgs,
) -> anyhow::Result<seamscope::settings::Settings> {
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    if let Some(b) = args.budget {
        settings.budget = b;
    }
    if let Some(m) = args.m {
        settings.m = m;
    }
    settings.validate().map_err(|e| UsageError(e.to_string()))?;
    if !args
        .seam_k
        .iter()
        .all(|k| seamscope::settings::K_RANGE.contains(k))
    {
        return Err(UsageError("--seam-k values must be between 1 and 4096 tokens".into()).into());
    }
    if !(args.fail_over.is_finite() && args.fail_over >= 0.0) {
        return Err(UsageError(format!(
            "--fail-over must be a number of percentage points, 0 or more (got {})",
            args.fail_over
        ))
        .into());
    }
    for (path, flag) in [
        (&args.csv, "--csv"),
        (&args.save_baseline, "--save-baseline"),
    ] {
        if let Some(p) = path {
            check_writable(p, flag)?;
        }
    }
    if let Some(p) = &args.compare
        && !p.is_file()
    {
        return Err(UsageError(format!("--compare {}: no such file", p.display())).into());
    }
    Ok(settings)
}

/// Each strategy's failure rate per question tag, the count of each tag in its heading.
fn print_by_tag(rows: &[GridRow]) -> Result<(), crate::cli::out::StdoutError> {
    outln!("\nfailure rate by tag (questions per tag in brackets)")?;
    let tags = ["boundary", "partial", "edge", "inside", "short"];
    let count = |t: &str| {
        rows.first()
            .and_then(|r| r.by_tag.get(t))
            .map_or(0, |x| x.1)
    };
    let w = label_width(rows);
    out!("  {:<w$}", "strategy")?;
    for t in tags {
        out!(" {:>14}", format!("{t} ({})", count(t)))?;
    }
    outln!()?;
    for r in rows {
        out!("  {:<w$}", r.label)?;
        for t in tags {
            out!(" {:>14}", tag_rate(r, &[t]))?;
        }
        outln!()?;
    }
    Ok(())
}

/// The `--json` document: `{"rows": [...]}`, to which the files the corpus left out are added
/// as `skipped` ([`crate::cli::out::with_skipped`]).
fn rows_json<T: serde::Serialize>(rows: &[T]) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::json!({ "rows": rows }))
}

/// Run the evaluation and print the table (or JSON / CSV).
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout: &LayoutArgs,
    args: &EvalArgs,
    json: bool,
) -> anyhow::Result<()> {
    let settings = checked_settings(global, layout, args)?;
    let mut engine = start_engine(settings.clone())?;
    // The question file is checked whole before anything is indexed or embedded.
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let qpath = args
        .questions
        .clone()
        .unwrap_or_else(|| seamscope::corpus::questions_path(corpus));
    let questions = super::common::load_question_file(&qpath, &docs)?;
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_loaded(docs, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let description = format!(
        "{} with {} ({}, chunk {} tokens, m = {})",
        corpus.display(),
        qpath.display(),
        open.layout.chunker_label(),
        settings.chunk_tokens,
        settings.m
    );
    let rows = if let Some(ms) = &args.sweep_m {
        sweep_m(&mut engine, &open, &questions, (&settings, ms), args, json)?
    } else {
        let started = std::time::Instant::now();
        let mut lines = EvalProgressLines::default();
        let rows = seamscope::eval::compare(
            &mut engine,
            &open,
            &questions,
            &settings,
            &args.seam_k,
            // On stderr with or without --json: stdout holds only the table or the one document.
            &mut |p| lines.update(p),
        )?;
        let secs = started.elapsed().as_secs_f64();
        let rows = name_given_base(rows, &open.layout);
        write_csv(args, &rows)?;
        if json {
            outln!("{}", rows_json(&rows)?)?;
        } else {
            let run = ComparisonRun {
                corpus,
                questions: questions.len(),
                secs,
                embedder: engine.embedder.describe(),
            };
            print_comparison(&run, &rows, &open.layout, &settings)?;
        }
        rows
    };
    gate(
        engine.embedder.identity(),
        args,
        &rows,
        questions.len(),
        settings.budget,
        description,
        json,
    )
}

/// `--sweep-m`: the grid at each m, printed (or as JSON) and written as CSV when asked.
fn sweep_m(
    engine: &mut seamscope::session::Engine,
    open: &seamscope::session::OpenCorpus,
    questions: &[seamscope::eval::questions::Question],
    (settings, ms): (&seamscope::settings::Settings, &[u32]),
    args: &EvalArgs,
    json: bool,
) -> anyhow::Result<Vec<GridRow>> {
    let grid = GridSettings::from_settings(settings);
    let mut lines = EvalProgressLines::default();
    let rows = seamscope::eval::sweep(engine, open, questions, (ms, grid, settings.k), &mut |p| {
        lines.update(p)
    })?;
    if json {
        outln!("{}", rows_json(&rows)?)?;
    } else {
        print_grid(&rows)?;
    }
    write_csv(args, &rows)?;
    Ok(rows)
}

/// What the strategy comparison ran on, for its heading.
struct ComparisonRun<'a> {
    corpus: &'a Path,
    questions: usize,
    /// How long the comparison took.
    secs: f64,
    /// The embedder, described.
    embedder: String,
}

/// The strategy comparison as text: what it ran on, the table, and the table by question tag.
fn print_comparison(
    run: &ComparisonRun<'_>,
    rows: &[GridRow],
    layout: &seamscope::layout::Layout,
    settings: &seamscope::settings::Settings,
) -> anyhow::Result<()> {
    let chunks = match &layout.given {
        Some(g) => format!(
            "the {} given chunks of {} ({} format)",
            layout.chunks.len(),
            safe_name(&g.file.display().to_string()),
            g.format
        ),
        None => format!("{}-token chunks", settings.chunk_tokens),
    };
    outln!(
        "{} questions on {}: budget {} chunks, {chunks}, m = {}; {} strategies in {:.1}s ({} texts embedded, the rest from the cache)",
        run.questions,
        run.corpus.display(),
        settings.budget,
        settings.m,
        rows.len(),
        run.secs,
        rows.iter().map(|r| r.embedded_texts).sum::<usize>()
    )?;
    outln!("embedder: {}", seamscope::text::safe_name(&run.embedder))?;
    if layout.given.is_some() {
        outln!(
            "base: the given chunks (row `given chunks`, and Seams over their cuts); overlap, windows and neighbour expansion are built on them"
        )?;
    }
    print_grid(rows)?;
    print_by_tag(rows)?;
    Ok(())
}
