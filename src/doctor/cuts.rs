//! Where the cuts fall: inside sentences, fenced blocks, tables and list items; atoms no chunk
//! keeps whole (seed 001's meter); seams whose window lost its `k`; and, for a cuts file, the text
//! no chunk holds and the text two chunks hold.
//!
//! A cut is the byte where a seam is centred ([`crate::seam::Seam::cut`]): one per pair of
//! neighbouring chunks of a document. Sentences are the prose sentences of the Markdown or plain
//! outline (code files have none), so a cut inside a code line counts as a cut in its fenced block,
//! not as a cut in a sentence.

use super::{Example, Finding, FindingKind, Location, excerpt, ratio};
use crate::chunk::atoms::{find_atoms, kept_whole};
use crate::chunk::markdown::{Dialect, Outline, outline};
use crate::chunk::sentences::prose_sentences;
use crate::corpus::{Corpus, DocId, DocKind, Span};
use crate::layout::Layout;
use crate::seam::Seam;
use crate::tokens::TokenOffsets;

/// The outline a document's cuts are judged against (none for code).
fn doc_outline(corpus: &Corpus, doc: DocId) -> Option<Outline> {
    let d = corpus.doc(doc);
    match d.kind {
        DocKind::Markdown => Some(outline(&d.text, Dialect::Markdown)),
        DocKind::Text => Some(outline(&d.text, Dialect::Plain)),
        DocKind::Code => None,
    }
}

/// Whether `cut` lies strictly inside `span` (a cut at either edge splits nothing).
fn inside(span: Span, cut: usize) -> bool {
    span.start < cut && cut < span.end
}

/// The four cut findings: inside a sentence, a fenced block, a table, a list item.
pub fn cut_findings(corpus: &Corpus, layout: &Layout) -> Vec<Finding> {
    let mut cases = CutCases::default();
    let mut outlines: Option<(DocId, Option<Outline>)> = None;
    for seam in &layout.seams {
        if outlines.as_ref().map(|(d, _)| *d) != Some(seam.doc) {
            outlines = Some((seam.doc, doc_outline(corpus, seam.doc)));
        }
        let Some((_, Some(o))) = &outlines else {
            continue;
        };
        let at = SeamCut {
            corpus,
            seam,
            offs: &layout.offsets[seam.doc.0 as usize],
        };
        at.in_prose(o, &mut cases);
        at.in_fences(o, &mut cases.fence);
        at.in_tables(o, &mut cases.table);
    }
    cases.findings(layout.seams.len())
}

/// The cases of each cut finding.
#[derive(Default)]
struct CutCases {
    sentence: Vec<Example>,
    fence: Vec<Example>,
    table: Vec<Example>,
    item: Vec<Example>,
}

impl CutCases {
    /// The four findings, each out of `cuts` cuts.
    fn findings(self, cuts: usize) -> Vec<Finding> {
        vec![
            Finding::new(
                FindingKind::CutInSentence,
                cuts,
                "cuts",
                "a cut strictly inside a prose sentence (UAX #29 sentences of paragraphs and list items; code and tables are not prose); worst: the most even split".into(),
                self.sentence,
            ),
            Finding::new(
                FindingKind::CutInFence,
                cuts,
                "cuts",
                "a cut strictly inside a fenced code block, fence lines included; worst: the most even split".into(),
                self.fence,
            ),
            Finding::new(
                FindingKind::CutInTable,
                cuts,
                "cuts",
                "a cut strictly inside a Markdown table (header to last row); worst: the most rows cut off from the header".into(),
                self.table,
            ),
            Finding::new(
                FindingKind::CutInListItem,
                cuts,
                "cuts",
                "a cut strictly inside the text of a list item (a bullet or number opens it); worst: the most even split".into(),
                self.item,
            ),
        ]
    }
}

