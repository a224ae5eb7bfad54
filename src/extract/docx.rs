//! Word (`.docx`): the body's paragraphs as Markdown, read from the ZIP (`zip`) and its XML
//! (`quick-xml`).
//!
//! Heading styles (`Heading 1`…`Heading 6`, `Title`, or any style with an outline level) become
//! `#` headings, numbered and bulleted paragraphs `1. ` / `- ` items, tables Markdown tables.
//! Tracked deletions, field codes and the fallback copies of drawings are left out. A ZIP
//! without `word/document.xml` is named as such, an encrypted file (an OLE container) as
//! encrypted, and no part is unpacked past a fixed size, so a ZIP bomb stops with a reason.

mod body;

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{Extracted, Extractor, Format, PageMap};
use crate::extract::{DocKind, SkipReason};
use body::body_markdown;

/// The DOCX extractor's version: a change re-extracts every cached Word file.
pub const DOCX_EXTRACTOR_VERSION: &str = "1";

/// The most bytes `word/document.xml` may unpack to, counted as it unpacks. The XML of a
/// 300-page book is a few MB; at 256 MiB a 256 KB file took 163 s, 2.4 GB and made 128,000
/// chunks. (The text it gives is held to `max_file_bytes` besides, as a text file is.)
pub const MAX_DOCUMENT_XML_BYTES: u64 = 32 * 1024 * 1024;
/// The most bytes `word/styles.xml` or `word/numbering.xml` may unpack to.
const MAX_PART_BYTES: u64 = 16 * 1024 * 1024;

/// The first bytes of an OLE compound file: how Office stores an encrypted `.docx` (and how
/// a legacy `.doc` looks).
const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Word documents: paragraphs, headings and tables as Markdown.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordDocument;

