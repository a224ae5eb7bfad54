//! The real embedding model: a local ONNX sentence-embedding model run through fastembed.

use std::path::Path;

use fastembed::{
    InitOptionsUserDefined, OutputKey, Pooling, TextEmbedding, TokenizerFiles,
    UserDefinedEmbeddingModel,
};
use ort::ep::{self, ExecutionProviderDispatch};

use super::device::{CUDA_BATCH, Device, DeviceError, DevicePlan, DeviceReport};
use super::late::TokenStates;
use super::{EmbedError, Embedder};
use crate::corpus::Span;

/// A local ONNX sentence-embedding model (mean pooling, L2-normalised) loaded through fastembed.
pub struct ModelEmbedder {
    model: TextEmbedding,
    identity: String,
    dim: usize,
    batch: usize,
    max_tokens: usize,
    runtime_version: String,
    runtime_path: std::path::PathBuf,
    device: DeviceReport,
}

impl ModelEmbedder {
    /// Load the model in `model_dir` on the CPU with the ONNX Runtime at `runtime_path`.
    ///
    /// `max_tokens` is the model's window including special tokens (256 for all-MiniLM-L6-v2);
    /// `batch` is how many texts go through the model at once.
    pub fn load(
        model_dir: &Path,
        runtime_path: &Path,
        max_tokens: usize,
        batch: usize,
    ) -> Result<Self, EmbedError> {
        let plan = DevicePlan::Cpu {
            runtime: runtime_path.to_path_buf(),
            note: None,
        };
        Self::load_on(model_dir, &plan, Device::Cpu, max_tokens, batch)
    }

    /// Load the model in `model_dir` where `plan` says ([`super::device::plan_device`] made it
    /// from the `requested` device). A CUDA start that fails falls back to the CPU when the plan
    /// allows it, and the report says why; on the GPU the batch is at least [`CUDA_BATCH`].
    pub fn load_on(
        model_dir: &Path,
        plan: &DevicePlan,
        requested: Device,
        max_tokens: usize,
        batch: usize,
    ) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            let path = model_dir.join(name);
            crate::files::read_named(&path, crate::files::model_file_limit(&path)).map_err(|e| {
                EmbedError::ModelFiles {
                    path: model_dir.join(name).display().to_string(),
                    message: e.to_string(),
                }
            })
        };
        let onnx = read("model.onnx")?;
        let tokenizer_files = TokenizerFiles {
            tokenizer_file: crate::tokens::bound_long_words(&read("tokenizer.json")?).into_owned(),
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
        let runtime_version = super::runtime::load_runtime(plan.runtime())?;
        let session = |onnx: Vec<u8>, providers| {
            start_session(onnx, tokenizer_files.clone(), max_tokens, providers)
        };
        let (model, dim, device) = match plan {
            DevicePlan::Cpu { note, .. } => {
                let (model, dim) = session(onnx, cpu_providers()).map_err(EmbedError::Model)?;
                (model, dim, report(requested, Device::Cpu, note.clone()))
            }
            DevicePlan::Cuda { fallback, runtime } => match preload_cuda_libraries(runtime)
                .and_then(|()| session(onnx.clone(), cuda_providers()))
            {
                Ok((model, dim)) => (model, dim, report(requested, Device::Cuda, None)),
                Err(why) if *fallback => {
                    let (model, dim) = session(onnx, cpu_providers()).map_err(EmbedError::Model)?;
                    let note = format!("the CUDA provider would not start: {why}");
                    (model, dim, report(requested, Device::Cpu, Some(note)))
                }
                Err(why) => return Err(DeviceError::ProviderFailed(why).into()),
            },
        };
        let batch = match device.used {
            Device::Cuda => batch.max(CUDA_BATCH),
            _ => batch.max(1),
        };
        Ok(ModelEmbedder {
            model,
            identity,
            dim,
            batch,
            max_tokens,
            runtime_version,
            runtime_path: plan.runtime().to_path_buf(),
            device,
        })
    }

    /// The ONNX Runtime version in use.
    pub fn runtime_version(&self) -> &str {
        &self.runtime_version
    }

    /// The ONNX Runtime library this model runs on.
    pub fn runtime_path(&self) -> &Path {
        &self.runtime_path
    }

    /// Where the model runs, and why when it is not where `auto` hoped.
    pub fn device(&self) -> &DeviceReport {
        &self.device
    }

    /// Texts per model batch (the setting, or at least [`CUDA_BATCH`] on the GPU).
    pub fn batch(&self) -> usize {
        self.batch
    }
}

fn report(requested: Device, used: Device, note: Option<String>) -> DeviceReport {
    DeviceReport {
        requested,
        used,
        note,
    }
}

