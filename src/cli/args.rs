//! The options every command shares (global and layout), how they resolve into one `Settings`,
//! and the value parsers and usage error the command line uses.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use clap::Args;
use clap::builder::RangedI64ValueParser;

use seamscope::chunk::ChunkerKind;
use seamscope::settings::Settings;
use seamscope::spec::store::{Store, StoreKind};

/// Options every command takes.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Settings file (default: settings.toml in the config directory).
    #[arg(long, global = true, value_name = "FILE", value_parser = non_empty_path)]
    pub(super) config: Option<PathBuf>,
    /// Cache directory for vectors and indexes.
    #[arg(long, global = true, value_name = "DIR", env = "SEAMSCOPE_CACHE_DIR", value_parser = non_empty_path)]
    pub(super) cache_dir: Option<PathBuf>,
    /// Data directory holding the model and ONNX Runtime.
    #[arg(long, global = true, value_name = "DIR", env = "SEAMSCOPE_DATA_DIR", value_parser = non_empty_path)]
    pub(super) data_dir: Option<PathBuf>,
    /// A folder with another ONNX sentence-embedding model (model.onnx + tokenizer files).
    #[arg(long, global = true, value_name = "DIR", env = "SEAMSCOPE_MODEL_DIR", value_parser = non_empty_path)]
    pub(super) model_dir: Option<PathBuf>,
    /// Another ONNX Runtime shared library (1.24 or newer).
    #[arg(long, global = true, value_name = "FILE", env = "SEAMSCOPE_ORT_LIB", value_parser = non_empty_path)]
    pub(super) runtime: Option<PathBuf>,
    /// Another pdfium shared library to read PDFs with (default: the one `seamscope setup`
    /// installs in the data directory).
    #[arg(long, global = true, value_name = "FILE", env = "SEAMSCOPE_PDFIUM_LIB", value_parser = non_empty_path)]
    pub(super) pdfium: Option<PathBuf>,
    /// Read every file as this format, whatever its extension: text, pdf, html or docx (default:
    /// by extension; `[formats]` in settings.toml maps more extensions).
    #[arg(long, global = true, value_name = "NAME", value_parser = format_name)]
    pub(super) format: Option<seamscope::extract::Format>,
    /// Where the model runs: auto (the GPU when `setup --gpu` installed its runtime and a driver
    /// and GPU are there, else the CPU, saying why), cpu or cuda (default: auto).
    #[arg(long, global = true, value_enum, value_name = "DEVICE")]
    pub(super) device: Option<super::choices::DeviceChoice>,
    /// Keep the chunk and seam vectors in the Chroma server at URL (http://HOST:PORT) and run
    /// dense search there; keyword lists stay local (default: the embedded usearch files).
    #[arg(long, global = true, value_name = "URL", env = "SEAMSCOPE_CHROMA_URL")]
    pub(super) chroma: Option<String>,
    /// Where the chunk and seam vectors are searched: embedded (the usearch files),
    /// chroma:http://HOST:PORT (as --chroma) or pgvector:postgresql://USER@HOST:PORT/DB
    /// (Postgres with pgvector, its HNSW index; the password in SEAMSCOPE_PG_PASSWORD or
    /// PGPASSWORD, never in the address). Keyword lists stay local.
    #[arg(long, global = true, value_name = "KIND:URL", env = "SEAMSCOPE_STORE", value_parser = store_flag)]
    pub(super) store: Option<StoreFlag>,
    /// Which embedder makes the vectors: fastembed:NAME (fastembed's catalog; `seamscope
    /// models` lists it), openai:URL (an OpenAI-compatible /v1/embeddings service) or onnx:DIR
    /// (default: the pinned all-MiniLM-L6-v2).
    #[arg(
        long,
        global = true,
        value_name = "KIND:VALUE",
        env = "SEAMSCOPE_EMBEDDER"
    )]
    pub(super) embedder: Option<String>,
    /// The model name an openai: service serves (e.g. text-embedding-3-small).
    #[arg(
        long,
        global = true,
        value_name = "NAME",
        env = "SEAMSCOPE_EMBED_MODEL"
    )]
    pub(super) embed_model: Option<String>,
    /// The environment variable that holds the embedding service's key (the key itself is
    /// never a flag, never printed, never written).
    #[arg(long, global = true, value_name = "VAR")]
    pub(super) embed_key_env: Option<String>,
    /// Tokens (counted with the local tokenizer) a service embeds whole; longer texts are
    /// embedded as the mean of even windows (default 512 for services).
    #[arg(long, global = true, value_name = "TOKENS", value_parser = usize_in(8..=1_000_000))]
    pub(super) embed_window: Option<usize>,
    /// The vector length to ask an openai: service for (models that can shorten their vectors).
    #[arg(long, global = true, value_name = "N", value_parser = usize_in(1..=65_536))]
    pub(super) embed_dimensions: Option<usize>,
    /// Requests to an embedding service in flight at once (default 4).
    #[arg(long, global = true, value_name = "N", value_parser = usize_in(1..=64))]
    pub(super) embed_concurrency: Option<usize>,
    /// Put in front of every question before embedding it (e5: "query: ").
    #[arg(long, global = true, value_name = "TEXT")]
    pub(super) query_prefix: Option<String>,
    /// Put in front of every chunk and seam text before embedding it (e5: "passage: ").
    #[arg(long, global = true, value_name = "TEXT")]
    pub(super) document_prefix: Option<String>,
    /// Which reranker rescores the first ordinary chunks: fastembed:NAME, rerank:URL (TEI,
    /// or Cohere / Jina with --rerank-model) or onnx:DIR (default: none).
    #[arg(
        long,
        global = true,
        value_name = "KIND:VALUE",
        env = "SEAMSCOPE_RERANKER"
    )]
    pub(super) reranker: Option<String>,
    /// The model name a Cohere or Jina-style rerank service needs (TEI needs none).
    #[arg(long, global = true, value_name = "NAME")]
    pub(super) rerank_model: Option<String>,
    /// The environment variable that holds the rerank service's key.
    #[arg(long, global = true, value_name = "VAR")]
    pub(super) rerank_key_env: Option<String>,
    /// Never ask fastembed's hub for a catalog model: use only files already on disk.
    #[arg(long, global = true)]
    pub(super) offline: bool,
}

