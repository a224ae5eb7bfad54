//! Loading ONNX Runtime from a shared library, with a clear error instead of a panic when it is
//! missing or too old.

use std::ffi::{CStr, c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::EmbedError;

/// The oldest ONNX Runtime minor version that `ort` 2.0.0-rc.15 accepts (1.24).
pub const MIN_RUNTIME_MINOR: u32 = 24;

/// The one load attempt this process makes: which library, and how it went.
///
/// `ort` keeps the first library it loads for the life of the process and ignores any later path,
/// so the path is remembered to turn a second, different request into an error.
#[derive(Debug)]
struct LoadAttempt {
    path: PathBuf,
    result: Result<String, String>,
}

static LOADED: OnceLock<LoadAttempt> = OnceLock::new();

#[repr(C)]
struct OrtApiBase {
    get_api: unsafe extern "C" fn(u32) -> *const c_void,
    get_version_string: unsafe extern "C" fn() -> *const c_char,
}

/// The C signature of `OrtGetApiBase`: `const OrtApiBase* OrtGetApiBase(void)`.
type GetApiBase = unsafe extern "C" fn() -> *const OrtApiBase;

/// Read the version string of the ONNX Runtime library at `path` without initialising it.
pub fn runtime_version(path: &Path) -> Result<String, EmbedError> {
    let unusable = |message: String| EmbedError::RuntimeUnusable {
        path: path.display().to_string(),
        message,
    };
    if !path.is_file() {
        return Err(EmbedError::RuntimeMissing {
            path: path.display().to_string(),
        });
    }
    // SAFETY: loading a shared library runs its initialisers; the library is ONNX Runtime (or the
    // user's choice of it), whose initialisers are safe to run.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| unusable(e.to_string()))?;
    // SAFETY: the type is the documented C signature of `OrtGetApiBase`; the fn pointer is copied
    // out and used only while `lib` stays loaded (it is never unloaded, see below).
    let get_api_base: GetApiBase = *unsafe { lib.get::<GetApiBase>(b"OrtGetApiBase") }
        .map_err(|_| unusable("it does not export OrtGetApiBase; is it ONNX Runtime?".into()))?;
    // SAFETY: `OrtGetApiBase` takes no arguments and has no preconditions.
    let base = unsafe { get_api_base() };
    if base.is_null() {
        return Err(unusable("OrtGetApiBase returned null".into()));
    }
    // SAFETY: `base` is non-null and points to the library's static `OrtApiBase`, whose layout
    // `OrtApiBase` above mirrors; it lives as long as the library, which is never unloaded.
    let get_version_string = unsafe { (*base).get_version_string };
    // SAFETY: `GetVersionString` takes no arguments and has no preconditions.
    let version_ptr = unsafe { get_version_string() };
    if version_ptr.is_null() {
        return Err(unusable("it returned no version string".into()));
    }
    // SAFETY: the pointer is non-null and, per the C API, a NUL-terminated static string owned by
    // the library; it is copied out at once.
    let version = unsafe { CStr::from_ptr(version_ptr) }
        .to_string_lossy()
        .into_owned();
    // Keep the library loaded: `ort` loads the same file next and unloading ONNX Runtime while
    // threads it started may linger is not safe.
    std::mem::forget(lib);
    Ok(version)
}

/// Whether a version string like `1.31.1` is new enough.
pub fn version_supported(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    major > 1 || (major == 1 && minor >= MIN_RUNTIME_MINOR)
}

/// Load ONNX Runtime from `path` for this process, once. Returns its version.
///
/// Checks presence and version first, so a missing or old library is an error the user can act
/// on rather than a panic inside `ort`. A process holds one runtime: asking again for the same
/// library returns the first answer, and asking for a different one is an error (`ort` would
/// silently keep using the first).
pub fn load_runtime(path: &Path) -> Result<String, EmbedError> {
    load_once(&LOADED, path, load_and_init)
}

/// Check and initialise the library at `path` (the one real load of [`load_runtime`]).
fn load_and_init(path: &Path) -> Result<String, String> {
    let version = runtime_version(path).map_err(|e| e.to_string())?;
    if !version_supported(&version) {
        return Err(EmbedError::RuntimeTooOld {
            path: path.display().to_string(),
            version,
        }
        .to_string());
    }
    match ort::init_from(path) {
        Ok(builder) => drop(builder),
        Err(e) => return Err(e.to_string()),
    }
    Ok(version)
}

/// The same file named two ways (relative, through a link) counts as one path.
fn same_file_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// [`load_runtime`] over a given cell and loader, so the once-per-process rule is testable.
fn load_once(
    cell: &OnceLock<LoadAttempt>,
    path: &Path,
    load: impl FnOnce(&Path) -> Result<String, String>,
) -> Result<String, EmbedError> {
    let key = same_file_key(path);
    let attempt = cell.get_or_init(|| LoadAttempt {
        path: key.clone(),
        result: load(path),
    });
    if attempt.path != key {
        return Err(EmbedError::RuntimeAlreadyLoaded {
            loaded: attempt.path.display().to_string(),
            requested: path.display().to_string(),
        });
    }
    attempt.result.clone().map_err(EmbedError::Runtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_minor() {
        assert!(version_supported("1.31.1"));
        assert!(version_supported("1.24.0"));
        assert!(!version_supported("1.23.2"));
        assert!(!version_supported("garbage"));
    }

    #[test]
    fn missing_library_is_an_error_not_a_panic() {
        let err = runtime_version(Path::new("/nonexistent/libonnxruntime.so")).unwrap_err();
        assert!(err.to_string().contains("seamscope setup"), "{err}");
    }

    #[test]
    fn a_second_runtime_path_is_an_error_not_the_first_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("libonnxruntime.so.1");
        let second = dir.path().join("libonnxruntime.so.2");
        let cell = OnceLock::new();
        let mut loads = 0;
        let v = load_once(&cell, &first, |_| {
            loads += 1;
            Ok("1.31.1".into())
        })
        .unwrap();
        assert_eq!((v.as_str(), loads), ("1.31.1", 1));
        // The same path again: the first answer, no second load.
        let again = load_once(&cell, &first, |_| panic!("loaded twice")).unwrap();
        assert_eq!(again, "1.31.1");
        let err = load_once(&cell, &second, |_| panic!("loaded twice")).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("libonnxruntime.so.1") && msg.contains("libonnxruntime.so.2"),
            "{msg}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_library_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("libonnxruntime.so");
        std::fs::write(&p, b"not a library").unwrap();
        assert!(runtime_version(&p).is_err());
    }
}
