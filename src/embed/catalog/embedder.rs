//! An embedder from fastembed's catalog, by name: its files from the cache (or fastembed's hub
//! client), run through fastembed with the pooling, quantization and output fastembed assigns it.

use std::path::{Path, PathBuf};

use fastembed::{
    InitOptionsUserDefined, QuantizationMode, TextEmbedding, TokenizerFiles,
    UserDefinedEmbeddingModel,
};
use ort::ep;

use super::hub::{self, FetchProgress, HubAccess};
use super::{CatalogKind, CatalogModel, FastembedModel};
use crate::embed::model::{check_window, model_window};
use crate::embed::{EmbedError, Embedder};

/// A catalog embedder loaded from the cache under the data directory.
pub struct CatalogEmbedder {
    model: TextEmbedding,
    entry: &'static CatalogModel,
    identity: String,
    dim: usize,
    max_tokens: usize,
    batch: usize,
    one_text_per_run: bool,
    tokenizer_file: PathBuf,
    runtime_version: String,
}

impl CatalogEmbedder {
    /// Load the catalog embedder `name` (any spelling [`super::resolve`] accepts) from the cache
    /// under `data_dir`, fetching missing files through fastembed's hub client unless `offline`
    /// (or `HF_HUB_OFFLINE`) forbids it. ONNX Runtime is loaded from `runtime_path` first, before
    /// anything is fetched.
    ///
    /// `max_tokens` overrides the model's window (it may not exceed what the model's files
    /// state); `batch` is how many texts go through the model at once.
    pub fn load(
        name: &str,
        data_dir: &Path,
        runtime_path: &Path,
        max_tokens: Option<usize>,
        batch: usize,
        offline: bool,
    ) -> Result<Self, EmbedError> {
        Self::load_with(
            name,
            data_dir,
            runtime_path,
            max_tokens,
            batch,
            &HubAccess::from_env(offline),
            &mut |_| {},
        )
    }

    /// [`CatalogEmbedder::load`] with the hub given explicitly and a callback for download
    /// progress.
    pub fn load_with(
        name: &str,
        data_dir: &Path,
        runtime_path: &Path,
        max_tokens: Option<usize>,
        batch: usize,
        access: &HubAccess,
        progress: &mut dyn FnMut(FetchProgress),
    ) -> Result<Self, EmbedError> {
        let entry = super::resolve(CatalogKind::Embedder, name)?;
        let FastembedModel::Embedder(fastembed_model) = &entry.fastembed else {
            return Err(EmbedError::Model(format!(
                "{} is not an embedder",
                entry.name
            )));
        };
        // fastembed panics on a missing or old runtime: check it before anything else.
        let runtime_version = crate::embed::runtime::load_runtime(runtime_path)?;
        let paths = hub::ensure_files(entry, data_dir, access, progress)?;
        let files = read_files(entry, &paths)?;
        let snapshot = snapshot_of(&paths[0], &entry.model_file);
        let max_tokens = window(entry, &snapshot, &files.tokenizer, max_tokens)?;
        let identity = format!(
            "fastembed:{}@{}/w{max_tokens}",
            entry.name,
            &weights_hash(&files)[..16]
        );
        let quantization = TextEmbedding::get_quantization_mode(fastembed_model);
        let mut user_model = UserDefinedEmbeddingModel::new(files.onnx, files.tokenizer)
            .with_quantization(quantization);
        if let Some(pooling) = TextEmbedding::get_default_pooling_method(fastembed_model) {
            user_model = user_model.with_pooling(pooling);
        }
        for (file_name, bytes) in files.external {
            user_model = user_model.with_external_initializer(file_name, bytes);
        }
        let model_info = TextEmbedding::get_model_info(fastembed_model)
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        user_model.output_key = model_info.output_key.clone();
        let options = InitOptionsUserDefined::new()
            .with_max_length(max_tokens)
            .with_execution_providers(vec![ep::CPU::default().with_arena_allocator(true).build()]);
        let failed = |e: String| EmbedError::Model(format!("fastembed:{}: {e}", entry.name));
        let mut model = TextEmbedding::try_new_from_user_defined(user_model, options)
            .map_err(|e| failed(e.to_string()))?;
        let probe = model
            .embed(["dimension probe"], None)
            .map_err(|e| failed(e.to_string()))?;
        let dim = probe.first().map_or(0, Vec::len);
        if Some(dim) != entry.dim {
            return Err(failed(format!(
                "the model returned {dim}-dimensional vectors where fastembed's catalog says {}",
                entry.dim.unwrap_or(0)
            )));
        }
        Ok(CatalogEmbedder {
            model,
            entry,
            identity,
            dim,
            max_tokens,
            batch: batch.max(1),
            // Dynamic quantization scales each run by its own inputs, so a text's vector would
            // depend on the texts batched with it (and vectors are cached per text).
            one_text_per_run: quantization == QuantizationMode::Dynamic,
            tokenizer_file: snapshot.join("tokenizer.json"),
            runtime_version,
        })
    }