/// Options that shape chunks and seams.
#[derive(Debug, Args, Clone, Default)]
pub struct LayoutArgs {
    #[arg(
        long,
        value_name = "TOKENS",
        allow_hyphen_values = true,
        value_parser = usize_in(seamscope::settings::CHUNK_TOKENS_RANGE),
        help = format!("Tokens per chunk, {} (default {})", range_text(&seamscope::settings::CHUNK_TOKENS_RANGE), Settings::default().chunk_tokens),
    )]
    pub(super) chunk_tokens: Option<usize>,
    /// How documents are cut: fixed, sentence, recursive or structure (default fixed), or given
    /// (your own chunks, from --cuts FILE).
    #[arg(long, value_enum, value_name = "KIND")]
    pub(super) chunker: Option<super::choices::ChunkerChoice>,
    /// Your own chunks: a cuts file (JSON Lines or a JSON array of {"doc", "start", "end"}
    /// records, LangChain Documents or LlamaIndex nodes); implies --chunker given.
    #[arg(long, value_name = "FILE", env = "SEAMSCOPE_CUTS", value_parser = non_empty_path)]
    pub(super) cuts: Option<PathBuf>,
    /// The documents your LangChain or LlamaIndex loader made (JSON Lines of Documents:
    /// page_content + metadata.source/page, or text + metadata.file_path/page_label), read
    /// instead of a corpus folder; the corpus argument may then be left out.
    #[arg(long, value_name = "FILE", value_parser = non_empty_path)]
    pub(super) documents: Option<PathBuf>,
    /// Set by [`LayoutArgs::corpus_root`]: no corpus and no --documents, so the documents are
    /// rebuilt from the cuts file's own chunk text.
    #[arg(skip)]
    pub(super) from_cuts: bool,
    /// Embed chunks and seams with their heading path in front (search only; evidence unchanged).
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_name = "BOOL"
    )]
    pub(super) heading_prefix: Option<bool>,
    #[arg(
        long,
        value_name = "TOKENS",
        allow_hyphen_values = true,
        value_parser = usize_in(seamscope::settings::K_RANGE),
        help = format!("Seam half-width: tokens taken from each side of a cut, {} (default {})", range_text(&seamscope::settings::K_RANGE), Settings::default().k),
    )]
    pub(super) k: Option<usize>,
}

