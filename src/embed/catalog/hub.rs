//! Getting a catalog model's files: from the cache when they are there (no request at all), else
//! through fastembed's hub client (`hf-hub`), else a clear error that says what to fetch by hand.
//!
//! The cache is Hugging Face's layout under `<data dir>/fastembed/`:
//! `models--ORG--NAME/refs/main` holds a revision, and `models--ORG--NAME/snapshots/REV/FILE`
//! are the files (links into `blobs/` when the hub client wrote them, plain files when a person
//! did). `hf-hub` serves a file it finds there without a request (`ApiRepo::get`), so a model
//! laid out by hand loads offline exactly as a downloaded one does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{CatalogError, CatalogKind, CatalogModel, NotCached};

/// How long the reachability check may wait for a connection before saying the hub is away.
pub const PROBE_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the reachability check may take in all.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// The Hugging Face hub seamscope may ask for missing files, and whether it may ask at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubAccess {
    /// Why the hub must not be asked, when it must not (`None`: it may be).
    pub offline: Option<String>,
    /// The hub's address (`HF_ENDPOINT`, default `https://huggingface.co`).
    pub endpoint: String,
    /// A token for gated repositories (`HF_TOKEN`).
    pub token: Option<String>,
}

impl HubAccess {
    /// The hub as the environment describes it: `HF_ENDPOINT`, `HF_TOKEN`, and offline when
    /// `offline` is set or `HF_HUB_OFFLINE` is `1`/`true`/`yes`/`on` (the `hf-hub` crate itself
    /// reads neither `HF_HUB_OFFLINE` nor `HF_HOME` here: seamscope passes its own cache folder).
    pub fn from_env(offline: bool) -> Self {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let hub_offline = var("HF_HUB_OFFLINE")
            .is_some_and(|v| ["1", "true", "yes", "on"].contains(&v.to_lowercase().as_str()));
        let offline = if offline {
            Some("seamscope was asked to stay offline".to_string())
        } else if hub_offline {
            Some("HF_HUB_OFFLINE is set".to_string())
        } else {
            None
        };
        HubAccess {
            offline,
            endpoint: var("HF_ENDPOINT").unwrap_or_else(|| "https://huggingface.co".to_string()),
            token: var("HF_TOKEN"),
        }
    }
}

/// Progress of a download, per file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchProgress {
    /// The file, as a path inside the hub repository.
    pub file: String,
    /// Bytes fetched so far.
    pub done: u64,
    /// Bytes in all.
    pub total: u64,
}

/// The local paths of every file `model` needs ([`CatalogModel::files`] order) when the cache
/// under `data_dir` holds all of them; otherwise the files it lacks.
///
/// The same look-up as `hf-hub`'s cache (the revision in `refs/main`, then
/// `snapshots/REV/FILE`), except that a revision written by hand with a trailing newline is
/// accepted too.
pub fn cached_files(model: &CatalogModel, data_dir: &Path) -> Result<Vec<PathBuf>, Vec<String>> {
    let folder = model.folder(data_dir);
    let revision = crate::files::read_named_text(
        &folder.join("refs").join("main"),
        crate::files::POINTER_LIMIT,
    )
    .ok()
    .map(|r| r.trim().to_string())
    .filter(|r| !r.is_empty() && !r.contains(['/', '\\']) && r != "..");
    let files = model.files();
    let Some(revision) = revision else {
        return Err(files);
    };
    let snapshot = folder.join("snapshots").join(revision);
    let (found, missing): (Vec<_>, Vec<_>) = files
        .into_iter()
        .map(|f| (snapshot.join(&f), f))
        .partition(|(path, _)| path.is_file());
    if missing.is_empty() {
        Ok(found.into_iter().map(|(path, _)| path).collect())
    } else {
        Err(missing.into_iter().map(|(_, f)| f).collect())
    }
}

