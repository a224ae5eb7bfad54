//! `seamscope export`: the tuned layout as a bundle a pipeline elsewhere can load (settings,
//! chunks and seams with links and texts, their vectors as .npy, a manifest of hashes).

use std::path::Path;

use seamscope::embed::Embedder;
use seamscope::export::{BundleLayout, write_bundle};

use super::common::{BuildBar, start_engine};
use super::query::QueryArgs;
use super::{GlobalArgs, LayoutArgs};

/// Index the corpus if needed, then write its bundle into `out`.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    out: &Path,
    layout: &LayoutArgs,
    query: &QueryArgs,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    query.apply(&mut settings)?;
    let mut engine = start_engine(settings.clone())?;
    let mut bar = BuildBar::new();
    let open = engine.open_corpus(corpus, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let (cache, _) = engine.vector_cache();
    let model = engine.embedder.identity().to_string();
    let dim = engine.embedder.dim();
    let cut = BundleLayout {
        chunker: settings.chunker,
        chunk_tokens: settings.chunk_tokens,
        heading_prefix: settings.heading_prefix,
    };
    let report = write_bundle(
        &open,
        cut,
        &settings.query_settings(),
        &cache,
        &model,
        dim,
        out,
    )?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "bundle written to {}: {} chunks, {} seams, {}-d vectors ({}), k {} · m {} · budget {}",
        out.display(),
        report.settings.chunks,
        report.settings.seams,
        report.settings.dim,
        report.settings.chunker,
        report.settings.k,
        report.settings.m,
        report.settings.budget
    );
    for f in &report.files {
        println!(
            "  {:<20} {:>10} bytes  blake3 {}",
            f.name,
            f.bytes,
            &f.blake3[..16]
        );
    }
    Ok(())
}
