//! How deep the HTML5 tree builder's stack of open elements grows on a page, from a quick scan
//! of its tags, before the tree builder is started: it looks down that stack at every tag, so a
//! deep stack makes the parse quadratic (200,000 `<rt>` took 145 s).
//!
//! The scan follows the tree builder's own rules closely enough to be an upper bound: an end tag
//! pops only what the tree builder would pop (`</x>` that matches nothing, or that would have to
//! cross a `<div>`, pops nothing); an element's end is implied only where the tree builder
//! implies it (`<rt>` closes an `<rt>` only inside `<ruby>`, `<optgroup>` an `<optgroup>` only
//! inside `<select>`, a cell or row only inside a `<table>`); `<x/>` is a start tag like any other
//! outside SVG and MathML; and formatting elements closed by another's end tag (`<b>` by `</p>`)
//! come back at the next text, as the tree builder reconstructs them. An earlier scan let any end
//! tag pop and let `<rt>`, `<optgroup>` and cells never nest, so 100,000 `<span></x>` were
//! read as one level deep and parsed for 73 s.
//!
//! The element names those rules read (void, special, formatting, the scopes) are in
//! `nesting/elements.rs`.

mod elements;

use elements::{
    BREAKS_OUT, BUTTON_SCOPE, CLOSES_P, FORMATTING, IMPLIED, INTEGRATION, LIST_SCOPE, MARKERS,
    NO_RECONSTRUCT, RAW_TEXT, SCOPE, SPECIAL, VOID,
};

/// The deepest element nesting a page is read to. Browsers stop nesting at a few hundred
/// (Chromium at 512), and real pages stay far below.
pub const MAX_NESTING: usize = 1024;

/// The most formatting elements of one name and attributes the tree builder keeps waiting
/// (its "Noah's Ark" clause).
const SAME_WAITING: usize = 3;

/// One element on the stack.
struct Open {
    name: String,
    /// A formatting element's attributes as written (others' are not kept).
    attrs: String,
    /// In SVG or MathML (not HTML).
    foreign: bool,
}

/// A formatting element popped by another element's end, waiting to be reconstructed.
struct Waiting {
    name: String,
    attrs: String,
    /// Markers open when it was popped: it is reconstructed only among as many.
    markers: usize,
}

/// The stack of open elements as the scan keeps it, with the formatting elements waiting to be
/// reconstructed.
#[derive(Default)]
struct Stack {
    open: Vec<Open>,
    /// Formatting elements popped by another element's end: pushed again at the next content.
    pending: Vec<Waiting>,
    deepest: usize,
}

impl Stack {
    fn push(&mut self, name: &str, foreign: bool) {
        self.push_with(name, foreign, "");
    }

    fn push_with(&mut self, name: &str, foreign: bool, attrs: &str) {
        self.open.push(Open {
            name: name.to_string(),
            attrs: attrs.to_string(),
            foreign,
        });
        self.deepest = self.deepest.max(self.open.len());
    }

    /// Markers open (cells, captions, objects, templates).
    fn markers(&self) -> usize {
        self.open
            .iter()
            .filter(|o| !o.foreign && MARKERS.contains(&o.name.as_str()))
            .count()
    }

    /// Push the formatting elements waiting to be reconstructed since the last marker.
    fn reconstruct(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let markers = self.markers();
        let (now, later): (Vec<Waiting>, Vec<Waiting>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|w| w.markers == markers);
        self.pending = later;
        for w in now {
            self.push_with(&w.name, false, &w.attrs);
        }
    }

    /// A formatting element left waiting; the oldest of more than [`SAME_WAITING`] alike is
    /// forgotten, as the tree builder forgets it.
    fn wait(&mut self, o: Open) {
        let markers = self.markers();
        let alike = |w: &Waiting| w.name == o.name && w.attrs == o.attrs && w.markers == markers;
        if self.pending.iter().filter(|w| alike(w)).count() >= SAME_WAITING
            && let Some(oldest) = self.pending.iter().position(alike)
        {
            self.pending.remove(oldest);
        }
        self.pending.push(Waiting {
            name: o.name,
            attrs: o.attrs,
            markers,
        });
    }

    fn top(&self) -> Option<&str> {
        self.open.last().map(|o| o.name.as_str())
    }

    /// Whether the current node is in SVG or MathML, and not an integration point.
    fn in_foreign(&self) -> bool {
        self.open
            .last()
            .is_some_and(|o| o.foreign && !INTEGRATION.contains(&o.name.as_str()))
    }

    /// The position of the nearest `target` (any of them) before one of `boundary`.
    fn in_scope(&self, target: &[&str], boundary: &[&str]) -> Option<usize> {
        for (i, o) in self.open.iter().enumerate().rev() {
            if target.contains(&o.name.as_str()) && !o.foreign {
                return Some(i);
            }
            if boundary.contains(&o.name.as_str()) {
                return None;
            }
        }
        None
    }

