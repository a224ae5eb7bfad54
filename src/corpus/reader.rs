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
    if let Some(kind) = crate::extract::special_kind(meta.file_type()) {
        return Err(CorpusError::Special {
            path: root.to_path_buf(),
            kind: special_words(kind, root),
        });
    }
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
            // A link to a device (`/dev/null`), a FIFO or a socket is that, wherever it leads.
            if e.path_is_symlink()
                && let Ok(target) = std::fs::metadata(e.path())
                && let Some(kind) = crate::extract::special_kind(target.file_type())
            {
                outside.push(SkippedFile {
                    path: relative_path(root, e.path()),
                    reason: SkipReason::Special {
                        kind: special_words(kind, e.path()),
                    },
                });
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
            // A FIFO, a socket or a device (or a link to one) is named, never opened.
            Ok(e) => {
                if let Some(kind) = crate::extract::special_kind(e.file_type()) {
                    skipped.push(SkippedFile {
                        path: relative_path(root, e.path()),
                        reason: SkipReason::Special {
                            kind: special_words(kind, e.path()),
                        },
                    });
                }
            }
            Err(err) => skipped.push(walk_error(root, err)?),
        }
    }
    skipped.extend(outside);
    found.sort();
    Ok((found, skipped))
}

/// `kind` as said of `path`: "a device", or "a link to a device" when `path` is a symbolic link.
fn special_words(kind: &str, path: &Path) -> String {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match (link, kind.strip_prefix("a ")) {
        (true, Some(noun)) => format!("a link to a {noun}"),
        (true, None) => format!("a link to {kind}"),
        (false, _) => kind.to_string(),
    }
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

    /// Make a FIFO at `path`.
    #[cfg(unix)]
    fn fifo(path: &Path) {
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn fifos_sockets_and_device_links_are_named_skips_and_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n\nfirst").unwrap();
        fifo(&dir.path().join("pipe.md"));
        let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock.md")).unwrap();
        std::os::unix::fs::symlink("/dev/null", dir.path().join("null.md")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("pipe.md"), dir.path().join("to-pipe.md"))
            .unwrap();
        // On another thread: opening the FIFO would block the test for ever.
        let root = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(Corpus::load(&root, &options()));
        });
        let corpus = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the corpus loads without blocking on the FIFO")
            .unwrap();
        assert_eq!(corpus.documents.len(), 1);
        let skipped: Vec<(&str, String)> = corpus
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.to_string()))
            .collect();
        let never = "not a regular file: never opened";
        assert_eq!(
            skipped,
            [
                ("null.md", format!("a link to a device, {never}")),
                ("pipe.md", format!("a FIFO, {never}")),
                ("sock.md", format!("a socket, {never}")),
                ("to-pipe.md", format!("a link to a FIFO, {never}")),
            ]
        );
        assert_eq!(
            crate::corpus::skip_summary(&corpus.skipped).as_deref(),
            Some("4 skipped: 4 special files (FIFOs, sockets, devices)")
        );
        // Named directly: a specific error, not "the folder holds no files".
        for (name, kind) in [
            ("pipe.md", "a FIFO"),
            ("sock.md", "a socket"),
            ("null.md", "a link to a device"),
        ] {
            let path = dir.path().join(name);
            let e = CorpusReader::open(&path, &options())
                .err()
                .map(|e| e.to_string());
            assert!(
                e.as_deref()
                    .is_some_and(|e| e.ends_with(&format!("it is {kind}, not a file or a folder"))),
                "{e:?}"
            );
        }
    }

    #[test]
    fn a_small_docx_whose_text_is_over_the_text_limit_is_a_named_skip() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n\nfirst").unwrap();
        let mut zip =
            zip::ZipWriter::new(std::fs::File::create(dir.path().join("big.docx")).unwrap());
        zip.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        let paragraph = "<w:p><w:r><w:t>The ledger closes after midnight.</w:t></w:r></w:p>";
        zip.write_all(b"<w:document><w:body>").unwrap();
        for _ in 0..40_000 {
            zip.write_all(paragraph.as_bytes()).unwrap();
        }
        zip.write_all(b"</w:body></w:document>").unwrap();
        zip.finish().unwrap();
        let options = LoadOptions {
            max_file_bytes: 1 << 20,
            ..options()
        };
        let corpus = Corpus::load(dir.path(), &options).unwrap();
        assert_eq!(corpus.documents.len(), 1);
        let said = corpus.skipped[0].reason.to_string();
        assert!(
            said.starts_with("its docx text unpacks to ")
                && said.ends_with(
                    " bytes, over the 1048576-byte limit a text file has (raise max_file_bytes to include it)"
                ),
            "{said}"
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
