//! Actions routed by the type system (issue 40): every change to the screen's state is an
//! `Action` (or a page's own action type inside one), and the functions of `App` that take one
//! match it with every variant named. No arm is a catch-all (`_`, or a bare binding that takes
//! whatever is left), so an action added to an enum and handled nowhere does not compile,
//! rather than compiling and doing nothing.
//!
//! The rule reads the screen's state files (`src/tui/app.rs`, `src/tui/app/`) with comments and
//! strings blanked, finds each function whose argument is of an action type (a type named
//! `Action` or `…Action`) and each `match` on that argument in its body, and looks at the
//! pattern of each arm.

use super::{Source, line_of, sources};

/// A function taking an action: its name, the argument's name, and where its body starts.
struct Handler {
    name: String,
    argument: String,
    body: usize,
}

/// The functions in `code` with an argument of an action type (`action: Action`,
/// `action: EvalAction`).
fn handlers(code: &str) -> Vec<Handler> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + 3..];
        let Some(open) = rest.find('(') else { continue };
        let name = rest[..open].trim().to_string();
        let Some(close) = closing(rest, open) else {
            continue;
        };
        let params = &rest[open + 1..close];
        let Some(body) = rest[close..].find('{').map(|b| at + 3 + close + b) else {
            continue;
        };
        for param in params.split(',') {
            let Some((arg, ty)) = param.split_once(':') else {
                continue;
            };
            let ty = ty.trim();
            if ty == "Action" || (ty.ends_with("Action") && ty.chars().all(is_ident)) {
                found.push(Handler {
                    name: name.clone(),
                    argument: arg.trim().trim_start_matches("mut ").to_string(),
                    body,
                });
            }
        }
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The index of the bracket closing the one at `open` in `text` (any of `(`, `[`, `{`).
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The catch-all arms of the `match ARGUMENT {` expressions in the function body at `body`:
/// the offset of each arm whose pattern is `_` or a lone binding.
fn catch_alls(code: &str, handler: &Handler) -> Vec<usize> {
    let Some(end) = closing(code, handler.body) else {
        return Vec::new();
    };
    let body = &code[handler.body..=end];
    let head = format!("match {} {{", handler.argument);
    let mut found = Vec::new();
    for (at, _) in body.match_indices(&head) {
        let open = at + head.len() - 1;
        let Some(close) = closing(body, open) else {
            continue;
        };
        let arms = &body[open + 1..close];
        let mut depth = 0i32;
        let mut start = 0;
        let mut chars = arms.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth == 0 && c == '}' {
                        start = i + 1;
                    }
                }
                ',' if depth == 0 => start = i + 1,
                '=' if depth == 0 && chars.peek().is_some_and(|(_, n)| *n == '>') => {
                    let pattern = arms[start..i].trim();
                    let pattern = pattern.split(" if ").next().unwrap_or(pattern).trim();
                    let lone_binding = !pattern.is_empty()
                        && pattern.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                        && pattern.chars().all(is_ident);
                    if lone_binding {
                        let lead = arms[start..i].len() - arms[start..i].trim_start().len();
                        found.push(handler.body + open + 1 + start + lead);
                    }
                    start = i + 2;
                }
                _ => {}
            }
        }
    }
    found
}

/// The screen's state files: where actions are handled.
fn state_files() -> Vec<Source> {
    sources()
        .into_iter()
        .filter(|s| {
            let rel = s.rel();
            rel == "src/tui/app.rs" || rel.starts_with("src/tui/app/")
        })
        .collect()
}

#[test]
fn every_action_is_matched_by_name_never_by_a_catch_all() {
    let files = state_files();
    let mut handled = Vec::new();
    let mut problems = Vec::new();
    for source in &files {
        for handler in handlers(&source.code) {
            handled.push(handler.name.clone());
            for at in catch_alls(&source.code, &handler) {
                problems.push(format!(
                    "{}:{}: `{}` matches its {} with a catch-all arm: name each variant, so a \
                     new action that is handled nowhere does not compile",
                    source.rel(),
                    line_of(&source.code, at),
                    handler.name,
                    handler.argument
                ));
            }
        }
    }
    // The reader must see the router itself and the pages' own matches, or it checks nothing.
    for name in ["apply", "apply_calibration", "apply_evaluation"] {
        assert!(
            handled.iter().any(|h| h == name),
            "the rule did not find `fn {name}` taking an action among the screen's state files \
             (found {handled:?}): update tests/architecture/actions_routed.rs"
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_catch_all_arm_is_found_and_named_arms_are_not() {
    let code = "impl App {
        fn apply(&mut self, action: Action) -> Option<Action> {
            match action {
                Action::Quit => self.quit(),
                Action::Open { a, b } => { if a { b } }
                a @ (Action::One | Action::Two) => self.two(a),
                Action::Pick(x) if x > 1 => {}
                _ => {}
            }
            None
        }
        fn apply_page(&mut self, page_action: PageAction) {
            match page_action {
                PageAction::Run(w) => self.run(w),
                other => self.rest(other),
            }
        }
        fn draw(&self, frame: Frame) { match x { _ => {} } }
    }";
    let all: Vec<(String, usize)> = handlers(code)
        .iter()
        .flat_map(|h| {
            catch_alls(code, h)
                .into_iter()
                .map(|at| (h.name.clone(), line_of(code, at)))
        })
        .collect();
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["apply", "apply_page"], "{all:?}");
}