/// One seam's cut in its document, judged against the document's outline.
struct SeamCut<'a> {
    corpus: &'a Corpus,
    seam: &'a Seam,
    /// The document's token offsets.
    offs: &'a TokenOffsets,
}

impl SeamCut<'_> {
    /// The document's text.
    fn text(&self) -> &str {
        &self.corpus.doc(self.seam.doc).text
    }

    /// Tokens of `s` before and after the cut.
    fn sides(&self, s: Span) -> (usize, usize) {
        let cut = self.seam.cut;
        (
            self.offs.count_in(s.start, cut),
            self.offs.count_in(cut, s.end),
        )
    }

    /// A case of `span` cut here.
    fn case(&self, span: Span, detail: String, severity: f64) -> Example {
        Example {
            location: Location::of(self.corpus, self.seam.doc, span, Some(self.seam.cut)),
            detail,
            excerpt: excerpt(self.corpus, self.seam.doc, span),
            severity,
        }
    }

    /// Sentences of prose blocks the cut falls inside, and the list item it falls inside.
    fn in_prose(&self, o: &Outline, cases: &mut CutCases) {
        let (text, cut, seam) = (self.text(), self.seam.cut, self.seam);
        for block in o.prose.iter().filter(|b| inside(b.span, cut)) {
            for s in prose_sentences(text, block)
                .into_iter()
                .filter(|s| inside(*s, cut))
            {
                let (a, b) = self.sides(s);
                cases.sentence.push(self.case(
                    s,
                    format!(
                        "seam {}|{} cuts a sentence: {a} tokens | {b} tokens",
                        seam.left.0, seam.right.0
                    ),
                    a.min(b) as f64,
                ));
            }
            if text[block.span.start..block.content_start]
                .trim()
                .is_empty()
            {
                continue;
            }
            let (a, b) = self.sides(block.span);
            cases.item.push(self.case(
                block.span,
                format!(
                    "seam {}|{} cuts a list item: {a} tokens | {b} tokens",
                    seam.left.0, seam.right.0
                ),
                a.min(b) as f64,
            ));
        }
    }

    /// Fenced blocks the cut falls inside, with the lines on each side.
    fn in_fences(&self, o: &Outline, cases: &mut Vec<Example>) {
        let (text, cut, seam) = (self.text(), self.seam.cut, self.seam);
        for f in o.fences.iter().filter(|f| inside(f.span, cut)) {
            let lines = |s: usize, e: usize| text[s..e].matches('\n').count();
            let (above, below) = (lines(f.span.start, cut), lines(cut, f.span.end) + 1);
            let (a, b) = self.sides(f.span);
            cases.push(self.case(
                f.span,
                format!(
                    "seam {}|{} cuts a fenced block after {above} of its {} lines ({a} tokens | {b} tokens)",
                    seam.left.0,
                    seam.right.0,
                    above + below
                ),
                a.min(b) as f64,
            ));
        }
    }

    /// Tables the cut falls inside, with the rows it cuts off from the header.
    fn in_tables(&self, o: &Outline, cases: &mut Vec<Example>) {
        let (cut, seam) = (self.seam.cut, self.seam);
        for t in o.tables.iter().filter(|t| inside(t.span, cut)) {
            let below = t.rows.iter().filter(|r| r.start >= cut).count();
            cases.push(self.case(
                t.span,
                format!(
                    "seam {}|{} cuts a table: {below} of its {} rows arrive without the header row",
                    seam.left.0,
                    seam.right.0,
                    t.rows.len()
                ),
                below as f64,
            ));
        }
    }
}

