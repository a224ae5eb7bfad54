//! A line scanner for the parts of Markdown that chunking cares about: fenced blocks, tables,
//! headings and prose blocks (paragraphs and list items), all as exact byte spans.
//!
//! This is deliberately not a full CommonMark parser. It recognises:
//! - **Fenced blocks**: a line whose first non-blank characters are three or more backticks or
//!   tildes (a backtick opener's info string may not hold a backtick), closed by a line of at
//!   least as many of the same character and nothing else. Indentation is not checked, so a fence
//!   inside a list item counts. A fence never closed runs to the end of the document.
//! - **Tables** (GFM): a line holding `|`, then a delimiter row with the same number of cells, each
//!   `:?-+:?`; then body rows: following non-blank lines that hold `|` and start no fence or
//!   heading.
//! - **Headings**: ATX (`#` to `######` then a space or the line end, at most three spaces in) and
//!   setext (a paragraph underlined with `===` or `---`).
//! - **Prose blocks**: runs of other non-blank lines; a list item line (`-`, `*`, `+`, `1.` or
//!   `1)` then a space) always starts a new block, and a blank line ends one.
//! - **Front matter**: a document that opens with a `---` line, up to the next `---` or `...` line.
//!
//! Spans end before the last line's terminator (`\n` or `\r\n`).

use crate::corpus::Span;

/// One line: its content (without terminator) and where the next line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// First byte of the line.
    pub start: usize,
    /// End of the content, before `\r\n` or `\n`.
    pub end: usize,
    /// First byte of the next line (the text's length for the last line).
    pub next: usize,
}

/// Split `text` into lines; CRLF and LF both end a line. An empty text has no lines.
pub fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            let end = if i > start && text.as_bytes()[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            out.push(Line {
                start,
                end,
                next: i + 1,
            });
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(Line {
            start,
            end: text.len(),
            next: text.len(),
        });
    }
    out
}

/// A fenced block from its opening line to its closing line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// Opening line start to closing line end (or the last line's end when never closed).
    pub span: Span,
    /// Whether a closing line was found.
    pub closed: bool,
}

/// A table: header row, delimiter row and body rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Header line start to the last row's end.
    pub span: Span,
    /// The header row.
    pub header: Span,
    /// The delimiter row (`| --- | :-: |`).
    pub delimiter: Span,
    /// Each body row.
    pub rows: Vec<Span>,
}

/// A heading and its level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6.
    pub level: u8,
    /// The heading's line(s), markers included.
    pub span: Span,
    /// The heading text without markers.
    pub title: String,
}

/// A paragraph or list item: lines that read as running text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProseBlock {
    /// First line start to last line end.
    pub span: Span,
    /// Where the text starts, after indentation and any list marker.
    pub content_start: usize,
}

/// Everything the scanner found in one document, each list in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    /// Fenced blocks.
    pub fences: Vec<Fence>,
    /// Tables.
    pub tables: Vec<Table>,
    /// Headings.
    pub headings: Vec<Heading>,
    /// Paragraphs and list items.
    pub prose: Vec<ProseBlock>,
    /// YAML front matter, when the document opens with it.
    pub front_matter: Option<Span>,
}

/// Which constructs to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Everything listed in the module documentation.
    Markdown,
    /// Plain text: only prose blocks (blank lines and list items still separate blocks).
    Plain,
}

