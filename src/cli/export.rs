//! `seamscope export`: the tuned layout as a bundle a pipeline elsewhere can load (settings,
//! chunks and seams with links and texts, their vectors as .npy, a manifest of hashes), and
//! `seamscope import`: a bundle opened again and checked.

use std::path::Path;

use seamscope::board::origin::TuneOrigin;
use seamscope::calibrate::provenance::CalibrationOrigin;
use seamscope::embed::Embedder;
use seamscope::export::provenance::MarginSource;
use seamscope::export::{BundleLayout, write_bundle};

use super::common::{BuildBar, start_engine};
use super::query::QueryArgs;
use super::{GlobalArgs, LayoutArgs};

/// The reports an export may take its settings from.
pub struct Origins<'a> {
    /// `--calibration FILE`.
    pub calibration: Option<&'a Path>,
    /// `--from-tune FILE`.
    pub tune: Option<&'a Path>,
    /// `--row LABEL`.
    pub row: Option<&'a str>,
}

/// Index the corpus if needed, then write its bundle into `out`, with `m` (and the budget) from
/// the calibration report or the board row of `origins` unless the flags give them.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    out: &Path,
    (layout, query): (&LayoutArgs, &QueryArgs),
    origins: Origins<'_>,
    json: bool,
) -> anyhow::Result<()> {
    let Resolved {
        settings,
        tune,
        calibration,
        m_source,
    } = resolve_settings(global, (layout, query), &origins)?;
    let mut engine = start_engine(settings.clone())?;
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let cut_layout = seamscope::layout::Layout::for_settings(&docs, &engine.tokenizer, &settings)?;
    if let Some(c) = &calibration {
        c.check(
            engine.embedder.identity(),
            (&cut_layout.chunker, cut_layout.k),
            (settings.budget, settings.depth, settings.rrf_c),
            m_source == MarginSource::Calibration,
        )?;
    }
    if let Some(t) = &tune {
        t.check(engine.embedder.identity(), &cut_layout.chunker)?;
    }
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.index_layout(docs, cut_layout, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    let (cache, _) = engine.vector_cache();
    let model = engine.embedder.identity().to_string();
    let dim = engine.embedder.dim();
    let cut = BundleLayout {
        chunker: settings.chunker,
        chunk_tokens: settings.chunk_tokens,
        heading_prefix: settings.heading_prefix,
        m_source,
        calibration,
        tune,
        prefixes: (
            engine.embedder.query_prefix().to_string(),
            engine.embedder.document_prefix().to_string(),
        ),
    };
    let laid = seamscope::export::Laid {
        corpus: &open.corpus,
        layout: &open.layout,
    };
    let report = write_bundle(
        laid,
        cut,
        &settings.query_settings(),
        &cache,
        &model,
        dim,
        out,
    )?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    print_written(out, &report)
}

/// What was written, as text: the bundle's size and settings, then each file and its hash.
fn print_written(out: &Path, report: &seamscope::export::BundleReport) -> anyhow::Result<()> {
    outln!(
        "bundle written to {}: {} chunks, {} seams, {}-d vectors ({}), k {} · m {} · budget {}",
        out.display(),
        report.settings.chunks,
        report.settings.seams,
        report.settings.dim,
        report.settings.chunker,
        report.settings.k,
        report.settings.m,
        report.settings.budget
    )?;
    outln!("  {}", margin_line(&report.settings))?;
    for f in &report.files {
        outln!(
            "  {:<20} {:>10} bytes  blake3 {}",
            f.name,
            f.bytes,
            &f.blake3[..16]
        )?;
    }
    Ok(())
}

/// The settings an export runs under, and the reports they came from.
struct Resolved {
    settings: seamscope::settings::Settings,
    tune: Option<TuneOrigin>,
    calibration: Option<CalibrationOrigin>,
    /// Where `m` came from.
    m_source: MarginSource,
}

/// The settings for the bundle: a board row's, then the layout flags, then the calibration's
/// budget and m unless the flags give them, then the query flags. The reports are read and
/// checked here, before anything is indexed.
fn resolve_settings(
    global: &GlobalArgs,
    (layout, query): (&LayoutArgs, &QueryArgs),
    origins: &Origins<'_>,
) -> anyhow::Result<Resolved> {
    let mut settings = global.settings()?;
    // Read and check the reports before anything is indexed.
    let tune = origins
        .tune
        .map(|p| TuneOrigin::read(p, origins.row))
        .transpose()?;
    if let Some(t) = &tune {
        settings.k = t.k;
        settings.chunk_tokens = t.chunk_tokens;
        settings.budget = t.budget;
        settings.m = t.m;
        settings.side_drop = t.side_drop;
    }
    layout.apply(&mut settings)?;
    let calibration = origins
        .calibration
        .map(CalibrationOrigin::read)
        .transpose()?;
    if let Some(c) = &calibration {
        if query.budget_given().is_none() {
            settings.budget = c.budget;
        }
        if query.m_given().is_none()
            && let Some(m) = c.recommended_m
        {
            settings.m = m;
        }
    }
    query.apply(&mut settings)?;
    let m_source = match (&calibration, query.m_given()) {
        (_, Some(_)) => MarginSource::Flag,
        (Some(c), None) if c.recommended_m.is_some() => MarginSource::Calibration,
        _ if tune.is_some() => MarginSource::Tune,
        _ => MarginSource::Settings,
    };
    Ok(Resolved {
        settings,
        tune,
        calibration,
        m_source,
    })
}

/// What `seamscope import` says about a bundle it opened.
#[derive(serde::Serialize)]
struct ImportReport<'a> {
    bundle: &'a Path,
    settings: seamscope::export::BundleSettings,
    documents: usize,
    chunks: usize,
    seams: usize,
    tokens: usize,
    dense_search: seamscope::index::vectors::SearchMode,
}

