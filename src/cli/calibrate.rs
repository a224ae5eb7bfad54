//! `seamscope calibrate`: recommend the fire margin `m` from what each margin does to the context
//! (failure rate at the budget, with intervals), with the white paper's head-start histograms and
//! rule beside it as a diagnostic.

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use seamscope::calibrate::{
    CalibrateOptions, CalibrationProgress, CalibrationReport, CalibrationSource, CurvePoint,
    Distribution, KeywordQuestions, LlmConfig, LlmQuestions, MarginCurve, PassageOptions,
    QuestionGenerator, SampleOptions,
};
use seamscope::text::safe;

use super::common::{BuildBar, start_engine};
use super::{GlobalArgs, LayoutArgs};

/// Options of `calibrate`.
#[derive(Debug, clap::Args, Clone)]
pub struct CalibrateArgs {
    /// Final budget, in chunks, that every candidate m is scored at (default from settings, 5).
    #[arg(long, value_name = "CHUNKS", value_parser = super::usize_in(1..=10_000))]
    budget: Option<usize>,
    /// Passages drawn for the measured failure-vs-m curve (without --questions).
    #[arg(long, default_value_t = seamscope::calibrate::passage::DEFAULT_PASSAGES, value_name = "N", value_parser = super::usize_in(seamscope::calibrate::passage::PASSAGES_RANGE))]
    passages: usize,
    /// Largest candidate m scored (candidates are 0 to this).
    #[arg(long, default_value_t = seamscope::calibrate::objective::DEFAULT_MAX_M, value_name = "M", value_parser = super::u32_in(seamscope::calibrate::objective::MAX_M_RANGE))]
    max_m: u32,
    /// Sentences sampled per kind (unsplit and crossing) for the head-start diagnostic.
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
    /// Also list every sampled passage and sentence with its question (and head start).
    #[arg(long)]
    list: bool,
    /// Calibrate on a question set with gold evidence instead of sampled passages and sentences:
    /// every question scores the curve; boundary questions are the crossing head-start sample,
    /// inside and edge questions the unsplit one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["llm_url", "llm_model"])]
    questions: Option<std::path::PathBuf>,
    /// Do not score the quick board's non-Seams strategies (overlap, windows, neighbours, SCAR)
    /// on the same questions when Seams fails fewer of them than chunks only.
    #[arg(long)]
    no_alternatives: bool,
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
    if let Some(b) = args.budget {
        settings.budget = b;
    }
    if let Some(d) = args.depth {
        anyhow::ensure!(
            d >= 1,
            "--depth must be at least 1 (results per search list)"
        );
        settings.depth = d;
    }
    settings.validate()?;
    super::args::check_measured_budget(settings.budget)?;
    let mut generator = args.generator()?;
    let mut engine = start_engine(settings.clone())?;
    // The question file is checked whole before anything is indexed or embedded.
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let questions = match &args.questions {
        Some(path) => Some(super::common::load_question_file(path, &docs)?),
        None => None,
    };
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_loaded(docs, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let options = CalibrateOptions {
        sample: SampleOptions {
            per_kind: args.samples,
            seed: args.seed,
            min_words: args.min_words,
        },
        passages: PassageOptions {
            count: args.passages,
            seed: args.seed,
            ..PassageOptions::default()
        },
        query: settings.query_settings(),
        max_m: args.max_m,
    };
    let mut progress = |p: CalibrationProgress| {
        if !json && (p.done.is_multiple_of(50) || p.done == p.total) {
            errln!("calibrate: asked {} of {} questions", p.done, p.total);
        }
        true
    };
    let name = args.questions.as_ref().map(|p| p.display().to_string());
    let source = match (&name, &questions) {
        (Some(name), Some(questions)) => CalibrationSource::Gold { name, questions },
        _ => CalibrationSource::Sampled(generator.as_mut()),
    };
    let mut report =
        seamscope::calibrate::run(&mut engine, &open, source, &options, &mut progress)?;
    if !args.no_alternatives {
        report.alternatives =
            alternatives(&mut engine, &open, &report, questions.as_deref(), json)?;
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", render(&report, args.list))?;
    }
    Ok(())
}

/// When Seams fails fewer questions than chunks only: the quick board's other strategies on the
/// same questions (progress on stderr unless `quiet`).
fn alternatives(
    engine: &mut seamscope::session::Engine,
    open: &seamscope::session::OpenCorpus,
    report: &CalibrationReport,
    gold: Option<&[seamscope::eval::questions::Question]>,
    quiet: bool,
) -> anyhow::Result<Option<seamscope::calibrate::Alternatives>> {
    use seamscope::eval::run::SearchProgress;
    if !report.objective.benefit.seams_fails_less() {
        return Ok(None);
    }
    let mut progress = |p: SearchProgress<'_>| {
        if let (
            false,
            SearchProgress::Preparing {
                index,
                count,
                label,
            },
        ) = (quiet, p)
        {
            errln!(
                "calibrate: beside Seams, strategy {} of {count}: {}",
                index + 1,
                safe(label)
            );
        }
        true
    };
    let found =
        seamscope::board::alternative::beside_seams(engine, open, report, gold, &mut progress)?;
    if let (false, Some(a)) = (quiet, &found) {
        errln!(
            "calibrate: the other strategies took {:.1}s ({} texts embedded, the rest from the vector cache)",
            a.seconds,
            a.embedded_texts
        );
    }
    Ok(found)
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

/// Width of the failure bars of the curve, in characters.
const CURVE_BAR: usize = 30;

/// Consecutive margins that give the same failures, fires and tokens, as `(first, last)` index
/// pairs into `points`: the curve is printed one line per run.
fn runs(points: &[CurvePoint]) -> Vec<(usize, usize)> {
    let same = |a: &CurvePoint, b: &CurvePoint| {
        a.failures == b.failures
            && (a.mean_tokens - b.mean_tokens).abs() < 0.5
            && (a.fires_per_question - b.fires_per_question).abs() < 0.005
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    for i in 0..points.len() {
        match out.last_mut() {
            Some(run) if same(&points[run.1], &points[i]) => run.1 = i,
            _ => out.push((i, i)),
        }
    }
    out
}

fn curve_row(p: &CurvePoint, label: &str, max_rate: f64, note: &str) -> String {
    let len = if max_rate > 0.0 {
        ((p.failure_rate / max_rate) * CURVE_BAR as f64).round() as usize
    } else {
        0
    };
    format!(
        "  {label:<12} {:>4}/{:<4} {:>5.1}%  [{:>4.1}–{:>4.1}]  {:<w$}  {:>6.0} {:>6.2} {:>6.2}  {note}",
        p.failures,
        p.questions,
        p.failure_rate * 100.0,
        p.interval.low * 100.0,
        p.interval.high * 100.0,
        "█".repeat(len),
        p.mean_tokens,
        p.fires_per_question,
        p.false_fires_per_question,
        w = CURVE_BAR
    )
    .trim_end()
    .to_string()
}

/// The measured failure-vs-m curve, one line per run of equal margins, "Seams off" last.
pub fn render_curve(c: &MarginCurve) -> String {
    let mut out = String::new();
    let max_rate = c
        .points
        .iter()
        .chain(&c.off)
        .map(|p| p.failure_rate)
        .fold(0.0, f64::max);
    let _ = writeln!(
        out,
        "  {:<12} {:>9} {:>6}  {:<11}  {:<w$}  {:>6} {:>6} {:>6}",
        "margin",
        "failures",
        "rate",
        "95% interval",
        "failure rate",
        "tokens",
        "fires",
        "false",
        w = CURVE_BAR
    );
    for (first, last) in runs(&c.points) {
        let (a, b) = (&c.points[first], &c.points[last]);
        let (ma, mb) = (a.m.unwrap_or(0), b.m.unwrap_or(0));
        let label = if ma == mb {
            format!("m = {ma}")
        } else {
            format!("m = {ma}–{mb}")
        };
        let holds = |m: u32| (ma..=mb).contains(&m);
        let note = if c.recommended_m.is_some_and(holds) {
            "◀ recommended".to_string()
        } else if c.indistinguishable.iter().any(|&m| holds(m)) {
            "≈ best (difference is noise)".to_string()
        } else {
            String::new()
        };
        let _ = writeln!(out, "{}", curve_row(a, &label, max_rate, &note));
    }
    if let Some(off) = &c.off {
        let note = match off.vs_best {
            Some(d) if d.noise => "≈ best (difference is noise)",
            _ => "chunks-only retrieval",
        };
        let _ = writeln!(out, "{}", curve_row(off, "Seams off", max_rate, note));
    }
    let _ = writeln!(
        out,
        "  (tokens: mean sent per question; fires: seams that added chunks, per question; false: fires\n   whose cut does not split the evidence; ≈: a paired sign test against the recommended m gives\n   p >= 0.05)"
    );
    out
}

/// The text report: the measured curve and recommendation, then the head-start diagnostic.
pub fn render(r: &CalibrationReport, list: bool) -> String {
    let mut out = String::new();
    render_measured(&mut out, r);
    render_head_starts(&mut out, r);
    render_paper_rule(&mut out, r);
    if list {
        render_samples(&mut out, r);
    }
    out
}

/// What was measured: the setup, the failure curve per m and the recommendation.
fn render_measured(out: &mut String, r: &CalibrationReport) {
    let s = &r.setup;
    let _ = writeln!(
        out,
        "calibrating m on {} ({}, k = {}, depth {}, c = {}, budget {} chunks)",
        safe(&s.corpus),
        s.chunker,
        s.k,
        s.depth,
        s.rrf_c,
        s.budget
    );
    if let Some(e) = &s.embedder {
        let _ = writeln!(out, "embedder: {}", safe(e));
    }
    let _ = writeln!(out, "questions: {}", s.generator);
    out.push_str(&wrap(&s.generator_description, 96, "  "));
    let _ = writeln!(
        out,
        "\nmeasured: failure rate (the context misses part of the evidence) at budget {}, per m",
        s.budget
    );
    out.push_str(&wrap(&format!("on {}", s.objective_source), 96, "  "));
    if let Some(p) = &r.passages {
        let _ = writeln!(
            out,
            "  passages: {} scored of {} draws ({} without a question, {} repeats, {} overlong); \
             {}/{}/{} tokens (min/median/max)",
            p.measured,
            p.draws,
            p.skipped,
            p.repeats,
            p.too_long,
            p.tokens.0,
            p.tokens.1,
            p.tokens.2
        );
    }
    out.push_str(&render_curve(&r.objective));
    let v = &r.verdict;
    match v.recommended_m {
        Some(m) => {
            let _ = writeln!(
                out,
                "\nrecommended m = {m}   (fewest failures at budget {}; ties go to the larger m)",
                v.budget
            );
        }
        None => {
            let _ = writeln!(out, "\nno recommendation: no question was scored");
        }
    }
    out.push_str(&wrap(&v.summary, 96, "  "));
    if let Some(a) = &r.alternatives {
        out.push_str(&wrap(&a.sentence, 96, "  "));
        let off = r.objective.off.as_ref().map(|o| o.failures);
        if off.is_some_and(|o| o != a.chunks_only_failures) {
            out.push_str(&wrap(
                &format!(
                    "(the board's chunks only fails {} questions where the calibration's Seams \
                     off fails {}: the two retrieve through different indexes)",
                    a.chunks_only_failures,
                    off.unwrap_or(0)
                ),
                96,
                "  ",
            ));
        }
    }
    if let Some(note) = &v.rule_note {
        out.push_str(&wrap(note, 96, "  "));
    }
}

/// The white paper's diagnostic: head starts of unsplit and crossing samples as a histogram.
fn render_head_starts(out: &mut String, r: &CalibrationReport) {
    let s = &r.setup;
    let _ = writeln!(
        out,
        "\ndiagnostic (white paper 3.2): head start = pos(chunk) - pos(seam) in the fused ranking; a seam fires when head start >= m"
    );
    let _ = writeln!(
        out,
        "(unsplit: over the chunk holding the sentence; crossing: over the better-ranked chunk; an\n entry absent from the fused list counts as last, len + 1); {} sentences per kind, seed {}\n",
        s.samples_per_kind, s.seed
    );

    let max = r
        .histogram
        .iter()
        .map(|b| b.unsplit.max(b.crossing))
        .max()
        .unwrap_or(0);
    let m = r.paper_rule.recommended_m.map(i64::from);
    let high = r.paper_rule.working_range.map(|w| i64::from(w.high));
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
            marks.push(format!("◀ m = {m} (paper's rule)"));
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
}

/// The spread of head starts, the paper's rule, the working range and the warnings.
fn render_paper_rule(out: &mut String, r: &CalibrationReport) {
    let _ = writeln!(
        out,
        "\n  {:<9} {:>12} {:>6} {:>6} {:>6} {:>6} {:>6}   absent (counted last)",
        "", "measured", "min", "p10", "p50", "p90", "max"
    );
    let _ = writeln!(out, "{}", spread_row(&r.unsplit));
    let _ = writeln!(out, "{}", spread_row(&r.crossing));
    let _ = writeln!(out, "  (percentiles by nearest rank: rank ceil(p*n/100))\n");

    let v = &r.paper_rule;
    match (v.recommended_m, r.unsplit.spread) {
        (Some(m), Some(sp)) => {
            let _ = writeln!(
                out,
                "paper's rule: m = {m}   (unsplit p90 = {}, plus 1, at least 1; a diagnostic, not the recommendation)",
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
            let _ = writeln!(out, "paper's rule: no m (no unsplit sentence was measured)");
        }
    }
    match (v.working_range, v.half_firing_margin) {
        (Some(w), _) => {
            let _ = writeln!(
                out,
                "working range: m = {} to {}   (from the rule's m up to the largest m at which half of the\n  crossing facts still fire)",
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
    let _ = writeln!(out, "rule: {}", r.rules.paper_rule);
    for w in &r.warnings {
        let _ = writeln!(out);
        out.push_str(&wrap(&format!("warning: {}", w.text), 96, ""));
    }
}

/// Every passage and sample with its question (`--list`).
fn render_samples(out: &mut String, r: &CalibrationReport) {
    let _ = writeln!(
        out,
        "\npassages (crosses a cut?, tokens, document:byte → question)"
    );
    for p in &r.passage_samples {
        let _ = writeln!(
            out,
            "  {:<8} {:>4}  {}:{}",
            if p.crosses_cut { "crossing" } else { "inside" },
            p.tokens,
            safe(&p.doc),
            p.start
        );
        match (&p.question, &p.skipped) {
            (Some(q), _) => {
                let _ = writeln!(out, "    → {}", safe(q));
            }
            (None, Some(why)) => {
                let _ = writeln!(out, "    → skipped: {why}");
            }
            _ => {}
        }
    }
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
