//! `seamscope cache`: what the cache folder holds (vectors per model, index folders, stored
//! layouts, extracted text), and `--prune` to drop the cached vectors no index uses and the
//! extracted text no current extractor reads.

use seamscope::extract::Format;
use seamscope::extract::cache::{CacheSurvey, cache_dir};
use seamscope::index::usage::{CacheReport, PruneMode, survey};
use seamscope::text::safe;

use super::GlobalArgs;

/// Survey (and with `prune`, prune) the cache folder of the settings in force.
pub fn run(global: &GlobalArgs, prune: bool, dry_run: bool, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let places = seamscope::places::Places::of(&settings);
    let mode = prune.then_some(if dry_run {
        PruneMode::DryRun
    } else {
        PruneMode::Removed
    });
    let report = survey(&places.cache_dir, mode);
    // The extractors as they stand read only entries of their own version.
    let options = seamscope::places::load_options(&settings);
    let current: Vec<(String, String)> = Format::ALL
        .iter()
        .filter(|f| **f != Format::Text)
        .filter_map(|f| options.extractor(*f).ok())
        .map(|x| (x.format().name().to_string(), x.version()))
        .collect();
    let extracted = seamscope::extract::cache::survey(
        &cache_dir(&places.cache_dir),
        &current,
        mode == Some(PruneMode::Removed),
    );
    if json {
        let mut value = serde_json::to_value(&report)?;
        if let Some(map) = value.as_object_mut() {
            map.insert("extracted".into(), serde_json::to_value(&extracted)?);
        }
        outln!("{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        print(&report)?;
        print_extracted(&extracted, report.prune)?;
    }
    Ok(())
}

fn print_extracted(
    x: &CacheSurvey,
    prune: Option<PruneMode>,
) -> Result<(), crate::cli::out::StdoutError> {
    outln!(
        "extracted text  {} file{}, {}{}",
        x.entries,
        if x.entries == 1 { "" } else { "s" },
        mb(x.bytes),
        if x.stale > 0 {
            format!(
                " ({} from older extractors or damaged, {})",
                x.stale,
                mb(x.stale_bytes)
            )
        } else {
            String::new()
        }
    )?;
    match prune {
        Some(PruneMode::DryRun) if x.stale > 0 => {
            outln!("  prune: would remove {} entries", x.stale)?
        }
        Some(PruneMode::Removed) if x.stale > 0 => {
            outln!("  prune: removed {} of {} entries", x.removed, x.stale)?
        }
        _ => {}
    }
    Ok(())
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn print(report: &CacheReport) -> Result<(), crate::cli::out::StdoutError> {
    outln!(
        "cache folder    {}",
        safe(&report.cache_dir.display().to_string())
    )?;
    let vector_bytes: u64 = report.vectors.iter().map(|v| v.bytes).sum();
    outln!(
        "vector cache    {} file{}, {}",
        report.vectors.len(),
        if report.vectors.len() == 1 { "" } else { "s" },
        mb(vector_bytes)
    )?;
    for v in &report.vectors {
        let name = v.path.file_name().unwrap_or_default().to_string_lossy();
        let model = v
            .model
            .as_deref()
            .map_or_else(|| "(no index names this model)".to_string(), safe);
        let entries = v
            .entries
            .map_or_else(|| "damaged".to_string(), |n| format!("{n} texts"));
        let used = v
            .used
            .map_or_else(String::new, |n| format!(", {n} used by an index"));
        outln!(
            "  {}  {model}: {entries}{used}, {}, {} index{}{}",
            safe(&name),
            mb(v.bytes),
            v.indexes,
            if v.indexes == 1 { "" } else { "es" },
            if v.in_use {
                ", in use by a running seamscope"
            } else {
                ""
            }
        )?;
        if let Some(p) = v.pruned {
            let verb = match report.prune {
                Some(PruneMode::DryRun) => "would remove",
                _ => "removed",
            };
            outln!(
                "    prune: {verb} {} texts, kept {} ({} -> {})",
                p.removed,
                p.kept,
                mb(p.bytes_before),
                mb(p.bytes_after)
            )?;
        } else if report.prune.is_some()
            && let Some(why) = &v.kept_because
        {
            outln!("    prune: kept whole: {}", safe(why))?;
        }
    }
    outln!(
        "indexes         {} folder{}, {}",
        report.indexes,
        if report.indexes == 1 { "" } else { "s" },
        mb(report.index_bytes)
    )?;
    outln!(
        "stored layouts  {} document{}, {}",
        report.layouts,
        if report.layouts == 1 { "" } else { "s" },
        mb(report.layout_bytes)
    )?;
    if let Some(why) = &report.prune_refused {
        outln!("prune: nothing removed: {}", safe(why))?;
    }
    Ok(())
}
