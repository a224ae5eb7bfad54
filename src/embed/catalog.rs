//! fastembed's own catalog of embedders and rerankers, by name: what it holds, what is in the
//! cache, and how a name a user types resolves to one model.
//!
//! The catalog comes from fastembed itself (`TextEmbedding::list_supported_models` and
//! `TextRerank::list_supported_models`); seamscope adds a short name users can type and the
//! window each model reads (fastembed states neither). Files live in Hugging Face's cache layout
//! under `<data dir>/fastembed/`, the folder seamscope hands fastembed's hub client; see
//! [`hub`] for how they get there and what happens without the network.

pub mod embedder;
pub mod hub;
mod names;
pub mod reranker;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fastembed::{EmbeddingModel, QuantizationMode, RerankerModel, TextEmbedding, TextRerank};
use serde::Serialize;

pub use embedder::CatalogEmbedder;
pub use hub::{FetchProgress, HubAccess};
pub use names::window_of;
use names::{short_name, suggestions};
pub use reranker::CatalogReranker;

/// The tokenizer files every catalog model needs beside its ONNX file.
pub const TOKENIZER_FILES: [&str; 4] = [
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];

/// What a catalog model does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CatalogKind {
    /// Turns a text into a vector.
    Embedder,
    /// Scores a question against a text (a cross-encoder).
    Reranker,
}

impl std::fmt::Display for CatalogKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CatalogKind::Embedder => "embedder",
            CatalogKind::Reranker => "reranker",
        })
    }
}

/// fastembed's own identifier of a catalog model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FastembedModel {
    /// A text embedding model.
    Embedder(EmbeddingModel),
    /// A reranking model.
    Reranker(RerankerModel),
}

/// One model of fastembed's catalog, as fastembed describes it plus the name and window seamscope
/// adds. The same for every data directory; [`CatalogEntry`] adds what is installed.
#[derive(Debug, Clone)]
pub struct CatalogModel {
    /// Embedder or reranker.
    pub kind: CatalogKind,
    /// The short name users type: the hub repository's name without `-onnx`, with `-q` (or
    /// `-q4`) for a quantized variant, e.g. `bge-small-en-v1.5`, `all-MiniLM-L6-v2-q`.
    pub name: String,
    /// fastembed's enum name, e.g. `BGESmallENV15` (also accepted as a name).
    pub fastembed_name: String,
    /// fastembed's identifier.
    pub fastembed: FastembedModel,
    /// The hub repository, e.g. `Xenova/bge-small-en-v1.5`.
    pub model_code: String,
    /// The ONNX file inside the repository, e.g. `onnx/model.onnx`.
    pub model_file: String,
    /// Files the ONNX file needs beside it (external weights), inside the repository.
    pub additional_files: Vec<String>,
    /// Vector length (embedders only).
    pub dim: Option<usize>,
    /// Tokens the model reads, special tokens included (see [`window_of`]).
    pub window: usize,
    /// fastembed's description.
    pub description: String,
    /// How the weights are quantized, when they are: `dynamic`, `static` or `4-bit`.
    pub quantized: Option<&'static str>,
}

impl CatalogModel {
    /// Every file the model needs, as paths inside its hub repository: the ONNX file, its
    /// external weights, then the tokenizer files.
    pub fn files(&self) -> Vec<String> {
        let mut files = vec![self.model_file.clone()];
        files.extend(self.additional_files.iter().cloned());
        files.extend(TOKENIZER_FILES.iter().map(|f| f.to_string()));
        files
    }

    /// The folder of this model's repository in the cache under `data_dir`, in Hugging Face's
    /// layout (`models--ORG--NAME`): where fastembed's hub client puts its files.
    pub fn folder(&self, data_dir: &Path) -> PathBuf {
        cache_root(data_dir).join(format!("models--{}", self.model_code.replace('/', "--")))
    }

