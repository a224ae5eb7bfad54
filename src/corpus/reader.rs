//! A corpus folder read a few files at a time: the walk first (every file found, those left out
//! named with their reason), then the files read in path order on demand, so the screen can
//! draw the first document while the rest are still being extracted.

use std::path::{Path, PathBuf};

use super::{
    Corpus, CorpusError, DocId, Document, DocumentSource, LoadOptions, SkipReason, SkippedFile,
    dump, is_hidden, read_document, read_document_start, relative_path, walk_error,
};

/// The files of a corpus found, and those read so far.
#[derive(Debug)]
pub struct CorpusReader {
    root: PathBuf,
    options: LoadOptions,
    /// Every file found, by relative path (sorted), with its path on disk.
    found: Vec<(String, PathBuf)>,
    /// How many of `found` have been read.
    next: usize,
    documents: Vec<Document>,
    skipped: Vec<SkippedFile>,
}

impl CorpusReader {
    /// Find the files under `root` (or `root` itself when it is a file) without reading any;
    /// a dump that `options.source` names is read whole at once.
    pub fn open(root: &Path, options: &LoadOptions) -> Result<CorpusReader, CorpusError> {
        let whole = match &options.source {
            DocumentSource::Files => None,
            DocumentSource::Loader(file) => Some(dump::load_documents(file)?),
            DocumentSource::Chunks(file) => Some(dump::documents_from_cuts(file)?),
        };
        if let Some(corpus) = whole {
            return Ok(CorpusReader {
                root: corpus.root,
                options: options.clone(),
                found: Vec::new(),
                next: 0,
                documents: corpus.documents,
                skipped: corpus.skipped,
            });
        }
        let (found, skipped) = walk(root, options)?;
        Ok(CorpusReader {
            root: root.to_path_buf(),
            options: options.clone(),
            found,
            next: 0,
            documents: Vec::new(),
            skipped,
        })
    }

    /// Files found, read or not (a dump's documents count as read).
    pub fn files(&self) -> usize {
        self.found.len().max(self.documents.len())
    }

    /// Files not read yet.
    pub fn unread(&self) -> usize {
        self.found.len() - self.next
    }

    /// The documents read so far.
    pub fn documents(&self) -> &[Document] {
        &self.documents
    }

    /// Read the next file: a document, or a skipped file with its reason. `false` when every
    /// file has been read.
    pub fn read_next(&mut self) -> bool {
        let Some((rel, path)) = self.found.get(self.next) else {
            return false;
        };
        self.next += 1;
        match read_document(path, &self.options) {
            Ok((text, kind, source)) => self.documents.push(Document {
                id: DocId(self.documents.len() as u32),
                path: rel.clone(),
                text,
                kind,
                source,
            }),
            Err(reason) => self.skipped.push(SkippedFile {
                path: rel.clone(),
                reason,
            }),
        }
        true
    }

    /// The start of the next unread file, as a corpus of that one document, when the file is
    /// large enough that its whole text is slow to have ([`read_document_start`]): nothing is
    /// marked read, and the whole file is read later as any other.
    pub fn start_of_next(&self, budget: usize) -> Option<Corpus> {
        let (rel, path) = self.found.get(self.next)?;
        let (text, kind, source) = read_document_start(path, &self.options, budget)?;
        Some(Corpus {
            root: self.root.clone(),
            documents: vec![Document {
                id: DocId(self.documents.len() as u32),
                path: rel.clone(),
                text,
                kind,
                source,
            }],
            skipped: Vec::new(),
        })
    }

    /// Read files until `documents` documents are in, or every file has been read.
    pub fn read_until(&mut self, documents: usize) {
        while self.documents.len() < documents && self.read_next() {}
    }

    /// The documents read so far as a corpus (the skips found so far with them), for showing
    /// while the rest are read; `None` before the first document.
    pub fn partial(&self) -> Option<Corpus> {
        if self.documents.is_empty() {
            return None;
        }
        let mut skipped = self.skipped.clone();
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Some(Corpus {
            root: self.root.clone(),
            documents: self.documents.clone(),
            skipped,
        })
    }

    /// Read every file left, and the corpus: an error when no file made a document.
    pub fn finish(mut self) -> Result<Corpus, CorpusError> {
        while self.read_next() {}
        let mut skipped = self.skipped;
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        if self.documents.is_empty() {
            return Err(CorpusError::NoDocuments {
                path: self.root,
                skipped,
            });
        }
        Ok(Corpus {
            root: self.root,
            documents: self.documents,
            skipped,
        })
    }
}

/// The files under `root` (sorted by relative path), and those the walk already leaves out.
type Walked = (Vec<(String, PathBuf)>, Vec<SkippedFile>);

