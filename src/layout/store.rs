//! Stored per-document layouts: each document's token offsets and cuts, kept on disk so a corpus
//! opened again is not tokenized again.
//!
//! One file per document under `<cache>/layouts/`, named by a hash of [`STORE_VERSION`], the
//! tokenizer file's hash, the chunker (kind and size) and the document's text hash, so a changed
//! document, tokenizer or chunker reads as missing. Each file repeats its key and the text's
//! length and ends with a blake3 of the rest; a file that fails any check (or whose offsets leave
//! the text or its char boundaries) reads as damaged and is rebuilt and rewritten, never trusted.
//! A whole file must also make sense for its document ([`check_sense`]: its tokens cover the
//! text and its cuts are the chunker's), since a checksum anyone can recompute proves nothing
//! about the offsets. Only a regular file within [`file_limit`] is read (no link, FIFO or
//! device). Files are written through a temporary file renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::corpus::Span;
use crate::tokens::TokenOffsets;

/// Version of the stored layout format; part of every key, so a new version never reads an old
/// file (it is simply missing, and written again). 2: the fixed chunker moves a cut back at most
/// 40 bytes to a word start.
pub const STORE_VERSION: u32 = 2;

/// The first bytes of every stored layout.
const MAGIC: &[u8; 8] = b"SSLAYOUT";

/// The folder of stored layouts under `cache_dir`.
pub fn store_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join("layouts")
}

/// The hash a document's stored layout is found by: its text and its kind (a chunker cuts
/// Markdown at headings and plain text not, so the same text under two kinds is two layouts).
pub fn doc_hash(text: &str, kind: &str) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&(kind.len() as u64).to_le_bytes());
    h.update(kind.as_bytes());
    h.update(text.as_bytes());
    *h.finalize().as_bytes()
}

/// One document laid out: its token offsets and the spans its chunker cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDoc {
    /// The document's token offsets.
    pub offsets: TokenOffsets,
    /// The chunks' spans, in order.
    pub cuts: Vec<Span>,
}

/// What the store held for one document.
#[derive(Debug)]
pub enum Lookup {
    /// A verified layout.
    Hit(StoredDoc),
    /// Nothing stored under this key.
    Missing,
    /// A file that failed a check: why. It is rebuilt and rewritten.
    Damaged(String),
}

/// Stored layouts for one tokenizer and one chunker.
#[derive(Debug, Clone)]
pub struct LayoutStore {
    dir: PathBuf,
    /// Hash of the version, tokenizer and chunker: every file key starts from it.
    setting: [u8; 32],
}

impl LayoutStore {
    /// The store under `cache_dir` for layouts counted by the tokenizer with this `tokenizer`
    /// hash and cut by the chunker named `chunker` (`fixed-1024`: kind and size).
    pub fn new(cache_dir: &Path, tokenizer: &[u8; 32], chunker: &str) -> LayoutStore {
        let mut h = blake3::Hasher::new();
        h.update(&STORE_VERSION.to_le_bytes());
        h.update(tokenizer);
        h.update(&(chunker.len() as u64).to_le_bytes());
        h.update(chunker.as_bytes());
        LayoutStore {
            dir: store_dir(cache_dir),
            setting: *h.finalize().as_bytes(),
        }
    }

