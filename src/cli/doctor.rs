//! `seamscope doctor`: what is wrong with a corpus' cuts before anyone asks a question, as a
//! report (or `--json`), with a score and two gates: `--fail-under N` and `--baseline FILE`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use seamscope::doctor::evidence::EvidenceRisk;
use seamscope::doctor::{
    DoctorLayout, DoctorOptions, DoctorProgress, DoctorReport, Finding, compare_reports,
};
use seamscope::text::{safe, safe_name};

use super::common::{BuildBar, report_skips, start_engine};
use super::{GlobalArgs, LayoutArgs, UsageError};

/// Options of `doctor`.
#[derive(Debug, clap::Args, Clone)]
pub struct DoctorArgs {
    /// Budget, in chunks, the sampled questions are asked at (default from settings, 5).
    #[arg(long, value_name = "CHUNKS", value_parser = super::usize_in(1..=10_000))]
    budget: Option<usize>,
    /// Offline questions drawn for the hub findings (passages asked as their content words);
    /// 0 skips them.
    #[arg(long, default_value_t = seamscope::doctor::hubs::DEFAULT_QUESTIONS, value_name = "N", value_parser = super::usize_in(0..=100_000))]
    questions: usize,
    /// Passages drawn per evidence length (100, 200 and 400 tokens).
    #[arg(long, default_value_t = seamscope::doctor::evidence::DEFAULT_PASSAGES, value_name = "N", value_parser = super::usize_in(1..=100_000))]
    passages: usize,
    /// Seed of every draw: the same seed draws the same questions and passages.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Cosine at or above which two chunks are near-duplicates, 0.5 to 1.
    #[arg(long, value_name = "COSINE", default_value_t = seamscope::doctor::repeats::DEFAULT_DUPLICATE_COSINE)]
    duplicate_cosine: f64,
    /// Share of sampled questions (0 to 1) a chunk or seam must reach to be a hub (and at least
    /// 3 times its fair share, budget ÷ chunks).
    #[arg(long, value_name = "SHARE", default_value_t = seamscope::doctor::hubs::DEFAULT_HUB_SHARE)]
    hub_share: f64,
    /// Exit 1 when the score is below N (0 to 100); 0 at or above it.
    #[arg(long, value_name = "N", value_parser = super::u32_in(0..=100))]
    fail_under: Option<u32>,
    /// A previous `doctor --json` report: exit 1 when any finding's share rose since.
    #[arg(long, value_name = "FILE", value_parser = super::args::non_empty_path)]
    baseline: Option<PathBuf>,
}

impl DoctorArgs {
    fn options(&self) -> Result<DoctorOptions, UsageError> {
        if !(0.5..=1.0).contains(&self.duplicate_cosine) {
            return Err(UsageError(format!(
                "--duplicate-cosine {} is out of range: give 0.5 to 1",
                self.duplicate_cosine
            )));
        }
        if !(self.hub_share > 0.0 && self.hub_share <= 1.0) {
            return Err(UsageError(format!(
                "--hub-share {} is out of range: give a share above 0, at most 1",
                self.hub_share
            )));
        }
        Ok(DoctorOptions {
            questions: self.questions,
            seed: self.seed,
            duplicate_cosine: self.duplicate_cosine,
            hub_share: self.hub_share,
            passages: self.passages,
            ..DoctorOptions::default()
        })
    }
}

/// Read a baseline: a `doctor --json` report, or the error document a failed gate printed
/// around it (`output`).
fn read_baseline(path: &Path) -> Result<DoctorReport, UsageError> {
    let name = safe_name(&path.display().to_string());
    let bytes = seamscope::files::read_json(path)
        .map_err(|e| UsageError(format!("--baseline {name}: cannot read it: {e}")))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| UsageError(format!("--baseline {name}: not JSON: {e}")))?;
    let report = value.get("output").cloned().unwrap_or(value);
    serde_json::from_value(report).map_err(|e| {
        UsageError(format!(
            "--baseline {name}: not a `seamscope doctor --json` report: {e}"
        ))
    })
}