/// Atoms no chunk holds whole: fenced blocks, tables, table rows and figure sentences.
pub fn atoms_split(corpus: &Corpus, layout: &Layout) -> Finding {
    let mut atoms = 0;
    let mut cases = Vec::new();
    for doc in &corpus.documents {
        let spans: Vec<Span> = layout
            .chunks
            .iter()
            .filter(|c| c.doc == doc.id)
            .map(|c| c.span)
            .collect();
        let offs = &layout.offsets[doc.id.0 as usize];
        for a in find_atoms(doc) {
            atoms += 1;
            if kept_whole(a.span, &spans) {
                continue;
            }
            let cut = spans
                .iter()
                .map(|s| s.start)
                .find(|&s| inside(a.span, s))
                .or_else(|| spans.iter().map(|s| s.end).find(|&e| inside(a.span, e)));
            let tokens = offs.count_in(a.span.start, a.span.end);
            let (left, right) = cut.map_or((tokens, 0), |c| {
                (offs.count_in(a.span.start, c), offs.count_in(c, a.span.end))
            });
            cases.push(Example {
                location: Location::of(corpus, doc.id, a.span, cut),
                detail: format!(
                    "a {} of {tokens} tokens no chunk holds whole ({left} tokens | {right} tokens)",
                    a.class.label()
                ),
                excerpt: excerpt(corpus, doc.id, a.span),
                severity: left.min(right) as f64,
            });
        }
    }
    Finding::new(
        FindingKind::AtomSplit,
        atoms,
        "atoms",
        "seed 001's atoms (fenced blocks, tables, table rows, prose sentences with a digit and 10+ words) that no one chunk contains; worst: the most even split".into(),
        cases,
    )
}

/// Seams with fewer than `k` tokens on a side: the chunk on that side is shorter than `k`.
pub fn seams_lost_k(corpus: &Corpus, layout: &Layout) -> Finding {
    let k = layout.k;
    let cases = layout
        .seams
        .iter()
        .filter(|s| (s.left_tokens as usize) < k || (s.right_tokens as usize) < k)
        .map(|s| {
            let short = (s.left_tokens as usize).min(s.right_tokens as usize);
            let side = if (s.left_tokens as usize) < k {
                "left"
            } else {
                "right"
            };
            Example {
                location: Location::of(corpus, s.doc, s.span, Some(s.cut)),
                detail: format!(
                    "seam {}|{} holds {} | {} tokens: its {side} side has fewer than k = {k}",
                    s.left.0, s.right.0, s.left_tokens, s.right_tokens
                ),
                excerpt: excerpt(corpus, s.doc, s.span),
                severity: (k - short.min(k)) as f64,
            }
        })
        .collect();
    Finding::new(
        FindingKind::SeamLostK,
        layout.seams.len(),
        "seams",
        format!(
            "a seam whose window holds fewer than k = {k} tokens of its left or right chunk (that chunk is shorter than k); worst: the shortest side"
        ),
        cases,
    )
}

/// Non-whitespace bytes of `span` in `text`.
fn solid_bytes(text: &str, span: Span) -> usize {
    text[span.start..span.end]
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .count()
}

