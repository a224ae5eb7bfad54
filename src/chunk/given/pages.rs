//! Records whose offsets count from the start of a page: a loader that made one `Document` per
//! PDF page (LangChain's `PyPDFLoader`, LlamaIndex's `SimpleDirectoryReader`) hands each page to
//! the splitter alone, so a chunk's `start_index` counts from its page's first character. In
//! seamscope a source's pages are one document ([`crate::extract::PageMap`] says where each
//! begins), so such an offset is moved by its page's start before it is placed.

use std::borrow::Cow;

use super::OffsetUnit;
use super::records::RawCut;
use crate::corpus::Document;

/// The record with its offsets counted from the document's start, and the byte where a search
/// for its text may begin (its page's first byte; 0 when it names no page the document has).
/// `table` is the document's character starts.
pub(super) fn from_document_start<'c>(
    cut: &'c RawCut,
    doc: &Document,
    table: &[usize],
) -> (Cow<'c, RawCut>, usize) {
    let Some(page) = cut.page else {
        return (Cow::Borrowed(cut), 0);
    };
    let Some(start) = doc.source.pages.starts.iter().find(|s| s.page == page) else {
        return (Cow::Borrowed(cut), 0);
    };
    let shift = match cut.unit {
        OffsetUnit::Bytes => start.byte,
        // The page's first byte is a character start: its index in the table is the number of
        // characters before it.
        OffsetUnit::Chars => table.partition_point(|&b| b < start.byte),
    };
    let mut moved = cut.clone();
    moved.start = cut.start.map(|s| s + shift);
    moved.end = cut.end.map(|e| e + shift);
    (Cow::Owned(moved), start.byte)
}
