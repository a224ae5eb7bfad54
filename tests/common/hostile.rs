//! The hostile fixtures (tests/fixtures/hostile): bundles assembled from `bundle-base` with one
//! variant's files over it.

use std::path::Path;

/// Where the hostile fixtures are.
pub const FIXTURES: &str = "tests/fixtures/hostile";

/// The bundle files, in the manifest's order.
pub const BUNDLE_FILES: [&str; 6] = [
    "settings.json",
    "documents.jsonl",
    "chunks.jsonl",
    "seams.jsonl",
    "chunk_vectors.npy",
    "seam_vectors.npy",
];

/// A bundle in a new folder: `bundle-base` with the files of `variant` over it, and a manifest
/// whose sizes and hashes match, so the reader gets past its checks to the hostile part (or field).
pub fn bundle(variant: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for name in BUNDLE_FILES {
        let own = Path::new(FIXTURES).join(variant).join(name);
        let from = if own.exists() {
            own
        } else {
            Path::new(FIXTURES).join("bundle-base").join(name)
        };
        let bytes = std::fs::read(&from).unwrap();
        files.push(serde_json::json!({
            "name": name,
            "bytes": bytes.len(),
            "blake3": blake3::hash(&bytes).to_hex().to_string(),
        }));
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let manifest = serde_json::json!({"bundle_version": 2, "files": files});
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
    dir
}