/// Run the doctor and print the report; the gates fail the run (exit 1) after it is printed.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout: &LayoutArgs,
    args: &DoctorArgs,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    if let Some(b) = args.budget {
        settings.budget = b;
    }
    settings.validate()?;
    let options = args.options()?;
    let baseline = args.baseline.as_deref().map(read_baseline).transpose()?;
    let mut engine = start_engine(settings)?;
    let docs = engine.load_corpus(corpus)?;
    report_skips(&docs);
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_loaded(docs, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let mut progress = |p: DoctorProgress| {
        if let (false, DoctorProgress::Asking { done, total }) = (json, p)
            && done > 0
            && (done.is_multiple_of(50) || done == total)
        {
            errln!("doctor: asked {done} of {total} sampled questions");
        }
        true
    };
    let under = engine.settings.query_settings();
    let report = seamscope::doctor::diagnose(&mut engine, &open, &under, &options, &mut progress)?
        .ok_or_else(|| anyhow::anyhow!("the diagnosis was stopped"))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", render(&report))?;
    }
    let mut failures = Vec::new();
    if let Some(base) = &baseline {
        let path = args.baseline.as_deref().unwrap_or(Path::new(""));
        let (text, worse) = baseline_comparison(base, &report, path);
        // With --json the comparison goes to stderr, so stdout stays the report.
        if json {
            err!("{text}");
        } else {
            out!("{text}")?;
        }
        failures.extend(worse);
    }
    if let Some(n) = args.fail_under
        && report.score.value < f64::from(n)
    {
        failures.push(format!(
            "the score {:.1} is below --fail-under {n}",
            report.score.value
        ));
    }
    anyhow::ensure!(failures.is_empty(), "{}", failures.join("; "));
    Ok(())
}

/// The comparison with the baseline at `path` in words (scores, a note when the two were
/// measured on different layouts, each finding that got worse), and the gate's failure when
/// one did.
fn baseline_comparison(
    base: &DoctorReport,
    report: &DoctorReport,
    path: &Path,
) -> (String, Option<String>) {
    let worse = compare_reports(base, report);
    let mut text = format!(
        "\ncompared with {} (score {:.1} then, {:.1} now):\n",
        safe_name(&path.display().to_string()),
        base.score.value,
        report.score.value
    );
    let (then, now) = (&base.layout, &report.layout);
    // A baseline of another corpus compares nothing: its shares are other documents'.
    let same_counts = (then.documents, then.tokens) == (now.documents, now.tokens);
    let other_corpus = then.corpus != now.corpus && !same_counts;
    note_differences(&mut text, (then, now), other_corpus, same_counts);
    if worse.is_empty() {
        text.push_str("  no finding got worse\n");
    }
    for w in &worse {
        let _ = writeln!(
            text,
            "  WORSE  {:<26} {} → {} ({:.1}% → {:.1}%)",
            w.kind.label(),
            w.count_before,
            w.count_after,
            w.before * 100.0,
            w.after * 100.0
        );
    }
    if other_corpus {
        return (
            text,
            Some(format!(
                "the baseline is of another corpus ({}), not of {}: compare a run with a baseline of the same corpus",
                safe_name(&then.corpus),
                safe_name(&now.corpus)
            )),
        );
    }
    let failure = (!worse.is_empty()).then(|| {
        let names: Vec<&str> = worse.iter().map(|w| w.kind.label()).collect();
        format!(
            "{} got worse since the baseline: {}",
            if worse.len() == 1 {
                "a finding"
            } else {
                "findings"
            },
            names.join(", ")
        )
    });
    (text, failure)
}

/// Notes on what differs between the baseline's run and this one: another corpus, a changed
/// corpus, another layout, budget or embedder.
fn note_differences(
    out: &mut String,
    (then, now): (&DoctorLayout, &DoctorLayout),
    other_corpus: bool,
    same_counts: bool,
) {
    if other_corpus {
        let _ = writeln!(
            out,
            "  the baseline is of another corpus: {} ({} documents, {} tokens), this run of {} ({} documents, {} tokens)",
            safe_name(&then.corpus),
            then.documents,
            then.tokens,
            safe_name(&now.corpus),
            now.documents,
            now.tokens
        );
    } else if !same_counts {
        let _ = writeln!(
            out,
            "  note: the corpus changed since the baseline ({} → {} documents, {} → {} tokens)",
            then.documents, now.documents, then.tokens, now.tokens
        );
    }
    if (&then.chunker, then.chunks, &then.embedder, then.budget)
        != (&now.chunker, now.chunks, &now.embedder, now.budget)
    {
        let _ = writeln!(
            out,
            "  note: the baseline was measured on {} ({} chunks, budget {}, {}), this run on {} ({} chunks, budget {}, {})",
            safe(&then.chunker),
            then.chunks,
            then.budget,
            safe(&then.embedder),
            safe(&now.chunker),
            now.chunks,
            now.budget,
            safe(&now.embedder)
        );
    }
}

fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// One finding's block: count, share, why, how, and its worst examples with their places.
fn render_finding(out: &mut String, f: &Finding) {
    if !f.applies {
        let _ = writeln!(out, "\n{}: does not apply ({})", f.label, safe(&f.method));
        return;
    }
    let _ = writeln!(
        out,
        "\n{}: {} of {} {} ({})",
        f.label,
        f.count,
        f.of,
        f.unit,
        pct(f.share)
    );
    let _ = writeln!(out, "  why: {}", f.why);
    let _ = writeln!(out, "  how: {}", safe(&f.method));
    for (i, e) in f.examples.iter().enumerate() {
        let l = &e.location;
        let at = match (l.at, l.at_line) {
            (Some(a), Some(line)) => format!(", at byte {a} (line {line})"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {}. {}:{} bytes {}..{}{at}: {}",
            i + 1,
            safe_name(&l.doc),
            l.line,
            l.start,
            l.end,
            safe(&e.detail)
        );
        let _ = writeln!(out, "     \"{}\"", safe(&e.excerpt).replace('\n', " "));
    }
}

/// The report as text.
pub fn render(r: &DoctorReport) -> String {
    let mut out = String::new();
    let l = &r.layout;
    let _ = writeln!(
        out,
        "seamscope doctor: {} ({} documents, {} tokens)\n  layout {}: {} chunks, {} seams, k {}; budget {}; embedder {}",
        safe_name(&l.corpus),
        l.documents,
        l.tokens,
        safe(&l.chunker),
        l.chunks,
        l.seams,
        l.k,
        l.budget,
        safe(&l.embedder)
    );
    let _ = writeln!(
        out,
        "\n  {:<26} {:>8} {:>8} {:<10} {:>7}",
        "finding", "count", "of", "", "share"
    );
    for f in &r.findings {
        if f.applies {
            let _ = writeln!(
                out,
                "  {:<26} {:>8} {:>8} {:<10} {:>7}",
                f.label,
                f.count,
                f.of,
                f.unit,
                pct(f.share)
            );
        } else {
            let _ = writeln!(out, "  {:<26} {:>8}", f.label, "n/a");
        }
    }
    for f in &r.findings {
        render_finding(&mut out, f);
    }
    render_evidence(&mut out, &r.evidence);
    render_score(&mut out, r);
    out
}

/// The evidence lengths against the mean chunk: passages per target length, how many a cut
/// splits and how many it would be predicted to.
fn render_evidence(out: &mut String, e: &EvidenceRisk) {
    let _ = writeln!(
        out,
        "\nevidence length (C = {:.0} tokens, the mean chunk):\n  {:>8} {:>9} {:>8} {:>8} {:>10}",
        e.chunk_tokens, "target", "passages", "mean L", "split", "L ÷ C"
    );
    for row in &e.lengths {
        let _ = writeln!(
            out,
            "  {:>8} {:>9} {:>8.0} {:>8} {:>10}",
            row.target,
            row.passages,
            row.mean_tokens,
            pct(row.share),
            pct(row.predicted)
        );
    }
}

/// The score, its formula and the points each finding takes off.
fn render_score(out: &mut String, r: &DoctorReport) {
    let terms: Vec<String> = r
        .score
        .terms
        .iter()
        .filter(|t| t.points >= 0.05)
        .map(|t| {
            format!(
                "{} {:.2} × {} → {:.1}",
                t.kind.label(),
                t.weight,
                pct(t.share),
                t.points
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "\nscore {:.1} / 100   ({})\n  points off (100 × wᵢ·shareᵢ ÷ Σ wᵢ, Σ wᵢ = {:.2}): {}\n  ({:.1} s)",
        r.score.value,
        r.score.formula,
        r.score.weight_total,
        if terms.is_empty() {
            "none".to_string()
        } else {
            terms.join("; ")
        },
        r.seconds
    );
}