impl GlobalArgs {
    /// Resolve settings: defaults, then the settings file, then command-line overrides.
    pub fn settings(&self) -> anyhow::Result<Settings> {
        let file = match &self.config {
            Some(p) => p.clone(),
            None => seamscope::places::Places::of(&Settings::default())
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
        if self.pdfium.is_some() {
            s.pdfium_path.clone_from(&self.pdfium);
        }
        if self.format.is_some() {
            s.format = self.format;
        }
        if let Some(device) = self.device {
            s.device = device.into();
        }
        s.store = self.store_over(&s.store)?;
        self.apply_pipeline(&mut s);
        s.validate().map_err(|e| UsageError(e.to_string()))?;
        Ok(s)
    }
}

/// Whether `store` is a server other than Chroma (which `--chroma` beside it would contradict).
fn another_server(store: &Store) -> bool {
    store.is_server() && store.kind() != StoreKind::Chroma
}

impl GlobalArgs {
    /// The store `--store` or `--chroma` (or their variables) name over the settings file's:
    /// `--store` wins; `--chroma` alone replaces an embedded or Chroma store and is refused
    /// beside the file's Postgres, as two stores.
    fn store_over(&self, from_file: &Store) -> anyhow::Result<Store> {
        let refused = |e: seamscope::settings::SettingsError| UsageError(e.to_string());
        match (&self.chroma, &self.store) {
            (_, Some(StoreFlag(Err(why)))) => Err(UsageError(why.clone()).into()),
            (None, Some(StoreFlag(Ok(store)))) => Ok(store.clone()),
            (Some(_), Some(StoreFlag(Ok(store)))) if another_server(store) => {
                Err(UsageError(format!(
                    "--chroma and --store {}: name one vector store",
                    store.label()
                ))
                .into())
            }
            (Some(_), Some(StoreFlag(Ok(store)))) => Ok(store.clone()),
            (Some(url), None) => {
                let chroma = Store::Chroma(url.clone());
                if another_server(from_file) {
                    seamscope::settings::check_store(&chroma).map_err(refused)?;
                    return Err(refused(seamscope::settings::two_stores()).into());
                }
                Ok(chroma)
            }
            (None, None) => Ok(from_file.clone()),
        }
    }

    /// The embedder and reranker flags over the settings file's values.
    fn apply_pipeline(&self, s: &mut Settings) {
        let text = |flag: &Option<String>, setting: &mut Option<String>| {
            if let Some(v) = flag {
                *setting = Some(v.clone());
            }
        };
        text(&self.embedder, &mut s.embedder);
        text(&self.embed_model, &mut s.embed_model);
        text(&self.embed_key_env, &mut s.embed_key_env);
        text(&self.reranker, &mut s.reranker);
        text(&self.rerank_model, &mut s.rerank_model);
        text(&self.rerank_key_env, &mut s.rerank_key_env);
        if self.embed_window.is_some() {
            s.embed_window = self.embed_window;
        }
        if self.embed_dimensions.is_some() {
            s.embed_dimensions = self.embed_dimensions;
        }
        if let Some(n) = self.embed_concurrency {
            s.embed_concurrency = n;
        }
        if let Some(p) = &self.query_prefix {
            s.query_prefix.clone_from(p);
        }
        if let Some(p) = &self.document_prefix {
            s.document_prefix.clone_from(p);
        }
        if self.offline {
            s.offline = true;
        }
    }
}

impl LayoutArgs {
    /// The corpus a command opens: the folder or file given; else the loader dump of
    /// `--documents`; else, with `--cuts`, the documents rebuilt from the cuts file's chunks.
    pub fn corpus_root(&mut self, corpus: Option<PathBuf>) -> Result<PathBuf, UsageError> {
        resolve_corpus(corpus, self.documents.as_ref(), self.cuts.as_ref()).map(
            |(root, from_cuts)| {
                self.from_cuts = from_cuts;
                root
            },
        )
    }

