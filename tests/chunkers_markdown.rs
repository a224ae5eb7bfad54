//! Every chunker on hand-made Markdown, with cuts and atom survival worked out by hand.
//!
//! Tokens here are whitespace-separated words (one token each), so every count can be checked by
//! eye; the property tests use the real tokenizer.

use seamscope::chunk::atoms::{AtomClass, find_atoms};
use seamscope::chunk::context::{DocContext, SearchContext};
use seamscope::chunk::{ChunkerKind, chunk_corpus};
use seamscope::corpus::{Corpus, Span};
use seamscope::eval::survival::survival;
use seamscope::tokens::TokenOffsets;

/// One token per whitespace-separated word.
fn words(text: &str) -> TokenOffsets {
    TokenOffsets::of_words(text)
}

fn corpus(text: &str) -> Corpus {
    Corpus::from_texts([("doc.md", text)])
}

/// The chunk texts `kind` cuts `text` into at `budget` words.
fn cuts(kind: ChunkerKind, text: &str, budget: usize) -> Vec<String> {
    let c = corpus(text);
    let spans = kind.build(budget).cut(&c.documents[0], &words(text));
    spans
        .iter()
        .map(|s| text[s.start..s.end].to_string())
        .collect()
}

/// Per atom class (fence, table, row, figure sentence): (atoms kept whole, atoms); then rows
/// whose chunk lacks their header.
fn kept(kind: ChunkerKind, text: &str, budget: usize) -> ([(usize, usize); 4], usize) {
    let c = corpus(text);
    let offsets = vec![words(text)];
    let chunks = chunk_corpus(&c, &offsets, kind.build(budget).as_ref());
    let atoms = vec![find_atoms(&c.documents[0])];
    let s = survival(&c, &offsets, &atoms, &chunks, budget);
    let mut out = [(0, 0); 4];
    for (i, class) in AtomClass::ALL.iter().enumerate() {
        let cs = s
            .classes
            .iter()
            .find(|x| x.class == *class)
            .map(|x| (x.whole, x.atoms));
        out[i] = cs.unwrap_or((0, 0));
    }
    (out, s.rows_without_header)
}

const FENCE: &str = "Intro words here.\n```\nl1 a\nl2 b\nl3 c\nl4 d\n```\nOutro.\n";

#[test]
fn a_fence_longer_than_the_budget() {
    // 14 words: intro 3, fence 10 (opener 1, four lines of 2, closer 1), outro 1. Budget 6.
    let line_cuts = [
        "Intro words here.\n```\nl1 a\n",
        "l2 b\nl3 c\nl4 d\n",
        "```\nOutro.\n",
    ];
    assert_eq!(cuts(ChunkerKind::Fixed, FENCE, 6), line_cuts);
    assert_eq!(cuts(ChunkerKind::Sentence, FENCE, 6), line_cuts);
    assert_eq!(cuts(ChunkerKind::Recursive, FENCE, 6), line_cuts);
    // Structure: the fence does not fit, so it starts a chunk and is packed by lines.
    assert_eq!(
        cuts(ChunkerKind::Structure, FENCE, 6),
        [
            "Intro words here.\n",
            "```\nl1 a\nl2 b\n",
            "l3 c\nl4 d\n```\nOutro.\n"
        ]
    );
    for kind in ChunkerKind::ALL {
        assert_eq!(kept(kind, FENCE, 6).0[0], (0, 1), "{kind}: no one keeps it");
    }
}

#[test]
fn a_fence_that_fits_moves_whole() {
    // Budget 10: the fence (10) fits alone; only the structure-aware chunker keeps it whole.
    let fixed = [
        "Intro words here.\n```\nl1 a\nl2 b\nl3 c\n",
        "l4 d\n```\nOutro.\n",
    ];
    assert_eq!(cuts(ChunkerKind::Fixed, FENCE, 10), fixed);
    assert_eq!(cuts(ChunkerKind::Sentence, FENCE, 10), fixed);
    assert_eq!(cuts(ChunkerKind::Recursive, FENCE, 10), fixed);
    assert_eq!(
        cuts(ChunkerKind::Structure, FENCE, 10),
        [
            "Intro words here.\n",
            "```\nl1 a\nl2 b\nl3 c\nl4 d\n```\n",
            "Outro.\n"
        ]
    );
    assert_eq!(kept(ChunkerKind::Fixed, FENCE, 10).0[0], (0, 1));
    assert_eq!(kept(ChunkerKind::Structure, FENCE, 10).0[0], (1, 1));
}

