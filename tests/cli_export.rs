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
