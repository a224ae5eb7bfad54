//! Reading a file without trusting the file system: every file seamscope reads (documents, cuts,
//! question files, settings, themes, model files, caches, stored layouts, index files, bundles,
//! boards, view files) is read here, only when it is a regular file, and never past the limit of
//! its kind. A cuts file that is `/dev/zero` (or a link to it) would otherwise fill memory, and a
//! FIFO would hang the reader before anything could say why.
//!
//! Two ways to treat a symbolic link: files seamscope wrote itself (caches, layouts, indexes)
//! and files a bundle names are never read through one ([`read_regular`]); a path the user
//! typed or a corpus walk found may be a link, followed to what it names, which must then be a
//! regular file ([`read_named`]). Either way a FIFO, a device, a socket or a folder is refused
//! before it is opened, the file is opened without blocking and checked again once open, and
//! one byte past the limit is the most ever read.

use std::io::Read;
use std::path::{Path, PathBuf};

const MIB: u64 = 1024 * 1024;

/// At most this many bytes of a JSON file (a manifest, settings, a view file, a board, a
/// baseline, a calibration report).
pub const JSON_LIMIT: u64 = 64 * MIB;
/// At most this many bytes of a cuts file (`--cuts`): a LangChain dump of every chunk's text
/// of a corpus of several hundred MB.
pub const CUTS_LIMIT: u64 = 1024 * MIB;
/// At most this many bytes of a question file (`questions.jsonl`, `--questions`).
pub const QUESTIONS_LIMIT: u64 = 16 * MIB;
/// At most this many bytes of a TOML file a person writes (`settings.toml`, a theme).
pub const TOML_LIMIT: u64 = MIB;
/// At most this many bytes of a model's `tokenizer.json` (and its other small JSON files).
pub const TOKENIZER_LIMIT: u64 = 256 * MIB;
/// At most this many bytes of a model's weights (`model.onnx`).
pub const MODEL_LIMIT: u64 = 8 * 1024 * MIB;
/// At most this many bytes of one model's vector cache file (about ten million 384-d vectors).
pub const VECTOR_CACHE_LIMIT: u64 = 16 * 1024 * MIB;
/// At most this many bytes of one file of an index folder, beyond what its manifest recorded.
pub const INDEX_FILE_LIMIT: u64 = 16 * 1024 * MIB;
/// At most this many bytes of a pointer file (an index folder's name, a hub revision).
pub const POINTER_LIMIT: u64 = 4096;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadFileError {
    /// The path is a symbolic link (the reader never follows one).
    #[error("it is a symbolic link; only a regular file is read, never through a link")]
    Symlink,
    /// The path is not a regular file: a folder, a FIFO, a device or a socket.
    #[error("it is {0}, not a regular file")]
    NotRegular(&'static str),
    /// The file is larger than its limit.
    #[error("it holds {bytes} bytes, more than the {limit} this file may hold")]
    TooLarge {
        /// Its size (or how far the read got).
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("it is not UTF-8 text (invalid byte at offset {valid_up_to})")]
    NotText {
        /// Bytes of valid UTF-8 before the first bad one.
        valid_up_to: usize,
    },
    /// The OS refused (missing file, no permission, an I/O error). Transparent: the OS error
    /// is said once, not again as this error's source.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl ReadFileError {
    /// Whether the file is simply not there (a cache or setting not written yet).
    pub fn is_missing(&self) -> bool {
        matches!(self, ReadFileError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// The limit of a model's file by its name: [`TOKENIZER_LIMIT`] for its JSON and text files
/// (tokenizer, configuration, vocabulary), [`MODEL_LIMIT`] for the weights and anything else.
pub fn model_file_limit(path: &Path) -> u64 {
    let small = path
        .extension()
        .is_some_and(|e| e == "json" || e == "txt" || e == "model");
    if small { TOKENIZER_LIMIT } else { MODEL_LIMIT }
}

/// What kind of thing a non-regular file is, in words.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a plain file"
    }
}

/// Check that `metadata` is a regular file of at most `limit` bytes.
fn check(metadata: &std::fs::Metadata, limit: u64) -> Result<(), ReadFileError> {
    let file_type = metadata.file_type();
    if file_type.is_symlink() {
        return Err(ReadFileError::Symlink);
    }
    if !file_type.is_file() {
        return Err(ReadFileError::NotRegular(kind_of(file_type)));
    }
    if metadata.len() > limit {
        return Err(ReadFileError::TooLarge {
            bytes: metadata.len(),
            limit,
        });
    }
    Ok(())
}

/// Read a JSON (or JSON lines) file a user named, as [`read_regular`] does with the
/// [`JSON_LIMIT`], a leading UTF-8 byte-order mark left out (editors on Windows write one, and
/// serde_json calls it "expected value at line 1 column 1"). The bytes are the file's own
/// otherwise, so a hash of them is the file's hash when it has no mark.
pub fn read_json(path: &Path) -> Result<Vec<u8>, ReadFileError> {
    let mut bytes = read_regular(path, JSON_LIMIT)?;
    if bytes.starts_with(b"\xef\xbb\xbf") {
        bytes.drain(..3);
    }
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `limit` of them. A symbolic link, a folder,
/// a FIFO, a device or a socket is refused before it is opened (so a FIFO never blocks); the
/// file is opened without following a link and without blocking, and checked again once open,
/// so a path swapped between the check and the open is refused too.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadFileError> {
    read_file(path, limit, false)
}

/// The bytes of the file at `path`, a path the user named or a corpus walk found: as
/// [`read_regular`], except that a symbolic link is followed, and what it leads to must be a
/// regular file of at most `limit` bytes (a link to `/dev/zero` or to a FIFO is refused).
pub fn read_named(path: &Path, limit: u64) -> Result<Vec<u8>, ReadFileError> {
    read_file(path, limit, true)
}

/// The text of the file at `path`, read as [`read_named`] reads it; bytes that are not UTF-8
/// are an error naming the first bad byte's offset.
pub fn read_named_text(path: &Path, limit: u64) -> Result<String, ReadFileError> {
    String::from_utf8(read_named(path, limit)?).map_err(|e| ReadFileError::NotText {
        valid_up_to: e.utf8_error().valid_up_to(),
    })
}

/// Open the file at `path` to stream it (a hash of model weights): as [`read_named`] checks it
/// (links followed to a regular file; a FIFO, device or folder refused before it is opened, and
/// again once open), but with no limit, since nothing of it is kept.
pub fn open_named(path: &Path) -> Result<std::fs::File, ReadFileError> {
    check(&std::fs::metadata(path)?, u64::MAX)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    check(&file.metadata()?, u64::MAX)?;
    Ok(file)
}

/// Open (creating it if need be) the lock file at `path` for [`std::fs::File::lock`]: never
/// through a symbolic link and without blocking, so a FIFO put there is refused instead of
/// waiting forever for a reader; what is there must be a regular file.
pub fn open_lock(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let file_type = file.metadata()?.file_type();
    if !file_type.is_file() {
        return Err(std::io::Error::other(format!(
            "the lock file {} is {}, not a regular file",
            path.display(),
            kind_of(file_type)
        )));
    }
    Ok(file)
}

/// Open the existing lock file at `path` to test its lock, as [`open_lock`] does but without
/// creating it.
pub fn open_existing_lock(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let file_type = file.metadata()?.file_type();
    if !file_type.is_file() {
        return Err(std::io::Error::other(format!(
            "the lock file {} is {}, not a regular file",
            path.display(),
            kind_of(file_type)
        )));
    }
    Ok(file)
}

/// Why a file the user asked for was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteFileError {
    /// What is at the path is not a regular file (a device such as `/dev/null`, a FIFO, a
    /// socket, a folder): writing "to" it would replace it, or block, or mean nothing.
    #[error(
        "{} is {kind}, not a regular file; seamscope writes only over a regular file or to a new name",
        path.display()
    )]
    NotRegular {
        /// The path named.
        path: PathBuf,
        /// What it is, in words ("a device", "a FIFO (named pipe)").
        kind: &'static str,
    },
    /// The path is a symbolic link to something that is not a regular file.
    #[error(
        "{} is a symbolic link to {kind}, not to a regular file; seamscope writes only over a regular file or to a new name",
        path.display()
    )]
    LinkTo {
        /// The path named.
        path: PathBuf,
        /// What the link leads to, in words ("a device", "nothing").
        kind: &'static str,
    },
    /// The OS refused (no such folder, no permission, a full disk).
    #[error("cannot write {}: {error}", path.display())]
    Io {
        /// The path named.
        path: PathBuf,
        /// The OS's error.
        error: std::io::Error,
    },
}

