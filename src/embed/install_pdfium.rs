//! `seamscope setup`'s part for PDFs: pdfium's shared library, taken from the pinned
//! `pypdfium2` wheel on PyPI, verified and installed into the data directory the way ONNX
//! Runtime is (a staging folder, one rename; nothing half-installed; idempotent).

use std::path::{Path, PathBuf};

use super::install::{self, InstallError, Package};
use crate::extract::pdfium::{PDFIUM_BUILD, PDFIUM_FILE, pdfium_path};

/// The `pypdfium2` release whose wheel carries the pdfium build seamscope binds.
pub const PYPDFIUM2_VERSION: &str = "5.15.2";

const PDFIUM_PACKAGE: Package = Package {
    name: "pypdfium2",
    version: PYPDFIUM2_VERSION,
    wheel_sha256: None,
};

/// pypdfium2 wheels seen on this project's machines, by file name: the wheel's sha256 and the
/// sha256 of the pdfium library inside it.
const KNOWN_WHEELS: &[(&str, &str, &str)] = &[(
    "pypdfium2-5.15.2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "dc31aea5b0fb9fefc9b537a65f4113980b2c40798445736a7e6565bc85161e37",
    "c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9",
)];

/// What setup found or did about pdfium.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PdfiumReport {
    /// The library.
    pub path: PathBuf,
    /// The pypdfium2 release it comes from.
    pub package: String,
    /// pdfium's build.
    pub build: &'static str,
    /// Whether it had to be installed in this run.
    pub installed: bool,
    /// Notes (an unpinned wheel on an unseen platform).
    pub notes: Vec<String>,
}

/// Install pdfium into `data_dir/pdfium/` unless it is already there.
pub fn install_pdfium(
    data_dir: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<PdfiumReport, InstallError> {
    let path = pdfium_path(data_dir);
    let mut report = PdfiumReport {
        path: path.clone(),
        package: format!("pypdfium2 {PYPDFIUM2_VERSION}"),
        build: PDFIUM_BUILD,
        installed: false,
        notes: Vec::new(),
    };
    if path.is_file() {
        log("pdfium already installed");
        return Ok(report);
    }
    install::check_pip()?;
    std::fs::create_dir_all(data_dir)
        .map_err(install::io(format!("creating {}", data_dir.display())))?;
    let staging = tempfile::Builder::new()
        .prefix(".setup-")
        .tempdir_in(data_dir)
        .map_err(install::io("creating a staging folder"))?;
    log(&format!(
        "fetching pdfium {PDFIUM_BUILD} (the pypdfium2 {PYPDFIUM2_VERSION} wheel for this platform) from PyPI"
    ));
    let wheel = install::download(&PDFIUM_PACKAGE, &staging.path().join("wheels"))?;
    let file_name = wheel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let known = KNOWN_WHEELS.iter().find(|(n, _, _)| *n == file_name);
    if let Some((_, expected, _)) = known {
        let actual =
            install::sha256_file(&wheel).map_err(install::io("hashing the pdfium wheel"))?;
        if actual != *expected {
            return Err(InstallError::HashMismatch {
                file: file_name,
                actual,
                expected: (*expected).to_string(),
            });
        }
    } else {
        report.notes.push(format!(
            "{file_name} has no pinned hash (a platform not seen by this project); its version is pinned"
        ));
    }
    let lib = install::read_member(&wheel, |n| n == format!("pypdfium2_raw/{PDFIUM_FILE}"))?;
    if let Some((_, _, expected)) = known {
        let actual = install::sha256_bytes(&lib);
        if actual != *expected {
            return Err(InstallError::HashMismatch {
                file: format!("{file_name}: pypdfium2_raw/{PDFIUM_FILE}"),
                actual,
                expected: (*expected).to_string(),
            });
        }
    }
    let new_dir = staging.path().join("pdfium");
    std::fs::create_dir_all(&new_dir).map_err(install::io("creating the pdfium staging folder"))?;
    std::fs::write(new_dir.join(PDFIUM_FILE), lib).map_err(install::io("writing pdfium"))?;
    let target = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| data_dir.join("pdfium"));
    install::replace_dir(&new_dir, &target)?;
    report.installed = true;
    log(&format!("pdfium installed at {}", path.display()));
    Ok(report)
}
