//! Varied copies of a corpus for `bench scale`: copy 0 is the original, and every later copy
//! swaps about a quarter of its longer words for others, by a rule fixed per copy, so no chunk or
//! seam text repeats between copies and the vector cache cannot serve one copy from another.

use std::path::Path;

use seamscope::corpus::Corpus;

/// Replacement words, plain English of the lengths the swapped words have.
const WORDS: [&str; 32] = [
    "harbor", "ledger", "signal", "meadow", "copper", "lantern", "orchard", "quarry", "timber",
    "velvet", "canyon", "falcon", "garden", "island", "jacket", "kettle", "marble", "needle",
    "oyster", "pepper", "rocket", "saddle", "tunnel", "walnut", "anchor", "basket", "candle",
    "desert", "engine", "fabric", "glacier", "hammer",
];

/// Copy `copy` of `text`: the text itself for copy 0; otherwise each ASCII word of four letters
/// or more is swapped, when the copy's rule picks it (about one word in four, the same word
/// always the same way within a copy), for a word of [`WORDS`] with the same first-letter case.
pub fn vary(text: &str, copy: usize) -> String {
    if copy == 0 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut word_start: Option<usize> = None;
    let flush = |out: &mut String, word: &str| {
        out.push_str(&swap(word, copy).unwrap_or_else(|| word.to_string()));
    };
    for (i, c) in text.char_indices() {
        if c.is_ascii_alphabetic() {
            word_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = word_start.take() {
            flush(&mut out, &text[s..i]);
        }
        out.push(c);
    }
    if let Some(s) = word_start {
        flush(&mut out, &text[s..]);
    }
    out
}

/// The replacement of `word` in copy `copy`, if the copy's rule swaps it.
fn swap(word: &str, copy: usize) -> Option<String> {
    if word.len() < 4 {
        return None;
    }
    let mut h = blake3::Hasher::new();
    h.update(&(copy as u64).to_le_bytes());
    h.update(word.to_ascii_lowercase().as_bytes());
    let bytes = h.finalize();
    let b = bytes.as_bytes();
    if !b[0].is_multiple_of(4) {
        return None;
    }
    let new = WORDS[b[1] as usize % WORDS.len()];
    Some(if word.starts_with(|c: char| c.is_ascii_uppercase()) {
        let mut s = new.to_string();
        s[..1].make_ascii_uppercase();
        s
    } else {
        new.to_string()
    })
}

/// Write `copies` varied copies of every document of `corpus` under `dir` (`copy-NN/path`);
/// returns the bytes written.
pub fn write_copies(corpus: &Corpus, copies: usize, dir: &Path) -> std::io::Result<u64> {
    let mut bytes = 0;
    for copy in 0..copies {
        for doc in &corpus.documents {
            let path = dir.join(format!("copy-{copy:02}")).join(&doc.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let text = vary(&doc.text, copy);
            bytes += text.len() as u64;
            std::fs::write(path, text)?;
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_differ_from_each_other_but_keep_their_shape() {
        let text = "The Order service accepts stale reads during a regional outage.\nBilling records stay consistent, always.";
        assert_eq!(vary(text, 0), text);
        let (one, two) = (vary(text, 1), vary(text, 2));
        assert_ne!(one, text);
        assert_ne!(one, two);
        assert_eq!(vary(text, 1), one, "a copy is the same every time");
        // Punctuation, spacing, line breaks and short words are kept.
        for v in [&one, &two] {
            assert_eq!(v.matches('\n').count(), 1);
            assert!(v.ends_with('.') && v.contains(", ") && v.starts_with("The "));
        }
    }

    #[test]
    fn about_a_quarter_of_longer_words_are_swapped_and_case_is_kept() {
        let many: Vec<String> = (0..2000).map(distinct_word).collect();
        let text = many.join(" ");
        let varied = vary(&text, 5);
        let pairs: Vec<(&str, &str)> = text.split(' ').zip(varied.split(' ')).collect();
        assert_eq!(pairs.len(), 2000, "one word out for each word in");
        let swapped: Vec<&(&str, &str)> = pairs.iter().filter(|(a, b)| a != b).collect();
        assert!(
            (350..650).contains(&swapped.len()),
            "{} of 2000 swapped",
            swapped.len()
        );
        let capital = |w: &str| w.starts_with(|c: char| c.is_ascii_uppercase());
        assert!(
            swapped.iter().all(|(a, b)| capital(a) == capital(b)
                && WORDS.contains(&b.to_ascii_lowercase().as_str()))
        );
        // Words under four letters are never swapped.
        assert_eq!(vary("a an the and", 5), "a an the and");
    }

    /// Distinct letter-only words, half of them capitalised.
    fn distinct_word(i: usize) -> String {
        let mut s = String::new();
        let mut n = i + 26 * 26 * 26;
        while n > 0 {
            s.push((b'a' + (n % 26) as u8) as char);
            n /= 26;
        }
        if i.is_multiple_of(2) {
            s[..1].make_ascii_uppercase();
        }
        s
    }
}
