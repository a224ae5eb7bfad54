//! `tune`'s options and what `tune`, `tune --strategies` and `tune --map` share: the flags, their
//! parsers and the settings check. Both `tune.rs` (the grid) and `board.rs` (the board and the map)
//! read them from here, so neither file uses the other's internals: `tune.rs` only calls
//! `board.rs`'s runners.

use std::path::PathBuf;

use seamscope::board::Family;

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
    /// Also measure every grid point on the questions of your app's traces (a file, or
    /// `phoenix:http://HOST:PORT` with `--project`, as `seamscope traces` reads them): tokens sent
    /// and fires per traced query, the cost side on your real question distribution (traces carry
    /// no gold, so the failure rate stays the scored questions')
    #[arg(long, value_name = "SOURCE")]
    pub(super) traces: Option<String>,
    /// The Phoenix project to read (with `--traces phoenix:URL`).
    #[arg(long, value_name = "NAME", requires = "traces")]
    pub(super) project: Option<String>,
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
    #[arg(long, value_name = "all|FAMILY,...", value_parser = parse_families)]
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
    /// Board, with --json: each row also lists, per question, the units it sent (document,
    /// bytes and tokens), the gold spans and the context figures counted from them.
    #[arg(long, requires = "strategies", conflicts_with = "map")]
    pub(super) per_question: bool,
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
    let given = text.trim();
    let number = given.strip_suffix(['×', 'x']).unwrap_or(given).trim();
    let x: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a number of vectors per chunk, e.g. 2"))?;
    // The value is said as typed: `1e308` printed as a float is 309 digits.
    if !x.is_finite() {
        return Err(format!(
            "--max-vectors {given}: give a number of vectors per chunk from 1 to {MAX_VECTORS_FLAG}"
        ));
    }
    if x > MAX_VECTORS_FLAG {
        return Err(format!(
            "--max-vectors {given}: no strategy stores more than a few times the vectors of the chunks alone; give 1 to {MAX_VECTORS_FLAG}"
        ));
    }
    let c = seamscope::board::Constraints {
        max_vectors: Some(x),
        ..Default::default()
    };
    c.check().map(|()| x)
}

/// The largest `--max-vectors` taken: every strategy on the board stores far fewer.
const MAX_VECTORS_FLAG: f64 = 1000.0;

fn parse_percent(text: &str) -> Result<f64, String> {
    let given = text.trim();
    // One `%` at most: `5%%` is not a percentage.
    let p: f64 = given
        .strip_suffix('%')
        .unwrap_or(given)
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
    parse_bands(text)
}

fn parse_windows_list(text: &str) -> Result<Vec<(usize, usize)>, String> {
    parse_windows(text)
}

fn parse_taus(text: &str) -> Result<Vec<f32>, String> {
    parse_f32s(text, 0.0..=2.0)
}

fn parse_penalties(text: &str) -> Result<Vec<f32>, String> {
    parse_f32s(text, 0.0..=10.0)
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
        if let Some(negative) = part.strip_prefix('-') {
            return Err(format!(
                "margin -{negative} is below 0: a margin is a whole number from 0 to 1000"
            ));
        }
        let number = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| {
                    format!("{part:?} is not a margin (a whole number from 0 to 1000) or a range of margins (like 0-30)")
                })
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

pub(super) fn check_range(
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

/// Parse `all` or a comma-separated list of family names.
pub fn parse_families(text: &str) -> Result<Vec<Family>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(Family::ALL.to_vec());
    }
    let names = || Family::ALL.map(Family::name).join(", ");
    if text.split(',').all(|p| p.trim().is_empty()) {
        return Err(format!(
            "name the strategy families to compare: all, or some of {}",
            names()
        ));
    }
    let mut out = vec![Family::None];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let f = Family::parse(&part.to_ascii_lowercase()).ok_or_else(|| {
            format!(
                "{part:?} is not a strategy family (all, {})",
                Family::ALL.map(Family::name).join(", ")
            )
        })?;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

