//! The command line: parse arguments into one resolved configuration and dispatch.

#[macro_use]
mod out;

mod args;
mod atoms;
mod bench;
mod board;
mod cache;
mod calibrate;
mod choices;
mod chunks;
mod common;
mod doctor;
mod ending;
mod eval;
mod export;
mod index;
mod mcp;
mod models;
mod query;
mod questions;
mod setup;
mod traces;
mod tune;
mod tune_args;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

pub use args::{GlobalArgs, LayoutArgs, UsageError, range_text, u32_in, usize_in};
use args::{empty_place_variable, non_empty_path};
use ending::finish;

/// seamscope: make chunk boundaries in retrieval visible and fixable.
#[derive(Debug, Parser)]
#[command(
    name = "seamscope",
    version,
    about,
    override_usage = "seamscope [OPTIONS] <CORPUS>\n       seamscope [OPTIONS] <COMMAND> [ARGS]"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Corpus folder (or file) to open when no subcommand is given.
    corpus: Option<PathBuf>,
    /// Screen theme: dark, light, mono, a name in themes/, or a .toml file (NO_COLOR forces mono).
    #[arg(long, value_name = "NAME|FILE")]
    theme: Option<String>,
    /// Open the screen as a view file saved with `w` left it: corpus, settings, question, step.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path, conflicts_with = "corpus")]
    open: Option<PathBuf>,
    /// With --open: embed the view file's corpus without asking, however many tokens it holds
    /// (past 200,000 the screen otherwise asks first, and a run without a terminal refuses).
    #[arg(long, requires = "open")]
    yes: bool,
    /// Open a bundle written by `seamscope export` on the screen, read-only: exactly what was
    /// deployed (its documents, chunks, seams, vectors and settings).
    #[arg(long, value_name = "DIR", value_parser = non_empty_path, conflicts_with_all = ["corpus", "open"])]
    bundle: Option<PathBuf>,
    /// Open the screen on your own chunks: a cuts file (JSON Lines or a JSON array of
    /// {"doc", "start", "end"} records, LangChain Documents or LlamaIndex nodes).
    #[arg(long, value_name = "FILE", env = "SEAMSCOPE_CUTS", value_parser = non_empty_path)]
    cuts: Option<PathBuf>,
    /// Open the screen on the documents your LangChain or LlamaIndex loader made (JSON Lines of
    /// Documents) instead of a corpus folder: the text your splitter saw.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path, conflicts_with_all = ["open", "bundle"])]
    documents: Option<PathBuf>,
    /// Open the screen on your application's traces: the traces page (5) lists its queries by
    /// how likely a cut made them miss, on the app's cuts recovered from the traces (or
    /// --cuts). A file (OTLP JSON lines, OpenInference spans, LangSmith runs, Langfuse
    /// observations or LangChain astream_events) or phoenix:http://HOST:PORT with --project.
    #[arg(long, value_name = "SOURCE", conflicts_with_all = ["open", "bundle"])]
    traces: Option<String>,
    /// The Phoenix project to read (with --traces phoenix:URL).
    #[arg(long, value_name = "NAME", requires = "traces")]
    project: Option<String>,
    #[command(flatten)]
    global: GlobalArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Draw the real screen on a corpus without a terminal and write each page (and presenter
    /// mode's stages on a gold question) as an SVG picture: how `assets/` is made.
    Screenshots {
        /// Corpus folder (with a questions.jsonl).
        #[arg(default_value = "sample-corpus")]
        corpus: PathBuf,
        /// Folder for the pictures.
        #[arg(long, default_value = "assets", value_name = "DIR")]
        out: PathBuf,
        /// The gold question of the worked example (its id in questions.jsonl).
        #[arg(long, default_value = "A01", value_name = "ID")]
        question: String,
        /// Screen size in cells, COLUMNSxROWS (120x34 or more).
        #[arg(long, default_value = "160x48", value_name = "COLSxROWS", value_parser = screen_size)]
        size: (u16, u16),
        /// Screen theme.
        #[arg(long, value_name = "NAME|FILE")]
        theme: Option<String>,
        /// Passages per band of the evidence-length map, pictured on the evaluation page
        /// (`evaluation-map.svg`) and drawn as `evidence-map.svg` (fewer than `tune --map`'s
        /// 150, to stay quick; 0 skips the map).
        #[arg(long, default_value_t = 60, value_name = "N", value_parser = usize_in(0..=100_000))]
        map_per_band: usize,
        /// Traces of an application over the corpus (a file, as `seamscope traces` reads):
        /// the traces page and a query replayed beside what the app sent are pictured too
        /// (`traces.svg`, `traces-replay.svg`), on a screen opened on the app's cuts.
        #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
        traces: Option<PathBuf>,
    },
    /// Write the tuned layout as a bundle: settings.json, chunks.jsonl, seams.jsonl, their vectors
    /// as .npy and a manifest of sizes and hashes (indexing first when needed).
    Export {
        /// Corpus folder or file.
        corpus: Option<PathBuf>,
        /// A new (or empty) folder for the bundle.
        #[arg(long, value_name = "DIR", value_parser = non_empty_path)]
        out: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        query: query::QueryArgs,
        /// A `seamscope calibrate --json` report to take `m` (and the budget) from, checked against
        /// this layout and recorded in settings.json; `--m` / `--budget` still win.
        #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
        calibration: Option<PathBuf>,
        /// A `seamscope tune --strategies --json` board to take a Seams row's k, m, side drop,
        /// chunk size and budget from (its winner when that is a Seams row, else its best Seams
        /// row, or --row), checked against this embedder and layout and recorded in
        /// settings.json; flags still win.
        #[arg(long, value_name = "FILE", value_parser = non_empty_path, conflicts_with = "calibration")]
        from_tune: Option<PathBuf>,
        /// The board row to export, by its label (e.g. "Seams k 150 m 1").
        #[arg(long, value_name = "LABEL", requires = "from_tune")]
        row: Option<String>,
        /// Print what was written as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Open a bundle written by `seamscope export`, check every file and its layout, and say
    /// what it holds (`seamscope --bundle DIR` shows it on the screen).
    Import {
        /// The bundle folder.
        bundle: PathBuf,
        /// Print what it holds as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the default model and fastembed's catalog of embedders and rerankers: dimension,
    /// window, size on disk and whether installed.
    Models {
        /// Fetch this catalog model's files into the data directory through fastembed's hub
        /// client (offline: say which files to put where by hand).
        #[arg(long, value_name = "NAME")]
        fetch: Option<String>,
        /// Print the listing as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Say what the cache folder holds: the vector cache's size and texts per model, the index
    /// folders, the stored document layouts and the extracted text; `--prune` removes the cached
    /// vectors of texts no index uses and extracted text no current extractor reads.
    Cache {
        /// Remove from each model's vector cache the texts no index folder of that model records
        /// (a model whose indexes do not all record their texts is left whole), and the extracted
        /// text of older extractor versions (or damaged entries).
        #[arg(long)]
        prune: bool,
        /// With --prune: count what would be removed and remove nothing.
        #[arg(long, requires = "prune")]
        dry_run: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Install the embedding model and ONNX Runtime into the data directory (idempotent).
    Setup {
        /// Also install the GPU build of ONNX Runtime and the NVIDIA libraries it needs (CUDA
        /// 13, cuDNN 9; about 1.6 GB fetched, 2.5 GB installed).
        #[arg(long)]
        gpu: bool,
        /// Say what would be fetched (packages, versions, sha256, files) and fetch nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Chunk, embed and index a corpus, then print what was done.
    Index {
        /// Corpus folder or file.
        corpus: Option<PathBuf>,
        #[command(flatten)]
        layout: LayoutArgs,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run one question through search, fusion, the fire test and the budget fill.
    Query {
        /// Corpus folder or file (indexed first if needed).
        corpus: Option<PathBuf>,
        #[arg(help = format!("The question, at most {} characters (with --documents, or --cuts alone, it may come first: no corpus is needed)", seamscope::session::MAX_QUESTION_CHARS))]
        question: Option<String>,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        query: query::QueryArgs,
        /// Print the whole trace as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve the engine to coding agents: a Model Context Protocol server on stdin / stdout
    /// with the tools query, explain, eval, calibrate, doctor and traces (progress on stderr).
    Mcp {
        /// Corpus folder or file, opened (and indexed if needed) once at start, while the server
        /// already answers.
        #[arg(default_value = "sample-corpus")]
        corpus: PathBuf,
        #[command(flatten)]
        layout: LayoutArgs,
        /// How long a tool call waits for the corpus to finish opening before it answers with
        /// how far indexing has come, 0 to 600 seconds.
        #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = usize_in(0..=600))]
        open_wait: usize,
        /// A folder the tools may read question files from, besides the corpus folder
        /// (repeatable); no other file is read.
        #[arg(long = "allow-dir", value_name = "DIR", value_parser = non_empty_path)]
        allow_dir: Vec<PathBuf>,
    },
    /// Score a question set: Seams at several margins against chunks-only retrieval.
    Eval {
        /// Corpus folder or file (indexed first if needed).
        corpus: Option<PathBuf>,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        eval: eval::EvalArgs,
        /// Print the rows as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Calibrate the fire margin m: head starts of seams on unsplit and crossing sentences.
    Calibrate {
        /// Corpus folder or file (indexed first if needed).
        corpus: Option<PathBuf>,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        calibrate: calibrate::CalibrateArgs,
        /// Print the whole report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Tune before deployment: chunk size × k × m × budget, ranked by failure rate, with tokens and
    /// vectors as costs and the Pareto rows marked.
    Tune {
        /// Corpus folder or file (indexed as needed for each layout).
        corpus: PathBuf,
        #[command(flatten)]
        tune: tune_args::TuneArgs,
        /// Print every grid point as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Diagnose a corpus' cuts without questions: cuts inside sentences, fenced blocks, tables
    /// and list items, atoms split, orphaned chunks, near-duplicates and boilerplate, hub chunks
    /// and seams, seams that lost k, a cuts file's uncovered and duplicated text, and the
    /// evidence a cut splits by length; a score from 0 to 100 with its formula.
    Doctor {
        /// Corpus folder or file (indexed first if needed).
        corpus: Option<PathBuf>,
        #[command(flatten)]
        layout: LayoutArgs,
        #[command(flatten)]
        doctor: doctor::DoctorArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Production traces read against the cuts: which of your app's retrieval misses a cut may
    /// have caused (every returned document placed, the app's cuts recovered, each question
    /// replayed on them at its budget, queries ranked by boundary-suspicion; no gold needed).
    Traces {
        /// Corpus folder or file the app retrieved from.
        corpus: PathBuf,
        #[command(flatten)]
        traces: traces::TracesArgs,
        /// Print the whole report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Gold question files: `questions check CORPUS FILE` reports every problem and repairs.
    Questions {
        #[command(subcommand)]
        command: questions::QuestionsCommand,
    },
    /// Atom meter for Markdown: fenced blocks, tables, rows and figure sentences kept whole per chunker.
    Atoms {
        /// Corpus folder or file.
        corpus: PathBuf,
        #[command(flatten)]
        atoms: atoms::AtomsArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List every chunk and seam with byte spans and token counts (layout only: nothing is
    /// embedded, but the model's tokenizer counts the tokens, so `seamscope setup` must have run).
    Chunks {
        /// Corpus folder or file.
        corpus: Option<PathBuf>,
        #[command(flatten)]
        layout: LayoutArgs,
        /// Print the listing as JSON.
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
        /// `scale`: corpus sizes as copies of the corpus, 1 to 64 each (16x the sample corpus
        /// embeds 1.6M tokens: about 9 minutes at 3,000 tokens/s).
        #[arg(long, value_delimiter = ',', default_value = "1,4,16", value_parser = usize_in(1..=64))]
        sizes: Vec<usize>,
        /// `scale`: questions timed per size, and used for HNSW recall, 1 to 1000.
        #[arg(long, default_value_t = 20, value_parser = usize_in(1..=1000))]
        questions: usize,
        /// `scale` and `open`: time only the screen's first frame, cold and warm (no
        /// embedding, no index, no queries).
        #[arg(long)]
        open_only: bool,
        /// `traces`: spans written and read back, 2 to 10,000,000.
        #[arg(long, default_value_t = 100_000, value_parser = usize_in(2..=10_000_000))]
        spans: usize,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
}

impl Command {
    /// Whether the command was asked for JSON output.
    fn json(&self) -> bool {
        match self {
            Command::Setup { json, .. }
            | Command::Cache { json, .. }
            | Command::Models { json, .. }
            | Command::Index { json, .. }
            | Command::Query { json, .. }
            | Command::Eval { json, .. }
            | Command::Calibrate { json, .. }
            | Command::Tune { json, .. }
            | Command::Atoms { json, .. }
            | Command::Doctor { json, .. }
            | Command::Traces { json, .. }
            | Command::Chunks { json, .. }
            | Command::Bench { json, .. } => *json,
            Command::Screenshots { .. } | Command::Mcp { .. } => false,
            Command::Questions { command } => command.json(),
            Command::Export { json, .. } | Command::Import { json, .. } => *json,
        }
    }
}

/// Parse arguments, run the command, and turn errors into exit codes: 2 for a usage error (a
/// flag clap rejects, a value out of its range, an empty question), 1 for a run that failed.
pub fn run() -> ExitCode {
    if let Some((name, holds)) = empty_place_variable() {
        errln!(
            "error: the environment variable {name} is set but empty: unset it to use the default, or set it to {holds}"
        );
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    // Global options may come before a subcommand (`seamscope --config F index …`); the screen's
    // own arguments may not.
    if cli.command.is_some()
        && (cli.corpus.is_some()
            || cli.documents.is_some()
            || cli.theme.is_some()
            || cli.open.is_some()
            || cli.bundle.is_some())
    {
        errln!(
            "error: a corpus or --theme before a command opens the screen; give the corpus after the command (`seamscope index <CORPUS>`), or leave the command out to open the screen"
        );
        return ExitCode::from(2);
    }
    let json = cli.command.as_ref().is_some_and(Command::json);
    if json {
        out::hold();
    }
    let result = match cli.command {
        Some(command) => dispatch(&cli.global, command),
        None if cli.open.is_none()
            && cli.bundle.is_none()
            && cli.corpus.is_none()
            && cli.documents.is_none()
            && cli.cuts.is_none() =>
        {
            errln!("usage: seamscope <CORPUS> | seamscope <COMMAND> (see `seamscope --help`)");
            return ExitCode::from(2);
        }
        None => open_screen(cli),
    };
    finish(
        result.and_then(|()| out::release().map_err(anyhow::Error::from)),
        json,
    )
}

/// Run one subcommand.
fn dispatch(global: &GlobalArgs, command: Command) -> anyhow::Result<()> {
    match command {
        Command::Setup { gpu, dry_run, json } => setup::run(global, gpu, dry_run, json),
        Command::Models { fetch, json } => models::run(global, fetch.as_deref(), json),
        Command::Cache {
            prune,
            dry_run,
            json,
        } => cache::run(global, prune, dry_run, json),
        Command::Export {
            corpus,
            out,
            layout,
            query,
            calibration,
            from_tune,
            row,
            json,
        } => in_corpus(global, corpus, layout, |corpus, layout| {
            let origins = export::Origins {
                calibration: calibration.as_deref(),
                tune: from_tune.as_deref(),
                row: row.as_deref(),
            };
            export::run(global, corpus, &out, (layout, &query), origins, json)
        }),
        Command::Import { bundle, json } => export::import(global, &bundle, json),
        Command::Screenshots {
            corpus,
            out,
            question,
            size,
            theme,
            map_per_band,
            traces,
        } => screenshots(
            global,
            (corpus, out, question),
            size,
            theme,
            map_per_band,
            traces,
        ),
        Command::Index {
            corpus,
            layout,
            json,
        } => in_corpus(global, corpus, layout, |corpus, layout| {
            index::run(global, corpus, layout, json)
        }),
        Command::Query {
            corpus,
            question,
            mut layout,
            query,
            json,
        } => query_positionals(&mut layout, corpus, question).and_then(|(corpus, question)| {
            common::fetch_pdfium_if_needed(global, &layout, &corpus)?;
            query::run(global, &corpus, &question, &layout, &query, json)
        }),
        Command::Mcp {
            corpus,
            layout,
            open_wait,
            allow_dir,
        } => mcp::run(
            global,
            &corpus,
            &layout,
            Duration::from_secs(open_wait as u64),
            &allow_dir,
        ),
        Command::Eval {
            corpus,
            layout,
            eval,
            json,
        } => in_corpus(global, corpus, layout, |corpus, layout| {
            eval::run(global, corpus, layout, &eval, json)
        }),
        Command::Calibrate {
            corpus,
            layout,
            calibrate,
            json,
        } => in_corpus(global, corpus, layout, |corpus, layout| {
            calibrate::run(global, corpus, layout, &calibrate, json)
        }),
        Command::Tune { corpus, tune, json } => tune::run(global, &corpus, &tune, json),
        Command::Doctor {
            corpus,
            mut layout,
            doctor,
            json,
        } => {
            let corpus = layout.corpus_root(corpus)?;
            common::fetch_pdfium_if_needed(global, &layout, &corpus)?;
            doctor::run(global, &corpus, &layout, &doctor, json)
        }
        Command::Traces {
            corpus,
            traces,
            json,
        } => {
            common::fetch_pdfium_if_needed(global, &LayoutArgs::default(), &corpus)?;
            traces::run(global, &corpus, &traces, json)
        }
        Command::Questions { command } => questions::run(global, command),
        Command::Atoms {
            corpus,
            atoms,
            json,
        } => atoms::run(global, &corpus, &atoms, json),
        Command::Chunks {
            corpus,
            layout,
            json,
        } => in_corpus(global, corpus, layout, |corpus, layout| {
            chunks::run(global, corpus, layout, json)
        }),
        Command::Bench {
            what,
            corpus,
            sizes,
            questions,
            open_only,
            spans,
            json,
        } => match what {
            bench::BenchKind::Traces => bench::traces::run(global, &corpus, spans, json),
            _ => bench(global, what, &corpus, (&sizes, questions, open_only), json),
        },
    }
}

/// Resolves the corpus a command with layout options opens, then runs the command on it.
fn in_corpus(
    global: &GlobalArgs,
    corpus: Option<PathBuf>,
    mut layout: LayoutArgs,
    run: impl FnOnce(&std::path::Path, &LayoutArgs) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let corpus = layout.corpus_root(corpus)?;
    common::fetch_pdfium_if_needed(global, &layout, &corpus)?;
    run(&corpus, &layout)
}

/// `seamscope bench WHAT`.
fn bench(
    global: &GlobalArgs,
    what: bench::BenchKind,
    corpus: &std::path::Path,
    (sizes, questions, open_only): (&[usize], usize, bool),
    json: bool,
) -> anyhow::Result<()> {
    match what {
        bench::BenchKind::Ingest => bench::ingest::run(global, corpus, json),
        bench::BenchKind::Query => bench::query::run(global, corpus, json),
        bench::BenchKind::Draw => bench::draw::run(global, corpus, json),
        bench::BenchKind::Open => bench::open::run(global, corpus, open_only, json),
        bench::BenchKind::Store => bench::store::run(global, corpus, json),
        bench::BenchKind::Scale => {
            let plan = bench::scale::ScalePlan {
                sizes,
                questions,
                open_only,
            };
            bench::scale::run(global, corpus, plan, json)
        }
        bench::BenchKind::Traces => bench::traces::run(global, corpus, 100_000, json),
    }
}

/// No subcommand: open a view file, a bundle or a corpus on the screen.
fn open_screen(cli: Cli) -> anyhow::Result<()> {
    if cli.open.is_some() {
        return view::open(&cli.global, cli.open.as_deref(), cli.theme, cli.yes);
    }
    if cli.bundle.is_some() {
        return open_bundle(&cli.global, cli.bundle, cli.theme);
    }
    let traces = match &cli.traces {
        Some(source) => Some(crate::tui::TracesGiven::new(
            seamscope::traces::TracesSource::parse(source, cli.project.as_deref())
                .map_err(UsageError)?,
            cli.cuts.clone(),
        )),
        None => None,
    };
    let (corpus, from_cuts) =
        args::resolve_corpus(cli.corpus, cli.documents.as_ref(), cli.cuts.as_ref())?;
    let mut settings = cli.global.settings()?;
    if let Some(file) = cli.cuts {
        settings.chunker = seamscope::chunk::ChunkerKind::Given;
        settings.cuts_file = Some(file);
    }
    settings.documents_file = cli.documents;
    settings.documents_from_cuts = from_cuts;
    check_cuts(&corpus, &settings)?;
    let traces = match traces {
        Some(given) if given.cuts.is_none() => {
            match recover_app_cuts(&corpus, &settings, &given.source) {
                Some((cuts, read)) => {
                    settings.chunker = seamscope::chunk::ChunkerKind::Given;
                    settings.cuts_file = Some(cuts);
                    Some(given.with_read(read))
                }
                None => Some(given),
            }
        }
        other => other,
    };
    crate::tui::run(crate::tui::Options {
        corpus,
        settings,
        theme: cli.theme,
        view: None,
        bundle: false,
        traces,
    })
}

/// The app's cuts recovered from its traces and written where the chunker `given` reads them,
/// so the screen opens on the layout the app retrieved from, with the traces read (the traces
/// page judges them without reading them again). `None` when the traces cannot be read or
/// placed: the screen then opens on the settings' layout, and the traces page, which reads them
/// again, shows why.
fn recover_app_cuts(
    corpus: &std::path::Path,
    settings: &seamscope::settings::Settings,
    source: &seamscope::traces::TracesSource,
) -> Option<(PathBuf, seamscope::traces::TraceRead)> {
    if matches!(source, seamscope::traces::TracesSource::Phoenix { .. }) {
        errln!("seamscope: reading {} for the app's cuts", source.label());
    }
    let docs =
        seamscope::corpus::Corpus::load(corpus, &seamscope::places::load_options(settings)).ok()?;
    let cache_dir = seamscope::places::Places::of(settings).cache_dir;
    seamscope::traces::source::recover_cuts(&docs, source, &cache_dir).ok()
}

/// Read and place the cuts file of chunker `given` before the screen starts, so a bad file is an
/// error on the terminal (naming its line) rather than a message inside the screen.
fn check_cuts(
    corpus: &std::path::Path,
    settings: &seamscope::settings::Settings,
) -> anyhow::Result<()> {
    if settings.chunker != seamscope::chunk::ChunkerKind::Given {
        return Ok(());
    }
    let Some(file) = &settings.cuts_file else {
        return Err(UsageError(
            "chunker given takes your own chunks from a file: pass --cuts FILE".into(),
        )
        .into());
    };
    let docs = seamscope::corpus::Corpus::load(corpus, &seamscope::places::load_options(settings))?;
    seamscope::chunk::given::GivenCuts::load(file, &docs)?;
    Ok(())
}

/// `query`'s corpus and question: both given, or (with `--documents`, or `--cuts` alone) the
/// question alone, which clap then reads into the corpus slot.
fn query_positionals(
    layout: &mut LayoutArgs,
    corpus: Option<PathBuf>,
    question: Option<String>,
) -> anyhow::Result<(PathBuf, String)> {
    let no_folder = layout.documents.is_some() || layout.cuts.is_some();
    let (corpus, question) = match (corpus, question) {
        (corpus, Some(question)) => (corpus, question),
        (Some(only), None) if no_folder => (None, only.to_string_lossy().into_owned()),
        _ => {
            return Err(UsageError(
                "query needs a question: seamscope query CORPUS \"QUESTION\" (with --documents FILE or --cuts FILE the corpus may be left out)".into(),
            )
            .into());
        }
    };
    Ok((layout.corpus_root(corpus)?, question))
}

/// `seamscope --bundle DIR`: the screen on a bundle, read-only, under the settings it was
/// exported with.
fn open_bundle(
    global: &GlobalArgs,
    bundle: Option<PathBuf>,
    theme: Option<String>,
) -> anyhow::Result<()> {
    let bundle = bundle.ok_or_else(|| UsageError("--bundle needs a bundle folder".into()))?;
    let mut settings = global.settings()?;
    seamscope::export::read::read_settings(&bundle)?.apply(&bundle, &mut settings)?;
    crate::tui::run(crate::tui::Options {
        corpus: bundle,
        settings,
        theme,
        view: None,
        bundle: true,
        traces: None,
    })
}

/// Parse `COLSxROWS` (at least the screen's smallest size).
fn screen_size(text: &str) -> Result<(u16, u16), String> {
    let (w, h) = text
        .split_once('x')
        .ok_or_else(|| format!("`{text}` is not COLUMNSxROWS, e.g. 160x48"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u16>()
            .map_err(|_| format!("`{v}` is not a number"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w < crate::tui::MIN_WIDTH || h < crate::tui::MIN_HEIGHT {
        return Err(format!(
            "{w}x{h} is smaller than the screen's smallest size, {}x{}",
            crate::tui::MIN_WIDTH,
            crate::tui::MIN_HEIGHT
        ));
    }
    Ok((w, h))
}

/// `seamscope screenshots`: the pictures of `assets/`.
fn screenshots(
    global: &GlobalArgs,
    (corpus, out, question): (PathBuf, PathBuf, String),
    (width, height): (u16, u16),
    theme: Option<String>,
    map_per_band: usize,
    traces: Option<PathBuf>,
) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let shots = crate::tui::screenshots::Shots {
        width,
        height,
        out,
        question_id: question,
        time_frames: 0,
        map_per_band: (map_per_band > 0).then_some(map_per_band),
        traces: traces.map(seamscope::traces::TracesSource::File),
    };
    let options = crate::tui::Options {
        corpus,
        settings,
        theme,
        view: None,
        bundle: false,
        traces: None,
    };
    for shot in crate::tui::screenshots::run(options, &shots)? {
        outln!("{}", shot.path.display())?;
    }
    Ok(())
}
