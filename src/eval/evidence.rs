//! One gold question against one trace: was its evidence in the context with Seams, and without,
//! and which cut split it. The screen shows this as the answer's verdict (✓ / ✗) and its reason.

use serde::Serialize;

use super::metrics::covered;
use super::questions::Question;
use crate::chunk::ChunkId;
use crate::layout::Layout;
use crate::retrieve::Trace;
use crate::seam::SeamId;

/// How a question's gold evidence fared in one query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceVerdict {
    /// The context with Seams holds every byte of the evidence.
    pub with_seams: bool,
    /// The context without Seams (the baseline the trace shows) holds every byte of it.
    pub without_seams: bool,
    /// The chunks that hold part of the evidence, in document order.
    pub evidence_chunks: Vec<ChunkId>,
    /// Seams whose cut falls inside the evidence: the cuts that split it.
    pub splitting_seams: Vec<SeamId>,
    /// Splitting seams that fired in this trace.
    pub fired_splitting: Vec<SeamId>,
    /// Evidence chunks missing from the context with Seams.
    pub missing_with: Vec<ChunkId>,
    /// Evidence chunks missing from the context without Seams.
    pub missing_without: Vec<ChunkId>,
}

/// Judge `question` against `trace` on `layout` (the layout the trace ran on).
pub fn judge(question: &Question, trace: &Trace, layout: &Layout) -> EvidenceVerdict {
    let shown = trace.without_seams.shown();
    let spans_of = |chunks: &[ChunkId]| {
        chunks
            .iter()
            .map(|c| layout.chunk(*c))
            .filter(|c| c.doc == question.doc)
            .map(|c| c.span)
            .collect::<Vec<_>>()
    };
    let holds = |chunks: &[ChunkId]| {
        let spans = spans_of(chunks);
        question.spans.iter().all(|s| covered(*s, &spans))
    };
    let evidence_chunks: Vec<ChunkId> = layout
        .chunks
        .iter()
        .filter(|c| c.doc == question.doc && question.spans.iter().any(|s| c.span.overlaps(s)))
        .map(|c| c.id)
        .collect();
    let splitting_seams: Vec<SeamId> = layout
        .seams
        .iter()
        .filter(|s| {
            s.doc == question.doc
                && question
                    .spans
                    .iter()
                    .any(|span| span.start < s.cut && s.cut < span.end)
        })
        .map(|s| s.id)
        .collect();
    let fired_splitting = splitting_seams
        .iter()
        .copied()
        .filter(|s| trace.decisions.iter().any(|d| d.seam == *s && d.fires))
        .collect();
    let missing = |context: &[ChunkId]| {
        evidence_chunks
            .iter()
            .copied()
            .filter(|c| !context.contains(c))
            .collect::<Vec<_>>()
    };
    EvidenceVerdict {
        with_seams: holds(&trace.fill.chunks),
        without_seams: holds(&shown.without_seams),
        missing_with: missing(&trace.fill.chunks),
        missing_without: missing(&shown.without_seams),
        evidence_chunks,
        splitting_seams,
        fired_splitting,
    }
}

impl EvidenceVerdict {
    /// The reason in a few words, for a narrow pane: `cut 42|43 splits it; it fired`,
    /// `cut 42|43 splits it; no seam fired`, `whole in chunk 40`.
    pub fn short_reason(&self, seam: &dyn Fn(SeamId) -> String) -> String {
        match self.splitting_seams.first() {
            None => match self.evidence_chunks.as_slice() {
                [one] => format!("whole in chunk {}", one.0),
                _ => "not split by a cut".to_string(),
            },
            Some(first) => {
                let cut = seam(*first).replacen("seam", "cut", 1);
                let more = match self.splitting_seams.len() {
                    1 => String::new(),
                    n => format!(" (+{})", n - 1),
                };
                let fired = if self.fired_splitting.is_empty() {
                    "no seam fired"
                } else {
                    "its seam fired"
                };
                format!("{cut}{more} splits it; {fired}")
            }
        }
    }

    /// Why the two contexts differ on this question, in one sentence; `seam` names a seam
    /// (`seam 42|43`), `chunk` a chunk (`chunk 43`).
    pub fn reason(&self, seam: &dyn Fn(SeamId) -> String) -> String {
        let chunks = |ids: &[ChunkId]| {
            let names: Vec<String> = ids.iter().map(|c| c.0.to_string()).collect();
            match names.len() {
                0 => String::new(),
                1 => format!("chunk {}", names[0]),
                _ => format!("chunks {}", names.join(", ")),
            }
        };
        let cuts = |ids: &[SeamId]| ids.iter().map(|s| seam(*s)).collect::<Vec<_>>().join(", ");
        let split = if self.splitting_seams.is_empty() {
            format!(
                "the evidence lies whole in {}",
                chunks(&self.evidence_chunks)
            )
        } else {
            let cut_names: Vec<String> = self
                .splitting_seams
                .iter()
                .map(|s| seam(*s).replacen("seam", "cut", 1))
                .collect();
            format!(
                "{} splits the evidence across {}",
                cut_names.join(" and "),
                chunks(&self.evidence_chunks)
            )
        };
        let with = match (self.with_seams, self.fired_splitting.is_empty()) {
            (true, false) => format!(
                "; {} fired and brought both sides",
                cuts(&self.fired_splitting)
            ),
            (true, true) => String::new(),
            (false, _) => format!(
                "; with Seams the context lacks {}",
                chunks(&self.missing_with)
            ),
        };
        let without = if self.without_seams {
            String::new()
        } else {
            format!("; without Seams it lacks {}", chunks(&self.missing_without))
        };
        format!("{split}{with}{without}")
    }
}
