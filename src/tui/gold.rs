//! Gold evidence on screen: the corpus' own question set (`questions.jsonl` beside its documents)
//! for the question picker, and the verdict of the question asked from it.

use seamscope::eval::evidence::{EvidenceVerdict, judge};
use seamscope::eval::questions::Question;
use seamscope::session::OpenCorpus;

/// The corpus' question set as the picker lists it.
#[derive(Debug, Clone, Default)]
pub enum GoldQuestions {
    /// The corpus has no `questions.jsonl`.
    #[default]
    Missing,
    /// The questions, resolved against the corpus.
    Loaded(Vec<Question>),
    /// The file could not be used; what is wrong with it.
    Bad(String),
}

impl GoldQuestions {
    /// The questions (none when the file is missing or bad).
    pub fn list(&self) -> &[Question] {
        match self {
            GoldQuestions::Loaded(q) => q,
            _ => &[],
        }
    }
}

/// The verdict of a gold question on the current result, with its line for the screen.
#[derive(Debug, Clone)]
pub struct GoldLine {
    /// The question's id.
    pub id: String,
    /// With and without Seams, and why.
    pub verdict: EvidenceVerdict,
    /// `A01 · answered with Seams ✓ · without ✗ — cut 42|43 splits the evidence …`.
    pub line: String,
    /// `cut 42|43 splits it; its seam fired`.
    pub short: String,
}

/// `✓` or `✗`.
pub fn mark(answered: bool) -> &'static str {
    if answered { "✓" } else { "✗" }
}

/// The verdict of `question` on `trace`, ran on `open`.
pub fn gold_line(
    question: &Question,
    trace: &seamscope::retrieve::Trace,
    open: &OpenCorpus,
) -> GoldLine {
    let verdict = judge(question, trace, &open.layout);
    let reason = verdict.reason(&|s| open.seam_label(s));
    let line = format!(
        "{} · answered with Seams {} · without {} — {reason}",
        seamscope::text::safe(&question.id),
        mark(verdict.with_seams),
        mark(verdict.without_seams),
    );
    let short = verdict.short_reason(&|s| open.seam_label(s));
    GoldLine {
        id: seamscope::text::safe(&question.id),
        verdict,
        line,
        short,
    }
}
