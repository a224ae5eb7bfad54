//! End to end: the strategy board on the evaluation page, in the real binary under tmux, on a
//! small corpus of three documents with its own `questions.jsonl` (chunks of 128 tokens, so the
//! board has cuts to judge and stays quick). `3` shows the evaluation page, `s` runs the board
//! in the background; the test waits for the table and the verdict, walks the row cursor with
//! `↓`, presses `a` on a row of another family (its deployment settings reach the status line)
//! and on a Seams row (k and m reach the sliders and the status line says so). At 200 x 60 and
//! at 80 x 24, where the board's table is narrow and a long notice rises above the status line.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::tmux::Tmux;

const SUBJECTS: [&str; 10] = [
    "harbour pilots",
    "crane operators",
    "customs brokers",
    "tugboat crews",
    "night watchmen",
    "ferry captains",
    "dock surveyors",
    "cargo planners",
    "lock keepers",
    "rail shunters",
];
const ACTIONS: [&str; 8] = [
    "inspect the mooring lines",
    "record the tide tables",
    "repaint the warning buoys",
    "weigh the timber shipments",
    "check the refrigerated containers",
    "sound the fog horns",
    "measure the channel depth",
    "seal the bonded warehouses",
];
const REASONS: [&str; 6] = [
    "before the autumn storms arrive",
    "because the insurers demand it",
    "after every spring flood",
    "whenever the river freezes",
    "so that the audit passes",
    "while the lighthouse is dark",
];

/// A document written: its file name, its text and its sentences' byte spans.
struct Doc {
    name: String,
    text: String,
    sentences: Vec<(usize, usize)>,
}

/// Three documents of about 350 tokens, each sentence a different combination.
fn write_corpus(dir: &Path) -> Vec<Doc> {
    let mut docs = Vec::new();
    for d in 0..3 {
        let mut text = format!("# Port log {d}\n\n");
        let mut spans = Vec::new();
        for i in 0..24 {
            let n = d * 24 + i;
            let sentence = format!(
                "On day {n} the {} {} {}.",
                SUBJECTS[n % SUBJECTS.len()],
                ACTIONS[(n / 3) % ACTIONS.len()],
                REASONS[(n * 7 / 5) % REASONS.len()]
            );
            let start = text.len();
            text.push_str(&sentence);
            spans.push((start, text.len()));
            text.push(if i % 6 == 5 { '\n' } else { ' ' });
            if i % 6 == 5 {
                text.push('\n');
            }
        }
        let name = format!("log-{d}.md");
        std::fs::write(dir.join(&name), &text).unwrap_or_else(|e| panic!("{e}"));
        docs.push(Doc {
            name,
            text,
            sentences: spans,
        });
    }
    docs
}

/// Ten gold questions over one to four sentences each, so some evidence crosses a cut.
fn write_questions(dir: &Path, docs: &[Doc]) {
    let mut lines = Vec::new();
    for q in 0..10 {
        let Doc {
            name,
            text,
            sentences: spans,
        } = &docs[q % docs.len()];
        let first = (q * 7) % (spans.len() - 4);
        let count = 1 + q % 4;
        let (start, end) = (spans[first].0, spans[first + count - 1].1);
        let quote = &text[start..end];
        let question = quote
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 4)
            .take(8)
            .collect::<Vec<_>>()
            .join(" ");
        lines.push(
            serde_json::json!({
                "id": format!("Q{q:02}"),
                "question": question,
                "doc": name,
                "spans": [{"start": start, "end": end, "text": quote}],
            })
            .to_string(),
        );
    }
    std::fs::write(dir.join("questions.jsonl"), lines.join("\n") + "\n")
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The table line under the cursor (`▶ label …`), if one shows.
fn selected_row(screen: &str) -> Option<String> {
    screen
        .lines()
        .find_map(|l| l.trim_start_matches('│').trim_start().strip_prefix("▶ "))
        .map(|l| l.to_string())
}

/// What the status line says: on a compact screen a long notice is wrapped on the last rows,
/// so they are joined back into one line.
fn said(screen: &str, compact: bool) -> String {
    if !compact {
        return screen.to_string();
    }
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len().saturating_sub(3)..]
        .iter()
        .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn tui_the_strategy_board_runs_and_a_row_is_applied_in_tmux() {
    strategy_board(200, 60);
}

#[test]
fn tui_the_strategy_board_runs_and_a_row_is_applied_in_tmux_at_80_by_24() {
    strategy_board(80, 24);
}

