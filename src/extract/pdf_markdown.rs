//! A PDF's lines read into Markdown: what its fonts and spacing say of its structure.
//!
//! A PDF holds no markup, only characters set in fonts at positions. The lines pdfium reads out
//! become Markdown by the usual signs, each measured against the document itself (no size is
//! fixed in advance):
//! - the **body size** is the font size most of the document's characters are set in;
//! - a line set larger than the body (by [`HEADING_RATIO`]) is a heading, its level the rank of
//!   its size among the document's heading sizes (largest `#`); wrapped heading lines join;
//! - lines set wholly in a fixed-pitch face are code, fenced;
//! - a line opening with a bullet (•, ◦, ▪, ‣, ●, ○, ■) is a list item (`- `), the lines under
//!   it (at its indent or further right, no paragraph gap) its continuation;
//! - a gap between baselines wider than the body's usual line pitch (by [`PARAGRAPH_GAP`])
//!   starts a paragraph; lines within one keep their line ends;
//! - inside a line, bold and italic runs are `**…**` / `*…*`, fixed-pitch runs `` `…` ``.
//!
//! So headings drive the structure chunker and heading paths on PDFs as on Markdown, and a PDF
//! rendered from Markdown reads back close to its source's tokens.

use super::pdfium::{Line, Style};

/// A line this much larger than the body size (or more) is a heading.
pub const HEADING_RATIO: f32 = 1.15;

/// A gap between baselines this many times the body's usual pitch (or more) starts a paragraph.
pub const PARAGRAPH_GAP: f32 = 1.3;

/// Headings have at most this many words; a longer line set large is display text.
const HEADING_WORDS: usize = 30;

const BULLETS: [char; 7] = ['•', '◦', '▪', '‣', '●', '○', '■'];

/// What one document's lines say of its sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct Measures {
    /// The size most characters are set in (half points).
    body: i32,
    /// Heading sizes, largest first (half points).
    headings: Vec<i32>,
    /// The usual distance between two body lines' baselines, in points.
    pitch: f32,
}

fn half_points(size: f32) -> i32 {
    (size * 2.0).round() as i32
}

impl Measures {
    /// The measures of a document's pages.
    pub fn of(pages: &[Vec<Line>]) -> Measures {
        let mut by_size: Vec<(i32, usize)> = Vec::new();
        for line in pages.iter().flatten() {
            let chars = line.text().chars().filter(|c| !c.is_whitespace()).count();
            let size = half_points(line.size);
            match by_size.iter_mut().find(|(s, _)| *s == size) {
                Some((_, n)) => *n += chars,
                None => by_size.push((size, chars)),
            }
        }
        // The most used size; of two used as much, the smaller.
        let body = by_size
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map_or(20, |(s, _)| *s);
        let mut headings: Vec<i32> = pages
            .iter()
            .flatten()
            .filter(|l| is_heading_size(l, body) && words(l) <= HEADING_WORDS && !is_code(l))
            .map(|l| half_points(l.size))
            .collect();
        headings.sort_unstable_by(|a, b| b.cmp(a));
        headings.dedup();
        headings.truncate(6);
        let mut pitches: Vec<f32> = Vec::new();
        for page in pages {
            for pair in page.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                let gap = a.baseline - b.baseline;
                if half_points(a.size) == body && half_points(b.size) == body && gap > 0.0 {
                    pitches.push(gap);
                }
            }
        }
        pitches.sort_unstable_by(f32::total_cmp);
        let pitch = pitches
            .get(pitches.len() / 2)
            .copied()
            .unwrap_or(body as f32 / 2.0 * 1.2);
        Measures {
            body,
            headings,
            pitch,
        }
    }

    fn heading_level(&self, line: &Line) -> Option<usize> {
        if !is_heading_size(line, self.body) || words(line) > HEADING_WORDS || is_code(line) {
            return None;
        }
        let size = half_points(line.size);
        self.headings.iter().position(|s| *s == size).map(|i| i + 1)
    }
}

fn is_heading_size(line: &Line, body: i32) -> bool {
    line.size * 2.0 >= body as f32 * HEADING_RATIO
}

fn words(line: &Line) -> usize {
    line.text().split_whitespace().count()
}

fn is_code(line: &Line) -> bool {
    let mut any = false;
    for run in &line.runs {
        if run.text.trim().is_empty() {
            continue;
        }
        if !run.style.mono {
            return false;
        }
        any = true;
    }
    any
}

fn bullet_rest(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let mut chars = t.chars();
    let first = chars.next()?;
    BULLETS
        .contains(&first)
        .then(|| chars.as_str().trim_start())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Heading(usize),
    Code,
    Item,
    Para,
}

