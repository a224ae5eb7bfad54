//! The first run on a folder of PDFs, as a newcomer meets it: empty home, config, cache and data
//! folders, `seamscope FOLDER` at 80 x 24. It installs the model and ONNX Runtime, then fetches
//! pdfium because the folder holds PDFs (no `seamscope setup` first), and shows the PDFs' text
//! with their pages; the damaged PDF is counted in the header and listed with its reason by `?`.
//! pip installs from the wheels `scripts/test` keeps (SEAMSCOPE_TEST_WHEELHOUSE) with no index,
//! so nothing leaves the machine.

mod common;

use std::path::{Path, PathBuf};

use common::tmux::Tmux;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pdf")
        .join(name)
}

fn wheelhouse() -> PathBuf {
    std::env::var_os("SEAMSCOPE_TEST_WHEELHOUSE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "SEAMSCOPE_TEST_WHEELHOUSE is not set: scripts/test downloads the pinned wheels (model, ONNX \
                 Runtime, pypdfium2) into TARGET/wheelhouse and sets it"
            )
        })
}

#[test]
fn tui_first_run_on_a_folder_of_pdfs_fetches_pdfium_and_shows_their_pages_at_80_by_24() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let corpus = work.path().join("papers");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::copy(fixture("good.pdf"), corpus.join("ledger.pdf")).unwrap();
    std::fs::copy(fixture("truncated.pdf"), corpus.join("broken.pdf")).unwrap();
    let home = work.path().join("home");
    for d in ["home", "config", "cache", "data"] {
        std::fs::create_dir_all(work.path().join(d)).unwrap();
    }
    let tmux = Tmux::start_sized(work.path(), "pdffirst", 80, 24);
    tmux.shell("export PS1='e2e$ '");
    tmux.shell(&format!(
        "env -u SEAMSCOPE_DATA_DIR -u SEAMSCOPE_CACHE_DIR -u SEAMSCOPE_MODEL_DIR -u SEAMSCOPE_ORT_LIB -u SEAMSCOPE_PDFIUM_LIB \
         HOME='{home}' XDG_CONFIG_HOME='{w}/config' XDG_CACHE_HOME='{w}/cache' XDG_DATA_HOME='{w}/data' \
         PIP_NO_INDEX=1 PIP_FIND_LINKS='{wheels}' PIP_DISABLE_PIP_VERSION_CHECK=1 '{bin}' '{corpus}'",
        home = home.display(),
        w = work.path().display(),
        wheels = wheelhouse().display(),
        bin = env!("CARGO_BIN_EXE_seamscope"),
        corpus = corpus.display(),
    ));
    // The first page's text with its page, after the model and pdfium were installed.
    let screen = tmux.wait_for(
        &["ledger service settles payments", "p. 1", "skipped: ?"],
        600,
    );
    assert!(
        screen.contains("1 docs") && screen.contains("skipped: ?"),
        "the header counts the document read and the file skipped, and names the key:\n{screen}"
    );
    let pdfium = work
        .path()
        .join("data/seamscope/pdfium")
        .read_dir()
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(pdfium > 0, "pdfium is in the (new) data folder");
    // `?` lists the skipped file with its reason before the keys.
    tmux.type_text("?");
    let help = tmux.wait_for(&["Files skipped, and why"], 20);
    assert!(
        help.contains("broken.pdf: not a readable pdf"),
        "the damaged PDF with its reason:\n{help}"
    );
    tmux.keys(&["Escape"]);
    tmux.type_text("q");
    tmux.wait_for_prompt("ledger", 20);
}
