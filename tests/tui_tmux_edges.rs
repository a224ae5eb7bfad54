//! Hard edges of the screen, in the real binary under tmux: a paste is text for the query box
//! (never commands, never a run), and SIGTERM, SIGHUP, SIGINT or SIGQUIT gives the terminal back
//! as quitting does (cursor shown) and exits with 128 + the signal's number; Ctrl-Z (or
//! SIGTSTP) gives the shell back its normal screen and `fg` brings the screen back, drawn.

mod common;

use std::path::Path;
use std::process::Command;

use common::tmux::Tmux;

fn corpus(dir: &Path) {
    let text: String = (0..40)
        .map(|i| {
            format!("Step {i}. Replicas serve stale reads while the lag is above five seconds. ")
        })
        .collect();
    std::fs::write(dir.join("runbook.md"), text).unwrap_or_else(|e| panic!("{e}"));
}

/// Start the screen on `corpus` and wait until it is open.
fn open(tmux: &Tmux, corpus: &Path, cache: &Path) {
    tmux.shell(&format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        corpus.display()
    ));
    tmux.wait_for(&["Documents · 1", "chunks of 1024 tokens"], 300);
}

/// The process id of the screen: the pane shell's one child.
fn screen_pid(tmux: &Tmux) -> String {
    let shell = tmux.format("#{pane_pid}");
    let out = Command::new("pgrep")
        .args(["-P", &shell])
        .output()
        .unwrap_or_else(|e| panic!("pgrep: {e}"));
    let pids = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        !pids.is_empty() && !pids.contains('\n'),
        "one child of {shell}: {pids:?}"
    );
    pids
}

/// The terminal is as the shell left it: no alternate screen, no mouse reports, the cursor
/// shown, line editing and echo on; the screen exited with `status`.
fn assert_terminal_given_back(tmux: &Tmux, after: &str, status: u32) {
    tmux.wait_for_prompt("Documents · 1", 10);
    assert_eq!(
        tmux.format(
            "#{alternate_on} #{mouse_any_flag} #{mouse_button_flag} #{mouse_standard_flag} #{cursor_flag}"
        ),
        "0 0 0 0 1",
        "after {after}: alternate screen and mouse capture are off, the cursor is shown"
    );
    tmux.shell("echo exit-status-$?");
    tmux.wait_until("the exit status", 10, |s| {
        s.lines()
            .any(|l| l.trim() == format!("exit-status-{status}"))
    });
    tmux.shell("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo; echo stty-done");
    let screen = tmux.wait_until("stty's answer", 10, |s| {
        s.lines().any(|l| l.trim() == "stty-done")
    });
    let lines: Vec<&str> = screen.lines().map(str::trim).collect();
    assert!(
        lines.contains(&"icanon") && lines.contains(&"echo"),
        "after {after}: line editing and echo are back on:\n{screen}"
    );
    tmux.shell("clear");
}

#[test]
fn tui_a_paste_is_text_and_a_signal_gives_the_terminal_back() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cache) = (work.path().join("docs"), work.path().join("cache"));
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    corpus(&docs);
    let tmux = Tmux::start(work.path(), "edges");
    tmux.shell("export PS1='e2e$ '");
    open(&tmux, &docs, &cache);
    assert_eq!(
        tmux.format("#{alternate_on} #{mouse_any_flag}"),
        "1 1",
        "the screen takes the terminal"
    );

    // A pasted `q` does not quit and a pasted newline runs nothing: it is all query text.
    tmux.paste("q\nwhy stale reads?\n");
    let pasted = tmux.wait_for(&["q why stale reads?"], 10);
    assert!(pasted.contains("Documents · 1"), "still open:\n{pasted}");
    assert!(!pasted.contains("fuse→fill"), "no question ran:\n{pasted}");

    // A long paste arrives whole, at once.
    let long = format!("{}THE-END", "x".repeat(4_993));
    tmux.paste(&long);
    tmux.wait_for(&["THE-END"], 5);

    // SIGTERM, SIGHUP, SIGINT and SIGQUIT give the terminal back, as quitting and panics do.
    for (i, (signal, number)) in [("TERM", 15), ("HUP", 1), ("INT", 2), ("QUIT", 3)]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            open(&tmux, &docs, &cache);
        }
        Command::new("kill")
            .args([&format!("-{signal}"), &screen_pid(&tmux)])
            .status()
            .unwrap_or_else(|e| panic!("kill: {e}"));
        assert_terminal_given_back(&tmux, &format!("SIG{signal}"), 128 + number);
    }
}

