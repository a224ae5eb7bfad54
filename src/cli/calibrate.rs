//! `seamscope calibrate`: measure how far seams outrank their chunks on unsplit and crossing
//! sentences, and recommend the fire margin `m`.

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use seamscope::calibrate::{
    CalibrateOptions, CalibrationReport, Distribution, KeywordQuestions, LlmConfig, LlmQuestions,
    QuestionGenerator, SampleOptions, calibrate, calibrate_from_questions,
};
use seamscope::text::safe;

use super::common::{BuildBar, start_engine};
use super::{GlobalArgs, LayoutArgs};

/// Options of `calibrate`.
#[derive(Debug, clap::Args, Clone)]
pub struct CalibrateArgs {
    /// Sentences sampled per kind (unsplit and crossing).
    #[arg(long, default_value_t = seamscope::calibrate::sample::DEFAULT_SAMPLES, value_name = "N")]
    samples: usize,
    /// Seed of the deterministic draw: the same seed gives the same sentences.
    #[arg(long, default_value_t = seamscope::calibrate::sample::DEFAULT_SEED)]
    seed: u64,
    /// Fewest words a sampled sentence must have.
    #[arg(long, default_value_t = seamscope::calibrate::sample::DEFAULT_MIN_WORDS, value_name = "WORDS")]
    min_words: usize,
    /// Results kept per search list (default from settings, 150).
    #[arg(long, value_name = "N")]
    depth: Option<usize>,
    /// Ask a language model for the questions: an OpenAI-compatible API base such as
    /// http://localhost:8080/v1 (default: offline keyword queries).
    #[arg(long, value_name = "URL", requires = "llm_model")]
    llm_url: Option<String>,
    /// The model name sent to --llm-url.
    #[arg(long, value_name = "NAME", requires = "llm_url")]
    llm_model: Option<String>,
    /// Environment variable holding the API key, sent as a Bearer token when set (optional).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    llm_key_env: String,
    /// Seconds one request to the model may take in all.
    #[arg(long, value_name = "SECONDS", default_value_t = seamscope::calibrate::llm::DEFAULT_TIMEOUT_SECS)]
    llm_timeout: f64,
    /// Seconds to wait for a connection to the model (default: --llm-timeout).
    #[arg(long, value_name = "SECONDS")]
    llm_connect_timeout: Option<f64>,
    /// Retries after a timeout, dropped connection, HTTP 5xx or 429, with doubling waits from 1 s.
    #[arg(long, value_name = "N", default_value_t = seamscope::calibrate::llm::DEFAULT_RETRIES)]
    llm_retries: u32,
    /// Also list every sampled sentence with its question and head start.
    #[arg(long)]
    list: bool,
    /// Calibrate from a question set with gold evidence instead of sampled sentences: boundary
    /// questions are the crossing sample, inside and edge questions the unsplit one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["llm_url", "llm_model"])]
    questions: Option<std::path::PathBuf>,
}

fn seconds(name: &str, v: f64) -> anyhow::Result<Duration> {
    anyhow::ensure!(
        v.is_finite() && v > 0.0 && v <= 86_400.0,
        "--{name} must be a number of seconds above 0 (got {v})"
    );
    Ok(Duration::from_secs_f64(v))
}

impl CalibrateArgs {
    fn generator(&self) -> anyhow::Result<Box<dyn QuestionGenerator>> {
        let (Some(url), Some(model)) = (&self.llm_url, &self.llm_model) else {
            return Ok(Box::new(KeywordQuestions));
        };
        let timeout = seconds("llm-timeout", self.llm_timeout)?;
        let connect = match self.llm_connect_timeout {
            Some(v) => seconds("llm-connect-timeout", v)?,
            None => timeout,
        };
        let config = LlmConfig {
            api_key: std::env::var(&self.llm_key_env)
                .ok()
                .filter(|k| !k.trim().is_empty()),
            connect_timeout: connect,
            timeout,
            retries: self.llm_retries,
            ..LlmConfig::new(url.clone(), model.clone())
        };
        Ok(Box::new(LlmQuestions::new(config)?))
    }
}

