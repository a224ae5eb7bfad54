//! The page's elements written as Markdown: a walk over the parsed tree that drops what a
//! reader never sees and turns headings, lists, tables, code and emphasis into their Markdown.

use ego_tree::NodeRef;
use ego_tree::iter::Edge;
use scraper::Node;

use crate::extract::markdown_out::MarkdownOut;

/// Elements whose whole subtree is never text a reader sees.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "head", "nav", "aside", "svg", "math", "iframe",
    "object", "embed", "canvas", "button", "select", "input", "textarea", "dialog", "map", "audio",
    "video", "img", "picture",
];

/// Elements that start and end a block of text.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "blockquote",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "form",
    "fieldset",
    "legend",
    "center",
    "dl",
    "dt",
    "dd",
    "hr",
    "body",
    "html",
    "caption",
    "hgroup",
];

/// Whether a node's subtree is dropped wherever it stands.
pub(super) fn is_dropped(node: &NodeRef<'_, Node>) -> bool {
    let Some(e) = node.value().as_element() else {
        return false;
    };
    let name = e.name();
    if DROPPED.contains(&name) {
        return true;
    }
    if e.attr("hidden").is_some() || e.attr("aria-hidden") == Some("true") {
        return true;
    }
    if let Some(style) = e.attr("style") {
        let style: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if style.contains("display:none") || style.contains("visibility:hidden") {
            return true;
        }
    }
    if matches!(e.attr("role"), Some("navigation" | "search")) {
        return true;
    }
    // The page's own header and footer (a site banner, a copyright line) are dropped; an
    // article's or a section's header holds its title and stays.
    if matches!(name, "header" | "footer")
        || matches!(e.attr("role"), Some("banner" | "contentinfo"))
    {
        return !node.ancestors().any(|a| {
            a.value()
                .as_element()
                .is_some_and(|p| matches!(p.name(), "main" | "article" | "section"))
        });
    }
    false
}

/// One open list.
#[derive(Debug)]
struct List {
    ordered: bool,
    next: u64,
    /// Spaces before this list's markers.
    indent: usize,
}

/// One table being collected (only the outermost: a table inside a cell is read as text).
#[derive(Debug, Default)]
struct Table {
    rows: Vec<Vec<String>>,
    row: Option<Vec<String>>,
    cell: Option<String>,
    /// Tables opened inside this one's cells.
    nested: usize,
}

/// Walks the page tree (iteratively: a deeply nested page cannot overflow the stack) and
/// writes Markdown.
#[derive(Debug, Default)]
pub(super) struct PageWriter {
    md: MarkdownOut,
    /// The text of the block being read.
    inline: String,
    /// Whitespace seen since the last character (written as one space before the next).
    space: bool,
    lists: Vec<List>,
    /// The marker of the list item whose first block has not been written yet.
    item_marker: Option<String>,
    quote: usize,
    heading: Option<usize>,
    pre: usize,
    pre_language: String,
    tables: Vec<Table>,
    /// Open emphasis: where its text began in the target, in which block, and its marker's
    /// length.
    emphasis: Vec<(usize, u64, usize)>,
    /// Blocks flushed so far.
    flushes: u64,
}

impl PageWriter {
    pub(super) fn finish(mut self) -> String {
        self.flush();
        self.md.finish()
    }

    pub(super) fn walk(&mut self, root: NodeRef<'_, Node>) {
        let mut skipping: Option<ego_tree::NodeId> = None;
        for edge in root.traverse() {
            match edge {
                Edge::Open(node) => {
                    if skipping.is_some() {
                        continue;
                    }
                    if node != root && is_dropped(&node) {
                        skipping = Some(node.id());
                        continue;
                    }
                    match node.value() {
                        Node::Text(t) => self.text(t),
                        Node::Element(e) => self.open(e.name(), e, node),
                        _ => {}
                    }
                }
                Edge::Close(node) => {
                    if let Some(id) = skipping {
                        if id == node.id() {
                            skipping = None;
                        }
                        continue;
                    }
                    if let Node::Element(e) = node.value() {
                        self.close(e.name());
                    }
                }
            }
        }
    }

    /// Where inline text goes now: the open table cell, else the block.
    fn target(&mut self) -> &mut String {
        if let Some(cell) = self.tables.last_mut().and_then(|t| t.cell.as_mut()) {
            return cell;
        }
        &mut self.inline
    }

