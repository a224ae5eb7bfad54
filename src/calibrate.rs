//! Calibrating the fire margin `m` without hand-labelled data (white paper, section 3.2).
//!
//! 1. [`sample`]: draw prose sentences that lie wholly inside one chunk but inside its seam
//!    window (*unsplit*), and sentences that cross a cut (*crossing*).
//! 2. [`generate`] / [`llm`]: have a [`QuestionGenerator`] write a question each sentence answers.
//! 3. Run each question through retrieval and [`measure`] the seam's head start over the chunk
//!    holding the answer: `pos(chunk) - pos(seam)` in the fused ranking (for a crossing sentence,
//!    over the better-ranked of its two chunks).
//! 4. [`stats`] and [`recommend`]: percentiles, shared histogram bins, the recommended `m`
//!    (just above the unsplit 90th percentile), the working range, the overlap warning.
//! 5. [`report`]: all of it as plain data.
//!
//! The engine never prints: progress goes through a callback, and the result is a
//! [`CalibrationReport`] for the CLI, `--json` and the TUI alike.

pub mod generate;
pub mod gold;
pub mod llm;
pub mod measure;
pub mod recommend;
pub mod report;
pub mod sample;
pub mod stats;

pub use generate::{GenError, KeywordQuestions, QuestionGenerator};
pub use gold::calibrate_from_questions;
pub use llm::{LlmConfig, LlmQuestions};
pub use measure::{HeadStart, crossing_head_start, head_start};
pub use recommend::{Verdict, WorkingRange, judge, recommend_m};
pub use report::{
    CalibrationReport, CalibrationSetup, CalibrationWarning, Distribution, SampleRecord,
    WarningKind,
};
pub use sample::{SampleKind, SampleOptions, SampleSet, SampledSentence, sample_sentences};
pub use stats::{Bin, BinSpec, Spread, percentile};

use crate::corpus::Corpus;
use crate::layout::Layout;
use crate::retrieve::{FusedEntry, QuerySettings};
use crate::session::{Engine, EngineError, OpenCorpus};

/// Anything that stops a calibration.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// Retrieval failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The question generator cannot work (unreachable, timing out, answering nonsense).
    #[error("question generator {generator} failed on a sentence from {doc}: {source}")]
    Generator {
        /// The generator's name.
        generator: String,
        /// The document of the sentence it failed on.
        doc: String,
        /// What went wrong.
        source: GenError,
    },
    /// The progress callback asked to stop.
    #[error("calibration cancelled")]
    Cancelled,
}

/// How far a calibration has come: questions asked so far, of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalibrationProgress {
    /// The kind of the sentence just done.
    pub kind: SampleKind,
    /// Sentences done, both kinds together.
    pub done: usize,
    /// Sentences drawn, both kinds together.
    pub total: usize,
}

/// What a calibration samples and how it retrieves.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CalibrateOptions {
    /// The draw.
    pub sample: SampleOptions,
    /// Retrieval settings (depth and `c` shape the fused ranking; `m` and the budget do not
    /// matter here).
    pub query: QuerySettings,
}

/// Calibrate `m` on an open corpus with the engine's model and indexes.
///
/// `progress` is called after each sentence; returning `false` cancels.
pub fn calibrate(
    engine: &mut Engine,
    open: &OpenCorpus,
    generator: &mut dyn QuestionGenerator,
    options: &CalibrateOptions,
    progress: &mut dyn FnMut(CalibrationProgress) -> bool,
) -> Result<CalibrationReport, CalibrateError> {
    let query = options.query;
    let mut search = |question: &str| -> Result<Vec<FusedEntry>, EngineError> {
        Ok(engine.ask(open, question, &query)?.0.fused)
    };
    calibrate_with(
        &open.corpus,
        &open.layout,
        generator,
        options,
        &mut search,
        progress,
    )
}

/// `text` with every run of whitespace (line breaks included) as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Calibrate with any search that turns a question into a fused ranking (tests, other engines).
pub fn calibrate_with(
    corpus: &Corpus,
    layout: &Layout,
    generator: &mut dyn QuestionGenerator,
    options: &CalibrateOptions,
    search: &mut dyn FnMut(&str) -> Result<Vec<FusedEntry>, EngineError>,
    progress: &mut dyn FnMut(CalibrationProgress) -> bool,
) -> Result<CalibrationReport, CalibrateError> {
    let set = sample_sentences(corpus, layout, &options.sample);
    let total = set.unsplit.len() + set.crossing.len();
    let mut records = Vec::with_capacity(total);
    for sampled in set.unsplit.iter().chain(&set.crossing) {
        let doc = corpus.doc(sampled.doc);
        let seam = layout.seam(sampled.seam);
        // Hard-wrapped lines read as one line, for the generator and the report alike.
        let sentence = one_line(doc.slice(sampled.span));
        let mut record = SampleRecord {
            kind: sampled.kind,
            doc: doc.path.clone(),
            start: sampled.span.start,
            end: sampled.span.end,
            seam: seam.id.0,
            seam_chunks: (seam.left.0, seam.right.0),
            holder: sampled.holder.map(|c| c.0),
            sentence: sentence.clone(),
            question: None,
            head_start: None,
            skipped: None,
        };
        match generator.question(&sentence, &one_line(doc.slice(sampled.context))) {
            Ok(question) => {
                let fused = search(&question)?;
                record.head_start = Some(match sampled.holder {
                    Some(chunk) => head_start(&fused, seam.id, chunk),
                    None => crossing_head_start(&fused, seam.id, seam.left, seam.right),
                });
                record.question = Some(question);
            }
            Err(e) if e.is_fatal() => {
                return Err(CalibrateError::Generator {
                    generator: generator.name(),
                    doc: doc.path.clone(),
                    source: e,
                });
            }
            Err(e) => record.skipped = Some(e.to_string()),
        }
        records.push(record);
        let step = CalibrationProgress {
            kind: sampled.kind,
            done: records.len(),
            total,
        };
        if !progress(step) {
            return Err(CalibrateError::Cancelled);
        }
    }
    let setup = CalibrationSetup {
        corpus: corpus.root.display().to_string(),
        chunker: layout.chunker.clone(),
        k: layout.k,
        depth: options.query.depth,
        rrf_c: options.query.rrf_c,
        samples_per_kind: options.sample.per_kind,
        seed: options.sample.seed,
        min_words: options.sample.min_words,
        generator: generator.name(),
        generator_description: generator.describe(),
    };
    Ok(CalibrationReport::build(
        setup,
        (set.unsplit_candidates, set.crossing_candidates),
        records,
    ))
}
