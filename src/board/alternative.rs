//! The quick board's non-Seams families beside a calibration's verdict: when the calibration says
//! Seams fails fewer questions than chunks only, the same questions are scored on overlap
//! (10/15/20/25%), windows (256/128, 128/64), neighbours ±1 and SCAR at the same budget, and
//! [`crate::calibrate::alternative`] says whether one of them does as well or better, and at what
//! cost. The board prepares each strategy through the engine's vector cache, so a warm run embeds
//! nothing.

use crate::calibrate::CalibrationReport;
use crate::calibrate::alternative::{self, AltRow, Alternatives, Measured, SeamsSide};
use crate::calibrate::bootstrap::DEFAULT_RESAMPLES;
use crate::corpus::{Corpus, Span};
use crate::eval::questions::Question;
use crate::eval::run::SearchProgress;
use crate::session::{Engine, EngineError, OpenCorpus};
use crate::settings::Settings;

use super::{BoardOptions, Family, board};

/// The families the comparison scores: every family that fires no seams (chunks only is the
/// baseline; Seams is the calibration's).
pub fn families() -> Vec<Family> {
    super::CARDS
        .iter()
        .filter(|c| !c.fires_seams)
        .map(|c| c.family)
        .collect()
}

/// The quick board's knobs restricted to [`families`]; no board verdict (the comparison draws
/// its own, family by family against Seams).
pub fn options() -> BoardOptions {
    BoardOptions {
        families: families(),
        resamples: 0,
        ..BoardOptions::default()
    }
}

/// The questions `report` scored, in its order: the gold set it ran on, or the passages it asked
/// (each with its generated question, the passage as evidence).
pub fn scored_questions(
    report: &CalibrationReport,
    gold: Option<&[Question]>,
    corpus: &Corpus,
) -> Vec<Question> {
    if let Some(questions) = gold {
        return questions.to_vec();
    }
    report
        .passage_samples
        .iter()
        .filter_map(|p| {
            let doc = corpus.documents.iter().find(|d| d.path == p.doc)?;
            Some(Question {
                id: format!("passage {}:{}", p.doc, p.start),
                question: p.question.clone()?,
                doc: doc.id,
                spans: vec![Span::new(p.start, p.end)],
                tags: Vec::new(),
            })
        })
        .collect()
}

/// Score the non-Seams families on the questions `report` scored (`gold` when it ran on a gold
/// set) at its budget, depth and RRF constant, and compare them with its Seams curve.
/// `Ok(None)` when Seams does not fail less than chunks only there (nothing to weigh it
/// against), when the questions are not the report's (another count), or when `progress` stopped
/// it.
pub fn beside_seams(
    engine: &mut Engine,
    open: &OpenCorpus,
    report: &CalibrationReport,
    gold: Option<&[Question]>,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<Alternatives>, EngineError> {
    let curve = &report.objective;
    if !curve.benefit.seams_fails_less() {
        return Ok(None);
    }
    let questions = scored_questions(report, gold, &open.corpus);
    let Some(best) = curve
        .recommended_m
        .and_then(|m| curve.points.iter().position(|p| p.m == Some(m)))
    else {
        return Ok(None);
    };
    if questions.len() != curve.questions || curve.answered.len() < curve.points.len() {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let settings = Settings {
        budget: report.setup.budget,
        depth: report.setup.depth,
        rrf_c: report.setup.rrf_c,
        ..engine.settings.clone()
    };
    let source = format!("the {} questions the calibration scored", questions.len());
    let Some(b) = board(
        engine,
        open,
        &settings,
        &questions,
        &source,
        &options(),
        progress,
    )?
    else {
        return Ok(None);
    };
    let mut found = compare_board(curve, best, &open.layout, &b);
    if let Some(a) = found.as_mut() {
        a.seconds = started.elapsed().as_secs_f64();
    }
    Ok(found)
}

/// The board's rows (board family order) against the curve's margins (`best`: the recommended
/// one's index).
fn compare_board(
    curve: &crate::calibrate::MarginCurve,
    best: usize,
    layout: &crate::layout::Layout,
    b: &super::Board,
) -> Option<Alternatives> {
    let failed: Vec<Vec<bool>> = curve
        .answered
        .iter()
        .take(curve.points.len())
        .map(|a| a.iter().map(|x| !x).collect())
        .collect();
    let labels: Vec<String> = curve.points.iter().map(|p| p.label()).collect();
    let seams_vectors =
        (layout.chunks.len() + layout.seams.len()) as f64 / layout.chunks.len().max(1) as f64;
    let seams = SeamsSide {
        margins: curve
            .points
            .iter()
            .zip(&failed)
            .zip(&labels)
            .map(|((p, f), label)| AltRow {
                label,
                family: Family::Seams.name(),
                failed: f,
                mean_tokens: p.mean_tokens,
                vectors_vs_chunks: seams_vectors,
                duplicate_share: 0.0,
                stores_once: Family::Seams.card().stores_once,
            })
            .collect(),
        best,
    };
    // Board family order (the board's rows come best first).
    let mut ordered: Vec<&super::BoardRow> = b.rows.iter().collect();
    ordered.sort_by_key(|r| Family::ALL.iter().position(|f| *f == r.family));
    let rows: Vec<AltRow<'_>> = ordered
        .into_iter()
        .map(|r| AltRow {
            label: &r.label,
            family: r.family.name(),
            failed: &r.failed,
            mean_tokens: r.tokens,
            vectors_vs_chunks: r.vectors_vs_chunks,
            duplicate_share: r.duplicate_share,
            stores_once: r.stores_once,
        })
        .collect();
    let measured = Measured {
        chunks_only_failures: b
            .rows
            .iter()
            .find(|r| r.family == Family::None)
            .map_or(0, |r| r.failures),
        seams_vectors_vs_chunks: seams_vectors,
        seconds: b.seconds,
        embedded_texts: b.strategies.iter().map(|s| s.embedded_texts).sum(),
    };
    alternative::compare(&seams, &rows, measured, DEFAULT_RESAMPLES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comparison_scores_the_quick_boards_other_families_only() {
        let o = options();
        assert!(!o.families.contains(&Family::Seams));
        assert!(!o.families.contains(&Family::OverlapSeams));
        assert_eq!(o.overlaps, vec![10, 15, 20, 25]);
        assert_eq!(o.windows, vec![(256, 128), (128, 64)]);
        assert_eq!(o.resamples, 0, "the comparison draws its own verdict");
    }
}
