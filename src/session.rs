//! The engine assembled: settings, tokenizer and model loaded once, then corpora opened with
//! their indexes. Front ends (CLI, TUI) drive this; it never prints.

use std::path::{Path, PathBuf};
use std::sync::Arc;

mod bundle;
pub mod first_run;
pub use bundle::OpenBundleError;
mod loading;
pub mod report;
mod sides;
use std::time::Instant;

use crate::chunk::ChunkId;
use crate::embed::cache::{CacheOpen, VectorCache};
use crate::embed::embed_one;
use crate::embed::pipeline::PipelineEmbedder;
use crate::embed::spec::EmbedderSpec;
use crate::retrieve::{
    EntryRef, Lookups, QueryInput, QuerySettings, RankingInput, RerankInput, Reranker, Trace,
    replan, score_candidates,
};
use crate::seam::SeamId;

use crate::corpus::{Corpus, CorpusError};
use crate::embed::install;
use crate::embed::{EmbedError, EmbedOptions};
use crate::index::remote::ServerStore;
use crate::index::{
    BuildOptions, BuildProgress, BuildReport, BuildStage, IndexError, IndexSet, open_or_build,
};
use crate::layout::Layout;
use crate::places::Places;
use crate::settings::{Settings, SettingsError};
use crate::spec::store::Store;
use crate::tokens::{TokenCounter, TokenizerError};

/// The longest question [`Engine::ask`] takes, in characters. A question is embedded whole (in
/// model windows) and searched word by word, so a pasted document as a "question" cost 14 s and
/// 876 MB at 100,000 characters; 2,000 characters hold any real question several times over.
pub const MAX_QUESTION_CHARS: usize = 2_000;

/// Check a question before any work: not empty, not longer than [`MAX_QUESTION_CHARS`].
pub fn check_question(question: &str) -> Result<(), EngineError> {
    if question.trim().is_empty() {
        return Err(EngineError::EmptyQuestion);
    }
    let chars = question.chars().count();
    if chars > MAX_QUESTION_CHARS {
        return Err(EngineError::QuestionTooLong {
            chars,
            max: MAX_QUESTION_CHARS,
        });
    }
    Ok(())
}

