//! The body of `word/document.xml` read as Markdown: paragraphs as headings, list items, code
//! or plain paragraphs, tables as Markdown tables, skipped subtrees left out.

use std::collections::HashMap;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{Numbering, Styles, attr, damaged, val};
use crate::extract::SkipReason;
use crate::extract::markdown_out::MarkdownOut;

/// One paragraph being read.
#[derive(Debug, Default)]
struct Paragraph {
    text: String,
    style: Option<String>,
    num_id: Option<String>,
    level: Option<u32>,
    /// Characters of text, and how many of them are set in a monospaced font: a paragraph
    /// all in one is code.
    chars: usize,
    mono_chars: usize,
    /// Whether the run being read is in a monospaced font.
    run_mono: bool,
}

/// Fonts that mark a run as code.
const MONOSPACED: &[&str] = &[
    "courier",
    "consolas",
    "menlo",
    "monaco",
    "mono",
    "lucida console",
    "source code",
    "fira code",
];

fn is_monospaced(font: &str) -> bool {
    let font = font.to_ascii_lowercase();
    MONOSPACED.iter().any(|m| font.contains(m))
}

/// One table being read: rows of cells of text (a nested table's text joins its cell's).
#[derive(Debug, Default)]
struct Table {
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
}

/// The body of `word/document.xml` as Markdown.
pub(super) fn body_markdown(
    xml: &str,
    styles: &Styles,
    numbering: &Numbering,
) -> Result<String, SkipReason> {
    let mut reader = Reader::from_str(xml);
    let mut body = BodyReader::new(styles, numbering);
    // Elements open: a file cut off mid-way ends with some still open, and what was read before
    // the cut is not the document (its first paragraph was once taken for the whole of it).
    let mut open = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| damaged(format!("word/document.xml is not well-formed XML: {e}")))?;
        match event {
            Event::Start(e) => {
                open += 1;
                body.start(&e)
            }
            Event::Empty(e) => body.empty(&e),
            Event::Text(t) if body.reads_text() => body.push_text(&t.xml10_content()),
            Event::GeneralRef(r) if body.reads_text() => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                        .unwrap_or("")
                        .to_string(),
                };
                body.push_text(&resolved);
            }
            Event::CData(t) if body.reads_text() => body.push_text(&t.xml10_content()),
            Event::End(e) => {
                open = open.saturating_sub(1);
                body.end(e.local_name().as_ref())
            }
            Event::Eof if open > 0 => {
                return Err(damaged(format!(
                    "word/document.xml is cut off: it ends with {open} element(s) still open (a truncated file?)"
                )));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !body.seen_body {
        return Err(damaged("word/document.xml has no w:body"));
    }
    Ok(body.md.finish())
}

/// Where the reading of the body stands: the Markdown written so far, the paragraph and the
/// (nested) tables open, and whether the text read now is the document's.
struct BodyReader<'a> {
    styles: &'a Styles,
    numbering: &'a Numbering,
    md: MarkdownOut,
    paragraph: Option<Paragraph>,
    tables: Vec<Table>,
    /// Subtrees whose text is not the document's: deletions, field codes, fallbacks, comments.
    skip_depth: usize,
    /// Inside a `w:t`, whose text is the paragraph's.
    in_text: bool,
    /// The last number given per list and level.
    counters: HashMap<(String, u32), u64>,
    /// A `w:body` was seen.
    seen_body: bool,
}

impl<'a> BodyReader<'a> {
    /// Nothing read yet.
    fn new(styles: &'a Styles, numbering: &'a Numbering) -> Self {
        BodyReader {
            styles,
            numbering,
            md: MarkdownOut::default(),
            paragraph: None,
            tables: Vec::new(),
            skip_depth: 0,
            in_text: false,
            counters: HashMap::new(),
            seen_body: false,
        }
    }

    /// Whether text read now is the document's (inside a `w:t`, outside skipped subtrees).
    fn reads_text(&self) -> bool {
        self.in_text && self.skip_depth == 0
    }

    /// Text of the document, into the open paragraph.
    fn push_text(&mut self, text: &str) {
        push_text(self.paragraph.as_mut(), text);
    }

    /// An element opens: the body, a skipped subtree, a paragraph, a run's text, a table, its
    /// row or cell, or a paragraph property.
    fn start(&mut self, e: &BytesStart<'_>) {
        if self.skip_depth > 0 {
            self.skip_depth += 1;
            return;
        }
        let name = e.local_name();
        match name.as_ref() {
            "body" => self.seen_body = true,
            "del" | "delText" | "instrText" | "Fallback" | "commentReference" => {
                self.skip_depth = 1
            }
            "p" => {
                if let Some(p) = self.paragraph.as_mut() {
                    // A text box's paragraph inside this one: its text joins in.
                    p.text.push(' ');
                } else {
                    self.paragraph = Some(Paragraph::default());
                }
            }
            "t" => self.in_text = true,
            "tbl" => self.tables.push(Table::default()),
            "tr" => {
                if let Some(t) = self.tables.last_mut() {
                    t.row.clear();
                }
            }
            "tc" => {
                if let Some(t) = self.tables.last_mut() {
                    t.cell.clear();
                }
            }
            _ => paragraph_property(e, self.paragraph.as_mut()),
        }
    }