/// Where a file the user named will be written: the path itself when nothing is there or a
/// regular file is, the file a symbolic link leads to when it leads to a regular file (so the
/// link stays a link). Anything else (a device like `/dev/null`, a FIFO, a socket, a folder, a
/// link to one of them or to nothing) is refused, naming the path and what it is. Checking
/// first lets a command refuse a bad output path before minutes of work.
pub fn output_target(path: &Path) -> Result<PathBuf, WriteFileError> {
    let io = |error| WriteFileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let here = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(io(e)),
    };
    let file_type = here.file_type();
    if file_type.is_file() {
        return Ok(path.to_path_buf());
    }
    if !file_type.is_symlink() {
        return Err(WriteFileError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(file_type),
        });
    }
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_file() => std::fs::canonicalize(path).map_err(io),
        Ok(m) => Err(WriteFileError::LinkTo {
            path: path.to_path_buf(),
            kind: kind_of(m.file_type()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(WriteFileError::LinkTo {
            path: path.to_path_buf(),
            kind: "nothing (a broken link)",
        }),
        Err(e) => Err(io(e)),
    }
}

/// Write `bytes` as the file at `path`, a path the user named (`--fix OUT`, `--csv`, a
/// baseline, a screenshot): checked as [`output_target`] checks it, then written whole to a
/// temporary file in the same folder and renamed over the target, so a reader never sees half
/// a file and a special file is never replaced or written into. A file that was there keeps
/// its permissions; a new one gets the usual ones (0666 less the umask), not a temporary
/// file's 0600.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), WriteFileError> {
    use std::io::Write;
    let target = output_target(path)?;
    let io = |error| WriteFileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let kept = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".seamscope-write-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(folder).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    if let Some(permissions) = kept {
        tmp.as_file().set_permissions(permissions).map_err(io)?;
    }
    // The target was checked a moment ago; a special file put there since is still not
    // replaced (the check is repeated as close to the rename as it can be).
    output_target(path)?;
    tmp.persist(&target).map_err(|e| io(e.error))?;
    Ok(())
}

