//! Placing a gold span given by its text alone: the evidence of a question written against a
//! PDF's or a web page's *extracted* text, where nobody knows byte offsets.
//!
//! Two passes, both exact in what they compare:
//! 1. the quote exactly as written;
//! 2. the quote's words in order, whatever lies between them (line breaks a PDF put in,
//!    Markdown markup an extractor left out: `**`, `#`, `|`), the span running from the first
//!    word's first byte to the last word's last byte, widened over punctuation the quote has
//!    at either end.
//!
//! A quote found more than once is ambiguous unless a page (or the first pass) tells the
//! occurrences apart; fuzzy placement of quotes with changed words is `questions check`'s job.

use crate::corpus::{Document, Span};

/// How a quote was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlacedBy {
    /// The quote occurs exactly as written.
    Exact,
    /// The quote's words occur in order, with other whitespace or markup between them.
    Words,
}

/// Why a quote could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaceFailure {
    /// The quote holds no word to look for.
    NoWords,
    /// Neither the quote nor its words in order occur (on the page, when one was given).
    NotFound {
        /// How many of the quote's words, from its first, occur in order somewhere.
        longest_prefix_words: usize,
        /// The quote's word count.
        words: usize,
    },
    /// The quote occurs more than once: the first few places, as byte spans.
    Ambiguous {
        /// Where it occurs.
        at: Vec<Span>,
    },
    /// A page was given, but the document has no pages or not that one.
    NoSuchPage {
        /// The page asked for.
        page: u32,
        /// The document's page count (0 when it is not paged).
        pages: usize,
    },
}

impl std::fmt::Display for PlaceFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlaceFailure::NoWords => write!(f, "the quote holds no word to look for"),
            PlaceFailure::NotFound {
                longest_prefix_words,
                words,
            } => write!(
                f,
                "the quote is not in the document, not even as its words in order (at most its first {longest_prefix_words} of {words} words occur in a row)"
            ),
            PlaceFailure::Ambiguous { at } => {
                let places: Vec<String> = at
                    .iter()
                    .take(3)
                    .map(|s| format!("{}..{}", s.start, s.end))
                    .collect();
                write!(
                    f,
                    "the quote occurs {} times (bytes {}{}): give \"page\" or \"start\"/\"end\" to say which",
                    at.len(),
                    places.join(", "),
                    if at.len() > 3 { ", …" } else { "" }
                )
            }
            PlaceFailure::NoSuchPage { page, pages: 0 } => {
                write!(f, "page {page} was given, but the document has no pages")
            }
            PlaceFailure::NoSuchPage { page, pages } => {
                write!(
                    f,
                    "page {page} was given, but the document has {pages} pages"
                )
            }
        }
    }
}

/// Where `quote` lies in `doc` (on `page` when given), and how it was found.
pub fn place_text(
    doc: &Document,
    quote: &str,
    page: Option<u32>,
) -> Result<(Span, PlacedBy), PlaceFailure> {
    let within = match page {
        None => Span::new(0, doc.text.len()),
        Some(p) => page_span(doc, p)?,
    };
    let text = &doc.text;
    let exact: Vec<Span> = find_all(&text[within.start..within.end], quote)
        .map(|at| Span::new(within.start + at, within.start + at + quote.len()))
        .collect();
    match exact.len() {
        1 => return Ok((exact[0], PlacedBy::Exact)),
        n if n > 1 => return Err(PlaceFailure::Ambiguous { at: exact }),
        _ => {}
    }
    let wanted: Vec<&str> = words(quote).map(|(_, w)| w).collect();
    if wanted.is_empty() {
        return Err(PlaceFailure::NoWords);
    }
    let have: Vec<(usize, &str)> = words(&text[within.start..within.end])
        .map(|(at, w)| (within.start + at, w))
        .collect();
    let mut found = Vec::new();
    let mut longest = 0;
    for i in 0..have.len() {
        let run = wanted
            .iter()
            .zip(&have[i..])
            .take_while(|(w, (_, h))| *w == h)
            .count();
        longest = longest.max(run);
        if run == wanted.len() {
            let first = have[i].0;
            let (last_at, last) = have[i + run - 1];
            found.push(widen(
                text,
                quote,
                Span::new(first, last_at + last.len()),
                within,
            ));
        }
    }
    match found.len() {
        0 => Err(PlaceFailure::NotFound {
            longest_prefix_words: longest,
            words: wanted.len(),
        }),
        1 => Ok((found[0], PlacedBy::Words)),
        _ => Err(PlaceFailure::Ambiguous { at: found }),
    }
}

/// The byte range of page `page` of a paged document.
fn page_span(doc: &Document, page: u32) -> Result<Span, PlaceFailure> {
    let starts = &doc.source.pages.starts;
    let missing = PlaceFailure::NoSuchPage {
        page,
        pages: starts.len(),
    };
    let i = starts.iter().position(|s| s.page == page).ok_or(missing)?;
    let end = starts.get(i + 1).map_or(doc.text.len(), |s| s.byte);
    Ok(Span::new(starts[i].byte, end))
}

