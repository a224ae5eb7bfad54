//! Documents and their loading: a folder (or one file) becomes a [`Corpus`], each file's text
//! made by the [`Extractor`](crate::extract::Extractor) of its format.
//!
//! Files that cannot be used are skipped with a [`SkipReason`] each, never silently.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::extract::{self, Format, TextSource};

pub mod dump;
mod reader;

pub use reader::CorpusReader;

/// Index of a document in a [`Corpus`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DocId(pub u32);

pub use crate::text::Span;

/// One document: a file's whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Position in the corpus.
    pub id: DocId,
    /// Path relative to the corpus root, with `/` separators (the file name when one file was given).
    pub path: String,
    /// The file's text, exactly as stored (CRLF kept), so byte offsets match the file.
    pub text: String,
    /// What kind of text this is, for highlighting and structure.
    pub kind: DocKind,
    /// Which extractor made the text, and its page map for paged formats.
    pub source: TextSource,
}

impl Document {
    /// The text of a span of this document.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start..span.end]
    }
}

pub use crate::extract::{DocKind, SkipReason, decode_text};

/// A file that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    /// Path relative to the corpus root.
    pub path: String,
    /// Why it was skipped.
    #[serde(flatten)]
    pub reason: SkipReason,
}

impl SkipReason {
    /// The group a skip is counted in by [`skip_summary`], as a noun phrase for `n` files
    /// ("2 PDFs without a text layer (scanned)").
    fn group(&self, n: usize) -> String {
        let files = if n == 1 { "file" } else { "files" };
        match self {
            SkipReason::Binary => format!("binary {files}"),
            SkipReason::TooLarge { limit, .. } => {
                format!("{files} over the {limit}-byte size limit")
            }
            SkipReason::TextTooLarge { format, limit, .. } => format!(
                "{} whose text is over the {limit}-byte size limit",
                format_noun(format, n)
            ),
            SkipReason::InvalidUtf8 { .. } => format!("{files} not in UTF-8"),
            SkipReason::Empty => format!("empty {files} (no text)"),
            SkipReason::Unreadable { .. } => format!("unreadable {files}"),
            SkipReason::Excluded => "excluded by name".to_string(),
            SkipReason::SymlinkLoop => {
                format!("symbolic link loop{}", if n == 1 { "" } else { "s" })
            }
            SkipReason::SymlinkOutside { .. } => format!(
                "symbolic link{} leading outside the folder",
                if n == 1 { "" } else { "s" }
            ),
            SkipReason::UnreadableFolder { .. } => {
                format!("unreadable folder{}", if n == 1 { "" } else { "s" })
            }
            SkipReason::UnsupportedFormat { format } => {
                format!("{} this build cannot read", format_noun(format, n))
            }
            SkipReason::Encrypted { format } => format!("encrypted {}", format_noun(format, n)),
            SkipReason::NoTextLayer { .. } => {
                format!("{} without a text layer (scanned)", format_noun("pdf", n))
            }
            SkipReason::Damaged { format, .. } => {
                format!("damaged or misnamed {}", format_noun(format, n))
            }
            SkipReason::EngineMissing { format, .. } => {
                format!(
                    "{} with no {format} engine installed",
                    format_noun(format, n)
                )
            }
            SkipReason::Special { .. } => {
                format!("special {files} (FIFOs, sockets, devices)")
            }
        }
    }
}

/// `n` files of a format as a reader says it: "1 PDF", "2 PDFs", "3 DOCX files".
fn format_noun(format: &str, n: usize) -> String {
    let upper = format.to_ascii_uppercase();
    match (upper.as_str(), n) {
        ("PDF", 1) => "PDF".into(),
        ("PDF", _) => "PDFs".into(),
        (_, 1) => format!("{upper} file"),
        _ => format!("{upper} files"),
    }
}

