//! `seamscope bench draw`: the time to draw one frame of each screen, on a real corpus with a
//! real question, at 200 x 60 (the screens `seamscope screenshots` pictures).

use std::path::Path;

use serde::Serialize;

use super::Spread;
use crate::cli::GlobalArgs;

/// Frames drawn per screen.
const FRAMES: usize = 200;

/// One screen's frame times, in milliseconds.
#[derive(Debug, Serialize)]
struct ScreenTimes {
    screen: String,
    frames: usize,
    ms: Spread,
}

/// Draw every screen `FRAMES` times and print the spread of frame times.
pub fn run(global: &GlobalArgs, corpus: &Path, json: bool) -> anyhow::Result<()> {
    let settings = global.settings()?;
    let out = tempfile::tempdir()?;
    let shots = crate::tui::screenshots::Shots {
        width: 200,
        height: 60,
        out: out.path().to_path_buf(),
        question_id: "A01".into(),
        time_frames: FRAMES,
        map_per_band: None,
        traces: None,
    };
    let options = crate::tui::Options {
        corpus: corpus.to_path_buf(),
        settings,
        theme: None,
        view: None,
        bundle: false,
        traces: None,
    };
    let times: Vec<ScreenTimes> = crate::tui::screenshots::run(options, &shots)?
        .into_iter()
        .map(|shot| {
            let ms: Vec<f64> = shot.frames.iter().map(|d| d.as_secs_f64() * 1e3).collect();
            ScreenTimes {
                screen: shot
                    .path
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
                frames: ms.len(),
                ms: Spread::of(&ms),
            }
        })
        .collect();
    if json {
        outln!("{}", serde_json::to_string_pretty(&times)?)?;
        return Ok(());
    }
    outln!(
        "draw time per frame at 200 x 60 on {} ({FRAMES} frames per screen, {} build)",
        corpus.display(),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    )?;
    outln!(
        "  {:<34} {:>8} {:>8} {:>8}",
        "screen",
        "min ms",
        "median",
        "max"
    )?;
    for t in &times {
        outln!(
            "  {:<34} {:>8.3} {:>8.3} {:>8.3}",
            t.screen,
            t.ms.min,
            t.ms.median,
            t.ms.max
        )?;
    }
    Ok(())
}
