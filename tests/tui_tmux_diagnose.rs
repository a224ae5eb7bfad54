//! The diagnose page as a user meets it: the real binary in tmux on `sample-corpus/` with the
//! real model; `4` shows the page, `r` runs the doctor in the background, the findings the
//! sample's cuts cause (inside fenced blocks and tables) are listed with their places, and Enter
//! on an example opens its document in the text on the explore page.

mod common;

use std::path::PathBuf;

use common::tmux::Tmux;

#[test]
fn tui_the_diagnose_page_finds_the_sample_cuts_and_enter_shows_one() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The cache the other sample-corpus tests share, so the corpus is embedded once per run.
    let cache = common::sample_cache();

    let tmux = Tmux::start_sized(&root, "diagnose", 120, 34);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' sample-corpus",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["Documents · 13", "chunks of 1024 tokens"], 600);
    // The vectors must be in before anything is measured.
    tmux.wait_until("the vectors embedded", 600, |s| {
        !s.contains("embedding") && s.contains("Documents · 13")
    });

    tmux.type_text("4");
    tmux.wait_for(
        &["Diagnosis of the cuts", "Press r to diagnose this layout"],
        20,
    );
    tmux.type_text("r");
    let report = tmux.wait_for(&["score ", "/ 100", "finding"], 300);
    for finding in [
        "cuts inside a fenced block",
        "cuts inside a table",
        "atoms split",
    ] {
        assert!(report.contains(finding), "{finding}:\n{report}");
    }
    assert!(report.contains("why: "), "{report}");
    assert!(
        !report.contains('\u{1b}'),
        "no raw escape reaches the screen"
    );

    // The example under the cursor names its document and line; Enter shows it in the text.
    let selected = report
        .lines()
        .find(|l| l.contains("│  ▸ "))
        .unwrap_or_else(|| panic!("no example under the cursor:\n{report}"))
        .to_string();
    let place = selected
        .split("│  ▸ ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no place in {selected}"));
    let doc = place.split(':').next().unwrap_or(place);
    tmux.keys(&["Enter"]);
    // The text pane's title is the document's path (cut short when the pane is narrow).
    let title = format!("┌ {}", doc.chars().take(20).collect::<String>());
    let text = tmux.wait_until("the example's document in the text", 20, |s| {
        s.contains(&title)
    });
    assert!(
        text.contains("Documents · 13"),
        "back on the explore page:\n{text}"
    );
    tmux.type_text("q");
}