/// The skipped files in one line, grouped by reason, largest group first:
/// `3 skipped: 2 PDFs without a text layer (scanned), 1 encrypted PDF`; `None` when nothing
/// was skipped. Files excluded by name (the corpus' own question set) are not counted: they
/// were never meant to be documents (`--json` still lists them, with every other skip).
/// Every command's summary and the screen's header show it.
pub fn skip_summary(skipped: &[SkippedFile]) -> Option<String> {
    // (group key, count, a reason standing for the group)
    let mut groups: Vec<(String, usize, &SkipReason)> = Vec::new();
    let counted: Vec<&SkippedFile> = skipped
        .iter()
        .filter(|s| s.reason != SkipReason::Excluded)
        .collect();
    for s in &counted {
        let key = s.reason.group(1);
        match groups.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, n, _)) => *n += 1,
            None => groups.push((key, 1, &s.reason)),
        }
    }
    if groups.is_empty() {
        return None;
    }
    // Stable: equal counts keep the order the files came in (path order).
    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
    let parts: Vec<String> = groups
        .iter()
        .map(|(_, n, reason)| format!("{n} {}", reason.group(*n)))
        .collect();
    Some(format!("{} skipped: {}", counted.len(), parts.join(", ")))
}

/// Options for loading a corpus.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Files larger than this are skipped.
    pub max_file_bytes: u64,
    /// File names that are never documents (question sets kept beside a corpus).
    pub exclude_names: Vec<String>,
    /// Follow symbolic links whose target lies outside the corpus folder (off: they are skipped
    /// with a reason, so pointing seamscope at a folder never reads elsewhere unasked).
    pub follow_outside_symlinks: bool,
    /// Read every file as this format, whatever its extension (`--format`).
    pub forced_format: Option<Format>,
    /// Extension (lowercase, no dot) → format, over [`Format::from_extension`]'s defaults.
    pub extension_formats: Vec<(String, Format)>,
    /// The pdfium library PDFs are read with (`None`: the default places').
    pub pdfium_library: Option<PathBuf>,
    /// The extraction cache folder (`None`: every file is extracted on every load).
    pub extraction_cache: Option<PathBuf>,
    /// Where the documents come from: the files under the corpus path (the default), or a
    /// dump that the user's own loader or splitter wrote ([`dump`]).
    pub source: DocumentSource,
}

/// Where a corpus' documents come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum DocumentSource {
    /// The files under the corpus path, each through its format's extractor.
    #[default]
    Files,
    /// A LangChain or LlamaIndex loader's `Document`s (`--documents FILE`).
    Loader(PathBuf),
    /// Rebuilt from a split dump's own chunk text (`--cuts FILE` without a corpus).
    Chunks(PathBuf),
}

impl LoadOptions {
    /// The format a file is read as: the forced one, else its extension's.
    pub fn format_of(&self, path: &Path) -> Format {
        if let Some(forced) = self.forced_format {
            return forced;
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        self.extension_formats
            .iter()
            .find(|(e, _)| *e == ext)
            .map(|(_, f)| *f)
            .or_else(|| Format::from_extension(&ext))
            .unwrap_or(Format::Text)
    }

    /// The extractor files of `format` are read with under these options.
    pub fn extractor(&self, format: Format) -> Result<Box<dyn extract::Extractor>, SkipReason> {
        match (format, &self.pdfium_library) {
            (Format::Pdf, Some(library)) => Ok(Box::new(extract::pdf::Pdf::new(library.clone()))),
            _ => extract::extractor_for(format),
        }
    }
}

/// The name of a corpus' own question set, kept in its folder: never loaded as a document, and
/// what `eval`, `tune` and the screen's measurements read when no other file is named.
pub const QUESTIONS_FILE: &str = "questions.jsonl";

/// The question set of the corpus folder `corpus`.
pub fn questions_path(corpus: &Path) -> PathBuf {
    corpus.join(QUESTIONS_FILE)
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_file_bytes: 8 * 1024 * 1024,
            exclude_names: vec![QUESTIONS_FILE.to_string()],
            follow_outside_symlinks: false,
            forced_format: None,
            extension_formats: Vec::new(),
            pdfium_library: None,
            extraction_cache: None,
            source: DocumentSource::Files,
        }
    }
}