/// Byte positions of every non-overlapping occurrence of `needle`.
fn find_all<'a>(haystack: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        if needle.is_empty() {
            return None;
        }
        let at = from + haystack.get(from..)?.find(needle)?;
        from = at + needle.len();
        Some(at)
    })
}

/// The words of a text (runs of letters and digits) with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = rest.find(|(_, c)| c.is_alphanumeric())?;
        let mut end = text.len();
        while let Some(&(i, c)) = rest.peek() {
            if !c.is_alphanumeric() {
                end = i;
                break;
            }
            rest.next();
        }
        Some((start, &text[start..end]))
    })
}

/// Widen a words-placed span over the punctuation the quote has before its first word and after
/// its last (a closing `.` or `)`), where the document has the same characters there.
fn widen(text: &str, quote: &str, span: Span, within: Span) -> Span {
    let lead: Vec<char> = quote
        .chars()
        .take_while(|c| !c.is_alphanumeric())
        .filter(|c| !c.is_whitespace())
        .collect();
    let trail: Vec<char> = {
        let mut t: Vec<char> = quote
            .chars()
            .rev()
            .take_while(|c| !c.is_alphanumeric())
            .filter(|c| !c.is_whitespace())
            .collect();
        t.reverse();
        t
    };
    let mut start = span.start;
    for want in lead.iter().rev() {
        match text[within.start..start].chars().next_back() {
            Some(c) if c == *want => start -= c.len_utf8(),
            _ => break,
        }
    }
    let mut end = span.end;
    for want in &trail {
        match text[end..within.end].chars().next() {
            Some(c) if c == *want => end += c.len_utf8(),
            _ => break,
        }
    }
    Span::new(start, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{DocId, DocKind};
    use crate::extract::{PageMap, PageStart, TextSource};

    fn doc(text: &str, pages: &[(usize, u32)]) -> Document {
        let mut source = TextSource::plain();
        source.pages = PageMap::new(
            pages
                .iter()
                .map(|&(byte, page)| PageStart { byte, page })
                .collect(),
        );
        Document {
            id: DocId(0),
            path: "a.pdf".into(),
            text: text.into(),
            kind: DocKind::Text,
            source,
        }
    }

    #[test]
    fn an_exact_quote_is_placed_where_it_is() {
        let d = doc("Orders flow. Reads may be stale. Billing is strict.", &[]);
        let (span, how) = place_text(&d, "Reads may be stale.", None).unwrap();
        assert_eq!(&d.text[span.start..span.end], "Reads may be stale.");
        assert_eq!(how, PlacedBy::Exact);
    }

    #[test]
    fn line_breaks_and_markup_between_the_words_do_not_matter() {
        let d = doc(
            "Orders flow. Reads may\r\nbe **stale**. Billing is strict.",
            &[],
        );
        let (span, how) = place_text(&d, "Reads may be stale.", None).unwrap();
        assert_eq!(how, PlacedBy::Words);
        // From the first word to the last word's end, widened over the quote's closing mark
        // only where the document has it right there (here `**` comes first, so it stops).
        assert_eq!(&d.text[span.start..span.end], "Reads may\r\nbe **stale");
        let d = doc("# Title\n\nReads  may be\nstale. Next.", &[]);
        let (span, _) = place_text(&d, "Reads may be stale.", None).unwrap();
        assert_eq!(&d.text[span.start..span.end], "Reads  may be\nstale.");
    }

    #[test]
    fn a_quote_found_twice_is_ambiguous_unless_a_page_says_which() {
        let text = "Reads may be stale.\n\nOther text.\n\nReads may be stale.";
        let d = doc(text, &[(0, 1), (21, 2), (34, 3)]);
        let err = place_text(&d, "Reads may be stale.", None).unwrap_err();
        assert!(matches!(&err, PlaceFailure::Ambiguous { at } if at.len() == 2));
        assert!(err.to_string().contains("occurs 2 times"), "{err}");
        let (span, _) = place_text(&d, "Reads may be stale.", Some(3)).unwrap();
        assert_eq!(span.start, 34);
        let err = place_text(&d, "Reads may be stale.", Some(7)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "page 7 was given, but the document has 3 pages"
        );
    }

    #[test]
    fn a_quote_that_is_not_there_says_how_far_it_got() {
        let d = doc("Reads may be stale for seconds.", &[]);
        let err = place_text(&d, "Reads may be fresh", None).unwrap_err();
        assert_eq!(
            err,
            PlaceFailure::NotFound {
                longest_prefix_words: 3,
                words: 4
            }
        );
        assert_eq!(place_text(&d, " .. ", None), Err(PlaceFailure::NoWords));
    }
}
