//! The layering, checked from the source against the one layer map, `layers.toml`: every file
//! belongs to one part, no arrow goes from a part to one above it, none of the map's forbidden
//! arrows is drawn, and ARCHITECTURE.md lists the same parts in the same order. Besides: the
//! engine never reaches into a terminal, argument-parsing or MCP crate, and neither the engine's
//! modules nor the files of one module form a loop; and measuring code passes its settings by
//! value, never through the engine's (`architecture/settings_by_value.rs`); and the screen's
//! actions are matched by name, never by a catch-all (`architecture/actions_routed.rs`); and no
//! file or too many functions grow past what a reader holds (`architecture/sizes.rs`).
//!
//! The check reads the `.rs` files themselves, with comments, doc comments and string literals
//! blanked out, and counts every `crate::<module>` path: in `use` lines (grouped ones included),
//! in inline paths and in `super::` chains that climb to the crate root.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "architecture/actions_routed.rs"]
mod actions_routed;
#[path = "architecture/settings_by_value.rs"]
mod settings_by_value;
#[path = "architecture/sizes.rs"]
mod sizes;

/// Crates only a front end may use.
const FRONT_END_CRATES: &[&str] = &["clap", "ratatui", "crossterm", "rmcp", "indicatif"];

/// Top-level modules of the binary crate: the front ends.
const FRONT_ENDS: &[&str] = &["cli", "tui"];

/// One source file: where it sits in the module tree and its code with comments and strings blanked.
struct Source {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

impl Source {
    fn top(&self) -> &str {
        self.module.first().map(String::as_str).unwrap_or("")
    }

    /// The file is part of the binary's front ends (or is the binary's root).
    fn is_front_end(&self) -> bool {
        self.path.ends_with("src/main.rs") || FRONT_ENDS.contains(&self.top())
    }

