//! `seamscope cache`: what the cache folder holds (vectors per model, index folders, stored
//! layouts), and `--prune` to drop the cached vectors no index uses.

use seamscope::index::usage::{CacheReport, PruneMode, survey};
use seamscope::text::safe;

use super::GlobalArgs;

/// Survey (and with `prune`, prune) the cache folder of the settings in force.
pub fn run(global: &GlobalArgs, prune: bool, dry_run: bool, json: bool) -> anyhow::Result<()> {
    let places = global.settings()?.places();
    let mode = prune.then_some(if dry_run {
        PruneMode::DryRun
    } else {
        PruneMode::Removed
    });
    let report = survey(&places.cache_dir, mode);
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print(&report)?;
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
