//! `seamscope tune`: a grid over chunk size × k × m × budget, ranked by failure rate, with tokens
//! sent and vectors as costs and the Pareto rows marked.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use seamscope::layout::Layout;
use seamscope::tune::{
    TuneGrid, TuneProgress, TuneReport, TuneRow, gold_questions, passage_questions, tune,
};

use super::common::start_engine;
use super::{GlobalArgs, UsageError};

/// Options of `tune`.
#[derive(Debug, clap::Args, Clone)]
pub struct TuneArgs {
    /// Seam half-widths to try, comma-separated (default 100,150,200; the map: the settings' k).
    #[arg(long = "k", value_delimiter = ',', value_name = "K,K,...")]
    pub(super) ks: Vec<usize>,
    /// Fire margins to try: a list with ranges, e.g. `0-30` or `1,2,3,5,8`.
    #[arg(long = "m", default_value = "0-30", value_name = "LIST", value_parser = parse_margins)]
    pub(super) ms: std::vec::Vec<u32>,
    /// Final budgets to try, in chunks, comma-separated (default from settings, 5).
    #[arg(long = "budget", value_delimiter = ',', value_name = "CHUNKS,...")]
    pub(super) budgets: Vec<usize>,
    /// Side drop to try: `off` and/or cosine thresholds, e.g. `off,0.25` (side drop is a row of
    /// its own, not a default).
    #[arg(long = "side-drop", default_value = "off,0.25", value_name = "LIST", value_parser = parse_side_drops)]
    pub(super) side_drops: std::vec::Vec<Option<f32>>,
    /// Chunk sizes to try, in tokens, comma-separated (default from settings, 1024). Each size
    /// embeds its chunks once, ever (vector cache).
    #[arg(
        long = "chunk-tokens",
        value_delimiter = ',',
        value_name = "TOKENS,..."
    )]
    pub(super) chunk_sizes: Vec<usize>,
    /// How documents are cut: fixed, sentence, recursive or structure (default fixed).
    #[arg(long, value_enum, value_name = "KIND")]
    pub(super) chunker: Option<super::choices::ChunkerChoice>,
    /// Score on a question set with gold evidence (JSONL) instead of sampled passages.
    #[arg(long, value_name = "FILE")]
    pub(super) questions: Option<PathBuf>,
    /// Passages drawn when no question set is given (offline keyword questions).
    #[arg(long, default_value_t = seamscope::calibrate::passage::DEFAULT_PASSAGES, value_name = "N", value_parser = super::usize_in(1..=100_000))]
    pub(super) passages: usize,
    /// Seed of the passage draw.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Rows printed (every row is in --json).
    #[arg(long, default_value_t = 15, value_name = "N")]
    pub(super) top: usize,
    /// Score every boundary strategy on one board instead of Seams' own grid: `all`, or
    /// families from none, overlap, windows, neighbour, scar, seams, overlap+seams. Rows get
    /// 95% intervals, tokens, vectors and build time; the verdict names a winner only when its
    /// family wins at least 90% of paired bootstrap resamples (tuning inside each).
    #[arg(long, value_name = "all|FAMILY,...", value_parser = super::board::parse_families)]
    pub(super) strategies: Option<std::vec::Vec<seamscope::board::Family>>,
    /// Draw the evidence-length map: passages at several lengths (no gold needed), every
    /// strategy family scored per band; with --questions the gold set's evidence lengths are
    /// placed beside it.
    #[arg(long)]
    pub(super) map: bool,
    /// The map's length bands in tokens.
    #[arg(long, value_name = "MIN-MAX,...", value_parser = parse_bands_list, requires = "map")]
    pub(super) bands: Option<std::vec::Vec<(usize, usize)>>,
    /// The kinds of question the map asks about each passage, the first being the map's own:
    /// one-sided, whole-passage, opening, or `all` (default one-sided; with --questions all
    /// three, each checked against the gold set).
    #[arg(long, value_name = "all|KIND,...", value_parser = parse_kinds, requires = "map")]
    pub(super) kinds: Option<std::vec::Vec<seamscope::board::map::QuestionKind>>,
    /// Passages drawn per band of the map.
    #[arg(long, default_value_t = seamscope::board::map::DEFAULT_PER_BAND, value_name = "N", value_parser = super::usize_in(5..=100_000))]
    pub(super) per_band: usize,
    /// Bootstrap resamples behind a verdict (board default 10000, map 2000 per band).
    #[arg(long, value_name = "N", value_parser = super::usize_in(100..=1_000_000))]
    pub(super) resamples: Option<usize>,
    /// Overlap fractions for the board, in percent of a chunk (default 10,15,20,25).
    #[arg(long, value_delimiter = ',', value_name = "PERCENT,...", value_parser = clap::value_parser!(u32).range(1..=50))]
    pub(super) overlaps: Option<Vec<u32>>,
    /// Window shapes for the board, width/stride in tokens (default 256/128,128/64).
    #[arg(long, value_name = "W/S,...", value_parser = parse_windows_list)]
    pub(super) windows: Option<std::vec::Vec<(usize, usize)>>,
    /// SCAR relative thresholds τ to tune over (default 0.5,0.6,0.7,0.8,0.9,1.0).
    #[arg(long = "tau", value_name = "LIST", value_parser = parse_taus)]
    pub(super) taus: Option<std::vec::Vec<f32>>,
    /// SCAR continuity-penalty weights to tune over (default 0,0.5,1).
    #[arg(long = "penalty", value_name = "LIST", value_parser = parse_penalties)]
    pub(super) penalties: Option<std::vec::Vec<f32>>,
    /// Board and map: judge only strategies that store each passage once (no two stored units
    /// share text); the rest stay listed, marked as left out, and the winner without the
    /// constraint is named.
    #[arg(long)]
    pub(super) once: bool,
    /// Board and map: judge only strategies storing at most X times the vectors of the chunks
    /// alone (chunks only: 1).
    #[arg(long, value_name = "X", value_parser = parse_max_vectors)]
    pub(super) max_vectors: Option<f64>,
    /// Board and map: judge only strategies that send at most P percent of their tokens more
    /// than once (`5` or `5%`; overlap sends its repeated text twice).
    #[arg(long, value_name = "P", value_parser = parse_percent)]
    pub(super) max_duplicate_share: Option<f64>,
}

