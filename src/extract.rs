//! Extraction: a file's bytes become a document's text, by format (DESIGN §10).
//!
//! Every format has one [`Extractor`]; the corpus stage picks it by extension (or a forced
//! [`Format`]) and keeps its name and version with the document ([`TextSource`]), so chunking,
//! seams, the screen and every command work on any format unchanged. Offsets everywhere are byte
//! offsets into the *extracted* text; paged formats keep a [`PageMap`] from byte offset to page.

use serde::{Deserialize, Serialize};

mod outcome;

pub use outcome::{DocKind, SkipReason, decode_text, special_kind};

pub mod cache;
pub mod docx;
pub mod html;
mod markdown_out;
pub mod pdf;
pub mod pdf_markdown;
pub mod pdfium;

pub use crate::spec::Format;

/// Where one page begins in a document's extracted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageStart {
    /// First byte of the page's text.
    pub byte: usize,
    /// The page's number, 1-based, as a reader would cite it.
    pub page: u32,
}

/// Byte offset → page, for paged formats (empty for formats without pages).
///
/// Starts are in ascending byte order; a byte belongs to the last page that starts at or
/// before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageMap {
    /// Where each page begins, in byte order.
    pub starts: Vec<PageStart>,
}

impl PageMap {
    /// A page map from starts in ascending byte order.
    pub fn new(starts: Vec<PageStart>) -> PageMap {
        debug_assert!(starts.windows(2).all(|w| w[0].byte <= w[1].byte));
        PageMap { starts }
    }

    /// Whether the document has no pages (not a paged format).
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// How many pages the map knows.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// The page that holds byte `at`, if the document is paged.
    pub fn page_at(&self, at: usize) -> Option<u32> {
        let after = self.starts.partition_point(|s| s.byte <= at);
        if after == 0 {
            self.starts.first().map(|s| s.page)
        } else {
            Some(self.starts[after - 1].page)
        }
    }

    /// The first and last page a byte range `[start, end)` touches, if paged.
    pub fn pages_of(&self, start: usize, end: usize) -> Option<(u32, u32)> {
        let first = self.page_at(start)?;
        let last = self.page_at(end.saturating_sub(1).max(start))?;
        Some((first, last))
    }
}

/// Where a document's text came from: the extractor that made it and, for paged formats, its
/// page map. Part of every cache key through the document's text hash and the extractor's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextSource {
    /// The extractor's name (`text`, `pdf`, `html`, `docx`, or a loader's: `documents`, `cuts`).
    pub extractor: String,
    /// The extractor's version (its engine's version where there is one).
    pub version: String,
    /// Byte offset → page (empty when the format has no pages).
    #[serde(default, skip_serializing_if = "PageMap::is_empty")]
    pub pages: PageMap,
    /// Byte spans of text nobody knows (a document rebuilt from chunks that leave gaps): they
    /// hold spaces, and the screen shows them as unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<crate::text::Span>,
}

impl TextSource {
    /// The source of a text file read as it is.
    pub fn plain() -> TextSource {
        TextSource {
            extractor: Format::Text.name().to_string(),
            version: TEXT_EXTRACTOR_VERSION.to_string(),
            pages: PageMap::default(),
            unknown: Vec::new(),
        }
    }

    /// Whether the text is the file's own bytes (offsets match the file).
    pub fn is_plain(&self) -> bool {
        self.extractor == Format::Text.name()
    }
}

/// What an extractor made of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The document's text.
    pub text: String,
    /// What kind of text it is, for highlighting and structure (extracted HTML and DOCX are
    /// Markdown: their headings are Markdown headings).
    pub kind: DocKind,
    /// Byte offset → page (empty when the format has no pages).
    pub pages: PageMap,
}

