//! `seamscope questions check`: a gold question file against its corpus, every problem listed,
//! each question's class under the layout, and with `--fix OUT` a repaired copy (never in place).

use std::path::{Path, PathBuf};

use seamscope::doctor::gold::{GoldReport, LineAction, QuestionCheck, SpanStatus};
use seamscope::text::{safe, safe_name};

use super::chunks::{load_corpus, load_tokenizer};
use super::{GlobalArgs, LayoutArgs, UsageError};

/// What `seamscope questions` does.
#[derive(Debug, clap::Subcommand)]
pub enum QuestionsCommand {
    /// Check a gold question file against the corpus: every span's text at its offsets, spans
    /// placed by exact then fuzzy match, duplicate ids, empty or unanswerable questions, and
    /// each question's class (WHOLE / SPLIT / ABSENT) under the layout. Exits 1 when a problem
    /// is left (with --fix: when a line had to be left out), 0 otherwise.
    Check {
        /// Corpus folder or file.
        corpus: PathBuf,
        /// The question file (JSON Lines).
        file: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        /// Write the repaired file here (never over the question file itself).
        #[arg(long, value_name = "OUT", value_parser = super::args::non_empty_path)]
        fix: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

impl QuestionsCommand {
    /// Whether JSON output was asked for.
    pub fn json(&self) -> bool {
        match self {
            QuestionsCommand::Check { json, .. } => *json,
        }
    }
}

/// Run a `questions` command.
pub fn run(global: &GlobalArgs, command: QuestionsCommand) -> anyhow::Result<()> {
    match command {
        QuestionsCommand::Check {
            corpus,
            file,
            layout,
            fix,
            json,
        } => check(global, &corpus, &file, &layout, fix.as_deref(), json),
    }
}

/// Refuse an output that is the question file itself (by any name), a folder or a special file.
fn check_output(out: &Path, input: &Path) -> Result<(), UsageError> {
    super::args::check_output_file("--fix", out)?;
    let name = safe_name(&out.display().to_string());
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = parent
        .canonicalize()
        .unwrap_or_else(|_| parent.to_path_buf());
    let resolved = out
        .canonicalize()
        .unwrap_or_else(|_| folder.join(out.file_name().unwrap_or_default()));
    if input.canonicalize().is_ok_and(|i| i == resolved) {
        return Err(UsageError(format!(
            "--fix {name} is the question file itself: the repair is never written in place; give another file"
        )));
    }
    Ok(())
}

fn check(
    global: &GlobalArgs,
    corpus: &Path,
    file: &Path,
    layout_args: &LayoutArgs,
    fix: Option<&Path>,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout_args.apply(&mut settings)?;
    if let Some(out) = fix {
        check_output(out, file)?;
    }
    let text = seamscope::files::read_named_text(file, seamscope::files::QUESTIONS_LIMIT).map_err(
        |e| {
            anyhow::anyhow!(
                "cannot read question file {}: {e}",
                safe_name(&file.display().to_string())
            )
        },
    )?;
    if let Some(e) = seamscope::eval::questions::too_many_lines(&text) {
        anyhow::bail!(
            "question file {}: {e}",
            safe_name(&file.display().to_string())
        );
    }
    let tokenizer = load_tokenizer(&settings)?;
    let docs = load_corpus(corpus, &settings)?;
    super::common::report_skips(&docs);
    let layout = seamscope::layout::Layout::for_settings(&docs, &tokenizer, &settings)?;
    let checked = seamscope::doctor::gold::check(&docs, &layout, &text);
    let report = &checked.report;
    if let Some(out) = fix {
        write_repaired(out, &checked.repaired)?;
    }
    if json {
        let mut v = serde_json::to_value(report)?;
        v["file"] = file.display().to_string().into();
        v["fixed_file"] = fix.map(|p| p.display().to_string()).into();
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        out!("{}", render(report, file, fix))?;
    }
    let s = &report.summary;
    let problems = report
        .questions
        .iter()
        .filter(|q| !q.problems.is_empty())
        .count();
    match fix {
        Some(_) => anyhow::ensure!(
            s.dropped == 0,
            "{} line(s) could not be repaired and were left out of the repaired file",
            s.dropped
        ),
        None => anyhow::ensure!(
            problems == 0,
            "{problems} line(s) of {} have problems (--fix OUT writes a repaired copy)",
            safe_name(&file.display().to_string())
        ),
    }
    Ok(())
}

/// Write `text` to `out` through a temporary file in its folder, renamed into place (never
/// over a special file: see [`seamscope::files::write_output`]).
fn write_repaired(out: &Path, text: &str) -> anyhow::Result<()> {
    seamscope::files::write_output(out, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}", safe(&e.to_string())))
}

fn status_word(s: SpanStatus) -> &'static str {
    match s {
        SpanStatus::Ok => "ok",
        SpanStatus::Shifted => "offsets off, found exactly",
        SpanStatus::TextOnly => "text only, found exactly",
        SpanStatus::Words => "found by its words",
        SpanStatus::Fuzzy => "found by fuzzy match",
        SpanStatus::Ambiguous => "ambiguous",
        SpanStatus::OtherDocument => "in another document",
        SpanStatus::NotFound => "not found",
    }
}

/// How many lines with problems the text report shows before it says how many more.
const LINES_LISTED: usize = 50;

/// The report as text: the summary, then the first [`LINES_LISTED`] lines with a problem.
fn render(report: &GoldReport, file: &Path, fix: Option<&Path>) -> String {
    use std::fmt::Write;
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "questions check: {}\n  {} lines: {} ok, {} {}, {} {}\n  classes under {}: {} WHOLE, {} SPLIT, {} ABSENT",
        safe_name(&file.display().to_string()),
        s.lines,
        s.ok,
        s.repaired,
        if fix.is_some() {
            "repaired"
        } else {
            "repairable"
        },
        s.dropped,
        if fix.is_some() {
            "left out"
        } else {
            "not repairable"
        },
        safe(&report.chunker),
        s.whole,
        s.split,
        s.absent
    );
    let with_problems = report
        .questions
        .iter()
        .filter(|q| !q.problems.is_empty())
        .count();
    for q in report
        .questions
        .iter()
        .filter(|q| !q.problems.is_empty())
        .take(LINES_LISTED)
    {
        render_line(&mut out, q, fix);
    }
    if with_problems > LINES_LISTED {
        let _ = writeln!(
            out,
            "\nand {} more line(s) with problems (--json lists every one)",
            with_problems - LINES_LISTED
        );
    }
    match fix {
        Some(path) => {
            let _ = writeln!(
                out,
                "\nrepaired file written to {}",
                safe_name(&path.display().to_string())
            );
        }
        None if s.ok < s.lines => {
            let _ = writeln!(
                out,
                "\n--fix OUT writes a repaired copy (never over the file itself)"
            );
        }
        None => {}
    }
    out
}

