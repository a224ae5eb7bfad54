//! A cross-encoder reranker from a local folder, run through fastembed.
//!
//! It is optional: when `reranker_dir` is set, the first N ordinary chunks of the fused ranking are
//! rescored by it (seams and the chunks a fired seam brings are never sent; see `retrieve::rerank`).

use std::path::Path;

use fastembed::{
    RerankInitOptionsUserDefined, TextRerank, TokenizerFiles, UserDefinedRerankingModel,
};

use super::EmbedError;
use crate::retrieve::{RerankError, Reranker};

/// A local ONNX cross-encoder (a folder with `model.onnx` and the four tokenizer files).
pub struct CrossEncoder {
    model: TextRerank,
    name: String,
    batch: usize,
}

impl CrossEncoder {
    /// Load the cross-encoder in `dir` (ONNX Runtime must already be loaded or loadable from
    /// `runtime_path`). `max_tokens` is its window for question and chunk together.
    pub fn load(dir: &Path, runtime_path: &Path, max_tokens: usize) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            let path = dir.join(name);
            crate::files::read_named(&path, crate::files::model_file_limit(&path)).map_err(|e| {
                EmbedError::RerankerFiles {
                    path: dir.join(name).display().to_string(),
                    message: e.to_string(),
                }
            })
        };
        let onnx = read("model.onnx")?;
        let files = TokenizerFiles {
            tokenizer_file: crate::tokens::bound_long_words(&read("tokenizer.json")?).into_owned(),
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        super::model::check_window(
            dir,
            &files.config_file,
            &files.tokenizer_config_file,
            max_tokens,
            "reranker_max_tokens",
        )?;
        super::runtime::load_runtime(runtime_path)?;
        let hash = super::install::sha256_bytes(&onnx);
        let name = format!(
            "{}@{}",
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "reranker".into()),
            &hash[..12]
        );
        let model = TextRerank::try_new_from_user_defined(
            UserDefinedRerankingModel::new(onnx, files),
            RerankInitOptionsUserDefined::new().with_max_length(max_tokens),
        )
        .map_err(|e| EmbedError::Model(format!("reranker in {}: {e}", dir.display())))?;
        Ok(CrossEncoder {
            model,
            name,
            batch: 8,
        })
    }
}

impl Reranker for CrossEncoder {
    fn name(&self) -> &str {
        &self.name
    }

    fn score(&mut self, query: &str, texts: &[&str]) -> Result<Vec<f32>, RerankError> {
        scores_in_order(&mut self.model, &self.name, query, texts, self.batch)
    }
}

/// A fastembed cross-encoder's scores of `texts` against `query`, in the order the texts came
/// (fastembed returns them sorted by score); `name` names the reranker in an error.
pub(crate) fn scores_in_order(
    model: &mut TextRerank,
    name: &str,
    query: &str,
    texts: &[&str],
    batch: usize,
) -> Result<Vec<f32>, RerankError> {
    let results = model
        .rerank(query, texts, false, Some(batch))
        .map_err(|e| RerankError::Model {
            reranker: name.to_string(),
            message: e.to_string(),
        })?;
    let mut scores = vec![f32::NAN; texts.len()];
    for r in results {
        if let Some(slot) = scores.get_mut(r.index) {
            *slot = r.score;
        }
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_reranker_folder_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = CrossEncoder::load(dir.path(), Path::new("/nonexistent.so"), 512)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("model.onnx") && err.contains("SEAMSCOPE_RERANKER_DIR"),
            "{err}"
        );
    }
}
