//! The manual's checked examples run: every code block that the README or a page of `docs/src`
//! marks with a `<!-- checked -->` line right before its fence is run against the sample corpus
//! with the built binary, and what it prints must be what the page shows. The convention is in
//! docs/src/development.md ("Checked examples"):
//!
//! - a line `$ seamscope ARGS…` is a command, run in the repository root; the lines after it, up
//!   to the next `$ ` line, are its standard output;
//! - `…` inside a line stands for any text within that line (timings, paths, sizes);
//! - a line holding only `…` stands for any number of lines, none included;
//! - trailing spaces and blank lines at the ends do not count.

mod common;

use std::path::{Path, PathBuf};

use common::manual::{pages, root};

/// The line that marks the next fenced block as a checked example.
const MARKER: &str = "<!-- checked -->";
/// The mask: any text within a line, or alone on its line, any number of lines.
const ANY: &str = "…";

/// One checked example: where it is, and its commands with the output each should print.
struct Example {
    page: String,
    line: usize,
    steps: Vec<(String, Vec<String>)>,
}

/// The line that closes a block opened by `fence` (as many backticks).
fn fence_of(fence: &str) -> String {
    "`".repeat(fence.len() - fence.trim_start_matches('`').len())
}

/// The checked examples of one page.
fn examples_in(name: &str, text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("```") {
            // An unmarked block (which may show the marker itself): skip to its end.
            let close = fence_of(lines[i].trim());
            i = (i + 1..lines.len())
                .find(|&j| lines[j].trim_end() == close)
                .map_or(lines.len(), |j| j + 1);
            continue;
        }
        if lines[i].trim() != MARKER {
            i += 1;
            continue;
        }
        let fence_line = i + 1;
        let fence = lines.get(fence_line).map(|l| l.trim_end()).unwrap_or("");
        assert!(
            fence.starts_with("```"),
            "{name}:{}: `{MARKER}` must stand right before a code fence",
            i + 1
        );
        let close = fence_of(fence);
        let end = (fence_line + 1..lines.len())
            .find(|&j| lines[j].trim_end() == close)
            .unwrap_or_else(|| panic!("{name}:{}: the code fence is never closed", i + 2));
        let mut steps: Vec<(String, Vec<String>)> = Vec::new();
        for body in &lines[fence_line + 1..end] {
            match body.strip_prefix("$ ") {
                Some(command) => steps.push((command.to_string(), Vec::new())),
                None => match steps.last_mut() {
                    Some((_, output)) => output.push(body.to_string()),
                    None => panic!(
                        "{name}:{}: a checked example starts with a `$ seamscope …` line",
                        fence_line + 2
                    ),
                },
            }
        }
        assert!(!steps.is_empty(), "{name}:{}: no command", i + 1);
        out.push(Example {
            page: name.to_string(),
            line: fence_line + 1,
            steps,
        });
        i = end + 1;
    }
    out
}

/// A command line split as a POSIX shell splits it, for the quoting the pages use: words
/// separated by spaces, `"…"` and `'…'` quote, `\` escapes the next character outside `'…'`.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        q => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether one line of output matches one line of the page, `…` standing for any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split(ANY).collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the output matches the page: line by line, a line of only `…` standing for any
/// number of lines. On a mismatch, how far the best alignment got: the first line of the page
/// it could not match, and the line of the output it was compared with (both from 0).
fn output_matches(expected: &[String], actual: &[String]) -> Result<(), (usize, usize)> {
    fn go(e: &[String], a: &[String], ei: usize, ai: usize, furthest: &mut (usize, usize)) -> bool {
        if ei > furthest.0 {
            *furthest = (ei, ai);
        }
        if ei == e.len() {
            return ai == a.len();
        }
        if e[ei] == ANY {
            return (ai..=a.len()).any(|skip| go(e, a, ei + 1, skip, furthest));
        }
        ai < a.len() && line_matches(&e[ei], &a[ai]) && go(e, a, ei + 1, ai + 1, furthest)
    }
    let mut furthest = (0, 0);
    if go(expected, actual, 0, 0, &mut furthest) {
        Ok(())
    } else {
        Err(furthest)
    }
}

