//! `seamscope mcp`: a Model Context Protocol server over stdio, so a coding agent can debug
//! retrieval with the engine: `query` (the context and fired seams, compact; the whole trace with
//! `detail: "full"`), `explain` (why a seam fired or not, in words), `eval`, `calibrate` and
//! `doctor` (the query-free diagnosis, `mcp/doctor.rs`).
//!
//! The model loads and the corpus is read before the server starts; the corpus is then indexed
//! (embedded when needed) on a thread of its own while the server already answers, so a client's
//! handshake never waits for minutes of embedding. A tool call waits for the corpus up to
//! `--open-wait`, then answers with how far indexing has come; once open, the engine and the
//! corpus serve every call. stdout carries the protocol and nothing else; progress and warnings go
//! to stderr. Calls run one at a time on a blocking thread (the engine owns one model), so a long
//! `eval` makes later calls wait, never fail. Every line from stdin is checked before rmcp reads
//! it (`wire.rs`), and a call reads question files only where `files.rs` allows.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use seamscope::calibrate::{
    CalibrateOptions, CalibrationSource, KeywordQuestions, PassageOptions, SampleOptions,
    objective, passage, sample,
};
use seamscope::corpus::questions_path;
use seamscope::eval::grid::GridSettings;
use seamscope::retrieve::{QuerySettings, SeamExplanation};
use seamscope::session::report::QueryReport;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::settings::Settings;

mod compact;
mod doctor;
mod files;
mod opening;
mod traces;
mod wire;

use opening::{ProgressLines, Shared};

use super::common::{load_question_file, start_engine};
use super::{GlobalArgs, LayoutArgs};

/// Margins an `eval` sweep scores when the call names none (the margin in force is added).
const SWEEP_MARGINS: [u32; 4] = [0, 1, 2, 3];

/// Seam half-widths the `eval` grid compares when the call names none (as `eval --seam-k`).
const GRID_SEAM_K: [usize; 3] = [100, 150, 200];

/// Start the server on `corpus` and answer on stdin / stdout until the client closes stdin; a
/// call waits up to `open_wait` for the corpus to finish opening.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout: &LayoutArgs,
    open_wait: Duration,
    allow_dirs: &[PathBuf],
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    let allowed = files::AllowedFolders::new(corpus, allow_dirs)?;
    let cuts = (settings.chunker == seamscope::chunk::ChunkerKind::Given)
        .then(|| settings.cuts_file.clone())
        .flatten();
    // What fails at once (settings, the model, an unreadable corpus, a bad cuts file) fails
    // before serving.
    let engine = start_engine(settings)?;
    let docs = engine.load_corpus(corpus)?;
    if let Some(file) = &cuts {
        seamscope::chunk::given::GivenCuts::load(file, &docs)?;
    }
    errln!(
        "seamscope mcp: serving MCP on stdio; opening {} ({} documents)",
        corpus.display(),
        docs.documents.len()
    );
    let shared = opening::open_in_background(engine, docs, corpus.to_path_buf(), allowed);
    let server = SeamscopeServer::new(shared, open_wait);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        // Every line is checked on the wire before rmcp reads it (see wire.rs).
        let (transport, stdout_writer) = wire::start(tool_arguments);
        let service = server
            .serve(transport)
            .await
            .map_err(|e| anyhow::anyhow!("the MCP session did not start: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| anyhow::anyhow!("the MCP session ended with an error: {e}"))?;
        // The last answers are out before the process ends.
        let _ = tokio::time::timeout(Duration::from_secs(5), stdout_writer).await;
        anyhow::Ok(())
    })?;
    // stdin may still have a blocking read pending (see rmcp's `stdio`): do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(())
}