fn strategy_board(width: u16, height: u16) {
    let compact = width < 120;
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cache) = (work.path().join("port"), work.path().join("cache"));
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    let written = write_corpus(&docs);
    write_questions(&docs, &written);
    let config = work.path().join("settings.toml");
    std::fs::write(&config, "chunk_tokens = 128\nbudget = 3\nm = 2\n")
        .unwrap_or_else(|e| panic!("{e}"));

    let tmux = Tmux::start_sized(work.path(), &format!("board{width}"), width, height);
    tmux.shell("export PS1='e2e$ '");
    tmux.shell(&format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --config '{}' '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        config.display(),
        docs.display()
    ));
    // A compact screen shows the text first; the header counts the documents either way.
    // (a narrow header counts them in short words).
    let ready = if compact {
        ["3 docs", " tok · "]
    } else {
        ["Documents · 3", "chunks of 128 tokens"]
    };
    tmux.wait_for(&ready, 300);

    tmux.type_text("3");
    tmux.wait_for(&["strategies under one budget", "s board"], 10);
    // `s` runs the board once the vectors are in (before, the board says to wait for them).
    let board = loop {
        tmux.type_text("s");
        let screen = tmux.wait_until("the board or a request to wait", 240, |s| {
            s.contains("verdict: ") || s.contains("still being embedded")
        });
        if screen.contains("verdict: ") {
            break tmux.wait_for(&["strategy board on 10 questions", "verdict: "], 10);
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{screen}");
        std::thread::sleep(Duration::from_secs(1));
    };
    assert!(board.contains("p_best"), "{board}");
    assert!(board.contains("◆"), "Pareto rows are marked:\n{board}");
    assert!(
        board.contains("% ["),
        "failure rates with intervals:\n{board}"
    );
    assert!(
        board.contains("winner: ") || board.contains("tied among"),
        "{board}"
    );
    assert!(
        selected_row(&board).is_some(),
        "the cursor is on the first row:\n{board}"
    );
    // Every family has its rows: in its column, or on a compact screen (whose table shows a
    // few rows at a time, the family by the label's colour) in the labels, walked through.
    let (families, table) = if compact {
        let mut table = board.clone();
        let mut last = selected_row(&board);
        for _ in 0..60 {
            tmux.keys(&["Down"]);
            std::thread::sleep(Duration::from_millis(200));
            let screen = tmux.screen();
            let now = selected_row(&screen);
            table.push_str(&screen);
            if now == last {
                break;
            }
            last = now;
        }
        for _ in 0..8 {
            tmux.keys(&["PPage"]);
        }
        let first = selected_row(&board);
        tmux.wait_until("the cursor back on the first row", 10, |s| {
            selected_row(s) == first
        });
        (
            [
                "chunks only",
                "overlap",
                "windows",
                "neighbour",
                "SCAR",
                "Seams",
            ],
            table,
        )
    } else {
        (
            ["none", "overlap", "windows", "neighbour", "scar", "seams"],
            board.clone(),
        )
    };
    for family in families {
        assert!(
            table.contains(family),
            "family {family} on the board:\n{table}"
        );
    }

    // Walk down to a row of another family and to a Seams row, applying each.
    let mut applied_hint = false;
    let mut applied_seams = false;
    for _ in 0..12 {
        let screen = tmux.screen();
        let Some(row) = selected_row(&screen) else {
            panic!("no row under the cursor:\n{screen}");
        };
        if row.starts_with("Seams k") && !applied_seams {
            tmux.type_text("a");
            // `Seams k 30 m 3`, then maybe `+ side drop 0.30` (cut on a narrow table).
            let words: Vec<&str> = row.split_whitespace().take(5).collect();
            let (label, k) = (words.join(" "), words[2]);
            // A folded row (`m 26–30`: margins with the same outcome) applies its middle
            // member's m.
            let (lo, hi) = match words[4].split_once('–') {
                Some((a, b)) => (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap()),
                None => (words[4].parse().unwrap(), words[4].parse().unwrap()),
            };
            let applied = format!("applied {label}");
            let values = format!(": k = {k}, m = ");
            let screen = tmux.wait_until("the row applied", 10, |s| {
                let said = said(s, compact);
                said.contains(&applied) && said.contains(&values)
            });
            let said = said(&screen, compact);
            let m: u32 = said
                .split(&values)
                .nth(1)
                .and_then(|rest| rest.split(',').next())
                .and_then(|m| m.trim().parse().ok())
                .unwrap_or_else(|| panic!("no m in the status line:\n{screen}"));
            assert!((lo..=hi).contains(&m), "{m} outside {lo}–{hi}:\n{said}");
            // The k and m sliders show the row's values.
            tmux.wait_for(&[&format!("▸{k:>4}"), &format!("▸{m:>4}")], 10);
            applied_seams = true;
        } else if !row.starts_with("Seams k") && !applied_hint {
            tmux.type_text("a");
            tmux.wait_until("the deployment in the status line", 10, |s| {
                said(s, compact).contains("in your own pipeline: ")
            });
            applied_hint = true;
        }
        if applied_hint && applied_seams {
            break;
        }
        tmux.keys(&["Down"]);
        tmux.wait_until("the cursor to move", 10, |s| {
            selected_row(s) != Some(row.clone())
        });
    }
    assert!(applied_hint, "a row of another family was applied");
    assert!(applied_seams, "a Seams row was applied");

    // `o` judges only the strategies that store each passage once: overlap is left out, and
    // the board says who would lead without the constraint.
    tmux.type_text("o");
    let judged = tmux.wait_for(&["judged among", "each passage stored once"], 30);
    // A row's own mark, not the legend's (which says what ⊘ means).
    assert!(
        judged
            .lines()
            .any(|l| l.contains('⊘') && !l.contains("left out")),
        "left-out rows are marked:\n{judged}"
    );
    tmux.type_text("o");
    tmux.wait_until("the constraint off again", 30, |s| {
        !s.contains("judged among")
    });

    // Tab shows the map view, waiting for v.
    tmux.keys(&["Tab"]);
    tmux.wait_for(&["to draw the evidence-length map"], 10);
    tmux.type_text("q");
    tmux.wait_for_prompt("strategy board", 10);
    let took = started.elapsed();
    eprintln!("the board test took {:.1}s", took.as_secs_f64());
    assert!(
        took < Duration::from_secs(600),
        "far slower than expected: {took:?}"
    );
}
