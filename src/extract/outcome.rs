//! What reading one file gives: the kind of text it holds, or why it holds none.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The kind of a document, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocKind {
    /// Markdown (`.md`, `.markdown`).
    Markdown,
    /// Source code (a known programming-language extension).
    Code,
    /// Any other UTF-8 text.
    Text,
}

impl DocKind {
    /// The kind a file's extension names.
    pub fn from_path(path: &Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" | "mdown" => DocKind::Markdown,
            "rs" | "py" | "go" | "js" | "ts" | "java" | "c" | "h" | "cpp" | "hpp" | "cc" | "rb"
            | "sh" | "toml" | "yaml" | "yml" | "sql" | "kt" | "swift" | "cs" | "scala" => {
                DocKind::Code
            }
            _ => DocKind::Text,
        }
    }
}

/// Why a file was left out of the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// The file holds NUL bytes or other binary content.
    Binary,
    /// The file is larger than the size limit.
    TooLarge {
        /// The file's size.
        bytes: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The file is within the size limit, but the text it unpacks to (a DOCX, a PDF) is not.
    TextTooLarge {
        /// The format's name.
        format: String,
        /// The text's size.
        bytes: u64,
        /// The limit in force (`max_file_bytes`).
        limit: u64,
    },
    /// The file is not valid UTF-8.
    InvalidUtf8 {
        /// Offset of the first byte that is not valid UTF-8.
        at_byte: usize,
    },
    /// The file holds no text, or only whitespace.
    Empty,
    /// The file could not be read.
    Unreadable {
        /// The operating system's message.
        error: String,
    },
    /// The path was excluded by name (question files, hidden files).
    Excluded,
    /// A symbolic link that leads back into a folder already being walked.
    SymlinkLoop,
    /// A symbolic link whose target lies outside the corpus folder (not followed unless
    /// `follow_outside_symlinks` is set).
    SymlinkOutside {
        /// Where the link leads.
        target: String,
    },
    /// A folder that could not be listed: nothing in it was loaded.
    UnreadableFolder {
        /// The operating system's message.
        error: String,
    },
    /// The file's format has no extractor in this build or setup.
    UnsupportedFormat {
        /// The format's name.
        format: String,
    },
    /// The file is encrypted (a password-protected PDF, an encrypted Office file).
    Encrypted {
        /// The format's name.
        format: String,
    },
    /// A paged file with no text layer (a scan): nothing to extract without OCR.
    NoTextLayer {
        /// How many pages the file has.
        pages: u32,
    },
    /// The file is not a valid file of its format (truncated, damaged, or another format renamed).
    Damaged {
        /// The format's name.
        format: String,
        /// What the extractor found wrong.
        error: String,
    },
    /// Not a regular file: a FIFO, a socket, a device, or a symbolic link to one. Never opened
    /// (a FIFO would block the reader until something wrote to it).
    Special {
        /// What it is, in words: "a FIFO", "a socket", "a device", "a link to a device".
        kind: String,
    },
    /// The engine that reads this format is not installed.
    EngineMissing {
        /// The format's name.
        format: String,
        /// What to do about it.
        fix: String,
    },
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Binary => write!(f, "binary file (holds NUL bytes)"),
            SkipReason::TooLarge { bytes, limit } => write!(
                f,
                "too large: {bytes} bytes, over the {limit}-byte limit (raise max_file_bytes to include it)"
            ),
            SkipReason::TextTooLarge {
                format,
                bytes,
                limit,
            } => write!(
                f,
                "its {format} text unpacks to {bytes} bytes, over the {limit}-byte limit a text file has (raise max_file_bytes to include it)"
            ),
            SkipReason::InvalidUtf8 { at_byte } => write!(
                f,
                "not valid UTF-8 (first bad byte at offset {at_byte}); convert it to UTF-8 to include it"
            ),
            SkipReason::Empty => write!(f, "empty or whitespace only"),
            SkipReason::Unreadable { error } => write!(f, "unreadable: {error}"),
            SkipReason::Excluded => write!(f, "excluded by name"),
            SkipReason::SymlinkLoop => write!(f, "symbolic link loop"),
            SkipReason::SymlinkOutside { target } => write!(
                f,
                "symlink leads outside the corpus folder (to {}); set follow_outside_symlinks = true to include it",
                crate::text::safe_name(target)
            ),
            SkipReason::UnreadableFolder { error } => {
                write!(f, "folder unreadable, nothing in it loaded: {error}")
            }
            SkipReason::UnsupportedFormat { format } => {
                write!(f, "{format} files cannot be read by this build")
            }
            SkipReason::Encrypted { format } => {
                write!(f, "encrypted {format}: give seamscope a decrypted copy")
            }
            SkipReason::NoTextLayer { pages } => write!(
                f,
                "no text layer in its {pages} page(s) (a scan?): run OCR on it first"
            ),
            SkipReason::Damaged { format, error } => {
                write!(
                    f,
                    "not a readable {format} file: {}",
                    crate::text::safe_name(error)
                )
            }
            SkipReason::EngineMissing { format, fix } => {
                write!(f, "cannot read {format} files here: {fix}")
            }
            SkipReason::Special { kind } => {
                write!(f, "{kind}, not a regular file: never opened")
            }
        }
    }
}

/// What a file that is neither a regular file nor a folder is, in the words a skip uses ("a
/// FIFO", "a socket", "a device"), or `None` for a regular file or a folder. `file_type` is the
/// type of what a link leads to when the link was followed.
pub fn special_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() || file_type.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("a FIFO");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a plain file")
}

/// Check that bytes are a usable text document and return them as a string.
pub fn decode_text(bytes: Vec<u8>) -> Result<String, SkipReason> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(SkipReason::Binary);
    }
    let text = String::from_utf8(bytes).map_err(|e| SkipReason::InvalidUtf8 {
        at_byte: e.utf8_error().valid_up_to(),
    })?;
    if text.trim().is_empty() {
        return Err(SkipReason::Empty);
    }
    Ok(text)
}
