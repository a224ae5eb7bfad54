//! Calibrating `m` from a question set with gold evidence instead of sampled sentences.
//!
//! A question set written by people (paraphrased, with long evidence) says more about a corpus
//! than keyword questions built from single sentences. Its `boundary` questions are the crossing
//! sample: the head start of the seam whose cut splits the evidence, over the better-ranked of its
//! two chunks. Its `inside` and `edge` questions are the unsplit sample: the evidence lies in one
//! chunk, and the head start is that of the better-ranked seam at the chunk's own cuts over the
//! chunk (the seam that would fire falsely first). Other questions are left out of the
//! histograms and counted.
//!
//! The measured objective uses every question of the set: each runs through the pipeline once,
//! and its gold spans are the evidence the context must hold at each candidate margin.

use super::measure::{crossing_head_start, head_start};
use super::objective::{Evidence, SearchedQuestion, margin_curve};
use super::report::{CalibrationReport, CalibrationSetup, Measured, SampleRecord};
use super::sample::SampleKind;
use super::{CalibrateError, CalibrationProgress, CalibrationStage};
use crate::corpus::Corpus;
use crate::eval::questions::Question;
use crate::layout::Layout;
use crate::retrieve::{EntryRef, FusedEntry, QuerySettings, Trace, position_of};
use crate::session::EngineError;

/// What to measure for one question, if anything.
fn plan(layout: &Layout, q: &Question) -> Option<(SampleKind, Vec<u32>, Option<u32>)> {
    let seams_of_doc = || layout.seams.iter().filter(|s| s.doc == q.doc);
    if q.has_tag("boundary") {
        let seam =
            seams_of_doc().find(|s| q.spans.iter().any(|sp| sp.start < s.cut && s.cut < sp.end))?;
        return Some((SampleKind::Crossing, vec![seam.id.0], None));
    }
    if q.has_tag("inside") || q.has_tag("edge") {
        let first = q.spans.first()?;
        let holder = layout
            .chunks
            .iter()
            .find(|c| c.doc == q.doc && c.span.contains(first))?;
        let seams: Vec<u32> = seams_of_doc()
            .filter(|s| s.left == holder.id || s.right == holder.id)
            .map(|s| s.id.0)
            .collect();
        if seams.is_empty() {
            return None;
        }
        return Some((SampleKind::Unsplit, seams, Some(holder.id.0)));
    }
    None
}

/// Run every question of `questions` through `search` once, score the candidate margins
/// (`0..=max_m`) on all of them, measure head starts on the usable ones, and build the report.
#[allow(clippy::too_many_arguments)]
pub fn calibrate_from_questions(
    corpus: &Corpus,
    layout: &Layout,
    questions: &[Question],
    source: &str,
    query: &QuerySettings,
    max_m: u32,
    search: &mut dyn FnMut(&str) -> Result<Trace, EngineError>,
    progress: &mut dyn FnMut(CalibrationProgress) -> bool,
) -> Result<CalibrationReport, CalibrateError> {
    let total = questions.len();
    let (mut unsplit, mut crossing) = (0, 0);
    let mut records = Vec::new();
    let mut searched = Vec::with_capacity(total);
    for (done, q) in questions.iter().enumerate() {
        let trace = search(&q.question)?;
        let fused = trace.fused;
        searched.push(SearchedQuestion {
            input: trace.input,
            evidence: Evidence::of(q),
        });
        let stop = !progress(CalibrationProgress {
            stage: CalibrationStage::Gold,
            done: done + 1,
            total,
        });
        if stop {
            return Err(CalibrateError::Cancelled);
        }
        let Some(record) = head_start_record(corpus, layout, q, &fused) else {
            continue;
        };
        match record.kind {
            SampleKind::Unsplit => unsplit += 1,
            SampleKind::Crossing => crossing += 1,
        }
        records.push(record);
    }
    let candidates: Vec<u32> = (0..=max_m).collect();
    let curve = margin_curve(&searched, layout, query, &candidates)?;
    let generator_description = format!(
        "questions and gold evidence from {source}: {crossing} boundary questions are the crossing \
         sample (the seam whose cut splits the evidence, over the better-ranked of its two \
         chunks); {unsplit} inside/edge questions are the unsplit sample (the better-ranked seam at \
         the answer chunk's cuts, over that chunk). The other {} questions count only in the \
         measured curve, which uses all {} questions and their gold spans.",
        questions.len() - unsplit - crossing,
        questions.len()
    );
    let setup = CalibrationSetup {
        corpus: corpus.root.display().to_string(),
        embedder: None,
        chunker: layout.chunker.clone(),
        k: layout.k,
        depth: query.depth,
        rrf_c: query.rrf_c,
        budget: query.budget,
        objective_source: format!(
            "the {} questions of {source} with their gold spans ({} split by a cut)",
            questions.len(),
            curve.crossing
        ),
        samples_per_kind: unsplit.max(crossing),
        seed: 0,
        min_words: 0,
        generator: format!("question set {source}"),
        generator_description,
    };
    Ok(CalibrationReport::build(
        setup,
        (unsplit, crossing),
        records,
        Measured {
            curve,
            passages: None,
            passage_samples: Vec::new(),
        },
    ))
}

