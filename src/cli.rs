//! The command line: parse arguments into one resolved configuration and dispatch.

mod bench;
mod common;
mod eval;
mod index;
mod query;
mod setup;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use seamscope::settings::Settings;

/// seamscope: make chunk boundaries in retrieval visible and fixable.
#[derive(Debug, Parser)]
#[command(
    name = "seamscope",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Corpus folder (or file) to open when no subcommand is given.
    corpus: Option<PathBuf>,
    #[command(flatten)]
    global: GlobalArgs,
}

/// Options every command takes.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Settings file (default: settings.toml in the config directory).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Cache directory for vectors and indexes.
    #[arg(long, global = true, value_name = "DIR", env = "SEAMSCOPE_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Data directory holding the model and ONNX Runtime.
    #[arg(long, global = true, value_name = "DIR", env = "SEAMSCOPE_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// A folder with another ONNX sentence-embedding model (model.onnx + tokenizer files).
    #[arg(long, global = true, value_name = "DIR", env = "SEAMSCOPE_MODEL_DIR")]
    model_dir: Option<PathBuf>,
    /// Another ONNX Runtime shared library (1.24 or newer).
    #[arg(long, global = true, value_name = "FILE", env = "SEAMSCOPE_ORT_LIB")]
    runtime: Option<PathBuf>,
}

/// Options that shape chunks and seams.
#[derive(Debug, Args, Clone, Default)]
pub struct LayoutArgs {
    /// Tokens per chunk (default 1024).
    #[arg(long, value_name = "TOKENS")]
    chunk_tokens: Option<usize>,
    /// Seam half-width: tokens taken from each side of a cut (default 150).
    #[arg(long, value_name = "TOKENS")]
    k: Option<usize>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Install the embedding model and ONNX Runtime into the data directory (idempotent).
    Setup {
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Chunk, embed and index a corpus, then print what was done.
    Index {
        /// Corpus folder or file.
        corpus: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run one question through search, fusion, the fire test and the budget fill.
    Query {
        /// Corpus folder or file (indexed first if needed).
        corpus: PathBuf,
        /// The question.
        question: String,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        query: query::QueryArgs,
        /// Print the whole trace as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Score a question set: Seams at several margins against chunks-only retrieval.
    Eval {
        /// Corpus folder or file (indexed first if needed).
        corpus: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        eval: eval::EvalArgs,
        /// Print the rows as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure ingest speed (`ingest`) or query speed (`query`).
    Bench {
        /// What to measure.
        #[arg(value_enum)]
        what: bench::BenchKind,
        /// Corpus folder or file (default: sample-corpus).
        #[arg(default_value = "sample-corpus")]
        corpus: PathBuf,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
}

impl GlobalArgs {
    /// Resolve settings: defaults, then the settings file, then command-line overrides.
    pub fn settings(&self) -> anyhow::Result<Settings> {
        let file = match &self.config {
            Some(p) => p.clone(),
            None => Settings::default()
                .places()
                .config_dir
                .join("settings.toml"),
        };
        if self.config.is_some() && !file.is_file() {
            anyhow::bail!("settings file {} does not exist", file.display());
        }
        let mut s = Settings::load(&file)?;
        if self.cache_dir.is_some() {
            s.cache_dir.clone_from(&self.cache_dir);
        }
        if self.data_dir.is_some() {
            s.data_dir.clone_from(&self.data_dir);
        }
        if self.model_dir.is_some() {
            s.model_dir.clone_from(&self.model_dir);
        }
        if self.runtime.is_some() {
            s.runtime_path.clone_from(&self.runtime);
        }
        Ok(s)
    }
}

impl LayoutArgs {
    /// Apply these overrides to `settings` and check the result.
    pub fn apply(&self, settings: &mut Settings) -> anyhow::Result<()> {
        if let Some(c) = self.chunk_tokens {
            settings.chunk_tokens = c;
        }
        if let Some(k) = self.k {
            settings.k = k;
        }
        settings.validate()?;
        Ok(())
    }
}

/// Parse arguments, run the command, and turn errors into exit codes (1 failure, 2 usage).
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Setup { json }) => setup::run(&cli.global, json),
        Some(Command::Index {
            corpus,
            layout,
            json,
        }) => index::run(&cli.global, &corpus, &layout, json),
        Some(Command::Query {
            corpus,
            question,
            layout,
            query,
            json,
        }) => query::run(&cli.global, &corpus, &question, &layout, &query, json),
        Some(Command::Eval {
            corpus,
            layout,
            eval,
            json,
        }) => eval::run(&cli.global, &corpus, &layout, &eval, json),
        Some(Command::Bench { what, corpus, json }) => match what {
            bench::BenchKind::Ingest => bench::ingest::run(&cli.global, &corpus, json),
            bench::BenchKind::Query => bench::query::run(&cli.global, &corpus, json),
        },
        None => match cli.corpus {
            Some(corpus) => index::run(&cli.global, &corpus, &LayoutArgs::default(), false),
            None => {
                eprintln!(
                    "usage: seamscope <CORPUS> | seamscope <COMMAND> (see `seamscope --help`)"
                );
                return ExitCode::from(2);
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
