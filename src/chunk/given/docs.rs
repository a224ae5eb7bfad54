//! Finding the document a cuts record names. Splitters record the path they were handed:
//! absolute, relative to the corpus folder, or relative to wherever the script ran. A name
//! matches, in this order: as a path inside the corpus folder (absolute, or relative to the
//! current folder); as the corpus-relative path itself; by the longest corpus path it ends with;
//! by a unique corpus path that ends with it; by a unique file name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::CutsProblem;
use crate::corpus::{Corpus, DocId};

/// How many document paths an error lists before it says how many more there are.
const LISTED: usize = 8;

/// Matches record names to documents, remembering each answer.
pub struct DocMatcher<'a> {
    corpus: &'a Corpus,
    root: Option<PathBuf>,
    seen: HashMap<String, Result<DocId, CutsProblem>>,
}

impl<'a> DocMatcher<'a> {
    /// A matcher for the documents of `corpus`.
    pub fn new(corpus: &'a Corpus) -> Self {
        let root = std::fs::canonicalize(&corpus.root).ok().map(|r| {
            // A corpus that is one file: its path is its file name, relative to its folder.
            if r.is_file() {
                r.parent().map(Path::to_path_buf).unwrap_or(r)
            } else {
                r
            }
        });
        DocMatcher {
            corpus,
            root,
            seen: HashMap::new(),
        }
    }

    /// The document `name` refers to.
    pub fn find(&mut self, name: &str) -> Result<DocId, CutsProblem> {
        if let Some(found) = self.seen.get(name) {
            return found.clone();
        }
        let found = self.lookup(name);
        self.seen.insert(name.to_string(), found.clone());
        found
    }

    fn lookup(&self, name: &str) -> Result<DocId, CutsProblem> {
        let paths: Vec<&str> = self
            .corpus
            .documents
            .iter()
            .map(|d| d.path.as_str())
            .collect();
        let id = |i: usize| DocId(i as u32);
        if let Some(rel) = self.inside_root(name)
            && let Some(i) = paths.iter().position(|p| *p == rel)
        {
            return Ok(id(i));
        }
        match match_path(name, &paths) {
            Match::One(i) => return Ok(id(i)),
            Match::Many(c) => {
                return Err(CutsProblem::AmbiguousDocument {
                    name: name.to_string(),
                    candidates: c
                        .iter()
                        .map(|&i| paths[i].to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            Match::None => {}
        }
        let skipped: Vec<&str> = self
            .corpus
            .skipped
            .iter()
            .map(|s| s.path.as_str())
            .collect();
        if let Match::One(i) = match_path(name, &skipped) {
            let s = &self.corpus.skipped[i];
            return Err(CutsProblem::SkippedDocument {
                name: name.to_string(),
                path: s.path.clone(),
                reason: s.reason.to_string(),
            });
        }
        let mut known = paths
            .iter()
            .take(LISTED)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if paths.len() > LISTED {
            known.push_str(&format!(" and {} more", paths.len() - LISTED));
        }
        Err(CutsProblem::NoDocument {
            name: name.to_string(),
            known,
        })
    }

    /// `name` as a path under the corpus folder, `/`-separated, when it is one (absolute, or
    /// relative to the current folder).
    fn inside_root(&self, name: &str) -> Option<String> {
        let root = self.root.as_ref()?;
        let path = Path::new(name);
        let full = std::fs::canonicalize(path).ok()?;
        let rel = full.strip_prefix(root).ok()?;
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }
}

enum Match {
    None,
    One(usize),
    Many(Vec<usize>),
}

/// `name` with `/` separators and without its `.` parts, empty parts and the folder each `..`
/// climbs out of, as the file system would read it: `./a/./readme.md` is `a/readme.md`. A `..`
/// that climbs above the name's start is kept.
fn normalise(name: &str) -> String {
    let name = name.trim().replace('\\', "/");
    let name = name.strip_prefix("file://").unwrap_or(&name);
    let absolute = name.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Match a name against corpus-relative paths, without the file system.
fn match_path(name: &str, paths: &[&str]) -> Match {
    let name = normalise(name);
    let name = name.as_str();
    if let Some(i) = paths.iter().position(|p| *p == name) {
        return Match::One(i);
    }
    // The name ends with a corpus path: the longest such path is the one meant.
    if let Some((i, _)) = paths
        .iter()
        .enumerate()
        .filter(|(_, p)| name.ends_with(&format!("/{p}")))
        .max_by_key(|(_, p)| p.len())
    {
        return Match::One(i);
    }
    let unique = |found: Vec<usize>| match found.len() {
        0 => Match::None,
        1 => Match::One(found[0]),
        _ => Match::Many(found),
    };
    let tail: Vec<usize> = (0..paths.len())
        .filter(|&i| paths[i].ends_with(&format!("/{name}")))
        .collect();
    if !tail.is_empty() {
        return unique(tail);
    }
    let file_name = name.rsplit('/').next().unwrap_or(name);
    unique(
        (0..paths.len())
            .filter(|&i| paths[i].rsplit('/').next() == Some(file_name))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, paths: &[&str]) -> Option<usize> {
        match match_path(name, paths) {
            Match::One(i) => Some(i),
            _ => None,
        }
    }

    #[test]
    fn names_match_by_path_then_suffix_then_file_name() {
        let paths = ["a.md", "docs/a.md", "docs/b.md", "notes/deep/b.md", "c.txt"];
        assert_eq!(one("a.md", &paths), Some(0), "exact corpus path");
        assert_eq!(one("./docs/a.md", &paths), Some(1));
        assert_eq!(
            one("/home/me/corpus/docs/a.md", &paths),
            Some(1),
            "the longest corpus path it ends with"
        );
        assert_eq!(one("corpus\\c.txt", &paths), Some(4), "Windows separators");
        assert_eq!(
            one("deep/b.md", &paths),
            Some(3),
            "a corpus path that ends with it"
        );
        assert_eq!(one("c.txt", &paths), Some(4));
        assert_eq!(one("elsewhere/c.txt", &paths), Some(4));
        assert!(
            matches!(match_path("b.md", &paths), Match::Many(ref c) if c == &[2, 3]),
            "two files named b.md"
        );
        assert!(matches!(match_path("z.md", &paths), Match::None));
    }

    #[test]
    fn dot_parts_and_doubled_separators_name_the_same_path() {
        let paths = ["a/readme.md", "b/readme.md"];
        assert_eq!(one("./a/./readme.md", &paths), Some(0), "not ambiguous");
        assert_eq!(one("a//readme.md", &paths), Some(0));
        assert_eq!(one("b/x/../readme.md", &paths), Some(1));
        assert_eq!(one("/home/me/corpus/./b/readme.md", &paths), Some(1));
        assert_eq!(one(".\\a\\.\\readme.md", &paths), Some(0));
        assert_eq!(normalise("../../a/readme.md"), "../../a/readme.md");
        assert!(matches!(match_path("./readme.md", &paths), Match::Many(_)));
    }
}
