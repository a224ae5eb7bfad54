//! The embedding model's own tokenizer, used to count tokens and map tokens to byte offsets.
//!
//! Counting with the model's tokenizer makes "1,024 tokens" mean the same thing to the chunker and
//! to the embedder.

use std::path::Path;

/// Errors from loading or running the tokenizer.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    /// The tokenizer file is missing or malformed.
    #[error(
        "cannot load tokenizer from {path}: {message} (run `seamscope setup`, or point `model_dir` at a folder with tokenizer.json)"
    )]
    Load {
        /// The file tried.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The tokenizer failed on a text.
    #[error("tokenizer failed: {0}")]
    Encode(String),
}

/// Token offsets of one text: for token `i`, bytes `starts[i]..ends[i]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenOffsets {
    /// Byte offset where each token starts, ascending.
    pub starts: Vec<usize>,
    /// Byte offset where each token ends.
    pub ends: Vec<usize>,
}

impl TokenOffsets {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.starts.len()
    }
    /// Whether the text has no tokens.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
    /// Index of the first token that starts at or after byte `pos`.
    pub fn first_at_or_after(&self, pos: usize) -> usize {
        self.starts.partition_point(|&s| s < pos)
    }
    /// Number of tokens that start inside `[start, end)`.
    pub fn count_in(&self, start: usize, end: usize) -> usize {
        self.first_at_or_after(end) - self.first_at_or_after(start)
    }

    /// One token per whitespace-delimited word: a stand-in tokenizer for examples and tests
    /// whose cuts are worked out by hand (the app always counts with the model's tokenizer).
    pub fn of_words(text: &str) -> TokenOffsets {
        let mut o = TokenOffsets::default();
        let mut in_word = false;
        for (i, c) in text.char_indices() {
            if c.is_whitespace() {
                if in_word {
                    o.ends.push(i);
                }
                in_word = false;
            } else if !in_word {
                o.starts.push(i);
                in_word = true;
            }
        }
        if in_word {
            o.ends.push(text.len());
        }
        o
    }
}

/// Bytes of text the tokenizer reads per call: a 20 MB document is encoded in pieces this size.
pub const PIECE_BYTES: usize = 64 * 1024;

/// Where to end each piece of `text` so that none is much longer than `piece_bytes`: at the
/// last paragraph break, else line break, else whitespace in the second half of each stretch
/// (a whitespace-splitting tokenizer gives the same tokens either way); a stretch with no
/// whitespace at all ends at a char boundary. The last end is `text.len()`.
pub fn piece_ends(text: &str, piece_bytes: usize) -> Vec<usize> {
    let piece_bytes = piece_bytes.max(8);
    let mut ends = Vec::new();
    let mut start = 0;
    while text.len() - start > piece_bytes {
        let mut limit = start + piece_bytes;
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let floor = start + piece_bytes / 2;
        let window = &text[start..limit];
        let after = |i: usize, len: usize| start + i + len;
        let cut = window
            .rfind("\n\n")
            .map(|i| after(i, 2))
            .filter(|&c| c > floor)
            .or_else(|| {
                window
                    .rfind('\n')
                    .map(|i| after(i, 1))
                    .filter(|&c| c > floor)
            })
            .or_else(|| {
                window
                    .char_indices()
                    .rev()
                    .find(|(_, c)| c.is_whitespace())
                    .map(|(i, c)| after(i, c.len_utf8()))
                    .filter(|&c| c > floor)
            })
            .unwrap_or(limit);
        ends.push(cut);
        start = cut;
    }
    ends.push(text.len());
    ends
}

/// Rewrite a `tokenizer.json` so that no word reaches a WordPiece model longer than the model
/// reads: WordPiece turns a word over `max_input_chars_per_word` (100 for BERT) into one
/// `[UNK]`, so a 60 KB base64 blob was one token to the counter and one `[UNK]` to the model,
/// and a "13-token" chunk held 60 KB. A last pre-tokenization step cuts every word into pieces
/// of at most that many characters, each read by WordPiece as usual: the blob counts (and is
/// embedded) as the many tokens it is. Words within the limit are untouched, so ordinary text
/// tokenizes exactly as before. Other models, and bytes that are not a tokenizer, come back as
/// they are.
///
/// The counter ([`TokenCounter::from_bytes`]) and every model load (`embed/`) go through this,
/// so the chunker, the embedder's windows and the model count the same tokens.
pub fn bound_long_words(tokenizer_json: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use serde_json::{Value, json};
    let Ok(mut value) = serde_json::from_slice::<Value>(tokenizer_json) else {
        return tokenizer_json.into();
    };
    let Some(model) = value.get("model").filter(|m| m["type"] == "WordPiece") else {
        return tokenizer_json.into();
    };
    let limit = model
        .get("max_input_chars_per_word")
        .and_then(Value::as_u64)
        .unwrap_or(100)
        .clamp(1, 100_000);
    let split = json!({
        "type": "Split",
        "pattern": { "Regex": format!("[\\s\\S]{{1,{limit}}}") },
        "behavior": "Isolated",
        "invert": false
    });
    let pre = value["pre_tokenizer"].take();
    value["pre_tokenizer"] = match pre {
        Value::Null => split,
        Value::Object(mut seq) if seq.get("type").is_some_and(|t| t == "Sequence") => {
            match seq.get_mut("pretokenizers").and_then(Value::as_array_mut) {
                Some(steps) => steps.push(split),
                None => return tokenizer_json.into(),
            }
            Value::Object(seq)
        }
        other => json!({ "type": "Sequence", "pretokenizers": [other, split] }),
    };
    match serde_json::to_vec(&value) {
        Ok(bytes) => bytes.into(),
        Err(_) => tokenizer_json.into(),
    }
}

