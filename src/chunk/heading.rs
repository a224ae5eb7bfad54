//! Heading paths: the chain of Markdown headings in force at any byte of a document, e.g.
//! `Order Service Design > 4. Interfaces > 4.2 Retries`.
//!
//! The path of an offset holds, for each level, the last heading that starts before it, dropping
//! deeper headings whenever a shallower one starts. A heading that starts exactly at the offset is
//! not in its path: a chunk that opens with its own heading carries only that heading's parents.

use super::markdown::Heading;

/// The headings in force at byte `offset`, outermost first. `headings` must be in document order.
pub fn heading_path(headings: &[Heading], offset: usize) -> Vec<&Heading> {
    let mut path: Vec<&Heading> = Vec::new();
    for h in headings.iter().take_while(|h| h.span.start < offset) {
        while path.last().is_some_and(|p| p.level >= h.level) {
            path.pop();
        }
        path.push(h);
    }
    path
}

/// A heading path as one line: titles joined with ` > `; empty when there are no headings.
pub fn path_line(path: &[&Heading]) -> String {
    path.iter()
        .map(|h| h.title.as_str())
        .collect::<Vec<_>>()
        .join(" > ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::markdown::{Dialect, outline};

    fn path_at(text: &str, offset: usize) -> String {
        path_line(&heading_path(
            &outline(text, Dialect::Markdown).headings,
            offset,
        ))
    }

    #[test]
    fn every_level_nests_and_shallower_headings_reset_deeper_ones() {
        let text = "# A\n## B\n### C\n#### D\n##### E\n###### F\nx\n## G\ny\n\nH\n===\nz";
        let x = text.find("x").unwrap_or(0);
        assert_eq!(path_at(text, x), "A > B > C > D > E > F");
        let y = text.find("y").unwrap_or(0);
        assert_eq!(path_at(text, y), "A > G");
        let z = text.find("z").unwrap_or(0);
        assert_eq!(
            path_at(text, z),
            "H",
            "a setext level-1 heading resets everything"
        );
    }

    #[test]
    fn a_heading_at_the_offset_is_not_its_own_parent() {
        let text = "# A\n## B\ntext";
        let b = text.find("## B").unwrap_or(0);
        assert_eq!(path_at(text, b), "A");
        assert_eq!(path_at(text, 0), "");
        assert_eq!(path_at(text, b + 1), "A > B");
    }

    #[test]
    fn skipped_levels_and_headings_in_fences() {
        let text = "# A\n### C\n```\n# not a heading\n```\n## B\nend";
        let end = text.find("end").unwrap_or(0);
        assert_eq!(path_at(text, end), "A > B");
        let fence = text.find("# not").unwrap_or(0);
        assert_eq!(path_at(text, fence), "A > C");
    }
}