#[test]
fn tui_ctrl_z_gives_the_shell_its_screen_and_fg_draws_the_screen_again() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cache) = (work.path().join("docs"), work.path().join("cache"));
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    corpus(&docs);
    let tmux = Tmux::start(work.path(), "suspend");
    tmux.shell("export PS1='e2e$ '");
    open(&tmux, &docs, &cache);
    // Ctrl-Z, then `kill -TSTP` from outside: each is a suspension like a shell job's.
    for how in ["Ctrl-Z", "SIGTSTP"] {
        if how == "Ctrl-Z" {
            tmux.keys(&["C-z"]);
        } else {
            Command::new("kill")
                .args(["-TSTP", &screen_pid(&tmux)])
                .status()
                .unwrap_or_else(|e| panic!("kill: {e}"));
        }
        // The shell is back on its normal screen, with the mouse free and line editing on.
        let stopped = tmux.wait_until("the shell's job report", 10, |s| s.contains("Stopped"));
        assert!(
            !stopped.contains("Documents · 1"),
            "after {how}: the screen is gone:\n{stopped}"
        );
        assert_eq!(
            tmux.format("#{alternate_on} #{mouse_any_flag} #{cursor_flag}"),
            "0 0 1",
            "after {how}: normal screen, no mouse reports, the cursor shown"
        );
        tmux.shell("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo; echo stty-done");
        let screen = tmux.wait_until("stty's answer", 10, |s| {
            s.lines().any(|l| l.trim() == "stty-done")
        });
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        assert!(
            lines.contains(&"icanon") && lines.contains(&"echo"),
            "after {how}: line editing and echo are on:\n{screen}"
        );
        // fg: the screen takes the terminal again and draws every pane, with no shell text
        // left on it.
        tmux.shell("clear; fg");
        let back = tmux.wait_for(&["Documents · 1", "chunks of 1024 tokens"], 10);
        assert!(
            !back.contains("stty-done"),
            "after {how} and fg: drawn anew:\n{back}"
        );
        assert_eq!(
            tmux.format("#{alternate_on} #{mouse_any_flag}"),
            "1 1",
            "after {how} and fg: the screen holds the terminal again"
        );
        // And it answers keys: the help opens and closes.
        tmux.keys(&["?"]);
        tmux.wait_for(&["Ctrl-Z suspends (fg resumes)"], 10);
        tmux.keys(&["Escape"]);
        tmux.wait_until("the help to close", 10, |s| {
            !s.contains("Ctrl-Z suspends (fg resumes)")
        });
    }
    tmux.keys(&["q"]);
    assert_terminal_given_back(&tmux, "q after two suspensions", 0);
}

#[test]
fn tui_ctrl_z_under_a_parent_process_stops_the_whole_job_and_fg_resumes_it() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cache) = (work.path().join("docs"), work.path().join("cache"));
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    corpus(&docs);
    let tmux = Tmux::start(work.path(), "suspend-child");
    tmux.shell("export PS1='e2e$ '");
    // `bash -c '…; echo'` stays the screen's parent (it cannot exec the screen in its place):
    // stopping the screen alone once left bash waiting, the pane blank and Ctrl-C dead.
    tmux.shell(&format!(
        "bash -c \"SEAMSCOPE_CACHE_DIR='{}' '{}' '{}'; echo screen-done\"",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        docs.display()
    ));
    tmux.wait_for(&["Documents · 1", "chunks of 1024 tokens"], 300);
    tmux.keys(&["C-z"]);
    let stopped = tmux.wait_until("the shell's job report", 10, |s| s.contains("Stopped"));
    assert!(
        !stopped.contains("Documents · 1"),
        "the shell has the terminal back:\n{stopped}"
    );
    assert_eq!(
        tmux.format("#{alternate_on} #{mouse_any_flag} #{cursor_flag}"),
        "0 0 1",
        "normal screen, no mouse reports, the cursor shown"
    );
    tmux.shell("clear; fg");
    tmux.wait_for(&["Documents · 1", "chunks of 1024 tokens"], 10);
    tmux.keys(&["?"]);
    tmux.wait_for(&["Ctrl-Z suspends (fg resumes)"], 10);
    tmux.keys(&["Escape"]);
    tmux.wait_until("the help to close", 10, |s| {
        !s.contains("Ctrl-Z suspends (fg resumes)")
    });
    tmux.keys(&["q"]);
    tmux.wait_until("the parent going on after the screen", 10, |s| {
        s.lines().any(|l| l.trim() == "screen-done")
    });
}