    /// Whether the name a user typed means this model: its short name, fastembed's enum name
    /// or its hub repository, ignoring case (and a leading `fastembed:`).
    fn answers_to(&self, typed: &str) -> bool {
        let typed = typed.trim();
        let typed = typed.strip_prefix("fastembed:").unwrap_or(typed);
        [&self.name, &self.fastembed_name, &self.model_code]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(typed))
    }
}

/// A catalog model and what the data directory holds of it: one row of `seamscope models`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogEntry {
    /// Embedder or reranker.
    pub kind: CatalogKind,
    /// The short name users type.
    pub name: String,
    /// fastembed's enum name.
    pub fastembed_name: String,
    /// The hub repository.
    pub model_code: String,
    /// Vector length (embedders only).
    pub dim: Option<usize>,
    /// Tokens the model reads, special tokens included.
    pub window: usize,
    /// fastembed's description.
    pub description: String,
    /// How the weights are quantized, when they are.
    pub quantized: Option<&'static str>,
    /// Bytes of its files on disk, when all of them are there.
    pub size_on_disk: Option<u64>,
    /// Whether every file it needs is in the cache.
    pub installed: bool,
    /// Where its files live, or would live once fetched.
    pub folder: PathBuf,
    /// The files it needs, as paths inside its hub repository.
    pub files: Vec<String>,
}

/// A name that is not in the catalog.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// No model of this kind answers to the name.
    #[error(
        "fastembed's catalog has no {kind} named `{}`{}; `seamscope models` lists them all",
        crate::text::safe_name(name),
        suggestion_text(suggestions)
    )]
    UnknownName {
        /// Embedder or reranker.
        kind: CatalogKind,
        /// The name as typed.
        name: String,
        /// Close names of the same kind, best first.
        suggestions: Vec<String>,
    },
    /// The model's files are not in the cache and the hub may not or cannot be asked.
    #[error("{0}")]
    NotCached(Box<NotCached>),
    /// The hub was reached but would not give a file.
    #[error(
        "fetching fastembed:{} from the hub repository {repo}{} failed: {}",
        crate::text::safe_name(name),
        file.as_ref().map(|f| format!(" (file {f})")).unwrap_or_default(),
        crate::text::safe_name(message)
    )]
    Fetch {
        /// The short name.
        name: String,
        /// The hub repository.
        repo: String,
        /// The file being fetched, when it got that far.
        file: Option<String>,
        /// What the hub or its client said.
        message: String,
    },
}

/// A catalog model whose files are not in the cache, and why nothing was fetched: everything a
/// person needs to fetch the files by hand.
#[derive(Debug, Clone, PartialEq)]
pub struct NotCached {
    /// Embedder or reranker.
    pub kind: CatalogKind,
    /// The short name.
    pub name: String,
    /// The hub repository.
    pub repo: String,
    /// The cache folder fastembed's hub client would have filled.
    pub folder: PathBuf,
    /// Every file the model needs, as paths inside the repository.
    pub files: Vec<String>,
    /// The ones the cache lacks.
    pub missing: Vec<String>,
    /// Why nothing was fetched (offline, or the hub's address and what went wrong).
    pub why: String,
    /// Whether the model pools by its first token, which a plain model folder would not.
    pub cls_pooling: bool,
}

impl std::fmt::Display for NotCached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hub::not_cached_text(self))
    }
}

fn suggestion_text(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", suggestions.join(", "))
    }
}

/// The cache folder fastembed's hub client fills: `<data_dir>/fastembed`.
pub fn cache_root(data_dir: &Path) -> PathBuf {
    data_dir.join("fastembed")
}

/// Every model of fastembed's catalog, embedders first, each kind in fastembed's order of names.
pub fn models() -> &'static [CatalogModel] {
    static MODELS: OnceLock<Vec<CatalogModel>> = OnceLock::new();
    MODELS.get_or_init(build_models)
}

