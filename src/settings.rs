//! One `Settings` type shared by the CLI and the TUI: defaults, a TOML file, and validation.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod file;

/// Allowed `chunk_tokens`: tokens per chunk.
pub const CHUNK_TOKENS_RANGE: RangeInclusive<usize> = 16..=65_536;
/// Allowed `k`: tokens per side of a seam.
pub const K_RANGE: RangeInclusive<usize> = 1..=4096;
/// A fire margin: places in the fused ranking (the type of `m` everywhere).
pub type Margin = u32;
/// Allowed `m`: places in the fused ranking.
pub const M_RANGE: RangeInclusive<Margin> = 0..=10_000;
/// Allowed `budget`: chunks in the final context.
pub const BUDGET_RANGE: RangeInclusive<usize> = 0..=10_000;
/// Allowed `depth`: results per search list.
pub const DEPTH_RANGE: RangeInclusive<usize> = 1..=100_000;

/// Every setting a run depends on. Missing fields in a settings file take their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Tokens per chunk: the budget every chunker packs to.
    pub chunk_tokens: usize,
    /// How documents are cut into chunks (default: fixed token windows, the Seams baseline).
    pub chunker: crate::spec::ChunkerKind,
    /// The cuts file chunker `given` reads (JSON Lines or a JSON array: plain `doc`/`start`/`end`
    /// records, LangChain Documents or LlamaIndex nodes); used only when `chunker = "given"`.
    pub cuts_file: Option<PathBuf>,
    /// The documents a LangChain or LlamaIndex loader made (JSON Lines of `Document`s), read
    /// instead of the corpus folder's files (`--documents FILE`).
    pub documents_file: Option<PathBuf>,
    /// Rebuild the documents from the cuts file's own chunk text (`--cuts FILE` without a
    /// corpus folder).
    pub documents_from_cuts: bool,
    /// Embed and keyword-index each chunk and seam with its heading path in front (search only;
    /// evidence stays the exact text).
    pub heading_prefix: bool,
    /// Seam half-width: tokens taken from each side of a cut.
    pub k: usize,
    /// Fire margin: a seam fires only when it outranks both chunks by at least this many places.
    pub m: Margin,
    /// Chunks sent to the model.
    pub budget: usize,
    /// How many results each search list keeps.
    pub depth: usize,
    /// The constant `c` of reciprocal rank fusion.
    pub rrf_c: f64,
    /// Files larger than this many bytes are skipped.
    pub max_file_bytes: u64,
    /// Follow symbolic links that lead outside the corpus folder (off: skipped with a reason).
    pub follow_outside_symlinks: bool,
    /// Above this many vectors, dense search switches from exact to approximate (HNSW).
    pub exact_search_limit: usize,
    /// Texts handed to the embedder per call (memory stays flat however large the corpus).
    pub embed_slice: usize,
    /// Texts per model batch inside one call (on a GPU at least 64). Peak memory follows it:
    /// `index` on three sample files peaked at 850 MB with 16, 500 MB with 8, 370 MB with 4.
    pub embed_batch: usize,
    /// Where the model runs: `auto` (the GPU when it can, else the CPU, saying why), `cpu` or
    /// `cuda`.
    pub device: crate::spec::Device,
    /// A folder holding `model.onnx` and the tokenizer files; default: the data directory's model.
    pub model_dir: Option<PathBuf>,
    /// The ONNX Runtime shared library; default: the data directory's runtime.
    pub runtime_path: Option<PathBuf>,
    /// The model's window in tokens, special tokens included.
    pub model_max_tokens: usize,
    /// A folder with a cross-encoder reranker (`model.onnx` + tokenizer files); none by default.
    pub reranker_dir: Option<PathBuf>,
    /// How many ordinary chunks the reranker judges (N).
    pub rerank_candidates: usize,
    /// The reranker's window for question and chunk together.
    pub reranker_max_tokens: usize,
    /// Where caches (vectors, indexes) live; default: the platform cache directory.
    pub cache_dir: Option<PathBuf>,
    /// Where the model and runtime are installed; default: the platform data directory.
    pub data_dir: Option<PathBuf>,
    /// Side drop (off by default): a fired seam whose one half scores below this cosine against
    /// the question, while the other does not, brings only the other chunk.
    pub side_drop: Option<f32>,
    /// Where the chunk and seam vectors are kept and dense search runs: the embedded usearch
    /// files, a Chroma server or Postgres with pgvector. Keyword lists stay local either way.
    /// Read from the file's `store = "KIND:URL"`, or its older `chroma_url` and `pg_url` keys.
    #[serde(skip_deserializing)]
    pub store: crate::spec::store::Store,
    /// The start of the collection names on the Chroma server (`PREFIX-<index key>-chunks` and
    /// `-seams`), so teams or test runs sharing a server keep apart.
    pub chroma_prefix: String,
    /// Seconds the Chroma server has to accept a connection and to send each part of a reply;
    /// a stalled server fails after this instead of hanging.
    pub chroma_timeout_secs: u64,
    /// Seconds the Postgres server has to connect and to answer each statement (building the
    /// HNSW indexes may take ten times this); a stalled server fails after this.
    pub pg_timeout_secs: u64,
    /// Which embedder makes the vectors, as `KIND:VALUE` (`fastembed:NAME`, `openai:URL`,
    /// `onnx:DIR`); none: the pinned model (or `model_dir`).
    pub embedder: Option<String>,
    /// The model name sent to an embedding service (`openai:`), e.g. `text-embedding-3-small`.
    pub embed_model: Option<String>,
    /// The environment variable holding the embedding service's key (never the key itself).
    pub embed_key_env: Option<String>,
    /// The longest text, in local-tokenizer tokens, a service embeds whole (its window);
    /// longer texts are embedded as the mean of even windows. Default 512 for services.
    pub embed_window: Option<usize>,
    /// The `dimensions` asked of the service (models that can shorten their vectors).
    pub embed_dimensions: Option<usize>,
    /// Texts per request to an embedding service, at most.
    pub embed_request_inputs: usize,
    /// Tokens (local tokenizer) per request to an embedding service, at most.
    pub embed_request_tokens: usize,
    /// Requests to a service in flight at once.
    pub embed_concurrency: usize,
    /// Seconds one request to a service may take before it is tried again.
    pub embed_timeout_secs: u64,
    /// Retries of a request that failed with 429, 5xx, a timeout or a dropped connection.
    pub embed_retries: u32,
    /// Put in front of every question before it is embedded (e5: `query: `; bge: its
    /// instruction).
    pub query_prefix: String,
    /// Put in front of every chunk and seam text before it is embedded (e5: `passage: `).
    pub document_prefix: String,
    /// Which reranker rescores the first ordinary chunks, as `KIND:VALUE` (`fastembed:NAME`,
    /// `rerank:URL`, `onnx:DIR`); none: `reranker_dir`, or no reranking.
    pub reranker: Option<String>,
    /// The model name sent to a Cohere or Jina-style rerank service (TEI needs none).
    pub rerank_model: Option<String>,
    /// The environment variable holding the rerank service's key.
    pub rerank_key_env: Option<String>,
    /// Never ask fastembed's hub for a catalog model: only files already on disk are used.
    pub offline: bool,
    /// Read every file as this format (`text`, `pdf`, `html`, `docx`), whatever its extension;
    /// none: by extension.
    pub format: Option<crate::spec::Format>,
    /// Extension (no dot) → format, over the defaults (`pdf` → pdf, `html`/`htm` → html,
    /// `docx` → docx, anything else text): `[formats]` with `log = "text"`, `xhtm = "html"`.
    pub formats: std::collections::BTreeMap<String, crate::spec::Format>,
    /// The pdfium shared library PDFs are read with; default: the data directory's (`seamscope
    /// setup` installs it), or SEAMSCOPE_PDFIUM_LIB.
    pub pdfium_path: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            chunk_tokens: 1024,
            chunker: crate::spec::ChunkerKind::Fixed,
            cuts_file: None,
            documents_file: None,
            documents_from_cuts: false,
            heading_prefix: false,
            k: crate::retrieve::DEFAULT_K as usize,
            m: crate::retrieve::DEFAULT_M,
            budget: crate::retrieve::DEFAULT_BUDGET,
            depth: crate::retrieve::DEFAULT_DEPTH,
            rrf_c: crate::retrieve::DEFAULT_RRF_C,
            max_file_bytes: 8 * 1024 * 1024,
            follow_outside_symlinks: false,
            exact_search_limit: 50_000,
            embed_slice: 64,
            embed_batch: 4,
            device: crate::spec::Device::Auto,
            model_dir: None,
            runtime_path: None,
            model_max_tokens: 256,
            reranker_dir: None,
            rerank_candidates: crate::retrieve::DEFAULT_RERANK_CANDIDATES,
            reranker_max_tokens: 512,
            cache_dir: None,
            data_dir: None,
            side_drop: None,
            store: crate::spec::store::Store::Embedded,
            chroma_prefix: "seamscope".to_string(),
            chroma_timeout_secs: DEFAULT_CHROMA_TIMEOUT_SECS,
            pg_timeout_secs: DEFAULT_CHROMA_TIMEOUT_SECS,
            embedder: None,
            embed_model: None,
            embed_key_env: None,
            embed_window: None,
            embed_dimensions: None,
            embed_request_inputs: 32,
            embed_request_tokens: 8192,
            embed_concurrency: 4,
            embed_timeout_secs: 60,
            embed_retries: 6,
            query_prefix: String::new(),
            document_prefix: String::new(),
            reranker: None,
            rerank_model: None,
            rerank_key_env: None,
            offline: false,
            format: None,
            formats: std::collections::BTreeMap::new(),
            pdfium_path: None,
        }
    }
}

