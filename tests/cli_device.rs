//! Where the model runs, on a machine the test does not know: `auto` always ends on a device with
//! a reason for the CPU, `cuda` without what it needs is an error naming what is missing, and
//! `setup --gpu --dry-run` lists the pinned wheels and fetches nothing.

mod common;

use common::seamscope;

/// The installed model and CPU runtime, named as the user's own, with an empty data folder: so
/// no GPU runtime is installed there whatever this machine holds.
fn with_own_runtime(cmd: &mut assert_cmd::Command, data: &std::path::Path) {
    let cache = tempfile::tempdir().unwrap();
    let places = seamscope::places::Places::of(&common::settings(cache.path()));
    cmd.env("SEAMSCOPE_MODEL_DIR", &places.model_dir)
        .env("SEAMSCOPE_ORT_LIB", &places.runtime_path)
        .arg("--data-dir")
        .arg(data);
}

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = "The replica is promoted only after its lag is under five seconds. ".repeat(20);
    std::fs::write(dir.path().join("runbook.md"), text).unwrap();
    dir
}

#[test]
fn cuda_without_what_it_needs_is_an_error_that_says_what() {
    let (cache, data, corpus) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        corpus(),
    );
    let mut cmd = seamscope(cache.path());
    with_own_runtime(&mut cmd, data.path());
    // The CPU runtime has no CUDA provider: on a machine without a driver the driver is named,
    // with one the provider's failure is.
    let out = cmd
        .args(["--device", "cuda", "index"])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("device cuda"), "{err}");
    assert!(
        err.contains("NVIDIA driver") || err.contains("CUDA provider"),
        "{err}"
    );
    assert!(err.contains("--device cpu or auto"), "{err}");

    // With the default runtime place empty, the GPU runtime is what is missing.
    let out = seamscope(cache.path())
        .env_remove("SEAMSCOPE_ORT_LIB")
        .args(["--device", "cuda", "--runtime"])
        .arg(data.path().join("no-such-runtime.so"))
        .args(["index"])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn auto_falls_back_to_the_cpu_with_one_line_saying_why() {
    let (cache, data, corpus) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        corpus(),
    );
    let mut cmd = seamscope(cache.path());
    with_own_runtime(&mut cmd, data.path());
    let out = cmd
        .args(["--device", "auto", "index", "--json"])
        .arg(corpus.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["device"]["requested"], "auto");
    assert_eq!(v["device"]["used"], "cpu");
    let note = v["device"]["note"].as_str().unwrap();
    assert!(
        note.contains("driver") || note.contains("CUDA provider"),
        "{note}"
    );
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("device cpu (auto:"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");

    // Asked for the CPU, the CPU says nothing.
    let mut cmd = seamscope(cache.path());
    with_own_runtime(&mut cmd, data.path());
    let out = cmd
        .args(["--device", "cpu", "index", "--json"])
        .arg(corpus.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("device"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["device"]["used"], "cpu");
    assert!(v["device"]["note"].is_null());
}

#[test]
fn setup_gpu_dry_run_lists_pinned_wheels_and_fetches_nothing() {
    let (cache, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let v = common::json_of(
        seamscope(cache.path())
            .arg("--data-dir")
            .arg(data.path())
            .args(["setup", "--gpu", "--dry-run", "--json"]),
    );
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["cpu"]["model_installed"], false);
    let gpu = &v["gpu"];
    assert_eq!(gpu["installed"], false);
    assert!(gpu["target_dir"].as_str().unwrap().ends_with("runtime-gpu"));
    let wheels = gpu["wheels"].as_array().unwrap();
    assert_eq!(wheels[0]["package"], "onnxruntime-gpu");
    assert_eq!(wheels[0]["version"], "1.31.1");
    let packages: Vec<&str> = wheels
        .iter()
        .map(|w| w["package"].as_str().unwrap())
        .collect();
    for needed in [
        "nvidia-cuda-runtime",
        "nvidia-cublas",
        "nvidia-curand",
        "nvidia-cudnn-cu13",
    ] {
        assert!(packages.contains(&needed), "{packages:?}");
    }
    assert!(
        wheels
            .iter()
            .all(|w| w["sha256"].as_str().unwrap().len() == 64)
    );
    assert_eq!(
        std::fs::read_dir(data.path()).unwrap().count(),
        0,
        "nothing was written"
    );

    let text = seamscope(cache.path())
        .arg("--data-dir")
        .arg(data.path())
        .args(["setup", "--gpu", "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("nothing is fetched")
            && text.contains("e26c475fe361b2015f45b4b824bd13f0bb20204e59b62814e6f0acd5f3d491a6"),
        "{text}"
    );
}
