//! The manifest that ties an index folder to its corpus, settings and model, and lets a damaged
//! or mismatched index be detected before it is trusted.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Version of the on-disk layout; bump when it changes.
pub const FORMAT_VERSION: u32 = 2;

/// Size and hash of one file in the index folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Size in bytes.
    pub bytes: u64,
    /// blake3 of the contents.
    pub blake3: String,
}

/// What an index folder was built from, and the files it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// On-disk layout version.
    pub format_version: u32,
    /// The corpus fingerprint (paths and texts).
    pub corpus_fingerprint: String,
    /// The chunker's name, e.g. `fixed-1024`.
    pub chunker: String,
    /// Seam half-width.
    pub k: usize,
    /// Model identity (name, weights hash, window).
    pub model: String,
    /// Vector length.
    pub dim: usize,
    /// Number of chunks.
    pub chunks: usize,
    /// Number of seams.
    pub seams: usize,
    /// The blake3 of each document's text, by path: what a later build compares to say which
    /// files changed.
    #[serde(default)]
    pub documents: BTreeMap<String, String>,
    /// Every file in the folder (relative path), with size and hash.
    pub files: BTreeMap<String, FileEntry>,
}

impl Manifest {
    /// Record every file under `dir` (except the manifest and lock files).
    pub fn record_files(&mut self, dir: &Path) -> std::io::Result<()> {
        self.files = list_files(dir)?
            .into_iter()
            .map(|rel| {
                let bytes =
                    crate::files::read_regular(&dir.join(&rel), crate::files::INDEX_FILE_LIMIT)
                        .map_err(std::io::Error::other)?;
                Ok((
                    rel,
                    FileEntry {
                        bytes: bytes.len() as u64,
                        blake3: blake3::hash(&bytes).to_hex().to_string(),
                    },
                ))
            })
            .collect::<std::io::Result<_>>()?;
        Ok(())
    }

    /// Check that every recorded file is present, whole and unchanged. Returns what is wrong.
    pub fn verify(&self, dir: &Path) -> Result<(), String> {
        for (rel, entry) in &self.files {
            let path = dir.join(rel);
            // Never more than it should hold, never a link, FIFO or device (a FIFO here once
            // hung every open of the index).
            let bytes = crate::files::read_regular(&path, entry.bytes).map_err(|e| match e {
                crate::files::ReadFileError::TooLarge { bytes, .. } => format!(
                    "{rel} is {bytes} bytes, the manifest recorded {}",
                    entry.bytes
                ),
                other => format!("{rel}: {other}"),
            })?;
            if bytes.len() as u64 != entry.bytes {
                return Err(format!(
                    "{rel} is {} bytes, the manifest recorded {}",
                    bytes.len(),
                    entry.bytes
                ));
            }
            if blake3::hash(&bytes).to_hex().as_str() != entry.blake3 {
                return Err(format!(
                    "{rel} changed since it was written (hash mismatch)"
                ));
            }
        }
        Ok(())
    }

    /// Total bytes of the files whose path starts with `prefix`.
    pub fn bytes_under(&self, prefix: &str) -> u64 {
        self.files
            .iter()
            .filter(|(p, _)| p.starts_with(prefix))
            .map(|(_, e)| e.bytes)
            .sum()
    }

    /// Write the manifest as `manifest.json` in `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(dir.join("manifest.json"), json)
    }

    /// Read `manifest.json` from `dir`.
    pub fn read(dir: &Path) -> Result<Manifest, String> {
        let bytes =
            crate::files::read_regular(&dir.join("manifest.json"), crate::files::JSON_LIMIT)
                .map_err(|e| format!("manifest.json: {e}"))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("manifest.json is damaged: {e}"))
    }
}

fn list_files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(std::io::Error::other)?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map_err(std::io::Error::other)?
            .to_string_lossy()
            .replace('\\', "/");
        let name = entry.file_name().to_string_lossy();
        if rel == "manifest.json" || name.ends_with(".lock") {
            continue;
        }
        out.push(rel);
    }
    Ok(out)
}
