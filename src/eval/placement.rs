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
    let wanted: Vec<Word<'_>> = words(quote).collect();
    if wanted.iter().all(|w| w.markup) {
        return Err(PlaceFailure::NoWords);
    }
    let have: Vec<Word<'_>> = words(&text[within.start..within.end])
        .map(|w| Word {
            at: within.start + w.at,
            ..w
        })
        .collect();
    let mut found = Vec::new();
    let mut longest = 0;
    for i in 0..have.len() {
        let (matched, span) = align(&wanted, &have[i..]);
        longest = longest.max(matched);
        if let Some(span) = span {
            let span = widen(text, quote, span, within);
            // Two starts that end at the same word (one of them past a list number) are the
            // same occurrence: keep the one that starts first.
            if !found.iter().any(|f: &Span| f.end == span.end) {
                found.push(span);
            }
        }
    }
    match found.len() {
        0 => Err(PlaceFailure::NotFound {
            longest_prefix_words: longest,
            words: wanted.iter().filter(|w| !w.markup).count(),
        }),
        1 => Ok((found[0], PlacedBy::Words)),
        _ => Err(PlaceFailure::Ambiguous { at: found }),
    }
}

/// Check that `page` is a page of `doc` (a paged document that has it); the failure says how
/// many pages it has. A span's page is checked even where its text alone places it, so
/// `"page": 0` or a page past the end is never taken as good.
pub fn check_page(doc: &Document, page: u32) -> Result<(), PlaceFailure> {
    page_span(doc, page).map(drop)
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

/// One word of a text: a run of letters and digits, where it starts, and whether it may be
/// markup a renderer rewrites rather than content.
#[derive(Debug, Clone, Copy)]
struct Word<'t> {
    at: usize,
    text: &'t str,
    markup: bool,
}

/// Match the quote's words against the document's from `have[0]` on: equal words are matched,
/// and a word that may be markup (an ordered list's number at the start of a line, `3.`, which a
/// renderer may number anew or turn into a bullet; a code fence's info string, ```` ```shell ````)
/// may be passed over on either side when it does not match. The first document word must
/// match. Returns how many of the quote's words matched, and the span when all of them did.
fn align(wanted: &[Word<'_>], have: &[Word<'_>]) -> (usize, Option<Span>) {
    let (mut i, mut j, mut matched) = (0, 0, 0);
    let mut span: Option<Span> = None;
    while j < wanted.len() {
        let Some(h) = have.get(i) else {
            return (matched, None);
        };
        if h.text == wanted[j].text {
            span = Some(match span {
                None => Span::new(h.at, h.at + h.text.len()),
                Some(s) => Span::new(s.start, h.at + h.text.len()),
            });
            matched += usize::from(!wanted[j].markup);
            i += 1;
            j += 1;
        } else if wanted[j].markup {
            j += 1;
        } else if h.markup && span.is_some() {
            i += 1;
        } else {
            return (matched, None);
        }
    }
    (matched, span)
}

/// The words of a text with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = Word<'_>> {
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
        let word = &text[start..end];
        Some(Word {
            at: start,
            text: word,
            markup: may_be_markup(text, start, word),
        })
    })
}

/// Whether the word at `at` may be a list number or a fence's info string (see [`align`]).
fn may_be_markup(text: &str, at: usize, word: &str) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let after = &text[at + word.len()..];
    let numbered = before.trim().is_empty()
        && word.chars().all(|c| c.is_ascii_digit())
        && [". ", ") ", ".\n", "\\. "]
            .iter()
            .any(|m| after.starts_with(m));
    let lead = before.trim_start();
    let fence = (lead.starts_with("```") || lead.starts_with("~~~"))
        && lead.chars().all(|c| c == '`' || c == '~');
    numbered || fence
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
    fn list_numbers_and_fence_languages_are_markup_not_words() {
        // A renderer numbers a list anew (or bullets it) and drops a fence's info string.
        let d = doc(
            "Steps:\n\n\u{2022} If the rewind fails, rebuild.\n\n    tw dlq stats --since 1h\n",
            &[],
        );
        let quote = "3. If the rewind fails, rebuild.\n\n   ```shell\n   tw dlq stats --since 1h";
        let (span, how) = place_text(&d, quote, None).unwrap();
        assert_eq!(how, PlacedBy::Words);
        // The document's own number may stay ("2\\." in extracted HTML): one occurrence.
        let numbered = doc("Steps:\n\n2\\. Wait an hour, then compare.\n", &[]);
        let (at, _) = place_text(&numbered, "2. Wait an hour, then compare.", None).unwrap();
        assert_eq!(
            &numbered.text[at.start..at.end],
            "2\\. Wait an hour, then compare."
        );
        assert_eq!(
            &d.text[span.start..span.end],
            "If the rewind fails, rebuild.\n\n    tw dlq stats --since 1h"
        );
        // A year a PDF's line break put at the start of a line is still a word of the quote.
        let d = doc("fell in December\n2024. That is large.", &[]);
        let (span, _) = place_text(&d, "fell in December 2024. That is large.", None).unwrap();
        assert_eq!(
            &d.text[span.start..span.end],
            "fell in December\n2024. That is large."
        );
        // A number inside a sentence is a word like any other.
        let d = doc("Wait 3. Then go.", &[]);
        assert!(place_text(&d, "Wait 4. Then go.", None).is_err());
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
