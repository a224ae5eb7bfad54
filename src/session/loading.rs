//! Loading what a run embeds and reranks with, as the settings name them: a local model, a
//! catalog model or a service; a local, catalog or service reranker.

use std::path::{Path, PathBuf};

use super::EngineError;
use crate::embed::EmbedError;
use crate::embed::device::{DeviceProbe, plan_device};
use crate::embed::http::Reliability;
use crate::embed::model::ModelEmbedder;
use crate::embed::pipeline::{EmbedderKind, PipelineEmbedder};
use crate::embed::rerank_service::RerankService;
use crate::embed::reranker::CrossEncoder;
use crate::embed::service::{ServiceEmbedder, ServiceOptions};
use crate::embed::spec::{EmbedderSpec, RerankerSpec};
use crate::places::Places;
use crate::retrieve::Reranker;
use crate::settings::Settings;
use crate::tokens::TokenCounter;

/// How hard a service is tried, from the settings.
fn reliability(settings: &Settings) -> Reliability {
    Reliability {
        timeout: std::time::Duration::from_secs(settings.embed_timeout_secs),
        retries: settings.embed_retries,
        ..Reliability::default()
    }
}

/// The embedder `settings` name, with its prefixes, and the ONNX Runtime library a local
/// reranker must load: the model's own when there is a local model (a process holds one
/// runtime), else the installed one.
pub(super) fn load_embedder(
    settings: &Settings,
    places: &Places,
    tokenizer: &TokenCounter,
) -> Result<(PipelineEmbedder, PathBuf), EngineError> {
    let spec = EmbedderSpec::parse(settings.embedder.as_deref().unwrap_or(""))
        .map_err(EmbedError::Spec)?;
    // The runtime a local reranker loads: the model's own when there is a local model (a
    // process holds one runtime), else the installed one.
    let (kind, runtime) = match spec {
        EmbedderSpec::Default | EmbedderSpec::Onnx(_) => {
            let probe = DeviceProbe::of_machine(
                &places.runtime_path,
                &places.gpu_runtime_path,
                places.user_runtime,
            );
            let plan = plan_device(settings.device, &probe).map_err(EmbedError::from)?;
            let model = ModelEmbedder::load_on(
                &places.model_dir,
                &plan,
                settings.device,
                settings.model_max_tokens,
                settings.embed_batch,
            )?;
            (
                EmbedderKind::Local(Box::new(model)),
                plan.runtime().to_path_buf(),
            )
        }
        EmbedderSpec::OpenAi(url) => {
            let options = ServiceOptions {
                url,
                model: settings.embed_model.clone().unwrap_or_default(),
                key_env: settings.embed_key_env.clone(),
                window: settings
                    .embed_window
                    .unwrap_or(crate::settings::DEFAULT_SERVICE_WINDOW),
                dimensions: settings.embed_dimensions,
                request_inputs: settings.embed_request_inputs,
                request_tokens: settings.embed_request_tokens,
                concurrency: settings.embed_concurrency,
                reliability: reliability(settings),
            };
            let service = ServiceEmbedder::connect(options, tokenizer.clone())?;
            (
                EmbedderKind::Service(Box::new(service)),
                places.runtime_path.clone(),
            )
        }
        EmbedderSpec::Catalog(name) => {
            let model = crate::embed::catalog::CatalogEmbedder::load(
                &name,
                &places.data_dir,
                &places.runtime_path,
                None,
                settings.embed_batch,
                settings.offline,
            )?;
            (
                EmbedderKind::Other(Box::new(model)),
                places.runtime_path.clone(),
            )
        }
    };
    let embedder = PipelineEmbedder::new(
        kind,
        &settings.query_prefix,
        &settings.document_prefix,
        tokenizer,
    )?;
    Ok((embedder, runtime))
}

/// The reranker `settings` name, if any.
pub(super) fn load_reranker(
    settings: &Settings,
    places: &Places,
    tokenizer: &TokenCounter,
    runtime: &Path,
) -> Result<Option<Box<dyn Reranker + Send>>, EngineError> {
    let reranker_spec = RerankerSpec::parse(settings.reranker.as_deref().unwrap_or(""))
        .map_err(EmbedError::Spec)?;
    let reranker: Option<Box<dyn Reranker + Send>> = match reranker_spec {
        // `onnx:DIR` is the folder `places` resolved as the reranker folder.
        RerankerSpec::Default | RerankerSpec::Onnx(_) => match &places.reranker_dir {
            Some(dir) => Some(Box::new(CrossEncoder::load(
                dir,
                runtime,
                settings.reranker_max_tokens,
            )?)),
            None => None,
        },
        RerankerSpec::Service(url) => Some(Box::new(
            RerankService::new(
                &url,
                settings.rerank_model.clone(),
                settings.rerank_key_env.as_deref(),
                reliability(settings),
            )
            .map_err(EmbedError::from)?
            .with_window(tokenizer.clone(), settings.reranker_max_tokens),
        )),
        RerankerSpec::Catalog(name) => {
            Some(Box::new(crate::embed::catalog::CatalogReranker::load(
                &name,
                &places.data_dir,
                runtime,
                None,
                settings.offline,
            )?))
        }
    };
    Ok(reranker)
}
