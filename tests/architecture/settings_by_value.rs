//! Settings by value (issue 40): measuring code takes the settings it runs under as an argument
//! and never assigns the engine's. A measurement that swapped its budget into
//! `engine.settings` and put the old one back afterwards left the engine on the borrowed budget
//! when it panicked in between (the screen's worker catches the panic and carries on), so
//! every later question was answered under it.
//!
//! The rule reads every source file under `src/` (test code included) with comments and strings
//! blanked, statement by statement with the spaces taken out, and finds an engine's settings (a
//! receiver named `…engine`, or `self` in the engine's own files under `src/session`) on the
//! left of an assignment, in a tuple assigned at once, or borrowed `&mut` (`mem::replace`,
//! `mem::swap`). What may stand is listed in [`MAY_ASSIGN`], each with its reason.

use std::collections::BTreeMap;

use super::{Source, line_of, sources};

/// The assignments that may stand: the file, the statement without its spaces, and why. Opening
/// a corpus or a bundle sets the settings it was opened under, and a user's choice that stays
/// (not one a measurement borrows) is the engine's new state. Anything else passes its settings
/// by value: `board(engine, open, &settings, …)`, `diagnose(engine, open, &query, …)`.
const MAY_ASSIGN: &[(&str, &str, &str)] = &[
    (
        "src/session/bundle.rs",
        "self.settings=settings",
        "opening: a bundle's settings become the engine's with the corpus it opens",
    ),
    (
        "src/tui/worker/opening.rs",
        "engine.settings=build.settings",
        "opening: the layout the screen asked for is indexed under its settings, which stay",
    ),
    (
        "src/cli/atoms.rs",
        "engine.settings.chunker=kind",
        "opening: `atoms` opens the corpus under each chunker in turn, never going back",
    ),
    (
        "src/cli/bench/store.rs",
        "engine.settings.store=settings.store.clone()",
        "opening: `bench store` indexes the same layout again on the server it compares",
    ),
    (
        "src/cli/mcp.rs",
        "self.engine.settings.k=k",
        "a user's choice: the query tool's `k` lays the corpus out again and keeps that layout",
    ),
];