/// Errors that stop a corpus from loading at all.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The path given does not exist or cannot be read. (The I/O error is part of the message,
    /// not a `source`, so a report of the whole chain does not say it twice.)
    #[error("cannot open corpus at {}: {error}", crate::text::safe_name(&.path.display().to_string()))]
    Open {
        /// The path given.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A loader's or splitter's dump gave no documents (boxed: the error is rare and large).
    #[error(transparent)]
    Dump(Box<dump::DumpError>),
    /// The path given is a FIFO, a socket or a device (or a link to one): never opened.
    #[error("cannot read corpus at {}: it is {kind}, not a file or a folder", crate::text::safe_name(&.path.display().to_string()))]
    Special {
        /// The path given.
        path: PathBuf,
        /// What it is, in words ("a FIFO", "a link to a device").
        kind: String,
    },
    /// Nothing usable was found; every skipped file is listed with its reason.
    #[error("no usable documents in {}{}", crate::text::safe_name(&.path.display().to_string()), skip_list(.skipped))]
    NoDocuments {
        /// The path given.
        path: PathBuf,
        /// The files and folders left out, with reasons.
        skipped: Vec<SkippedFile>,
    },
}

impl From<dump::DumpError> for CorpusError {
    fn from(e: dump::DumpError) -> Self {
        CorpusError::Dump(Box::new(e))
    }
}

/// How many skipped files a message lists before it says how many more there are.
const SKIPS_LISTED: usize = 20;

/// The skip list as message lines: `: 2 skipped:` then one `  path: reason` per line.
fn skip_list(skipped: &[SkippedFile]) -> String {
    use std::fmt::Write;
    if skipped.is_empty() {
        // Hidden entries are left out without a skip record (a `.git` folder would flood the
        // list), so say so: a folder holding only `.notes.md` is not empty.
        return ": the folder holds no files to read (names starting with '.' are never read)"
            .into();
    }
    let mut out = match skip_summary(skipped) {
        Some(summary) if skipped.iter().all(|s| s.reason != SkipReason::Excluded) => {
            format!(": {summary}")
        }
        _ => format!(": {} skipped:", skipped.len()),
    };
    for s in skipped.iter().take(SKIPS_LISTED) {
        let path = if s.path.is_empty() { "." } else { &s.path };
        let _ = write!(out, "\n  {}: {}", crate::text::safe_name(path), s.reason);
    }
    if skipped.len() > SKIPS_LISTED {
        let _ = write!(out, "\n  ... and {} more", skipped.len() - SKIPS_LISTED);
    }
    out
}

/// A loaded corpus: documents in path order, and the files left out.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// The folder or file that was loaded.
    pub root: PathBuf,
    /// Documents sorted by path; `documents[i].id == DocId(i)`.
    pub documents: Vec<Document>,
    /// Files that were not loaded, with reasons.
    pub skipped: Vec<SkippedFile>,
}

impl Corpus {
    /// Load every usable file under `root` (or `root` itself when it is a file), or the
    /// documents of the dump `options.source` names. [`CorpusReader`] reads the same files a
    /// few at a time.
    pub fn load(root: &Path, options: &LoadOptions) -> Result<Corpus, CorpusError> {
        CorpusReader::open(root, options)?.finish()
    }

    /// A corpus built from in-memory texts, for tests and examples.
    pub fn from_texts<P: Into<String>, T: Into<String>>(
        texts: impl IntoIterator<Item = (P, T)>,
    ) -> Corpus {
        let documents = texts
            .into_iter()
            .enumerate()
            .map(|(i, (p, t))| {
                let path: String = p.into();
                let kind = DocKind::from_path(Path::new(&path));
                Document {
                    id: DocId(i as u32),
                    path,
                    text: t.into(),
                    kind,
                    source: TextSource::plain(),
                }
            })
            .collect();
        Corpus {
            root: PathBuf::from("."),
            documents,
            skipped: Vec::new(),
        }
    }