/// The local paths of every file `model` needs, fetching what the cache lacks through fastembed's
/// hub client when `access` allows it.
///
/// A model already in the cache costs no request. Otherwise the hub is first asked, with a
/// bounded wait ([`PROBE_TIMEOUT`]), whether it knows the repository: an unreachable hub is a
/// [`CatalogError::NotCached`] at once instead of a long hang, and so is `access.offline`.
pub fn ensure_files(
    model: &CatalogModel,
    data_dir: &Path,
    access: &HubAccess,
    progress: &mut dyn FnMut(FetchProgress),
) -> Result<Vec<PathBuf>, CatalogError> {
    let missing = match cached_files(model, data_dir) {
        Ok(paths) => return Ok(paths),
        Err(missing) => missing,
    };
    let not_cached = |why: String| {
        CatalogError::NotCached(Box::new(NotCached {
            kind: model.kind,
            name: model.name.clone(),
            repo: model.model_code.clone(),
            folder: model.folder(data_dir),
            files: model.files(),
            missing: missing.clone(),
            why,
            cls_pooling: cls_pooled(model),
        }))
    };
    if let Some(why) = &access.offline {
        return Err(not_cached(why.clone()));
    }
    probe(access, &model.model_code).map_err(|e| match e {
        Probe::Unreachable(why) => not_cached(why),
        Probe::Refused(message) => CatalogError::Fetch {
            name: model.name.clone(),
            repo: model.model_code.clone(),
            file: None,
            message,
        },
    })?;
    let api =
        hf_hub::api::sync::ApiBuilder::from_cache(hf_hub::Cache::new(super::cache_root(data_dir)))
            .with_endpoint(access.endpoint.clone())
            .with_token(access.token.clone())
            .with_progress(false)
            .build()
            .map_err(|e| CatalogError::Fetch {
                name: model.name.clone(),
                repo: model.model_code.clone(),
                file: None,
                message: e.to_string(),
            })?;
    let repo = api.model(model.model_code.clone());
    // A download that moves `refs/main` to a newer revision hides files fetched under the older
    // one, so look again after a round and fetch what went missing (twice at most).
    for _ in 0..2 {
        let missing = match cached_files(model, data_dir) {
            Ok(paths) => return Ok(paths),
            Err(missing) => missing,
        };
        for file in missing {
            let reporter = Reporter {
                file: file.clone(),
                done: 0,
                total: 0,
                progress: &mut *progress,
            };
            repo.download_with_progress(&file, reporter)
                .map_err(|e| CatalogError::Fetch {
                    name: model.name.clone(),
                    repo: model.model_code.clone(),
                    file: Some(file.clone()),
                    message: e.to_string(),
                })?;
        }
    }
    cached_files(model, data_dir).map_err(|missing| CatalogError::Fetch {
        name: model.name.clone(),
        repo: model.model_code.clone(),
        file: missing.first().cloned(),
        message: "the hub client returned without leaving the file in the cache".to_string(),
    })
}

/// Whether fastembed pools this model's tokens by the first (CLS) token rather than the mean.
fn cls_pooled(model: &CatalogModel) -> bool {
    match &model.fastembed {
        super::FastembedModel::Embedder(m) => matches!(
            fastembed::TextEmbedding::get_default_pooling_method(m),
            Some(fastembed::Pooling::Cls)
        ),
        super::FastembedModel::Reranker(_) => false,
    }
}

/// Why the hub could not be used.
enum Probe {
    /// No answer (no network, no name resolution, a timeout, a server error).
    Unreachable(String),
    /// An answer that refuses the repository (not found, needs a token).
    Refused(String),
}

/// Ask the hub whether it knows `repo`, waiting at most [`PROBE_TIMEOUT`].
fn probe(access: &HubAccess, repo: &str) -> Result<(), Probe> {
    let endpoint = access.endpoint.trim_end_matches('/');
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(PROBE_CONNECT_TIMEOUT))
        .timeout_global(Some(PROBE_TIMEOUT))
        .build()
        .into();
    let mut request = agent.get(format!("{endpoint}/api/models/{repo}"));
    if let Some(token) = &access.token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    match request.call() {
        Ok(response) => match response.status().as_u16() {
            200..=299 => Ok(()),
            status @ (401 | 403 | 404) => Err(Probe::Refused(format!(
                "the hub at {endpoint} answered HTTP {status} for {repo}{}",
                if access.token.is_none() {
                    " (a gated repository needs HF_TOKEN)"
                } else {
                    ""
                }
            ))),
            status => Err(Probe::Unreachable(format!(
                "the hub at {endpoint} answered HTTP {status}"
            ))),
        },
        Err(e) => Err(Probe::Unreachable(format!(
            "the hub at {endpoint} cannot be reached ({e})"
        ))),
    }
}

/// Passes `hf-hub`'s download progress on as [`FetchProgress`].
struct Reporter<'a> {
    file: String,
    done: u64,
    total: u64,
    progress: &'a mut dyn FnMut(FetchProgress),
}

impl Reporter<'_> {
    fn report(&mut self) {
        (self.progress)(FetchProgress {
            file: self.file.clone(),
            done: self.done,
            total: self.total,
        });
    }
}

impl hf_hub::api::Progress for Reporter<'_> {
    fn init(&mut self, size: usize, _filename: &str) {
        self.total = size as u64;
        self.report();
    }
    fn update(&mut self, size: usize) {
        self.done += size as u64;
        self.report();
    }
    fn finish(&mut self) {
        self.done = self.total;
        self.report();
    }
}

