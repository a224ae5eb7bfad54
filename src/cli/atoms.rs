//! `seamscope atoms`: the atom meter for Markdown corpora. Counts fenced blocks, tables, rows and
//! figure sentences, prints their length percentiles, and the share of each that every chunker
//! keeps whole at one chunk budget; given a question set, it also splits retrieval failures into
//! cuts and rank misses for each chunker.

use std::path::{Path, PathBuf};

use serde::Serialize;

use seamscope::chunk::ChunkerKind;
use seamscope::eval::failure::{DeliveryTally, delivery};
use seamscope::eval::questions::Question;
use seamscope::eval::survival::{AtomReport, atom_report};
use seamscope::settings::Settings;
use seamscope::text::safe_name as safe;

use super::GlobalArgs;
use super::chunks::{load_corpus, load_tokenizer};
use super::common::{BuildBar, start_engine};

/// Options of `atoms`.
#[derive(Debug, clap::Args, Clone, Default)]
pub struct AtomsArgs {
    /// Chunkers to compare, comma-separated (default: all four).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND,...")]
    chunker: Vec<super::choices::ChunkerChoice>,
    #[arg(
        long,
        value_name = "TOKENS",
        allow_hyphen_values = true,
        value_parser = super::usize_in(seamscope::settings::CHUNK_TOKENS_RANGE),
        help = format!(
            "Tokens per chunk, {} (default: chunk_tokens from settings, {})",
            super::range_text(&seamscope::settings::CHUNK_TOKENS_RANGE),
            Settings::default().chunk_tokens
        ),
    )]
    budget_tokens: Option<usize>,
    /// Question set (JSONL with gold spans): also count failures that are cuts and rank misses.
    /// This embeds and indexes the corpus once per chunker.
    #[arg(long, value_name = "FILE")]
    questions: Option<PathBuf>,
    /// With --questions: embed chunks and seams with their heading path in front.
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_name = "BOOL"
    )]
    heading_prefix: Option<bool>,
}

/// Failures of one retrieval under one chunker.
#[derive(Debug, Serialize)]
struct RetrievalRow {
    chunker: String,
    /// `chunks only`, or `Seams m=…`.
    retrieval: String,
    #[serde(flatten)]
    tally: DeliveryTally,
}

/// Everything `atoms` reports.
#[derive(Debug, Serialize)]
struct AtomsOutput {
    corpus: String,
    #[serde(flatten)]
    report: AtomReport,
    /// Present when a question set was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    retrieval: Option<RetrievalSection>,
}

#[derive(Debug, Serialize)]
struct RetrievalSection {
    questions: String,
    context_chunks: usize,
    rows: Vec<RetrievalRow>,
}

/// Run the meter and print the tables (or JSON).
pub fn run(global: &GlobalArgs, corpus: &Path, args: &AtomsArgs, json: bool) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    if let Some(b) = args.budget_tokens {
        settings.chunk_tokens = b;
    }
    if let Some(h) = args.heading_prefix {
        settings.heading_prefix = h;
    }
    settings.validate()?;
    let kinds = if args.chunker.is_empty() {
        ChunkerKind::ALL.to_vec()
    } else {
        args.chunker.iter().map(|&c| ChunkerKind::from(c)).collect()
    };
    let tokenizer = load_tokenizer(&settings)?;
    let docs = load_corpus(corpus, &settings)?;
    super::common::report_skips(&docs);
    let report = atom_report(&docs, &tokenizer, &kinds, settings.chunk_tokens)?;
    let retrieval = match &args.questions {
        Some(path) => {
            // Check the question set before any embedding starts.
            let questions = super::common::load_question_file(path, &docs)?;
            let section = retrieval(corpus, &questions, &kinds, &settings, json)?;
            Some(RetrievalSection {
                questions: path.display().to_string(),
                ..section
            })
        }
        None => None,
    };
    let out = AtomsOutput {
        corpus: corpus.display().to_string(),
        report,
        retrieval,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&out)?)?;
    } else {
        print(&out)?;
    }
    Ok(())
}