#[test]
fn tui_ctrl_z_with_no_shell_to_resume_it_keeps_running_and_says_why() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cache) = (work.path().join("docs"), work.path().join("cache"));
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    corpus(&docs);
    let tmux = Tmux::start(work.path(), "suspend-no-shell");
    // The screen is the pane's own process: no shell started it, so a stopped screen would
    // never be continued.
    let started = tmux.run(&[
        "respawn-pane",
        "-k",
        "-t",
        "e2e",
        &format!(
            "env SEAMSCOPE_CACHE_DIR='{}' '{}' '{}'",
            cache.display(),
            env!("CARGO_BIN_EXE_seamscope"),
            docs.display()
        ),
    ]);
    assert!(started.status.success(), "{started:?}");
    tmux.wait_for(&["Documents · 1", "chunks of 1024 tokens"], 300);
    tmux.keys(&["C-z"]);
    tmux.wait_for(
        &["Ctrl-Z: no shell with job control started it", "q quits"],
        10,
    );
    // Still answering keys.
    tmux.keys(&["?"]);
    tmux.wait_for(&["Ctrl-Z suspends (fg resumes)"], 10);
}

/// A view file naming `corpus`, as `w` on the screen writes one.
fn view_file(dir: &Path, corpus: &Path) -> std::path::PathBuf {
    let view = serde_json::json!({
        "seamscope_view": 1,
        "corpus": corpus,
        "settings": {"m": 1, "budget": 5, "k": 150, "chunk_tokens": 1024,
                     "chunker": "fixed", "heading_prefix": false, "side_drop": null},
    });
    let path = dir.join("shared.view.json");
    std::fs::write(&path, view.to_string()).unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn tui_a_view_file_past_the_threshold_asks_before_embedding_and_no_opens_nothing() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (docs, cache) = (work.path().join("large"), work.path().join("cache"));
    std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    let prose = "The quick brown fox jumps over the lazy dog near the river bank. ";
    for i in 0..6 {
        std::fs::write(docs.join(format!("part-{i}.md")), prose.repeat(3000))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let view = view_file(work.path(), &docs);
    let tmux = Tmux::start(work.path(), "view-confirm");
    tmux.shell("export PS1='e2e$ '");
    let command = format!(
        "SEAMSCOPE_CACHE_DIR='{}' '{}' --open '{}'",
        cache.display(),
        env!("CARGO_BIN_EXE_seamscope"),
        view.display()
    );

    // "n" (or just Enter): nothing opens, nothing is embedded, exit 0.
    tmux.shell(&command);
    let asked = tmux.wait_for(&["[y/N]"], 120);
    assert!(
        asked.contains(&format!(
            "the view opens the corpus folder {}: 6 documents,",
            docs.display()
        )),
        "the folder and its size are named before the question:\n{asked}"
    );
    tmux.keys(&["n", "Enter"]);
    tmux.wait_for(&["not opened: nothing was embedded"], 30);
    tmux.shell("echo exit-status-$?");
    tmux.wait_for(&["exit-status-0"], 10);
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "0",
        "no screen was opened after no"
    );
    let vectors = cache.join("vectors");
    let embedded = std::fs::read_dir(&vectors).map_or(0, |d| d.count());
    assert_eq!(
        embedded,
        0,
        "nothing was embedded into {}",
        vectors.display()
    );

    // "y": the screen opens on the view's corpus.
    tmux.shell("clear");
    tmux.shell(&command);
    tmux.wait_for(&["[y/N]"], 120);
    tmux.keys(&["y", "Enter"]);
    tmux.wait_until("the screen on the view's corpus", 120, |s| {
        s.contains("Documents · ") && s.contains("part-0.md")
    });
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "1",
        "the screen took the terminal"
    );
    tmux.keys(&["q"]);
    tmux.wait_for_prompt("Documents · ", 30);
}