/// The model's tokenizer with truncation and padding switched off, so counts never cap, and
/// over-long words cut as the model reads them ([`bound_long_words`]).
#[derive(Clone)]
pub struct TokenCounter {
    inner: tokenizers::Tokenizer,
    /// blake3 of the `tokenizer.json` bytes: stored layouts are keyed by it, so offsets counted
    /// by one tokenizer are never reused under another.
    fingerprint: [u8; 32],
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCounter")
    }
}

impl TokenCounter {
    /// Load `tokenizer.json`.
    pub fn from_file(path: &Path) -> Result<Self, TokenizerError> {
        let bytes = crate::files::read_named(path, crate::files::TOKENIZER_LIMIT).map_err(|e| {
            TokenizerError::Load {
                path: path.display().to_string(),
                message: e.to_string(),
            }
        })?;
        Self::from_bytes(&bytes).map_err(|e| match e {
            TokenizerError::Load { message, .. } => TokenizerError::Load {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })
    }

    /// Load a tokenizer from the bytes of a `tokenizer.json`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TokenizerError> {
        // The tokenizer as it counts (long words bounded), so the fingerprint that keys stored
        // layouts changes whenever what the counter does changes, not only the file.
        let bounded = bound_long_words(bytes);
        let fingerprint = *blake3::hash(&bounded).as_bytes();
        let mut inner =
            tokenizers::Tokenizer::from_bytes(bounded).map_err(|e| TokenizerError::Load {
                path: "tokenizer.json".into(),
                message: e.to_string(),
            })?;
        // tokenizer.json ships with truncation and padding at 128; both would cap every count.
        inner
            .with_truncation(None)
            .map_err(|e| TokenizerError::Load {
                path: "tokenizer.json".into(),
                message: e.to_string(),
            })?;
        inner.with_padding(None);
        Ok(TokenCounter { inner, fingerprint })
    }

    /// The blake3 hash of the `tokenizer.json` this counter was loaded from, as loaded (with
    /// the long-word bound of [`bound_long_words`] applied).
    pub fn fingerprint(&self) -> &[u8; 32] {
        &self.fingerprint
    }

    /// Byte offsets of every token in `text`, without special tokens.
    ///
    /// A long text is encoded in pieces of about [`PIECE_BYTES`] cut at whitespace (see
    /// [`piece_ends`]), so memory stays bounded however large the document: the tokenizer keeps
    /// a whole encoding (ids, strings, offsets, masks) per call, about 20 times the text.
    pub fn offsets(&self, text: &str) -> Result<TokenOffsets, TokenizerError> {
        self.offsets_in_pieces(text, PIECE_BYTES)
    }

    /// [`TokenCounter::offsets`] with pieces of about `piece_bytes` (tests use small ones).
    pub fn offsets_in_pieces(
        &self,
        text: &str,
        piece_bytes: usize,
    ) -> Result<TokenOffsets, TokenizerError> {
        let mut out = TokenOffsets::default();
        let mut start = 0;
        for end in piece_ends(text, piece_bytes) {
            let enc = self
                .inner
                .encode(&text[start..end], false)
                .map_err(|e| TokenizerError::Encode(e.to_string()))?;
            out.starts.reserve(enc.len());
            out.ends.reserve(enc.len());
            for &(s, e) in enc.get_offsets() {
                // Offsets are byte offsets; keep them monotone even if the tokenizer repeats a span.
                let s = (start + s).max(out.starts.last().copied().unwrap_or(0));
                out.starts.push(s);
                out.ends.push((start + e).max(s));
            }
            start = end;
        }
        Ok(out)
    }

    /// Number of tokens in `text`, without special tokens.
    pub fn count(&self, text: &str) -> Result<usize, TokenizerError> {
        if text.len() > PIECE_BYTES {
            return Ok(self.offsets(text)?.len());
        }
        Ok(self
            .inner
            .encode(text, false)
            .map_err(|e| TokenizerError::Encode(e.to_string()))?
            .len())
    }

    /// A tokenizer for unit tests: one token per whitespace-separated word, with `[CLS]` and
    /// `[SEP]` around every text (two special tokens, as the real model has).
    #[cfg(test)]
    pub fn whitespace_for_tests() -> TokenCounter {
        let special =
            |name: &str, id: u32| serde_json::json!({ "id": name, "ids": [id], "tokens": [name] });
        let json = serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": null, "pre_tokenizer": { "type": "WhitespaceSplit" },
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [
                    { "SpecialToken": { "id": "[CLS]", "type_id": 0 } },
                    { "Sequence": { "id": "A", "type_id": 0 } },
                    { "SpecialToken": { "id": "[SEP]", "type_id": 0 } }
                ],
                "pair": [
                    { "Sequence": { "id": "A", "type_id": 0 } },
                    { "Sequence": { "id": "B", "type_id": 1 } }
                ],
                "special_tokens": { "[CLS]": special("[CLS]", 1), "[SEP]": special("[SEP]", 2) }
            },
            "decoder": null,
            "model": { "type": "WordLevel", "vocab": { "[UNK]": 0, "[CLS]": 1, "[SEP]": 2 }, "unk_token": "[UNK]" }
        });
        match TokenCounter::from_bytes(json.to_string().as_bytes()) {
            Ok(t) => t,
            Err(e) => panic!("the test tokenizer does not load: {e}"),
        }
    }

    /// Number of special tokens the model adds around one text ([CLS] and [SEP] for BERT).
    pub fn special_tokens(&self) -> usize {
        self.inner
            .get_post_processor()
            .map_or(0, |p| tokenizers::PostProcessor::added_tokens(p, false))
    }
}