impl TuneArgs {
    /// The constraints the flags state.
    pub(super) fn constraints(&self) -> seamscope::board::Constraints {
        seamscope::board::Constraints {
            once: self.once,
            max_vectors: self.max_vectors,
            max_duplicate_share: self.max_duplicate_share,
        }
    }
}

fn parse_max_vectors(text: &str) -> Result<f64, String> {
    let x: f64 = text
        .trim()
        .trim_end_matches(['×', 'x'])
        .parse()
        .map_err(|_| format!("{text:?} is not a number of vectors per chunk, e.g. 2"))?;
    let c = seamscope::board::Constraints {
        max_vectors: Some(x),
        ..Default::default()
    };
    c.check().map(|()| x)
}

fn parse_percent(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .trim()
        .trim_end_matches('%')
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a percentage, e.g. 5 or 5%"))?;
    let c = seamscope::board::Constraints {
        max_duplicate_share: Some(p / 100.0),
        ..Default::default()
    };
    c.check().map(|()| p / 100.0)
}

fn parse_kinds(text: &str) -> Result<Vec<seamscope::board::map::QuestionKind>, String> {
    use seamscope::board::map::{OFFLINE_KINDS, QuestionKind};
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(OFFLINE_KINDS.to_vec());
    }
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let k = QuestionKind::parse(part)?;
        if k == QuestionKind::Llm {
            return Err("the llm kind needs a language model endpoint, which tune does not take yet: use calibrate --llm-url for model-written questions".into());
        }
        if !out.contains(&k) {
            out.push(k);
        }
    }
    if out.is_empty() {
        return Err("give at least one kind: one-sided, whole-passage or opening".into());
    }
    Ok(out)
}

fn parse_bands_list(text: &str) -> Result<Vec<(usize, usize)>, String> {
    super::board::parse_bands(text)
}

fn parse_windows_list(text: &str) -> Result<Vec<(usize, usize)>, String> {
    super::board::parse_windows(text)
}