    /// The document with this id.
    pub fn doc(&self, id: DocId) -> &Document {
        &self.documents[id.0 as usize]
    }

    /// A hash of every document's path and text: equal fingerprints mean equal corpora.
    pub fn fingerprint(&self) -> String {
        let mut h = blake3::Hasher::new();
        for d in &self.documents {
            h.update(&(d.path.len() as u64).to_le_bytes());
            h.update(d.path.as_bytes());
            h.update(&(d.text.len() as u64).to_le_bytes());
            h.update(d.text.as_bytes());
        }
        h.finalize().to_hex()[..32].to_string()
    }

    /// Total bytes of text.
    pub fn total_bytes(&self) -> usize {
        self.documents.iter().map(|d| d.text.len()).sum()
    }
}

/// What a walk error means: the corpus folder itself unreadable stops the load with the reason;
/// anything below it is a skipped file or folder, named, with the reason.
pub(crate) fn walk_error(root: &Path, err: walkdir::Error) -> Result<SkippedFile, CorpusError> {
    let path = err.path().map(Path::to_path_buf);
    let is_dir = path.as_deref().is_some_and(Path::is_dir);
    let looped = err.loop_ancestor().is_some();
    let depth = err.depth();
    let message = err
        .io_error()
        .map(ToString::to_string)
        .unwrap_or_else(|| err.to_string());
    if depth == 0 && !looped {
        return Err(CorpusError::Open {
            path: root.to_path_buf(),
            error: err
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other(message)),
        });
    }
    let reason = if looped {
        SkipReason::SymlinkLoop
    } else if is_dir {
        SkipReason::UnreadableFolder { error: message }
    } else {
        SkipReason::Unreadable { error: message }
    };
    Ok(SkippedFile {
        path: path.map(|p| relative_path(root, &p)).unwrap_or_default(),
        reason,
    })
}

pub(crate) fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|s| s.starts_with('.'))
}

pub(crate) fn relative_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Read one file as a document through its format's extractor, or say why it cannot be one.
pub(crate) fn read_document(
    path: &Path,
    options: &LoadOptions,
) -> Result<(String, DocKind, TextSource), SkipReason> {
    let (format, extractor, bytes) = open_file(path, options)?;
    let extracted = match &options.extraction_cache {
        Some(dir) if format != Format::Text => {
            extract::cache::extract_cached(dir, extractor.as_ref(), path, bytes).0?
        }
        _ => extractor.extract(path, bytes)?,
    };
    // A small file may unpack to much more text (a DOCX is a ZIP): its text is held to the
    // limit a text file has, so 256 KB never become 128,000 chunks.
    if extracted.text.len() as u64 > options.max_file_bytes {
        return Err(SkipReason::TextTooLarge {
            format: format.name().to_string(),
            bytes: extracted.text.len() as u64,
            limit: options.max_file_bytes,
        });
    }
    let source = extractor.source(extracted.pages);
    Ok((extracted.text, extracted.kind, source))
}

/// A file's format, the extractor it is read with, and its bytes.
type OpenedFile = (Format, Box<dyn extract::Extractor>, Vec<u8>);

/// A file's format, its extractor and its bytes, or why it cannot be read: a regular file (or a
/// link to one) within the size limit, read without blocking, so a file swapped for a FIFO after
/// the walk, or one that grew, never hangs or floods the load.
fn open_file(path: &Path, options: &LoadOptions) -> Result<OpenedFile, SkipReason> {
    let max_bytes = options.max_file_bytes;
    let meta = std::fs::metadata(path).map_err(|e| SkipReason::Unreadable {
        error: e.to_string(),
    })?;
    if meta.len() > max_bytes {
        return Err(SkipReason::TooLarge {
            bytes: meta.len(),
            limit: max_bytes,
        });
    }
    let format = options.format_of(path);
    let extractor = options.extractor(format)?;
    let bytes = crate::files::read_named(path, max_bytes).map_err(|e| match e {
        crate::files::ReadFileError::TooLarge { bytes, limit } => {
            SkipReason::TooLarge { bytes, limit }
        }
        other => SkipReason::Unreadable {
            error: other.to_string(),
        },
    })?;
    Ok((format, extractor, bytes))
}

