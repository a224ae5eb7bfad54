//! The structure-aware chunker: fenced blocks and whole tables are indivisible while they fit the
//! budget, and the text between them is packed at sentence boundaries.
//!
//! Rules, in order (Markdown documents):
//! 1. Units are the sentence packer's (see [`sentences`](super::sentences)), except that a fenced
//!    block or a table (with the blank lines after it) is one unit.
//! 2. A heading joins the unit after it when the two fit the budget together, or when that unit is
//!    a block too large to fit anyway, so no chunk ends on a heading.
//! 3. Units are packed greedily. A block over the budget starts a new chunk and is packed by lines
//!    (a fence) or by rows (a table, whose header and delimiter rows stay together); the chunks
//!    that begin inside a table get its header repeated in their search text (see
//!    [`context`](super::context)), never in their span.
//!
//! Plain-text documents are packed by sentences and code files are split recursively, since
//! neither has fences or tables to protect.

use super::Chunker;
use super::markdown::{Dialect, lines, outline};
use super::pack::{Packer, pieces_between};
use super::recursive::cut_recursive;
use super::sentences::{SentencePacking, unit_starts};
use crate::corpus::{DocKind, Document, Span};
use crate::tokens::TokenOffsets;

/// Structure-aware chunks of at most `tokens` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StructureAware {
    /// The most tokens a chunk may hold.
    pub tokens: usize,
}

impl Chunker for StructureAware {
    fn name(&self) -> String {
        format!("structure-{}", self.tokens)
    }

    fn cut(&self, doc: &Document, offsets: &TokenOffsets) -> Vec<Span> {
        match doc.kind {
            DocKind::Markdown => cut_structured(&doc.text, offsets, self.tokens),
            DocKind::Text => SentencePacking {
                tokens: self.tokens,
            }
            .cut(doc, offsets),
            DocKind::Code => cut_recursive(&doc.text, offsets, self.tokens),
        }
    }

    fn repeats_table_header(&self) -> bool {
        true
    }
}

/// A fence or table as a packing unit: its span to the next line start, and where it may be cut
/// when it does not fit.
struct Block {
    span: Span,
    inner_cuts: Vec<usize>,
}

/// One packing unit: a span, and the block it holds, if any.
struct Unit {
    span: Span,
    block: Option<usize>,
}

/// Cut a Markdown `text` into structure-aware chunks of at most `max` tokens.
pub fn cut_structured(text: &str, offsets: &TokenOffsets, max: usize) -> Vec<Span> {
    let max = max.max(1);
    let outline = outline(text, Dialect::Markdown);
    let all_lines = lines(text);
    let next_line = |end: usize| {
        let i = all_lines.partition_point(|l| l.end < end);
        all_lines
            .get(i)
            .filter(|l| l.end == end)
            .map_or(end, |l| l.next)
    };
    let line_starts_inside = |span: Span| -> Vec<usize> {
        let from = all_lines.partition_point(|l| l.start <= span.start);
        all_lines[from..]
            .iter()
            .map(|l| l.start)
            .take_while(|&s| s < span.end)
            .collect()
    };
    let mut blocks: Vec<Block> = outline
        .fences
        .iter()
        .map(|f| Block {
            span: Span::new(f.span.start, next_line(f.span.end)),
            inner_cuts: line_starts_inside(f.span),
        })
        .chain(outline.tables.iter().map(|t| Block {
            span: Span::new(t.span.start, next_line(t.span.end)),
            inner_cuts: t.rows.iter().map(|r| r.start).collect(),
        }))
        .collect();
    blocks.sort_by_key(|b| b.span.start);

    // Blocks and headings are disjoint and in document order; no unit starts strictly inside one.
    let mut protected: Vec<Span> = blocks.iter().map(|b| b.span).collect();
    protected.extend(outline.headings.iter().map(|h| h.span));
    protected.sort_unstable();
    let inside = |s: usize| {
        let i = protected.partition_point(|p| p.start < s);
        i > 0 && s < protected[i - 1].end
    };
    let mut starts = unit_starts(text, Some(&outline));
    starts.extend(blocks.iter().map(|b| b.span.start));
    starts.retain(|&s| !inside(s));
    let units: Vec<Unit> = pieces_between(&starts, text.len())
        .into_iter()
        .map(|span| Unit {
            span,
            block: blocks
                .binary_search_by_key(&span.start, |b| b.span.start)
                .ok(),
        })
        .collect();

    // Headings join the unit after them (back to front, so a run of headings joins too).
    let count = |s: Span| offsets.count_in(s.start, s.end);
    let is_heading = |s: Span| {
        outline
            .headings
            .binary_search_by_key(&s.start, |h| h.span.start)
            .is_ok()
    };
    let mut joined: Vec<Unit> = Vec::with_capacity(units.len());
    for unit in units.into_iter().rev() {
        if is_heading(unit.span)
            && let Some(next) = joined.last_mut()
        {
            let merged = Span::new(unit.span.start, next.span.end);
            let next_is_big_block = next.block.is_some() && count(next.span) > max;
            if count(merged) <= max || next_is_big_block {
                next.span = merged;
                continue;
            }
        }
        joined.push(unit);
    }
    joined.reverse();

    let mut packer = Packer::new(text, offsets, max);
    for unit in &joined {
        match unit.block {
            Some(b) if count(unit.span) > max => {
                packer.cut();
                let mut edges = blocks[b].inner_cuts.clone();
                edges.retain(|&e| unit.span.start < e && e < unit.span.end);
                let mut prev = unit.span.start;
                for e in edges.into_iter().chain([unit.span.end]) {
                    packer.push(Span::new(prev, e));
                    prev = e;
                }
            }
            _ => packer.push(unit.span),
        }
    }
    packer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::pack::tests::words;

    fn cut(text: &str, max: usize) -> Vec<&str> {
        cut_structured(text, &words(text), max)
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect()
    }

    #[test]
    fn a_fitting_fence_is_never_cut() {
        // Sentence packing would put "a b c" and the fence's first lines together; the fence
        // (5 tokens) moves whole to the next chunk instead.
        let text = "a b c.\n```\nx y\nz\n```\nd.";
        assert_eq!(cut(text, 5), ["a b c.\n", "```\nx y\nz\n```\n", "d."]);
        assert_eq!(cut(text, 8), ["a b c.\n```\nx y\nz\n```\n", "d."]);
    }

    #[test]
    fn a_long_fence_is_packed_by_lines() {
        let text = "Intro.\n```\na b\nc d\ne f\n```\nEnd.";
        assert_eq!(
            cut(text, 3),
            ["Intro.\n", "```\na b\n", "c d\n", "e f\n```\n", "End."]
        );
    }

    #[test]
    fn a_long_table_keeps_its_header_with_the_first_rows() {
        let text = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n";
        // Rows are 5 tokens each ("|", "1", "|", "2", "|"); header + delimiter are 6.
        assert_eq!(
            cut(text, 11),
            ["| a | b |\n|---|---|\n| 1 | 2 |\n", "| 3 | 4 |\n"]
        );
    }

    #[test]
    fn headings_stay_with_what_follows() {
        let text = "a b.\n# T\nc d.";
        assert_eq!(cut(text, 4), ["a b.\n", "# T\nc d."]);
    }
}
