//! What a tuning run scores: a gold question set, the passages a calibration asked, or fresh
//! passages drawn uniformly over the corpus and asked as offline keyword questions.

use super::TuneQuestion;
use crate::calibrate::objective::Evidence;
use crate::calibrate::passage::{PassageOptions, sample_passages};
use crate::calibrate::{CalibrationReport, KeywordQuestions, QuestionGenerator};
use crate::corpus::Corpus;
use crate::eval::questions::Question;
use crate::layout::Layout;

/// A question set's questions with their gold spans, and the run's source line naming `file`.
pub fn gold_questions(file: &str, questions: &[Question]) -> (Vec<TuneQuestion>, String) {
    let questions: Vec<TuneQuestion> = questions.iter().map(TuneQuestion::of).collect();
    let source = format!("{} questions of {file} with gold spans", questions.len());
    (questions, source)
}

/// Offline keyword questions over `count` passages drawn uniformly over `layout` with `seed`,
/// and the run's source line.
pub fn passage_questions(
    corpus: &Corpus,
    layout: &Layout,
    count: usize,
    seed: u64,
) -> (Vec<TuneQuestion>, String) {
    let options = PassageOptions {
        count,
        seed,
        ..PassageOptions::default()
    };
    let drawn = sample_passages(corpus, layout, &options);
    let mut generator = KeywordQuestions;
    let questions: Vec<TuneQuestion> = drawn
        .passages
        .iter()
        .filter_map(|p| {
            let text = corpus.doc(p.doc).slice(p.span);
            let q = generator.passage_question(text).ok()?;
            Some(TuneQuestion {
                text: q,
                evidence: Evidence {
                    doc: p.doc,
                    spans: vec![p.span],
                },
            })
        })
        .collect();
    let source = format!(
        "{} passages of 100-400 tokens drawn uniformly over the corpus (seed {seed}), each asked as an offline keyword question",
        questions.len(),
    );
    (questions, source)
}

/// The questions a calibration scored: the gold set it ran on, or the passages it asked.
pub fn calibration_questions(
    report: &CalibrationReport,
    gold: Option<&[Question]>,
    corpus: &Corpus,
) -> Vec<TuneQuestion> {
    match gold {
        Some(questions) => questions.iter().map(TuneQuestion::of).collect(),
        None => report
            .passage_samples
            .iter()
            .filter_map(|p| TuneQuestion::of_passage(p, corpus))
            .collect(),
    }
}