/// Whether `arguments` has the shape `tool` reads: the wire answers `-32602` when not (rmcp
/// would answer a tool error, and a client could not tell a bad call from a failed one).
fn tool_arguments(tool: &str, arguments: &serde_json::Value) -> Result<(), String> {
    fn shape<T: serde::de::DeserializeOwned>(arguments: &serde_json::Value) -> Result<(), String> {
        T::deserialize(arguments)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    match tool {
        "query" => shape::<QueryParams>(arguments),
        "explain" => shape::<ExplainParams>(arguments),
        "eval" => shape::<EvalParams>(arguments),
        "calibrate" => shape::<CalibrateParams>(arguments),
        "doctor" => shape::<doctor::DoctorParams>(arguments),
        _ => Ok(()),
    }
}

/// The engine and the corpus it opened, kept for every call.
struct Workbench {
    engine: Engine,
    open: OpenCorpus,
    /// The folders question files may be read from.
    allowed: files::AllowedFolders,
}

/// Input of `query`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct QueryParams {
    /// The question, as a user would ask it (at most 2,000 characters).
    question: String,
    /// Seam half-width in tokens, 1 to 4096. Another value than the open layout's rebuilds the
    /// seams (embedding them the first time: about 10 s on 2 CPU cores for the sample corpus),
    /// and later calls keep the new layout.
    k: Option<usize>,
    /// Fire margin: places a seam must lead both of its chunks by, 0 to 10000.
    m: Option<u32>,
    /// Chunks in the final context, 0 to 10000.
    budget: Option<usize>,
    /// Results kept per search list, 1 to 100000.
    depth: Option<usize>,
    /// `compact` (default, a few KB: the context, the fired seams with their arithmetic,
    /// tokens sent, the context without Seams) or `full` (the whole trace, about 100 KB).
    detail: Option<compact::Detail>,
}

/// Input of `explain`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExplainParams {
    /// The question, as a user would ask it.
    question: String,
    /// The seam: its two chunks as `left|right` (`40|41`, as `query` labels seams) or its id.
    seam: String,
    /// Fire margin, 0 to 10000.
    m: Option<u32>,
    /// Chunks in the final context, 0 to 10000.
    budget: Option<usize>,
    /// Results kept per search list, 1 to 100000.
    depth: Option<usize>,
}

/// How `eval` measures.
#[derive(Debug, Clone, Copy, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum EvalMode {
    /// Chunks-only retrieval against Seams at several margins, from one search per question:
    /// seconds once the corpus is indexed.
    #[default]
    Sweep,
    /// Every strategy of `seamscope eval` (overlap, sliding windows, neighbour expansion, Seams
    /// at several k): minutes the first time, as each strategy is embedded, then cached.
    Grid,
}

/// Input of `eval`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct EvalParams {
    /// Question file (JSONL with gold spans); default: questions.jsonl in the corpus folder.
    /// A relative path is read from the corpus folder; the file must lie in the corpus folder
    /// or a folder the server was started with (`--allow-dir`).
    questions: Option<String>,
    /// `sweep` (default, seconds) or `grid` (minutes the first time).
    mode: Option<EvalMode>,
    /// Chunks in the final context, 0 to 10000.
    budget: Option<usize>,
    /// Fire margin for Seams in `grid`, and one of the margins of `sweep`.
    m: Option<u32>,
    /// `sweep`: the margins to score (default 0, 1, 2, 3 and `m`).
    margins: Option<Vec<u32>>,
    /// `grid`: the seam half-widths to compare (default 100, 150, 200).
    seam_k: Option<Vec<usize>>,
}