/// The default window of an embedding service when `embed_window` is not set: what the common
/// self-hosted models (bge, e5, gte behind TEI) read.
pub const DEFAULT_SERVICE_WINDOW: usize = 512;

/// A setting outside its allowed range, or an unreadable settings file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A value is out of range.
    #[error("setting `{name}` = {value} is out of range: {allowed}")]
    OutOfRange {
        /// The setting's name.
        name: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A value cannot be used, for the reason given.
    #[error("setting `{name}`: {why}")]
    Invalid {
        /// The setting's name.
        name: &'static str,
        /// What is wrong and what is allowed.
        why: String,
    },
    /// The settings file could not be read or parsed.
    #[error("cannot read settings file {path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// `Ok` when `ok`, else the out-of-range error naming the setting, its value and what is allowed.
fn check(
    ok: bool,
    name: &'static str,
    value: impl ToString,
    allowed: &'static str,
) -> Result<(), SettingsError> {
    if ok {
        Ok(())
    } else {
        Err(SettingsError::OutOfRange {
            name,
            value: value.to_string(),
            allowed,
        })
    }
}

impl Settings {
    /// Check every value against its range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.check_retrieval()?;
        self.check_reading_and_embedding()?;
        self.check_stores()?;
        self.check_pipeline()?;
        self.check_formats()
    }

    /// The layout and retrieval numbers: chunk size, cut, seam width, margin, budget, depth, RRF.
    fn check_retrieval(&self) -> Result<(), SettingsError> {
        check(
            CHUNK_TOKENS_RANGE.contains(&self.chunk_tokens),
            "chunk_tokens",
            self.chunk_tokens,
            "16 to 65536 tokens",
        )?;
        check(
            self.chunker != crate::spec::ChunkerKind::Given || self.cuts_file.is_some(),
            "chunker",
            "given",
            "given needs a cuts file: pass --cuts FILE or set cuts_file",
        )?;
        check(
            K_RANGE.contains(&self.k),
            "k",
            self.k,
            "1 to 4096 tokens per side",
        )?;
        check(M_RANGE.contains(&self.m), "m", self.m, "0 to 10000 places")?;
        check(
            BUDGET_RANGE.contains(&self.budget),
            "budget",
            self.budget,
            "0 to 10000 chunks",
        )?;
        check(
            DEPTH_RANGE.contains(&self.depth),
            "depth",
            self.depth,
            "1 to 100000 results per list",
        )?;
        check(
            self.rrf_c.is_finite() && self.rrf_c >= 0.0,
            "rrf_c",
            self.rrf_c,
            "a finite number >= 0",
        )?;
        Ok(())
    }

    /// How files are read and texts embedded (and the side-drop cosine between seam halves).
    fn check_reading_and_embedding(&self) -> Result<(), SettingsError> {
        check(
            self.max_file_bytes >= 1,
            "max_file_bytes",
            self.max_file_bytes,
            "at least 1 byte",
        )?;
        check(
            (1..=4096).contains(&self.embed_slice),
            "embed_slice",
            self.embed_slice,
            "1 to 4096 texts",
        )?;
        check(
            (1..=1024).contains(&self.embed_batch),
            "embed_batch",
            self.embed_batch,
            "1 to 1024 texts",
        )?;
        check(
            self.side_drop.is_none_or(|t| (-1.0..=1.0).contains(&t)),
            "side_drop",
            format!("{:?}", self.side_drop),
            "a cosine between -1 and 1, or absent (off)",
        )?;
        check(
            (8..=100_000).contains(&self.model_max_tokens),
            "model_max_tokens",
            self.model_max_tokens,
            "8 to 100000 tokens",
        )?;
        Ok(())
    }

    /// The vector store: its address, timeout and collection prefix.
    fn check_stores(&self) -> Result<(), SettingsError> {
        self.store.check().map_err(wrong_address)?;
        check(
            (1..=3600).contains(&self.pg_timeout_secs),
            "pg_timeout_secs",
            self.pg_timeout_secs,
            "1 to 3600 seconds",
        )?;
        check(
            (1..=3600).contains(&self.chroma_timeout_secs),
            "chroma_timeout_secs",
            self.chroma_timeout_secs,
            "1 to 3600 seconds",
        )?;
        check(
            check_chroma_prefix(&self.chroma_prefix).is_ok(),
            "chroma_prefix",
            format!("{:?}", self.chroma_prefix),
            "1 to 400 letters, digits, '.', '_' or '-', starting and ending with a letter or digit",
        )?;
        Ok(())
    }

    /// The extra file formats: each key an extension without its dot.
    fn check_formats(&self) -> Result<(), SettingsError> {
        for ext in self.formats.keys() {
            if ext.is_empty() || ext.starts_with('.') || ext.contains(['/', '\\']) {
                return Err(SettingsError::Invalid {
                    name: "formats",
                    why: format!(
                        "{ext:?} is not an extension: give it without the dot, e.g. log = \"text\""
                    ),
                });
            }
        }
        Ok(())
    }

    /// The embedder and reranker settings: names that parse, a model for a service, numbers in
    /// range.
    fn check_pipeline(&self) -> Result<(), SettingsError> {
        use crate::spec::model::{EmbedderSpec, RerankerSpec};
        let invalid = |name: &'static str, why: String| SettingsError::Invalid { name, why };
        let embedder = EmbedderSpec::parse(self.embedder.as_deref().unwrap_or(""))
            .map_err(|why| invalid("embedder", why))?;
        RerankerSpec::parse(self.reranker.as_deref().unwrap_or(""))
            .map_err(|why| invalid("reranker", why))?;
        if matches!(embedder, EmbedderSpec::OpenAi(_))
            && self
                .embed_model
                .as_deref()
                .is_none_or(|m| m.trim().is_empty())
        {
            return Err(invalid(
                "embed_model",
                "an openai: embedder needs the model name the service serves (--embed-model NAME, e.g. text-embedding-3-small, or the name TEI / Ollama / vLLM were started with)".into(),
            ));
        }
        let ranges: [(&'static str, usize, std::ops::RangeInclusive<usize>); 5] = [
            (
                "embed_window",
                self.embed_window.unwrap_or(DEFAULT_SERVICE_WINDOW),
                8..=1_000_000,
            ),
            (
                "embed_dimensions",
                self.embed_dimensions.unwrap_or(1),
                1..=65_536,
            ),
            ("embed_request_inputs", self.embed_request_inputs, 1..=4096),
            (
                "embed_request_tokens",
                self.embed_request_tokens,
                8..=10_000_000,
            ),
            ("embed_concurrency", self.embed_concurrency, 1..=64),
        ];
        for (name, value, range) in ranges {
            if !range.contains(&value) {
                return Err(invalid(
                    name,
                    format!(
                        "{value} is out of range: {} to {}",
                        range.start(),
                        range.end()
                    ),
                ));
            }
        }
        if !(1..=3600).contains(&self.embed_timeout_secs) {
            return Err(invalid(
                "embed_timeout_secs",
                format!(
                    "{} is out of range: 1 to 3600 seconds",
                    self.embed_timeout_secs
                ),
            ));
        }
        if self.embed_retries > 100 {
            return Err(invalid(
                "embed_retries",
                format!("{} is out of range: 0 to 100", self.embed_retries),
            ));
        }
        Ok(())
    }

    /// The knobs a query runs under.
    pub fn query_settings(&self) -> crate::retrieve::QuerySettings {
        crate::retrieve::QuerySettings {
            k: self.k as u32,
            m: self.m,
            budget: self.budget,
            depth: self.depth,
            rrf_c: self.rrf_c,
            rerank_candidates: self.rerank_candidates,
            side_drop: self.side_drop,
        }
    }

    /// Load settings from a TOML file; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<Settings, SettingsError> {
        let text = match crate::files::read_named_text(path, crate::files::TOML_LIMIT) {
            Ok(t) => t,
            Err(e) if e.is_missing() => return Ok(Settings::default()),
            Err(e) => {
                return Err(SettingsError::File {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                });
            }
        };
        let file_error = |e: toml::de::Error| SettingsError::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let (mut settings, keys) = file::read(&text).map_err(file_error)?;
        // In the order `validate` checks: what comes before the store, then the store.
        settings.check_retrieval()?;
        settings.check_reading_and_embedding()?;
        settings.store = keys.store()?;
        settings.validate()?;
        Ok(settings)
    }
}