const TABLE: &str =
    "Rates below.\n\n| k | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n| c | 3 |\n\nDone.\n";

#[test]
fn a_table_split_with_its_header_repeated() {
    // 24 words: 2, header 5, delimiter 1, three rows of 5, 1. The table (21) is over budget 12.
    assert_eq!(
        cuts(ChunkerKind::Fixed, TABLE, 12),
        [
            "Rates below.\n\n| k | v |\n|---|---|\n| a | 1 ",
            "|\n| b | 2 |\n| c | 3 |\n\nDone.\n"
        ]
    );
    let by_lines = [
        "Rates below.\n\n| k | v |\n|---|---|\n",
        "| a | 1 |\n| b | 2 |\n",
        "| c | 3 |\n\nDone.\n",
    ];
    assert_eq!(cuts(ChunkerKind::Sentence, TABLE, 12), by_lines);
    assert_eq!(cuts(ChunkerKind::Recursive, TABLE, 12), by_lines);
    // Structure: a new chunk for the table; header and delimiter stay with the first row.
    let structure = cuts(ChunkerKind::Structure, TABLE, 12);
    assert_eq!(
        structure,
        [
            "Rates below.\n\n",
            "| k | v |\n|---|---|\n| a | 1 |\n",
            "| b | 2 |\n| c | 3 |\n\nDone.\n"
        ]
    );
    // Rows kept whole (of 3) and rows whose chunk lacks the header.
    assert_eq!(
        kept(ChunkerKind::Fixed, TABLE, 12),
        ([(0, 0), (0, 1), (2, 3), (0, 0)], 2)
    );
    assert_eq!(
        kept(ChunkerKind::Sentence, TABLE, 12),
        ([(0, 0), (0, 1), (3, 3), (0, 0)], 3)
    );
    assert_eq!(
        kept(ChunkerKind::Recursive, TABLE, 12),
        ([(0, 0), (0, 1), (3, 3), (0, 0)], 3)
    );
    assert_eq!(
        kept(ChunkerKind::Structure, TABLE, 12),
        ([(0, 0), (0, 1), (3, 3), (0, 0)], 2)
    );

    // The chunk that begins inside the table is searched with the header in front; its span and
    // evidence text stay exact.
    let c = corpus(TABLE);
    let ctx = DocContext::new(
        &c.documents[0],
        SearchContext {
            heading_path: false,
            table_header: true,
        },
    );
    let third = TABLE.find("| b |").unwrap_or(0);
    assert_eq!(
        ctx.prefix(Span::new(third, TABLE.len())),
        "| k | v |\n|---|---|\n"
    );
    let second = TABLE.find("| k |").unwrap_or(0);
    assert_eq!(ctx.prefix(Span::new(second, third)), "");
}

const HEADINGS: &str = "# A\nAlpha one two.\n## B\n### C\nGamma three four five.\n#### D\n##### E\n###### F\n- x1 y1\n  - x2 y2\n    - x3 y3\n\nTail.\n";

#[test]
fn headings_at_every_level_and_nested_lists() {
    // 29 words; headings are 2 each, list items 3 each. Budget 10.
    assert_eq!(
        cuts(ChunkerKind::Fixed, HEADINGS, 10),
        [
            "# A\nAlpha one two.\n## B\n### C\nGamma ",
            "three four five.\n#### D\n##### E\n###### F\n- ",
            "x1 y1\n  - x2 y2\n    - x3 y3\n\nTail.\n"
        ]
    );
    let by_lines = [
        "# A\nAlpha one two.\n## B\n### C\n",
        "Gamma three four five.\n#### D\n##### E\n###### F\n",
        "- x1 y1\n  - x2 y2\n    - x3 y3\n\nTail.\n",
    ];
    assert_eq!(cuts(ChunkerKind::Sentence, HEADINGS, 10), by_lines);
    assert_eq!(cuts(ChunkerKind::Recursive, HEADINGS, 10), by_lines);
    // Structure: headings join what follows them, so no chunk ends on a heading.
    let structure = cuts(ChunkerKind::Structure, HEADINGS, 10);
    assert_eq!(
        structure,
        [
            "# A\nAlpha one two.\n",
            "## B\n### C\nGamma three four five.\n",
            "#### D\n##### E\n###### F\n- x1 y1\n",
            "  - x2 y2\n    - x3 y3\n\nTail.\n"
        ]
    );
    // Heading paths of each chunk's first byte: a chunk's own first heading is not its parent.
    let c = corpus(HEADINGS);
    let ctx = DocContext::new(
        &c.documents[0],
        SearchContext {
            heading_path: true,
            table_header: false,
        },
    );
    let mut start = 0;
    let mut prefixes = Vec::new();
    for chunk in &structure {
        prefixes.push(ctx.prefix(Span::new(start, start + chunk.len())));
        start += chunk.len();
    }
    assert_eq!(
        prefixes,
        ["", "A\n\n", "A > B > C\n\n", "A > B > C > D > E > F\n\n"]
    );
}

