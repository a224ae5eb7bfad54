//! Why evidence did not reach the context: a **cut** (a returned chunk overlaps the evidence but
//! the returned chunks do not hold all of it: the chunker split it and retrieval found only a
//! part) or a **rank miss** (no returned chunk touches it: the ranking never found it).
//!
//! A cut belongs to whoever owns the chunker; a rank miss to whoever owns ranking and embedding.

use serde::Serialize;

use super::metrics::covered;
use super::questions::Question;
use crate::chunk::ChunkId;
use crate::corpus::Span;
use crate::layout::Layout;

/// What the returned chunks did with one question's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// Every gold span is held by the returned chunks.
    Answered,
    /// Some gold span is missing, and a returned chunk overlaps a missing span.
    Cut,
    /// Some gold span is missing, and no returned chunk touches any missing span.
    RankMiss,
}

/// Classify one question against the chunks retrieval returned.
pub fn delivery(question: &Question, returned: &[ChunkId], layout: &Layout) -> Delivery {
    let spans: Vec<Span> = returned
        .iter()
        .map(|c| layout.chunk(*c))
        .filter(|c| c.doc == question.doc)
        .map(|c| c.span)
        .collect();
    let missing: Vec<&Span> = question
        .spans
        .iter()
        .filter(|s| !covered(**s, &spans))
        .collect();
    if missing.is_empty() {
        Delivery::Answered
    } else if missing.iter().any(|m| spans.iter().any(|c| c.overlaps(m))) {
        Delivery::Cut
    } else {
        Delivery::RankMiss
    }
}

/// Counts of each delivery over a question set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DeliveryTally {
    /// Questions counted.
    pub questions: usize,
    /// Answered.
    pub answered: usize,
    /// Failed with a cut.
    pub cut: usize,
    /// Failed with a rank miss.
    pub rank_miss: usize,
}

impl DeliveryTally {
    /// Count one more question.
    pub fn add(&mut self, d: Delivery) {
        self.questions += 1;
        match d {
            Delivery::Answered => self.answered += 1,
            Delivery::Cut => self.cut += 1,
            Delivery::RankMiss => self.rank_miss += 1,
        }
    }

    /// Questions that failed.
    pub fn failed(&self) -> usize {
        self.cut + self.rank_miss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ChunkId;
    use crate::corpus::{Corpus, DocId};

    fn layout(corpus: &Corpus) -> Layout {
        crate::layout::of_words(corpus, 2)
    }

    fn question(spans: Vec<Span>) -> Question {
        Question {
            id: "q".into(),
            question: "?".into(),
            doc: DocId(0),
            spans,
            tags: Vec::new(),
        }
    }

    #[test]
    fn answered_cut_and_rank_miss() {
        // Chunks: 0 "a b ", 1 "c d ", 2 "e f".
        let corpus = Corpus::from_texts([("x.md", "a b c d e f")]);
        let l = layout(&corpus);
        let q = question(vec![Span::new(2, 7)]); // "b c d"
        assert_eq!(
            delivery(&q, &[ChunkId(0), ChunkId(1)], &l),
            Delivery::Answered
        );
        assert_eq!(delivery(&q, &[ChunkId(1)], &l), Delivery::Cut);
        assert_eq!(delivery(&q, &[ChunkId(2)], &l), Delivery::RankMiss);
        assert_eq!(delivery(&q, &[], &l), Delivery::RankMiss);
        let mut t = DeliveryTally::default();
        for d in [Delivery::Answered, Delivery::Cut, Delivery::RankMiss] {
            t.add(d);
        }
        assert_eq!((t.questions, t.failed()), (3, 2));
    }
}