    /// The catalog model this embedder runs.
    pub fn entry(&self) -> &'static CatalogModel {
        self.entry
    }

    /// The model's `tokenizer.json`, for counting tokens as the model does.
    pub fn tokenizer_file(&self) -> &Path {
        &self.tokenizer_file
    }

    /// The ONNX Runtime version in use.
    pub fn runtime_version(&self) -> &str {
        &self.runtime_version
    }

    /// Texts per model run (1 for a dynamically quantized model, whose vectors would otherwise
    /// depend on their batch).
    pub fn batch(&self) -> usize {
        if self.one_text_per_run { 1 } else { self.batch }
    }
}

impl Embedder for CatalogEmbedder {
    fn identity(&self) -> &str {
        &self.identity
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn max_tokens(&self) -> usize {
        self.max_tokens
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let run = |model: &mut TextEmbedding, texts: &[&str], batch: Option<usize>| {
            model
                .embed(texts, batch)
                .map_err(|e| EmbedError::Model(e.to_string()))
        };
        if self.one_text_per_run {
            let mut out = Vec::with_capacity(texts.len());
            for text in texts {
                out.extend(run(&mut self.model, &[text], None)?);
            }
            Ok(out)
        } else {
            run(&mut self.model, texts, Some(self.batch))
        }
    }
}

/// A catalog model's files, read.
pub(super) struct ModelFiles {
    /// The ONNX file.
    pub(super) onnx: Vec<u8>,
    /// External weights: the name the ONNX file refers to them by, and their bytes.
    pub(super) external: Vec<(String, Vec<u8>)>,
    /// The four tokenizer files.
    pub(super) tokenizer: TokenizerFiles,
}

/// Read the files at `paths` ([`CatalogModel::files`] order).
pub(super) fn read_files(
    entry: &CatalogModel,
    paths: &[PathBuf],
) -> Result<ModelFiles, EmbedError> {
    let read = |path: &PathBuf| {
        crate::files::read_named(path, crate::files::model_file_limit(path)).map_err(|e| {
            EmbedError::ModelFiles {
                path: path.display().to_string(),
                message: e.to_string(),
            }
        })
    };
    let n_external = entry.additional_files.len();
    let (onnx_path, rest) = paths.split_first().ok_or_else(|| EmbedError::ModelFiles {
        path: entry.model_file.clone(),
        message: "no files".into(),
    })?;
    let (external_paths, tokenizer_paths) = rest.split_at(n_external.min(rest.len()));
    let [tokenizer, config, special, tokenizer_config] = tokenizer_paths else {
        return Err(EmbedError::ModelFiles {
            path: entry.folder(Path::new("")).display().to_string(),
            message: "the tokenizer files are missing".into(),
        });
    };
    let external = external_paths
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            read(p).map(|bytes| (name, bytes))
        })
        .collect::<Result<_, _>>()?;
    Ok(ModelFiles {
        onnx: read(onnx_path)?,
        external,
        tokenizer: TokenizerFiles {
            tokenizer_file: crate::tokens::bound_long_words(&read(tokenizer)?).into_owned(),
            config_file: read(config)?,
            special_tokens_map_file: read(special)?,
            tokenizer_config_file: read(tokenizer_config)?,
        },
    })
}

/// The snapshot folder holding `path`, the local copy of `file` (a path inside the repository).
pub(super) fn snapshot_of(path: &Path, file: &str) -> PathBuf {
    let depth = Path::new(file).components().count();
    path.ancestors()
        .nth(depth)
        .map_or_else(|| path.to_path_buf(), Path::to_path_buf)
}