fn build_models() -> Vec<CatalogModel> {
    let mut embedders: Vec<CatalogModel> = TextEmbedding::list_supported_models()
        .into_iter()
        .map(|info| {
            let fastembed_name = format!("{:?}", info.model);
            let quantized = match TextEmbedding::get_quantization_mode(&info.model) {
                QuantizationMode::Dynamic => Some("dynamic"),
                QuantizationMode::Static => Some("static"),
                _ if fastembed_name.ends_with("Q4") => Some("4-bit"),
                _ => None,
            };
            CatalogModel {
                kind: CatalogKind::Embedder,
                name: short_name(&info.model_code, &fastembed_name),
                window: window_of(&fastembed_name),
                fastembed_name,
                fastembed: FastembedModel::Embedder(info.model),
                model_code: info.model_code,
                model_file: info.model_file,
                additional_files: info.additional_files,
                dim: Some(info.dim),
                description: info.description,
                quantized,
            }
        })
        .collect();
    // fastembed keeps embedders in a hash map: sort for a stable order.
    embedders.sort_by_key(|m| m.name.to_lowercase());
    let mut rerankers: Vec<CatalogModel> = TextRerank::list_supported_models()
        .into_iter()
        .map(|info| {
            let fastembed_name = format!("{:?}", info.model);
            CatalogModel {
                kind: CatalogKind::Reranker,
                name: short_name(&info.model_code, &fastembed_name),
                window: window_of(&fastembed_name),
                fastembed_name,
                fastembed: FastembedModel::Reranker(info.model),
                model_code: info.model_code,
                model_file: info.model_file,
                additional_files: info.additional_files,
                dim: None,
                description: info.description,
                quantized: None,
            }
        })
        .collect();
    rerankers.sort_by_key(|m| m.name.to_lowercase());
    embedders.extend(rerankers);
    embedders
}

/// The catalog model of `kind` that answers to `name` (short name, fastembed's enum name or hub
/// repository, any case). A repository that holds two variants names the unquantized one.
pub fn resolve(kind: CatalogKind, name: &str) -> Result<&'static CatalogModel, CatalogError> {
    let of_kind = || models().iter().filter(move |m| m.kind == kind);
    of_kind()
        .filter(|m| m.answers_to(name))
        .min_by_key(|m| m.quantized.is_some())
        .ok_or_else(|| CatalogError::UnknownName {
            kind,
            name: name.to_string(),
            suggestions: suggestions(of_kind().map(|m| m.name.as_str()), name),
        })
}