/// Anything that stops the engine from starting or a corpus from opening.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The question is empty.
    #[error("the question is empty: type what you want to find")]
    EmptyQuestion,
    /// The question is longer than a question can be.
    #[error(
        "the question is {chars} characters long; questions can be at most {max} characters: ask it in fewer words (a whole document is not a question)"
    )]
    QuestionTooLong {
        /// Its length in characters.
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// A query setting cannot be used.
    #[error(transparent)]
    Query(#[from] crate::retrieve::QuerySettingsError),
    /// A setting is out of range.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The model or runtime is not installed.
    #[error(
        "the embedding model is not installed in {model_dir} (run `seamscope setup`, or set SEAMSCOPE_MODEL_DIR to a folder holding model.onnx and tokenizer.json)"
    )]
    NotInstalled {
        /// Where it was looked for.
        model_dir: String,
    },
    /// Setup failed.
    #[error(transparent)]
    Install(#[from] install::InstallError),
    /// The tokenizer failed.
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// The corpus could not be laid out (the tokenizer failed, or a cuts file is unusable).
    #[error(transparent)]
    Layout(#[from] crate::layout::LayoutError),
    /// The model failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The language model writing contextual retrieval's contexts failed.
    #[error(transparent)]
    Chat(#[from] crate::embed::chat::GenError),
    /// Contextual retrieval's contexts cannot be cached.
    #[error("the contexts cache cannot be written: {0}")]
    ContextCache(std::io::Error),
    /// The corpus could not be loaded.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// The indexes could not be opened or built.
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// The loaded engine: one tokenizer and one model, owned by one worker.
pub struct Engine {
    /// Settings in force.
    pub settings: Settings,
    /// Folders and files in use.
    pub places: Places,
    /// The model's tokenizer, for counting.
    pub tokenizer: TokenCounter,
    /// The embedder: a local model or a service, with its prefixes and identity.
    pub embedder: PipelineEmbedder,
    /// The reranker, when one is configured: a local cross-encoder or a rerank service.
    pub reranker: Option<Box<dyn Reranker + Send>>,
    /// Vectors of seam-window halves for side drop, opened on first use.
    halves: Option<VectorCache>,
    /// The server of `settings.store` (the store as named, its client), connected on first use
    /// and kept while the settings name it.
    server: Option<(Store, Arc<dyn ServerStore>)>,
}

/// A corpus opened under the engine's settings: its layout and indexes.
pub struct OpenCorpus {
    /// The documents.
    pub corpus: Corpus,
    /// Chunks and seams.
    pub layout: Layout,
    /// The indexes on disk.
    pub indexes: IndexSet,
    /// What opening did.
    pub report: BuildReport,
}

/// Whether the default model folder needs `setup` before the engine can start.
pub fn needs_setup(settings: &Settings) -> bool {
    let places = crate::places::Places::of(settings);
    // The pinned model holds the tokenizer that counts tokens for the default model and for a
    // service; a model folder or a catalog model brings its own.
    let spec = EmbedderSpec::parse(settings.embedder.as_deref().unwrap_or(""));
    let own_tokenizer = matches!(spec, Ok(EmbedderSpec::Onnx(_) | EmbedderSpec::Catalog(_)));
    let using_default_model = !own_tokenizer
        && settings.model_dir.is_none()
        && std::env::var_os("SEAMSCOPE_MODEL_DIR").is_none();
    let using_default_runtime =
        settings.runtime_path.is_none() && std::env::var_os("SEAMSCOPE_ORT_LIB").is_none();
    (using_default_model && !install::model_installed(&places.model_dir))
        || (using_default_runtime && !install::runtime_installed(&places.runtime_path))
}

/// Install the pinned model and runtime when the settings need them and they are missing
/// ([`needs_setup`]): the one "install if needed" every front end runs before it loads the
/// model. `starting` is called once, before anything is fetched; `log` hears each line of the
/// setup. Returns whether setup ran.
pub fn install_if_needed(
    settings: &Settings,
    starting: impl FnOnce(),
    log: &mut dyn FnMut(&str),
) -> Result<bool, install::InstallError> {
    if !needs_setup(settings) {
        return Ok(false);
    }
    starting();
    let data_dir = crate::places::Places::of(settings).data_dir;
    install::with_install_lock(&data_dir, || install::install(&data_dir, log))?;
    Ok(true)
}

impl OpenCorpus {
    /// A corpus laid out, with keyword indexes in memory and no vectors yet: it can be shown and
    /// asked (keyword lists only, [`OpenCorpus::ask_keywords`]) while [`Engine::index_layout`]
    /// embeds. Needs no model.
    pub fn keywords_only(corpus: Corpus, layout: Layout) -> Result<OpenCorpus, EngineError> {
        let indexes = IndexSet::keywords_only(&corpus, &layout)?;
        Ok(OpenCorpus::in_memory(corpus, layout, indexes))
    }

    /// A corpus with `indexes` held in memory (nothing on disk, no vectors).
    fn in_memory(corpus: Corpus, layout: Layout, indexes: IndexSet) -> OpenCorpus {
        let report = BuildReport::in_memory(PathBuf::new(), false, indexes.search_mode);
        OpenCorpus {
            corpus,
            layout,
            indexes,
            report,
        }
    }

    /// The first documents of a corpus laid out, to show while the rest are: no keyword
    /// indexes (they are built once every document is in, [`OpenCorpus::keywords_only`]), so
    /// it finds nothing if searched. Builds no index over the documents' text.
    pub fn documents_only(corpus: Corpus, layout: Layout) -> Result<OpenCorpus, EngineError> {
        let nothing = Layout {
            offsets: Vec::new(),
            chunks: Vec::new(),
            seams: Vec::new(),
            chunker: layout.chunker.clone(),
            k: layout.k,
            search: layout.search,
            timings: layout.timings,
            given: None,
            store: layout.store,
        };
        let indexes = IndexSet::keywords_only(&corpus, &nothing)?;
        Ok(OpenCorpus::in_memory(corpus, layout, indexes))
    }

    /// Run a question on the keyword lists alone (BM25 over chunks and over seams, fused, fire
    /// test, fill): no model, no vectors, so it answers while the vectors are being embedded.
    /// No reranking and no side drop scores (both need the model); the trace's lists say which
    /// searches ran.
    pub fn ask_keywords(
        &self,
        question: &str,
        settings: &QuerySettings,
    ) -> Result<(Trace, QueryTimings), EngineError> {
        let (input, timings) = self.search_keywords(question, settings)?;
        plan_timed(self, &input, settings, timings)
    }

    /// The searches of [`OpenCorpus::ask_keywords`] without the stages after them: the input
    /// [`replan`] starts from, for a caller that plans it under its own settings.
    pub fn search_keywords(
        &self,
        question: &str,
        settings: &QuerySettings,
    ) -> Result<(QueryInput, QueryTimings), EngineError> {
        check_question(question)?;
        settings.validate()?;
        let t1 = Instant::now();
        let lists = self.indexes.search_keywords(question, settings.depth)?;
        let t2 = Instant::now();
        let timings = QueryTimings {
            embed: 0.0,
            search: (t2 - t1).as_secs_f64(),
            stages: 0.0,
        };
        Ok((search_input(question, lists), timings))
    }

    /// The facts the pure query stages need: seam links and chunk token counts.
    pub fn with_lookups<R>(&self, f: impl FnOnce(&Lookups<'_>) -> R) -> R {
        self.layout.with_lookups(f)
    }

    /// Redo the stages after search for new settings: no model, no index.
    pub fn replan(&self, trace: &Trace, settings: &QuerySettings) -> Result<Trace, EngineError> {
        Ok(self.with_lookups(|l| trace.replan(settings, l))?)
    }

    /// A chunk's human name: `chunk 7 (guide.md#3)`.
    pub fn chunk_label(&self, id: ChunkId) -> String {
        let c = self.layout.chunk(id);
        let path = crate::text::safe_name(&self.corpus.doc(c.doc).path);
        format!("chunk {} ({})", id.0, c.stable_key(&path))
    }

    /// A seam's human name: `seam 7|8`.
    pub fn seam_label(&self, id: SeamId) -> String {
        let s = self.layout.seam(id);
        format!("seam {}|{}", s.left.0, s.right.0)
    }

    /// The human name of any entry.
    pub fn entry_label(&self, e: EntryRef) -> String {
        match e {
            EntryRef::Chunk(c) => self.chunk_label(c),
            EntryRef::Seam(s) => self.seam_label(s),
        }
    }
}

/// The input of the stages after search: both sides' lists, nothing reranked or scored yet.
fn search_input(question: &str, lists: crate::index::search::SearchLists) -> QueryInput {
    QueryInput {
        question: question.to_string(),
        ranking: RankingInput::Lists(lists.with_seams),
        chunks_only: Some(RankingInput::Lists(lists.chunks_only)),
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    }
}

/// Run the stages after search on `input` and add their time to `timings`.
fn plan_timed(
    open: &OpenCorpus,
    input: &QueryInput,
    settings: &QuerySettings,
    mut timings: QueryTimings,
) -> Result<(Trace, QueryTimings), EngineError> {
    let start = Instant::now();
    let trace = open.with_lookups(|l| replan(input, settings, l))?;
    timings.stages += start.elapsed().as_secs_f64();
    Ok((trace, timings))
}

/// Timings of one query, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct QueryTimings {
    /// Embedding the question.
    pub embed: f64,
    /// Dense and keyword search.
    pub search: f64,
    /// Fuse, fire test, plan, budget fill and comparison.
    pub stages: f64,
}

impl Engine {
    /// Run a question through the whole pipeline on an open corpus (seam halves are scored when
    /// side drop is on).
    pub fn ask(
        &mut self,
        open: &OpenCorpus,
        question: &str,
        settings: &QuerySettings,
    ) -> Result<(Trace, QueryTimings), EngineError> {
        self.ask_scoring_sides(open, question, settings, settings.side_drop.is_some())
    }

    /// [`Engine::ask`], scoring seam halves for side drop when `score_sides` (so a measurement
    /// can replan with side drop on and off from the same searches).
    pub fn ask_scoring_sides(
        &mut self,
        open: &OpenCorpus,
        question: &str,
        settings: &QuerySettings,
        score_sides: bool,
    ) -> Result<(Trace, QueryTimings), EngineError> {
        let (input, timings) = self.search(open, question, settings, score_sides)?;
        plan_timed(open, &input, settings, timings)
    }

    /// The slow steps of [`Engine::ask_scoring_sides`] without the stages after them: embed the
    /// question, search, rerank, and score seam halves when `score_sides`. Returns the input
    /// [`replan`] starts from (its timings' `stages` hold the reranking and side scoring), for a
    /// caller that plans it under its own settings. On a corpus whose vectors are not in yet it
    /// searches the keyword lists alone ([`OpenCorpus::search_keywords`]).
    pub fn search(
        &mut self,
        open: &OpenCorpus,
        question: &str,
        settings: &QuerySettings,
        score_sides: bool,
    ) -> Result<(QueryInput, QueryTimings), EngineError> {
        if !open.indexes.dense_ready() {
            return open.search_keywords(question, settings);
        }
        check_question(question)?;
        settings.validate()?;
        let t0 = Instant::now();
        let vector = embed_one(&mut self.embedder, &self.tokenizer, question)?;
        let t1 = Instant::now();
        let lists = open.indexes.search(&vector, question, settings.depth)?;
        let t2 = Instant::now();
        let mut input = search_input(question, lists);
        if let Some(reranker) = self.reranker.as_mut() {
            let candidates = open.with_lookups(|l| input.rerank_candidates(settings, l.links));
            let text_of = |c: ChunkId| {
                let chunk = open.layout.chunk(c);
                Some(open.corpus.doc(chunk.doc).slice(chunk.span))
            };
            input.rerank =
                match score_candidates(reranker.as_mut(), question, &candidates, &text_of) {
                    Ok(scores) => RerankInput::Scores(scores),
                    Err(e) => RerankInput::Failed {
                        reranker: reranker.name().to_string(),
                        error: e.to_string(),
                    },
                };
        }
        if score_sides {
            let fused = input.ranking.fused(settings);
            input.side_scores = self.side_scores(open, &vector, &fused)?;
        }
        let t3 = Instant::now();
        Ok((
            input,
            QueryTimings {
                embed: (t1 - t0).as_secs_f64(),
                search: (t2 - t1).as_secs_f64(),
                stages: (t3 - t2).as_secs_f64(),
            },
        ))
    }

    /// The question's vector exactly as dense search embeds it (same model, same windows,
    /// L2-normalised), for a caller that ranks vectors elsewhere, such as an exported bundle's.
    pub fn embed_question(&mut self, question: &str) -> Result<Vec<f32>, EngineError> {
        check_question(question)?;
        Ok(embed_one(&mut self.embedder, &self.tokenizer, question)?)
    }

    /// Load the tokenizer and model named by `settings`.
    pub fn load(settings: Settings) -> Result<Engine, EngineError> {
        let tokenizer = Engine::load_tokenizer(&settings)?;
        Engine::load_with_tokenizer(settings, tokenizer)
    }

    /// Load only the tokenizer named by `settings`: enough to lay a corpus out (count tokens,
    /// cut chunks and seams) before the model is loaded.
    pub fn load_tokenizer(settings: &Settings) -> Result<TokenCounter, EngineError> {
        settings.validate()?;
        let places = crate::places::Places::of(settings);
        // A catalog model counts in its own tokens (fetched with its files when the hub can
        // be reached), so a chunk's size means the same to the chunker and to the model.
        if let Ok(EmbedderSpec::Catalog(name)) =
            EmbedderSpec::parse(settings.embedder.as_deref().unwrap_or(""))
        {
            use crate::embed::catalog::{CatalogKind, hub, resolve};
            let model = resolve(CatalogKind::Embedder, &name).map_err(EmbedError::from)?;
            let access = hub::HubAccess::from_env(settings.offline);
            let files = hub::ensure_files(model, &places.data_dir, &access, &mut |_| {})
                .map_err(EmbedError::from)?;
            let tokenizer = files
                .iter()
                .find(|f| f.file_name().is_some_and(|n| n == "tokenizer.json"))
                .ok_or_else(|| {
                    EmbedError::Spec(format!("the catalog model {name} has no tokenizer.json"))
                })?;
            return Ok(TokenCounter::from_file(tokenizer)?);
        }
        if !places.model_dir.join("model.onnx").is_file() {
            return Err(EngineError::NotInstalled {
                model_dir: places.model_dir.display().to_string(),
            });
        }
        Ok(TokenCounter::from_file(
            &places.model_dir.join("tokenizer.json"),
        )?)
    }

    /// [`Engine::load`] with the tokenizer already loaded by [`Engine::load_tokenizer`].
    pub fn load_with_tokenizer(
        settings: Settings,
        tokenizer: TokenCounter,
    ) -> Result<Engine, EngineError> {
        settings.validate()?;
        let places = crate::places::Places::of(&settings);
        let (embedder, runtime) = loading::load_embedder(&settings, &places, &tokenizer)?;
        let reranker = loading::load_reranker(&settings, &places, &tokenizer, &runtime)?;
        Ok(Engine {
            settings,
            places,
            tokenizer,
            embedder,
            reranker,
            halves: None,
            server: None,
        })
    }

    /// The vector cache of this engine's model: every text it ever embedded, shared by the
    /// indexes and by every evaluated strategy.
    pub fn vector_cache(&self) -> (VectorCache, CacheOpen) {
        VectorCache::for_model(&self.places.cache_dir, &self.embedder)
    }

    /// Load a corpus from `path`, lay it out with the chunker, chunk size, `k` and heading-prefix
    /// settings in force, and open (or build) its indexes.
    pub fn open_corpus(
        &mut self,
        path: &Path,
        progress: &mut dyn FnMut(BuildProgress) -> bool,
    ) -> Result<OpenCorpus, EngineError> {
        let corpus = self.load_corpus(path)?;
        self.open_loaded(corpus, progress)
    }

    /// Load the documents at `path` under the engine's settings, without laying them out or
    /// indexing them (so a question file can be checked against them first).
    pub fn load_corpus(&self, path: &Path) -> Result<Corpus, EngineError> {
        Ok(Corpus::load(
            path,
            &crate::places::load_options(&self.settings),
        )?)
    }

    /// Lay out an already loaded corpus under the engine's settings (each document's layout read
    /// from the stored layouts under the cache folder when one verifies) and open (or build) its
    /// indexes.
    pub fn open_loaded(
        &mut self,
        corpus: Corpus,
        progress: &mut dyn FnMut(BuildProgress) -> bool,
    ) -> Result<OpenCorpus, EngineError> {
        let layout = Layout::for_settings_stored(
            &corpus,
            &self.tokenizer,
            &self.settings,
            &self.places.cache_dir,
        )?;
        self.index_layout(corpus, layout, progress)
    }

    /// The client of the server `settings.store` names (None for the embedded store),
    /// connecting when it is not the one held.
    fn server(&mut self) -> Result<Option<Arc<dyn ServerStore>>, EngineError> {
        let store = &self.settings.store;
        if let Some((_, client)) = self.server.as_ref().filter(|(held, _)| held == store) {
            return Ok(Some(Arc::clone(client)));
        }
        let client = crate::index::store::connect(store, &self.settings)?;
        if let Some(client) = &client {
            self.server = Some((store.clone(), Arc::clone(client)));
        }
        Ok(client)
    }

    /// Open (or build) the indexes of an already laid-out corpus.
    pub fn index_layout(
        &mut self,
        corpus: Corpus,
        layout: Layout,
        progress: &mut dyn FnMut(BuildProgress) -> bool,
    ) -> Result<OpenCorpus, EngineError> {
        let options = BuildOptions {
            exact_search_limit: self.settings.exact_search_limit,
            embed: EmbedOptions {
                slice: self.settings.embed_slice,
            },
        };
        // Connect first: a server that is not there fails before minutes of embedding.
        let server = self.server()?;
        let (mut indexes, mut report) = open_or_build(
            &corpus,
            &layout,
            &mut self.embedder,
            &self.tokenizer,
            &self.places.cache_dir,
            options,
            progress,
        )?;
        let mut uploaded = |done, total| {
            progress(BuildProgress {
                stage: BuildStage::UploadVectors,
                done,
                total,
            });
        };
        if let Some(server) = server {
            let laid = (&corpus, &layout);
            let sync = server.attach(&mut indexes, laid, &self.settings, &mut uploaded)?;
            report.store = Some(sync);
            report.search_mode = indexes.search_mode;
        }
        Ok(OpenCorpus {
            corpus,
            layout,
            indexes,
            report,
        })
    }
}
