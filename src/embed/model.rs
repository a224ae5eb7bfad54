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
        check_window(
            model_dir,
            &tokenizer_files.config_file,
            &tokenizer_files.tokenizer_config_file,
            max_tokens,
            "model_max_tokens",
        )?;
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

/// The longest input the model in `model_dir` can read, in tokens, and where that figure comes
/// from: the smaller of `max_position_embeddings` (config.json) and `model_max_length`
/// (tokenizer_config.json). `None` when neither file states one.
pub fn model_window(
    config_json: &[u8],
    tokenizer_config_json: &[u8],
) -> Option<(usize, &'static str)> {
    let field = |bytes: &[u8], name: &str| {
        serde_json::from_slice::<serde_json::Value>(bytes)
            .ok()?
            .get(name)?
            .as_u64()
            // Hugging Face writes a huge sentinel (1e30) when a tokenizer has no limit.
            .filter(|&n| n > 0 && n < 10_000_000)
            .and_then(|n| usize::try_from(n).ok())
    };
    let positions = field(config_json, "max_position_embeddings")
        .map(|n| (n, "max_position_embeddings in config.json"));
    let tokenizer = field(tokenizer_config_json, "model_max_length")
        .map(|n| (n, "model_max_length in tokenizer_config.json"));
    match (positions, tokenizer) {
        (Some(p), Some(t)) => Some(if t.0 < p.0 { t } else { p }),
        (p, t) => p.or(t),
    }
}

/// Refuse a window setting larger than the model can read: fastembed would cut every text at the
/// model's limit without a word, so the long-text rule (never truncate) would silently break.
pub fn check_window(
    model_dir: &Path,
    config_json: &[u8],
    tokenizer_config_json: &[u8],
    max_tokens: usize,
    setting: &'static str,
) -> Result<(), EmbedError> {
    match model_window(config_json, tokenizer_config_json) {
        Some((window, source)) if max_tokens > window => Err(EmbedError::WindowTooLarge {
            setting,
            value: max_tokens,
            window,
            source_field: source,
            model_dir: model_dir.display().to_string(),
        }),
        _ => Ok(()),
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

#[cfg(test)]
mod tests {
    use super::*;

    const MINILM_CONFIG: &str = r#"{"model_type": "bert", "max_position_embeddings": 512}"#;

    #[test]
    fn a_window_past_the_model_is_refused_with_its_source() {
        let dir = Path::new("/models/minilm");
        let tok = br#"{"model_max_length": 512}"#;
        assert!(check_window(dir, MINILM_CONFIG.as_bytes(), tok, 512, "model_max_tokens").is_ok());
        let err = check_window(dir, MINILM_CONFIG.as_bytes(), tok, 1000, "model_max_tokens")
            .unwrap_err()
            .to_string();
        for part in [
            "model_max_tokens = 1000",
            "512",
            "/models/minilm",
            "config.json",
        ] {
            assert!(err.contains(part), "missing {part}: {err}");
        }
    }

    #[test]
    fn the_smaller_stated_window_wins_and_sentinels_are_ignored() {
        let roberta = br#"{"max_position_embeddings": 514}"#;
        assert_eq!(
            model_window(roberta, br#"{"model_max_length": 512}"#),
            Some((512, "model_max_length in tokenizer_config.json"))
        );
        let unlimited = br#"{"model_max_length": 1000000000000000019884624838656}"#;
        assert_eq!(
            model_window(MINILM_CONFIG.as_bytes(), unlimited),
            Some((512, "max_position_embeddings in config.json"))
        );
        assert_eq!(model_window(b"not json", b"{}"), None);
        assert!(check_window(Path::new("x"), b"{}", b"{}", 100_000, "model_max_tokens").is_ok());
    }
}
