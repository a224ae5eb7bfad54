//! `seamscope eval`: run a question set and compare Seams (at several margins) with a real
//! chunks-only retrieval under the same budget.

use std::path::{Path, PathBuf};

use seamscope::eval::questions::load_questions;
use seamscope::eval::run::{Summary, score, search_all};

use super::common::{BuildBar, start_engine};
use super::{GlobalArgs, LayoutArgs};

/// Options of `eval`.
#[derive(Debug, clap::Args, Clone)]
pub struct EvalArgs {
    /// Question file (JSONL with gold spans); default: questions.jsonl in the corpus folder.
    #[arg(long, value_name = "FILE")]
    questions: Option<PathBuf>,
    /// Fire margins to compare, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0,1,2,3,5")]
    m: Vec<u32>,
    /// Chunks in the final context (default from settings, 5).
    #[arg(long)]
    budget: Option<usize>,
}

fn row(s: &Summary) -> String {
    format!(
        "  {:<22} {:>6.1}% {:>8.1}% {:>7.1}% {:>8.0} {:>7.2} {:>7.0}% {:>6.0}%",
        s.label,
        s.failure_rate * 100.0,
        s.failure_rate_boundary * 100.0,
        s.failure_rate_inside * 100.0,
        s.mean_tokens,
        s.fires_per_question,
        s.false_fire_rate * 100.0,
        s.waste_rate * 100.0
    )
}

/// Run the evaluation and print the table (or JSON).
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout: &LayoutArgs,
    args: &EvalArgs,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    if let Some(b) = args.budget {
        settings.budget = b;
    }
    settings.validate()?;
    let mut engine = start_engine(settings.clone())?;
    let mut bar = BuildBar::new();
    let open = engine.open_corpus(corpus, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let qpath = args
        .questions
        .clone()
        .unwrap_or_else(|| corpus.join("questions.jsonl"));
    let questions = load_questions(&qpath, &open.corpus).map_err(|errors| {
        anyhow::anyhow!(
            "{} problem(s) in {}:\n{}",
            errors.len(),
            qpath.display(),
            errors
                .iter()
                .map(|e| format!("  {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    anyhow::ensure!(
        !questions.is_empty(),
        "{} holds no questions",
        qpath.display()
    );
    let base_settings = settings.query_settings();
    let started = std::time::Instant::now();
    let searched = search_all(
        &mut engine,
        &open,
        &questions,
        &base_settings,
        &mut |i, n| {
            if !json && i % 20 == 0 {
                eprintln!("eval: searched {i} of {n} questions");
            }
        },
    )?;
    let search_secs = started.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    for &m in &args.m {
        let qs = seamscope::retrieve::QuerySettings { m, ..base_settings };
        let (seams, base) = score(&open, &searched, &qs)?;
        if rows.is_empty() {
            rows.push(base);
        }
        rows.push(seams);
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    println!(
        "{} questions on {} (budget {}, k = {}, chunks of {} tokens); searched in {:.1}s",
        questions.len(),
        corpus.display(),
        settings.budget,
        settings.k,
        settings.chunk_tokens,
        search_secs
    );
    println!(
        "  {:<22} {:>7} {:>9} {:>8} {:>8} {:>7} {:>8} {:>7}",
        "strategy", "fail", "boundary", "inside", "tokens", "fires/q", "false", "waste"
    );
    for r in &rows {
        println!("{}", row(r));
    }
    Ok(())
}