/// Scan `text` for fences, tables, headings and prose blocks.
pub fn outline(text: &str, dialect: Dialect) -> Outline {
    let lines = lines(text);
    let line = |i: usize| &text[lines[i].start..lines[i].end];
    let mut out = Outline::default();
    let mut para: Option<(ProseBlock, bool)> = None; // (block, is a list item)
    let mut i = 0;
    let markdown = dialect == Dialect::Markdown;
    let closing = |j: usize| matches!(line(j).trim_end(), "---" | "...");
    if markdown
        && !lines.is_empty()
        && line(0).trim_end() == "---"
        && let Some(j) = (1..lines.len()).find(|&j| closing(j))
    {
        out.front_matter = Some(Span::new(0, lines[j].end));
        i = j + 1;
    }
    while i < lines.len() {
        let l = lines[i];
        let s = line(i);
        if markdown {
            if let Some((ch, len)) = fence_opener(s) {
                close(&mut para, &mut out);
                let closer = (i + 1..lines.len()).find(|&j| is_fence_closer(line(j), ch, len));
                let last = closer.unwrap_or(lines.len() - 1);
                out.fences.push(Fence {
                    span: Span::new(l.start, lines[last].end),
                    closed: closer.is_some(),
                });
                i = last + 1;
                continue;
            }
            if let Some((level, title)) = atx_heading(s) {
                close(&mut para, &mut out);
                out.headings.push(Heading {
                    level,
                    span: Span::new(l.start, l.end),
                    title,
                });
                i += 1;
                continue;
            }
            if s.contains('|') && i + 1 < lines.len() && is_delimiter_row(line(i + 1), cells(s)) {
                close(&mut para, &mut out);
                let mut j = i + 2;
                let mut rows = Vec::new();
                while j < lines.len() {
                    let r = line(j);
                    if r.trim().is_empty()
                        || !r.contains('|')
                        || fence_opener(r).is_some()
                        || atx_heading(r).is_some()
                    {
                        break;
                    }
                    rows.push(Span::new(lines[j].start, lines[j].end));
                    j += 1;
                }
                out.tables.push(Table {
                    span: Span::new(l.start, lines[j - 1].end),
                    header: Span::new(l.start, l.end),
                    delimiter: Span::new(lines[i + 1].start, lines[i + 1].end),
                    rows,
                });
                i = j;
                continue;
            }
            if let (Some(level), Some((block, false))) = (setext_level(s), para) {
                let title = text[block.content_start..block.span.end]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                out.headings.push(Heading {
                    level,
                    span: Span::new(block.span.start, l.end),
                    title,
                });
                para = None;
                i += 1;
                continue;
            }
            if is_thematic_break(s) {
                close(&mut para, &mut out);
                i += 1;
                continue;
            }
        }
        if s.trim().is_empty() {
            close(&mut para, &mut out);
        } else if let Some(marker_end) = list_marker(s) {
            close(&mut para, &mut out);
            para = Some((
                ProseBlock {
                    span: Span::new(l.start, l.end),
                    content_start: l.start + marker_end,
                },
                true,
            ));
        } else if let Some((block, _)) = para.as_mut() {
            block.span.end = l.end;
        } else {
            let indent = s.len() - s.trim_start().len();
            para = Some((
                ProseBlock {
                    span: Span::new(l.start, l.end),
                    content_start: l.start + indent,
                },
                false,
            ));
        }
        i += 1;
    }
    close(&mut para, &mut out);
    out
}

fn close(para: &mut Option<(ProseBlock, bool)>, out: &mut Outline) {
    if let Some((block, _)) = para.take() {
        out.prose.push(block);
    }
}

/// The fence character and run length when `line` opens a fenced block.
pub fn fence_opener(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches([' ', '\t']);
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = t.chars().take_while(|c| *c == ch).count();
    if run < 3 || (ch == '`' && t[run..].contains('`')) {
        return None;
    }
    Some((ch, run))
}

/// Whether `line` closes a fence opened with `len` times `ch`.
pub fn is_fence_closer(line: &str, ch: char, len: usize) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    let run = t.chars().take_while(|c| *c == ch).count();
    run >= len && t[run * ch.len_utf8()..].trim().is_empty()
}

/// Level and title of an ATX heading line.
pub fn atx_heading(line: &str) -> Option<(u8, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let level = t.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut title = rest.trim();
    // An optional closing sequence of #s, preceded by a space (or making up the whole title).
    let without = title.trim_end_matches('#');
    if without.is_empty() || without.ends_with([' ', '\t']) {
        title = without.trim_end();
    }
    Some((level as u8, title.to_string()))
}

/// The level a setext underline gives (1 for `===`, 2 for `---`).
fn setext_level(line: &str) -> Option<u8> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let t = line.trim();
    if indent > 3 || t.is_empty() {
        return None;
    }
    if t.chars().all(|c| c == '=') {
        Some(1)
    } else if t.chars().all(|c| c == '-') {
        Some(2)
    } else {
        None
    }
}

fn is_thematic_break(line: &str) -> bool {
    let t: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    t.len() >= 3 && ['-', '*', '_'].iter().any(|m| t.chars().all(|c| c == *m))
}

