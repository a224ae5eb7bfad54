//! The real embedding model: a local ONNX sentence-embedding model run through fastembed.

use std::path::Path;

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};

use super::{EmbedError, Embedder};

/// A local ONNX sentence-embedding model (mean pooling, L2-normalised) loaded through fastembed.
pub struct ModelEmbedder {
    model: TextEmbedding,
    identity: String,
    dim: usize,
    batch: usize,
    max_tokens: usize,
    runtime_version: String,
}

impl ModelEmbedder {
    /// Load the model in `model_dir` with the ONNX Runtime at `runtime_path`.
    ///
    /// `max_tokens` is the model's window including special tokens (256 for all-MiniLM-L6-v2);
    /// `batch` is how many texts go through the model at once.
    pub fn load(
        model_dir: &Path,
        runtime_path: &Path,
        max_tokens: usize,
        batch: usize,
    ) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            std::fs::read(model_dir.join(name)).map_err(|e| EmbedError::ModelFiles {
                path: model_dir.join(name).display().to_string(),
                message: e.to_string(),
            })
        };
        let onnx = read("model.onnx")?;
        let tokenizer_files = TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let identity = model_identity(model_dir, &onnx, max_tokens);
        let runtime_version = super::runtime::load_runtime(runtime_path)?;
        let user_model =
            UserDefinedEmbeddingModel::new(onnx, tokenizer_files).with_pooling(Pooling::Mean);
        let options = InitOptionsUserDefined::new().with_max_length(max_tokens);
        let mut model = TextEmbedding::try_new_from_user_defined(user_model, options)
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        let probe = model
            .embed(["dimension probe"], Some(1))
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        let dim = probe.first().map_or(0, |v| v.len());
        if dim == 0 {
            return Err(EmbedError::Model(
                "the model returned an empty vector".into(),
            ));
        }
        Ok(ModelEmbedder {
            model,
            identity,
            dim,
            batch: batch.max(1),
            max_tokens,
            runtime_version,
        })
    }

    /// The ONNX Runtime version in use.
    pub fn runtime_version(&self) -> &str {
        &self.runtime_version
    }
}

/// A model's identity for cache keys: its name, window and a hash of its weights.
pub fn model_identity(model_dir: &Path, onnx: &[u8], max_tokens: usize) -> String {
    let hash = super::install::sha256_bytes(onnx);
    let name = if hash == super::install::MODEL_FILES[0].1 {
        super::install::DEFAULT_MODEL_NAME.to_string()
    } else {
        model_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into())
    };
    format!("{name}@{}/w{max_tokens}", &hash[..16])
}

impl Embedder for ModelEmbedder {
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
        self.model
            .embed(texts, Some(self.batch))
            .map_err(|e| EmbedError::Model(e.to_string()))
    }
}