    fn rel(&self) -> String {
        let text = self.path.to_string_lossy();
        match text.find("src/") {
            Some(at) => text[at..].to_string(),
            None => text.into_owned(),
        }
    }
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect_rs(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            let module = module_of(&src, &path);
            Source {
                path,
                module,
                code: blank_comments_and_strings(&text),
            }
        })
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/calibrate/report.rs` is `calibrate::report`; `lib.rs` and `main.rs` are crate roots.
fn module_of(src: &Path, path: &Path) -> Vec<String> {
    let rel = path
        .strip_prefix(src)
        .expect("a file under src/")
        .with_extension("");
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts == ["lib"] || parts == ["main"] {
        Vec::new()
    } else {
        parts
    }
}

/// The code with every comment (line, block, doc) and every string or char literal replaced by
/// spaces, so that a path written in prose or in a message is never counted. Line breaks stay.
fn blank_comments_and_strings(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: &[u8]| {
        out.extend(from.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }));
    };
    let ident_before =
        |i: usize| i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
    while i < bytes.len() {
        let rest = &bytes[i..];
        let end = if rest.starts_with(b"//") {
            i + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            loop {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break j;
                    }
                } else {
                    j += 1;
                }
            }
        } else if let Some(len) = raw_string_len(rest).filter(|_| !ident_before(i)) {
            i + len
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else if rest[0] == b'\'' {
            char_literal_len(rest).map_or(i, |len| i + len)
        } else {
            i
        };
        if end > i {
            blank(&mut out, &bytes[i..end]);
            i = end;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 (only ASCII is replaced, whole)")
}

/// Length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at the start of `rest`.
fn raw_string_len(rest: &[u8]) -> Option<usize> {
    let start = if rest.starts_with(b"br") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        return None;
    };
    let hashes = rest[start..].iter().take_while(|&&b| b == b'#').count();
    if rest.get(start + hashes) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = start + hashes + 1;
    let at = rest[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(body + at + close.len())
}

/// Length of a char literal at the start of `rest` (`'a'`, `'\n'`, `'\''`, `'é'`), or `None` for
/// a lifetime or label (`'a`, `'static`).
fn char_literal_len(rest: &[u8]) -> Option<usize> {
    if rest.get(1) == Some(&b'\\') {
        let close = rest[3..].iter().position(|&b| b == b'\'')?;
        return Some(3 + close + 1);
    }
    let text = std::str::from_utf8(&rest[1..rest.len().min(6)])
        .ok()
        .or_else(|| {
            // A multi-byte char cut at the slice's end: retry on whole chars.
            (2..6)
                .rev()
                .find_map(|n| std::str::from_utf8(rest.get(1..n)?).ok())
        })?;
    let ch = text.chars().next()?;
    let after = 1 + ch.len_utf8();
    (rest.get(after) == Some(&b'\'')).then_some(after + 1)
}

/// Every module path this file names, resolved to absolute segments (`crate::a::b`, `super::x`
/// climbing to the root, grouped `use crate::{a, b::c}`), with the line it sits on.
fn crate_paths(source: &Source) -> Vec<(Vec<String>, usize)> {
    let code = &source.code;
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate") {
        if !starts_word(code, at) || !code[at + 5..].trim_start().starts_with("::") {
            continue;
        }
        let after = skip_sep(code, at + 5);
        found.extend(
            path_or_group(code, after, &[])
                .into_iter()
                .map(|p| (p, line_of(code, at))),
        );
    }
    for (at, _) in code.match_indices("super") {
        if !starts_word(code, at) || (at >= 2 && code[..at].trim_end().ends_with("::")) {
            continue;
        }
        let mut base = source.module.clone();
        base.extend(inline_modules_around(code, at));
        let mut pos = at;
        while code[pos..].starts_with("super") && code[pos + 5..].trim_start().starts_with("::") {
            base.pop();
            pos = skip_sep(code, pos + 5);
        }
        if pos == at {
            continue;
        }
        found.extend(
            path_or_group(code, pos, &base)
                .into_iter()
                .map(|p| (p, line_of(code, at))),
        );
    }
    found
}

/// Names of the inline modules (`mod tests { … }`) that enclose `at`, outermost first: a `super::`
/// inside one climbs out of it before it leaves the file's module.
fn inline_modules_around(code: &str, at: usize) -> Vec<String> {
    let mut names = Vec::new();
    for (start, _) in code[..at].match_indices("mod ") {
        if start > 0
            && code[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &code[start + 4..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = code.len() - after.len();
        let mut depth = 0;
        let close = code[open..].char_indices().find_map(|(i, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(open + i)
        });
        if close.is_none_or(|close| close > at) {
            names.push(name);
        }
    }
    names
}

fn starts_word(code: &str, at: usize) -> bool {
    let before = code[..at].chars().next_back();
    let after = code[at..].chars().nth(5);
    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Position just past `::` and any whitespace around it.
fn skip_sep(code: &str, at: usize) -> usize {
    let rest = &code[at..];
    let trimmed = rest.trim_start();
    let past = &trimmed[2..];
    code.len() - past.trim_start().len()
}

/// The paths starting at `at`: one plain path, or every branch of a `{…}` group (nested too).
fn path_or_group(code: &str, at: usize, prefix: &[String]) -> Vec<Vec<String>> {
    let rest = &code[at..];
    if let Some(group) = rest.strip_prefix('{') {
        let mut paths = Vec::new();
        let mut depth = 0;
        let mut item_start = 0;
        for (i, ch) in group.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths.extend(path_or_group(code, at + 1 + item_start, prefix));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths.extend(path_or_group(code, at + 1 + item_start, prefix));
                    item_start = i + 1;
                }
                _ => {}
            }
        }
        return paths;
    }
    let trimmed = rest.trim_start();
    let at = code.len() - trimmed.len();
    let ident: String = trimmed
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if ident.is_empty() {
        return vec![prefix.to_vec()];
    }
    let mut path = prefix.to_vec();
    if ident != "self" {
        path.push(ident.clone());
    }
    let next = at + ident.len();
    if code[next..].trim_start().starts_with("::") {
        return path_or_group(code, skip_sep(code, next), &path);
    }
    vec![path]
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

/// A use of an outside crate by name: `use clap::…`, `clap::Parser`, `extern crate clap`.
fn names_crate(code: &str, name: &str) -> Option<usize> {
    code.match_indices(name).find_map(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = &code[at + name.len()..];
        let word_before = before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        let path = after.trim_start().starts_with("::");
        let extern_crate = code[..at].trim_end().ends_with("extern crate");
        let used =
            code[..at].trim_end().ends_with("use") && after.trim_start().starts_with([';', ' ']);
        (!word_before && (path || extern_crate || used)).then(|| line_of(code, at))
    })
}

#[test]
fn the_engine_never_reaches_up_into_a_front_end_or_its_crates() {
    let mut problems = Vec::new();
    for source in sources().iter().filter(|s| !s.is_front_end()) {
        for (path, line) in crate_paths(source) {
            if path
                .first()
                .is_some_and(|top| FRONT_ENDS.contains(&top.as_str()))
            {
                problems.push(format!(
                    "{}:{line}: engine uses crate::{}",
                    source.rel(),
                    path.join("::")
                ));
            }
        }
        for name in FRONT_END_CRATES {
            if let Some(line) = names_crate(&source.code, name) {
                problems.push(format!(
                    "{}:{line}: engine uses the `{name}` crate",
                    source.rel()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the engine reaches up:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_screen_never_uses_the_cli_as_a_library() {
    // `cli` → `tui` is the one arrow between the front ends: the dispatcher opens the screen and
    // `bench` times it. The screen calls the engine, never the CLI's parsing or rendering.
    let problems: Vec<String> = sources()
        .iter()
        .filter(|s| s.top() == "tui")
        .flat_map(|source| {
            crate_paths(source)
                .into_iter()
                .filter(|(path, _)| path.first().is_some_and(|top| top == "cli"))
                .map(|(path, line)| {
                    format!("{}:{line}: uses crate::{}", source.rel(), path.join("::"))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        problems.is_empty(),
        "the screen uses the CLI:\n{}",
        problems.join("\n")
    );
}

/// Arrows from a module to the modules it names, each with the places (`file:line`) that draw it.
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// Arrows between sibling modules anywhere in the tree, keyed by their parent (`""` for the
/// crate roots, `cli` for the files under `src/cli/`, `tui::app` for those under
/// `src/tui/app/`), each with the places (`file:line`) that draw it. A path counts at the level
/// where it leaves the file's own branch: `crate::cli::tune_args::TuneArgs` named in
/// `src/cli/board.rs` is the arrow `board → tune_args` under `cli`; a path into the file's
/// own ancestors (a child using its parent's items) or to an item that is no module draws none.
/// Test code is left out: files a parent declares under `#[cfg(test)]` and inline
/// `#[cfg(test)] mod … { … }` blocks (a test may use any module it checks).
fn sibling_graphs(sources: &[Source]) -> BTreeMap<String, Graph> {
    let modules: BTreeSet<Vec<String>> = sources
        .iter()
        .flat_map(|s| (1..=s.module.len()).map(|n| s.module[..n].to_vec()))
        .collect();
    let tests = test_only_modules(sources);
    let mut graphs: BTreeMap<String, Graph> = BTreeMap::new();
    for source in sources.iter().filter(|s| !s.module.is_empty()) {
        if (1..=source.module.len()).any(|n| tests.contains(&source.module[..n])) {
            continue;
        }
        let source = Source {
            path: source.path.clone(),
            module: source.module.clone(),
            code: without_test_blocks(&source.code),
        };
        let source = &source;
        for (path, line) in crate_paths(source) {
            let shared = source
                .module
                .iter()
                .zip(&path)
                .take_while(|(a, b)| a == b)
                .count();
            if shared >= source.module.len() || shared >= path.len() {
                continue;
            }
            if !modules.contains(&path[..=shared]) {
                continue;
            }
            let parent = source.module[..shared].join("::");
            graphs
                .entry(parent)
                .or_default()
                .entry(source.module[shared].clone())
                .or_default()
                .entry(path[shared].clone())
                .or_default()
                .push(format!("{}:{line}", source.rel()));
        }
    }
    graphs
}

/// The modules declared with `#[cfg(test)] mod name;`: test-only files.
fn test_only_modules(sources: &[Source]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for source in sources {
        for (at, _) in source.code.match_indices("#[cfg(test)]") {
            let rest = source.code[at + 12..].trim_start();
            let rest = rest.strip_prefix("pub ").unwrap_or(rest).trim_start();
            let Some(rest) = rest.strip_prefix("mod ") else {
                continue;
            };
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if rest.trim_start()[name.len()..]
                .trim_start()
                .starts_with(';')
            {
                let mut module = source.module.clone();
                module.push(name);
                out.insert(module);
            }
        }
    }
    out
}

/// `code` with every inline `#[cfg(test)] mod name { … }` block blanked (line breaks kept).
fn without_test_blocks(code: &str) -> String {
    let mut out = code.to_string();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let rest = &code[at + 12..];
        let trimmed = rest.trim_start();
        let Some(after_mod) = trimmed.strip_prefix("mod ") else {
            continue;
        };
        let Some(open) = after_mod.find(['{', ';']) else {
            continue;
        };
        if after_mod.as_bytes()[open] != b'{' {
            continue;
        }
        let start = code.len() - after_mod.len() + open;
        let mut depth = 0;
        let Some(end) = code[start..].char_indices().find_map(|(i, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(start + i + 1)
        }) else {
            continue;
        };
        // Same byte length: a multi-byte char becomes as many spaces; line breaks stay.
        let blank: String = code[at..end]
            .chars()
            .map(|c| {
                if c == '\n' {
                    "\n".to_string()
                } else {
                    " ".repeat(c.len_utf8())
                }
            })
            .collect();
        out.replace_range(at..end, &blank);
    }
    out
}