fn read_file(path: &Path, limit: u64, follow: bool) -> Result<Vec<u8>, ReadFileError> {
    let before = if follow {
        std::fs::metadata(path)?
    } else {
        std::fs::symlink_metadata(path)?
    };
    check(&before, limit)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(no_follow | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW on a link that appeared after the check.
        if !follow && e.raw_os_error() == Some(libc::ELOOP) {
            ReadFileError::Symlink
        } else {
            ReadFileError::Io(e)
        }
    })?;
    let metadata = file.metadata()?;
    check(&metadata, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // One byte past the limit tells a file that grew since it was checked.
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadFileError::TooLarge {
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("settings.json");
        std::fs::write(&file, b"{}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_regular(&file, 2).ok(), Some(b"{}".to_vec()));
        assert!(matches!(
            read_regular(&file, 1),
            Err(ReadFileError::TooLarge { bytes: 2, limit: 1 })
        ));
        assert!(matches!(
            read_regular(dir.path(), JSON_LIMIT),
            Err(ReadFileError::NotRegular("a folder"))
        ));
        assert!(matches!(
            read_regular(&dir.path().join("missing"), JSON_LIMIT),
            Err(ReadFileError::Io(_))
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), JSON_LIMIT),
            Err(ReadFileError::NotRegular("a device"))
        ));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.json");
            std::os::unix::fs::symlink(&file, &link).unwrap_or_else(|e| panic!("{e}"));
            assert!(matches!(
                read_regular(&link, JSON_LIMIT),
                Err(ReadFileError::Symlink)
            ));
            let fifo = dir.path().join("fifo.json");
            let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
            // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            assert!(matches!(
                read_regular(&fifo, JSON_LIMIT),
                Err(ReadFileError::NotRegular("a FIFO (named pipe)"))
            ));
        }
    }

    /// Make a FIFO at `path`.
    #[cfg(unix)]
    fn fifo(path: &Path) {
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_file_may_be_a_link_but_only_to_a_regular_file_within_the_limit() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("cuts.jsonl");
        std::fs::write(&file, "{}\n").unwrap_or_else(|e| panic!("{e}"));
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&file, &link).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_named(&link, 3).ok(), Some(b"{}\n".to_vec()));
        assert_eq!(read_named_text(&file, 3).ok().as_deref(), Some("{}\n"));
        assert!(matches!(
            read_named(&link, 2),
            Err(ReadFileError::TooLarge { bytes: 3, limit: 2 })
        ));
        // /dev/zero itself, and a link to it, are refused without reading a byte.
        let zero = dir.path().join("zero.jsonl");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap_or_else(|e| panic!("{e}"));
        for path in [Path::new("/dev/zero"), zero.as_path()] {
            assert!(matches!(
                read_named(path, CUTS_LIMIT),
                Err(ReadFileError::NotRegular("a device"))
            ));
        }
        // A FIFO, and a link to one, are refused instead of waited on.
        let pipe = dir.path().join("pipe.jsonl");
        fifo(&pipe);
        let to_pipe = dir.path().join("to-pipe.jsonl");
        std::os::unix::fs::symlink(&pipe, &to_pipe).unwrap_or_else(|e| panic!("{e}"));
        for path in [&pipe, &to_pipe] {
            assert!(matches!(
                read_named(path, CUTS_LIMIT),
                Err(ReadFileError::NotRegular("a FIFO (named pipe)"))
            ));
        }
        std::fs::write(&file, b"ok\xff").unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            read_named_text(&file, 10),
            Err(ReadFileError::NotText { valid_up_to: 2 })
        ));
        assert!(
            read_named(&dir.path().join("missing"), 1)
                .err()
                .is_some_and(|e| e.is_missing())
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_file_that_is_a_fifo_or_a_link_is_refused_instead_of_waited_on() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let lock = dir.path().join("v.lock");
        let file = open_lock(&lock).unwrap_or_else(|e| panic!("{e}"));
        file.lock().unwrap_or_else(|e| panic!("{e}"));
        drop(file);
        assert!(open_existing_lock(&lock).is_ok());
        let pipe = dir.path().join("pipe.lock");
        fifo(&pipe);
        let e = open_lock(&pipe).err().map(|e| e.to_string());
        assert!(e.is_some(), "a FIFO opened as a lock");
        let e = open_existing_lock(&pipe).err().map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| e.contains("FIFO")), "{e:?}");
        let link = dir.path().join("link.lock");
        std::os::unix::fs::symlink(&lock, &link).unwrap_or_else(|e| panic!("{e}"));
        assert!(open_lock(&link).is_err());
        assert!(open_existing_lock(&link).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn an_output_is_written_only_over_a_regular_file_or_to_a_new_name() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // A new name, then over the regular file it became.
        let out = dir.path().join("out.jsonl");
        write_output(&out, b"one").unwrap_or_else(|e| panic!("{e}"));
        write_output(&out, b"two").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read(&out).ok().as_deref(), Some(&b"two"[..]));
        // A link to a regular file: the file it leads to is written, the link stays.
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&out, &link).unwrap_or_else(|e| panic!("{e}"));
        write_output(&link, b"three").unwrap_or_else(|e| panic!("{e}"));
        assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(std::fs::read(&out).ok().as_deref(), Some(&b"three"[..]));
        // A FIFO, a link to /dev/null, a folder: refused by name, left as they were.
        let pipe = dir.path().join("pipe");
        fifo(&pipe);
        let null = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &null).unwrap_or_else(|e| panic!("{e}"));
        for (path, said) in [
            (pipe.as_path(), "is a FIFO (named pipe), not a regular file"),
            (null.as_path(), "is a symbolic link to a device"),
            (dir.path(), "is a folder, not a regular file"),
        ] {
            let e = write_output(path, b"x").err().map(|e| e.to_string());
            assert!(e.as_deref().is_some_and(|e| e.contains(said)), "{e:?}");
        }
        assert!(std::fs::symlink_metadata(&pipe).is_ok_and(|m| m.file_type().is_fifo()));
        assert!(std::fs::metadata(&null).is_ok_and(|m| m.file_type().is_char_device()));
        let broken = dir.path().join("broken");
        std::os::unix::fs::symlink(dir.path().join("gone"), &broken)
            .unwrap_or_else(|e| panic!("{e}"));
        let e = write_output(&broken, b"x").err().map(|e| e.to_string());
        assert!(
            e.as_deref().is_some_and(|e| e.contains("broken link")),
            "{e:?}"
        );
        // Nothing was left behind but what was asked for.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().starts_with(".seamscope-write-"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    #[test]
    fn a_json_file_with_a_byte_order_mark_reads_without_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("report.json");
        std::fs::write(&path, b"\xef\xbb\xbf{\"a\": 1}").unwrap_or_else(|e| panic!("{e}"));
        let bytes = read_json(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bytes, b"{\"a\": 1}");
        assert!(matches!(
            read_json(dir.path()),
            Err(ReadFileError::NotRegular("a folder"))
        ));
    }
}
