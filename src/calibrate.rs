//! Calibrating the fire margin `m`: recommended from what each margin does to the context, with
//! the white paper's head-start rule (section 3.2) kept beside it as a diagnostic.
//!
//! **The recommendation** ([`objective`]): questions whose evidence is known run through the whole
//! pipeline once; then for every candidate `m` (0 to 30) and for "Seams off" (chunks-only
//! retrieval) the context at the user's budget is scored: does it hold the whole evidence, how
//! many tokens it sends, how many seams fired and how many of those fired falsely. The margin
//! with the fewest failures wins (ties to the larger; [`verdict`]). The questions come from a gold set
//! ([`gold`]) or, without one, from [`passage`]s of about 100–400 tokens drawn uniformly over the
//! corpus, each given a question by a [`QuestionGenerator`].
//!
//! **The diagnostic** (the paper's procedure):
//! 1. [`sample`]: draw prose sentences that lie wholly inside one chunk but inside its seam
//!    window (*unsplit*), and sentences that cross a cut (*crossing*).
//! 2. [`generate`] / [`llm`]: have a [`QuestionGenerator`] write a question each sentence answers.
//! 3. Run each question through retrieval and [`measure`] the seam's head start over the chunk
//!    holding the answer: `pos(chunk) - pos(seam)` in the fused ranking (for a crossing sentence,
//!    over the better-ranked of its two chunks).
//! 4. [`stats`] and [`recommend`]: percentiles, shared histogram bins, the paper rule's `m`
//!    (just above the unsplit 90th percentile), the working range, the overlap warning.
//! 5. [`report`]: all of it as plain data.
//!
//! The engine never prints: progress goes through a callback, and the result is a
//! [`CalibrationReport`] for the CLI, `--json` and the TUI alike.

pub mod alternative;
pub mod bootstrap;
pub mod generate;
pub mod gold;
pub mod interval;
pub mod llm;
pub mod measure;
pub mod objective;
pub mod passage;
pub mod provenance;
pub mod recommend;
pub mod report;
pub mod sample;
pub mod stats;
pub mod verdict;
pub mod warning;

pub use alternative::{Alternatives, FamilyStanding, Standing};
pub use generate::{GenError, KeywordQuestions, QuestionGenerator};
pub use gold::calibrate_from_questions;
pub use llm::{LlmConfig, LlmQuestions};
pub use measure::{HeadStart, crossing_head_start, head_start};
pub use objective::{
    Benefit, CurvePoint, Evidence, MarginCurve, Outcome, PairedDiff, SearchedQuestion, margin_curve,
};
pub use passage::{PassageOptions, PassageSet, sample_passages};
pub use recommend::{PaperRule, WorkingRange, judge, recommend_m};
pub use report::{
    CalibrationReport, CalibrationSetup, CalibrationWarning, Distribution, Measured, PassageRecord,
    PassageSummary, SampleRecord, Verdict, WarningKind,
};
pub use sample::{SampleKind, SampleOptions, SampleSet, SampledSentence, sample_sentences};
pub use stats::{Bin, BinSpec, Spread, percentile};

use crate::corpus::Corpus;
use crate::eval::questions::Question;
use crate::layout::Layout;
use crate::retrieve::{QuerySettings, QuerySettingsError, Trace};
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
    /// A setting of the measured objective cannot be used.
    #[error(transparent)]
    Settings(#[from] QuerySettingsError),
}

/// Which questions a calibration is asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalibrationStage {
    /// Sampled passages, for the measured curve.
    Passages,
    /// Head-start sentences of one kind, for the diagnostic.
    HeadStarts(SampleKind),
    /// A gold question set (both at once).
    Gold,
}

/// How far a calibration has come: questions asked so far, of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalibrationProgress {
    /// What is being asked.
    pub stage: CalibrationStage,
    /// Questions done, all stages together.
    pub done: usize,
    /// Questions drawn, all stages together.
    pub total: usize,
}

/// What a calibration samples, how it retrieves and which margins it scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrateOptions {
    /// The head-start sentence draw (diagnostic).
    pub sample: SampleOptions,
    /// The passage draw (the measured objective, without gold).
    pub passages: PassageOptions,
    /// Retrieval settings: depth and `c` shape the fused ranking, the budget is the one every
    /// margin is scored at; `m` is what is being chosen.
    pub query: QuerySettings,
    /// Candidate margins are `0..=max_m`.
    pub max_m: u32,
}