/// The groups of modules that reach each other (strongly connected, more than one module).
fn loops(graph: &Graph) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = graph
        .keys()
        .chain(graph.values().flat_map(|e| e.keys()))
        .collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for next in graph.get(&n).into_iter().flat_map(|e| e.keys()) {
                if out.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        out
    };
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for &start in &nodes {
        let from_start = reach(start);
        if !from_start.contains(start) || groups.iter().any(|g| g.contains(start)) {
            continue;
        }
        let group = nodes
            .iter()
            .filter(|&&n| from_start.contains(n) && reach(n).contains(start));
        groups.push(group.map(|n| n.to_string()).collect());
    }
    groups
}

#[test]
fn no_modules_anywhere_form_a_loop() {
    // Siblings at every level: the crate's top-level modules (engine and front ends alike), the
    // files of one module (`cli/board.rs` and `cli/tune.rs`), and deeper (`tui/app/`).
    let mut report = Vec::new();
    for (parent, graph) in sibling_graphs(&sources()) {
        let under = if parent.is_empty() {
            String::new()
        } else {
            format!("{parent}::")
        };
        for group in loops(&graph) {
            let arrows: Vec<String> = group
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .map(move |(to, places)| (from, to, places))
                })
                .filter(|(_, to, _)| group.contains(*to))
                .map(|(from, to, places)| {
                    let places: BTreeSet<&String> = places.iter().collect();
                    let places: Vec<&str> = places.into_iter().map(String::as_str).collect();
                    format!("    {under}{from} → {under}{to}: {}", places.join(", "))
                })
                .collect();
            let members: Vec<String> = group.iter().map(|m| format!("{under}{m}")).collect();
            report.push(format!(
                "{{{}}} reach each other:\n{}",
                members.join(", "),
                arrows.join("\n")
            ));
        }
    }
    assert!(report.is_empty(), "module loops:\n{}", report.join("\n"));
}

