//! HTML: a page's main text as Markdown, read with a browser-grade HTML5 parser (html5ever,
//! through `scraper`).
//!
//! Headings become `#` headings (so the structure chunker and heading paths work), lists `- ` /
//! `1. ` items, tables Markdown tables, `pre` fenced blocks; scripts, styles, navigation, the
//! page's header, footer and asides, forms and hidden elements are dropped, and `main` (else the
//! page's `article`s) is preferred when present. Whitespace collapses as a browser's would.
//! The charset is the byte-order mark's, else a `<meta>` declaration's, else UTF-8: a page that
//! declares nothing and is not UTF-8 is skipped with that reason rather than guessed at.

use std::path::Path;

use ego_tree::NodeRef;
use scraper::{Html, Node};

use super::{Extracted, Extractor, Format, PageMap};
use crate::extract::{DocKind, SkipReason};

mod nesting;
mod writer;

pub use nesting::{MAX_NESTING, nesting_depth};

use writer::{PageWriter, is_dropped};

/// The HTML extractor's version: a change re-extracts every cached HTML file.
pub const HTML_EXTRACTOR_VERSION: &str = "2";

/// How many leading bytes are searched for a `<meta>` charset declaration.
const META_PRESCAN_BYTES: usize = 8192;

/// HTML pages: the main text as Markdown.
#[derive(Debug, Clone, Copy, Default)]
pub struct HtmlPage;

impl Extractor for HtmlPage {
    fn format(&self) -> Format {
        Format::Html
    }
    fn version(&self) -> String {
        format!("{HTML_EXTRACTOR_VERSION}+html5ever")
    }
    fn extract(&self, _path: &Path, bytes: Vec<u8>) -> Result<Extracted, SkipReason> {
        let source = decode_page(&bytes)?;
        drop(bytes);
        let (depth, at) = nesting_depth(&source);
        if depth > MAX_NESTING {
            return Err(SkipReason::Damaged {
                format: "html".into(),
                error: format!(
                    "elements nested more than {MAX_NESTING} deep (by byte {at}), past what a page is read to"
                ),
            });
        }
        let text = page_markdown(&source);
        if text.trim().is_empty() {
            return Err(SkipReason::Empty);
        }
        Ok(Extracted {
            text,
            kind: DocKind::Markdown,
            pages: PageMap::default(),
        })
    }
}

/// A page's bytes as text: the BOM's encoding, else the `<meta>` charset's, else UTF-8.
pub fn decode_page(bytes: &[u8]) -> Result<String, SkipReason> {
    if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom..]);
        return Ok(text.into_owned());
    }
    if let Some(encoding) = declared_charset(&bytes[..bytes.len().min(META_PRESCAN_BYTES)]) {
        // Decoded as a browser would: a malformed sequence becomes U+FFFD.
        let (text, _) = encoding.decode_without_bom_handling(bytes);
        return Ok(text.into_owned());
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes.to_vec()).map_err(|e| SkipReason::InvalidUtf8 {
        at_byte: e.utf8_error().valid_up_to(),
    })
}

/// The encoding a `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…;
/// charset=…">` in `head` names (UTF-16 labels mean UTF-8 there, as in the HTML standard).
fn declared_charset(head: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let lower = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"<meta") {
        let start = from + at + 5;
        let end = find(&lower[start..], b">").map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(label) = charset_in(tag)
            && let Some(encoding) = encoding_rs::Encoding::for_label(label)
        {
            if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
                return Some(encoding_rs::UTF_8);
            }
            if encoding == encoding_rs::X_USER_DEFINED {
                return Some(encoding_rs::WINDOWS_1252);
            }
            return Some(encoding);
        }
        from = end;
    }
    None
}

