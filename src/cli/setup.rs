//! `seamscope setup`: install the model and runtime, idempotently.

use seamscope::embed::install;

use super::GlobalArgs;

/// Run setup and report where things are.
pub fn run(global: &GlobalArgs, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let places = settings.places();
    let report = install::install(&places.data_dir, &mut |line| {
        if !json {
            eprintln!("{line}");
        }
    })?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("model:   {}", report.model_dir.display());
        println!("runtime: {}", report.runtime_path.display());
        for note in &report.notes {
            println!("note:    {note}");
        }
    }
    Ok(())
}