/// Run the calibration and print the report (or JSON).
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout: &LayoutArgs,
    args: &CalibrateArgs,
    json: bool,
) -> anyhow::Result<()> {
    anyhow::ensure!(args.samples >= 1, "--samples must be at least 1");
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    if let Some(d) = args.depth {
        anyhow::ensure!(
            d >= 1,
            "--depth must be at least 1 (results per search list)"
        );
        settings.depth = d;
    }
    settings.validate()?;
    let mut generator = args.generator()?;
    let mut engine = start_engine(settings.clone())?;
    let mut bar = BuildBar::new();
    let open = engine.open_corpus(corpus, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let options = CalibrateOptions {
        sample: SampleOptions {
            per_kind: args.samples,
            seed: args.seed,
            min_words: args.min_words,
        },
        query: settings.query_settings(),
    };
    let mut progress = |p: seamscope::calibrate::CalibrationProgress| {
        if !json && (p.done.is_multiple_of(20) || p.done == p.total) {
            eprintln!("calibrate: asked {} of {} questions", p.done, p.total);
        }
        true
    };
    let report = match &args.questions {
        None => calibrate(
            &mut engine,
            &open,
            generator.as_mut(),
            &options,
            &mut progress,
        )?,
        Some(path) => {
            let questions = super::common::load_question_file(path, &open.corpus)?;
            let query = options.query;
            let mut search = |q: &str| Ok(engine.ask(&open, q, &query)?.0.fused);
            calibrate_from_questions(
                &open.corpus,
                &open.layout,
                &questions,
                &path.display().to_string(),
                &query,
                &mut search,
                &mut progress,
            )?
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report, args.list));
    }
    Ok(())
}

/// Widest bar of the histogram, in characters.
const BAR: usize = 28;

fn bar(count: usize, max: usize) -> String {
    if count == 0 || max == 0 {
        return String::new();
    }
    let len = (count * BAR).div_ceil(max).max(1);
    "█".repeat(len)
}

fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_string(), |s| format!("{:.0}%", s * 100.0))
}

fn spread_row(d: &Distribution) -> String {
    match d.spread {
        Some(s) => format!(
            "  {:<9} {:>4} of {:<4} {:>6} {:>6} {:>6} {:>6} {:>6}   {:>3} chunk, {} seam",
            d.kind.label(),
            d.measured,
            d.candidates,
            s.min,
            s.p10,
            s.p50,
            s.p90,
            s.max,
            d.chunk_absent,
            d.seam_absent
        ),
        None => format!(
            "  {:<9} {:>4} of {:<4} (nothing measured)",
            d.kind.label(),
            d.measured,
            d.candidates
        ),
    }
}

