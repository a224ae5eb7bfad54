//! Tokenizing a long document in bounded pieces gives exactly the offsets of one whole encoding.

mod common;

use seamscope::tokens::piece_ends;

#[test]
fn pieces_give_the_same_offsets_as_one_encoding_on_every_sample_document() {
    let tokenizer = common::tokenizer();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    let mut documents = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let whole = tokenizer.offsets_in_pieces(&text, usize::MAX).unwrap();
        // Pieces of ~2 KB cut each document dozens of times, at paragraphs, lines and spaces.
        for piece in [2_000, 777] {
            assert!(piece_ends(&text, piece).len() > 3, "{path:?} not cut");
            let pieces = tokenizer.offsets_in_pieces(&text, piece).unwrap();
            assert_eq!(pieces, whole, "{path:?} in pieces of {piece} bytes");
        }
        documents += 1;
    }
    assert!(documents >= 13);
}

#[test]
fn piece_ends_stay_on_char_boundaries_and_bounded() {
    // Whitespace-free text (one giant word of multibyte chars) ends on char boundaries.
    let text = "é".repeat(5_000) + " tail";
    let ends = piece_ends(&text, 1_001);
    assert_eq!(ends.last(), Some(&text.len()));
    let mut start = 0;
    for &end in &ends {
        assert!(text.is_char_boundary(end) && end > start && end - start <= 1_001);
        start = end;
    }
    // With whitespace, each piece ends just after a space or line break.
    let prose = "word ".repeat(1_000) + "\n" + &"more words\n".repeat(300);
    for &end in &piece_ends(&prose, 500)[..] {
        assert!(end == prose.len() || prose[..end].ends_with([' ', '\n']));
    }
    assert_eq!(piece_ends("short", 64), vec![5]);
}

/// The installed model's `tokenizer.json` as the file says, without seamscope's long-word step:
/// what the counter gave before over-long words were cut.
fn file_tokenizer() -> tokenizers::Tokenizer {
    let dir = tempfile::tempdir().unwrap();
    let path = seamscope::places::Places::of(&common::settings(dir.path()))
        .model_dir
        .join("tokenizer.json");
    let mut t = tokenizers::Tokenizer::from_file(&path).unwrap();
    t.with_truncation(None).unwrap();
    t.with_padding(None);
    t
}

/// A deterministic blob of `len` characters drawn from `alphabet`, no whitespace: a stand-in
/// for an embedded image, key or hash.
fn blob(len: usize, alphabet: &[u8]) -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

#[test]
fn ordinary_text_tokenizes_exactly_as_the_model_file_says() {
    let tokenizer = common::tokenizer();
    let file = file_tokenizer();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    let mut texts: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    // Words up to the limit (100 characters), URLs, accents and CJK are untouched.
    texts.push(format!(
        "{} {} https://example.com/a/very/long/path?with=query&and=more café 東京タワー naïve",
        "x".repeat(100),
        "ab".repeat(49)
    ));
    assert!(texts.len() >= 14);
    for text in &texts {
        let ours = tokenizer.offsets_in_pieces(text, usize::MAX).unwrap();
        let enc = file.encode(text.as_str(), false).unwrap();
        let starts: Vec<usize> = enc.get_offsets().iter().map(|o| o.0).collect();
        assert_eq!(ours.starts, starts, "{}", &text[..text.len().min(60)]);
        assert_eq!(tokenizer.count(text).unwrap(), enc.len());
    }
}