/// Every catalog model with what `data_dir` holds of it: installed or not, size, folder.
/// Reads the cache only; never touches the network.
pub fn catalog(data_dir: &Path) -> Vec<CatalogEntry> {
    models()
        .iter()
        .map(|m| {
            let cached = hub::cached_files(m, data_dir);
            let size_on_disk = cached.as_ref().ok().map(|files| {
                files
                    .iter()
                    .filter_map(|p| std::fs::metadata(p).ok())
                    .map(|meta| meta.len())
                    .sum()
            });
            CatalogEntry {
                kind: m.kind,
                name: m.name.clone(),
                fastembed_name: m.fastembed_name.clone(),
                model_code: m.model_code.clone(),
                dim: m.dim,
                window: m.window,
                description: m.description.clone(),
                quantized: m.quantized,
                size_on_disk,
                installed: cached.is_ok(),
                folder: m.folder(data_dir),
                files: m.files(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_unique_and_typeable() {
        for kind in [CatalogKind::Embedder, CatalogKind::Reranker] {
            let mut names: Vec<String> = models()
                .iter()
                .filter(|m| m.kind == kind)
                .map(|m| m.name.to_lowercase())
                .collect();
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "two {kind}s share a short name: {names:?}");
            for name in &names {
                assert!(
                    name.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn every_spelling_resolves_to_the_same_model() {
        let by_short = resolve(CatalogKind::Embedder, "bge-small-en-v1.5").unwrap();
        assert_eq!(by_short.model_code, "Xenova/bge-small-en-v1.5");
        assert_eq!((by_short.dim, by_short.window), (Some(384), 512));
        for typed in [
            "BGE-SMALL-EN-V1.5",
            "BGESmallENV15",
            "bgesmallenv15",
            "Xenova/bge-small-en-v1.5",
            "fastembed:bge-small-en-v1.5",
            "  bge-small-en-v1.5 ",
        ] {
            let m = resolve(CatalogKind::Embedder, typed).unwrap();
            assert_eq!(m.fastembed_name, "BGESmallENV15", "{typed}");
        }
        let q = resolve(CatalogKind::Embedder, "bge-small-en-v1.5-q").unwrap();
        assert_eq!(
            (q.fastembed_name.as_str(), q.quantized),
            ("BGESmallENV15Q", Some("static"))
        );
    }

    #[test]
    fn a_repository_with_two_variants_names_the_unquantized_one() {
        let m = resolve(CatalogKind::Embedder, "Xenova/all-MiniLM-L12-v2").unwrap();
        assert_eq!(m.fastembed_name, "AllMiniLML12V2");
        let q = resolve(CatalogKind::Embedder, "all-MiniLM-L12-v2-q").unwrap();
        assert_eq!(
            (q.fastembed_name.as_str(), q.quantized),
            ("AllMiniLML12V2Q", Some("dynamic"))
        );
        assert_eq!(q.window, 128);
    }

    #[test]
    fn kinds_do_not_mix() {
        assert!(resolve(CatalogKind::Reranker, "bge-reranker-base").is_ok());
        let err = resolve(CatalogKind::Embedder, "bge-reranker-base").unwrap_err();
        assert!(err.to_string().contains("no embedder named"), "{err}");
    }

    #[test]
    fn an_unknown_name_suggests_close_ones_and_the_listing() {
        let err = resolve(CatalogKind::Embedder, "bge-small").unwrap_err();
        let CatalogError::UnknownName { suggestions, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(
            suggestions.contains(&"bge-small-en-v1.5".to_string())
                && suggestions.contains(&"bge-small-zh-v1.5".to_string()),
            "{suggestions:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("`bge-small`") && text.contains("seamscope models"),
            "{text}"
        );
        // A typo within a couple of edits.
        let err = resolve(CatalogKind::Reranker, "bge-reranker-bsae").unwrap_err();
        assert!(err.to_string().contains("bge-reranker-base"), "{err}");
        // Nothing close: no suggestion, still the pointer to the listing.
        let err = resolve(CatalogKind::Embedder, "word2vec-google-news").unwrap_err();
        let CatalogError::UnknownName { suggestions, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(suggestions.is_empty(), "{suggestions:?}");
    }

    #[test]
    fn windows_come_from_the_table_not_fastembeds_cap() {
        let window = |name| resolve(CatalogKind::Embedder, name).unwrap().window;
        assert_eq!(window("all-MiniLM-L6-v2"), 256);
        assert_eq!(window("nomic-embed-text-v1.5"), 8192);
        assert_eq!(window("nomic-embed-text-v1.5-q"), 8192);
        assert_eq!(window("multilingual-e5-small"), 512);
        let reranker = |name| resolve(CatalogKind::Reranker, name).unwrap().window;
        assert_eq!(reranker("jina-reranker-v1-turbo-en"), 8192);
        assert_eq!(reranker("bge-reranker-base"), 512);
    }

    #[test]
    fn an_empty_data_dir_has_nothing_installed() {
        let dir = tempfile::tempdir().unwrap();
        let entries = catalog(dir.path());
        assert_eq!(entries.len(), models().len());
        assert!(
            entries
                .iter()
                .all(|e| !e.installed && e.size_on_disk.is_none())
        );
        let e5 = entries
            .iter()
            .find(|e| e.name == "multilingual-e5-small")
            .unwrap();
        assert_eq!(
            e5.folder,
            dir.path()
                .join("fastembed")
                .join("models--intfloat--multilingual-e5-small")
        );
        assert_eq!(e5.files[0], "onnx/model.onnx");
    }
}
