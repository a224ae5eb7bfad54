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