const CRLF: &str = "# Report\r\n\r\nRevenue grew 3 percent in the third quarter of the year.\r\nMargin held.\r\n\r\n| q | r |\r\n|---|---|\r\n| 1 | 2 |\r\n";

#[test]
fn crlf_text_and_a_figure_sentence() {
    // 26 words: heading 2, the figure sentence 11, "Margin held." 2, header 5, delimiter 1, row 5.
    let atoms = find_atoms(&corpus(CRLF).documents[0]);
    let figure: Vec<&str> = atoms
        .iter()
        .filter(|a| a.class == AtomClass::FigureSentence)
        .map(|a| &CRLF[a.span.start..a.span.end])
        .collect();
    assert_eq!(
        figure,
        ["Revenue grew 3 percent in the third quarter of the year."]
    );
    assert_eq!(
        cuts(ChunkerKind::Fixed, CRLF, 12),
        [
            "# Report\r\n\r\nRevenue grew 3 percent in the third quarter of the ",
            "year.\r\nMargin held.\r\n\r\n| q | r |\r\n|---|---|\r\n| 1 | ",
            "2 |\r\n"
        ]
    );
    assert_eq!(
        cuts(ChunkerKind::Sentence, CRLF, 12),
        [
            "# Report\r\n\r\n",
            "Revenue grew 3 percent in the third quarter of the year.\r\n",
            "Margin held.\r\n\r\n| q | r |\r\n|---|---|\r\n",
            "| 1 | 2 |\r\n"
        ]
    );
    let whole_table = [
        "# Report\r\n\r\n",
        "Revenue grew 3 percent in the third quarter of the year.\r\n",
        "Margin held.\r\n\r\n",
        "| q | r |\r\n|---|---|\r\n| 1 | 2 |\r\n",
    ];
    assert_eq!(cuts(ChunkerKind::Recursive, CRLF, 12), whole_table);
    assert_eq!(cuts(ChunkerKind::Structure, CRLF, 12), whole_table);
    // (fence, table, row, figure sentence) kept whole, then rows without their header.
    assert_eq!(
        kept(ChunkerKind::Fixed, CRLF, 12),
        ([(0, 0), (0, 1), (0, 1), (0, 1)], 0)
    );
    assert_eq!(
        kept(ChunkerKind::Sentence, CRLF, 12),
        ([(0, 0), (0, 1), (1, 1), (1, 1)], 1)
    );
    assert_eq!(
        kept(ChunkerKind::Recursive, CRLF, 12),
        ([(0, 0), (1, 1), (1, 1), (1, 1)], 0)
    );
    assert_eq!(
        kept(ChunkerKind::Structure, CRLF, 12),
        ([(0, 0), (1, 1), (1, 1), (1, 1)], 0)
    );
}

#[test]
fn an_unterminated_fence_runs_to_the_end() {
    let text = "Before.\n~~~python\nx = 1\n\ny = 2\n";
    let atoms = find_atoms(&corpus(text).documents[0]);
    assert_eq!(atoms.len(), 1);
    assert_eq!(
        &text[atoms[0].span.start..atoms[0].span.end],
        "~~~python\nx = 1\n\ny = 2"
    );
    // It fits budget 7 (7 words), so the structure-aware chunker keeps it whole.
    assert_eq!(
        cuts(ChunkerKind::Structure, text, 7),
        ["Before.\n", "~~~python\nx = 1\n\ny = 2\n"]
    );
}