/// Input of `calibrate`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CalibrateParams {
    /// The budget, in chunks, every candidate m is scored at (1 to 10000).
    budget: Option<usize>,
    /// Results kept per search list, 1 to 100000.
    depth: Option<usize>,
    /// Passages drawn for the failure-vs-m curve, 1 to 100000 (default 200).
    passages: Option<usize>,
    /// Sentences sampled per kind for the head-start diagnostic, 1 or more (default 60).
    samples: Option<usize>,
    /// Largest candidate m, 1 to 1000 (default 30).
    max_m: Option<u32>,
    /// Seed of the draw: the same seed draws the same passages.
    seed: Option<u64>,
    /// Calibrate on this gold question file instead of drawn passages (inside the corpus
    /// folder or a folder the server was started with `--allow-dir`; a relative path is read
    /// from the corpus folder).
    questions: Option<String>,
    /// `compact` (default, a few KB: setup, verdict, the failure-vs-m curve, the paper's rule,
    /// warnings) or `full` (the whole report with every sample, about 120 KB).
    detail: Option<compact::Detail>,
}

/// The server: the tools, over a shared workbench.
#[derive(Clone)]
struct SeamscopeServer {
    shared: Arc<Shared>,
    open_wait: Duration,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl SeamscopeServer {
    fn new(shared: Arc<Shared>, open_wait: Duration) -> Self {
        SeamscopeServer {
            shared,
            open_wait,
            tool_router: Self::tool_router(),
        }
    }

    /// Run `job` on the workbench on a blocking thread, one call at a time, once the corpus is
    /// open (waiting up to `open_wait` for it, else saying how far it is); a panic inside it
    /// becomes a tool error, and the server carries on.
    async fn with_bench(
        &self,
        job: impl FnOnce(&mut Workbench) -> Result<String, String> + Send + 'static,
    ) -> Result<String, String> {
        let shared = Arc::clone(&self.shared);
        let wait = self.open_wait;
        tokio::task::spawn_blocking(move || shared.run_when_open(wait, job))
            .await
            .map_err(|e| format!("the call stopped: {e}"))?
    }

    #[tool(
        description = "Run one question through search, rank fusion, the fire test and the budget fill. By default (detail \"compact\", about 3 KB on the sample corpus) it returns the context sent (each chunk's id, document, first line and tokens, and the seam that brought it), the fired seams the fill reached with their arithmetic (seam rank + m against the left and right chunks' ranks), tokens sent, and the context without Seams beside it. detail \"full\" returns the whole trace, the document of `seamscope query --json` (fused ranking, every fire test, the fill step by step, every chunk and seam of the layout: about 100 KB). `explain` answers for one seam in a few lines."
    )]
    async fn query(&self, Parameters(p): Parameters<QueryParams>) -> Result<String, String> {
        self.with_bench(move |b| b.query(&p)).await
    }

    #[tool(
        description = "Explain in words why a seam fired or not for a question: the fire test's arithmetic (pos(seam) + m ≤ pos(left) and ≤ pos(right), an absent chunk counting as last), the margins at which it would fire, the budget slot it took or why the fill never reached it, and whether each of its chunks is in the context with and without Seams."
    )]
    async fn explain(&self, Parameters(p): Parameters<ExplainParams>) -> Result<String, String> {
        self.with_bench(move |b| b.explain(&p)).await
    }

    #[tool(
        description = "Score a question set with gold answer spans: failure rate (the share of questions whose evidence the context does not hold whole), tokens sent, fire, false-fire and waste rates per row. mode `sweep` (default, seconds): chunks-only retrieval against Seams at several margins; mode `grid`: every strategy of `seamscope eval` (minutes the first time). Returns JSON."
    )]
    async fn eval(&self, Parameters(p): Parameters<EvalParams>) -> Result<String, String> {
        self.with_bench(move |b| b.eval(&p)).await
    }

    #[tool(
        description = "Calibrate the fire margin m on the open corpus: the failure rate at the budget for every m from 0 to max_m (with 95% intervals) on passages drawn over the corpus (offline keyword questions) or on a gold question file, the recommended m (verdict.recommended_m) and the white paper's head-start rule as a diagnostic (paper_rule). About 15 s on 2 CPU cores for the sample corpus at the defaults. By default (detail \"compact\", about 5 KB) it returns the setup, the verdict, the curve, the paper's rule and the warnings; detail \"full\" returns the whole JSON of `seamscope calibrate --json` with every sampled sentence and passage (about 120 KB)."
    )]
    async fn calibrate(
        &self,
        Parameters(p): Parameters<CalibrateParams>,
    ) -> Result<String, String> {
        self.with_bench(move |b| b.calibrate(&p)).await
    }

    #[tool(
        description = "Diagnose the open corpus' cuts without gold questions, as `seamscope doctor --json`: cuts inside sentences, fenced blocks, tables and list items, atoms split, orphaned chunks, near-duplicate chunks, boilerplate, hub chunks and seams (in the budget of many sampled offline questions without their evidence), seams that lost k, a cuts file's uncovered and duplicated text, and the share of 100/200/400-token evidence a cut splits beside the paper's L ÷ C. Each finding has a count, a share, its three worst examples with document, byte span and line, and why it matters; the score (0 to 100) comes with its formula. detail \"full\" adds every location."
    )]
    async fn doctor(
        &self,
        Parameters(p): Parameters<doctor::DoctorParams>,
    ) -> Result<String, String> {
        self.with_bench(move |b| b.doctor(&p)).await
    }

    #[tool(
        description = "Read an application's production traces against the open corpus' cuts (as `seamscope traces --json`): OTLP JSON of OpenInference spans, JSONL spans, LangSmith runs, Langfuse observations or LangChain events (detected). Every returned document is placed in the corpus, the app's cuts are recovered from them, each traced question is replayed on those cuts at the app's own budget (dense search by default, as a vector store runs), and the queries are ranked by boundary-suspicion: queries where the seam over a cut fires come first, ordered by the seam's cosine margin over the best chunk the app sent (the text across the cut answers better than anything sent), then those where a missing neighbour ranks just past the budget. The compact answer (a few KB) gives the figures over all queries (placement, cuts recovered, how often Seams would change what the app sent, the replay's fidelity, agreement with gold when `questions` is given) and the top queries, each with the cut that points at it (`cut 40|41 · its seam fires · Seams adds chunk 40`); detail \"full\" returns every query. The first call on a new set of traces embeds the app's layout (about a minute on 2 CPU cores for the sample)."
    )]
    async fn traces(
        &self,
        Parameters(p): Parameters<traces::TracesParams>,
    ) -> Result<String, String> {
        self.with_bench(move |b| b.traces(&p)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SeamscopeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("seamscope", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "seamscope debugs chunk boundaries in retrieval (Seams). One corpus is served. \
                 `query` returns a question's context and fired seams as compact JSON (detail \
                 \"full\" for the whole trace); `explain` says in words why a \
                 seam (`40|41`) fired or not; `eval` scores a gold question set; `calibrate` \
                 recommends the fire margin m; `doctor` diagnoses the cuts without questions. Right after start the corpus may still be \
                 indexing: a call then says how far it is; call again shortly.",
            )
    }
}

