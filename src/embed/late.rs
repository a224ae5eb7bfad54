//! Late chunking: the model reads the whole document, and each chunk's (and each seam's) vector
//! is the mean of the token states inside its own span, normalised, rather than the vector of its
//! text read alone. A chunk's vector so carries what the text around it said.
//!
//! A document longer than the model's window is read in macro windows that overlap (planned as
//! long texts are for ordinary embedding, [`super::windows_that_fit`]); each token's state is taken
//! from the window where it sits most centrally: neighbouring windows split their overlap at its
//! middle. The special tokens (`[CLS]`, `[SEP]`, a document prefix) go with a window's first and
//! last real token, so the span holding the document's first token pools `[CLS]` and the one
//! holding its last pools `[SEP]`: the whole text of a short document pooled this way is exactly
//! the model's own mean-pooled sentence vector.

use super::cache::{TextKey, VectorCache};
use super::{EmbedError, Embedder, normalize, windows_that_fit};
use crate::corpus::Span;
use crate::tokens::TokenCounter;

/// What the model made of each token of one text it read.
#[derive(Debug, Clone, Default)]
pub struct TokenStates {
    /// Each token's byte span in the text read; a special token's is empty, where the first
    /// real token starts (`[CLS]`, a prefix) or where the last one starts (`[SEP]`), so it goes
    /// with the span that holds that token.
    pub spans: Vec<Span>,
    /// Each token's state (the model's last hidden layer), as long as the model's vectors.
    pub states: Vec<Vec<f32>>,
}

/// The late vectors of `spans` (byte spans of `text`, in any order) and how many macro windows
/// the model read.
#[derive(Debug, Clone)]
pub struct LateVectors {
    /// One unit vector per span, in the order asked.
    pub vectors: Vec<Vec<f32>>,
    /// Macro windows the document took (1 when it fits the model's window).
    pub windows: usize,
    /// Each span's tokens (special tokens aside), from the document's one tokenization.
    pub tokens: Vec<usize>,
}

/// Read `text` with `embedder` (in macro windows where it is longer than the model's window) and
/// pool each of `spans` from the token states.
///
/// A span holding no token's start (a span of white space) pools the tokens it overlaps, and
/// failing those the token nearest its start: every span gets a vector.
pub fn late_vectors(
    embedder: &mut dyn Embedder,
    tokenizer: &TokenCounter,
    text: &str,
    spans: &[Span],
) -> Result<LateVectors, EmbedError> {
    let window = embedder
        .max_tokens()
        .saturating_sub(tokenizer.special_tokens())
        .max(1);
    let offsets = tokenizer.offsets(text)?;
    let windows = windows_that_fit(tokenizer, &offsets, text, window)?;
    let owned = owned_regions(&windows, text.len());
    let mut tokens: Vec<(Span, Vec<f32>)> = Vec::new();
    for (window, (low, high)) in windows.iter().zip(owned) {
        let read = embedder.token_states(&text[window.start..window.end])?;
        for (span, state) in read.spans.into_iter().zip(read.states) {
            let at = Span::new(window.start + span.start, window.start + span.end);
            if (low..high).contains(&at.start) {
                tokens.push((at, state));
            }
        }
    }
    let vectors = spans.iter().map(|span| pool(&tokens, *span)).collect();
    Ok(LateVectors {
        vectors,
        windows: windows.len(),
        tokens: spans
            .iter()
            .map(|s| offsets.count_in(s.start, s.end))
            .collect(),
    })
}

/// What reading documents late took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LateStats {
    /// Spans whose vectors the cache served.
    pub cached: usize,
    /// Spans pooled from token states read now.
    pub pooled: usize,
    /// Documents the model read.
    pub documents: usize,
    /// Macro windows the model read (one pass over each).
    pub windows: usize,
}

/// The cache key of `span`'s late vector in a document: the model is the cache file's, and the
/// key holds the window the document was read in, the document's text and the span.
pub fn late_key(text: &str, window: usize, span: Span) -> TextKey {
    let mut h = blake3::Hasher::new();
    h.update(b"seamscope: late chunking\0");
    h.update(&(window as u64).to_le_bytes());
    h.update(&(span.start as u64).to_le_bytes());
    h.update(&(span.end as u64).to_le_bytes());
    h.update(text.as_bytes());
    *h.finalize().as_bytes()
}