    /// Pop down to position `at` (inclusive when `inclusive`); formatting elements popped on
    /// the way (not the one the end tag names) wait to be reconstructed.
    fn pop_to(&mut self, at: usize, inclusive: bool) {
        let keep = if inclusive { at } else { at + 1 };
        while self.open.len() > keep {
            let Some(o) = self.open.pop() else { break };
            let target = self.open.len() == at;
            if o.foreign {
                continue;
            }
            if MARKERS.contains(&o.name.as_str()) {
                // What waited inside the marker is forgotten with it.
                let markers = self.markers();
                self.pending.retain(|w| w.markers <= markers);
            } else if !target && FORMATTING.contains(&o.name.as_str()) {
                self.wait(o);
            }
        }
    }

    /// Close an open `<p>` in button scope.
    fn close_p(&mut self) {
        if let Some(at) = self.in_scope(&["p"], BUTTON_SCOPE) {
            self.pop_to(at, true);
        }
    }

    /// The nearest `name` above the nearest `table`, or the table itself.
    fn in_table(&self, names: &[&str]) -> Option<(usize, bool)> {
        for (i, o) in self.open.iter().enumerate().rev() {
            if names.contains(&o.name.as_str()) {
                return Some((i, true));
            }
            if o.name == "table" {
                return Some((i, false));
            }
        }
        None
    }

    fn start(&mut self, name: &str, self_closing: bool, attrs: &str) {
        if self.in_foreign() {
            if BREAKS_OUT.contains(&name) {
                while self.in_foreign() {
                    self.open.pop();
                }
            } else {
                if !self_closing {
                    self.push(name, true);
                }
                return;
            }
        }
        if !CLOSES_P.contains(&name) && !NO_RECONSTRUCT.contains(&name) {
            self.reconstruct();
        }
        if VOID.contains(&name) || matches!(name, "html" | "head" | "body" | "frameset") {
            return;
        }
        let table_part = matches!(
            name,
            "caption" | "colgroup" | "tbody" | "thead" | "tfoot" | "tr" | "td" | "th"
        );
        if table_part {
            self.table_part(name);
            return;
        }
        self.close_implied(name);
        if CLOSES_P.contains(&name) {
            self.close_p();
        }
        if name.len() == 2
            && name.starts_with('h')
            && name.as_bytes()[1].is_ascii_digit()
            && self.top().is_some_and(|t| {
                t.len() == 2 && t.starts_with('h') && t.as_bytes()[1].is_ascii_digit()
            })
        {
            self.open.pop();
        }
        let foreign = matches!(name, "svg" | "math");
        if FORMATTING.contains(&name) {
            self.push_with(name, false, attrs);
        } else if !(foreign && self_closing) {
            self.push(name, foreign);
        }
    }

    /// The open elements a start tag ends before it is pushed: an item, a second `<a>`, a
    /// button, an option or optgroup, a ruby text.
    fn close_implied(&mut self, name: &str) {
        match name {
            "li" => self.close_item(&["li"]),
            "dd" | "dt" => self.close_item(&["dd", "dt"]),
            "a" | "nobr" => {
                // A second `<a>` ends the first (adoption agency), as `</a>` would.
                self.end_formatting(name);
            }
            "button" => {
                if let Some(at) = self.in_scope(&["button"], SCOPE) {
                    self.pop_to(at, true);
                }
            }
            "option" if self.top() == Some("option") => {
                self.open.pop();
            }
            "optgroup" => {
                if self.top() == Some("option") {
                    self.open.pop();
                }
                let in_select = self.open.iter().any(|o| o.name == "select");
                if in_select && self.top() == Some("optgroup") {
                    self.open.pop();
                }
            }
            "rb" | "rtc" | "rp" | "rt" if self.in_scope(&["ruby"], SCOPE).is_some() => {
                let keep_rtc = matches!(name, "rp" | "rt");
                while let Some(top) = self.top() {
                    if !IMPLIED.contains(&top) || (keep_rtc && top == "rtc") {
                        break;
                    }
                    self.open.pop();
                }
            }
            _ => {}
        }
    }

    /// `<li>`, `<dd>`, `<dt>`: close the open item of `names`, unless a list or another block
    /// (other than `address`, `div`, `p`) is in between.
    fn close_item(&mut self, names: &[&str]) {
        for i in (0..self.open.len()).rev() {
            let n = self.open[i].name.as_str();
            if names.contains(&n) {
                self.pop_to(i, true);
                return;
            }
            if SPECIAL.contains(&n) && !matches!(n, "address" | "div" | "p") {
                return;
            }
        }
    }

