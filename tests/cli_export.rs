//! `seamscope export` as a user runs it: a bundle whose files match its manifest, whose records
//! match `seamscope chunks`, and whose vectors are one normalised row per chunk and seam.

mod common;

use common::seamscope;

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..50)
        .map(|i| format!("Step {i}. Drain traffic from the primary, check replica lag, then promote the replica. "))
        .collect();
    std::fs::write(dir.path().join("runbook.md"), text).unwrap();
    dir
}

/// Rows, columns and floats of a float32 .npy file.
fn read_npy(bytes: &[u8]) -> (usize, usize, Vec<f32>) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    assert!(header.contains("'descr': '<f4'"), "{header}");
    let shape = header.split("'shape': (").nth(1).unwrap();
    let shape = shape.split(')').next().unwrap();
    let dims: Vec<usize> = shape
        .split(',')
        .filter_map(|d| d.trim().parse().ok())
        .collect();
    let floats = bytes[10 + len..]
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    (dims[0], dims[1], floats)
}

#[test]
fn export_writes_a_bundle_that_matches_its_manifest_and_the_layout() {
    let cache = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let out_dir = tempfile::tempdir().unwrap();
    let bundle = out_dir.path().join("bundle");
    let report = common::json_of(
        seamscope(cache.path())
            .args([
                "export",
                "--chunk-tokens",
                "200",
                "--k",
                "50",
                "--m",
                "2",
                "--json",
            ])
            .arg(corpus.path())
            .arg("--out")
            .arg(&bundle),
    );
    assert_eq!(report["settings"]["m"], 2);
    assert_eq!(report["settings"]["k"], 50);
    assert_eq!(report["settings"]["chunk_tokens"], 200);
    assert_eq!(report["settings"]["chunker_kind"], "fixed");
    assert_eq!(report["settings"]["m_source"], "flag");
    assert!(report["settings"]["calibration"].is_null());

    // The manifest names every file with its true size and hash.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bundle.join("manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_array().unwrap();
    assert_eq!(files.len(), 6);
    for f in files {
        let bytes = std::fs::read(bundle.join(f["name"].as_str().unwrap())).unwrap();
        assert_eq!(f["bytes"], bytes.len() as u64);
        assert_eq!(f["blake3"], blake3::hash(&bytes).to_hex().to_string());
    }

    // The records are the layout `seamscope chunks` prints, with their text.
    let chunks_out = seamscope(cache.path())
        .args(["chunks", "--chunk-tokens", "200", "--k", "50", "--json"])
        .arg(corpus.path())
        .output()
        .unwrap();
    let layout: serde_json::Value = serde_json::from_slice(&chunks_out.stdout).unwrap();
    let text = std::fs::read_to_string(corpus.path().join("runbook.md")).unwrap();
    let chunk_lines = std::fs::read_to_string(bundle.join("chunks.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = chunk_lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), layout["chunks"].as_array().unwrap().len());
    for r in &records {
        let (start, end) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        assert_eq!(r["text"], text[start..end], "a chunk's text is its span");
    }
    let seam_lines = std::fs::read_to_string(bundle.join("seams.jsonl")).unwrap();
    let seams: Vec<serde_json::Value> = seam_lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(seams.len(), records.len() - 1);
    for s in &seams {
        assert_eq!(
            s["right"].as_u64().unwrap(),
            s["left"].as_u64().unwrap() + 1
        );
    }

    // One normalised vector per record, in record order.
    for (name, rows) in [
        ("chunk_vectors.npy", records.len()),
        ("seam_vectors.npy", seams.len()),
    ] {
        let (n, dim, floats) = read_npy(&std::fs::read(bundle.join(name)).unwrap());
        assert_eq!((n, dim), (rows, 384), "{name}");
        for row in floats.chunks(dim) {
            let norm: f32 = row.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{name}: a row of norm {norm}");
        }
    }

    // `import` opens it again: every file checked, the layout cut again the same, the settings
    // it was exported with.
    let summary = common::json_of(
        seamscope(cache.path())
            .args(["import", "--json"])
            .arg(&bundle),
    );
    assert_eq!(summary["chunks"], records.len());
    assert_eq!(summary["seams"], seams.len());
    assert_eq!(summary["documents"], 1);
    assert_eq!(summary["settings"]["m"], 2);
    // A damaged bundle: exit 1, the file named.
    let chunks_file = bundle.join("chunks.jsonl");
    let original = std::fs::read(&chunks_file).unwrap();
    std::fs::write(&chunks_file, &original[..original.len() - 2]).unwrap();
    let damaged = seamscope(cache.path())
        .arg("import")
        .arg(&bundle)
        .output()
        .unwrap();
    assert_eq!(damaged.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&damaged.stderr);
    assert!(stderr.contains("chunks.jsonl is damaged"), "{stderr}");
    std::fs::write(&chunks_file, &original).unwrap();

    // A bundle never mixes with other files: a second export into the same folder is refused.
    let again = seamscope(cache.path())
        .args(["export", "--chunk-tokens", "200", "--k", "50"])
        .arg(corpus.path())
        .arg("--out")
        .arg(&bundle)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("is not empty"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn export_takes_m_from_a_calibration_and_records_where_it_came_from() {
    // The cache the tests of the unedited operations corpus share (see `operations_cache`);
    // its calibration is the one tests/cli_calibrate.rs runs first.
    let cache = common::operations_cache();
    let corpus = common::operations_corpus();
    let work = tempfile::tempdir().unwrap();
    let layout = ["--chunk-tokens", "120", "--k", "30"];
    let calibration = common::json_of(
        seamscope(&cache)
            .arg("calibrate")
            .args(layout)
            .args([
                "--samples",
                "15",
                "--passages",
                "40",
                "--budget",
                "3",
                "--json",
            ])
            .arg(corpus.path()),
    );
    let recommended = calibration["verdict"]["recommended_m"]
        .as_u64()
        .expect("the calibration recommends an m");
    let report_file = work.path().join("calibration.json");
    std::fs::write(&report_file, calibration.to_string()).unwrap();

    let export = |out: &str, extra: &[&str]| {
        let mut cmd = seamscope(&cache);
        cmd.arg("export")
            .args(["--chunk-tokens", "120"])
            .args(if extra.contains(&"--k") {
                &[][..]
            } else {
                &["--k", "30"][..]
            })
            .args(extra)
            .arg("--calibration")
            .arg(&report_file)
            .arg(corpus.path())
            .arg("--out")
            .arg(work.path().join(out));
        cmd
    };
    // m and the budget from the report; the report named by its hash.
    let written = common::json_of(&mut export("bundle", &["--json"]));
    let s = &written["settings"];
    assert_eq!(s["m"], recommended);
    assert_eq!(
        s["budget"], 3,
        "the budget the failure rates were measured at"
    );
    assert_eq!(s["m_source"], "calibration");
    let bytes = std::fs::read(&report_file).unwrap();
    assert_eq!(
        s["calibration"]["blake3"],
        blake3::hash(&bytes).to_hex().to_string()
    );
    assert_eq!(s["calibration"]["recommended_m"], recommended);
    assert_eq!(s["calibration"]["k"], 30);
    let on_disk: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.path().join("bundle/settings.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk["calibration"], s["calibration"]);
    // import says where m came from.
    let import = seamscope(&cache)
        .arg("import")
        .arg(work.path().join("bundle"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&import.stdout);
    assert!(
        text.contains(&format!("m {recommended} from the calibration"))
            && text.contains("at budget 3"),
        "{text}"
    );

    // --m wins, and says so.
    let flagged = common::json_of(&mut export("flagged", &["--m", "7", "--json"]));
    assert_eq!(flagged["settings"]["m"], 7);
    assert_eq!(flagged["settings"]["m_source"], "flag");

    // A calibration of another layout, or at another budget, does not carry over.
    let other_k = export("other-k", &["--k", "40"]).output().unwrap();
    assert_eq!(other_k.status.code(), Some(1));
    let err = String::from_utf8_lossy(&other_k.stderr);
    assert!(
        err.contains("measured with k 30 (this export: 40)"),
        "{err}"
    );
    let other_budget = export("other-budget", &["--budget", "6"]).output().unwrap();
    let err = String::from_utf8_lossy(&other_budget.stderr);
    assert!(err.contains("budget 3 (this export: 6"), "{err}");
    assert!(!work.path().join("other-k").exists(), "nothing written");

    // A calibration measured under another embedder is refused, naming both.
    let embedder = calibration["setup"]["embedder"]
        .as_str()
        .expect("the report names its embedder")
        .to_string();
    let mut foreign = calibration.clone();
    foreign["setup"]["embedder"] = serde_json::json!("fastembed:bge-small-en-v1.5@0000/w512");
    std::fs::write(&report_file, foreign.to_string()).unwrap();
    let other_model = export("other-model", &[]).output().unwrap();
    assert_eq!(other_model.status.code(), Some(1));
    let err = String::from_utf8_lossy(&other_model.stderr);
    assert!(
        err.contains("embedder fastembed:bge-small-en-v1.5@0000/w512 (this export: ")
            && err.contains(&embedder),
        "{err}"
    );
    assert!(!work.path().join("other-model").exists(), "nothing written");

    // Not a report at all.
    std::fs::write(&report_file, b"{\"rows\": []}").unwrap();
    let bad = export("bad", &[]).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("is not a calibration report"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