/// Lines without trailing spaces, and without blank lines at either end.
fn tidy<S: AsRef<str>>(lines: &[S]) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .map(|l| l.as_ref().trim_end().to_string())
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    let lead = out.iter().take_while(|l| l.is_empty()).count();
    out.drain(..lead);
    out
}

/// Run one command of a page and compare its output; the problem in words, if any.
fn run_step(example: &Example, command: &str, expected: &[String], cache: &Path) -> Option<String> {
    let words = shell_words(command);
    let at = format!("{}:{}: `$ {command}`", example.page, example.line);
    if words.first().map(String::as_str) != Some("seamscope") {
        return Some(format!("{at}: a checked command starts with `seamscope`"));
    }
    let out = common::seamscope(cache)
        .current_dir(root())
        .args(&words[1..])
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Some(format!(
            "{at} failed ({}):\n{}{}",
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let actual = tidy(&stdout.lines().collect::<Vec<_>>());
    let expected = tidy(expected);
    output_matches(&expected, &actual).err().map(|(page_line, output_line)| {
        let shown = |lines: &[String], at: usize| {
            let from = at.saturating_sub(3);
            (from..(at + 3).min(lines.len()))
                .map(|i| format!("{} {:>4} | {}", if i == at { ">" } else { " " }, i + 1, lines[i]))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!(
            "{at} no longer prints what the page shows.\n\
             the page's output (line {} of the block's output is the first that nothing matches):\n{}\n\
             what the command printed there:\n{}",
            page_line + 1,
            shown(&expected, page_line.min(expected.len().saturating_sub(1))),
            if output_line < actual.len() {
                shown(&actual, output_line)
            } else {
                "(the output ends here)".to_string()
            },
        )
    })
}

#[test]
fn checked_examples_print_what_the_pages_show() {
    // The cache the other sample-corpus tests share, so the corpus is embedded once per build folder.
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let mut examples = Vec::new();
    for path in pages() {
        let text = std::fs::read_to_string(&path).expect("the page is readable");
        let name = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        examples.extend(examples_in(&name, &text));
    }
    assert!(
        examples.iter().any(|e| e.page == "README.md") && examples.len() >= 4,
        "the README's tour and the manual should keep their checked examples (found {})",
        examples.len()
    );
    let mut problems = Vec::new();
    for example in &examples {
        for (command, expected) in &example.steps {
            problems.extend(run_step(example, command, expected, &cache));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of the checked examples failed:\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

#[test]
fn the_mask_matches_within_a_line_and_across_lines() {
    assert!(line_matches("indexed in … s", "indexed in 0.42 s"));
    assert!(line_matches("…", ""));
    assert!(line_matches("a … b … c", "a x b y c"));
    assert!(!line_matches("a … c", "a x b"));
    assert!(!line_matches("ab…ba", "aba"));
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        output_matches(&lines("a\n…\nd"), &lines("a\nb\nc\nd")),
        Ok(())
    );
    assert_eq!(output_matches(&lines("a\n…\nd"), &lines("a\nd")), Ok(()));
    assert_eq!(output_matches(&lines("a\nb"), &lines("a\nc")), Err((1, 1)));
    assert_eq!(
        output_matches(&lines("a\nb"), &lines("a\nb\nc")),
        Err((2, 2))
    );
    assert_eq!(
        shell_words(r#"query sample-corpus "Why is it?" 'a b' c\ d"#),
        ["query", "sample-corpus", "Why is it?", "a b", "c d"]
    );
}

#[test]
fn a_marker_before_a_fence_makes_an_example() {
    let page = "text\n<!-- checked -->\n```console\n$ seamscope chunks x\nout 1\n…\n$ seamscope atoms x\n```\n";
    let found = examples_in("page.md", page);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, 3);
    assert_eq!(found[0].steps.len(), 2);
    assert_eq!(found[0].steps[0].1, ["out 1", "…"]);
    assert!(examples_in("page.md", "```console\n$ seamscope chunks x\n```\n").is_empty());
    let shown = "````markdown\n<!-- checked -->\n```console\n$ seamscope x\n```\n````\n";
    assert!(examples_in("page.md", shown).is_empty());
}