fn parse_taus(text: &str) -> Result<Vec<f32>, String> {
    super::board::parse_f32s(text, 0.0..=2.0)
}

fn parse_penalties(text: &str) -> Result<Vec<f32>, String> {
    super::board::parse_f32s(text, 0.0..=10.0)
}

/// Parse `off,0.25` into side-drop settings (`None` = off), in the order given, without repeats.
fn parse_side_drops(text: &str) -> Result<Vec<Option<f32>>, String> {
    let mut out: Vec<Option<f32>> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let value = if part.eq_ignore_ascii_case("off") {
            None
        } else {
            let t: f32 = part
                .parse()
                .map_err(|_| format!("{part:?} is neither `off` nor a cosine threshold"))?;
            if !(-1.0..=1.0).contains(&t) {
                return Err(format!(
                    "side-drop threshold {t} is not a cosine between -1 and 1"
                ));
            }
            Some(t)
        };
        if !out.contains(&value) {
            out.push(value);
        }
    }
    if out.is_empty() {
        return Err("give `off` or at least one threshold".to_string());
    }
    Ok(out)
}

/// Parse `0-30`, `1,2,3,5,8` or a mix into sorted distinct margins.
fn parse_margins(text: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let number = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("{s:?} is not a margin (a whole number from 0 to 1000)"))
                .and_then(|m| {
                    if m <= 1000 {
                        Ok(m)
                    } else {
                        Err(format!("margin {m} is above 1000"))
                    }
                })
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a > b {
                    return Err(format!("range {part} runs backwards"));
                }
                out.extend(a..=b);
            }
            None => out.push(number(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.is_empty() {
        return Err("give at least one margin".to_string());
    }
    Ok(out)
}

fn check_range(
    values: &[usize],
    flag: &str,
    range: std::ops::RangeInclusive<usize>,
) -> anyhow::Result<()> {
    if values.iter().all(|v| range.contains(v)) {
        return Ok(());
    }
    Err(UsageError(format!(
        "{flag} values must be between {} and {} (got {values:?})",
        range.start(),
        range.end()
    ))
    .into())
}

/// The settings a `tune` run measures under: the global ones with `--chunker` applied, checked.
pub fn checked_settings(
    global: &GlobalArgs,
    args: &TuneArgs,
) -> anyhow::Result<seamscope::settings::Settings> {
    let mut settings = global.settings()?;
    if let Some(c) = args.chunker {
        settings.chunker = c.into();
    }
    if let [size] = args.chunk_sizes.as_slice() {
        settings.chunk_tokens = *size;
    }
    if let [budget] = args.budgets.as_slice() {
        settings.budget = *budget;
    }
    check_range(&args.ks, "--k", seamscope::settings::K_RANGE)?;
    settings.validate().map_err(|e| UsageError(e.to_string()))?;
    super::args::check_measured_budget(settings.budget)?;
    Ok(settings)
}

/// Run the grid and print the ranked table (or JSON); `--strategies` and `--map` run the board
/// and the evidence-length map instead.
pub fn run(global: &GlobalArgs, corpus: &Path, args: &TuneArgs, json: bool) -> anyhow::Result<()> {
    if args.constraints().any() && args.strategies.is_none() && !args.map {
        return Err(UsageError(
            "--once, --max-vectors and --max-duplicate-share constrain the strategy board and the map: give --strategies all (or --map)".into(),
        )
        .into());
    }
    if args.strategies.is_some() || args.map {
        if args.chunk_sizes.len() > 1 || args.budgets.len() > 1 {
            return Err(UsageError(
                "--strategies and --map score one chunk size at one budget: give at most one --chunk-tokens and one --budget".into(),
            )
            .into());
        }
        return if args.map {
            super::board::run_map(global, corpus, args, json)
        } else {
            super::board::run_board(global, corpus, args, json)
        };
    }
    let mut settings = global.settings()?;
    if let Some(c) = args.chunker {
        settings.chunker = c.into();
    }
    let ks = if args.ks.is_empty() {
        vec![100, 150, 200]
    } else {
        args.ks.clone()
    };
    let budgets = if args.budgets.is_empty() {
        vec![settings.budget]
    } else {
        args.budgets.clone()
    };
    let sizes = if args.chunk_sizes.is_empty() {
        vec![settings.chunk_tokens]
    } else {
        args.chunk_sizes.clone()
    };
    check_range(&ks, "--k", seamscope::settings::K_RANGE)?;
    check_range(&budgets, "--budget", 1..=1000)?;
    check_range(&sizes, "--chunk-tokens", 16..=1_000_000)?;
    settings.validate().map_err(|e| UsageError(e.to_string()))?;
    let grid = TuneGrid {
        chunk_tokens: dedup(sizes),
        ks: dedup(ks),
        ms: args.ms.clone(),
        budgets: dedup(budgets),
        side_drops: args.side_drops.clone(),
    };
    let started = Instant::now();
    let mut engine = start_engine(settings.clone())?;
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let (questions, source) = match &args.questions {
        Some(path) => {
            let qs = super::common::load_question_file(path, &docs)?;
            gold_questions(&path.display().to_string(), &qs)
        }
        None => {
            let layout = Layout::for_settings(&docs, &engine.tokenizer, &settings)?;
            let (qs, source) = passage_questions(&docs, &layout, args.passages, args.seed);
            let set = seamscope::corpus::questions_path(corpus);
            if !json && set.is_file() {
                errln!(
                    "tune: {} has a question set; --questions {} scores on its gold evidence instead",
                    corpus.display(),
                    set.display()
                );
            }
            (qs, source)
        }
    };
    anyhow::ensure!(
        !questions.is_empty(),
        "no question to score (the corpus gave no passages)"
    );
    let mut last = Instant::now();
    let report = tune(&mut engine, &docs, &questions, &grid, &source, &mut |p| {
        if !json && last.elapsed().as_millis() >= 2000 {
            last = Instant::now();
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
                    errln!(
                        "tune: chunk {chunk_tokens}, k {k}: searched {done} of {total} questions"
                    )
                }
            }
        }
        true
    })?
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