/// Walk `root`: every file it holds, or `root` itself when it is a file. Links are followed,
/// but one leading out of the corpus folder is skipped (and its folder not entered) unless the
/// user allows it; hidden files and folders are passed over; excluded names are skipped.
fn walk(root: &Path, options: &LoadOptions) -> Result<Walked, CorpusError> {
    let meta = std::fs::metadata(root).map_err(|error| CorpusError::Open {
        path: root.to_path_buf(),
        error,
    })?;
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    let mut skipped = Vec::new();
    if meta.is_file() {
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| root.display().to_string());
        found.push((name, root.to_path_buf()));
        return Ok((found, skipped));
    }
    let canonical_root = std::fs::canonicalize(root).map_err(|error| CorpusError::Open {
        path: root.to_path_buf(),
        error,
    })?;
    let mut outside = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            if e.depth() == 0 {
                return true;
            }
            if is_hidden(e.file_name()) {
                return false;
            }
            if e.path_is_symlink() && !options.follow_outside_symlinks {
                let target = std::fs::canonicalize(e.path());
                if let Ok(target) = target
                    && !target.starts_with(&canonical_root)
                {
                    outside.push(SkippedFile {
                        path: relative_path(root, e.path()),
                        reason: SkipReason::SymlinkOutside {
                            target: target.display().to_string(),
                        },
                    });
                    return false;
                }
            }
            true
        });
    for entry in walker {
        match entry {
            Ok(e) if e.file_type().is_file() => {
                let rel = relative_path(root, e.path());
                let name = e.file_name().to_string_lossy();
                if options.exclude_names.iter().any(|x| x == name.as_ref()) {
                    skipped.push(SkippedFile {
                        path: rel,
                        reason: SkipReason::Excluded,
                    });
                } else {
                    found.push((rel, e.path().to_path_buf()));
                }
            }
            Ok(_) => {}
            Err(err) => skipped.push(walk_error(root, err)?),
        }
    }
    skipped.extend(outside);
    found.sort();
    Ok((found, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults: 8 MiB files, the question set excluded, no extraction cache.
    fn options() -> LoadOptions {
        LoadOptions::default()
    }

    #[test]
    fn reads_a_file_at_a_time_and_finishes_as_load_does() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n\nfirst").unwrap();
        std::fs::write(dir.path().join("b.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
        std::fs::write(dir.path().join("c.txt"), "third").unwrap();
        std::fs::write(dir.path().join("questions.jsonl"), "{}").unwrap();
        let mut reader = CorpusReader::open(dir.path(), &options()).unwrap();
        assert_eq!(reader.files(), 3);
        assert!(reader.partial().is_none(), "nothing read yet");
        reader.read_until(1);
        assert_eq!(reader.unread(), 2);
        let first = reader.partial().unwrap();
        assert_eq!(first.documents.len(), 1);
        assert_eq!(first.documents[0].path, "a.md");
        // The walk's own skips are known before any file is read.
        assert_eq!(first.skipped.len(), 1);
        assert_eq!(first.skipped[0].path, "questions.jsonl");
        let whole = reader.finish().unwrap();
        let loaded = Corpus::load(dir.path(), &options()).unwrap();
        assert_eq!(whole.documents, loaded.documents);
        assert_eq!(whole.skipped, loaded.skipped);
        assert_eq!(
            whole
                .documents
                .iter()
                .map(|d| d.path.as_str())
                .collect::<Vec<_>>(),
            ["a.md", "c.txt"]
        );
        assert_eq!(
            whole.skipped.len(),
            2,
            "the binary file and the question set"
        );
    }

    #[test]
    fn a_long_file_has_a_start_that_ends_at_a_paragraph() {
        let dir = tempfile::tempdir().unwrap();
        let paragraph = "A sentence of the long report. ".repeat(40);
        let long: String = (0..200)
            .map(|i| format!("## Part {i}\n\n{paragraph}\n\n"))
            .collect();
        std::fs::write(dir.path().join("long.md"), &long).unwrap();
        std::fs::write(dir.path().join("short.md"), "# Short\n\nbody").unwrap();
        let reader = CorpusReader::open(dir.path(), &options()).unwrap();
        let start = reader
            .start_of_next(16 * 1024)
            .expect("the long file has a start");
        let doc = &start.documents[0];
        assert_eq!(doc.path, "long.md");
        assert!(
            doc.text.len() <= 16 * 1024 && doc.text.len() > 8 * 1024,
            "{}",
            doc.text.len()
        );
        assert!(
            long.starts_with(&doc.text),
            "the start is the file's first bytes"
        );
        assert!(
            long[doc.text.len()..].starts_with("\n\n"),
            "cut at a paragraph break"
        );
        assert_eq!(reader.unread(), 2, "nothing is marked read");
        let mut reader = reader;
        reader.read_until(1);
        assert!(
            reader.start_of_next(16 * 1024).is_none(),
            "a short file has no start of its own"
        );
    }

    #[test]
    fn a_folder_of_unusable_files_is_an_error_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("empty.txt"), "").unwrap();
        let err = CorpusReader::open(dir.path(), &options())
            .unwrap()
            .finish()
            .unwrap_err();
        assert!(
            matches!(err, CorpusError::NoDocuments { ref skipped, .. } if skipped.len() == 1),
            "{err}"
        );
    }
}