/// The CPU provider with ONNX Runtime's memory arena. The arena keeps the largest batch's
/// buffers for the life of the session (growing in powers of two), so peak memory follows the
/// batch size, which is why the default batch is 4 (see `embed_batch`); without the arena every
/// batch page-faults its buffers in again, measured 20-35% slower here for the same memory.
fn cpu_providers() -> Vec<ExecutionProviderDispatch> {
    vec![ep::CPU::default().with_arena_allocator(true).build()]
}

/// Load the NVIDIA libraries beside `runtime` (where `setup --gpu` puts them) before the CUDA
/// provider starts: the provider library names them without a search path of its own, so the
/// loader finds them only once they are loaded (as Python's onnxruntime preloads them). A runtime
/// without them beside it (a user's own GPU build) relies on the system's search path instead.
fn preload_cuda_libraries(runtime: &Path) -> Result<(), String> {
    let Some(dir) = runtime.parent() else {
        return Ok(());
    };
    if !dir.join(ep::cuda::CUDA_DYLIBS[0]).is_file() {
        return Ok(());
    }
    let cudnn = dir.join(ep::cuda::CUDNN_DYLIBS[0]).is_file().then_some(dir);
    ep::cuda::preload_dylibs(Some(dir), cudnn).map_err(|e| e.to_string())
}

/// The CUDA provider on GPU 0, as an error when it cannot be registered (so `auto` can fall back
/// and `cuda` can say why) rather than ONNX Runtime's silent fall back to the CPU.
fn cuda_providers() -> Vec<ExecutionProviderDispatch> {
    vec![
        ep::CUDA::default()
            .with_device_id(0)
            .build()
            .error_on_failure(),
    ]
}

/// Start a session of the model on `providers` and run one text through it; the model and its
/// vector length, or what went wrong.
fn start_session(
    onnx: Vec<u8>,
    tokenizer_files: TokenizerFiles,
    max_tokens: usize,
    providers: Vec<ExecutionProviderDispatch>,
) -> Result<(TextEmbedding, usize), String> {
    let user_model =
        UserDefinedEmbeddingModel::new(onnx, tokenizer_files).with_pooling(Pooling::Mean);
    let options = InitOptionsUserDefined::new()
        .with_max_length(max_tokens)
        .with_execution_providers(providers);

    let mut model =
        TextEmbedding::try_new_from_user_defined(user_model, options).map_err(|e| e.to_string())?;
    let probe = model
        .embed(["dimension probe"], Some(1))
        .map_err(|e| e.to_string())?;
    match probe.first().map_or(0, |v| v.len()) {
        0 => Err("the model returned an empty vector".into()),
        dim => Ok((model, dim)),
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
    fn token_states(&mut self, text: &str) -> Result<TokenStates, EmbedError> {
        token_states(&mut self.model, text, &self.identity)
    }
}

/// The last hidden layer of `model` over `text`, token by token, with each token's byte span (a
/// special token's empty, where the first or the last real token starts).
fn token_states(
    model: &mut TextEmbedding,
    text: &str,
    identity: &str,
) -> Result<TokenStates, EmbedError> {
    let failed = |e: String| EmbedError::Model(e);
    // The tokenizer as `transform` uses it (truncated to the window), so the tokens line up.
    let encoding = model
        .tokenizer
        .encode(text, true)
        .map_err(|e| failed(e.to_string()))?;
    let output = model
        .transform([text], Some(1))
        .map_err(|e| failed(e.to_string()))?;
    let batch = output.into_raw().into_iter().next();
    let precedence: &[OutputKey] = &[
        OutputKey::OnlyOne,
        OutputKey::ByName("last_hidden_state"),
        OutputKey::ByName("token_embeddings"),
    ];
    let states = batch
        .as_ref()
        .map(|b| b.select_output(&precedence))
        .transpose()
        .map_err(|e| failed(e.to_string()))?;
    let Some(states) = states.filter(|s| s.ndim() == 3 && s.shape()[1] == encoding.len()) else {
        return Err(EmbedError::NoTokenStates(identity.to_string()));
    };
    let special = encoding.get_special_tokens_mask();
    let real: Vec<usize> = (0..encoding.len()).filter(|&i| special[i] == 0).collect();
    let offsets = encoding.get_offsets();
    let first = real.first().map_or(0, |&i| offsets[i].0);
    let last = real.last().map_or(0, |&i| offsets[i].0);
    let spans = (0..encoding.len())
        .map(|i| match (special[i], real.first()) {
            (0, _) => Span::new(offsets[i].0, offsets[i].1.max(offsets[i].0)),
            (_, Some(&f)) if i < f => Span::new(first, first),
            _ => Span::new(last, last),
        })
        .collect();
    let dim = states.shape()[2];
    let states = (0..encoding.len())
        .map(|i| (0..dim).map(|j| states[&[0, i, j][..]]).collect())
        .collect();
    Ok(TokenStates { spans, states })
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
