//! The README and the manual (`docs/`, an mdBook) hold together: every relative link and `#anchor`
//! resolves, on GitHub and in the built book alike; SUMMARY.md lists every chapter; the README stays
//! short (CONVENTIONS: "The manual").

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use common::manual::{pages, root};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The README is for a newcomer's first ten minutes; everything else goes in the manual.
const README_MAX_BYTES: u64 = 15_000;

/// Markdown as GitHub and mdBook both read it (tables, footnotes, strikethrough).
fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(
        text,
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH,
    )
}

/// A heading's anchor as GitHub makes it: lower case; letters, digits, `_` and `-` kept; each
/// space a `-`; everything else dropped.
fn github_slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}

/// A heading's anchor as mdBook makes it (`normalize_id`): the same, but only ASCII letters are
/// lowered and any whitespace becomes `-`.
fn mdbook_slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// What the checks need of one page: its headings' text and its links (with the line of each).
struct Page {
    headings: Vec<(HeadingLevel, String)>,
    links: Vec<(usize, String)>,
}

fn read_page(path: &Path) -> Page {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut headings = Vec::new();
    let mut links = Vec::new();
    let mut heading: Option<(HeadingLevel, String)> = None;
    for (event, range) in parser(&text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => headings.extend(heading.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                links.push((line_of(range.start), dest_url.to_string()));
            }
            _ => {}
        }
    }
    Page { headings, links }
}

/// The anchors a page offers: each heading's slug, later repeats suffixed `-1`, `-2`, … (both
/// GitHub and mdBook do this). A heading whose GitHub and mdBook anchors differ offers neither,
/// since a link to it would break in one of the two.
fn anchors(page: &Page) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, heading) in &page.headings {
        let (gh, mb) = (github_slug(heading), mdbook_slug(heading));
        if gh != mb {
            continue;
        }
        let n = seen.entry(gh.clone()).or_insert(0);
        out.insert(if *n == 0 {
            gh.clone()
        } else {
            format!("{gh}-{n}")
        });
        *n += 1;
    }
    out
}

/// `a/b/../c` as `a/c`, without touching the file system (so a missing file is reported as such).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The problems with one link of `page`, if any.
fn check_link(page: &Path, dest: &str, cache: &mut BTreeMap<PathBuf, Page>) -> Option<String> {
    if dest.contains("://") || dest.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = match dest.split_once('#') {
        Some((f, a)) => (f, Some(a)),
        None => (dest, None),
    };
    let target = if file.is_empty() {
        page.to_path_buf()
    } else {
        normalise(&page.parent().expect("a page has a folder").join(file))
    };
    if !target.starts_with(root()) {
        return Some(format!("{dest} leads outside the repository"));
    }
    if !target.exists() {
        return Some(format!("{dest}: no such file ({})", target.display()));
    }
    let anchor = anchor?;
    if target.extension().is_none_or(|e| e != "md") {
        return Some(format!(
            "{dest}: an anchor into a file that is not Markdown"
        ));
    }
    let found = cache
        .entry(target.clone())
        .or_insert_with(|| read_page(&target));
    let offered = anchors(found);
    (!offered.contains(anchor)).then(|| {
        format!(
            "{dest}: no heading makes the anchor #{anchor} (the page offers: {})",
            offered.into_iter().collect::<Vec<_>>().join(", ")
        )
    })
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut cache = BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in pages() {
        let page = read_page(&path);
        for (line, dest) in &page.links {
            checked += 1;
            if let Some(problem) = check_link(&path, dest, &mut cache) {
                let shown = path.strip_prefix(root()).unwrap_or(&path).display();
                problems.push(format!("{shown}:{line}: {problem}"));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the parser reading the pages?"
    );
    assert!(
        problems.is_empty(),
        "{} broken links:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn summary_lists_every_chapter_and_only_chapters_that_exist() {
    let src = root().join("docs/src");
    let summary = read_page(&src.join("SUMMARY.md"));
    let listed: BTreeSet<PathBuf> = summary
        .links
        .iter()
        .map(|(_, dest)| normalise(&src.join(dest)))
        .collect();
    for chapter in pages().into_iter().filter(|p| p.starts_with(&src)) {
        if chapter.ends_with("SUMMARY.md") {
            continue;
        }
        assert!(
            listed.contains(&chapter),
            "{} is not listed in docs/src/SUMMARY.md, so the book leaves it out",
            chapter.display()
        );
    }
    for chapter in &listed {
        assert!(
            chapter.exists(),
            "SUMMARY.md lists {}, which does not exist",
            chapter.display()
        );
    }
}

#[test]
fn every_chapter_opens_with_one_title() {
    let src = root().join("docs/src");
    for chapter in pages().into_iter().filter(|p| p.starts_with(&src)) {
        if chapter.ends_with("SUMMARY.md") {
            continue;
        }
        let page = read_page(&chapter);
        let titles = page
            .headings
            .iter()
            .filter(|(level, _)| *level == HeadingLevel::H1)
            .count();
        assert_eq!(
            (titles, page.headings.first().map(|(l, _)| *l)),
            (1, Some(HeadingLevel::H1)),
            "{} should open with its one `# Title`",
            chapter.display()
        );
    }
}

#[test]
fn the_readme_stays_short() {
    let bytes = std::fs::metadata(root().join("README.md"))
        .expect("README.md exists")
        .len();
    assert!(
        bytes <= README_MAX_BYTES,
        "README.md is {bytes} bytes, over {README_MAX_BYTES}: move the detail into a chapter of docs/src"
    );
}

#[test]
fn slugs_follow_github_and_mdbook() {
    for (heading, slug) in [
        (
            "Models by name (fastembed's catalog)",
            "models-by-name-fastembeds-catalog",
        ),
        (
            "Rust library: the seams crate",
            "rust-library-the-seams-crate",
        ),
        (
            "An embedding service (openai:URL)",
            "an-embedding-service-openaiurl",
        ),
        (
            "Which strategy should I deploy?",
            "which-strategy-should-i-deploy",
        ),
        ("A question, step by step", "a-question-step-by-step"),
    ] {
        assert_eq!(github_slug(heading), slug);
        assert_eq!(mdbook_slug(heading), slug);
    }
}

/// The strategy chapter's table has a row for every family the board knows (its cards), with
/// the name the command line takes.
#[test]
fn the_strategy_chapter_lists_every_family() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/strategy.md"))
            .expect("docs/src/strategy.md");
    for card in &seamscope::board::CARDS {
        let row = format!("| `{}` |", card.name);
        assert!(
            page.lines().any(|l| l.starts_with(&row)),
            "docs/src/strategy.md's table has no row {row}: a family's card is in \
             src/board/family.rs, its row in the manual"
        );
    }
}
