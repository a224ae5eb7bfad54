//! Where a run's files are: the data, cache and config folders, the model, the ONNX Runtime
//! and pdfium libraries, with the settings' and the environment's overrides applied, and how
//! corpus folders are read under the settings. Settings are plain data; resolving them against
//! the machine (install paths, `onnx:DIR` names) happens here, above the stages that install
//! and load what these paths name.

use std::path::PathBuf;

use serde::Serialize;

use crate::settings::Settings;

/// The resolved folders and files of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Places {
    /// Model and runtime installs.
    pub data_dir: PathBuf,
    /// Vector caches and indexes.
    pub cache_dir: PathBuf,
    /// `settings.toml`.
    pub config_dir: PathBuf,
    /// The model folder in use.
    pub model_dir: PathBuf,
    /// The ONNX Runtime library in use.
    pub runtime_path: PathBuf,
    /// The pdfium library PDFs are read with.
    pub pdfium_path: PathBuf,
    /// The cross-encoder reranker folder, when one is configured.
    pub reranker_dir: Option<PathBuf>,
    /// Where `setup --gpu` puts the GPU build of ONNX Runtime.
    pub gpu_runtime_path: PathBuf,
    /// Whether the runtime library was chosen by the user (settings or SEAMSCOPE_ORT_LIB): then
    /// it is used on every device.
    pub user_runtime: bool,
}

impl Places {
    /// The folders `settings` make this run use, with the environment's overrides applied.
    pub fn of(settings: &Settings) -> Places {
        let dirs = directories::ProjectDirs::from("", "", "seamscope");
        let fallback = |sub: &str| std::env::temp_dir().join("seamscope").join(sub);
        let data_dir = settings
            .data_dir
            .clone()
            .or_else(|| std::env::var_os("SEAMSCOPE_DATA_DIR").map(PathBuf::from))
            .or_else(|| dirs.as_ref().map(|d| d.data_dir().to_path_buf()))
            .unwrap_or_else(|| fallback("data"));
        let cache_dir = settings
            .cache_dir
            .clone()
            .or_else(|| std::env::var_os("SEAMSCOPE_CACHE_DIR").map(PathBuf::from))
            .or_else(|| dirs.as_ref().map(|d| d.cache_dir().to_path_buf()))
            .unwrap_or_else(|| fallback("cache"));
        let config_dir = std::env::var_os("SEAMSCOPE_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| dirs.as_ref().map(|d| d.config_dir().to_path_buf()))
            .unwrap_or_else(|| fallback("config"));
        use crate::spec::model::{EmbedderSpec, RerankerSpec};
        // `embedder = "onnx:DIR"` names the model folder as `model_dir` does, and wins over it.
        let named_model = match EmbedderSpec::parse(settings.embedder.as_deref().unwrap_or("")) {
            Ok(EmbedderSpec::Onnx(dir)) => Some(dir),
            _ => None,
        };
        let model_dir = named_model
            .or_else(|| settings.model_dir.clone())
            .or_else(|| std::env::var_os("SEAMSCOPE_MODEL_DIR").map(PathBuf::from))
            .unwrap_or_else(|| data_dir.join("model"));
        let runtime_path = settings
            .runtime_path
            .clone()
            .or_else(|| std::env::var_os("SEAMSCOPE_ORT_LIB").map(PathBuf::from))
            .unwrap_or_else(|| {
                data_dir
                    .join("runtime")
                    .join(crate::embed::install::RUNTIME_FILE)
            });
        let named_reranker = match RerankerSpec::parse(settings.reranker.as_deref().unwrap_or("")) {
            Ok(RerankerSpec::Onnx(dir)) => Some(dir),
            _ => None,
        };
        let reranker_dir = named_reranker
            .or_else(|| settings.reranker_dir.clone())
            .or_else(|| std::env::var_os("SEAMSCOPE_RERANKER_DIR").map(PathBuf::from));
        let user_runtime =
            settings.runtime_path.is_some() || std::env::var_os("SEAMSCOPE_ORT_LIB").is_some();
        let pdfium_path = settings
            .pdfium_path
            .clone()
            .unwrap_or_else(|| crate::extract::pdfium::default_library(&data_dir));
        Places {
            pdfium_path,
            gpu_runtime_path: crate::embed::install_gpu::gpu_runtime_path(&data_dir),
            user_runtime,
            reranker_dir,
            data_dir,
            cache_dir,
            config_dir,
            model_dir,
            runtime_path,
        }
    }
}

/// How corpus folders are read under these settings.
pub fn load_options(settings: &Settings) -> crate::corpus::LoadOptions {
    use crate::corpus::DocumentSource;
    let places = Places::of(settings);
    let source = match (&settings.documents_file, &settings.cuts_file) {
        (Some(file), _) => DocumentSource::Loader(file.clone()),
        (None, Some(cuts)) if settings.documents_from_cuts => DocumentSource::Chunks(cuts.clone()),
        _ => DocumentSource::Files,
    };
    crate::corpus::LoadOptions {
        max_file_bytes: settings.max_file_bytes,
        follow_outside_symlinks: settings.follow_outside_symlinks,
        source,
        forced_format: settings.format,
        extension_formats: settings
            .formats
            .iter()
            .map(|(ext, format)| (ext.to_ascii_lowercase(), *format))
            .collect(),
        pdfium_library: Some(places.pdfium_path),
        extraction_cache: Some(crate::extract::cache::cache_dir(&places.cache_dir)),
        ..crate::corpus::LoadOptions::default()
    }
}