/// The window to run the model at: `asked` when given (refused above what the model's files
/// state), else the catalog's window capped by what the files state.
pub(super) fn window(
    entry: &CatalogModel,
    snapshot: &Path,
    tokenizer: &TokenizerFiles,
    asked: Option<usize>,
) -> Result<usize, EmbedError> {
    let setting = match entry.kind {
        CatalogKind::Embedder => "model_max_tokens",
        CatalogKind::Reranker => "reranker_max_tokens",
    };
    let config = &tokenizer.config_file;
    let tokenizer_config = &tokenizer.tokenizer_config_file;
    match asked {
        Some(n) => {
            check_window(snapshot, config, tokenizer_config, n, setting)?;
            Ok(n.max(1))
        }
        None => Ok(model_window(config, tokenizer_config)
            .map_or(entry.window, |(stated, _)| stated.min(entry.window))),
    }
}

/// sha256 of the model's weights, as hex: of the ONNX file alone, or, when the weights are split,
/// of the list of each file's name and hash.
pub(super) fn weights_hash(files: &ModelFiles) -> String {
    use crate::embed::install::sha256_bytes;
    let onnx = sha256_bytes(&files.onnx);
    if files.external.is_empty() {
        return onnx;
    }
    let mut list = format!("onnx:{onnx}\n");
    for (name, bytes) in &files.external {
        list.push_str(&format!("{name}:{}\n", sha256_bytes(bytes)));
    }
    sha256_bytes(list.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_is_found_above_nested_files() {
        let p = Path::new("/c/models--a--b/snapshots/rev/onnx/model.onnx");
        assert_eq!(
            snapshot_of(p, "onnx/model.onnx"),
            Path::new("/c/models--a--b/snapshots/rev")
        );
        let p = Path::new("/c/models--a--b/snapshots/rev/model.onnx");
        assert_eq!(
            snapshot_of(p, "model.onnx"),
            Path::new("/c/models--a--b/snapshots/rev")
        );
    }

    #[test]
    fn the_window_is_the_catalogs_capped_by_the_files_and_a_larger_ask_is_refused() {
        let entry = super::super::resolve(CatalogKind::Embedder, "all-MiniLM-L6-v2").unwrap();
        let files = |max: u64| TokenizerFiles {
            tokenizer_file: Vec::new(),
            config_file: br#"{"max_position_embeddings": 512}"#.to_vec(),
            special_tokens_map_file: Vec::new(),
            tokenizer_config_file: format!(r#"{{"model_max_length": {max}}}"#).into_bytes(),
        };
        let dir = Path::new("/snap");
        assert_eq!(window(entry, dir, &files(512), None).unwrap(), 256);
        assert_eq!(window(entry, dir, &files(128), None).unwrap(), 128);
        assert_eq!(window(entry, dir, &files(512), Some(512)).unwrap(), 512);
        let err = window(entry, dir, &files(512), Some(1024)).unwrap_err();
        assert!(matches!(err, EmbedError::WindowTooLarge { .. }), "{err}");
    }

    #[test]
    fn a_missing_runtime_is_an_error_before_anything_is_fetched() {
        let dir = tempfile::tempdir().unwrap();
        let access = HubAccess {
            offline: None,
            endpoint: "http://127.0.0.1:9".into(),
            token: None,
        };
        let err = CatalogEmbedder::load_with(
            "bge-small-en-v1.5",
            dir.path(),
            Path::new("/nonexistent/libonnxruntime.so"),
            None,
            4,
            &access,
            &mut |_| panic!("nothing may be fetched"),
        )
        .err()
        .unwrap();
        // (`Runtime` carries the first failure when another test of this process tried first.)
        assert!(
            matches!(
                err,
                EmbedError::Runtime(_)
                    | EmbedError::RuntimeMissing { .. }
                    | EmbedError::RuntimeAlreadyLoaded { .. }
            ),
            "{err}"
        );
        assert!(!super::super::cache_root(dir.path()).exists());
    }

    #[test]
    fn an_unknown_name_is_a_catalog_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = CatalogEmbedder::load(
            "bge-smal-en-v1.5",
            dir.path(),
            Path::new("/nonexistent/libonnxruntime.so"),
            None,
            4,
            true,
        )
        .err()
        .unwrap();
        assert!(
            matches!(err, EmbedError::Catalog(_)) && err.to_string().contains("bge-small-en-v1.5"),
            "{err}"
        );
    }
}