/// The text of [`CatalogError::NotCached`]: which model, why nothing was fetched, which files
/// from which repository, and the two ways to provide them by hand.
pub(super) fn not_cached_text(n: &NotCached) -> String {
    let NotCached {
        kind,
        name,
        repo,
        folder,
        files,
        why,
        cls_pooling,
        ..
    } = n;
    let flag = match kind {
        CatalogKind::Embedder => "--model-dir",
        CatalogKind::Reranker => "--reranker-dir",
    };
    let onnx = files.first().map_or("model.onnx", String::as_str);
    let external = files.len() > 1 + super::TOKENIZER_FILES.len();
    let mut text = format!(
        "the {kind} fastembed:{name} is not in the cache and {why}, so nothing was fetched. \
         It needs these files of the hub repository {repo}: {}. \
         Fetch them by hand (https://huggingface.co/{repo}/tree/main) and either lay them out as \
         fastembed's cache does, {}/snapshots/manual/FILE with the word `manual` in {}/refs/main, \
         then use fastembed:{name} again",
        files.join(", "),
        folder.display(),
        folder.display(),
    );
    if external {
        text.push_str(" (its weights are split over several files, so only this layout works)");
    } else {
        text.push_str(&format!(
            "; or put {onnx} as model.onnx beside the tokenizer files in a folder DIR and pass {flag} DIR"
        ));
        if *cls_pooling {
            text.push_str(&format!(
                " (that folder is read with mean pooling; {name} uses CLS pooling, which only the cache layout keeps)"
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::catalog::resolve;

    fn lay_out(model: &CatalogModel, data_dir: &Path, files: &[String], refs: &str) {
        let folder = model.folder(data_dir);
        std::fs::create_dir_all(folder.join("refs")).unwrap();
        std::fs::write(folder.join("refs").join("main"), refs).unwrap();
        for f in files {
            let path = folder.join("snapshots").join("manual").join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"{}").unwrap();
        }
    }

    #[test]
    fn the_cache_answers_only_when_every_file_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let model = resolve(CatalogKind::Embedder, "bge-small-en-v1.5").unwrap();
        assert_eq!(cached_files(model, dir.path()), Err(model.files()));
        // Everything but the ONNX file: that one is missing.
        lay_out(model, dir.path(), &model.files()[1..], "manual\n");
        assert_eq!(
            cached_files(model, dir.path()),
            Err(vec!["onnx/model.onnx".to_string()])
        );
        lay_out(model, dir.path(), &model.files(), "manual\n");
        let paths = cached_files(model, dir.path()).unwrap();
        let snapshot = model.folder(dir.path()).join("snapshots").join("manual");
        assert_eq!(paths[0], snapshot.join("onnx/model.onnx"));
        assert_eq!(paths.len(), 5);
    }

    #[test]
    fn a_revision_that_leaves_the_snapshots_folder_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let model = resolve(CatalogKind::Reranker, "bge-reranker-base").unwrap();
        lay_out(model, dir.path(), &model.files(), "../../x");
        assert!(cached_files(model, dir.path()).is_err());
    }

    #[test]
    fn offline_is_an_error_that_names_everything_needed_and_asks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let model = resolve(CatalogKind::Embedder, "bge-small-en-v1.5").unwrap();
        let access = HubAccess {
            offline: Some("seamscope was asked to stay offline".into()),
            // Would fail if it were asked: the offline rule must come first.
            endpoint: "http://256.256.256.256".into(),
            token: None,
        };
        let err = ensure_files(model, dir.path(), &access, &mut |_| {}).unwrap_err();
        let text = err.to_string();
        for part in [
            "fastembed:bge-small-en-v1.5",
            "Xenova/bge-small-en-v1.5",
            "asked to stay offline",
            "onnx/model.onnx",
            "tokenizer_config.json",
            "--model-dir DIR",
            "CLS pooling",
            &model.folder(dir.path()).display().to_string(),
        ] {
            assert!(text.contains(part), "missing {part}: {text}");
        }
        // Nothing was written.
        assert!(!super::super::cache_root(dir.path()).exists());
    }

    #[test]
    fn an_unreachable_hub_is_the_same_clear_error() {
        // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
        let dir = tempfile::tempdir().unwrap();
        let model = resolve(CatalogKind::Reranker, "jina-reranker-v1-turbo-en").unwrap();
        let access = HubAccess {
            offline: None,
            endpoint: "http://127.0.0.1:9".into(),
            token: None,
        };
        let err = ensure_files(model, dir.path(), &access, &mut |_| {}).unwrap_err();
        assert!(matches!(err, CatalogError::NotCached(_)), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains("http://127.0.0.1:9 cannot be reached")
                && text.contains("--reranker-dir DIR")
                && !text.contains("CLS"),
            "{text}"
        );
    }

    #[test]
    fn split_weights_only_offer_the_cache_layout() {
        let dir = tempfile::tempdir().unwrap();
        let model = resolve(CatalogKind::Embedder, "multilingual-e5-large").unwrap();
        let text = not_cached_text(&NotCached {
            kind: model.kind,
            name: model.name.clone(),
            repo: model.model_code.clone(),
            folder: model.folder(dir.path()),
            files: model.files(),
            missing: model.files(),
            why: "HF_HUB_OFFLINE is set".into(),
            cls_pooling: false,
        });
        assert!(
            text.contains("model.onnx_data") && !text.contains("--model-dir"),
            "{text}"
        );
    }
}