/// Open the bundle in `folder` with the engine (every file checked, the layout cut again and
/// compared, the model matched) and say what it holds.
pub fn import(global: &GlobalArgs, folder: &Path, json: bool) -> anyhow::Result<()> {
    let mut engine = start_engine(global.settings()?)?;
    let settings = seamscope::export::read::read_settings(folder)?;
    let open = engine.open_bundle(folder)?;
    let report = ImportReport {
        bundle: folder,
        settings,
        documents: open.corpus.documents.len(),
        chunks: open.layout.chunks.len(),
        seams: open.layout.seams.len(),
        tokens: open.layout.total_tokens(),
        dense_search: open.indexes.search_mode,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    let s = &report.settings;
    outln!(
        "bundle {} checked: {} documents, {} chunks, {} seams, {} tokens ({}), every file matches its manifest and the layout cuts again the same",
        folder.display(),
        report.documents,
        report.chunks,
        report.seams,
        report.tokens,
        s.chunker
    )?;
    outln!(
        "settings: k {} · m {} · budget {} · depth {} · RRF c {} · side drop {} · {} dense search",
        s.k,
        s.m,
        s.budget,
        s.depth,
        s.rrf_c,
        s.side_drop
            .map_or_else(|| "off".to_string(), |t| format!("{t:.2}")),
        report.dense_search.describe()
    )?;
    outln!("{}", margin_line(s))?;
    outln!("model: {}", seamscope::text::safe_name(&s.model))?;
    outln!(
        "see it on the screen: seamscope --bundle {}",
        folder.display()
    )?;
    Ok(())
}

/// Where a bundle's `m` came from, in words.
fn margin_line(s: &seamscope::export::BundleSettings) -> String {
    let safe = seamscope::text::safe_name;
    let source = match s.m_source {
        Some(MarginSource::Calibration) => "from the calibration",
        Some(MarginSource::Flag) => "from --m",
        Some(MarginSource::Tune) => "from the strategy board",
        Some(MarginSource::Settings) => "from the settings (no calibration given)",
        None => "source not recorded (an older bundle)",
    };
    let mut line = format!("m {} {source}", s.m);
    if let Some(c) = &s.calibration {
        let rate =
            |r: Option<f64>| r.map_or_else(|| "-".to_string(), |r| format!("{:.1}%", r * 100.0));
        line.push_str(&format!(
            " · calibration {} (blake3 {}): recommended m {} at budget {}, failure {} with Seams vs {} off, on {} (seed {})",
            safe(&c.file),
            &c.blake3[..16],
            c.recommended_m.map_or_else(|| "none".to_string(), |m| m.to_string()),
            c.budget,
            rate(c.failure_rate),
            rate(c.off_failure_rate),
            safe(&c.objective_source),
            c.seed
        ));
    }
    if let Some(t) = &s.tune {
        line.push_str(&format!(
            " · board {} (blake3 {}): row {} fails {:.1}% [{:.1}–{:.1}] on {}; {}",
            safe(&t.file),
            &t.blake3[..16],
            safe(&t.row),
            t.failure_rate * 100.0,
            t.interval_low * 100.0,
            t.interval_high * 100.0,
            safe(&t.source),
            safe(t.verdict.as_deref().unwrap_or("no verdict"))
        ));
    }
    line
}