fn dedup(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

fn row_line(r: &TuneRow) -> String {
    let (k, m) = match (r.k, r.m) {
        (Some(k), Some(m)) => (k.to_string(), m.to_string()),
        _ => ("-".to_string(), "off".to_string()),
    };
    let side = r
        .side_drop
        .map_or_else(|| "-".to_string(), |t| format!("{t:.2}"));
    format!(
        "  {:>6} {:>5} {:>4} {:>5} {:>6} {:>6.1}% [{:>4.1}–{:>4.1}] {:>7.0} {:>7} {:>6.2} {:>6.2} {:>6.2}  {}",
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
        "ranked by failure rate (the context misses part of the evidence), then tokens, then vectors\n"
    );
    let _ = writeln!(
        out,
        "  {:>6} {:>5} {:>4} {:>5} {:>6} {:>7} {:<11} {:>7} {:>7} {:>6} {:>6} {:>6}",
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
        "waste"
    );
    for row in r.rows.iter().take(top) {
        let _ = writeln!(out, "{}", row_line(row));
    }
    let more: Vec<&TuneRow> = r.rows.iter().skip(top).filter(|x| x.pareto).collect();
    if !more.is_empty() {
        let _ = writeln!(out, "  … Pareto rows further down:");
        for row in more {
            let _ = writeln!(out, "{}", row_line(row));
        }
    }
    let hidden = r.rows.len().saturating_sub(top);
    if hidden > 0 {
        let _ = writeln!(out, "  ({hidden} more rows in --json)");
    }
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
    out
}

#[cfg(test)]
mod tests {
    use super::parse_margins;

    #[test]
    fn margins_take_lists_and_ranges() {
        assert_eq!(parse_margins("0-3,8,2").unwrap(), vec![0, 1, 2, 3, 8]);
        assert!(parse_margins("3-1").is_err());
        assert!(parse_margins("x").is_err());
        assert!(parse_margins("5000").is_err());
        assert!(parse_margins("").is_err());
    }

    #[test]
    fn side_drops_take_off_and_thresholds() {
        use super::parse_side_drops;
        assert_eq!(
            parse_side_drops("off,0.25,off").unwrap(),
            vec![None, Some(0.25)]
        );
        assert!(parse_side_drops("2").is_err());
        assert!(parse_side_drops("maybe").is_err());
    }
}