struct Block {
    kind: Kind,
    lines: Vec<String>,
}

/// One page's lines as Markdown blocks, joined: headings, fenced code, items, paragraphs.
pub fn page_markdown(lines: &[Line], measures: &Measures) -> String {
    let mut blocks: Vec<Block> = Vec::new();
    let mut previous: Option<(&Line, Kind)> = None;
    // Where the open item begins: a line under it at that indent or further right continues it.
    let mut item_left: Option<f32> = None;
    for line in lines {
        let kind = if is_code(line) {
            Kind::Code
        } else if let Some(level) = measures.heading_level(line) {
            Kind::Heading(level)
        } else if bullet_rest(&line.text()).is_some() {
            Kind::Item
        } else {
            Kind::Para
        };
        let gap = previous.map(|(p, _)| p.baseline - line.baseline);
        let wide = gap.is_none_or(|g| g <= 0.0 || g >= measures.pitch * PARAGRAPH_GAP);
        let continues_item = kind == Kind::Para
            && previous.is_some_and(|(_, k)| k == Kind::Item)
            && !wide
            && item_left.is_some_and(|left| line.left >= left - 1.0);
        let joins = match (previous.map(|(_, k)| k), kind) {
            (Some(Kind::Code), Kind::Code) => true,
            (Some(Kind::Heading(a)), Kind::Heading(b)) => a == b && !wide_heading(gap, line),
            (Some(Kind::Para), Kind::Para) => !wide,
            _ => continues_item,
        };
        let text = match kind {
            Kind::Code => line.text().trim_end().to_string(),
            Kind::Heading(_) => line.text().trim().to_string(),
            Kind::Item => {
                item_left = Some(line.left);
                inline(line)
            }
            Kind::Para => inline(line),
        };
        match blocks.last_mut() {
            Some(block) if joins => {
                let mut text = text;
                if let (Kind::Para | Kind::Item, Some(prev)) = (block.kind, block.lines.last_mut())
                {
                    bridge(prev, &mut text);
                }
                block.lines.push(text);
            }
            _ => blocks.push(Block {
                kind,
                lines: vec![text],
            }),
        }
        if kind != Kind::Item && !continues_item {
            item_left = None;
        }
        // A continuation line keeps the item open for the next one.
        let shown = if continues_item { Kind::Item } else { kind };
        previous = Some((line, shown));
    }
    render(&blocks)
}

/// Emphasis that runs on from one line to the next is one emphasis across the line end: the
/// marker closing `prev` and the one opening `next` go.
fn bridge(prev: &mut String, next: &mut String) {
    for marker in ["***", "**", "*"] {
        let closes = prev.ends_with(marker) && !prev[..prev.len() - marker.len()].ends_with('*');
        let opens = next.starts_with(marker) && !next[marker.len()..].starts_with('*');
        if closes && opens {
            prev.truncate(prev.len() - marker.len());
            next.replace_range(..marker.len(), "");
            return;
        }
    }
}

/// Two lines of a heading's size far apart are two headings.
fn wide_heading(gap: Option<f32>, line: &Line) -> bool {
    gap.is_none_or(|g| g <= 0.0 || g > line.size * 2.0)
}