    /// The key of a document: its text hash, under this store's setting. Callers fold the
    /// document's kind into `text_hash` when the chunker reads it ([`doc_hash`]).
    fn key(&self, text_hash: &[u8; 32]) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        h.update(&self.setting);
        h.update(text_hash);
        *h.finalize().as_bytes()
    }

    /// The file of the document whose text hashes to `text_hash`.
    pub fn path(&self, text_hash: &[u8; 32]) -> PathBuf {
        let key = self.key(text_hash);
        self.dir.join(format!(
            "{}.layout",
            &blake3::Hash::from(key).to_hex()[..32]
        ))
    }

    /// The stored layout of `text` (whose blake3 is `text_hash`), checked against it.
    pub fn load(&self, text: &str, text_hash: &[u8; 32]) -> Lookup {
        // Never through a link, never a FIFO or a device, never past what a layout of this
        // text can hold: a link to `/dev/zero` here once grew `index` to 14 GB.
        match crate::files::read_regular(&self.path(text_hash), file_limit(text.len())) {
            Err(e) if e.is_missing() => Lookup::Missing,
            Err(e) => Lookup::Damaged(format!("unreadable: {e}")),
            Ok(bytes) => match decode(&bytes, &self.key(text_hash), text) {
                Ok(doc) => Lookup::Hit(doc),
                Err(reason) => Lookup::Damaged(reason),
            },
        }
    }

    /// Store the layout of `text` (whose blake3 is `text_hash`): written to a temporary file,
    /// then renamed over any old one. A text too long for the format is not stored.
    pub fn save(&self, text: &str, text_hash: &[u8; 32], doc: &StoredDoc) -> std::io::Result<()> {
        let Some(bytes) = encode(&self.key(text_hash), text, doc) else {
            return Ok(());
        };
        std::fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        tmp.write_all(&bytes)?;
        tmp.persist(self.path(text_hash)).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Check that a stored layout which passed its checksum also makes sense for its document: the
/// checksum only says the file is whole, not that whoever wrote it told the truth (offsets
/// rewritten and the trailer recomputed were once trusted: a chunk of 2,087 tokens and two of
/// none). Two things are checked that need no tokenizing of what the tokens cover:
///
/// - the tokens cover the text: every stretch of text no token covers is whitespace, or text
///   the tokenizer gives no token for (`yields_tokens` is asked, rarely: a control character, a
///   combining mark the normaliser drops);
/// - the cuts are what the chunker makes of these offsets (`recut` runs it), so each chunk's
///   token count is the one the chunker cut by.
///
/// Returns why not, in words. A layout consistent in all of this but counted by another
/// tokenizer than the key says cannot be told without tokenizing again; that is what the key
/// and the checksum are for.
pub fn check_sense(
    text: &str,
    stored: &StoredDoc,
    recut: impl FnOnce() -> Vec<Span>,
    yields_tokens: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    let offsets = &stored.offsets;
    let uncovered = |from: usize, to: usize| -> Result<(), String> {
        let stretch = text.get(from..to).unwrap_or_default().trim();
        if !stretch.is_empty() && yields_tokens(stretch) {
            return Err(format!(
                "bytes {from}..{to} hold text that no stored token covers"
            ));
        }
        Ok(())
    };
    let mut covered = 0;
    for (&start, &end) in offsets.starts.iter().zip(&offsets.ends) {
        if start > covered {
            uncovered(covered, start)?;
        }
        covered = covered.max(end);
    }
    if covered < text.len() {
        uncovered(covered, text.len())?;
    }
    let cuts = recut();
    if cuts != stored.cuts {
        let at = cuts
            .iter()
            .zip(&stored.cuts)
            .position(|(a, b)| a != b)
            .unwrap_or(cuts.len().min(stored.cuts.len()));
        return Err(format!(
            "its cuts are not what the chunker makes of its offsets ({} stored, {} made; the first difference at chunk {at})",
            stored.cuts.len(),
            cuts.len()
        ));
    }
    Ok(())
}

/// The most bytes a stored layout of a text of `text_bytes` bytes can hold: its header and
/// trailer, and 8 bytes per token and per cut, neither of which can outnumber the text's bytes
/// by more than a few (a character the tokenizer splits in two); the limit allows four each.
pub fn file_limit(text_bytes: usize) -> u64 {
    let per_byte = 8 * 4 * 2;
    (HEADER_BYTES as u64 + 32).saturating_add((text_bytes as u64 + 1).saturating_mul(per_byte))
}

/// Bytes before the offsets: magic, version, key and three counts.
const HEADER_BYTES: usize = 8 + 4 + 32 + 24;

/// The bytes of a stored layout; `None` when an offset does not fit in 32 bits.
fn encode(key: &[u8; 32], text: &str, doc: &StoredDoc) -> Option<Vec<u8>> {
    if text.len() > u32::MAX as usize {
        return None;
    }
    let tokens = doc.offsets.len();
    let mut buf = Vec::with_capacity(68 + 8 * tokens + 8 * doc.cuts.len() + 32);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&STORE_VERSION.to_le_bytes());
    buf.extend_from_slice(key);
    for n in [text.len(), tokens, doc.cuts.len()] {
        buf.extend_from_slice(&(n as u64).to_le_bytes());
    }
    let spans = doc.cuts.iter().flat_map(|s| [s.start, s.end]);
    for x in doc
        .offsets
        .starts
        .iter()
        .chain(&doc.offsets.ends)
        .copied()
        .chain(spans)
    {
        buf.extend_from_slice(&(x as u32).to_le_bytes());
    }
    let sum = blake3::hash(&buf);
    buf.extend_from_slice(sum.as_bytes());
    Some(buf)
}