/// The text report: setup, both histograms side by side, percentiles, recommendation, warnings.
pub fn render(r: &CalibrationReport, list: bool) -> String {
    let mut out = String::new();
    let s = &r.setup;
    let _ = writeln!(
        out,
        "calibrating m on {} ({}, k = {}, depth {}, c = {}); {} sentences per kind, seed {}",
        safe(&s.corpus),
        s.chunker,
        s.k,
        s.depth,
        s.rrf_c,
        s.samples_per_kind,
        s.seed
    );
    let _ = writeln!(out, "questions: {}", s.generator);
    out.push_str(&wrap(&s.generator_description, 96, "  "));
    let _ = writeln!(
        out,
        "\nhead start = pos(chunk) - pos(seam) in the fused ranking; a seam fires when head start >= m"
    );
    let _ = writeln!(
        out,
        "(unsplit: over the chunk holding the sentence; crossing: over the better-ranked chunk; an\n entry absent from the fused list counts as last, len + 1)\n"
    );

    let max = r
        .histogram
        .iter()
        .map(|b| b.unsplit.max(b.crossing))
        .max()
        .unwrap_or(0);
    let m = r.verdict.recommended_m.map(i64::from);
    let high = r.verdict.working_range.map(|w| i64::from(w.high));
    let unsplit_title = format!("unsplit ({})", r.unsplit.measured);
    let _ = writeln!(
        out,
        "  {:>11}  {unsplit_title:<w$}  crossing ({})",
        "head start",
        r.crossing.measured,
        w = BAR + 5
    );
    for b in &r.histogram {
        let mut marks = Vec::new();
        if let Some(m) = m.filter(|&m| b.holds(m)) {
            marks.push(format!("◀ m = {m} (recommended)"));
        }
        if let Some(h) = high.filter(|&h| b.holds(h)) {
            marks.push(format!("◀ {h} (top of working range)"));
        }
        let cell = |n: usize| {
            if n == 0 {
                String::new()
            } else {
                format!("{} {n}", bar(n, max))
            }
        };
        let line = format!(
            "  {:>11}  {:<w$}  {:<w$}{}",
            b.label(),
            cell(b.unsplit),
            cell(b.crossing),
            marks.join(" "),
            w = BAR + 5
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if r.histogram.is_empty() {
        let _ = writeln!(out, "  (no head starts measured)");
    }

    let _ = writeln!(
        out,
        "\n  {:<9} {:>12} {:>6} {:>6} {:>6} {:>6} {:>6}   absent (counted last)",
        "", "measured", "min", "p10", "p50", "p90", "max"
    );
    let _ = writeln!(out, "{}", spread_row(&r.unsplit));
    let _ = writeln!(out, "{}", spread_row(&r.crossing));
    let _ = writeln!(out, "  (percentiles by nearest rank: rank ceil(p*n/100))\n");

    let v = &r.verdict;
    match (v.recommended_m, r.unsplit.spread) {
        (Some(m), Some(sp)) => {
            let _ = writeln!(
                out,
                "recommended m = {m}   (unsplit p90 = {}, plus 1, at least 1)",
                sp.p90
            );
            let _ = writeln!(
                out,
                "  at m = {m}: {} of unsplit facts fire over their chunk, {} of crossing facts fire",
                percent(v.unsplit_firing),
                percent(v.crossing_firing)
            );
        }
        _ => {
            let _ = writeln!(out, "no recommendation: no unsplit sentence was measured");
        }
    }
    match (v.working_range, v.half_firing_margin) {
        (Some(w), _) => {
            let _ = writeln!(
                out,
                "working range: m = {} to {}   (from the recommendation up to the largest m at which half of the\n  crossing facts still fire)",
                w.low, w.high
            );
        }
        (None, Some(h)) if v.heavy_overlap => {
            let _ = writeln!(
                out,
                "working range: empty   (half of the crossing facts fire only up to m = {h})"
            );
        }
        _ => {
            let _ = writeln!(out, "working range: unknown (a sample is missing)");
        }
    }
    let _ = writeln!(out, "rule: {}", r.rules.recommendation);
    for w in &r.warnings {
        let _ = writeln!(out);
        out.push_str(&wrap(&format!("warning: {}", w.text), 96, ""));
    }

    if list {
        let _ = writeln!(
            out,
            "\nsamples (head start, seam, document, sentence → question)"
        );
        for rec in &r.samples {
            let head = rec
                .head_start
                .map_or_else(|| "skip".to_string(), |h| h.value.to_string());
            let absent = match rec.head_start {
                Some(h) if h.chunk_absent => " (chunk absent)",
                Some(h) if h.seam_absent => " (seam absent)",
                _ => "",
            };
            let _ = writeln!(
                out,
                "  {:<8} {:>5}{absent}  seam {}|{}  {}:{}",
                rec.kind.label(),
                head,
                rec.seam_chunks.0,
                rec.seam_chunks.1,
                safe(&rec.doc),
                rec.start
            );
            let _ = writeln!(out, "      {}", safe(&rec.sentence));
            match (&rec.question, &rec.skipped) {
                (Some(q), _) => {
                    let _ = writeln!(out, "    → {}", safe(q));
                }
                (None, Some(why)) => {
                    let _ = writeln!(out, "    → skipped: {why}");
                }
                _ => {}
            }
        }
    }
    out
}
