//! End to end at the smallest size that shows every pane, 120 x 34, and at 80 x 24 (the default
//! of most terminal programs, where the screen shows one pane at a time and Tab walks them): the
//! real binary in tmux on `sample-corpus/`, as a presenter uses it. It picks the worked example's question (A01) from the question picker and
//! finds its verdict, walks presenter mode from the first search list to the closing comparison,
//! pins the settings, changes `m` and finds both contexts, and checks that no line of those
//! screens ends cut (`…`) in the panes that carry the story.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::tmux::Tmux;

/// The lines of the screen without the status line (whose notice may be long).
fn body(screen: &str) -> Vec<&str> {
    let lines: Vec<&str> = screen.lines().collect();
    lines[..lines.len().saturating_sub(1)].to_vec()
}

/// The part of each line right of the text pane (the result panes), where no line may be cut;
/// on a compact screen, every line below the strip naming the panes (the pane shown).
fn results_column(screen: &str) -> Vec<String> {
    let lines = body(screen);
    match lines.iter().position(|l| l.contains("Tab panes:")) {
        Some(strip) => lines[strip + 1..].iter().map(|l| l.to_string()).collect(),
        None => lines
            .into_iter()
            .map(|l| l.chars().skip(60).collect::<String>())
            .collect(),
    }
}

/// Whether every `…` of `line` shortens a document name that follows a whole chunk id, as in
/// `chunk 40 (order-service-des…` (ids before titles); any other `…` is text cut off.
fn only_names_shortened(line: &str) -> bool {
    line.match_indices('…').all(|(at, _)| {
        let before = &line[..at];
        let Some(open) = before.rfind('(') else {
            return false;
        };
        let id = before[..open].trim_end();
        let digits = id.trim_end_matches(|c: char| c.is_ascii_digit());
        digits.len() < id.len() && digits.ends_with("chunk ")
    })
}

fn assert_nothing_cut(screen: &str, what: &str) {
    for line in results_column(screen) {
        assert!(
            only_names_shortened(&line),
            "{what}: a line of the result panes is cut: {line}\n{screen}"
        );
    }
}

#[test]
fn tui_presenter_mode_gold_verdict_and_pinned_settings_at_120_by_34() {
    presenter_mode_gold_verdict_and_pinned_settings(120, 34);
}

#[test]
fn tui_presenter_mode_gold_verdict_and_pinned_settings_at_80_by_24() {
    presenter_mode_gold_verdict_and_pinned_settings(80, 24);
}

fn presenter_mode_gold_verdict_and_pinned_settings(width: u16, height: u16) {
    let compact = width < 120;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tui-demo");
    std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{}: {e}", work.display()));
    let config = work.join("settings.toml");
    std::fs::write(&config, "m = 1\nbudget = 5\n").unwrap_or_else(|e| panic!("{e}"));
    // The cache the other sample-corpus tests share, so the corpus is embedded once per run.
    let cache = common::sample_cache();

    let tmux = Tmux::start_sized(&root, &format!("demo{width}"), width, height);
    tmux.type_text("export PS1='e2e$ '");
    tmux.keys(&["Enter"]);
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --config '{}' sample-corpus",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        config.display()
    );
    tmux.type_text(&command);
    tmux.keys(&["Enter"]);
    // A compact screen shows the text first; the header counts the documents either way.
    // (a narrow header counts them in short words).
    let ready = if compact {
        ["13 docs", "83 chunks"]
    } else {
        ["Documents · 13", "chunks of 1024 tokens"]
    };
    tmux.wait_for(&ready, 600);

    // The question picker lists questions.jsonl; Enter asks A01 with its gold evidence.
    tmux.type_text("l");
    let picker = tmux.wait_for(&["Questions · questions.jsonl · 130", "A01"], 20);
    assert!(picker.contains("boundary"), "{picker}");
    tmux.keys(&["Enter"]);
    let judged = if compact {
        // The ranking first, the seam firing in it; Tab walks to the comparison's verdict.
        let ranking = tmux.wait_for(&["Fused ranking ·", "▲ fires"], 60);
        assert_nothing_cut(&ranking, "the ranking");
        tmux.tab_until("A01 ✓ with")
    } else {
        tmux.wait_until("A01's verdict", 60, |s| {
            (s.contains("A01 ✓ with") || s.contains("A01 ✗ with")) && s.contains("Fused ranking ·")
        })
    };
    assert!(
        judged.contains("✗ wit") || judged.contains("without ✗"),
        "the seam's verdict:\n{judged}"
    );
    assert!(
        judged.contains("splits it") || judged.contains("whole in chunk"),
        "the verdict says why:\n{judged}"
    );
    assert_nothing_cut(&judged, "the answered question");

    // Presenter mode: the dense list first, nothing decided yet.
    tmux.type_text("s");
    let first = tmux.wait_for(&["Step 1 of", "Dense search ·"], 10);
    let panes = body(&first).join("\n");
    assert!(
        !panes.contains("▲ fires"),
        "no verdict before the fire test:\n{first}"
    );
    if !compact {
        assert!(first.contains("revealed at the"), "{first}");
    }
    assert_nothing_cut(&first, "the dense list");
    tmux.keys(&["Right"]);
    tmux.wait_for(&["BM25 over chunks ·"], 10);
    tmux.keys(&["Right"]);
    tmux.wait_for(&["BM25 over seams ·"], 10);
    tmux.keys(&["Right"]);
    let fused = tmux.wait_for(&["rank fusion", "= 1/(60+"], 10);
    assert_nothing_cut(&fused, "fusion");
    tmux.keys(&["Right"]);
    let fire = tmux.wait_for(&["fire test", "Fire test · m = 1 · 1 tested"], 10);
    assert_nothing_cut(&fire, "the first fire test");
    // On to the last step: the comparison with its verdict.
    for _ in 0..40 {
        tmux.keys(&["Right"]);
        std::thread::sleep(Duration::from_millis(150));
        if tmux.screen().contains("with vs without Seams") {
            break;
        }
    }
    let last = tmux.wait_for(
        &["with vs without Seams", "With Seams the context is chunks"],
        10,
    );
    assert!(last.contains("A01"), "the gold verdict at the end:\n{last}");
    assert_nothing_cut(&last, "the closing comparison");
    tmux.keys(&["Left"]);
    if compact {
        // One step back: the last slot of the budget fill, in its own pane.
        tmux.wait_for(&["budget fill"], 10);
    } else {
        tmux.wait_for(&["revealed at the"], 10);
    }
    tmux.keys(&["Escape"]);
    tmux.wait_until("presenter mode closed", 10, |s| {
        !s.contains("Step 1 of") && !s.contains(" · budget fill ─")
    });

    // Pin, move m, and both sides show.
    tmux.type_text("P");
    tmux.wait_for(&["Pinned vs now"], 10);
    tmux.type_text("MM");
    let pinned = tmux.wait_for(&["Pinned · m 1 · budget 5", "Now · m 3 · budget 5"], 10);
    assert_eq!(pinned.matches("context:").count(), 2, "{pinned}");
    assert_eq!(pinned.matches("fire tests:").count(), 2, "{pinned}");
    assert_nothing_cut(&pinned, "pinned settings");

    tmux.type_text("q");
    tmux.wait_for_prompt("Fused ranking", 10);
}
