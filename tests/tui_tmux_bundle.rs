//! End to end: a bundle exported from `sample-corpus/` opened on the screen with `--bundle`, in
//! tmux at 120 × 34 and at 80 × 24 (one pane at a time, Tab walking them): the header says it is
//! a read-only bundle, its documents and the bundle's settings are shown, a question runs through
//! every stage, `m` still replans, and a layout change (`K`) is refused with the reason.

mod common;

use std::path::PathBuf;

use common::tmux::Tmux;

#[test]
fn tui_a_bundle_opens_read_only_and_answers() {
    bundle_opens_read_only(120, 34);
}

#[test]
fn tui_a_bundle_opens_read_only_and_answers_at_80_by_24() {
    bundle_opens_read_only(80, 24);
}

fn bundle_opens_read_only(width: u16, height: u16) {
    let compact = width < 120;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Each size exports into a folder of its own (the two tests may run at once); both use the
    // cache the other sample-corpus tests share (its saves lock and merge, its indexes are
    // renamed into place whole), so the corpus is embedded once per run.
    let folder = if compact {
        "tui-bundle-80x24"
    } else {
        "tui-bundle"
    };
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(folder);
    std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{}: {e}", work.display()));
    let cache = common::sample_cache();
    let bundle = work.join("bundle");
    if bundle.exists() {
        std::fs::remove_dir_all(&bundle).unwrap_or_else(|e| panic!("{e}"));
    }
    let config = work.join("settings.toml");
    std::fs::write(&config, "").unwrap_or_else(|e| panic!("{e}"));
    let exported = common::seamscope(&cache)
        .args(["--config"])
        .arg(&config)
        .args([
            "export",
            "sample-corpus",
            "--m",
            "3",
            "--budget",
            "6",
            "--out",
        ])
        .arg(&bundle)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        exported.status.success(),
        "{}",
        String::from_utf8_lossy(&exported.stderr)
    );

    let tmux = Tmux::start_sized(&root, &format!("bundle{width}"), width, height);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    tmux.type_text(&format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --config '{}' --bundle '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        config.display(),
        bundle.display()
    ));
    tmux.keys(&["Enter"]);
    // A compact screen shows the text first; the header counts the documents either way.
    let documents = if compact {
        "13 docs"
    } else {
        "Documents · 13"
    };
    let opened = tmux.wait_for(&["(bundle, read-only)", documents], 300);
    assert!(
        opened.contains("m ◂") && opened.contains("   3 ") && opened.contains("   6 "),
        "the sliders start at the bundle's m 3 and budget 6:\n{opened}"
    );

    tmux.type_text("/");
    tmux.type_text("how long are audit logs kept");
    tmux.keys(&["Enter"]);
    let answered = if compact {
        // The ranking first; Tab walks to the fill, then round to the fire test and its m.
        let ranking = tmux.wait_for(&["Fused ranking ·"], 120);
        tmux.keys(&["Escape"]);
        let fill = tmux.tab_until("Budget fill");
        let fire = tmux.tab_until("Fire test ·");
        format!("{ranking}{fill}{fire}")
    } else {
        tmux.wait_for(&["Fused ranking ·", "Budget fill"], 120)
    };
    assert!(
        answered.contains("m = 3"),
        "the fire test runs with the bundle's m:\n{answered}"
    );
    tmux.keys(&["Escape"]);
    tmux.type_text("M");
    tmux.wait_for(&["m = 4"], 20);
    tmux.type_text("K");
    let refused = tmux.wait_for(&["a bundle is read-only"], 20);
    assert!(
        !refused.contains("rebuilding"),
        "nothing is rebuilt:\n{refused}"
    );
    tmux.type_text("q");
    tmux.wait_for_prompt(documents, 20);
}
