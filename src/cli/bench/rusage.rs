//! A child's peak resident memory, read when it is reaped (`wait4`), so each child of a
//! benchmark gets its own figure rather than the running maximum `RUSAGE_CHILDREN` keeps.

use std::process::Child;

/// Wait for `child` to end: whether it succeeded, and its peak resident memory in bytes
/// (`None` where the platform does not say).
#[cfg(unix)]
pub fn wait_peak_rss(child: &mut Child) -> std::io::Result<(bool, Option<u64>)> {
    let pid = libc::pid_t::try_from(child.id()).map_err(std::io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct of integers, for which all zero bytes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is this process's own child, not yet reaped (std has not waited on it);
        // both pointers are to live locals for the duration of the call.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if got == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let max_rss = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    // Linux reports kibibytes, macOS bytes.
    let bytes = if cfg!(target_os = "macos") {
        max_rss
    } else {
        max_rss * 1024
    };
    Ok((ok, Some(bytes)))
}

/// Wait for `child` to end: whether it succeeded; the peak memory is not known here.
#[cfg(not(unix))]
pub fn wait_peak_rss(child: &mut Child) -> std::io::Result<(bool, Option<u64>)> {
    Ok((child.wait()?.success(), None))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_child_that_holds_memory_reports_at_least_that_much() {
        // A shell that holds a 64 MB string, then exits 0; and one that fails.
        let mut child = std::process::Command::new("python3")
            .args([
                "-c",
                "x = bytearray(64 * 1024 * 1024); x[::4096] = b'1' * len(x[::4096])",
            ])
            .spawn()
            .unwrap();
        let (ok, peak) = wait_peak_rss(&mut child).unwrap();
        assert!(ok);
        assert!(peak.unwrap() >= 64 * 1024 * 1024, "{peak:?}");
        let mut failing = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .spawn()
            .unwrap();
        assert!(!wait_peak_rss(&mut failing).unwrap().0);
    }
}