    /// Apply these overrides to `settings` and check the result.
    pub fn apply(&self, settings: &mut Settings) -> anyhow::Result<()> {
        if let Some(c) = self.chunk_tokens {
            settings.chunk_tokens = c;
        }
        let chunker = self.chunker.map(ChunkerKind::from);
        if let Some(kind) = chunker {
            settings.chunker = kind;
        }
        if let Some(file) = &self.cuts {
            if let Some(kind) = chunker.filter(|k| *k != ChunkerKind::Given) {
                return Err(UsageError(format!(
                    "--cuts gives the chunks, so it cannot go with --chunker {kind}: drop one of them"
                ))
                .into());
            }
            settings.chunker = ChunkerKind::Given;
            settings.cuts_file = Some(file.clone());
        }
        if settings.chunker == ChunkerKind::Given && settings.cuts_file.is_none() {
            return Err(UsageError(
                "--chunker given takes your own chunks from a file: pass --cuts FILE".into(),
            )
            .into());
        }
        if let Some(file) = &self.documents {
            settings.documents_file = Some(file.clone());
        }
        settings.documents_from_cuts = self.from_cuts;
        if let Some(h) = self.heading_prefix {
            settings.heading_prefix = h;
        }
        if let Some(k) = self.k {
            settings.k = k;
        }
        settings.validate().map_err(|e| UsageError(e.to_string()))?;
        Ok(())
    }
}

/// The `--store` flag as typed: the store, or what is wrong with it, the address masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StoreFlag(Result<Store, String>);

/// Parse `--store` ([`Store::parse`]). It never fails in clap, whose message would echo the
/// value, password and all: what is wrong is kept and said by [`GlobalArgs::settings`].
fn store_flag(text: &str) -> Result<StoreFlag, String> {
    Ok(StoreFlag(
        Store::parse(text).map_err(|why| format!("--store {why}")),
    ))
}

/// Environment variables that name places, with what each should hold. Set but empty, they are
/// an error that names the variable: clap would otherwise blame the matching flag, which the user
/// never typed.
const PLACE_VARIABLES: [(&str, &str); 10] = [
    ("SEAMSCOPE_CACHE_DIR", "a path"),
    ("SEAMSCOPE_CUTS", "a path"),
    (
        "SEAMSCOPE_CHROMA_URL",
        "a server address (http://HOST:PORT)",
    ),
    (
        "SEAMSCOPE_STORE",
        "a store (embedded, chroma:URL or pgvector:URL)",
    ),
    ("SEAMSCOPE_DATA_DIR", "a path"),
    ("SEAMSCOPE_MODEL_DIR", "a path"),
    ("SEAMSCOPE_ORT_LIB", "a path"),
    ("SEAMSCOPE_PDFIUM_LIB", "a path"),
    ("SEAMSCOPE_RERANKER_DIR", "a path"),
    ("SEAMSCOPE_CONFIG_DIR", "a path"),
];

/// The first place variable that is set but empty, and what it should hold.
pub(super) fn empty_place_variable() -> Option<(&'static str, &'static str)> {
    PLACE_VARIABLES
        .into_iter()
        .find(|(name, _)| std::env::var_os(name).is_some_and(|v| v.is_empty()))
}

/// Parse a path flag: an empty one is a usage error, not "the current folder" or a later
/// failure far from the cause.
pub(super) fn non_empty_path(text: &str) -> Result<PathBuf, String> {
    if text.is_empty() {
        Err("the path is empty".into())
    } else {
        Ok(PathBuf::from(text))
    }
}

/// Check an output file a flag names (`--fix OUT`, `--csv FILE`, `--save-baseline FILE`)
/// before any work: its folder must exist, and what is at the path must be a regular file or
/// nothing (never a device such as `/dev/null`, a FIFO, a socket, a folder, or a link to one).
pub(super) fn check_output_file(flag: &str, path: &Path) -> Result<(), UsageError> {
    let name = seamscope::text::safe_name(&path.display().to_string());
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(UsageError(format!(
            "{flag} {name}: the folder {} does not exist",
            seamscope::text::safe_name(&parent.display().to_string())
        )));
    }
    seamscope::files::output_target(path)
        .map(drop)
        .map_err(|e| UsageError(format!("{flag}: {}", seamscope::text::safe(&e.to_string()))))
}

