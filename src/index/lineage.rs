//! What changed since the corpus was last indexed under the same setting, and what that cost.
//!
//! Each index folder records the hash of every document (in its manifest). A small pointer file
//! per corpus folder and setting names the folder built last; a build compares the documents with
//! that folder's, so a report can say which files were added, modified or removed, and which
//! files' texts had to be embedded (the vector cache serves every unchanged chunk and seam). The
//! superseded folder is removed once its successor is in place, so the cache holds one index per
//! corpus and setting rather than one per edit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::manifest::{FORMAT_VERSION, Manifest};
use crate::corpus::{Corpus, DocId};
use crate::embed::cache::{VectorCache, text_key};
use crate::layout::Layout;

/// The hash of each document's text, by path: what a manifest records to tell edits apart.
pub fn document_hashes(corpus: &Corpus) -> BTreeMap<String, String> {
    corpus
        .documents
        .iter()
        .map(|d| {
            let hash = blake3::hash(d.text.as_bytes()).to_hex();
            (d.path.clone(), hash[..32].to_string())
        })
        .collect()
}

/// Files that differ from the previous index of this corpus folder under this setting.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CorpusChanges {
    /// The index folder compared with.
    pub previous_index: String,
    /// Files new since then.
    pub added: Vec<String>,
    /// Files whose text changed.
    pub modified: Vec<String>,
    /// Files gone since then.
    pub removed: Vec<String>,
    /// Files with the same text as then.
    pub unchanged: usize,
}

impl CorpusChanges {
    /// Compare the documents now with those a previous manifest recorded.
    pub fn between(
        previous_index: String,
        before: &BTreeMap<String, String>,
        now: &BTreeMap<String, String>,
    ) -> CorpusChanges {
        let mut changes = CorpusChanges {
            previous_index,
            ..CorpusChanges::default()
        };
        for (path, hash) in now {
            match before.get(path) {
                None => changes.added.push(path.clone()),
                Some(old) if old != hash => changes.modified.push(path.clone()),
                Some(_) => changes.unchanged += 1,
            }
        }
        changes.removed = before
            .keys()
            .filter(|p| !now.contains_key(*p))
            .cloned()
            .collect();
        changes
    }

    /// Compare the documents now with those of the previous index in `dir` (its `manifest`),
    /// named by its folder.
    pub fn since(dir: &Path, manifest: &Manifest, now: &BTreeMap<String, String>) -> CorpusChanges {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        CorpusChanges::between(name.unwrap_or_default(), &manifest.documents, now)
    }
}

/// The texts of one file that the vector cache did not hold, so were embedded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileEmbedded {
    /// The file, relative to the corpus folder.
    pub path: String,
    /// Chunk texts embedded.
    pub chunks: usize,
    /// Seam texts embedded.
    pub seams: usize,
}

/// Per file, the chunk and seam search texts that `cache` does not hold (what a build is about
/// to embed), in document order; files with nothing to embed are left out.
pub fn files_to_embed(
    corpus: &Corpus,
    layout: &Layout,
    cache: &VectorCache,
    chunk_texts: &[&str],
    seam_texts: &[&str],
) -> Vec<FileEmbedded> {
    let mut per_doc: BTreeMap<DocId, (usize, usize)> = BTreeMap::new();
    let missing = |t: &&str| cache.get(&text_key(t)).is_none();
    for (chunk, text) in layout.chunks.iter().zip(chunk_texts) {
        if missing(text) {
            per_doc.entry(chunk.doc).or_default().0 += 1;
        }
    }
    for (seam, text) in layout.seams.iter().zip(seam_texts) {
        if missing(text) {
            per_doc.entry(seam.doc).or_default().1 += 1;
        }
    }
    per_doc
        .into_iter()
        .map(|(doc, (chunks, seams))| FileEmbedded {
            path: corpus.doc(doc).path.clone(),
            chunks,
            seams,
        })
        .collect()
}

/// The pointer file naming the index last built for this corpus folder, layout and model.
pub fn pointer_path(indexes: &Path, corpus: &Corpus, layout: &Layout, model: &str) -> PathBuf {
    let root = std::fs::canonicalize(&corpus.root).unwrap_or_else(|_| corpus.root.clone());
    let mut h = blake3::Hasher::new();
    for part in [
        FORMAT_VERSION.to_string(),
        root.to_string_lossy().into_owned(),
        layout.chunker.clone(),
        layout.k.to_string(),
        model.to_string(),
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    indexes
        .join("latest")
        .join(format!("{}.txt", &h.finalize().to_hex()[..24]))
}

/// The index folder the pointer names and its manifest, when both are there and readable.
pub fn previous(pointer: &Path, indexes: &Path) -> Option<(PathBuf, Manifest)> {
    let bytes = crate::files::read_regular(pointer, crate::files::POINTER_LIMIT).ok()?;
    let name = String::from_utf8(bytes).ok()?;
    let name = name.trim();
    // A folder name, never a path: a damaged pointer must not reach outside the cache.
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return None;
    }
    let dir = indexes.join(name);
    let manifest = Manifest::read(&dir).ok()?;
    Some((dir, manifest))
}

/// Point `pointer` at `dir` (written aside and renamed, so a reader sees the old or the new).
pub fn point_at(pointer: &Path, dir: &Path) -> std::io::Result<()> {
    let parent = pointer.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
    std::io::Write::write_all(&mut tmp, name.as_bytes())?;
    tmp.persist(pointer).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect()
    }

    #[test]
    fn changes_name_added_modified_and_removed_files() {
        let before = map(&[("a.md", "1"), ("b.md", "2"), ("c.md", "3")]);
        let now = map(&[("a.md", "1"), ("b.md", "9"), ("d.md", "4")]);
        let c = CorpusChanges::between("old".into(), &before, &now);
        assert_eq!(c.added, ["d.md"]);
        assert_eq!(c.modified, ["b.md"]);
        assert_eq!(c.removed, ["c.md"]);
        assert_eq!(c.unchanged, 1);
    }

    #[test]
    fn a_pointer_names_a_folder_and_nothing_outside_the_cache() {
        let cache = tempfile::tempdir().unwrap();
        let indexes = cache.path().join("indexes");
        let pointer = indexes.join("latest").join("p.txt");
        assert!(previous(&pointer, &indexes).is_none(), "no pointer yet");
        point_at(&pointer, &indexes.join("abc")).unwrap();
        assert_eq!(std::fs::read_to_string(&pointer).unwrap(), "abc");
        // The folder has no manifest: nothing to compare with.
        std::fs::create_dir_all(indexes.join("abc")).unwrap();
        assert!(previous(&pointer, &indexes).is_none());
        std::fs::write(&pointer, "../../etc").unwrap();
        assert!(previous(&pointer, &indexes).is_none());
    }
}