#[test]
fn a_loop_between_two_files_of_a_front_end_is_found() {
    // The circle issue 31 found, `cli/board.rs` ↔ `cli/tune.rs`, put back.
    let source = |file: &str, module: &[&str], code: &str| Source {
        path: PathBuf::from(file),
        module: module.iter().map(|m| m.to_string()).collect(),
        code: blank_comments_and_strings(code),
    };
    let tree = [
        source(
            "src/cli/board.rs",
            &["cli", "board"],
            "use super::tune::TuneArgs;",
        ),
        source(
            "src/cli/tune.rs",
            &["cli", "tune"],
            "fn f() { super::board::run_map(); }",
        ),
        source("src/cli.rs", &["cli"], "use crate::tui::run;"),
        source("src/tui.rs", &["tui"], ""),
    ];
    let graphs = sibling_graphs(&tree);
    assert_eq!(loops(&graphs["cli"]).len(), 1, "board ↔ tune is a loop");
    assert!(loops(&graphs[""]).is_empty(), "cli → tui alone is none");
}

#[test]
fn the_reader_sees_through_comments_strings_and_groups() {
    let code = blank_comments_and_strings(
        "// use crate::tui;\n/// crate::cli\n/* crate::cli /* nested */ */ let s = \"crate::cli\";\n\
         let r = r#\"crate::cli\"#; let c = '\"'; fn f<'a>(x: &'a str) {}\n\
         use crate::{settings::Settings, layout::{self, Layout}};\nlet x = crate::eval::grid::run();\n\
         use super::super::index;\nmod tests { use super::helper; }\n",
    );
    assert!(!code.contains("cli"), "{code}");
    let source = Source {
        path: PathBuf::from("src/a/b.rs"),
        module: vec!["a".into(), "b".into()],
        code,
    };
    let tops: BTreeSet<String> = crate_paths(&source)
        .into_iter()
        .filter_map(|(p, _)| p.first().cloned())
        .collect();
    assert_eq!(
        tops,
        ["a", "eval", "index", "layout", "settings"]
            .map(String::from)
            .into()
    );
    assert_eq!(names_crate("use clap::ValueEnum;", "clap"), Some(1));
    assert_eq!(names_crate("#[derive(clap::ValueEnum)]", "clap"), Some(1));
    assert_eq!(names_crate("let clap_like = 1; my::clap::x", "clap"), None);
}

/// The layer map, `layers.toml`.
#[derive(serde::Deserialize)]
struct LayerMap {
    part: Vec<Part>,
    #[serde(default)]
    forbid: Vec<Forbidden>,
}