impl Extracted {
    /// The text's first `budget` bytes or so, ended at the last paragraph break (else line
    /// end, else character) at or before `budget`, with the pages that start within it: a
    /// document's start, shown while the whole is laid out. Unchanged when already short.
    pub fn start(mut self, budget: usize) -> Extracted {
        if self.text.len() <= budget {
            return self;
        }
        let head = &self.text[..self.text.floor_char_boundary(budget)];
        let end = head
            .rfind("\n\n")
            .or_else(|| head.rfind('\n'))
            .filter(|&at| at > 0)
            .unwrap_or(head.len());
        self.text.truncate(end);
        let kept = self.text.len();
        self.pages.starts.retain(|s| s.byte < kept || s.byte == 0);
        self
    }
}

/// One format's extraction: bytes in, text (or the reason there is none) out.
///
/// Implementations must not panic on any input, must return text whose every offset the rest of
/// the pipeline may use as a byte offset, and must say why a file gives no text
/// ([`SkipReason`]) rather than return an empty string.
pub trait Extractor: Send + Sync {
    /// The format this extractor reads.
    fn format(&self) -> Format;
    /// The extractor's version: a change re-extracts every cached file of its format.
    fn version(&self) -> String;
    /// Extract one file's text. `path` is for the file's kind (`.md` vs `.txt`) and messages.
    fn extract(&self, path: &std::path::Path, bytes: Vec<u8>) -> Result<Extracted, SkipReason>;

    /// The start of a file's text, about `budget` bytes of it, when the format can give it for
    /// much less work than the whole (a long PDF's first pages): what the screen draws first
    /// while the rest is extracted. `None` (the default) when only the whole text is cheap.
    fn extract_start(
        &self,
        _path: &std::path::Path,
        _bytes: &[u8],
        _budget: usize,
    ) -> Option<Extracted> {
        None
    }

    /// The source record of a document this extractor made.
    fn source(&self, pages: PageMap) -> TextSource {
        TextSource {
            extractor: self.format().name().to_string(),
            version: self.version(),
            pages,
            unknown: Vec::new(),
        }
    }
}

/// The plain text extractor's version.
pub const TEXT_EXTRACTOR_VERSION: &str = "1";

/// UTF-8 text, Markdown and code: the file's bytes are its text.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainText;

impl Extractor for PlainText {
    fn format(&self) -> Format {
        Format::Text
    }
    fn version(&self) -> String {
        TEXT_EXTRACTOR_VERSION.to_string()
    }
    fn extract(&self, path: &std::path::Path, bytes: Vec<u8>) -> Result<Extracted, SkipReason> {
        let text = decode_text(bytes)?;
        Ok(Extracted {
            text,
            kind: DocKind::from_path(path),
            pages: PageMap::default(),
        })
    }
}

/// The extractor for a format, or why the format cannot be read in this build or setup (PDF
/// with the pdfium library of the default places; [`crate::corpus::LoadOptions`] names another).
pub fn extractor_for(format: Format) -> Result<Box<dyn Extractor>, SkipReason> {
    match format {
        Format::Text => Ok(Box::new(PlainText)),
        Format::Pdf => Ok(Box::new(pdf::Pdf::new(pdfium::library_without_settings()))),
        Format::Html => Ok(Box::new(html::HtmlPage)),
        Format::Docx => Ok(Box::new(docx::WordDocument)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_map_finds_the_page_of_every_byte() {
        let map = PageMap::new(vec![
            PageStart { byte: 0, page: 1 },
            PageStart { byte: 10, page: 2 },
            PageStart { byte: 25, page: 3 },
        ]);
        assert_eq!(map.page_at(0), Some(1));
        assert_eq!(map.page_at(9), Some(1));
        assert_eq!(map.page_at(10), Some(2));
        assert_eq!(map.page_at(24), Some(2));
        assert_eq!(map.page_at(1000), Some(3));
        assert_eq!(map.pages_of(5, 26), Some((1, 3)));
        assert_eq!(PageMap::default().page_at(3), None);
    }

    #[test]
    fn formats_by_name_and_extension() {
        assert_eq!(Format::from_extension("PDF"), Some(Format::Pdf));
        assert_eq!(Format::from_extension("htm"), Some(Format::Html));
        assert_eq!(Format::from_extension("md"), None);
        assert_eq!(Format::from_name("Docx"), Some(Format::Docx));
        assert_eq!(Format::from_name("rtf"), None);
    }
}