/// Question `q`'s sample record, when its answer sits at a seam: the head start of that seam
/// (for an unsplit question, the better-ranked of its chunk's seams) in the fused ranking.
fn head_start_record(
    corpus: &Corpus,
    layout: &Layout,
    q: &Question,
    fused: &[FusedEntry],
) -> Option<SampleRecord> {
    let (kind, seams, holder) = plan(layout, q)?;
    // For an unsplit question, the better-ranked of the chunk's seams.
    let seam = *seams
        .iter()
        .min_by_key(|&&s| {
            position_of(fused, EntryRef::Seam(crate::seam::SeamId(s))).unwrap_or(usize::MAX)
        })
        .unwrap_or(&seams[0]);
    let s = layout.seam(crate::seam::SeamId(seam));
    let measured = match holder {
        Some(chunk) => head_start(fused, s.id, crate::chunk::ChunkId(chunk)),
        None => crossing_head_start(fused, s.id, s.left, s.right),
    };
    let doc = corpus.doc(q.doc);
    // The span the record shows: the one the seam's cut splits, or the answer's first span.
    let span = q
        .spans
        .iter()
        .copied()
        .find(|sp| holder.is_none() && sp.start < s.cut && s.cut < sp.end)
        .unwrap_or(q.spans[0]);
    Some(SampleRecord {
        kind,
        doc: doc.path.clone(),
        start: span.start,
        end: span.end,
        seam,
        seam_chunks: (s.left.0, s.right.0),
        holder,
        sentence: doc
            .slice(span)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        question: Some(format!("[{}] {}", q.id, q.question)),
        head_start: Some(measured),
        skipped: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::fixed::FixedTokens;
    use crate::corpus::{DocId, Span};
    use crate::retrieve::FusedEntry;
    use crate::tokens::TokenOffsets;

    #[test]
    fn boundary_questions_cross_and_inside_questions_measure_their_chunks_seams() {
        // Three chunks of four words; cuts at bytes 20 and 40 (words are "wNN ").
        let text: String = (0..12).map(|i| format!("w{i:02} ")).collect();
        let corpus = Corpus::from_texts([("d.md", text.clone())]);
        let offsets = vec![TokenOffsets::of_words(&text)];
        let chunks = crate::chunk::chunk_corpus(&corpus, &offsets, &FixedTokens { tokens: 4 });
        let seams = crate::seam::build_seams(&corpus, &offsets, &chunks, 2);
        let layout = Layout {
            offsets,
            chunks,
            seams,
            chunker: "fixed-4".into(),
            k: 2,
            search: Default::default(),
            timings: Default::default(),
            given: None,
            store: Default::default(),
        };
        let q = |id: &str, span: Span, tag: &str| Question {
            id: id.into(),
            question: id.into(),
            doc: DocId(0),
            spans: vec![span],
            tags: vec![tag.into()],
        };
        let questions = vec![
            q("b", Span::new(12, 20), "boundary"),
            q("i", Span::new(20, 28), "inside"),
            q("x", Span::new(0, 4), "short"),
        ];
        let c = |i: u32| FusedEntry::given(EntryRef::Chunk(crate::chunk::ChunkId(i)));
        let s = |i: u32| FusedEntry::given(EntryRef::Seam(crate::seam::SeamId(i)));
        // Seam 0 (chunks 0|1) first, then chunks 1, 0; seam 1 (chunks 1|2) after chunk 1.
        let ranking = vec![s(0), c(1), s(1), c(0), c(2)];
        let settings = QuerySettings::default();
        let trace = layout.with_lookups(|l| {
            let input = crate::retrieve::QueryInput {
                question: "q".into(),
                ranking: crate::retrieve::RankingInput::Fused(ranking.clone()),
                chunks_only: None,
                rerank: Default::default(),
                side_scores: Vec::new(),
            };
            crate::retrieve::replan(&input, &settings, l).unwrap()
        });
        let report = calibrate_from_questions(
            &corpus,
            &layout,
            &questions,
            "q.jsonl",
            &settings,
            5,
            &mut |_| Ok(trace.clone()),
            &mut |_| true,
        )
        .unwrap();
        assert_eq!(
            report.samples.len(),
            2,
            "the short question without a tag is not in the histograms"
        );
        // ...but every question is in the measured curve, at m = 0..=5.
        assert_eq!(report.objective.questions, 3);
        assert_eq!(report.objective.points.len(), 6);
        let b = &report.samples[0];
        assert_eq!(b.kind, SampleKind::Crossing);
        // Seam 0 at 1, its better chunk (1) at 2: head start 1.
        assert_eq!(b.head_start.unwrap().value, 1);
        let i = &report.samples[1];
        assert_eq!(i.kind, SampleKind::Unsplit);
        assert_eq!(i.holder, Some(1));
        // Chunk 1's seams are 0 (at 1) and 1 (at 3): the better-ranked, seam 0, over chunk 1 (at 2).
        assert_eq!((i.seam, i.head_start.unwrap().value), (0, 1));
        assert!(
            report
                .setup
                .generator_description
                .contains("The other 1 questions")
        );
    }
}