    /// A cell, row, row group, caption or column group: ignored outside a table; inside one,
    /// it ends the open cell, row or group it replaces, and implies the row and row group a
    /// cell needs.
    fn table_part(&mut self, name: &str) {
        if !self.open.iter().any(|o| o.name == "table") {
            return;
        }
        match name {
            "td" | "th" => {
                match self.in_table(&["tr"]) {
                    Some((at, true)) => self.pop_to(at, false),
                    _ => {
                        self.row_group();
                        self.push("tr", false);
                    }
                }
                self.push(name, false);
            }
            "tr" => {
                self.row_group();
                self.push("tr", false);
            }
            _ => {
                if let Some((at, _)) = self.in_table(&[]) {
                    self.pop_to(at, false);
                }
                self.push(name, false);
            }
        }
    }

    /// Down to the open row group of the nearest table, opening one when there is none.
    fn row_group(&mut self) {
        match self.in_table(&["tbody", "thead", "tfoot"]) {
            Some((at, true)) => self.pop_to(at, false),
            Some((at, false)) => {
                self.pop_to(at, false);
                self.push("tbody", false);
            }
            None => {}
        }
    }

    /// The end tag of a formatting element: it pops down to that element when no other block
    /// is in between (else the tree builder moves things, but the stack does not grow); one
    /// waiting to be reconstructed is forgotten.
    fn end_formatting(&mut self, name: &str) {
        for i in (0..self.open.len()).rev() {
            let o = &self.open[i];
            if o.name == name && !o.foreign {
                self.pop_to(i, true);
                return;
            }
            if SPECIAL.contains(&o.name.as_str()) {
                return;
            }
        }
        let markers = self.markers();
        if let Some(at) = self
            .pending
            .iter()
            .rposition(|w| w.name == name && w.markers == markers)
        {
            self.pending.remove(at);
        }
    }

    fn end(&mut self, name: &str) {
        // In SVG or MathML: the nearest foreign element of that name, if no HTML is between.
        for i in (0..self.open.len()).rev() {
            let o = &self.open[i];
            if !o.foreign {
                break;
            }
            if o.name == name {
                self.pop_to(i, true);
                return;
            }
        }
        if FORMATTING.contains(&name) {
            self.end_formatting(name);
            return;
        }
        let heading =
            |n: &str| n.len() == 2 && n.starts_with('h') && n.as_bytes()[1].is_ascii_digit();
        let scoped = match name {
            "html" | "body" => return,
            "p" => self.in_scope(&["p"], BUTTON_SCOPE),
            "li" => self.in_scope(&["li"], LIST_SCOPE),
            "table" | "tbody" | "thead" | "tfoot" | "tr" | "td" | "th" | "caption" | "colgroup" => {
                self.in_scope(&[name], &["html", "table", "template"])
            }
            _ if heading(name) => self.in_scope(&["h1", "h2", "h3", "h4", "h5", "h6"], SCOPE),
            "form" => {
                if let Some(at) = self.in_scope(&["form"], SCOPE) {
                    self.open.remove(at);
                }
                return;
            }
            _ if SPECIAL.contains(&name) => self.in_scope(&[name], SCOPE),
            // Any other end tag: the nearest element of that name, if no special element is
            // in between; else nothing.
            _ => {
                for i in (0..self.open.len()).rev() {
                    let o = &self.open[i];
                    if o.name == name && !o.foreign {
                        self.pop_to(i, true);
                        return;
                    }
                    if SPECIAL.contains(&o.name.as_str()) {
                        return;
                    }
                }
                None
            }
        };
        if let Some(at) = scoped {
            self.pop_to(at, true);
        }
    }
}