/// A cuts file's uncovered and duplicated text; not applicable to the built-in chunkers, which
/// tile every document.
pub fn given_findings(corpus: &Corpus, layout: &Layout) -> Vec<Finding> {
    if layout.given.is_none() {
        let why = "the built-in chunkers tile every document: give your chunks with --cuts";
        return vec![
            Finding::not_applicable(FindingKind::UncoveredText, why),
            Finding::not_applicable(FindingKind::DuplicatedText, why),
        ];
    }
    let total: usize = corpus
        .documents
        .iter()
        .map(|d| solid_bytes(&d.text, Span::new(0, d.text.len())))
        .sum();
    let mut uncovered = Vec::new();
    let mut duplicated = Vec::new();
    for doc in &corpus.documents {
        for gap in layout.uncovered(doc.id, doc.text.len()) {
            let bytes = solid_bytes(&doc.text, gap);
            if bytes > 0 {
                uncovered.push((
                    bytes,
                    given_case(corpus, doc.id, gap, bytes, "no chunk holds"),
                ));
            }
        }
        let chunks: Vec<Span> = layout
            .chunks
            .iter()
            .filter(|c| c.doc == doc.id)
            .map(|c| c.span)
            .collect();
        for pair in chunks.windows(2) {
            if pair[1].start < pair[0].end {
                let shared = Span::new(pair[1].start, pair[0].end.min(pair[1].end));
                let bytes = solid_bytes(&doc.text, shared);
                if bytes > 0 {
                    duplicated.push((
                        bytes,
                        given_case(corpus, doc.id, shared, bytes, "two chunks both hold"),
                    ));
                }
            }
        }
    }
    let finish = |kind, cases: Vec<(usize, Example)>, method: &str| {
        let bytes: usize = cases.iter().map(|(b, _)| b).sum();
        let mut f = Finding::new(
            kind,
            total,
            "bytes",
            method.to_string(),
            cases.into_iter().map(|(_, e)| e).collect(),
        );
        f.count = bytes;
        f.share = ratio(bytes, total);
        f
    };
    vec![
        finish(
            FindingKind::UncoveredText,
            uncovered,
            "non-whitespace bytes of a document that no given chunk holds (a splitter that dropped text); worst: the longest gap",
        ),
        finish(
            FindingKind::DuplicatedText,
            duplicated,
            "non-whitespace bytes two neighbouring given chunks both hold (a splitter's overlap); worst: the longest overlap",
        ),
    ]
}

fn given_case(corpus: &Corpus, doc: DocId, span: Span, bytes: usize, what: &str) -> Example {
    Example {
        location: Location::of(corpus, doc, span, None),
        detail: format!("{bytes} non-whitespace bytes {what}"),
        excerpt: excerpt(corpus, doc, span),
        severity: bytes as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_tables_and_sentences_are_found_at_their_cut() {
        let fence = "```\nlet a = 1;\nlet b = 2;\nlet c = 3;\n```";
        let table = "| k | v |\n| - | - |\n| a | 1 |\n| b | 2 |";
        let text = format!(
            "# Title\n\nOne sentence here that runs on and on. Another one.\n\n{fence}\n\n{table}\n\n- first item of the list\n- second item\n"
        );
        let corpus = Corpus::from_texts([("a.md", text.as_str())]);
        let cuts = [
            text.find("runs on").unwrap(),
            text.find("let b").unwrap(),
            text.find("| b |").unwrap(),
            text.find("item of").unwrap(),
        ];
        let mut layout = crate::layout::of_words(&corpus, 1000);
        let mut spans = vec![0];
        spans.extend(cuts);
        spans.push(text.len());
        layout.chunks = spans
            .windows(2)
            .enumerate()
            .map(|(i, w)| crate::chunk::Chunk {
                id: crate::chunk::ChunkId(i as u32),
                doc: DocId(0),
                ordinal: i as u32,
                span: Span::new(w[0], w[1]),
                tokens: 1,
            })
            .collect();
        layout.seams = crate::seam::build_seams(&corpus, &layout.offsets, &layout.chunks, 2);
        let found = cut_findings(&corpus, &layout);
        let at = |kind: FindingKind| -> Vec<usize> {
            found
                .iter()
                .find(|f| f.kind == kind)
                .unwrap()
                .locations
                .iter()
                .filter_map(|l| l.at)
                .collect()
        };
        assert_eq!(at(FindingKind::CutInSentence), vec![cuts[0], cuts[3]]);
        assert_eq!(at(FindingKind::CutInFence), vec![cuts[1]]);
        assert_eq!(at(FindingKind::CutInTable), vec![cuts[2]]);
        assert_eq!(at(FindingKind::CutInListItem), vec![cuts[3]]);
        let table_case = &found[2].examples[0];
        assert!(
            table_case.detail.contains("1 of its 2 rows"),
            "{}",
            table_case.detail
        );
        let atoms = atoms_split(&corpus, &layout);
        assert_eq!((atoms.count, atoms.of), (2, 4), "{atoms:?}");
    }
}
