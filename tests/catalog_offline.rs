//! fastembed's catalog without the network: the pinned model, laid out by hand in the hub
//! client's cache layout as the catalog's all-MiniLM-L6-v2, loads by name and embeds exactly as
//! the project's own local model does.

mod common;

use std::path::{Path, PathBuf};

use seamscope::embed::catalog::{self, CatalogEmbedder, CatalogKind, CatalogReranker, HubAccess};
use seamscope::embed::model::ModelEmbedder;
use seamscope::embed::{EmbedError, Embedder, cosine};
use seamscope::retrieve::Reranker;

/// The installed pinned model folder and runtime library.
fn installed() -> (PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let places = seamscope::places::Places::of(&common::settings(dir.path()));
    (places.model_dir, places.runtime_path)
}

/// Copy the pinned model's files into `data_dir`'s catalog cache as catalog model `name`, the
/// way a person would by hand: `snapshots/manual/FILE` and `refs/main` holding `manual`.
fn lay_out(kind: CatalogKind, name: &str, model_dir: &Path, data_dir: &Path) -> u64 {
    let model = catalog::resolve(kind, name).unwrap();
    let folder = model.folder(data_dir);
    let snapshot = folder.join("snapshots").join("manual");
    let mut bytes = 0;
    for (i, file) in model.files().iter().enumerate() {
        let from = if i == 0 {
            model_dir.join("model.onnx")
        } else {
            model_dir.join(file)
        };
        let to = snapshot.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        bytes += std::fs::copy(&from, &to).unwrap();
    }
    std::fs::create_dir_all(folder.join("refs")).unwrap();
    std::fs::write(folder.join("refs").join("main"), "manual").unwrap();
    bytes
}

/// A hub that must not be needed: any request to it fails at once (nothing listens on port 9).
fn unreachable_hub() -> HubAccess {
    HubAccess {
        offline: None,
        endpoint: "http://127.0.0.1:9".into(),
        token: None,
    }
}

#[test]
fn a_hand_laid_out_catalog_model_loads_offline_and_matches_the_local_model() {
    let (model_dir, runtime) = installed();
    let data = tempfile::tempdir().unwrap();
    let bytes = lay_out(
        CatalogKind::Embedder,
        "all-MiniLM-L6-v2",
        &model_dir,
        data.path(),
    );

    let mut by_name = CatalogEmbedder::load_with(
        "all-MiniLM-L6-v2",
        data.path(),
        &runtime,
        None,
        4,
        &unreachable_hub(),
        &mut |p| panic!("nothing may be fetched, yet {p:?}"),
    )
    .expect("the cached catalog model loads without the hub");
    let mut local = ModelEmbedder::load(&model_dir, &runtime, 256, 4).unwrap();

    // The identity names the catalog entry, the weights' hash and the window.
    assert_eq!(
        by_name.identity(),
        "fastembed:all-MiniLM-L6-v2@8199be6f699a395f/w256"
    );
    assert_eq!((by_name.dim(), by_name.max_tokens()), (384, 256));
    assert!(by_name.tokenizer_file().is_file());

    let long = "The failover runbook names who may promote a replica and when. ".repeat(14);
    let texts = [
        "The order service keeps accepting purchases while a region is down.",
        "Bake the bread at two hundred degrees for forty minutes.",
        long.as_str(),
    ];
    let a = by_name.embed(&texts).unwrap();
    let b = local.embed(&texts).unwrap();
    assert_eq!(a.len(), texts.len());
    for (x, y) in a.iter().zip(&b) {
        let c = cosine(x, y);
        assert!(c >= 0.999, "cosine {c}");
    }
    // And they are real, different vectors, not one constant.
    assert!(cosine(&a[0], &a[1]) < 0.9);

    // The listing sees it installed, with the bytes laid out.
    let entries = catalog::catalog(data.path());
    let entry = entries
        .iter()
        .find(|e| e.kind == CatalogKind::Embedder && e.name == "all-MiniLM-L6-v2")
        .unwrap();
    assert!(entry.installed);
    assert_eq!(entry.size_on_disk, Some(bytes));
    assert_eq!(
        entry.folder,
        data.path()
            .join("fastembed")
            .join("models--Qdrant--all-MiniLM-L6-v2-onnx")
    );
    // Its quantized sibling lives in another repository and is not installed.
    assert!(
        !entries
            .iter()
            .find(|e| e.name == "all-MiniLM-L6-v2-q")
            .unwrap()
            .installed
    );

    // `offline` changes nothing when the files are there.
    let again = CatalogEmbedder::load("all-MiniLM-L6-v2", data.path(), &runtime, None, 4, true);
    assert!(again.is_ok());
}

#[test]
fn a_window_past_the_models_files_is_refused() {
    let (model_dir, runtime) = installed();
    let data = tempfile::tempdir().unwrap();
    lay_out(
        CatalogKind::Embedder,
        "all-MiniLM-L6-v2",
        &model_dir,
        data.path(),
    );
    let err = CatalogEmbedder::load_with(
        "all-MiniLM-L6-v2",
        data.path(),
        &runtime,
        Some(1024),
        4,
        &unreachable_hub(),
        &mut |_| {},
    )
    .err()
    .unwrap();
    assert!(
        matches!(err, EmbedError::WindowTooLarge { window: 512, .. }),
        "{err}"
    );
}

#[test]
fn an_uncached_model_with_no_hub_is_a_clear_error_and_leaves_nothing_behind() {
    let (_, runtime) = installed();
    let data = tempfile::tempdir().unwrap();
    let err = CatalogEmbedder::load_with(
        "multilingual-e5-small",
        data.path(),
        &runtime,
        None,
        4,
        &unreachable_hub(),
        &mut |_| {},
    )
    .err()
    .unwrap();
    let text = err.to_string();
    let folder = data
        .path()
        .join("fastembed")
        .join("models--intfloat--multilingual-e5-small");
    for part in [
        "fastembed:multilingual-e5-small",
        "intfloat/multilingual-e5-small",
        "http://127.0.0.1:9 cannot be reached",
        "onnx/model.onnx",
        "special_tokens_map.json",
        "--model-dir DIR",
        &folder.display().to_string(),
    ] {
        assert!(text.contains(part), "missing {part}: {text}");
    }
    assert!(!folder.exists());
}

#[test]
fn a_cached_reranker_loads_offline_and_a_model_without_logits_fails_cleanly() {
    // No cross-encoder is pinned, so the embedding model stands in: the name, the cache and the
    // load are real; scoring must then fail with an error (fastembed finds no `logits`), not a
    // panic.
    let (model_dir, runtime) = installed();
    let data = tempfile::tempdir().unwrap();
    lay_out(
        CatalogKind::Reranker,
        "bge-reranker-base",
        &model_dir,
        data.path(),
    );
    let mut reranker =
        CatalogReranker::load("bge-reranker-base", data.path(), &runtime, None, true)
            .expect("the cached files load");
    assert!(
        reranker
            .name()
            .starts_with("fastembed:bge-reranker-base@8199be6f699a"),
        "{}",
        reranker.name()
    );
    assert_eq!(reranker.max_tokens(), 512);
    let err = reranker.score("question", &["a chunk"]).unwrap_err();
    assert!(err.to_string().contains("logits"), "{err}");
}