impl Default for CalibrateOptions {
    fn default() -> Self {
        Self {
            sample: SampleOptions::default(),
            passages: PassageOptions::default(),
            query: QuerySettings::default(),
            max_m: objective::DEFAULT_MAX_M,
        }
    }
}

impl CalibrateOptions {
    /// The candidate margins.
    pub fn candidates(&self) -> Vec<u32> {
        (0..=self.max_m).collect()
    }
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
    let mut search = |question: &str| -> Result<Trace, EngineError> {
        Ok(engine.ask(open, question, &query)?.0)
    };
    let mut report = calibrate_with(
        &open.corpus,
        &open.layout,
        generator,
        options,
        &mut search,
        progress,
    )?;
    report.setup.embedder = Some(engine.embedder.identity().to_string());
    Ok(report)
}

/// What a calibration asks: a gold question set, or passages and sentences drawn from the corpus
/// and given questions by a generator.
pub enum CalibrationSource<'a> {
    /// A question set with gold evidence: every question scores the curve.
    Gold {
        /// Where the questions came from, as the report names it (the file's path).
        name: &'a str,
        /// The questions.
        questions: &'a [Question],
    },
    /// Passages and sentences drawn under the options' seeds, asked by this generator.
    Sampled(&'a mut dyn QuestionGenerator),
}

/// Calibrate `m` on an open corpus, from either source: the one call every front end makes.
///
/// `progress` is called after each question; returning `false` cancels.
pub fn run(
    engine: &mut Engine,
    open: &OpenCorpus,
    source: CalibrationSource<'_>,
    options: &CalibrateOptions,
    progress: &mut dyn FnMut(CalibrationProgress) -> bool,
) -> Result<CalibrationReport, CalibrateError> {
    match source {
        CalibrationSource::Gold { name, questions } => {
            let query = options.query;
            let mut search = |q: &str| Ok(engine.ask(open, q, &query)?.0);
            let mut report = calibrate_from_questions(
                &open.corpus,
                &open.layout,
                questions,
                name,
                &query,
                options.max_m,
                &mut search,
                progress,
            )?;
            report.setup.embedder = Some(engine.embedder.identity().to_string());
            Ok(report)
        }
        CalibrationSource::Sampled(generator) => {
            calibrate(engine, open, generator, options, progress)
        }
    }
}

/// `text` with every run of whitespace (line breaks included) as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Calibrate with any search that turns a question into a trace (tests, other engines).
pub fn calibrate_with(
    corpus: &Corpus,
    layout: &Layout,
    generator: &mut dyn QuestionGenerator,
    options: &CalibrateOptions,
    search: &mut dyn FnMut(&str) -> Result<Trace, EngineError>,
    progress: &mut dyn FnMut(CalibrationProgress) -> bool,
) -> Result<CalibrationReport, CalibrateError> {
    let drawn = sample_passages(corpus, layout, &options.passages);
    let set = sample_sentences(corpus, layout, &options.sample);
    let total = drawn.passages.len() + set.unsplit.len() + set.crossing.len();
    let mut done = 0;
    let mut step = |stage, progress: &mut dyn FnMut(CalibrationProgress) -> bool| {
        done += 1;
        if progress(CalibrationProgress { stage, done, total }) {
            Ok(())
        } else {
            Err(CalibrateError::Cancelled)
        }
    };

    let (searched, passage_samples) =
        ask_passages(corpus, layout, &drawn, generator, search, &mut |stage| {
            step(stage, progress)
        })?;
    let records = measure_head_starts(corpus, layout, &set, generator, search, &mut |stage| {
        step(stage, progress)
    })?;

    let curve = margin_curve(&searched, layout, &options.query, &options.candidates())?;
    let passages = passage_summary(&drawn, &passage_samples, &curve, options);
    let setup = CalibrationSetup {
        corpus: corpus.root.display().to_string(),
        embedder: None,
        chunker: layout.chunker.clone(),
        k: layout.k,
        depth: options.query.depth,
        rrf_c: options.query.rrf_c,
        budget: options.query.budget,
        objective_source: format!(
            "{} passages of {}-{} tokens drawn uniformly over the corpus ({} split by a cut), \
             each asked by {}",
            searched.len(),
            options.passages.min_tokens,
            options.passages.max_tokens,
            curve.crossing,
            generator.name()
        ),
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
        Measured {
            curve,
            passages: Some(passages),
            passage_samples,
        },
    ))
}