impl Workbench {
    /// The settings in force with a call's overrides, checked.
    fn settings_with(
        &self,
        m: Option<u32>,
        budget: Option<usize>,
        depth: Option<usize>,
    ) -> Result<Settings, String> {
        let mut s = self.engine.settings.clone();
        if let Some(m) = m {
            s.m = m;
        }
        if let Some(b) = budget {
            s.budget = b;
        }
        if let Some(d) = depth {
            s.depth = d;
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    /// Lay the corpus out at seam half-width `k` (only the seams change) and keep that layout.
    fn use_k(&mut self, k: usize) -> Result<(), String> {
        if k == self.open.layout.k {
            return Ok(());
        }
        let mut settings = self.engine.settings.clone();
        settings.k = k;
        settings.validate().map_err(|e| e.to_string())?;
        errln!(
            "seamscope mcp: k {} → {k}: rebuilding the seams",
            self.open.layout.k
        );
        let layout = self.open.layout.with_k(&self.open.corpus, k);
        let mut lines = ProgressLines::new();
        let open = self
            .engine
            .index_layout(self.open.corpus.clone(), layout, &mut |p| lines.update(p))
            .map_err(|e| format!("rebuilding the seams at k = {k} failed: {e}"))?;
        self.open = open;
        self.engine.settings.k = k;
        Ok(())
    }

    fn query(&mut self, p: &QueryParams) -> Result<String, String> {
        seamscope::session::check_question(&p.question).map_err(|e| e.to_string())?;
        let settings = self.settings_with(p.m, p.budget, p.depth)?;
        if let Some(k) = p.k {
            self.use_k(k)?;
        }
        let qs = QuerySettings {
            k: self.open.layout.k as u32,
            ..settings.query_settings()
        };
        let (trace, timings) = self
            .engine
            .ask(&self.open, &p.question, &qs)
            .map_err(|e| e.to_string())?;
        if p.detail.unwrap_or_default() == compact::Detail::Full {
            let report = QueryReport::new(&self.open, &trace, timings);
            return serde_json::to_string(&report).map_err(|e| e.to_string());
        }
        Ok(compact::query(&self.open, &trace).to_string())
    }

    fn explain(&mut self, p: &ExplainParams) -> Result<String, String> {
        seamscope::session::check_question(&p.question).map_err(|e| e.to_string())?;
        let id = self
            .open
            .layout
            .find_seam(&p.seam)
            .map_err(|e| e.to_string())?;
        let qs = self.settings_with(p.m, p.budget, p.depth)?.query_settings();
        let (trace, _) = self
            .engine
            .ask(&self.open, &p.question, &qs)
            .map_err(|e| e.to_string())?;
        let seam = self.open.layout.seam(id);
        let explanation = SeamExplanation::of(&trace, id, seam.left, seam.right);
        Ok(explanation.words(&|c| self.open.chunk_label(c)))
    }

    /// The question file a call names, or the corpus' own, if a call may read it.
    fn question_file(&self, named: Option<&str>) -> Result<PathBuf, String> {
        let path = match named {
            Some(path) => PathBuf::from(path),
            None => {
                let root = &self.open.corpus.root;
                match root.parent() {
                    _ if root.is_dir() => questions_path(root),
                    Some(folder) if !folder.as_os_str().is_empty() => questions_path(folder),
                    _ => questions_path(Path::new(".")),
                }
            }
        };
        self.allowed.check(&path)
    }

    fn eval(&mut self, p: &EvalParams) -> Result<String, String> {
        let settings = self.settings_with(p.m, p.budget, None)?;
        let path = self.question_file(p.questions.as_deref())?;
        let questions =
            load_question_file(&path, &self.open.corpus).map_err(|e| format!("{e:#}"))?;
        let mode = p.mode.unwrap_or_default();
        let started = Instant::now();
        let rows = match mode {
            EvalMode::Sweep => {
                let mut margins = p.margins.clone().unwrap_or_else(|| {
                    let mut ms = SWEEP_MARGINS.to_vec();
                    ms.push(settings.m);
                    ms
                });
                margins.sort_unstable();
                margins.dedup();
                if margins.is_empty() {
                    return Err("margins is empty: name at least one m to score".to_string());
                }
                if let Some(m) = margins
                    .iter()
                    .find(|m| !seamscope::settings::M_RANGE.contains(m))
                {
                    return Err(format!(
                        "margin {m} is out of range: m is 0 to 10000 places"
                    ));
                }
                let grid = GridSettings::from_settings(&settings);
                seamscope::eval::sweep(
                    &mut self.engine,
                    &self.open,
                    &questions,
                    (&margins, grid, self.open.layout.k),
                    &mut |_| {},
                )
            }
            EvalMode::Grid => {
                let seam_k = p.seam_k.clone().unwrap_or_else(|| GRID_SEAM_K.to_vec());
                if seam_k.is_empty() {
                    return Err("seam_k is empty: name at least one k".to_string());
                }
                if let Some(k) = seam_k
                    .iter()
                    .find(|k| !seamscope::settings::K_RANGE.contains(k))
                {
                    return Err(format!(
                        "seam_k {k} is out of range: k is 1 to 4096 tokens per side"
                    ));
                }
                let settings = Settings {
                    k: self.open.layout.k,
                    ..settings.clone()
                };
                seamscope::eval::compare(
                    &mut self.engine,
                    &self.open,
                    &questions,
                    &settings,
                    &seam_k,
                    &mut |p| {
                        if let seamscope::eval::CompareProgress::Strategy { label, .. } = p {
                            errln!("seamscope mcp: eval {label}");
                        }
                    },
                )
            }
        }
        .map_err(|e| format!("{e:#}"))?;
        let report = serde_json::json!({
            "mode": match mode { EvalMode::Sweep => "sweep", EvalMode::Grid => "grid" },
            "question_file": path.display().to_string(),
            "questions": questions.len(),
            "budget": settings.budget,
            "k": self.open.layout.k,
            "seconds": started.elapsed().as_secs_f64(),
            "rows": rows,
        });
        Ok(report.to_string())
    }

    fn calibrate(&mut self, p: &CalibrateParams) -> Result<String, String> {
        let settings = self.settings_with(None, p.budget, p.depth)?;
        if settings.budget == 0 {
            return Err("budget must be at least 1 to calibrate m".to_string());
        }
        let passages = p.passages.unwrap_or(passage::DEFAULT_PASSAGES);
        if !passage::PASSAGES_RANGE.contains(&passages) {
            return Err(format!(
                "passages must be {} (got {passages})",
                super::range_text(&passage::PASSAGES_RANGE)
            ));
        }
        let max_m = p.max_m.unwrap_or(objective::DEFAULT_MAX_M);
        if !objective::MAX_M_RANGE.contains(&max_m) {
            return Err(format!(
                "max_m must be {} (got {max_m})",
                super::range_text(&objective::MAX_M_RANGE)
            ));
        }
        let samples = p.samples.unwrap_or(sample::DEFAULT_SAMPLES);
        if samples == 0 {
            return Err("samples must be at least 1".to_string());
        }
        let seed = p.seed.unwrap_or(sample::DEFAULT_SEED);
        let gold = match &p.questions {
            Some(named) => {
                let path = self.question_file(Some(named))?;
                let questions =
                    load_question_file(&path, &self.open.corpus).map_err(|e| format!("{e:#}"))?;
                Some((path.display().to_string(), questions))
            }
            None => None,
        };
        let options = CalibrateOptions {
            sample: SampleOptions {
                per_kind: samples,
                seed,
                min_words: sample::DEFAULT_MIN_WORDS,
            },
            passages: PassageOptions {
                count: passages,
                seed,
                ..PassageOptions::default()
            },
            query: settings.query_settings(),
            max_m,
        };
        let mut progress = |p: seamscope::calibrate::CalibrationProgress| {
            if p.done.is_multiple_of(50) || p.done == p.total {
                errln!("seamscope mcp: calibrate asked {} of {}", p.done, p.total);
            }
            true
        };
        let mut generator = KeywordQuestions;
        let source = match &gold {
            Some((name, questions)) => CalibrationSource::Gold { name, questions },
            None => CalibrationSource::Sampled(&mut generator),
        };
        let report = seamscope::calibrate::run(
            &mut self.engine,
            &self.open,
            source,
            &options,
            &mut progress,
        )
        .map_err(|e| format!("{:#}", anyhow::Error::from(e)))?;
        if p.detail.unwrap_or_default() == compact::Detail::Full {
            return serde_json::to_string(&report).map_err(|e| e.to_string());
        }
        Ok(compact::calibrate(&report)?.to_string())
    }
}
