//! `seamscope setup`: install the model and runtime, idempotently; with `--gpu`, the GPU runtime
//! too; with `--dry-run`, only say what would be fetched.

use seamscope::embed::install;
use seamscope::embed::install_gpu::{self, GpuPlan};
use seamscope::embed::install_pdfium as pdf_install;

use super::GlobalArgs;

/// Run setup and report where things are.
pub fn run(global: &GlobalArgs, gpu: bool, dry_run: bool, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let places = seamscope::places::Places::of(&settings);
    if dry_run {
        return print_plan(&places, gpu, json);
    }
    let mut log = |line: &str| {
        if !json {
            errln!("{line}");
        }
    };
    let report = install::install(&places.data_dir, &mut log)?;
    let pdfium = pdf_install::install_pdfium(&places.data_dir, &mut log)?;
    let gpu_plan = if gpu {
        Some(install_gpu::install_gpu(&places.data_dir, &mut log)?)
    } else {
        None
    };
    if json {
        let mut v = serde_json::to_value(&report)?;
        v["pdfium"] = serde_json::to_value(&pdfium)?;
        if let Some(plan) = &gpu_plan {
            v["gpu"] = serde_json::to_value(plan)?;
        }
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        outln!("model:   {}", report.model_dir.display())?;
        outln!("runtime: {}", report.runtime_path.display())?;
        outln!("pdfium:  {}", pdfium.path.display())?;
        if let Some(plan) = &gpu_plan {
            outln!(
                "gpu:     {} (use --device cuda, or auto)",
                plan.runtime_path.display()
            )?;
        }
        for note in report.notes.iter().chain(&pdfium.notes) {
            outln!("note:    {note}")?;
        }
    }
    Ok(())
}

/// What setup would fetch: the CPU model and runtime when missing, and the GPU plan with `gpu`.
fn print_plan(places: &seamscope::places::Places, gpu: bool, json: bool) -> anyhow::Result<()> {
    let cpu = serde_json::json!({
        "model_dir": places.model_dir,
        "model_installed": install::model_installed(&places.model_dir),
        "runtime_path": places.runtime_path,
        "runtime_installed": install::runtime_installed(&places.runtime_path),
    });
    let pdfium_at = seamscope::extract::pdfium::pdfium_path(&places.data_dir);
    let pdfium = serde_json::json!({
        "path": pdfium_at,
        "package": format!("pypdfium2 {}", pdf_install::PYPDFIUM2_VERSION),
        "build": seamscope::extract::pdfium::PDFIUM_BUILD,
        "installed": seamscope::extract::pdfium::installed(&pdfium_at),
    });
    let plan = gpu.then(|| install_gpu::gpu_plan(&places.data_dir));
    if json {
        let mut v = serde_json::json!({ "dry_run": true, "cpu": cpu, "pdfium": pdfium });
        if let Some(plan) = &plan {
            v["gpu"] = serde_json::to_value(plan)?;
        }
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    let state = |installed: bool| {
        if installed {
            "installed"
        } else {
            "would be fetched"
        }
    };
    outln!("dry run: nothing is fetched")?;
    outln!(
        "model    {} ({})",
        places.model_dir.display(),
        state(install::model_installed(&places.model_dir))
    )?;
    outln!(
        "runtime  {} ({})",
        places.runtime_path.display(),
        state(install::runtime_installed(&places.runtime_path))
    )?;
    outln!(
        "pdfium   {} (pypdfium2 {}, {})",
        pdfium_at.display(),
        pdf_install::PYPDFIUM2_VERSION,
        state(seamscope::extract::pdfium::installed(&pdfium_at))
    )?;
    if let Some(plan) = &plan {
        print_gpu_plan(plan)?;
    }
    Ok(())
}

fn print_gpu_plan(plan: &GpuPlan) -> Result<(), crate::cli::out::StdoutError> {
    outln!(
        "gpu      {} ({})",
        plan.runtime_path.display(),
        if plan.installed {
            "installed"
        } else {
            "would be installed"
        }
    )?;
    if let Some(why) = &plan.unsupported {
        outln!("         not on this platform: {why}")?;
        return Ok(());
    }
    for w in &plan.wheels {
        outln!(
            "  {:<20} {:<11} {:>7.1} MB  {}",
            w.package,
            w.version,
            w.bytes as f64 / 1e6,
            w.why
        )?;
        outln!("  {:<20} {} sha256 {}", "", w.wheel, w.sha256)?;
    }
    outln!(
        "  {:.2} GB fetched with `python3 -m pip download --no-deps`, each wheel checked by sha256; its shared libraries go into {}",
        plan.download_bytes as f64 / 1e9,
        plan.target_dir.display()
    )?;
    Ok(())
}