/// The label after `charset` `=` in a tag's attributes, unquoted.
fn charset_in(tag: &[u8]) -> Option<&[u8]> {
    let at = find(tag, b"charset")?;
    let rest = &tag[at + 7..];
    let rest = trim_start(rest);
    let rest = trim_start(rest.strip_prefix(b"=")?);
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let len = rest
        .iter()
        .position(|b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(rest.len());
    (len > 0).then(|| &rest[..len])
}

fn trim_start(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A page's main text as Markdown.
pub fn page_markdown(source: &str) -> String {
    let page = Html::parse_document(source);
    let mut writer = PageWriter::default();
    for root in content_roots(&page) {
        writer.walk(root);
    }
    writer.finish()
}

/// Where the main text is: the first `main` (or `role="main"`), else every outermost
/// `article`, else the whole page.
fn content_roots(page: &Html) -> Vec<NodeRef<'_, Node>> {
    let root = page.tree.root();
    let is = |n: &NodeRef<'_, Node>, name: &str| {
        n.value().as_element().is_some_and(|e| e.name() == name)
    };
    if let Some(main) = root.descendants().find(|n| {
        is(n, "main")
            || n.value()
                .as_element()
                .is_some_and(|e| e.attr("role") == Some("main"))
    }) {
        return vec![main];
    }
    let articles: Vec<_> = root
        .descendants()
        .filter(|n| is(n, "article") && !n.ancestors().any(|a| is(&a, "article")))
        .filter(|n| !n.ancestors().any(|a| is_dropped(&a)))
        .collect();
    if !articles.is_empty() {
        return articles;
    }
    vec![root]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(html: &str) -> String {
        page_markdown(html)
    }

    #[test]
    fn headings_lists_tables_and_code_become_markdown() {
        let page = r#"<!doctype html><html><head><title>T</title><style>p{}</style></head>
<body><nav><a href="/">Home</a></nav><header>Site banner</header>
<h1>Order  service</h1><p>The service
   takes &amp; keeps <em>orders</em>.</p>
<h2>Interfaces</h2><ul><li>Create</li><li>Cancel<ul><li>within 5 min</li></ul></li></ul>
<ol start="3"><li>three</li><li><p>four</p></li></ol>
<table><thead><tr><th>Code</th><th>Meaning</th></tr></thead>
<tbody><tr><td>409</td><td>a | b</td></tr></tbody></table>
<pre><code class="language-python">def f():
    return 1
</code></pre>
<p>Use <code>retry()</code> twice.<br>Then stop.</p>
<script>alert("no")</script><footer>(c) 2025</footer></body></html>"#;
        assert_eq!(
            md(page),
            "# Order service\n\nThe service takes & keeps *orders*.\n\n## Interfaces\n\n\
             - Create\n- Cancel\n  - within 5 min\n\n3. three\n4. four\n\n\
             | Code | Meaning |\n|---|---|\n| 409 | a \\| b |\n\n\
             ```python\ndef f():\n    return 1\n```\n\nUse `retry()` twice.\nThen stop."
        );
    }

    /// Emphasis keeps the Markdown a renderer made it from, so the extracted text cuts where
    /// the source's does; empty emphasis leaves nothing, and a rule is `---`.
    #[test]
    fn emphasis_and_rules_keep_their_markdown() {
        assert_eq!(
            md("<p><strong>Owner:</strong> Platform, <em>not</em> <b>Data </b>team.</p>"),
            "**Owner:** Platform, *not* **Data** team."
        );
        assert_eq!(md("<p>a<strong> </strong>b <em></em>c</p>"), "a b c");
        assert_eq!(
            md("<p><em><strong>both</strong></em></p><hr><p>after</p>"),
            "***both***\n\n---\n\nafter"
        );
        assert_eq!(
            md("<table><tr><th><b>Tier</b></th></tr><tr><td>1</td></tr></table>"),
            "| **Tier** |\n|---|\n| 1 |"
        );
        // Emphasis that spans blocks adds no stray closing marker.
        assert_eq!(md("<b><p>one</p><p>two</p></b>"), "one\n\ntwo");
    }

    #[test]
    fn main_is_preferred_and_an_articles_header_stays() {
        let page = "<body><div>Sidebar words</div><main><article><header><h1>Title</h1>\
                    </header><p>Body.</p></article></main><div>More chrome</div></body>";
        assert_eq!(md(page), "# Title\n\nBody.");
        let page = "<body><div>Chrome</div><article><h2>A</h2><p>x</p></article>\
                    <article><h2>B</h2></article></body>";
        assert_eq!(md(page), "## A\n\nx\n\n## B");
    }

    #[test]
    fn hidden_elements_are_dropped() {
        let page = "<p>seen</p><p hidden>not</p><div style=\"display: none\">not</div>\
                    <span aria-hidden=\"true\">not</span><noscript>not</noscript>";
        assert_eq!(md(page), "seen");
    }

    #[test]
    fn the_charset_comes_from_the_bom_then_the_meta_then_utf8() {
        let latin1 = b"<html><head><meta charset=\"iso-8859-1\"></head><p>caf\xe9</p>";
        assert_eq!(md(&decode_page(latin1).unwrap()), "café");
        let equiv = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><p>\x93q\x94</p>";
        assert_eq!(md(&decode_page(equiv).unwrap()), "\u{201c}q\u{201d}");
        let bom = [&[0xEF, 0xBB, 0xBF][..], "<p>é</p>".as_bytes()].concat();
        assert_eq!(md(&decode_page(&bom).unwrap()), "é");
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("<p>ok</p>".encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        assert_eq!(md(&decode_page(&utf16).unwrap()), "ok");
        assert_eq!(
            decode_page(b"<p>caf\xe9</p>"),
            Err(SkipReason::InvalidUtf8 { at_byte: 6 })
        );
    }

    #[test]
    fn a_page_of_chrome_only_is_empty_and_deep_nesting_is_refused_in_every_shape() {
        let extractor = HtmlPage;
        let empty = extractor.extract(
            Path::new("a.html"),
            b"<nav>menu</nav><script>x</script>".to_vec(),
        );
        assert_eq!(empty, Err(SkipReason::Empty));
        let nested = |n: usize| format!("{}deep{}", "<div>".repeat(n), "</div>".repeat(n));
        let page = |text: String| extractor.extract(Path::new("d.html"), text.into_bytes());
        assert_eq!(page(nested(1000)).map(|e| e.text).as_deref(), Ok("deep"));
        // Past the limit it is a named skip, found before the tree builder is started: plain
        // nesting, and the shapes an earlier scan was fooled by (end tags that close nothing,
        // ends implied only inside <ruby> or <select>).
        let n = 100_000;
        for shape in [
            nested(200_000),
            "<span></x>".repeat(n),
            "<rt>".repeat(n),
            "<optgroup>".repeat(n),
            "<main>".repeat(n) + &"<header></x>".repeat(n),
        ] {
            let said = page(shape).err().map(|e| e.to_string());
            assert!(
                said.as_deref().is_some_and(|e| e.starts_with(
                    "not a readable html file: elements nested more than 1024 deep (by byte "
                ) && e.ends_with("), past what a page is read to")),
                "{said:?}"
            );
        }
        // A normal page still reads.
        let normal = "<html><body><main><h1>Ledger</h1><p>The ledger closes <b>after</b> \
            midnight.<ul><li>first<li>second</ul><table><tr><td>a<td>b</table></main>";
        assert!(
            page(normal.repeat(200))
                .map(|e| e.text)
                .is_ok_and(|t| t.starts_with("# Ledger"))
        );
    }
}