/// The start of the file at `path` as a document (about `budget` bytes of its text, see
/// [`extract::Extracted::start`]), when the file is large enough that its whole text would be
/// slow to have: from the extraction cache when the whole is there, else from the extractor's
/// cheaper start (a PDF's first pages), else a text file's first bytes. `None` when the file
/// is small, unusable (its full read says why), or its format has no cheap start.
pub(crate) fn read_document_start(
    path: &Path,
    options: &LoadOptions,
    budget: usize,
) -> Option<(String, DocKind, TextSource)> {
    if std::fs::metadata(path).ok()?.len() <= budget as u64 {
        return None;
    }
    let (format, extractor, bytes) = open_file(path, options).ok()?;
    let cached = match &options.extraction_cache {
        Some(dir) if format != Format::Text => {
            extract::cache::lookup(dir, extractor.as_ref(), &bytes)
        }
        _ => None,
    };
    let whole = match cached {
        Some(found) => found.ok()?,
        None if format == Format::Text => extractor.extract(path, bytes).ok()?,
        None => extractor.extract_start(path, &bytes, budget)?,
    };
    let start = whole.start(budget);
    let source = extractor.source(start.pages.clone());
    Some((start.text, start.kind, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rejects_binary_invalid_and_empty() {
        assert_eq!(decode_text(vec![b'a', 0, b'b']), Err(SkipReason::Binary));
        assert_eq!(
            decode_text(vec![b'o', b'k', 0xff, b'x']),
            Err(SkipReason::InvalidUtf8 { at_byte: 2 })
        );
        assert_eq!(decode_text(b" \r\n\t".to_vec()), Err(SkipReason::Empty));
        assert_eq!(decode_text(b"a\r\nb".to_vec()).unwrap(), "a\r\nb");
    }

    #[test]
    fn skips_are_summed_up_by_reason_largest_group_first() {
        let skip = |path: &str, reason: SkipReason| SkippedFile {
            path: path.into(),
            reason,
        };
        assert_eq!(skip_summary(&[]), None);
        assert_eq!(
            skip_summary(&[skip("questions.jsonl", SkipReason::Excluded)]),
            None
        );
        let skipped = [
            skip(
                "a.pdf",
                SkipReason::Encrypted {
                    format: "pdf".into(),
                },
            ),
            skip("b.pdf", SkipReason::NoTextLayer { pages: 3 }),
            skip("c.pdf", SkipReason::NoTextLayer { pages: 1 }),
        ];
        assert_eq!(
            skip_summary(&skipped).as_deref(),
            Some("3 skipped: 2 PDFs without a text layer (scanned), 1 encrypted PDF")
        );
        let skipped = [
            skip(
                "d.docx",
                SkipReason::Damaged {
                    format: "docx".into(),
                    error: "x".into(),
                },
            ),
            skip("e.html", SkipReason::InvalidUtf8 { at_byte: 4 }),
            skip("questions.jsonl", SkipReason::Excluded),
            skip(
                "f.docx",
                SkipReason::Damaged {
                    format: "docx".into(),
                    error: "y".into(),
                },
            ),
        ];
        assert_eq!(
            skip_summary(&skipped).as_deref(),
            Some("3 skipped: 2 damaged or misnamed DOCX files, 1 file not in UTF-8")
        );
    }

    #[test]
    fn spans_relate() {
        let a = Span::new(0, 10);
        assert!(a.contains(&Span::new(2, 10)));
        assert!(!a.contains(&Span::new(2, 11)));
        assert!(a.overlaps(&Span::new(9, 12)));
        assert!(!a.overlaps(&Span::new(10, 12)));
    }
}