    /// An empty element: a tab, a break or a hyphen in the text, an empty paragraph, or a
    /// paragraph property.
    fn empty(&mut self, e: &BytesStart<'_>) {
        if self.skip_depth > 0 {
            return;
        }
        let name = e.local_name();
        match name.as_ref() {
            "tab" => self.push_text("\t"),
            "br" | "cr" => self.push_text("\n"),
            "noBreakHyphen" => self.push_text("-"),
            "p" => {
                if self.paragraph.is_none() {
                    // An empty paragraph: nothing to write, but a table cell's break.
                    if let Some(t) = self.tables.last_mut()
                        && !t.cell.is_empty()
                    {
                        t.cell.push(' ');
                    }
                }
            }
            _ => paragraph_property(e, self.paragraph.as_mut()),
        }
    }

    /// An element named `name` closes: a skipped subtree, a run's text, a paragraph, a cell, a
    /// row or a table.
    fn end(&mut self, name: &str) {
        if self.skip_depth > 0 {
            self.skip_depth -= 1;
            return;
        }
        match name {
            "t" => self.in_text = false,
            "p" => self.end_paragraph(),
            "tc" => {
                if let Some(t) = self.tables.last_mut() {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell);
                }
            }
            "tr" => {
                if let Some(t) = self.tables.last_mut() {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            "tbl" => self.end_table(),
            _ => {}
        }
    }

    /// The open paragraph is done: its text joins the open table's cell, or it is written.
    fn end_paragraph(&mut self) {
        let Some(p) = self.paragraph.take() else {
            return;
        };
        if let Some(t) = self.tables.last_mut() {
            let text = crate::extract::markdown_out::collapse_lines(&p.text);
            if !text.is_empty() {
                if !t.cell.is_empty() {
                    t.cell.push(' ');
                }
                t.cell.push_str(&text);
            }
        } else {
            write_paragraph(
                &mut self.md,
                p,
                self.styles,
                self.numbering,
                &mut self.counters,
            );
        }
    }

    /// The innermost table is done: a table inside a cell joins that cell's text, an outer
    /// one is written as a Markdown table.
    fn end_table(&mut self) {
        let Some(t) = self.tables.pop() else { return };
        if let Some(outer) = self.tables.last_mut() {
            // A table inside a cell: its text joins that cell.
            for row in &t.rows {
                for cell in row {
                    if !outer.cell.is_empty() {
                        outer.cell.push(' ');
                    }
                    outer.cell.push_str(cell);
                }
            }
        } else {
            self.md.table(&t.rows, 0, 0);
        }
    }
}

/// Text into `paragraph` (none: text outside a paragraph is dropped), counting its monospaced
/// characters.
fn push_text(paragraph: Option<&mut Paragraph>, text: &str) {
    if let Some(p) = paragraph {
        p.text.push_str(text);
        let n = text.chars().filter(|c| !c.is_whitespace()).count();
        p.chars += n;
        if p.run_mono {
            p.mono_chars += n;
        }
    }
}

/// Paragraph properties: its style, list and level.
fn paragraph_property(e: &BytesStart<'_>, paragraph: Option<&mut Paragraph>) {
    let Some(p) = paragraph else { return };
    match e.local_name().as_ref() {
        "r" => p.run_mono = false,
        "rFonts" => {
            p.run_mono = ["ascii", "hAnsi"]
                .iter()
                .any(|a| attr(e, a).is_some_and(|f| is_monospaced(&f)))
        }
        "pStyle" => p.style = val(e),
        "numId" => p.num_id = val(e),
        "ilvl" => p.level = val(e).and_then(|v| v.parse().ok()),
        _ => {}
    }
}

/// Write one body paragraph as a heading, a list item or a paragraph.
fn write_paragraph(
    md: &mut MarkdownOut,
    p: Paragraph,
    styles: &Styles,
    numbering: &Numbering,
    counters: &mut HashMap<(String, u32), u64>,
) {
    let text = p.text.replace('\t', " ");
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    let style = p.style.as_deref().unwrap_or("");
    if let Some(level) = styles.heading_level(style) {
        md.heading(level, text, 0);
        return;
    }
    let name = styles.name(style).to_ascii_lowercase();
    let code_style = ["code", "preformatted", "source"]
        .iter()
        .any(|c| name.contains(c));
    if code_style || (p.chars > 0 && p.mono_chars == p.chars) {
        md.code(&p.text, "", 0, 0);
        return;
    }
    let num_id = p
        .num_id
        .clone()
        .or_else(|| styles.num_id(style).map(str::to_string))
        .filter(|n| n != "0");
    let style_list = name.starts_with("list bullet") || name.starts_with("list number");
    if num_id.is_none() && !style_list {
        md.paragraph(text, 0, 0);
        return;
    }
    // The level: the paragraph's own, else the style name's ("List Bullet 2" is level 1).
    let level = p.level.unwrap_or_else(|| {
        name.rsplit(' ')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
            .map_or(0, |n| n.saturating_sub(1))
    });
    let ordered = num_id
        .as_deref()
        .and_then(|id| numbering.ordered(id, level))
        .unwrap_or(name.starts_with("list number"));
    let indent = level.min(8) as usize * 2;
    let marker = if ordered {
        let key = (num_id.clone().unwrap_or_else(|| name.clone()), level);
        let n = counters.entry(key).or_insert(0);
        *n += 1;
        format!("{n}. ")
    } else {
        "- ".to_string()
    };
    md.item(text, &marker, indent, 0);
}
