//! Fuzzy placement of a quote whose words changed (a typo, a word left out): where in a
//! document it most likely came from, with a confidence and the next best places.
//!
//! 1. Every window of the document as many words long as the quote is scored by how many of the
//!    quote's words (lowercased, as a multiset) it holds; the best windows that do not overlap
//!    are kept.
//! 2. Each is aligned word by word with the quote (longest common subsequence over a window a
//!    quarter wider on each side); the span runs from the first aligned word, moved back by the
//!    quote's unaligned leading words, to the last, moved on by its unaligned trailing words, and
//!    takes the quote's leading and trailing punctuation when the document has it there.
//! 3. The confidence is the normalised Levenshtein similarity of the quote and the span's text
//!    (1 is the same text).

use std::collections::HashMap;

use unicode_segmentation::UnicodeSegmentation;

use crate::corpus::Span;

/// One place a quote may come from.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FuzzyMatch {
    /// Its byte span in the document.
    pub span: Span,
    /// Similarity of the quote and the text there, 0 to 1.
    pub confidence: f64,
}

struct Word<'t> {
    span: Span,
    text: std::borrow::Cow<'t, str>,
}

fn words(text: &str) -> Vec<Word<'_>> {
    text.unicode_word_indices()
        .map(|(at, w)| Word {
            span: Span::new(at, at + w.len()),
            text: if w.chars().any(char::is_uppercase) {
                w.to_lowercase().into()
            } else {
                w.into()
            },
        })
        .collect()
}

/// The `limit` likeliest places of `quote` in `text`, best first (none when the quote has no
/// words or no window holds half of them).
pub fn fuzzy_place(text: &str, quote: &str, limit: usize) -> Vec<FuzzyMatch> {
    let want = words(quote);
    let have = words(text);
    let n = want.len();
    if n == 0 || have.len() < n.div_ceil(2) {
        return Vec::new();
    }
    let mut need: HashMap<&str, i64> = HashMap::new();
    for w in &want {
        *need.entry(&w.text).or_default() += 1;
    }
    // Sliding multiset overlap of each window of n words with the quote.
    let width = n.min(have.len());
    let mut window: HashMap<&str, i64> = HashMap::new();
    let mut matched: i64 = 0;
    let mut scores = Vec::with_capacity(have.len());
    for (i, w) in have.iter().enumerate() {
        let c = window.entry(&w.text).or_default();
        *c += 1;
        if *c <= need.get(w.text.as_ref()).copied().unwrap_or(0) {
            matched += 1;
        }
        if i >= width {
            let out = &have[i - width].text;
            let c = window.entry(out).or_default();
            if *c <= need.get(out.as_ref()).copied().unwrap_or(0) {
                matched -= 1;
            }
            *c -= 1;
        }
        if i + 1 >= width {
            scores.push((matched, i + 1 - width));
        }
    }
    scores.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut starts: Vec<usize> = Vec::new();
    for &(m, start) in &scores {
        if (m as usize) * 2 < n || starts.len() >= limit + 2 {
            break;
        }
        if starts.iter().all(|&s| s.abs_diff(start) >= width) {
            starts.push(start);
        }
    }
    let mut out: Vec<FuzzyMatch> = starts
        .into_iter()
        .filter_map(|s| align(text, quote, &want, &have, s))
        .collect();
    out.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.span.start.cmp(&b.span.start))
    });
    out.dedup_by(|a, b| a.span == b.span);
    out.truncate(limit);
    out
}

/// Align the quote's words with the document's around window start `s`.
fn align(
    text: &str,
    quote: &str,
    want: &[Word<'_>],
    have: &[Word<'_>],
    s: usize,
) -> Option<FuzzyMatch> {
    let n = want.len();
    let lo = s.saturating_sub(n / 4 + 1);
    let hi = (s + n + n / 4 + 1).min(have.len());
    let region: Vec<&str> = have[lo..hi].iter().map(|w| w.text.as_ref()).collect();
    let quote_words: Vec<&str> = want.iter().map(|w| w.text.as_ref()).collect();
    // The first aligned pair with the document's words matched as late as an optimal
    // alignment allows (so a leading "the" does not reach back to an earlier "the"), and the
    // last pair likewise from the end.
    let (qf, df) = first_aligned(&quote_words, &region)?;
    let (qr, dr) = first_aligned(&reversed(&quote_words), &reversed(&region))?;
    let (ql, dl) = (n - 1 - qr, region.len() - 1 - dr);
    let start_word = (lo + df).saturating_sub(qf).max(lo);
    let end_word = (lo + dl + (n - 1 - ql)).min(hi - 1);
    let mut span = Span::new(have[start_word].span.start, have[end_word].span.end);
    // The quote's punctuation before its first word and after its last, when the text has it.
    let lead = &quote[..want[0].span.start];
    if !lead.is_empty() && text[..span.start].ends_with(lead) {
        span.start -= lead.len();
    }
    let trail = &quote[want[n - 1].span.end..];
    if !trail.is_empty() && text[span.end..].starts_with(trail) {
        span.end += trail.len();
    }
    Some(FuzzyMatch {
        span,
        confidence: strsim::normalized_levenshtein(quote, &text[span.start..span.end]),
    })
}

fn reversed<'w>(words: &[&'w str]) -> Vec<&'w str> {
    words.iter().rev().copied().collect()
}

/// The first pair (quote word, document word) of a longest common subsequence of `want` and
/// `have` in which every document word is matched as late as the subsequence's length allows.
fn first_aligned(want: &[&str], have: &[&str]) -> Option<(usize, usize)> {
    let (n, m) = (want.len(), have.len());
    // Suffix LCS lengths, (n + 1) × (m + 1).
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[at(i, j)] = if want[i] == have[j] {
                t[at(i + 1, j + 1)] + 1
            } else {
                t[at(i + 1, j)].max(t[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if t[at(i, j + 1)] == t[at(i, j)] {
            j += 1;
        } else if want[i] == have[j] {
            return Some((i, j));
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_quote_is_placed_exactly_with_a_high_confidence() {
        let text = "Intro line. The replica is promoted only after the lag drops under five seconds. \
                    Then writers move. Later the replica is checked again for lag and drift.";
        let truth = "The replica is promoted only after the lag drops under five seconds.";
        let at = text.find(truth).unwrap();
        for quote in [
            "The replcia is promoted only after the lag drops under five seconds.",
            "Teh replica is promoted only after the lag drops under five secnods.",
            "The replica is promoted after the lag drops under five seconds.",
        ] {
            let found = fuzzy_place(text, quote, 3);
            assert_eq!(found[0].span, Span::new(at, at + truth.len()), "{quote}");
            assert!(found[0].confidence > 0.9, "{found:?}");
        }
        assert!(fuzzy_place(text, "nothing like it at all here", 3).is_empty());
    }
}
