//! Staging folders: a build writes a new index into `.build-*` under a lock, then renames it into
//! place; what a killed build left behind is removed by the next open.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// The lock a build holds on its staging folder while it writes it (a `.lock` file, so the
/// manifest leaves it out).
pub(super) const BUILD_LOCK: &str = "build.lock";

/// A staging folder younger than this may be a build that has not taken its lock yet.
const STAGING_GRACE: Duration = Duration::from_secs(60);

/// Remove staging folders (`.build-*`) that builds killed mid-write left behind: those whose lock
/// no live process holds. Best effort: a folder that cannot be removed (read-only cache) stays.
/// Returns how many were removed.
pub(super) fn remove_stale_builds(indexes: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(indexes) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let is_staging = entry.file_name().to_string_lossy().starts_with(".build-");
        if is_staging && !build_in_progress(&path) && std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether a live process is still writing the staging folder `dir`.
pub(super) fn build_in_progress(dir: &Path) -> bool {
    // A build creates its folder, then its lock file, then takes the lock: a folder created
    // moments ago may be a live build between those steps, so it is never taken for a killed
    // one, lock or no lock (many processes build into one shared cache at once).
    let young = || {
        std::fs::metadata(dir)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_none_or(|age| age < STAGING_GRACE)
    };
    // Opened without blocking: a FIFO put in place of the lock must not hang `cache`.
    match crate::files::open_existing_lock(&dir.join(BUILD_LOCK)) {
        // The lock dies with its process: held means a build is running.
        Ok(lock) => matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock)) || young(),
        Err(_) => young(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(dir: &Path, seconds: u64) {
        let then = SystemTime::now() - Duration::from_secs(seconds);
        let handle = std::fs::File::open(dir).unwrap();
        handle.set_modified(then).unwrap();
    }

    #[test]
    fn killed_builds_are_removed_and_live_ones_kept() {
        let cache = tempfile::tempdir().unwrap();
        let indexes = cache.path().join("indexes");
        let make = |name: &str| {
            let d = indexes.join(name);
            std::fs::create_dir_all(d.join("chunks.bm25")).unwrap();
            std::fs::write(d.join("chunks.usearch"), b"partial").unwrap();
            d
        };
        // Killed mid-write: its lock file is there but nobody holds it.
        let killed = make(".build-killed");
        std::fs::write(killed.join(BUILD_LOCK), b"").unwrap();
        age(&killed, 3600);
        // Just created its lock file, not locked it yet: a live build in that instant.
        let locking = make(".build-locking");
        std::fs::write(locking.join(BUILD_LOCK), b"").unwrap();
        // Killed before it took its lock, long ago.
        let old = make(".build-old");
        age(&old, 3600);
        // Running: this process holds its lock.
        let live = make(".build-live");
        let lock = std::fs::File::create(live.join(BUILD_LOCK)).unwrap();
        lock.lock().unwrap();
        // Just created, lock not taken yet.
        let fresh = make(".build-fresh");
        // A finished index is never touched.
        let finished = make("0123456789abcdef01234567");
        age(&finished, 3600);

        assert_eq!(remove_stale_builds(&indexes), 2);
        assert!(!killed.exists() && !old.exists());
        assert!(live.exists() && fresh.exists() && locking.exists() && finished.exists());
        drop(lock);
        age(&live, 3600);
        assert_eq!(remove_stale_builds(&indexes), 1, "its process ended");
        assert!(!live.exists());
    }
}