/// Parse `--format`: one of the format names.
fn format_name(text: &str) -> Result<seamscope::extract::Format, String> {
    seamscope::extract::Format::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = seamscope::extract::Format::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        format!("{text:?} is not a format: use one of {}", names.join(", "))
    })
}

/// A command line that is wrong as typed: exits 2, like clap's own usage errors, while a run
/// that fails exits 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The corpus path to open and whether its documents are rebuilt from the cuts: the corpus
/// given, else the `--documents` dump, else the `--cuts` file.
pub fn resolve_corpus(
    corpus: Option<PathBuf>,
    documents: Option<&PathBuf>,
    cuts: Option<&PathBuf>,
) -> Result<(PathBuf, bool), UsageError> {
    match (corpus, documents, cuts) {
        (Some(corpus), _, _) => Ok((corpus, false)),
        (None, Some(documents), _) => Ok((documents.clone(), false)),
        (None, None, Some(cuts)) => Ok((cuts.clone(), true)),
        (None, None, None) => Err(UsageError(
            "give a corpus folder or file (or --documents FILE, your loader's documents, or --cuts FILE alone to rebuild the documents from your chunks)".into(),
        )),
    }
}

/// A measurement (calibrate, tune's board and map) compares settings by what their contexts
/// hold: at budget 0 every context is empty and every question fails whatever the setting, so
/// nothing could be concluded. Refused before any work.
pub fn check_measured_budget(budget: usize) -> Result<(), UsageError> {
    if budget == 0 {
        return Err(UsageError(format!(
            "budget 0 sends no chunk, so every question fails whatever the setting and nothing can be measured: give --budget 1 or more (up to {})",
            seamscope::settings::BUDGET_RANGE.end()
        )));
    }
    Ok(())
}

/// A clap parser for a whole number of `usize` within `range`: anything else (negative, too
/// large, out of range) is a usage error naming the range, never a wrapped value.
pub fn usize_in(range: RangeInclusive<usize>) -> RangedI64ValueParser<usize> {
    let (lo, hi) = (*range.start(), *range.end());
    RangedI64ValueParser::<usize>::new()
        .range(i64::try_from(lo).unwrap_or(i64::MAX)..=i64::try_from(hi).unwrap_or(i64::MAX))
}

/// A clap parser for a whole number of `u32` within `range` (see [`usize_in`]).
pub fn u32_in(range: RangeInclusive<u32>) -> RangedI64ValueParser<u32> {
    RangedI64ValueParser::<u32>::new().range(i64::from(*range.start())..=i64::from(*range.end()))
}

/// "0 to 10000": a range as help text shows it.
pub fn range_text<T: std::fmt::Display>(range: &RangeInclusive<T>) -> String {
    format!("{} to {}", range.start(), range.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_store_is_said_after_the_flag_with_its_password_masked() {
        let read = |t: &str| store_flag(t).expect("never fails in clap").0;
        assert_eq!(read("embedded"), Ok(Store::Embedded));
        assert_eq!(
            read("postgresql://u@h:5432/db"),
            Ok(Store::Pgvector("postgresql://u@h:5432/db".into()))
        );
        for (given, said) in [
            ("pgvector:", "--store pgvector: needs the server's address"),
            ("chroma", "--store chroma: needs the server's address"),
            (
                "mongo:mongodb://u:s3cret@h/db",
                "--store mongo:mongodb://u:***@h/db: unknown store",
            ),
        ] {
            let why = read(given).unwrap_err();
            assert!(why.starts_with(said) && !why.contains("s3cret"), "{why}");
        }
    }
}
