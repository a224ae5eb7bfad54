//! Sizes a reader can hold (issue 40): no source file over 800 lines, and at most 18 functions
//! over 80 lines (counted by `scripts/long-functions.py`: from the `fn` line to its closing
//! brace, test code not counted). A new long file or function fails here with its name, so it is
//! split where it grows rather than later.

use std::path::Path;

/// The longest a source file may be, in lines.
const MAX_FILE_LINES: usize = 800;
/// How many functions may be over 80 lines.
const MAX_LONG_FUNCTIONS: usize = 18;

#[test]
fn no_source_file_is_over_800_lines() {
    let mut long = Vec::new();
    for source in super::sources() {
        let text = std::fs::read_to_string(&source.path).expect("a readable source file");
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            long.push(format!("{} ({lines} lines)", source.rel()));
        }
    }
    assert!(
        long.is_empty(),
        "split these into a module and its parts (see CONVENTIONS.md): {long:?}"
    );
}

#[test]
fn at_most_18_functions_are_over_80_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(root.join("scripts/long-functions.py"))
        .arg(root.join("src"))
        .output()
        .expect("python3 runs scripts/long-functions.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing = String::from_utf8_lossy(&out.stdout);
    let summary = listing.lines().last().unwrap_or("");
    let count: usize = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {summary:?}"));
    assert!(
        count <= MAX_LONG_FUNCTIONS,
        "{count} functions over 80 lines (at most {MAX_LONG_FUNCTIONS}); split the newest:\n{listing}"
    );
}
