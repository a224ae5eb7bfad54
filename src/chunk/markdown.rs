//! The parts of Markdown that chunking cares about: fenced blocks, tables, headings and prose
//! blocks (paragraphs and list items), all as exact byte spans.
//!
//! Markdown is read by `pulldown-cmark` (CommonMark with GitHub tables and YAML front matter),
//! whose events carry the byte range of every block; this module turns those ranges into spans:
//! - **Fenced blocks** span from the start of the opening line to the closing line. A fence in a
//!   list item counts. A fence never closed runs to the end of its container (the document, or
//!   the list item or quote holding it). An indented code block is not a fence.
//! - **Tables** (GFM): header row, delimiter row and body rows, each row a span.
//! - **Headings**: ATX and setext, with their title as written (inline markup kept).
//! - **Prose blocks**: paragraphs, and the text of each list item. A block's span starts with its
//!   line (list marker included); its content starts after the marker.
//! - **Front matter**: a YAML block that opens the document between `---` lines.
//!
//! Plain text is not Markdown: there only prose blocks are found, by lines (a blank line ends a
//! block, a list item line starts one). Spans end before the last line's terminator.

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
    match dialect {
        Dialect::Markdown => markdown_outline(text),
        Dialect::Plain => Outline {
            prose: plain_prose(text),
            ..Outline::default()
        },
    }
}

/// Prose blocks of plain text: runs of non-blank lines; a list item line starts a new block.
fn plain_prose(text: &str) -> Vec<ProseBlock> {
    let mut out = Vec::new();
    let mut para: Option<(ProseBlock, bool)> = None; // (block, is a list item)
    for l in lines(text) {
        let s = &text[l.start..l.end];
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
    }
    close(&mut para, &mut out);
    out
}

