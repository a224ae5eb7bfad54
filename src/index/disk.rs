//! A write that fails because the disk is full says so, with the space left, instead of a bare
//! "No space left on device" behind a file name (or a library's "Failed to serialize into
//! stream"): the user's next step is to free space or move the cache, not to look at the file.

use std::io::ErrorKind;
use std::path::Path;

/// Whether `e` says the file system holding a write has no room (or the user's quota is spent).
pub fn is_full(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
        || matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

/// Bytes free to this user on the file system holding `path` (or its nearest folder that
/// exists); `None` when that cannot be asked.
pub fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let mut at = path;
    while !at.exists() {
        at = at.parent()?;
    }
    let c = std::ffi::CString::new(at.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` is a plain C struct of integers, for which all zero bytes is valid.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `stat` a live local, both for the whole call.
    let got = unsafe { libc::statvfs(c.as_ptr(), &mut stat) };
    (got == 0).then_some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// `e`, from writing `path`, in words: when the disk is full, that and the bytes left, with
/// what to do; otherwise `e` as it is.
pub fn describe(e: &std::io::Error, path: &Path) -> String {
    if !is_full(e) {
        return e.to_string();
    }
    let free = free_bytes(path).map_or_else(String::new, |b| format!(" ({b} bytes free)"));
    format!(
        "the disk is full{free} writing {}: free some space, or put the cache on another disk with --cache-dir or SEAMSCOPE_CACHE_DIR ({e})",
        crate::text::safe_name(&path.display().to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_named_with_the_space_left() {
        // /dev/full answers every write with ENOSPC.
        let e = std::fs::write("/dev/full", b"vectors").unwrap_err();
        assert!(is_full(&e), "{e:?}");
        let words = describe(&e, Path::new("/dev/full"));
        assert!(words.starts_with("the disk is full ("), "{words}");
        assert!(
            words.contains("bytes free)") && words.contains("--cache-dir"),
            "{words}"
        );
        // Any other failure is said as it is.
        let other = std::io::Error::from(ErrorKind::PermissionDenied);
        assert_eq!(describe(&other, Path::new("/x")), other.to_string());
        // A path not made yet asks its nearest folder.
        assert!(free_bytes(Path::new("/tmp/no/such/folder/file.bin")).is_some());
    }
}