/// Each assignment to an engine's settings in `source`: its line and its statement with its
/// spaces taken out (one kept between two words).
fn settings_assignments(source: &Source) -> Vec<(usize, String)> {
    let own_engine = source.rel().starts_with("src/session");
    let code = &source.code;
    let mut found = Vec::new();
    let mut start = 0;
    for (at, c) in code.char_indices().chain([(code.len(), ';')]) {
        if !matches!(c, ';' | '{' | '}') {
            continue;
        }
        let text = &code[start..at];
        let statement = without_spaces(text);
        if assigns_settings(&statement, own_engine) {
            let first = text.len() - text.trim_start().len();
            found.push((line_of(code, start + first), statement));
        }
        start = at + c.len_utf8();
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `text` without its white space, except one space between two words (`&mut self`).
fn without_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && is_ident(c) && out.ends_with(is_ident) {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    out
}

/// Whether one statement assigns an engine's settings, or a field of them, or borrows them
/// `&mut`.
fn assigns_settings(statement: &str, own_engine: bool) -> bool {
    // `let pattern = value`: a pattern cannot name a field, so only the value can assign.
    let value = match statement.strip_prefix("let ") {
        Some(rest) => rest.find('=').map_or("", |at| &rest[at + 1..]),
        None => statement,
    };
    let assigned = assignment_at(value);
    settings_places(value, own_engine).into_iter().any(|at| {
        let borrowed = value[..at].ends_with("&mut ");
        borrowed || assigned.is_some_and(|eq| at < eq)
    })
}

/// Where each place naming an engine's settings starts in `statement`: `engine.settings`,
/// `self.engine.settings`, `w.engine.settings.budget` (a receiver whose name ends in
/// `engine`), and `self.settings` in the engine's own files.
fn settings_places(statement: &str, own_engine: bool) -> Vec<usize> {
    statement
        .match_indices(".settings")
        .filter(|(at, m)| !statement[at + m.len()..].starts_with(is_ident))
        .filter_map(|(at, _)| {
            let head = &statement[..at];
            let receiver = &head[head.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1)..];
            let receiver = receiver.to_ascii_lowercase();
            let engine = receiver.ends_with("engine") || (own_engine && receiver == "self");
            engine.then(|| {
                head.rfind(|c: char| !is_ident(c) && c != '.')
                    .map_or(0, |i| i + 1)
            })
        })
        .collect()
}

/// The first assignment operator in `text` (`=` or a compound one such as `+=`), not a
/// comparison (`==`, `!=`, `<=`, `>=`) or an arm (`=>`).
fn assignment_at(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    (0..b.len()).find(|&i| {
        b[i] == b'='
            && b.get(i + 1).is_none_or(|n| !matches!(n, b'=' | b'>'))
            && (i == 0 || !matches!(b[i - 1], b'=' | b'!' | b'<' | b'>'))
    })
}

#[test]
fn measuring_code_passes_settings_by_value() {
    let mut found: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for source in sources() {
        for (line, statement) in settings_assignments(&source) {
            found
                .entry((source.rel(), statement))
                .or_default()
                .push(line);
        }
    }
    let mut problems = Vec::new();
    for ((file, statement), lines) in &found {
        if !MAY_ASSIGN
            .iter()
            .any(|(f, s, _)| f == file && s == statement)
        {
            for line in lines {
                problems.push(format!(
                    "{file}:{line}: `{statement}` assigns the engine's settings; pass them by \
                     value to the call that needs them (or, for opening or a user's choice \
                     that stays, list it in MAY_ASSIGN with why)"
                ));
            }
        }
    }
    for (file, statement, why) in MAY_ASSIGN {
        if !found.contains_key(&(file.to_string(), statement.to_string())) {
            problems.push(format!(
                "{file}: MAY_ASSIGN lists `{statement}` ({why}), which is no longer there"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_old_save_and_restore_sites_would_fail_the_rule() {
    let check = |file: &str, code: &str| {
        settings_assignments(&Source {
            path: std::path::PathBuf::from(file),
            module: Vec::new(),
            code: super::blank_comments_and_strings(code),
        })
    };
    // The four sites issue 40 found, as they were written.
    for (file, code, want) in [
        (
            "src/board/alternative.rs",
            "let saved = engine.settings.clone();\nengine.settings.budget = report.setup.budget;\n\
             let run = board(engine, open, &questions);\nengine.settings = saved;",
            vec![2, 4],
        ),
        (
            "src/tui/worker/board.rs",
            "let saved = engine.settings.budget;\n        engine.settings.budget = budget;\n\
             let result = run(engine, &open, &mut report);\nengine.settings.budget = saved;",
            vec![2, 4],
        ),
        (
            "src/tui/panes/diagnose.rs",
            "let kept = (engine.settings.budget, engine.settings.m);\n\
             (engine.settings.budget, engine.settings.m) = (self.budget, self.m);",
            vec![2],
        ),
        (
            "src/cli/mcp/doctor.rs",
            "let kept = std::mem::replace(&mut self.engine.settings, settings);\n\
             let report = diagnose(&mut self.engine, &self.open);\nself.engine.settings = kept;",
            vec![1, 3],
        ),
        (
            "src/session.rs",
            "fn f(&mut self) { self.settings.m += 1; std::mem::swap(&mut self.settings, &mut s) }",
            vec![1, 1],
        ),
        (
            "src/tui/worker.rs",
            "let f = |m| w.engine\n    .settings\n    .m = m;",
            vec![1],
        ),
    ] {
        let lines: Vec<usize> = check(file, code).into_iter().map(|(l, _)| l).collect();
        assert_eq!(lines, want, "{file}: {code}");
    }
    // Reading them, building new settings from them, comparing them and passing the engine
    // itself are fine.
    let reads = "let saved = engine.settings.clone();\n\
                 let s = Settings { budget, ..engine.settings.clone() };\n\
                 let q = QuerySettings { m: self.m, ..engine.settings.query_settings() };\n\
                 if engine.settings.k == 3 || engine.settings.m <= 2 { x = 1; }\n\
                 board(&mut engine, &open, &engine.settings.clone());\n\
                 let b: Vec<u8> = vec![engine.settings.budget as u8];\n\
                 settings.budget = engine.settings.budget;\n\
                 self.settings.m = 3;\n\
                 // engine.settings.m = 3;\n\
                 let _ = \"engine.settings.m = 3\";";
    assert!(check("src/cli/eval.rs", reads).is_empty());
}
