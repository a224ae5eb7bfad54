//! A cross-encoder reranker from fastembed's catalog, by name, under the same rules as the
//! catalog's embedders: files from the cache (or fastembed's hub client), runtime checked first.

use std::path::Path;

use fastembed::{
    OnnxSource, RerankInitOptionsUserDefined, TextRerank, TokenizerFiles, UserDefinedRerankingModel,
};
use ort::ep;

use super::embedder::{snapshot_of, window};
use super::hub::{self, FetchProgress, HubAccess};
use super::{CatalogKind, CatalogModel};
use crate::embed::EmbedError;
use crate::retrieve::{RerankError, Reranker};

/// Texts per reranker run (as for the local cross-encoder).
const RERANK_BATCH: usize = 8;

/// A catalog reranker loaded from the cache under the data directory.
pub struct CatalogReranker {
    model: TextRerank,
    entry: &'static CatalogModel,
    name: String,
    max_tokens: usize,
}

impl CatalogReranker {
    /// Load the catalog reranker `name` from the cache under `data_dir`, fetching missing files
    /// through fastembed's hub client unless `offline` (or `HF_HUB_OFFLINE`) forbids it; ONNX
    /// Runtime is loaded from `runtime_path` first. `max_tokens` overrides its window for
    /// question and chunk together.
    pub fn load(
        name: &str,
        data_dir: &Path,
        runtime_path: &Path,
        max_tokens: Option<usize>,
        offline: bool,
    ) -> Result<Self, EmbedError> {
        Self::load_with(
            name,
            data_dir,
            runtime_path,
            max_tokens,
            &HubAccess::from_env(offline),
            &mut |_| {},
        )
    }

    /// [`CatalogReranker::load`] with the hub given explicitly and a callback for download
    /// progress.
    pub fn load_with(
        name: &str,
        data_dir: &Path,
        runtime_path: &Path,
        max_tokens: Option<usize>,
        access: &HubAccess,
        progress: &mut dyn FnMut(FetchProgress),
    ) -> Result<Self, EmbedError> {
        let entry = super::resolve(CatalogKind::Reranker, name)?;
        crate::embed::runtime::load_runtime(runtime_path)?;
        let paths = hub::ensure_files(entry, data_dir, access, progress)?;
        let read = |path: &Path| {
            crate::files::read_named(path, crate::files::model_file_limit(path)).map_err(|e| {
                EmbedError::RerankerFiles {
                    path: path.display().to_string(),
                    message: e.to_string(),
                }
            })
        };
        let n = paths.len();
        let tokenizer = TokenizerFiles {
            tokenizer_file: crate::tokens::bound_long_words(&read(&paths[n - 4])?).into_owned(),
            config_file: read(&paths[n - 3])?,
            special_tokens_map_file: read(&paths[n - 2])?,
            tokenizer_config_file: read(&paths[n - 1])?,
        };
        let snapshot = snapshot_of(&paths[0], &entry.model_file);
        let max_tokens = window(entry, &snapshot, &tokenizer, max_tokens)?;
        // The ONNX file is handed over by path, so external weights beside it are found there
        // and never held in memory twice; it is hashed as a stream for the same reason.
        let hash = crate::embed::install::sha256_file(&paths[0]).map_err(|e| {
            EmbedError::RerankerFiles {
                path: paths[0].display().to_string(),
                message: e.to_string(),
            }
        })?;
        let name = format!("fastembed:{}@{}", entry.name, &hash[..12]);
        let model = TextRerank::try_new_from_user_defined(
            UserDefinedRerankingModel::new(OnnxSource::File(paths[0].clone()), tokenizer),
            RerankInitOptionsUserDefined::new()
                .with_max_length(max_tokens)
                .with_execution_providers(vec![
                    ep::CPU::default().with_arena_allocator(true).build(),
                ]),
        )
        .map_err(|e| EmbedError::Model(format!("reranker fastembed:{}: {e}", entry.name)))?;
        Ok(CatalogReranker {
            model,
            entry,
            name,
            max_tokens,
        })
    }

    /// The catalog model this reranker runs.
    pub fn entry(&self) -> &'static CatalogModel {
        self.entry
    }

    /// Its window for question and chunk together, in tokens.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }
}

impl Reranker for CatalogReranker {
    fn name(&self) -> &str {
        &self.name
    }

    fn score(&mut self, query: &str, texts: &[&str]) -> Result<Vec<f32>, RerankError> {
        crate::embed::reranker::scores_in_order(
            &mut self.model,
            &self.name,
            query,
            texts,
            RERANK_BATCH,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_reranker_is_a_catalog_error_with_close_names() {
        let dir = tempfile::tempdir().unwrap();
        let err = CatalogReranker::load(
            "jina-reranker-v1",
            dir.path(),
            Path::new("/nonexistent/libonnxruntime.so"),
            None,
            true,
        )
        .err()
        .unwrap();
        assert!(matches!(err, EmbedError::Catalog(_)), "{err}");
        assert!(
            err.to_string().contains("jina-reranker-v1-turbo-en"),
            "{err}"
        );
    }
}