fn close(para: &mut Option<(ProseBlock, bool)>, out: &mut Vec<ProseBlock>) {
    if let Some((block, _)) = para.take() {
        out.push(block);
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

/// [`outline`] for Markdown: pulldown-cmark's blocks, by their byte ranges.
fn markdown_outline(text: &str) -> Outline {
    use pulldown_cmark::{Event, Options, Parser, TagEnd};
    let options = Options::ENABLE_TABLES | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut out = Outline::default();
    // Open blocks, innermost last: what an inline event belongs to.
    let mut blocks: Vec<Block> = Vec::new();
    let mut table: Option<Table> = None;
    // A tight list item's own text, before any block inside it: (start, end).
    let mut item_text: Option<(usize, usize)> = None;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        let span = Span::new(range.start, trim_end_of_block(text, range.start, range.end));
        // A block starting (or the item ending) closes a tight item's own text.
        let is_block_start = match &event {
            Event::Start(tag) => Block::of(tag).is_some(),
            Event::End(TagEnd::Item) | Event::Rule => true,
            _ => false,
        };
        if is_block_start && let Some((start, end)) = item_text.take() {
            out.prose.push(prose_block(text, start, end));
        }
        match event {
            Event::Start(tag) => {
                record_start(&mut out, &mut table, text, (&tag, span));
                match Block::of(&tag) {
                    Some(block) => blocks.push(block),
                    // An inline tag (emphasis, a link) inside a tight list item's own text.
                    None if blocks.last() == Some(&Block::Item) => extend(&mut item_text, span),
                    None => {}
                }
            }
            Event::End(end) => {
                if end == TagEnd::Table {
                    out.tables.extend(table.take());
                }
                if Block::ends(&end) {
                    blocks.pop();
                } else if blocks.last() == Some(&Block::Item) {
                    extend(&mut item_text, span);
                }
            }
            _ => {
                if blocks.last() == Some(&Block::Item) {
                    extend(&mut item_text, span);
                }
            }
        }
    }
    if let Some((start, end)) = item_text.take() {
        out.prose.push(prose_block(text, start, end));
    }
    out.prose.sort_by_key(|b| b.span.start);
    out
}

/// What a block starting at `span` adds to the outline: a fence, a heading, a table or one of
/// its rows, a paragraph, the front matter.
fn record_start(
    out: &mut Outline,
    table: &mut Option<Table>,
    text: &str,
    (tag, span): (&pulldown_cmark::Tag<'_>, Span),
) {
    use pulldown_cmark::{CodeBlockKind, Tag};
    match tag {
        Tag::CodeBlock(CodeBlockKind::Fenced(_)) => out.fences.push(fence(text, span)),
        Tag::Heading { level, .. } => out.headings.push(Heading {
            level: *level as u8,
            span,
            title: heading_title(text, span),
        }),
        Tag::Table(_) => {
            *table = Some(Table {
                span,
                header: span,
                delimiter: span,
                rows: Vec::new(),
            });
        }
        Tag::TableHead => {
            if let Some(t) = table.as_mut() {
                t.header = span;
                t.delimiter = delimiter_row(text, span);
            }
        }
        Tag::TableRow => {
            if let Some(t) = table.as_mut() {
                t.rows.push(span);
            }
        }
        Tag::Paragraph => out.prose.push(prose_block(text, span.start, span.end)),
        Tag::MetadataBlock(_) if span.start == 0 => out.front_matter = Some(span),
        _ => {}
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Item,
    Other,
}

impl Block {
    fn of(tag: &pulldown_cmark::Tag<'_>) -> Option<Block> {
        use pulldown_cmark::Tag;
        match tag {
            Tag::Item => Some(Block::Item),
            Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::List(_)
            | Tag::Table(_)
            | Tag::TableHead
            | Tag::TableRow
            | Tag::TableCell
            | Tag::MetadataBlock(_)
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => Some(Block::Other),
            _ => None,
        }
    }

    fn ends(end: &pulldown_cmark::TagEnd) -> bool {
        use pulldown_cmark::TagEnd;
        matches!(
            end,
            TagEnd::Item
                | TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::BlockQuote(_)
                | TagEnd::CodeBlock
                | TagEnd::HtmlBlock
                | TagEnd::List(_)
                | TagEnd::Table
                | TagEnd::TableHead
                | TagEnd::TableRow
                | TagEnd::TableCell
                | TagEnd::MetadataBlock(_)
                | TagEnd::FootnoteDefinition
                | TagEnd::DefinitionList
                | TagEnd::DefinitionListTitle
                | TagEnd::DefinitionListDefinition
        )
    }
}

/// A prose block whose text starts at `content_start`: its span starts with its line, so a list
/// marker or indentation before the text belongs to it.
fn prose_block(text: &str, content_start: usize, end: usize) -> ProseBlock {
    let line_start = text[..content_start].rfind('\n').map_or(0, |i| i + 1);
    ProseBlock {
        span: Span::new(line_start, end),
        content_start,
    }
}

/// A heading's title as written: an ATX line's text without its markers, or a setext heading's
/// lines (all but the underline) with their blanks collapsed.
fn heading_title(text: &str, span: Span) -> String {
    let source = &text[span.start..span.end];
    match source.rsplit_once('\n') {
        Some((lines, _underline)) => lines.split_whitespace().collect::<Vec<_>>().join(" "),
        None => atx_heading(source)
            .map(|(_, title)| title)
            .unwrap_or_default(),
    }
}

fn extend(span: &mut Option<(usize, usize)>, by: Span) {
    *span = Some(match *span {
        Some((start, end)) => (start.min(by.start), end.max(by.end)),
        None => (by.start, by.end),
    });
}

/// The end of a block's range without its trailing line terminators and blanks.
fn trim_end_of_block(text: &str, start: usize, end: usize) -> usize {
    start + text[start..end].trim_end().len()
}

/// The delimiter row under a table's `header`: the next line, without the container prefix
/// (indentation, `>` of a quote) that the header's line has before the header.
fn delimiter_row(text: &str, header: Span) -> Span {
    let start = text[header.end..]
        .find('\n')
        .map_or(text.len(), |i| header.end + i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let end = if end > start && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    };
    let header_line = text[..header.start].rfind('\n').map_or(0, |i| i + 1);
    let prefix = header.start - header_line;
    let start = match text.get(start..(start + prefix).min(end)) {
        Some(p) if p.chars().all(|c| c.is_whitespace() || c == '>') => (start + prefix).min(end),
        _ => start,
    };
    Span::new(start, end)
}

/// A fenced block over `span`: from its opening line's start, closed when its last line is a
/// closing fence.
fn fence(text: &str, span: Span) -> Fence {
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let start = if text[line_start..span.start].trim().is_empty() {
        line_start
    } else {
        span.start
    };
    let body = &text[span.start..span.end];
    let first = body.lines().next().unwrap_or("");
    let closed = match fence_opener(first) {
        Some((ch, len)) => body
            .rfind('\n')
            .is_some_and(|i| is_fence_closer(&body[i + 1..], ch, len)),
        None => false,
    };
    Fence {
        span: Span::new(start, span.end),
        closed,
    }
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
    fn commonmark_containers_shape_fences_and_tables() {
        // A fence may open right after a list marker, and one left open ends with its item.
        let t = "- ```sh\n  make\n  ```\n- item\n  ```\n  open in item\n- next\n\ntail\n";
        let o = outline(t, Dialect::Markdown);
        let fences: Vec<(&str, bool)> = o
            .fences
            .iter()
            .map(|f| (text_of(t, f.span), f.closed))
            .collect();
        assert_eq!(
            fences,
            [
                ("```sh\n  make\n  ```", true),
                ("  ```\n  open in item", false)
            ]
        );
        let prose: Vec<&str> = o.prose.iter().map(|b| text_of(t, b.span)).collect();
        assert_eq!(prose, ["- item", "- next", "tail"]);

        // Pipes inside an HTML block are not a table.
        let html = "<div>\n| a | b |\n|---|---|\n</div>\n";
        assert!(outline(html, Dialect::Markdown).tables.is_empty());

        // A table inside a quote: its rows and delimiter without the quote's marker.
        let quoted = "> | a | b |\n> |---|:-:|\n> | 1 | 2 |\n";
        let o = outline(quoted, Dialect::Markdown);
        assert_eq!(o.tables.len(), 1);
        assert_eq!(text_of(quoted, o.tables[0].header), "| a | b |");
        assert_eq!(text_of(quoted, o.tables[0].delimiter), "|---|:-:|");
        assert_eq!(text_of(quoted, o.tables[0].rows[0]), "| 1 | 2 |");
    }

    #[test]
    fn plain_text_has_only_prose() {
        let o = outline("# not a heading\n| a |\n|---|\n", Dialect::Plain);
        assert!(o.headings.is_empty() && o.tables.is_empty());
        assert_eq!(o.prose.len(), 1);
    }
}