/// Read a stored layout back, checking everything a damaged or foreign file could get wrong.
fn decode(bytes: &[u8], key: &[u8; 32], text: &str) -> Result<StoredDoc, String> {
    const HEADER: usize = HEADER_BYTES;
    if bytes.len() < HEADER + 32 || &bytes[..8] != MAGIC {
        return Err("not a seamscope stored layout (bad header)".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if blake3::hash(body).as_bytes() != sum {
        return Err("checksum mismatch (truncated or corrupted)".into());
    }
    let u64_at = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&body[at..at + 8]);
        u64::from_le_bytes(b) as usize
    };
    let version = u32::from_le_bytes([body[8], body[9], body[10], body[11]]);
    if version != STORE_VERSION {
        return Err(format!(
            "format version {version}, expected {STORE_VERSION}"
        ));
    }
    if &body[12..44] != key {
        return Err("stored under another key".into());
    }
    let (len, tokens, cuts) = (u64_at(44), u64_at(52), u64_at(60));
    if len != text.len() {
        return Err(format!(
            "laid out a text of {len} bytes, this one has {}",
            text.len()
        ));
    }
    // Counts that a text of this length can have (at most a few tokens per byte: a character
    // may be split; never more cuts than bytes), checked before anything is allocated.
    if tokens > 4 * len + 4 || cuts > len + 1 {
        return Err(format!(
            "counts that no text of {len} bytes has ({tokens} tokens, {cuts} cuts)"
        ));
    }
    let words = tokens
        .checked_mul(2)
        .and_then(|t| cuts.checked_mul(2).and_then(|c| t.checked_add(c)))
        .ok_or("impossible counts")?;
    if Some(body.len()) != words.checked_mul(4).and_then(|w| w.checked_add(HEADER)) {
        return Err("length does not match its counts".into());
    }
    let mut values = body[HEADER..]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let starts: Vec<usize> = values.by_ref().take(tokens).collect();
    let ends: Vec<usize> = values.by_ref().take(tokens).collect();
    let flat: Vec<usize> = values.collect();
    let cuts: Vec<Span> = flat
        .chunks_exact(2)
        .map(|p| Span {
            start: p[0],
            end: p[1],
        })
        .collect();
    check_offsets(text, (&starts, &ends), &cuts)?;
    Ok(StoredDoc {
        offsets: TokenOffsets { starts, ends },
        cuts,
    })
}

/// Token offsets in order, cuts in order, and both inside `text` on char boundaries.
fn check_offsets(
    text: &str,
    (starts, ends): (&[usize], &[usize]),
    cuts: &[Span],
) -> Result<(), String> {
    let tokens_fit = starts.windows(2).all(|w| w[0] <= w[1])
        && starts
            .iter()
            .zip(ends)
            .all(|(s, e)| s <= e && *e <= text.len());
    if !tokens_fit {
        return Err("token offsets out of order or past the text".into());
    }
    if let Some(i) = (0..starts.len())
        .find(|&i| !text.is_char_boundary(starts[i]) || !text.is_char_boundary(ends[i]))
    {
        return Err(format!(
            "token {i} ({}..{}) is off a char boundary",
            starts[i], ends[i]
        ));
    }
    let cuts_fit = cuts.iter().all(|s| {
        s.start <= s.end
            && s.end <= text.len()
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end)
    }) && cuts.windows(2).all(|w| w[0].start <= w[1].start);
    if !cuts_fit {
        return Err("cuts out of order, past the text or off a char boundary".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> StoredDoc {
        let offsets = TokenOffsets::of_words(text);
        let cuts = vec![Span::new(0, 6), Span::new(6, text.len())];
        StoredDoc { offsets, cuts }
    }

    #[test]
    fn a_stored_layout_reads_back_and_every_damage_is_caught() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let text = "alpha béta gamma delta";
        let hash = *blake3::hash(text.as_bytes()).as_bytes();
        let store = LayoutStore::new(dir.path(), &[7; 32], "fixed-4");
        assert!(matches!(store.load(text, &hash), Lookup::Missing));
        let laid = doc(text);
        store
            .save(text, &hash, &laid)
            .unwrap_or_else(|e| panic!("{e}"));
        match store.load(text, &hash) {
            Lookup::Hit(back) => assert_eq!(back, laid),
            other => panic!("expected a hit, got {other:?}"),
        }
        // Another chunker or tokenizer never sees it.
        let other = LayoutStore::new(dir.path(), &[7; 32], "fixed-8");
        assert!(matches!(other.load(text, &hash), Lookup::Missing));
        let other = LayoutStore::new(dir.path(), &[8; 32], "fixed-4");
        assert!(matches!(other.load(text, &hash), Lookup::Missing));

        let path = store.path(&hash);
        let good = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut flipped = good.clone();
        flipped[80] ^= 1;
        let key = store.key(&hash);
        for (bytes, why) in [
            (good[..good.len() - 5].to_vec(), "checksum"),
            (flipped, "checksum"),
            (b"junk".to_vec(), "bad header"),
        ] {
            match decode(&bytes, &key, text) {
                Err(reason) => assert!(reason.contains(why), "{reason}"),
                Ok(_) => panic!("damage read as a layout"),
            }
        }
        // A well-formed file for another text of the same hash (impossible, but checked).
        match decode(&good, &key, "alpha béta gamma delta!") {
            Err(reason) => assert!(reason.contains("bytes"), "{reason}"),
            Ok(_) => panic!("a layout of another text was trusted"),
        }
        // A cut off a char boundary, with a valid checksum, is still refused.
        let bad = StoredDoc {
            cuts: vec![Span::new(0, 8)],
            ..laid
        };
        let bytes = encode(&key, text, &bad).unwrap_or_else(|| panic!("encodes"));
        assert!(decode(&bytes, &key, text).is_err());
    }
}