#[test]
fn a_60_kb_base64_word_is_many_tokens_and_many_bounded_chunks() {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let tokenizer = common::tokenizer();
    let file = file_tokenizer();
    // Base64 without its two symbols (base62, hex, a hash): no punctuation to split at, so
    // WordPiece saw one 60,693-character word and made it one [UNK].
    let blob = blob(60_693, ALNUM);
    let before = file.encode(blob.as_str(), false).unwrap().len();
    let tokens = tokenizer.count(&blob).unwrap();
    println!("60,693-byte word: {before} token(s) as the file says, {tokens} counted now");
    assert_eq!(before, 1, "the model file alone makes it one [UNK]");
    // WordPiece reads each 100-character piece: at least one token per piece, far more here.
    assert!(tokens > 607 * 10, "{tokens} tokens");
    assert_eq!(tokenizer.offsets(&blob).unwrap().len(), tokens);
    // Real base64: '+' and '/' split it, but a run of more than 100 letters between them was
    // one [UNK] each; now every run is read.
    let base64 = self::blob(
        60_693,
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    );
    let (before64, now64) = (
        file.encode(base64.as_str(), false).unwrap().len(),
        tokenizer.count(&base64).unwrap(),
    );
    println!("60,693-byte base64 word: {before64} token(s) as the file says, {now64} counted now");
    assert!(now64 >= before64);

    // Laid out with the default chunker, no chunk passes the chunk-token limit or grows huge.
    let text = format!("The key follows.\n\n{blob}\n\nThat was the key.");
    let corpus = seamscope::corpus::Corpus::from_texts([("key.md", text.clone())]);
    let settings = seamscope::settings::Settings::default();
    let layout = seamscope::layout::Layout::for_settings(&corpus, &tokenizer, &settings).unwrap();
    assert!(
        layout.chunks.len() > tokens / settings.chunk_tokens,
        "{}",
        layout.chunks.len()
    );
    for c in &layout.chunks {
        let span = &text[c.span.start..c.span.end];
        assert!(
            c.tokens as usize <= settings.chunk_tokens,
            "{} tokens",
            c.tokens
        );
        assert!(
            span.len() < 20 * settings.chunk_tokens,
            "{} bytes",
            span.len()
        );
        // Read alone, a chunk cut inside the word starts its pieces where it starts: within a
        // few tokens of its count in the document (the embedder re-counts its windows).
        let alone = tokenizer.count(span).unwrap();
        assert!(alone <= c.tokens as usize + 20, "{alone} vs {}", c.tokens);
    }
}

/// An embedder that checks every window it is handed against the model's window, as the model
/// would (counting with special tokens), and records the largest.
struct WindowChecker {
    tokenizer: seamscope::tokens::TokenCounter,
    largest: usize,
    windows: usize,
}

impl seamscope::embed::Embedder for WindowChecker {
    fn identity(&self) -> &str {
        "window-checker"
    }
    fn dim(&self) -> usize {
        2
    }
    fn max_tokens(&self) -> usize {
        256
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, seamscope::embed::EmbedError> {
        for t in texts {
            let n = self.tokenizer.count(t).unwrap() + self.tokenizer.special_tokens();
            self.largest = self.largest.max(n);
            self.windows += 1;
        }
        Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
    }
}

#[test]
fn every_window_of_a_long_word_fits_the_model_when_read_alone() {
    // Windows are cut at token starts inside the word; read alone, a window starts its
    // 100-character pieces where it starts and can hold a few more tokens than it did inside
    // the text. The embedder re-counts and narrows them, so the model never truncates one.
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let tokenizer = common::tokenizer();
    let text = format!("Before the key. {} After the key.", blob(12_000, ALNUM));
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, _) = seamscope::embed::cache::VectorCache::open(dir.path().join("v.bin"), 2);
    let mut checker = WindowChecker {
        tokenizer: tokenizer.clone(),
        largest: 0,
        windows: 0,
    };
    let (_, stats) = seamscope::embed::embed_texts(
        &mut checker,
        &tokenizer,
        &mut cache,
        &[text.as_str()],
        seamscope::embed::EmbedOptions::default(),
        &mut |_| true,
    )
    .unwrap();
    assert_eq!(stats.tokens_embedded, tokenizer.count(&text).unwrap());
    let plain = stats.tokens_embedded.div_ceil(254);
    println!(
        "{} tokens: {} windows (at least {plain}), the largest {} tokens with [CLS] and [SEP]",
        stats.tokens_embedded, checker.windows, checker.largest
    );
    assert!(checker.windows >= plain, "{} windows", checker.windows);
    assert!(
        checker.largest <= 256,
        "a window of {} tokens",
        checker.largest
    );
}