/// Index the corpus under each chunker, ask every question, and classify each outcome.
fn retrieval(
    corpus: &Path,
    set: &[Question],
    kinds: &[ChunkerKind],
    settings: &Settings,
    quiet: bool,
) -> anyhow::Result<RetrievalSection> {
    let mut engine = start_engine(settings.clone())?;
    let qs = settings.query_settings();
    let mut rows = Vec::new();
    for &kind in kinds {
        engine.settings.chunker = kind;
        let mut bar = BuildBar::for_engine(&engine);
        let open = engine.open_corpus(corpus, &mut |p| bar.update(p));
        bar.finish();
        let open = open?;
        if !quiet {
            errln!(
                "atoms: asking {} questions under {}",
                set.len(),
                open.layout.chunker
            );
        }
        let mut base = DeliveryTally::default();
        let mut seams = DeliveryTally::default();
        for q in set {
            let (trace, _) = engine.ask(&open, &q.question, &qs)?;
            seams.add(delivery(q, &trace.fill.chunks, &open.layout));
            if let Some(run) = &trace.without_seams.retrieval {
                base.add(delivery(q, &run.fill.chunks, &open.layout));
            }
        }
        rows.push(RetrievalRow {
            chunker: open.layout.chunker.clone(),
            retrieval: "chunks only".into(),
            tally: base,
        });
        rows.push(RetrievalRow {
            chunker: open.layout.chunker.clone(),
            retrieval: format!("Seams m={}", qs.m),
            tally: seams,
        });
    }
    Ok(RetrievalSection {
        questions: String::new(),
        context_chunks: qs.budget,
        rows,
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The atoms report as text: atom lengths, which chunkers keep them whole, and with a question
/// set, how each chunker's retrieval failed.
fn print(out: &AtomsOutput) -> Result<(), crate::cli::out::StdoutError> {
    print_lengths(&out.corpus, &out.report)?;
    print_kept_whole(&out.report)?;
    if let Some(section) = &out.retrieval {
        print_retrieval(section)?;
    }
    Ok(())
}

/// The atoms of each class: how many, how long, and how many are over the chunk budget.
fn print_lengths(corpus: &str, r: &AtomReport) -> Result<(), crate::cli::out::StdoutError> {
    outln!(
        "{}: {} documents ({} Markdown), {} tokens; chunk budget {} tokens",
        safe(corpus),
        r.documents,
        r.markdown_documents,
        r.tokens,
        r.budget
    )?;
    outln!()?;
    outln!(
        "  {:<16} {:>6} {:>7} {:>7} {:>7} {:>6} {:>12}",
        "atom (tokens)",
        "count",
        "p50",
        "p90",
        "p99",
        "max",
        "over budget"
    )?;
    for l in &r.lengths {
        outln!(
            "  {:<16} {:>6} {:>7.0} {:>7.0} {:>7.0} {:>6} {:>12}",
            l.class.label(),
            l.count,
            l.p50,
            l.p90,
            l.p99,
            l.max,
            l.over_budget
        )?;
    }
    if r.unterminated_fences > 0 {
        outln!(
            "  ({} fenced block(s) never closed: each runs to the end of its document)",
            r.unterminated_fences
        )?;
    }
    Ok(())
}

/// Per chunker: its chunks and the share of each atom class it keeps whole.
fn print_kept_whole(r: &AtomReport) -> Result<(), crate::cli::out::StdoutError> {
    outln!()?;
    outln!("kept whole (one chunk's span holds the whole atom):")?;
    outln!(
        "  {:<24} {:>6} {:>6} {:>8} {:>7} {:>7} {:>8} {:>16}",
        "chunker",
        "chunks",
        "mean",
        "fenced",
        "table",
        "row",
        "figure",
        "rows w/o header"
    )?;
    for c in &r.chunkers {
        let share = |i: usize| c.classes.get(i).map_or(String::new(), |s| pct(s.share()));
        let headerless = if c.header_repeated && c.rows_without_header > 0 {
            format!("{} (repeated)", c.rows_without_header)
        } else {
            c.rows_without_header.to_string()
        };
        outln!(
            "  {:<24} {:>6} {:>6.0} {:>8} {:>7} {:>7} {:>8} {:>16}",
            c.chunker,
            c.chunks,
            c.mean_tokens,
            share(0),
            share(1),
            share(2),
            share(3),
            headerless
        )?;
    }
    let over: usize = r.lengths.iter().map(|l| l.over_budget).sum();
    if over > 0 {
        outln!(
            "  {over} atom(s) are longer than the budget, so no chunker can keep them whole \
             (the JSON has shares over fitting atoms only)"
        )?;
    }
    Ok(())
}

/// Per chunker and retrieval: the questions answered and why the others failed.
fn print_retrieval(section: &RetrievalSection) -> Result<(), crate::cli::out::StdoutError> {
    outln!()?;
    outln!(
        "retrieval failures ({}, context of {} chunks): cut = a returned chunk overlaps the \
         missing evidence; rank miss = no returned chunk touches it",
        safe(&section.questions),
        section.context_chunks
    )?;
    outln!(
        "  {:<24} {:<12} {:>9} {:>8} {:>6} {:>10}",
        "chunker",
        "retrieval",
        "answered",
        "failed",
        "cut",
        "rank miss"
    )?;
    for row in &section.rows {
        let t = &row.tally;
        outln!(
            "  {:<24} {:<12} {:>9} {:>8} {:>6} {:>10}",
            row.chunker,
            row.retrieval,
            format!("{}/{}", t.answered, t.questions),
            t.failed(),
            t.cut,
            t.rank_miss
        )?;
    }
    Ok(())
}