fn render(blocks: &[Block]) -> String {
    let mut out = String::new();
    let mut last: Option<Kind> = None;
    for block in blocks {
        if !out.is_empty() {
            let tight = block.kind == Kind::Item && last == Some(Kind::Item);
            out.push_str(if tight { "\n" } else { "\n\n" });
        }
        match block.kind {
            Kind::Heading(level) => {
                let title = block.lines.join(" ");
                out.push_str(&"#".repeat(level));
                out.push(' ');
                out.push_str(&title.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            Kind::Code => {
                let fence = "`".repeat(longest_backticks(&block.lines).max(2) + 1);
                out.push_str(&fence);
                out.push('\n');
                out.push_str(&block.lines.join("\n"));
                out.push('\n');
                out.push_str(&fence);
            }
            Kind::Item => {
                for (i, line) in block.lines.iter().enumerate() {
                    if i == 0 {
                        out.push_str("- ");
                        out.push_str(bullet_rest(line).unwrap_or(line).trim());
                    } else {
                        out.push_str("\n  ");
                        out.push_str(line.trim());
                    }
                }
            }
            Kind::Para => {
                let lines: Vec<String> = block.lines.iter().map(|l| escape(l.trim())).collect();
                out.push_str(&lines.join("\n"));
            }
        }
        last = Some(block.kind);
    }
    out
}

fn longest_backticks(lines: &[String]) -> usize {
    lines
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// A paragraph line that Markdown would read as a heading or a fence stays text.
fn escape(line: &str) -> String {
    let hashes = line.len() - line.trim_start_matches('#').len();
    let heading = (1..=6).contains(&hashes)
        && line[hashes..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace);
    if heading || line.starts_with("```") || line.starts_with("~~~") {
        format!("\\{line}")
    } else {
        line.to_string()
    }
}

/// A body line's runs with their faces as Markdown: the markers around each run's words, its
/// spaces outside them.
fn inline(line: &Line) -> String {
    let mut out = String::new();
    for run in &line.runs {
        let core = run.text.trim();
        if core.is_empty() {
            out.push_str(&run.text);
            continue;
        }
        let lead = &run.text[..run.text.len() - run.text.trim_start().len()];
        let trail = &run.text[run.text.trim_end().len()..];
        out.push_str(lead);
        out.push_str(&marked(core, run.style));
        out.push_str(trail);
    }
    out.trim_end().to_string()
}

fn marked(core: &str, style: Style) -> String {
    if style.mono {
        return if core.contains('`') {
            format!("`` {core} ``")
        } else {
            format!("`{core}`")
        };
    }
    let marker = match (style.bold, style.italic) {
        (true, true) => "***",
        (true, false) => "**",
        (false, true) => "*",
        (false, false) => "",
    };
    format!("{marker}{core}{marker}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::pdfium::Run;

    fn styled(runs: &[(&str, Style)], size: f32, baseline: f32, left: f32) -> Line {
        Line {
            runs: runs
                .iter()
                .map(|(t, s)| Run {
                    text: t.to_string(),
                    style: *s,
                })
                .collect(),
            size,
            baseline,
            left,
        }
    }

    const BOLD: Style = Style {
        bold: true,
        italic: false,
        mono: false,
    };
    const MONO: Style = Style {
        bold: false,
        italic: false,
        mono: true,
    };
    const PLAIN: Style = Style {
        bold: false,
        italic: false,
        mono: false,
    };

    #[test]
    fn sizes_faces_bullets_and_gaps_become_markdown() {
        // Baselines go down the page; body lines 14 pt apart, paragraphs 20 pt.
        let lines = vec![
            styled(&[("Order service", BOLD)], 16.0, 800.0, 10.0),
            styled(&[("Interfaces", BOLD)], 14.0, 770.0, 10.0),
            Line::plain("The service takes orders and keeps", 10.0, 750.0),
            Line::plain("them for seven days.", 10.0, 736.0),
            styled(
                &[
                    ("Owner:", BOLD),
                    (" Platform, see ", PLAIN),
                    ("retry()", MONO),
                ],
                10.0,
                716.0,
                0.0,
            ),
            styled(&[("and the ", PLAIN), ("long", BOLD)], 10.0, 702.0, 0.0),
            styled(&[("label:", BOLD), (" after", PLAIN)], 10.0, 688.0, 0.0),
            styled(&[("• Create an order", PLAIN)], 10.0, 668.0, 5.0),
            styled(&[("• Cancel it within five", PLAIN)], 10.0, 654.0, 5.0),
            styled(&[("minutes of creation", PLAIN)], 10.0, 640.0, 5.0),
            styled(&[("fn main() {", MONO)], 8.0, 620.0, 0.0),
            styled(&[("    run();", MONO)], 8.0, 610.0, 0.0),
            styled(&[("}", MONO)], 8.0, 600.0, 0.0),
            Line::plain("# not a heading in the text", 10.0, 580.0),
            Line::plain(
                "More words at the body size to make it the body.",
                10.0,
                566.0,
            ),
        ];
        let m = Measures::of(std::slice::from_ref(&lines));
        assert_eq!(m.body, 20);
        assert_eq!(m.headings, vec![32, 28]);
        assert_eq!(m.pitch, 14.0);
        assert_eq!(
            page_markdown(&lines, &m),
            "# Order service\n\n## Interfaces\n\n\
             The service takes orders and keeps\nthem for seven days.\n\n\
             **Owner:** Platform, see `retry()`\nand the **long\nlabel:** after\n\n\
             - Create an order\n- Cancel it within five\n  minutes of creation\n\n\
             ```\nfn main() {\n    run();\n}\n```\n\n\
             \\# not a heading in the text\nMore words at the body size to make it the body."
        );
    }

    #[test]
    fn a_document_of_one_size_has_no_headings() {
        let lines = vec![
            Line::plain("Only body text here.", 11.0, 700.0),
            Line::plain("And more of it.", 11.0, 686.0),
        ];
        let m = Measures::of(std::slice::from_ref(&lines));
        assert!(m.headings.is_empty());
        assert_eq!(
            page_markdown(&lines, &m),
            "Only body text here.\nAnd more of it."
        );
    }
}