impl Extractor for WordDocument {
    fn format(&self) -> Format {
        Format::Docx
    }
    fn version(&self) -> String {
        DOCX_EXTRACTOR_VERSION.to_string()
    }
    fn extract(&self, _path: &Path, bytes: Vec<u8>) -> Result<Extracted, SkipReason> {
        let text = docx_markdown(&bytes)?;
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

fn damaged(error: impl Into<String>) -> SkipReason {
    SkipReason::Damaged {
        format: "docx".into(),
        error: error.into(),
    }
}

/// A Word file's body as Markdown, or why it has none.
pub fn docx_markdown(bytes: &[u8]) -> Result<String, SkipReason> {
    if bytes.starts_with(&OLE_MAGIC) {
        // An encrypted package names its stream `EncryptedPackage` (UTF-16 in the directory).
        let name: Vec<u8> = "EncryptedPackage"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        if bytes.windows(name.len()).any(|w| w == name.as_slice()) {
            return Err(SkipReason::Encrypted {
                format: "docx".into(),
            });
        }
        return Err(damaged(
            "an OLE compound file (a legacy .doc?), not a .docx: save it as .docx",
        ));
    }
    if !bytes.starts_with(b"PK") {
        return Err(damaged("not a ZIP archive, so not a .docx"));
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| damaged(format!("a damaged ZIP archive: {e}")))?;
    let document = match read_part(&mut archive, "word/document.xml", MAX_DOCUMENT_XML_BYTES)? {
        Some(xml) => xml,
        None => {
            return Err(damaged(
                "a ZIP but not a Word document (it holds no word/document.xml)",
            ));
        }
    };
    let styles = match read_part(&mut archive, "word/styles.xml", MAX_PART_BYTES)? {
        Some(xml) => Styles::parse(&xml),
        None => Styles::default(),
    };
    let numbering = match read_part(&mut archive, "word/numbering.xml", MAX_PART_BYTES)? {
        Some(xml) => Numbering::parse(&xml),
        None => Numbering::default(),
    };
    body_markdown(&document, &styles, &numbering)
}

/// One part of the package as text, never unpacking more than `limit` bytes.
fn read_part<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    limit: u64,
) -> Result<Option<String>, SkipReason> {
    let mut entry = match archive.by_name(name) {
        Ok(e) => e,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(damaged(format!("{name}: {e}"))),
    };
    let too_large = || {
        damaged(format!(
            "{name} unpacks to more than {limit} bytes (a ZIP bomb?)"
        ))
    };
    if entry.size() > limit {
        return Err(too_large());
    }
    let mut data = Vec::new();
    (&mut entry)
        .take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|e| damaged(format!("{name}: {e}")))?;
    if data.len() as u64 > limit {
        return Err(too_large());
    }
    let text = String::from_utf8(data).map_err(|e| {
        damaged(format!(
            "{name} is not UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(Some(text))
}

/// The value of an element's `w:val` (or any `…:val`) attribute.
fn val(e: &BytesStart<'_>) -> Option<String> {
    attr(e, "val")
}

/// An attribute's unescaped value, by local name.
fn attr(e: &BytesStart<'_>, local: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.local_name().as_ref() == local)
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

/// What a paragraph style means for Markdown.
#[derive(Debug, Clone, Default)]
struct Style {
    name: String,
    based_on: Option<String>,
    outline: Option<usize>,
    num_id: Option<String>,
}

/// `word/styles.xml`: style id → its name, parent, outline level and numbering.
#[derive(Debug, Default)]
struct Styles {
    by_id: HashMap<String, Style>,
}

impl Styles {
    fn parse(xml: &str) -> Styles {
        let mut by_id = HashMap::new();
        let mut reader = Reader::from_str(xml);
        let mut current: Option<(String, Style)> = None;
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                    "style" => {
                        if let Some((id, style)) = current.take() {
                            by_id.insert(id, style);
                        }
                        current = attr(&e, "styleId").map(|id| (id, Style::default()));
                    }
                    "name" => {
                        if let (Some((_, s)), Some(v)) = (current.as_mut(), val(&e)) {
                            s.name = v;
                        }
                    }
                    "basedOn" => {
                        if let Some((_, s)) = current.as_mut() {
                            s.based_on = val(&e);
                        }
                    }
                    "outlineLvl" => {
                        if let Some((_, s)) = current.as_mut() {
                            s.outline = val(&e).and_then(|v| v.parse().ok());
                        }
                    }
                    "numId" => {
                        if let Some((_, s)) = current.as_mut() {
                            s.num_id = val(&e);
                        }
                    }
                    _ => {}
                },
                Ok(Event::End(e)) if e.local_name().as_ref() == "style" => {
                    if let Some((id, style)) = current.take() {
                        by_id.insert(id, style);
                    }
                }
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
        Styles { by_id }
    }

    /// The style and its parents, nearest first (at most 16: a loop of `basedOn` ends).
    fn chain<'a>(&'a self, id: &str) -> Vec<(&'a str, &'a Style)> {
        let mut out = Vec::new();
        let mut next = Some(id.to_string());
        while let Some(id) = next.take() {
            if out.len() >= 16 {
                break;
            }
            let Some((key, style)) = self.by_id.get_key_value(&id) else {
                break;
            };
            out.push((key.as_str(), style));
            next = style.based_on.clone();
        }
        out
    }

    /// The heading level (1–6) a paragraph style gives, if it is a heading style.
    fn heading_level(&self, id: &str) -> Option<usize> {
        if let Some(level) = heading_name_level(id) {
            return Some(level);
        }
        for (_, style) in self.chain(id) {
            if let Some(level) = heading_name_level(&style.name) {
                return Some(level);
            }
            if let Some(outline) = style.outline
                && outline < 6
            {
                return Some(outline + 1);
            }
        }
        None
    }

    /// The numbering a style carries (`List Number`, `List Bullet`): its `numId`, if any.
    fn num_id(&self, id: &str) -> Option<&str> {
        self.chain(id)
            .into_iter()
            .find_map(|(_, s)| s.num_id.as_deref())
    }

    /// The style's name (its id when it has none).
    fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.by_id
            .get(id)
            .map(|s| s.name.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or(id)
    }
}

/// The level a style name or id spells: `heading 2`, `Heading2`, `Title` (1).
fn heading_name_level(name: &str) -> Option<usize> {
    let lower = name.to_ascii_lowercase();
    if lower == "title" {
        return Some(1);
    }
    let rest = lower.strip_prefix("heading")?.trim();
    let level: usize = rest.parse().ok()?;
    (1..=6).contains(&level).then_some(level)
}

/// `word/numbering.xml`: which list (numId) at which level is numbered rather than bulleted.
#[derive(Debug, Default)]
struct Numbering {
    /// numId → abstractNumId.
    nums: HashMap<String, String>,
    /// (abstractNumId, level) → numFmt.
    formats: HashMap<(String, u32), String>,
}

impl Numbering {
    fn parse(xml: &str) -> Numbering {
        let mut n = Numbering::default();
        let mut reader = Reader::from_str(xml);
        let mut abstract_id: Option<String> = None;
        let mut level: Option<u32> = None;
        let mut num_id: Option<String> = None;
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.local_name().as_ref() {
                    "abstractNum" => abstract_id = attr(&e, "abstractNumId"),
                    "lvl" => level = attr(&e, "ilvl").and_then(|v| v.parse().ok()),
                    "numFmt" => {
                        if let (Some(a), Some(l), Some(v)) = (&abstract_id, level, val(&e)) {
                            n.formats.insert((a.clone(), l), v);
                        }
                    }
                    "num" => num_id = attr(&e, "numId"),
                    "abstractNumId" => {
                        if let (Some(id), Some(v)) = (&num_id, val(&e)) {
                            n.nums.insert(id.clone(), v);
                        }
                    }
                    _ => {}
                },
                Ok(Event::End(e)) => match e.local_name().as_ref() {
                    "abstractNum" => abstract_id = None,
                    "num" => num_id = None,
                    _ => {}
                },
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
        n
    }

    /// Whether list `num_id` at `level` shows numbers (`None` when the file does not say).
    fn ordered(&self, num_id: &str, level: u32) -> Option<bool> {
        let abstract_id = self.nums.get(num_id)?;
        let format = self.formats.get(&(abstract_id.clone(), level))?;
        Some(!matches!(format.as_str(), "bullet" | "none"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn package(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, body) in parts {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(body.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

    #[test]
    fn headings_lists_and_tables_become_markdown() {
        let document = format!(
            r#"<w:document {W}><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Order service</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Keeps </w:t></w:r><w:r><w:t>orders &amp; refunds.</w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del></w:p>
<w:p><w:pPr><w:pStyle w:val="Sub"/></w:pPr><w:r><w:t>Retries</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="ListBullet"/></w:pPr><w:r><w:t>one</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="ListNumber"/></w:pPr><w:r><w:t>first</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="ListNumber"/></w:pPr><w:r><w:t>second</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Code</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Meaning</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>409</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>a|b</w:t></w:r></w:p><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>"#
        );
        let styles = format!(
            r#"<w:styles {W}><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Sub"><w:name w:val="My sub"/><w:basedOn w:val="Heading2"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/></w:style>
<w:style w:type="paragraph" w:styleId="ListNumber"><w:name w:val="List Number"/></w:style></w:styles>"#
        );
        let file = package(&[
            ("word/document.xml", &document),
            ("word/styles.xml", &styles),
        ]);
        assert_eq!(
            docx_markdown(&file).unwrap(),
            "# Order service\n\nKeeps orders & refunds.\n\n## Retries\n\n- one\n1. first\n2. second\n\n\
             | Code | Meaning |\n|---|---|\n| 409 | a\\|b c |"
        );
    }

    #[test]
    fn other_files_are_named_skips() {
        let other = package(&[("mimetype", "application/epub+zip"), ("a.txt", "hello")]);
        assert!(matches!(
            docx_markdown(&other),
            Err(SkipReason::Damaged { error, .. }) if error.contains("not a Word document")
        ));
        assert!(matches!(
            docx_markdown(b"hello"),
            Err(SkipReason::Damaged { error, .. }) if error.contains("not a ZIP")
        ));
        let mut ole = OLE_MAGIC.to_vec();
        ole.extend(vec![0u8; 64]);
        ole.extend(
            "EncryptedPackage"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        );
        assert_eq!(
            docx_markdown(&ole),
            Err(SkipReason::Encrypted {
                format: "docx".into()
            })
        );
        let truncated = package(&[("word/document.xml", "<w:document><w:body><w:p><w:t>")]);
        assert!(
            WordDocument
                .extract(Path::new("t.docx"), truncated)
                .is_err()
        );
        // Cut off in its second paragraph: damaged, not read as its first paragraph.
        let cut = format!(
            "<w:document {W}><w:body><w:p><w:r><w:t>First paragraph.</w:t></w:r></w:p><w:p><w:r><w:t>Sec"
        );
        let e = docx_markdown(&package(&[("word/document.xml", &cut)]))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(
                "not a readable docx file: word/document.xml is cut off: it ends with 5 element(s) still open (a truncated file?)"
            )
        );
    }

    #[test]
    fn a_document_of_paragraphs_unpacking_past_its_limit_is_a_named_skip() {
        // 40 MiB of real paragraphs (not spaces) from a file of well under a megabyte.
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        zip.write_all(format!("<w:document {W}><w:body>").as_bytes())
            .unwrap();
        let paragraph = "<w:p><w:r><w:t>The ledger closes after midnight.</w:t></w:r></w:p>";
        let block = paragraph.repeat((1 << 20) / paragraph.len());
        for _ in 0..40 {
            zip.write_all(block.as_bytes()).unwrap();
        }
        zip.write_all(b"</w:body></w:document>").unwrap();
        let file = zip.finish().unwrap().into_inner();
        assert!(file.len() < 1 << 20, "{}", file.len());
        let e = docx_markdown(&file).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(
                "not a readable docx file: word/document.xml unpacks to more than 33554432 bytes (a ZIP bomb?)"
            )
        );
    }

    #[test]
    fn a_zip_bomb_stops_at_the_limit() {
        // 300 MB of spaces compresses to well under a megabyte.
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(true),
        )
        .unwrap();
        let block = vec![b' '; 1 << 20];
        for _ in 0..300 {
            zip.write_all(&block).unwrap();
        }
        let file = zip.finish().unwrap().into_inner();
        assert!(file.len() < 2 << 20);
        assert!(matches!(
            docx_markdown(&file),
            Err(SkipReason::Damaged { error, .. }) if error.contains("ZIP bomb")
        ));
    }
}
