//! Reading a file a user or a bundle names, without trusting the file system: only a regular
//! file is read, never through a symbolic link, and never more than a limit. A settings file
//! that is a link to `/dev/zero` would otherwise fill memory, and a FIFO would hang the reader.

use std::io::Read;
use std::path::Path;

/// At most this many bytes of a JSON file (a manifest, settings, a view file).
pub const JSON_LIMIT: u64 = 64 * 1024 * 1024;

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
    /// The OS refused (missing file, no permission, an I/O error). Transparent: the OS error
    /// is said once, not again as this error's source.
    #[error(transparent)]
    Io(#[from] std::io::Error),
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
    check(&std::fs::symlink_metadata(path)?, limit)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW on a link that appeared after the check.
        if e.raw_os_error() == Some(libc::ELOOP) {
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
