//! Loading ONNX Runtime from a shared library, with a clear error instead of a panic when it is
//! missing or too old.

use std::path::Path;
use std::sync::OnceLock;

use super::EmbedError;

/// The oldest ONNX Runtime minor version that `ort` 2.0.0-rc.15 accepts (1.24).
pub const MIN_RUNTIME_MINOR: u32 = 24;

static LOADED: OnceLock<Result<String, String>> = OnceLock::new();

#[repr(C)]
struct OrtApiBase {
    get_api: unsafe extern "C" fn(u32) -> *const std::ffi::c_void,
    get_version_string: unsafe extern "C" fn() -> *const std::ffi::c_char,
}

/// Read the version string of the ONNX Runtime library at `path` without initialising it.
pub fn runtime_version(path: &Path) -> Result<String, EmbedError> {
    if !path.is_file() {
        return Err(EmbedError::RuntimeMissing {
            path: path.display().to_string(),
        });
    }
    // SAFETY: loading a shared library runs its initialisers; the library is ONNX Runtime (or the
    // user's choice of it), whose initialisers are safe to run. The symbol's signature is the
    // documented C API: `const OrtApiBase* OrtGetApiBase(void)`.
    unsafe {
        let lib = libloading::Library::new(path).map_err(|e| EmbedError::RuntimeUnusable {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let getter: libloading::Symbol<unsafe extern "C" fn() -> *const OrtApiBase> = lib
            .get(b"OrtGetApiBase")
            .map_err(|_| EmbedError::RuntimeUnusable {
                path: path.display().to_string(),
                message: "it does not export OrtGetApiBase; is it ONNX Runtime?".into(),
            })?;
        let base = getter();
        if base.is_null() {
            return Err(EmbedError::RuntimeUnusable {
                path: path.display().to_string(),
                message: "OrtGetApiBase returned null".into(),
            });
        }
        let version = std::ffi::CStr::from_ptr(((*base).get_version_string)())
            .to_string_lossy()
            .into_owned();
        // Keep the library loaded: `ort` loads the same file next and unloading ONNX Runtime
        // while threads it started may linger is not safe.
        std::mem::forget(lib);
        Ok(version)
    }
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
/// on rather than a panic inside `ort`.
pub fn load_runtime(path: &Path) -> Result<String, EmbedError> {
    let result = LOADED.get_or_init(|| {
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
    });
    result.clone().map_err(EmbedError::Runtime)
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
    fn a_file_that_is_not_a_library_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("libonnxruntime.so");
        std::fs::write(&p, b"not a library").unwrap();
        assert!(runtime_version(&p).is_err());
    }
}
