//! PDF: each page's lines through pdfium, in page order, read into Markdown by their fonts and
//! spacing ([`super::pdf_markdown`]: headings, code, list items, paragraphs, bold and italic),
//! with a page map.
//!
//! Pages are joined with a blank line ([`PAGE_BREAK`]), so a paragraph never runs across pages
//! into the next one's first line; the [`PageMap`] says where each page's text begins (1-based
//! page numbers). Control characters other than tab are removed and trailing blanks dropped;
//! characters are not otherwise rewritten (NFKC was measured and left out: see the manual's
//! PDF section).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::pdf_markdown::{Measures, page_markdown};
use super::pdfium::{self, Line, Opened};
use super::{Extracted, Extractor, Format, PageMap, PageStart};
use crate::extract::{DocKind, SkipReason};

/// The extractor's own revision: a change to how pdfium's text is joined or normalised
/// re-extracts every cached PDF. The engine's identity is added to it ([`Extractor::version`]).
pub const PDF_EXTRACTOR_REV: &str = "2";

/// What goes between two pages' text.
pub const PAGE_BREAK: &str = "\n\n";

/// PDF extraction with the pdfium library at a path.
#[derive(Debug, Clone)]
pub struct Pdf {
    library: PathBuf,
}

impl Pdf {
    /// The extractor using the pdfium library at `library`.
    pub fn new(library: PathBuf) -> Pdf {
        Pdf { library }
    }

    /// The pdfium library this extractor loads.
    pub fn library(&self) -> &Path {
        &self.library
    }
}

/// The library's fingerprint (blake3 of its bytes, 12 hex digits), by path: a changed
/// library re-extracts, as a changed extractor does.
static FINGERPRINTS: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

fn fingerprint(library: &Path) -> String {
    let mut known = FINGERPRINTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, f)) = known.iter().find(|(p, _)| p == library) {
        return f.clone();
    }
    let f = match std::fs::read(library) {
        Ok(bytes) => blake3::hash(&bytes).to_hex()[..12].to_string(),
        // Not cached: the extraction itself says the engine is missing.
        Err(_) => return "missing".into(),
    };
    known.push((library.to_path_buf(), f.clone()));
    f
}

impl Extractor for Pdf {
    fn format(&self) -> Format {
        Format::Pdf
    }

    fn version(&self) -> String {
        format!(
            "{PDF_EXTRACTOR_REV}+pdfium-{}-{}",
            pdfium::PDFIUM_BUILD,
            fingerprint(&self.library)
        )
    }

    fn extract(&self, _path: &Path, bytes: Vec<u8>) -> Result<Extracted, SkipReason> {
        let opened = pdfium::page_texts(&self.library, &bytes, None).map_err(|missing| {
            SkipReason::EngineMissing {
                format: Format::Pdf.name().into(),
                fix: format!(
                    "{}; run `seamscope setup` to install pdfium, or set {} (or `pdfium_path` in settings) to a libpdfium",
                    missing.0,
                    pdfium::PDFIUM_ENV
                ),
            }
        })?;
        let pages = match opened {
            Opened::Pages(pages) => pages,
            Opened::Encrypted => {
                return Err(SkipReason::Encrypted {
                    format: Format::Pdf.name().into(),
                });
            }
            Opened::Damaged(error) => {
                return Err(SkipReason::Damaged {
                    format: Format::Pdf.name().into(),
                    error,
                });
            }
        };
        join_pages(&pages)
    }

    fn extract_start(&self, _path: &Path, bytes: &[u8], budget: usize) -> Option<Extracted> {
        self.first_pages(bytes, budget)
    }
}

impl Pdf {
    /// The first pages' text, until about `budget` bytes: what the screen shows of a long PDF
    /// while the rest is extracted (`None` when pdfium cannot open it, or those pages hold no
    /// text: the whole extraction then says why).
    fn first_pages(&self, bytes: &[u8], budget: usize) -> Option<Extracted> {
        match pdfium::page_texts(&self.library, bytes, Some(budget)) {
            Ok(Opened::Pages(pages)) => join_pages(&pages).ok().map(|x| x.start(budget)),
            _ => None,
        }
    }
}

/// The document's Markdown and page map from its pages' lines ([`super::pdf_markdown`]); a
/// document whose every page is without text is a scan ([`SkipReason::NoTextLayer`]).
pub fn join_pages(pages: &[Vec<Line>]) -> Result<Extracted, SkipReason> {
    if pages.is_empty() {
        return Err(SkipReason::Damaged {
            format: Format::Pdf.name().into(),
            error: "it has no pages".into(),
        });
    }
    let measures = Measures::of(pages);
    let mut text = String::new();
    let mut starts = Vec::with_capacity(pages.len());
    for (i, lines) in pages.iter().enumerate() {
        let page = page_markdown(lines, &measures);
        if !page.is_empty() && !text.is_empty() {
            text.push_str(PAGE_BREAK);
        }
        starts.push(PageStart {
            byte: text.len(),
            page: u32::try_from(i + 1).unwrap_or(u32::MAX),
        });
        text.push_str(&page);
    }
    if text.trim().is_empty() {
        return Err(SkipReason::NoTextLayer {
            pages: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        });
    }
    Ok(Extracted {
        text,
        kind: DocKind::Markdown,
        pages: PageMap::new(starts),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of body lines, 14 points apart.
    fn page(lines: &[&str]) -> Vec<Line> {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| Line::plain(l, 10.0, 700.0 - 14.0 * i as f32))
            .collect()
    }

    #[test]
    fn pages_join_with_a_blank_line_and_map_their_bytes() {
        let pages = vec![
            page(&["First page line one ", "line two"]),
            Vec::new(),
            page(&["Thirdpage"]),
        ];
        let got = join_pages(&pages).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.text, "First page line one\nline two\n\nThirdpage");
        assert_eq!(got.pages.page_at(0), Some(1));
        let third = got.text.find("Third").unwrap_or(0);
        assert_eq!(got.pages.page_at(third), Some(3));
        // The break before page 3 belongs to the empty page 2, which starts where page 1 ends.
        assert_eq!(got.pages.page_at(third - 1), Some(2));
        assert_eq!(got.pages.page_at(3), Some(1));
        assert_eq!(got.pages.len(), 3);
    }

    #[test]
    fn pages_without_text_are_a_scan_and_no_pages_is_damage() {
        let blank = vec![Vec::new(), Vec::new()];
        assert_eq!(
            join_pages(&blank),
            Err(SkipReason::NoTextLayer { pages: 2 })
        );
        assert!(matches!(join_pages(&[]), Err(SkipReason::Damaged { .. })));
    }

    #[test]
    fn a_missing_library_is_engine_missing_with_the_fix() {
        let pdf = Pdf::new(PathBuf::from("/nonexistent/libpdfium.so"));
        let err = pdf.extract(Path::new("a.pdf"), b"%PDF-1.4".to_vec()).err();
        let Some(SkipReason::EngineMissing { format, fix }) = err else {
            panic!("expected EngineMissing, got {err:?}");
        };
        assert_eq!(format, "pdf");
        assert!(fix.contains("seamscope setup"), "{fix}");
    }
}
