//! `seamscope models`: the default model and fastembed's catalog, with what the data directory
//! holds of each; `--fetch NAME` fetches one catalog model's files through fastembed's hub client.

use std::path::Path;

use serde::Serialize;

use seamscope::embed::catalog::{self, CatalogEntry, CatalogKind, CatalogModel, HubAccess};
use seamscope::embed::install;
use seamscope::settings::Settings;

use super::{GlobalArgs, UsageError};

/// The pinned default model, as one row beside the catalog.
#[derive(Debug, Serialize)]
struct DefaultModel {
    kind: CatalogKind,
    name: &'static str,
    source: &'static str,
    dim: usize,
    window: usize,
    size_on_disk: Option<u64>,
    installed: bool,
    folder: std::path::PathBuf,
    default: bool,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct Listing {
    default: DefaultModel,
    cache_dir: std::path::PathBuf,
    catalog: Vec<CatalogEntry>,
}

/// List the models, or fetch one (`fetch`).
pub fn run(global: &GlobalArgs, fetch: Option<&str>, json: bool) -> anyhow::Result<()> {
    let places = seamscope::places::Places::of(&global.settings()?);
    if let Some(name) = fetch {
        return fetch_one(&places.data_dir, name, json);
    }
    let listing = Listing {
        default: default_model(&places.data_dir),
        cache_dir: catalog::cache_root(&places.data_dir),
        catalog: catalog::catalog(&places.data_dir),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&listing)?)?;
    } else {
        out!("{}", table(&listing))?;
    }
    Ok(())
}

/// The pinned all-MiniLM-L6-v2 that `seamscope setup` installs from PyPI into `<data>/model`.
fn default_model(data_dir: &Path) -> DefaultModel {
    let folder = data_dir.join("model");
    let installed = install::model_installed(&folder);
    let size_on_disk = installed.then(|| {
        install::MODEL_FILES
            .iter()
            .filter_map(|(name, _)| std::fs::metadata(folder.join(name)).ok())
            .map(|m| m.len())
            .sum()
    });
    DefaultModel {
        kind: CatalogKind::Embedder,
        name: install::DEFAULT_MODEL_NAME,
        source: "pinned from PyPI, installed by `seamscope setup`",
        dim: 384,
        window: Settings::default().model_max_tokens,
        size_on_disk,
        installed,
        folder,
        default: true,
    }
}

/// The listing as a table: the default first, then embedders, then rerankers.
fn table(listing: &Listing) -> String {
    let width = listing
        .catalog
        .iter()
        .map(|e| e.name.len())
        .chain([listing.default.name.len()])
        .max()
        .unwrap_or(0)
        + 2;
    let mut out = String::new();
    let header = |title: &str| {
        format!(
            "{title:<width$}{:>5} {:>7} {:>10}  INSTALLED\n",
            "DIM", "WINDOW", "SIZE"
        )
    };
    let d = &listing.default;
    out.push_str(&header("EMBEDDERS"));
    out.push_str(&format!(
        "{:<width$}{:>5} {:>7} {:>10}  {}  (default; {})\n",
        d.name,
        d.dim,
        d.window,
        size_text(d.size_on_disk),
        installed_text(d.installed, &d.folder),
        d.source,
    ));
    let mut rerankers_started = false;
    for e in &listing.catalog {
        if e.kind == CatalogKind::Reranker && !rerankers_started {
            rerankers_started = true;
            out.push('\n');
            out.push_str(&header("RERANKERS"));
        }
        let quantized = e
            .quantized
            .map(|q| format!("  [{q} quantized]"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<width$}{:>5} {:>7} {:>10}  {}{quantized}\n",
            e.name,
            e.dim.map_or("-".to_string(), |d| d.to_string()),
            e.window,
            size_text(e.size_on_disk),
            installed_text(e.installed, &e.folder),
        ));
    }
    out.push_str(&format!(
        "\nCatalog models are named `fastembed:NAME` (embedder or reranker setting); their files live in {} \
         and are fetched by fastembed's hub client on first use or with `seamscope models --fetch NAME`. \
         Offline, --fetch says which files to put where by hand.\n",
        listing.cache_dir.display()
    ));
    out
}

fn installed_text(installed: bool, folder: &Path) -> String {
    if installed {
        format!("yes  {}", folder.display())
    } else {
        "no".to_string()
    }
}

/// Bytes as a short human figure (`-` when unknown).
fn size_text(bytes: Option<u64>) -> String {
    match bytes {
        None => "-".to_string(),
        Some(b) if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        Some(b) if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        Some(b) if b >= 1_000 => format!("{:.1} kB", b as f64 / 1e3),
        Some(b) => format!("{b} B"),
    }
}

/// The catalog model `name` of either kind: embedders first, then rerankers.
fn resolve_any(name: &str) -> anyhow::Result<&'static CatalogModel> {
    let embedder = catalog::resolve(CatalogKind::Embedder, name);
    let reranker = catalog::resolve(CatalogKind::Reranker, name);
    match (embedder, reranker) {
        (Ok(m), _) | (_, Ok(m)) => Ok(m),
        (
            Err(catalog::CatalogError::UnknownName { suggestions: a, .. }),
            Err(catalog::CatalogError::UnknownName { suggestions: b, .. }),
        ) => {
            let close: Vec<String> = a.into_iter().chain(b).take(5).collect();
            let hint = if close.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", close.join(", "))
            };
            Err(UsageError(format!(
                "fastembed's catalog has no model named `{name}`{hint}; `seamscope models` lists them all"
            ))
            .into())
        }
        (Err(e), _) => Err(e.into()),
    }
}

/// `--fetch NAME`: the model's files into the cache (nothing to do when they are there).
fn fetch_one(data_dir: &Path, name: &str, json: bool) -> anyhow::Result<()> {
    let model = resolve_any(name)?;
    let mut last_percent = None;
    let mut progress = |p: catalog::FetchProgress| {
        let percent = (p.done * 100).checked_div(p.total).unwrap_or(0);
        if !json && last_percent != Some((p.file.clone(), percent / 10)) {
            errln!("{}: {percent}% of {}", p.file, size_text(Some(p.total)));
            last_percent = Some((p.file.clone(), percent / 10));
        }
    };
    let paths =
        catalog::hub::ensure_files(model, data_dir, &HubAccess::from_env(false), &mut progress)?;
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "name": model.name,
                "kind": model.kind,
                "model_code": model.model_code,
                "folder": model.folder(data_dir),
                "files": paths,
            }))?
        )?;
    } else {
        outln!(
            "{} {} is in {}",
            model.kind,
            model.name,
            model.folder(data_dir).display()
        )?;
    }
    Ok(())
}