/// [`late_vectors`] through `cache`: a document whose spans are all cached is not read again,
/// and what is read is cached (keyed by [`late_key`]; the token count kept is the span's).
pub fn cached_late_vectors(
    embedder: &mut dyn Embedder,
    tokenizer: &TokenCounter,
    cache: &mut VectorCache,
    text: &str,
    spans: &[Span],
    stats: &mut LateStats,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let window = embedder.max_tokens();
    let keys: Vec<TextKey> = spans.iter().map(|s| late_key(text, window, *s)).collect();
    let hits: Option<Vec<Vec<f32>>> = keys
        .iter()
        .map(|k| cache.get(k).map(|(v, _)| v.to_vec()))
        .collect();
    if let Some(vectors) = hits {
        stats.cached += spans.len();
        return Ok(vectors);
    }
    let read = late_vectors(embedder, tokenizer, text, spans)?;
    stats.pooled += spans.len();
    stats.documents += 1;
    stats.windows += read.windows;
    for ((key, tokens), vector) in keys.into_iter().zip(&read.tokens).zip(&read.vectors) {
        cache.insert(key, vector.clone(), *tokens);
    }
    Ok(read.vectors)
}

/// The bytes each window owns, `[low, high)`: neighbours split their overlap at its middle (the
/// point as far from both windows' edges), and the last window owns the text's end itself, where
/// its `[SEP]` sits.
fn owned_regions(windows: &[Span], text_len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(windows.len());
    let mut low = 0;
    for (i, window) in windows.iter().enumerate() {
        let high = match windows.get(i + 1) {
            Some(next) if next.start < window.end => next.start + (window.end - next.start) / 2,
            Some(_) => window.end,
            None => text_len + 1,
        };
        out.push((low, high.max(low)));
        low = high.max(low);
    }
    out
}

/// The mean of the states of the tokens that start inside `span` (a special token starts where
/// the first or last real token of its window does), normalised.
fn pool(tokens: &[(Span, Vec<f32>)], span: Span) -> Vec<f32> {
    let mut chosen: Vec<&Vec<f32>> = tokens
        .iter()
        .filter(|(t, _)| (span.start..span.end).contains(&t.start))
        .map(|(_, s)| s)
        .collect();
    if chosen.is_empty() {
        chosen = tokens
            .iter()
            .filter(|(t, _)| t.start < span.end && t.end > span.start)
            .map(|(_, s)| s)
            .collect();
    }
    if chosen.is_empty()
        && let Some((_, s)) = tokens
            .iter()
            .min_by_key(|(t, _)| t.start.abs_diff(span.start))
    {
        chosen.push(s);
    }
    let dim = chosen.first().map_or(0, |s| s.len());
    let mut sum = vec![0f32; dim];
    for state in &chosen {
        for (a, b) in sum.iter_mut().zip(state.iter()) {
            *a += b;
        }
    }
    normalize(&mut sum);
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens at byte `start` (specials empty), with a one-hot state on axis `axis`.
    fn token(start: usize, end: usize, axis: usize) -> (Span, Vec<f32>) {
        let mut v = vec![0.0; 4];
        v[axis] = 1.0;
        (Span::new(start, end), v)
    }

    #[test]
    fn a_span_pools_the_tokens_that_start_in_it() {
        // [CLS] goes with the first word, [SEP] with the last.
        let tokens = vec![
            token(0, 0, 0),
            token(0, 3, 1),
            token(4, 7, 2),
            token(8, 11, 3),
            token(8, 8, 0),
        ];
        let first = pool(&tokens, Span::new(0, 4));
        assert!((first[0] - first[1]).abs() < 1e-6 && first[0] > 0.0 && first[2] == 0.0);
        assert_eq!(pool(&tokens, Span::new(4, 8)), vec![0.0, 0.0, 1.0, 0.0]);
        let last = pool(&tokens, Span::new(8, 12));
        assert!((last[3] - last[0]).abs() < 1e-6 && last[3] > 0.0 && last[2] == 0.0);
    }

    #[test]
    fn a_span_with_no_token_start_takes_what_it_overlaps_or_the_nearest() {
        let tokens = vec![token(0, 6, 1), token(7, 9, 2)];
        assert_eq!(pool(&tokens, Span::new(2, 4)), vec![0.0, 1.0, 0.0, 0.0]);
        assert_eq!(pool(&tokens, Span::new(10, 12)), vec![0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn overlapping_windows_split_their_overlap_at_its_middle() {
        let windows = [Span::new(0, 100), Span::new(60, 160), Span::new(120, 200)];
        assert_eq!(
            owned_regions(&windows, 200),
            vec![(0, 80), (80, 140), (140, 201)]
        );
        assert_eq!(owned_regions(&[Span::new(0, 50)], 50), vec![(0, 51)]);
    }
}