    fn text(&mut self, text: &str) {
        if self.pre > 0 && !self.in_cell() {
            self.inline.push_str(text);
            return;
        }
        for c in text.chars() {
            if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}') {
                self.space = true;
            } else {
                self.push_char(c);
            }
        }
    }

    /// One visible character, after the pending space if there is one.
    fn push_char(&mut self, c: char) {
        let space = std::mem::take(&mut self.space);
        let target = self.target();
        if space && !target.is_empty() && !target.ends_with([' ', '\n']) {
            target.push(' ');
        }
        target.push(c);
    }

    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push_char(c);
        }
    }

    /// Open emphasis: its Markdown marker, after the pending space.
    fn open_emphasis(&mut self, marker: &str) {
        self.push_str(marker);
        let at = self.target().len();
        self.emphasis.push((at, self.flushes, marker.len()));
    }

    /// Close emphasis: its marker right after the text (a pending space stays pending). One
    /// that held nothing is taken back; one whose block ended inside it (it spanned blocks)
    /// adds no stray marker.
    fn close_emphasis(&mut self, marker: &str) {
        let Some((at, flushes, _)) = self.emphasis.pop() else {
            return;
        };
        let same_block = flushes == self.flushes;
        let target = self.target();
        if !same_block || target.len() < at {
            return;
        }
        if target.len() == at {
            target.truncate(at.saturating_sub(marker.len()));
        } else {
            target.push_str(marker);
        }
    }

    fn in_cell(&self) -> bool {
        self.tables.last().is_some_and(|t| t.cell.is_some())
    }

    /// Spaces before the text of blocks inside the current list item.
    fn indent(&self) -> usize {
        self.lists.last().map_or(0, |l| {
            l.indent + if l.ordered { 3 } else { 2 } // "1. " or "- "
        })
    }

    /// Write the block read so far.
    fn flush(&mut self) {
        // Emphasis opened at the end of this block holds the next block: its marker goes.
        for &(at, flushes, len) in self.emphasis.iter().rev() {
            if flushes != self.flushes || at != self.inline.len() {
                break;
            }
            self.inline.truncate(at - len);
        }
        self.flushes += 1;
        self.space = false;
        let text = std::mem::take(&mut self.inline);
        if self.pre > 0 {
            self.inline = text;
            return;
        }
        let text = text.trim();
        if let Some(level) = self.heading {
            if !self.lists.is_empty() && self.item_marker.is_some() {
                self.write_item(text);
            } else {
                self.md.heading(level, text, self.quote);
            }
            return;
        }
        if text.is_empty() {
            return;
        }
        if self.item_marker.is_some() {
            self.write_item(text);
        } else {
            self.md.paragraph(text, self.quote, self.indent());
        }
    }

    fn write_item(&mut self, text: &str) {
        let marker = self.item_marker.take().unwrap_or_default();
        let indent = self.lists.last().map_or(0, |l| l.indent);
        self.md.item(text, &marker, indent, self.quote);
    }

    /// An element opens: a block is written before it, a list, item, quote, code block or
    /// table starts, inline code or emphasis opens its marker.
    fn open(&mut self, name: &str, element: &scraper::node::Element, node: NodeRef<'_, Node>) {
        if self.in_cell() || self.tables.last().is_some_and(|t| t.nested > 0) {
            self.open_in_cell(name);
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                self.heading = name[1..].parse().ok();
            }
            "ul" | "ol" | "menu" => self.open_list(name == "ol", element),
            "li" => self.open_item(),
            "blockquote" => {
                self.flush();
                self.quote += 1;
            }
            "pre" => self.open_pre(element, node),
            "br" => {
                if self.pre > 0 {
                    self.inline.push('\n');
                } else {
                    self.space = false;
                    self.target().push('\n');
                }
            }
            "code" | "kbd" | "samp" if self.pre == 0 => self.push_str("`"),
            _ if self.pre == 0 && emphasis(name).is_some() => {
                self.open_emphasis(emphasis(name).unwrap_or_default());
            }
            "hr" => {
                self.flush();
                self.md.rule(self.quote);
            }
            "table" => {
                self.flush();
                self.tables.push(Table::default());
            }
            "tr" => {
                if let Some(t) = self.tables.last_mut() {
                    t.row = Some(Vec::new());
                }
            }
            "td" | "th" => {
                self.space = false;
                if let Some(t) = self.tables.last_mut() {
                    if t.row.is_none() {
                        t.row = Some(Vec::new());
                    }
                    t.cell = Some(String::new());
                }
            }
            _ if BLOCKS.contains(&name) => self.flush(),
            _ => {}
        }
    }

    /// An element opens inside a cell, where everything is inline text: cells of a nested
    /// table are spaced, code and emphasis open their markers.
    fn open_in_cell(&mut self, name: &str) {
        match name {
            "table" => {
                if let Some(t) = self.tables.last_mut() {
                    t.nested += 1;
                }
            }
            "br" | "td" | "th" | "tr" | "p" | "div" | "li" => self.space = true,
            "code" if self.pre == 0 => self.push_str("`"),
            _ if self.pre == 0 && emphasis(name).is_some() => {
                self.open_emphasis(emphasis(name).unwrap_or_default());
            }
            _ => {}
        }
        if name == "pre" {
            self.pre += 1;
        }
    }

    /// A list opens, inside the current item's text when nested, numbered from its `start`.
    fn open_list(&mut self, ordered: bool, element: &scraper::node::Element) {
        self.flush();
        let indent = if self.lists.is_empty() {
            0
        } else {
            self.indent()
        };
        let next = element
            .attr("start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        self.lists.push(List {
            ordered,
            next,
            indent,
        });
    }

    /// A list item opens: its marker waits for its text.
    fn open_item(&mut self) {
        self.flush();
        if self.item_marker.is_some() {
            // The previous item held nothing: keep its marker on a line of its own.
            self.write_item("");
        }
        let marker = match self.lists.last_mut() {
            Some(l) if l.ordered => {
                let m = format!("{}. ", l.next);
                l.next += 1;
                m
            }
            _ => "- ".to_string(),
        };
        self.item_marker = Some(marker);
    }

    /// A code block opens; the outermost takes its language from its class or its `code`
    /// child's.
    fn open_pre(&mut self, element: &scraper::node::Element, node: NodeRef<'_, Node>) {
        self.flush();
        self.pre += 1;
        if self.pre == 1 {
            self.pre_language = code_language(element)
                .or_else(|| {
                    node.children()
                        .find_map(|c| c.value().as_element().and_then(code_language))
                })
                .unwrap_or_default();
        }
    }

    /// An element closes: the block it held is written, and a list, item, quote, code block or
    /// table ends.
    fn close(&mut self, name: &str) {
        if self.close_in_table(name) {
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                self.heading = None;
            }
            "ul" | "ol" | "menu" => {
                self.flush();
                if self.item_marker.is_some() {
                    self.write_item("");
                }
                self.lists.pop();
                if self.lists.is_empty() {
                    self.md.end_list();
                }
            }
            "li" => {
                self.flush();
                if self.item_marker.is_some() {
                    self.write_item("");
                }
            }
            "blockquote" => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            "pre" => self.close_pre(),
            "code" | "kbd" | "samp" if self.pre == 0 => self.push_str("`"),
            _ if self.pre == 0 && emphasis(name).is_some() => {
                self.close_emphasis(emphasis(name).unwrap_or_default());
            }
            "tr" => {
                if let Some(t) = self.tables.last_mut()
                    && let Some(row) = t.row.take()
                {
                    t.rows.push(row);
                }
            }
            "table" => {
                if let Some(mut t) = self.tables.pop() {
                    if let Some(row) = t.row.take() {
                        t.rows.push(row);
                    }
                    if self.item_marker.is_some() {
                        self.write_item("");
                    }
                    self.md.table(&t.rows, self.quote, self.indent());
                }
            }
            _ if BLOCKS.contains(&name) => self.flush(),
            _ => {}
        }
    }

    /// An element closes inside a nested table or an open cell, where everything is inline
    /// text; `true` when that is all it does (a row or table that ends with a cell the markup
    /// never closed closes that cell, then ends as usual: `false`).
    fn close_in_table(&mut self, name: &str) -> bool {
        let Some(t) = self.tables.last_mut() else {
            return false;
        };
        if t.nested > 0 {
            match name {
                "table" => t.nested -= 1,
                "td" | "th" | "tr" => self.space = true,
                "pre" => self.pre = self.pre.saturating_sub(1),
                "code" if self.pre == 0 => self.push_str("`"),
                _ if self.pre == 0 && emphasis(name).is_some() => {
                    self.close_emphasis(emphasis(name).unwrap_or_default());
                }
                _ => {}
            }
            return true;
        }
        if t.cell.is_none() {
            return false;
        }
        match name {
            "td" | "th" => {
                let cell = t.cell.take().unwrap_or_default();
                t.row
                    .get_or_insert_with(Vec::new)
                    .push(cell.trim().to_string());
                self.space = false;
                true
            }
            "tr" | "table" => {
                // A cell the markup never closed.
                let cell = t.cell.take().unwrap_or_default();
                t.row
                    .get_or_insert_with(Vec::new)
                    .push(cell.trim().to_string());
                false
            }
            "pre" => {
                self.pre = self.pre.saturating_sub(1);
                true
            }
            "code" if self.pre == 0 => {
                self.push_str("`");
                true
            }
            _ if self.pre == 0 && emphasis(name).is_some() => {
                self.close_emphasis(emphasis(name).unwrap_or_default());
                true
            }
            "p" | "div" | "li" | "br" => {
                self.space = true;
                true
            }
            _ => true,
        }
    }

    /// A code block closes; the outermost is written, after the marker of an item it opens.
    fn close_pre(&mut self) {
        self.pre = self.pre.saturating_sub(1);
        if self.pre == 0 {
            let code = std::mem::take(&mut self.inline);
            let language = std::mem::take(&mut self.pre_language);
            if self.item_marker.is_some() {
                // A list item that opens with code: the marker goes on its own line.
                self.write_item("");
            }
            self.md.code(&code, &language, self.quote, self.indent());
        }
    }
}

/// The Markdown marker of an inline emphasis element: `**` for strong and bold, `*` for
/// emphasis and italics (what a Markdown renderer made them from).
fn emphasis(name: &str) -> Option<&'static str> {
    match name {
        "strong" | "b" => Some("**"),
        "em" | "i" => Some("*"),
        _ => None,
    }
}

/// A code block's language from its `class` (`language-rust`, `lang-rust`).
fn code_language(element: &scraper::node::Element) -> Option<String> {
    element.classes().find_map(|c| {
        c.strip_prefix("language-")
            .or_else(|| c.strip_prefix("lang-"))
            .map(str::to_string)
    })
}