/// A generator failure that stops the calibration (not one question's skip).
fn fatal(generator: &dyn QuestionGenerator, e: GenError, path: &str) -> CalibrateError {
    CalibrateError::Generator {
        generator: generator.name(),
        doc: path.to_string(),
        source: e,
    }
}

/// The measured objective: one question per drawn passage, searched once.
fn ask_passages(
    corpus: &Corpus,
    layout: &Layout,
    drawn: &PassageSet,
    generator: &mut dyn QuestionGenerator,
    search: &mut dyn FnMut(&str) -> Result<Trace, EngineError>,
    step: &mut dyn FnMut(CalibrationStage) -> Result<(), CalibrateError>,
) -> Result<(Vec<SearchedQuestion>, Vec<PassageRecord>), CalibrateError> {
    // The measured objective: one question per passage, searched once.
    let mut searched = Vec::new();
    let mut passage_samples = Vec::with_capacity(drawn.passages.len());
    for p in &drawn.passages {
        let doc = corpus.doc(p.doc);
        let evidence = Evidence {
            doc: p.doc,
            spans: vec![p.span],
        };
        let mut record = PassageRecord {
            doc: doc.path.clone(),
            start: p.span.start,
            end: p.span.end,
            tokens: p.tokens,
            crosses_cut: evidence.crosses_a_cut(layout),
            question: None,
            skipped: None,
        };
        match generator.passage_question(&one_line(doc.slice(p.span))) {
            Ok(question) => {
                let trace = search(&question)?;
                searched.push(SearchedQuestion {
                    input: trace.input,
                    evidence,
                });
                record.question = Some(question);
            }
            Err(e) if e.is_fatal() => return Err(fatal(generator, e, &doc.path)),
            Err(e) => record.skipped = Some(e.to_string()),
        }
        passage_samples.push(record);
        step(CalibrationStage::Passages)?;
    }
    Ok((searched, passage_samples))
}

/// The diagnostic: the head start of every unsplit and crossing sentence's seam.
fn measure_head_starts(
    corpus: &Corpus,
    layout: &Layout,
    set: &SampleSet,
    generator: &mut dyn QuestionGenerator,
    search: &mut dyn FnMut(&str) -> Result<Trace, EngineError>,
    step: &mut dyn FnMut(CalibrationStage) -> Result<(), CalibrateError>,
) -> Result<Vec<SampleRecord>, CalibrateError> {
    // The diagnostic: head starts of unsplit and crossing sentences.
    let mut records = Vec::with_capacity(set.unsplit.len() + set.crossing.len());
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
                let fused = search(&question)?.fused;
                record.head_start = Some(match sampled.holder {
                    Some(chunk) => head_start(&fused, seam.id, chunk),
                    None => crossing_head_start(&fused, seam.id, seam.left, seam.right),
                });
                record.question = Some(question);
            }
            Err(e) if e.is_fatal() => return Err(fatal(generator, e, &doc.path)),
            Err(e) => record.skipped = Some(e.to_string()),
        }
        records.push(record);
        step(CalibrationStage::HeadStarts(sampled.kind))?;
    }
    Ok(records)
}

/// What the passage draw gave: how many were scored, skipped or repeated, and their lengths.
fn passage_summary(
    drawn: &PassageSet,
    passage_samples: &[PassageRecord],
    curve: &MarginCurve,
    options: &CalibrateOptions,
) -> PassageSummary {
    let mut lengths: Vec<usize> = drawn
        .passages
        .iter()
        .zip(passage_samples)
        .filter(|(_, r)| r.question.is_some())
        .map(|(p, _)| p.tokens)
        .collect();
    lengths.sort_unstable();
    PassageSummary {
        draws: options.passages.count,
        measured: passage_samples
            .iter()
            .filter(|r| r.question.is_some())
            .count(),
        skipped: passage_samples
            .iter()
            .filter(|r| r.skipped.is_some())
            .count(),
        repeats: drawn.repeats,
        too_long: drawn.too_long,
        crossing: curve.crossing,
        tokens: (
            lengths.first().copied().unwrap_or(0),
            lengths.get(lengths.len() / 2).copied().unwrap_or(0),
            lengths.last().copied().unwrap_or(0),
        ),
        target: (options.passages.min_tokens, options.passages.max_tokens),
    }
}