#[derive(serde::Deserialize)]
struct Part {
    name: String,
    paths: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Forbidden {
    /// A path prefix (`src/export`): the files it covers.
    from: String,
    /// A top-level module (`session`).
    to: String,
}

fn layer_map() -> LayerMap {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("layers.toml");
    let text = std::fs::read_to_string(&path).expect("layers.toml is readable");
    toml::from_str(&text).expect("layers.toml is a layer map")
}

impl LayerMap {
    /// The part (its index, bottom first) a path under `src/` belongs to: the part whose
    /// listed file it is or whose listed folder holds it.
    fn part_of(&self, rel: &str) -> Option<usize> {
        self.part.iter().position(|p| {
            p.paths.iter().any(|q| {
                if q.ends_with('/') {
                    rel.starts_with(q.as_str())
                } else {
                    rel == q
                }
            })
        })
    }

    /// The part of top-level module `module`.
    fn part_of_module(&self, module: &str) -> Option<usize> {
        self.part_of(&format!("src/{module}.rs"))
            .or_else(|| self.part_of(&format!("src/{module}/")))
    }

    /// Every arrow `source` draws that the map forbids: up a part, or named in `forbid`.
    fn violations(&self, source: &Source) -> Vec<String> {
        let rel = source.rel();
        let Some(from) = self.part_of(&rel) else {
            return vec![format!("{rel} belongs to no part of layers.toml")];
        };
        let mut out = Vec::new();
        for (path, line) in crate_paths(source) {
            let Some(to) = path.first() else { continue };
            if to == source.top() {
                continue;
            }
            match self.part_of_module(to) {
                Some(p) if p > from => out.push(format!(
                    "{rel}:{line}: {} ({}) uses crate::{} ({}), a part above it",
                    source.top(),
                    self.part[from].name,
                    path.join("::"),
                    self.part[p].name
                )),
                None => out.push(format!("{rel}:{line}: crate::{to} belongs to no part")),
                _ => {}
            }
            for f in &self.forbid {
                if rel.starts_with(&f.from) && *to == f.to {
                    out.push(format!(
                        "{rel}:{line}: uses crate::{}: {} → {} is forbidden by layers.toml",
                        path.join("::"),
                        f.from,
                        f.to
                    ));
                }
            }
        }
        out
    }
}

#[test]
fn every_arrow_follows_the_layer_map() {
    let map = layer_map();
    let problems: Vec<String> = sources().iter().flat_map(|s| map.violations(s)).collect();
    assert!(
        problems.is_empty(),
        "arrows the layer map does not allow:\n{}",
        problems.join("\n")
    );
}

#[test]
fn each_of_the_old_violations_would_fail_the_map() {
    // The four arrows issue 31 found, put back one at a time into the file that drew them.
    let map = layer_map();
    for (file, module, line) in [
        (
            "src/settings.rs",
            "settings",
            "use crate::embed::device::Device;",
        ),
        (
            "src/settings.rs",
            "settings",
            "pub chunker: crate::chunk::ChunkerKind,",
        ),
        (
            "src/export.rs",
            "export",
            "use crate::calibrate::provenance::CalibrationOrigin;",
        ),
        (
            "src/export/read.rs",
            "export",
            "fn f(e: &mut crate::session::Engine) {}",
        ),
    ] {
        let mut module_path = vec![module.to_string()];
        if file.ends_with("read.rs") {
            module_path.push("read".into());
        }
        let source = Source {
            path: PathBuf::from(file),
            module: module_path,
            code: blank_comments_and_strings(line),
        };
        let found = map.violations(&source);
        assert!(!found.is_empty(), "{file}: {line} passes the map");
    }
    // And an arrow down is fine.
    let source = Source {
        path: PathBuf::from("src/session.rs"),
        module: vec!["session".into()],
        code: blank_comments_and_strings("use crate::export::read::read_bundle;"),
    };
    assert!(map.violations(&source).is_empty());
}

#[test]
fn architecture_md_draws_the_same_map() {
    // ARCHITECTURE.md's `layers` block lists each part, bottom first, as `name: path path …`.
    let map = layer_map();
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md is readable");
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("ARCHITECTURE.md has a ```layers block");
    let drawn: Vec<String> = block
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    let want: Vec<String> = map
        .part
        .iter()
        .rev()
        .map(|p| format!("{}: {}", p.name, p.paths.join(" ")))
        .collect();
    assert_eq!(
        drawn, want,
        "ARCHITECTURE.md's layers block (top first) differs from layers.toml"
    );
}