/// Parse `50-100,100-200` into length bands.
pub fn parse_bands(text: &str) -> Result<Vec<(usize, usize)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = part
            .split_once('-')
            .ok_or_else(|| format!("{part:?} is not a band like 100-200"))?;
        let n = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("{s:?} in {part:?} is not a token count"))
        };
        let (a, b) = (n(a)?, n(b)?);
        if a == 0 || a >= b || b > 100_000 {
            return Err(format!(
                "band {part} must run from 1 token up to at most 100000, shortest first"
            ));
        }
        out.push((a, b));
    }
    out.sort_unstable();
    seamscope::board::map::check_bands(&out)?;
    Ok(out)
}

/// Parse `256/128,128/64` into window shapes.
pub fn parse_windows(text: &str) -> Result<Vec<(usize, usize)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (w, s) = part
            .split_once('/')
            .ok_or_else(|| format!("{part:?} is not a window like 256/128 (width/stride)"))?;
        let (w, s): (usize, usize) = (
            w.trim()
                .parse()
                .map_err(|_| format!("bad width in {part:?}"))?,
            s.trim()
                .parse()
                .map_err(|_| format!("bad stride in {part:?}"))?,
        );
        if w < 8 || s == 0 || s > w || w > 100_000 {
            return Err(format!(
                "window {part}: width 8–100000 tokens, stride from 1 up to the width"
            ));
        }
        out.push((w, s));
    }
    Ok(out)
}

/// Parse a comma-separated list of numbers in `range`.
pub fn parse_f32s(text: &str, range: std::ops::RangeInclusive<f32>) -> Result<Vec<f32>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let v: f32 = part
            .parse()
            .map_err(|_| format!("{part:?} is not a number"))?;
        if !range.contains(&v) {
            return Err(format!("{v} is outside {}–{}", range.start(), range.end()));
        }
        out.push(v);
    }
    if out.is_empty() {
        return Err("give at least one value".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--strategies`' help names every family the board knows (its cards), so a new family
    /// is offered where the user looks.
    #[test]
    fn the_strategies_help_names_every_family() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        let tune = cli.find_subcommand("tune").expect("tune");
        let arg = tune
            .get_arguments()
            .find(|a| a.get_id() == "strategies")
            .expect("--strategies");
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .expect("its help")
            .to_string();
        for card in &seamscope::board::CARDS {
            assert!(
                help.contains(card.name),
                "{} is missing from: {help}",
                card.name
            );
        }
    }

    #[test]
    fn flags_parse_and_refuse_nonsense() {
        assert_eq!(parse_families("all").unwrap().len(), 7);
        assert_eq!(
            parse_families("seams,overlap").unwrap(),
            vec![Family::None, Family::Seams, Family::Overlap]
        );
        assert!(
            parse_families("semas")
                .unwrap_err()
                .contains("not a strategy family")
        );
        assert_eq!(
            parse_bands("100-200,50-100").unwrap(),
            vec![(50, 100), (100, 200)]
        );
        assert!(parse_bands("200-100").is_err());
        // Each band once, none overlapping another: a passage belongs to one band.
        assert!(
            parse_bands("100-200,100-200")
                .unwrap_err()
                .contains("given twice")
        );
        assert!(
            parse_bands("50-150,100-200")
                .unwrap_err()
                .contains("overlap")
        );
        assert_eq!(
            parse_bands("50-100,5000-9000").unwrap(),
            vec![(50, 100), (5000, 9000)]
        );
        assert!(parse_bands("x").is_err());
        assert_eq!(parse_windows("256/128").unwrap(), vec![(256, 128)]);
        assert!(parse_windows("128/256").is_err());
        assert!(parse_f32s("0.5,2", 0.0..=1.5).is_err());
    }

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
        assert_eq!(
            parse_side_drops("off,0.25,off").unwrap(),
            vec![None, Some(0.25)]
        );
        assert!(parse_side_drops("2").is_err());
        assert!(parse_side_drops("maybe").is_err());
    }
}