/// One line with a problem: what is done with it, its problems, its spans not in place (with
/// their other places) and the changes a repair makes.
fn render_line(out: &mut String, q: &QuestionCheck, fix: Option<&Path>) {
    use std::fmt::Write;
    let action = match (q.action, fix.is_some()) {
        (LineAction::Keep, _) => "kept",
        (LineAction::Repair, true) => "repaired",
        (LineAction::Repair, false) => "repairable",
        (LineAction::Drop, true) => "left out",
        (LineAction::Drop, false) => "not repairable",
    };
    let _ = writeln!(
        out,
        "\nline {} ({}, {}): {action}",
        q.line,
        safe(&q.id),
        safe_name(&q.doc)
    );
    for p in &q.problems {
        let _ = writeln!(out, "  problem: {}", safe(p));
    }
    for (i, sp) in q
        .spans
        .iter()
        .enumerate()
        .filter(|(_, sp)| sp.status != SpanStatus::Ok)
    {
        let _ = write!(
            out,
            "  span {}: {} (confidence {:.3})",
            i + 1,
            status_word(sp.status),
            sp.confidence
        );
        // An ambiguous span's places are in its problem already.
        if !sp.alternatives.is_empty() && sp.status != SpanStatus::Ambiguous {
            let alts: Vec<String> = sp
                .alternatives
                .iter()
                .map(|a| {
                    format!(
                        "{}..{} line {} ({:.2})",
                        a.start, a.end, a.line, a.confidence
                    )
                })
                .collect();
            let _ = write!(out, "; other places: {}", alts.join(", "));
        }
        out.push('\n');
    }
    for c in &q.changes {
        let _ = writeln!(out, "  change: {}", safe(c));
    }
}