/// How deep the tree builder's stack of open elements gets on `page` (not counting `html` and
/// `body`), from a scan of its tags: an upper bound for well-formed and malformed markup alike.
/// The scan stops once past [`MAX_NESTING`] and returns the depth it got to and the byte at
/// which it got there.
pub fn nesting_depth(page: &str) -> (usize, usize) {
    let bytes = page.as_bytes();
    let mut stack = Stack::default();
    let mut i = 0usize;
    let mut text_from = 0usize;
    while let Some(at) = bytes[i..].iter().position(|b| *b == b'<') {
        if !stack.pending.is_empty()
            && bytes[text_from..i + at]
                .iter()
                .any(|b| !b.is_ascii_whitespace())
        {
            stack.reconstruct();
        }
        if stack.deepest > MAX_NESTING {
            return (stack.deepest, i + at);
        }
        i += at + 1;
        text_from = i;
        if bytes[i..].starts_with(b"!--") {
            i = find(&bytes[i..], b"-->").map_or(bytes.len(), |e| i + e + 3);
            text_from = i;
            continue;
        }
        let closing = bytes.get(i) == Some(&b'/');
        let start = i + usize::from(closing);
        let len = bytes[start..]
            .iter()
            .take_while(|b| !b.is_ascii_whitespace() && **b != b'/' && **b != b'>')
            .count();
        if len == 0 || !bytes[start].is_ascii_alphabetic() {
            if bytes.get(i).is_some_and(|b| matches!(b, b'!' | b'?')) || closing {
                // A doctype, a processing instruction or a bogus end tag: up to its `>`.
                i = find(&bytes[i..], b">").map_or(bytes.len(), |e| i + e + 1);
                text_from = i;
            }
            continue;
        }
        let name = page[start..start + len].to_ascii_lowercase();
        let end = bytes[start..]
            .iter()
            .position(|b| *b == b'>')
            .map_or(bytes.len(), |e| start + e);
        i = (end + 1).min(bytes.len());
        text_from = i;
        if closing {
            stack.end(&name);
            continue;
        }
        let self_closing = end > 0 && bytes.get(end - 1) == Some(&b'/');
        let attrs = page.get(start + len..end).unwrap_or("").trim();
        stack.start(&name, self_closing, attrs);
        let html_raw_text = stack
            .open
            .last()
            .is_some_and(|o| o.name == name && !o.foreign)
            && RAW_TEXT.contains(&name.as_str());
        if html_raw_text {
            // Raw text: everything up to the end tag is not markup.
            let close = format!("</{name}");
            i = bytes[i..]
                .windows(close.len())
                .position(|w| w.eq_ignore_ascii_case(close.as_bytes()))
                .map_or(bytes.len(), |e| i + e);
            text_from = i;
        }
    }
    (stack.deepest, bytes.len())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(page: &str) -> usize {
        nesting_depth(page).0
    }

    #[test]
    fn well_formed_and_loosely_closed_pages_are_shallow() {
        let nested = |n: usize| format!("{}deep{}", "<div>".repeat(n), "</div>".repeat(n));
        assert_eq!(depth(&nested(10)), 10);
        // Unclosed paragraphs and list items, comments and scripts.
        let flat = format!(
            "{}<!-- <div><div> --><script>'<div><div><div>'</script>",
            "<p>para<li>item<br>".repeat(5000)
        );
        assert!(depth(&flat) <= 2, "{}", depth(&flat));
        let table = format!(
            "<table>{}</table>",
            "<tr><td>a<td><b>b</td><th>c".repeat(3000)
        );
        assert!(depth(&table) <= 6, "{}", depth(&table));
        let lists = "<dl><dt>a<dd>b<dt>c<dd>d</dl><ul><li>x<li><ul><li>y</ul></ul>".repeat(2000);
        assert!(depth(&lists) <= 4, "{}", depth(&lists));
        let unclosed = "<p><b>bold</p>".repeat(3000);
        assert!(depth(&unclosed) <= 6, "{}", depth(&unclosed));
        let misnested = "<p><b>bold</p><p>more <i>it</b></i></p>".repeat(2000);
        assert!(depth(&misnested) <= 8, "{}", depth(&misnested));
        let svg = format!(
            "<svg>{}</svg>",
            "<path d='M0 0'/><g><rect/></g>".repeat(3000)
        );
        assert!(depth(&svg) <= 2, "{}", depth(&svg));
        let ruby = "<ruby>漢<rt>kan<rt>ji</ruby>".repeat(3000);
        assert!(depth(&ruby) <= 2, "{}", depth(&ruby));
        let select =
            "<select><optgroup><option>a<option>b<optgroup><option>c</select>".repeat(2000);
        assert!(depth(&select) <= 3, "{}", depth(&select));
    }

    #[test]
    fn end_tags_that_close_nothing_and_implied_ends_that_do_not_apply_still_nest() {
        let n = 5000;
        for (shape, page) in [
            ("<span></x>", "<span></x>".repeat(n)),
            ("<rt>", "<rt>".repeat(n)),
            ("<optgroup>", "<optgroup>".repeat(n)),
            ("<main><header></x>", "<main><header></x>".repeat(n)),
            (
                "<main> then <header></x>",
                "<main>".repeat(n) + &"<header></x>".repeat(n),
            ),
            ("<span><div></span>", "<span><div></span>".repeat(n)),
            ("<div/>", "<div/>".repeat(n)),
            ("<td> outside a table", "<span><td>".repeat(n)),
            ("<p><b></p>x", "<p><b></p>x".repeat(n)),
            (
                "<p><b id=N></p><div> then text",
                (0..n)
                    .map(|i| format!("<p><b id={i}></p><div>"))
                    .collect::<String>()
                    + "text",
            ),
        ] {
            let (deepest, at) = nesting_depth(&page);
            assert!(deepest > MAX_NESTING, "{shape}: {deepest}");
            assert!(at < page.len(), "{shape}: the scan stops at the limit");
        }
    }
}