/// Byte length of a list marker and the blanks after it, when `line` starts a list item.
fn list_marker(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start().len();
    let t = &line[indent..];
    let marker = if t.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=9).contains(&digits) || !t[digits..].starts_with(['.', ')']) {
            return None;
        }
        digits + 1
    };
    let rest = &t[marker..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some(indent + marker + (rest.len() - rest.trim_start().len()))
}

/// The cells of a table row: outer pipes dropped, split at unescaped `|`.
fn cells(row: &str) -> usize {
    let t = row.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t
        .strip_suffix('|')
        .filter(|s| !s.ends_with('\\'))
        .unwrap_or(t);
    let mut n = 1;
    let mut escaped = false;
    for c in t.chars() {
        match c {
            '\\' => escaped = !escaped,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
    }
    n
}

/// Whether `line` is a delimiter row with `header_cells` cells.
fn is_delimiter_row(line: &str, header_cells: usize) -> bool {
    let t = line.trim();
    if !t.contains('-') {
        return false;
    }
    let inner = t.strip_prefix('|').unwrap_or(t);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let parts: Vec<&str> = inner.split('|').map(str::trim).collect();
    if parts.len() != header_cells || (parts.len() == 1 && !t.contains('|')) {
        return false;
    }
    parts.iter().all(|p| {
        let p = p.strip_prefix(':').unwrap_or(p);
        let p = p.strip_suffix(':').unwrap_or(p);
        !p.is_empty() && p.chars().all(|c| c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(text: &str, s: Span) -> &str {
        &text[s.start..s.end]
    }

    #[test]
    fn lines_handle_crlf_and_a_missing_final_newline() {
        let t = "a\r\nbb\n\nc";
        let l = lines(t);
        assert_eq!(l.len(), 4);
        assert_eq!((l[0].start, l[0].end, l[0].next), (0, 1, 3));
        assert_eq!((l[1].start, l[1].end, l[1].next), (3, 5, 6));
        assert_eq!((l[2].start, l[2].end), (6, 6));
        assert_eq!((l[3].start, l[3].end, l[3].next), (7, 8, 8));
    }

    #[test]
    fn finds_fences_tables_headings_and_prose() {
        let t = "# Title #\n\nSome text\nwraps here.\n\n- item one\n- item 2\n\n~~~\ncode | x\n~~~\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\nSub\n---\n```rust\nopen";
        let o = outline(t, Dialect::Markdown);
        assert_eq!(o.headings.len(), 2);
        assert_eq!(
            (o.headings[0].level, o.headings[0].title.as_str()),
            (1, "Title")
        );
        assert_eq!(
            (o.headings[1].level, o.headings[1].title.as_str()),
            (2, "Sub")
        );
        assert_eq!(o.fences.len(), 2);
        assert_eq!(text_of(t, o.fences[0].span), "~~~\ncode | x\n~~~");
        assert!(o.fences[0].closed && !o.fences[1].closed);
        assert_eq!(text_of(t, o.fences[1].span), "```rust\nopen");
        assert_eq!(o.tables.len(), 1);
        assert_eq!(text_of(t, o.tables[0].header), "| a | b |");
        assert_eq!(text_of(t, o.tables[0].rows[0]), "| 1 | 2 |");
        let prose: Vec<&str> = o.prose.iter().map(|b| text_of(t, b.span)).collect();
        assert_eq!(prose, ["Some text\nwraps here.", "- item one", "- item 2"]);
        assert_eq!(&t[o.prose[2].content_start..o.prose[2].span.end], "item 2");
    }

    #[test]
    fn near_misses_are_not_structure() {
        let t = "#hashtag\n``` a ` b\n| a | b |\n| --- |\n**bold**\n1.5 litres";
        let o = outline(t, Dialect::Markdown);
        assert!(o.headings.is_empty() && o.fences.is_empty() && o.tables.is_empty());
        assert_eq!(o.prose.len(), 1);
    }

    #[test]
    fn front_matter_is_set_aside() {
        let t = "---\ntitle: x\n---\n# H\n";
        let o = outline(t, Dialect::Markdown);
        assert_eq!(o.front_matter, Some(Span::new(0, 16)));
        assert_eq!(o.headings.len(), 1);
        assert!(o.prose.is_empty());
    }

    #[test]
    fn plain_text_has_only_prose() {
        let o = outline("# not a heading\n| a |\n|---|\n", Dialect::Plain);
        assert!(o.headings.is_empty() && o.tables.is_empty());
        assert_eq!(o.prose.len(), 1);
    }
}