/// `Err` naming the store's setting when its address does not fit the store.
pub fn check_store(store: &crate::spec::store::Store) -> Result<(), SettingsError> {
    store.check().map_err(wrong_address)
}

/// The range error of an address its store cannot use, naming the store's setting.
fn wrong_address(wrong: crate::spec::store::WrongAddress) -> SettingsError {
    SettingsError::OutOfRange {
        name: wrong.setting,
        value: format!("{:?}", Some(wrong.shown)),
        allowed: wrong.allowed,
    }
}

/// The error of two stores named at once (a settings file's `chroma_url` beside its `pg_url`,
/// or `--chroma` over a file's `pg_url`): one vector store at a time.
pub fn two_stores() -> SettingsError {
    SettingsError::OutOfRange {
        name: "pg_url",
        value: "set beside chroma_url".to_string(),
        allowed: "one vector store at a time: Chroma or Postgres",
    }
}

/// Seconds a Chroma server has to connect and to send each part of a reply, by default.
pub const DEFAULT_CHROMA_TIMEOUT_SECS: u64 = 30;

/// Check the `chroma_prefix` setting against Chroma's collection name rules, kept short enough
/// for the key and kind the index appends: 1 to 400 letters, digits, `.`, `_` or `-`, starting
/// and ending with a letter or digit. The index checks it again before it names a collection.
pub fn check_chroma_prefix(prefix: &str) -> Result<(), String> {
    let ok_chars = prefix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    let starts = prefix
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let ends = prefix
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if ok_chars && starts && ends && (1..=400).contains(&prefix.len()) {
        Ok(())
    } else {
        Err(format!(
            "chroma_prefix {:?} must be 1 to 400 letters, digits, '.', '_' or '-', starting and ending with a letter or digit",
            crate::text::safe_name(prefix)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ChunkerKind;

    #[test]
    fn prefixes_follow_chromas_name_rules() {
        assert!(check_chroma_prefix("seamscope").is_ok());
        assert!(check_chroma_prefix("team.a_1").is_ok());
        for bad in ["", "-x", "x-", "a b", "x/y", "é"] {
            assert!(check_chroma_prefix(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_chunker_is_read_from_settings() {
        let s: Settings =
            toml::from_str("chunker = \"structure\"\nheading_prefix = true\n").unwrap_or_default();
        assert_eq!(
            (s.chunker, s.heading_prefix),
            (ChunkerKind::Structure, true)
        );
        assert_eq!(Settings::default().chunker, ChunkerKind::Fixed);
        assert!(toml::from_str::<Settings>("chunker = \"paragraph\"").is_err());
    }

    #[test]
    fn defaults_are_valid_and_match_the_design() {
        let s = Settings::default();
        s.validate().unwrap();
        assert_eq!(
            (s.chunk_tokens, s.k, s.m, s.budget, s.depth),
            (1024, 150, 1, 5, 150)
        );
        assert_eq!(s.rrf_c, 60.0);
    }

    #[test]
    fn out_of_range_names_the_setting() {
        let s = Settings {
            depth: 0,
            ..Settings::default()
        };
        let msg = s.validate().unwrap_err().to_string();
        assert!(msg.contains("depth") && msg.contains("0"), "{msg}");
    }

    #[test]
    fn toml_file_overrides_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("settings.toml");
        std::fs::write(&p, "k = 200\nbudget = 8\n").unwrap();
        let s = Settings::load(&p).unwrap();
        assert_eq!((s.k, s.budget, s.chunk_tokens), (200, 8, 1024));
        std::fs::write(&p, "kk = 2\n").unwrap();
        assert!(Settings::load(&p).unwrap_err().to_string().contains("kk"));
        assert_eq!(
            Settings::load(&dir.path().join("none.toml")).unwrap(),
            Settings::default()
        );
    }
}
