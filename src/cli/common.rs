//! Pieces every command shares: starting the engine (with setup when needed) and progress bars.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use seamscope::index::{BuildProgress, BuildStage};
use seamscope::session::{Engine, install_if_needed};
use seamscope::settings::Settings;

/// Say what a loaded corpus left out: the grouped line on stderr ("seamscope: corpus: 3
/// skipped: 2 PDFs without a text layer (scanned), 1 encrypted PDF"), and every file with its
/// reason in the `--json` document. Every command that loads a corpus calls this.
pub fn report_skips(corpus: &seamscope::corpus::Corpus) {
    super::out::note_skipped(&corpus.skipped);
    if let Some(summary) = seamscope::corpus::skip_summary(&corpus.skipped) {
        errln!(
            "seamscope: {}: {} documents, {summary} (--json lists each file and why)",
            seamscope::text::safe_name(&corpus.root.display().to_string()),
            corpus.documents.len()
        );
    }
}

/// Install the model if the default one is missing, then load the engine.
pub fn start_engine(settings: Settings) -> anyhow::Result<Engine> {
    install_model_if_needed(&settings)?;
    let engine = Engine::load(settings)?;
    if let Some(device) = engine.embedder.device()
        && device.worth_saying()
    {
        errln!("seamscope: device {}", device.line());
    }
    Ok(engine)
}

/// Install the default model and runtime when they are missing, saying so on stderr.
pub fn install_model_if_needed(settings: &Settings) -> anyhow::Result<()> {
    install_if_needed(
        settings,
        || errln!("seamscope: the embedding model is not installed yet; running setup (once)"),
        &mut |line| errln!("  {line}"),
    )?;
    Ok(())
}

/// Fetch pdfium before a command reads a corpus that holds PDFs, when it is missing (the first
/// run's setup, as for the model), saying so on stderr. The settings are the command's own
/// (global and layout flags); if they do not resolve, the command reports that itself.
pub fn fetch_pdfium_if_needed(
    global: &super::GlobalArgs,
    layout: &super::LayoutArgs,
    corpus: &std::path::Path,
) -> anyhow::Result<()> {
    let Ok(mut settings) = global.settings() else {
        return Ok(());
    };
    if layout.apply(&mut settings).is_err() {
        return Ok(());
    }
    seamscope::session::first_run::install_pdfium_if_needed(
        &settings,
        corpus,
        || {
            errln!(
                "seamscope: the corpus holds PDFs and pdfium (the PDF engine) is not installed yet; fetching it (once)"
            )
        },
        &mut |line| errln!("  {line}"),
    )?;
    Ok(())
}

/// A progress bar on stderr for index builds; hidden when stderr is not a terminal.
pub struct BuildBar {
    bar: ProgressBar,
    stage: Option<BuildStage>,
    /// An embedding service's counters, shown beside the tokens while it embeds.
    meter: Option<std::sync::Arc<seamscope::embed::http::ServiceMeter>>,
}

impl BuildBar {
    /// A new, empty bar.
    pub fn new() -> Self {
        let bar = if std::io::stderr().is_terminal() {
            ProgressBar::new(0)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:>14} [{bar:40}] {pos}/{len} tokens ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        BuildBar {
            bar,
            stage: None,
            meter: None,
        }
    }

    /// A bar that also shows what `engine`'s embedding service was sent, when it has one:
    /// requests, retries, requests per second and tokens.
    pub fn for_engine(engine: &Engine) -> Self {
        use seamscope::embed::Embedder;
        BuildBar {
            meter: engine.embedder.service_meter().cloned(),
            ..BuildBar::new()
        }
    }

    /// Show one progress report; always continues.
    pub fn update(&mut self, p: BuildProgress) -> bool {
        if self.stage != Some(p.stage) {
            self.stage = Some(p.stage);
            self.bar.set_message(match p.stage {
                BuildStage::Verify => "verifying",
                BuildStage::EmbedChunks => "embed chunks",
                BuildStage::EmbedSeams => "embed seams",
                BuildStage::WriteIndexes => "write indexes",
                BuildStage::UploadVectors => "fill the store",
            });
            self.bar.set_position(0);
        }
        if let (Some(meter), BuildStage::EmbedChunks | BuildStage::EmbedSeams) =
            (&self.meter, p.stage)
        {
            let c = meter.counters();
            let stage = if p.stage == BuildStage::EmbedChunks {
                "chunks"
            } else {
                "seams"
            };
            self.bar.set_message(format!(
                "embed {stage}: {} requests ({} retried), {:.1}/s, {} tokens sent",
                c.requests,
                c.retries,
                c.requests_per_second(),
                c.tokens_sent
            ));
        }
        self.bar.set_length(p.total as u64);
        self.bar.set_position(p.done as u64);
        true
    }

    /// Remove the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// How many of a question file's problems an error lists before it says how many more.
const PROBLEMS_LISTED: usize = 20;

/// Load a question set for `corpus`, listing its first problems when there are any.
pub fn load_question_file(
    path: &std::path::Path,
    corpus: &seamscope::corpus::Corpus,
) -> anyhow::Result<Vec<seamscope::eval::questions::Question>> {
    let (questions, unknown) = seamscope::eval::questions::load_question_set(path, corpus)
        .map_err(|errors| {
            // Every problem of a file of thousands of bad lines would bury the first ones.
            let mut listed: Vec<String> = errors
                .iter()
                .take(PROBLEMS_LISTED)
                .map(|e| format!("  {e}"))
                .collect();
            if errors.len() > PROBLEMS_LISTED {
                listed.push(format!("  and {} more", errors.len() - PROBLEMS_LISTED));
            }
            anyhow::anyhow!(
                "{} problem(s) in {}:\n{}",
                errors.len(),
                path.display(),
                listed.join("\n")
            )
        })?;
    for u in &unknown {
        errln!("{}: {}", path.display(), u.warning());
    }
    anyhow::ensure!(
        !questions.is_empty(),
        "{} holds no questions",
        path.display()
    );
    Ok(questions)
}
