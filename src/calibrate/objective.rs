//! The measured objective: what each candidate margin does to the context a user sends.
//!
//! The white paper's percentile rule counts fires. It does not look at what a fire does: a fire
//! over an unsplit fact near a cut still brings the chunk that holds the fact (it costs a slot,
//! not a miss), while a fire that is *not* made over a split fact loses half of it. So the
//! recommendation here comes from the quantity users care about. Every question is searched once
//! (its [`QueryInput`]); then for each candidate `m` the pure stages run again at the user's
//! budget and the context is scored against the question's evidence:
//!
//! - **failure**: the context does not hold every byte of the evidence;
//! - **tokens sent**, **fires** (seams the budget fill reached that added a chunk),
//!   **false fires** (the evidence does not cross that seam's cut) and **wasted fires** (one of
//!   the two chunks holds none of the evidence).
//!
//! "Seams off" is the real chunks-only retrieval (dense and BM25 over chunks alone, fused), filled
//! to the same budget: what a user without Seams gets.
//!
//! The recommended `m` is the candidate with the fewest failures; ties go to the larger `m`
//! (fewer fires, less waste). Each point carries a 95% interval and a paired sign test against
//! the best point, so two margins whose difference is noise are shown as such. The verdict says
//! Seams helps only when its best margin fails less than chunks-only beyond noise, and says the
//! corpus lies outside Seams' setting only when its best margin does not fail less at all.

use serde::{Deserialize, Serialize};

use super::interval::{Interval, NOISE_P, paired, wilson};
use crate::chunk::ChunkId;
use crate::corpus::{DocId, Span};
use crate::eval::metrics::covered;
pub use crate::export::provenance::{Benefit, PairedDiff};
use crate::layout::Layout;
use crate::retrieve::{
    BudgetAction, EntryRef, QueryInput, QuerySettings, QuerySettingsError, Trace, replan,
};

/// The largest margin scored by default (the candidates are `0..=DEFAULT_MAX_M`).
pub const DEFAULT_MAX_M: crate::settings::Margin = 30;

/// The largest candidate margin a calibration may be asked to score: a part of the margins
/// settings accept ([`crate::settings::M_RANGE`]).
pub const MAX_M_RANGE: std::ops::RangeInclusive<crate::settings::Margin> = 1..=1000;

/// The default candidate margins: every `m` from 0 to [`DEFAULT_MAX_M`].
pub fn default_candidates() -> Vec<u32> {
    (0..=DEFAULT_MAX_M).collect()
}

/// What a question needs in its context: spans of one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The document.
    pub doc: DocId,
    /// Byte spans, each needed whole.
    pub spans: Vec<Span>,
}

impl Evidence {
    /// The gold spans of a question from a question set.
    pub fn of(q: &crate::eval::questions::Question) -> Evidence {
        Evidence {
            doc: q.doc,
            spans: q.spans.clone(),
        }
    }

    /// Whether a cut at byte `cut` of `doc` splits a span of this evidence.
    pub fn crossed_by(&self, doc: DocId, cut: usize) -> bool {
        doc == self.doc && self.spans.iter().any(|s| s.start < cut && cut < s.end)
    }

    /// Whether any cut of `layout` splits the evidence.
    pub fn crosses_a_cut(&self, layout: &Layout) -> bool {
        layout.seams.iter().any(|s| self.crossed_by(s.doc, s.cut))
    }

    /// Whether the chunks' spans, together, hold every byte of the evidence.
    pub fn held_by(&self, chunks: &[ChunkId], layout: &Layout) -> bool {
        let returned: Vec<Span> = chunks
            .iter()
            .map(|&c| layout.chunk(c))
            .filter(|c| c.doc == self.doc)
            .map(|c| c.span)
            .collect();
        self.spans.iter().all(|s| covered(*s, &returned))
    }

    fn touches(&self, chunk: ChunkId, layout: &Layout) -> bool {
        let c = layout.chunk(chunk);
        c.doc == self.doc && self.spans.iter().any(|s| c.span.overlaps(s))
    }
}

/// A question searched once: all that rescoring it at any `m` or budget needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchedQuestion {
    /// Search lists (with seams and chunks-only) and reranker scores.
    pub input: QueryInput,
    /// What the context must hold.
    pub evidence: Evidence,
}

/// What one context did for one question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// The context held the whole evidence.
    pub answered: bool,
    /// Tokens of the context.
    pub tokens_sent: u64,
    /// Fired seams the budget fill reached that added at least one chunk.
    pub fires: u32,
    /// Of those, fires whose cut does not split the evidence.
    pub false_fires: u32,
    /// Of those, fires where a chunk it brought holds none of the evidence.
    pub wasted_fires: u32,
}

fn chunk_tokens(layout: &Layout, chunks: &[ChunkId]) -> u64 {
    chunks
        .iter()
        .map(|&c| u64::from(layout.chunk(c).tokens))
        .sum()
}

/// Score the Seams side of a trace against the evidence.
pub fn seams_outcome(trace: &Trace, evidence: &Evidence, layout: &Layout) -> Outcome {
    let mut out = Outcome {
        answered: evidence.held_by(&trace.fill.chunks, layout),
        tokens_sent: trace.tokens_sent,
        ..Outcome::default()
    };
    for step in &trace.fill.steps {
        let (BudgetAction::AddedPair { added }, EntryRef::Seam(seam)) = (&step.action, step.entry)
        else {
            continue;
        };
        if added.is_empty() {
            continue;
        }
        let s = layout.seam(seam);
        out.fires += 1;
        if !evidence.crossed_by(s.doc, s.cut) {
            out.false_fires += 1;
        }
        // Waste: a chunk the fire brought holds none of the evidence (a side drop brings one).
        let brought: Vec<ChunkId> = match trace.side_drops.iter().find(|d| d.seam == seam) {
            Some(d) if d.dropped_chunk == s.left => vec![s.right],
            Some(_) => vec![s.left],
            None => vec![s.left, s.right],
        };
        if brought.iter().any(|&c| !evidence.touches(c, layout)) {
            out.wasted_fires += 1;
        }
    }
    out
}

/// Score the chunks-only side of a trace ("Seams off"); `None` when it was not run.
pub fn chunks_only_outcome(trace: &Trace, evidence: &Evidence, layout: &Layout) -> Option<Outcome> {
    let run = trace.without_seams.retrieval.as_ref()?;
    Some(Outcome {
        answered: evidence.held_by(&run.fill.chunks, layout),
        tokens_sent: chunk_tokens(layout, &run.fill.chunks),
        ..Outcome::default()
    })
}

impl PairedDiff {
    /// `this` against `other`, question by question (`true`: answered).
    pub fn of(this: &[bool], other: &[bool]) -> PairedDiff {
        let (gained, lost, p) = paired(this, other);
        PairedDiff {
            gained,
            lost,
            p,
            noise: p >= NOISE_P,
        }
    }
}

/// One point of the failure-vs-m curve (or "Seams off").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The margin; `None` for "Seams off" (chunks-only retrieval).
    pub m: Option<u32>,
    /// Questions scored.
    pub questions: usize,
    /// Questions whose context missed part of the evidence.
    pub failures: usize,
    /// `failures / questions`.
    pub failure_rate: f64,
    /// 95% Wilson interval of the failure rate.
    pub interval: Interval,
    /// Mean tokens sent per question.
    pub mean_tokens: f64,
    /// Mean fires per question.
    pub fires_per_question: f64,
    /// Mean false fires per question.
    pub false_fires_per_question: f64,
    /// Mean wasted fires per question.
    pub wasted_fires_per_question: f64,
    /// Against the recommended point (absent on the recommended point itself).
    pub vs_best: Option<PairedDiff>,
}

impl CurvePoint {
    fn of(m: Option<u32>, outcomes: &[Outcome]) -> CurvePoint {
        let n = outcomes.len();
        let nf = n.max(1) as f64;
        let failures = outcomes.iter().filter(|o| !o.answered).count();
        let sum = |f: fn(&Outcome) -> u64| outcomes.iter().map(f).sum::<u64>() as f64 / nf;
        CurvePoint {
            m,
            questions: n,
            failures,
            failure_rate: failures as f64 / nf,
            interval: wilson(failures, n),
            mean_tokens: sum(|o| o.tokens_sent),
            fires_per_question: sum(|o| u64::from(o.fires)),
            false_fires_per_question: sum(|o| u64::from(o.false_fires)),
            wasted_fires_per_question: sum(|o| u64::from(o.wasted_fires)),
            vs_best: None,
        }
    }

    /// The point's name: `m = 3` or `Seams off`.
    pub fn label(&self) -> String {
        match self.m {
            Some(m) => format!("m = {m}"),
            None => "Seams off".to_string(),
        }
    }
}

impl Benefit {
    /// Whether Seams at its best margin fails fewer questions than chunks only (beyond noise or
    /// not): when the report speaks well of Seams, and so should say whether another strategy
    /// does as well.
    pub fn seams_fails_less(&self) -> bool {
        matches!(self, Benefit::Helps { .. } | Benefit::WithinNoise { .. })
    }

    /// One sentence for reports and screens.
    pub fn sentence(&self, best: Option<&CurvePoint>, off: Option<&CurvePoint>) -> String {
        let pct = |p: Option<&CurvePoint>| p.map_or(0.0, |p| p.failure_rate * 100.0);
        let (b, o) = (pct(best), pct(off));
        let m = best.and_then(|p| p.m).unwrap_or(0);
        match self {
            Benefit::Helps { diff } => format!(
                "Seams helps here against chunks only: at m = {m} it fails {b:.1}% against {o:.1}% without Seams \
                 ({} questions gained, {} lost; sign test p = {:.3}).",
                diff.gained, diff.lost, diff.p
            ),
            Benefit::WithinNoise { diff } => format!(
                "Seams at m = {m} fails {b:.1}% against {o:.1}% without Seams, but the difference \
                 is within noise on this sample ({} gained, {} lost; p = {:.2}): measure more \
                 questions before relying on it.",
                diff.gained, diff.lost, diff.p
            ),
            Benefit::OutsideSetting {
                seams_failures,
                off_failures,
                diff,
            } => format!(
                "On this sample the corpus lies outside the setting Seams is designed for: at its \
                 best margin (m = {m}) Seams misses {seams_failures} questions and chunks-only \
                 retrieval {off_failures} ({} gained, {} lost; sign test p = {:.2}).",
                diff.gained, diff.lost, diff.p
            ),
            Benefit::Unknown => "No chunks-only run to compare with.".to_string(),
        }
    }
}

/// The measured failure-vs-m curve and the recommendation it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginCurve {
    /// The budget every point was filled to, in chunks.
    pub budget: usize,
    /// Questions scored.
    pub questions: usize,
    /// Questions whose evidence some cut splits.
    pub crossing: usize,
    /// One point per candidate margin, ascending.
    pub points: Vec<CurvePoint>,
    /// Chunks-only retrieval at the same budget, when it was run.
    pub off: Option<CurvePoint>,
    /// The margin with the fewest failures (ties to the larger); `None` with no questions.
    pub recommended_m: Option<u32>,
    /// Margins whose failures differ from the recommended one only by noise.
    pub indistinguishable: Vec<u32>,
    /// Whether Seams helps here, and how sure that is.
    pub benefit: Benefit,
    /// Seams (its margin chosen inside each resample, judged on the questions the resample left
    /// out) against Seams off, by paired bootstrap: "helps" needs Seams to win at least 90% of
    /// the resamples as well as the sign test, so picking the best of many margins cannot pass
    /// for a benefit. `None` without a chunks-only run.
    #[serde(default)]
    pub selection: Option<super::bootstrap::Verdict>,
    /// Each question's answered flag per point (`points` order, then "Seams off" last when it
    /// was run): what the summary rows are computed from.
    #[serde(skip)]
    pub answered: Vec<Vec<bool>>,
}

impl MarginCurve {
    /// The recommended point.
    pub fn best(&self) -> Option<&CurvePoint> {
        let m = self.recommended_m?;
        self.points.iter().find(|p| p.m == Some(m))
    }

    /// The point for margin `m`, if it was a candidate.
    pub fn at(&self, m: u32) -> Option<&CurvePoint> {
        self.points.iter().find(|p| p.m == Some(m))
    }

    /// The benefit verdict in one sentence.
    pub fn benefit_sentence(&self) -> String {
        let mut s = self.benefit.sentence(self.best(), self.off.as_ref());
        if let Some(why) = self
            .selection
            .as_ref()
            .and_then(|v| v.inconclusive.as_ref())
        {
            s.push_str(&format!(" Resampling concludes nothing: {why}."));
        } else if let Some(v) = &self.selection {
            let seams = v
                .contenders
                .iter()
                .find(|c| c.family == "seams")
                .map_or(0.0, |c| c.p_best);
            s.push_str(&format!(
                " Resampled with the margin chosen inside each of {} resamples and judged on the \
                 questions left out, Seams beats Seams off in {:.0}% of them (a clear benefit needs \
                 {:.0}%).",
                v.resamples,
                seams * 100.0,
                v.win_share * 100.0
            ));
        }
        s
    }
}

/// The candidate with the fewest failures; ties go to the larger `m`.
pub fn recommend(points: &[CurvePoint]) -> Option<u32> {
    points
        .iter()
        .filter_map(|p| p.m.map(|m| (p.failures, m)))
        .min_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, m)| m)
}

/// Score every searched question at each candidate margin and at "Seams off", all at
/// `settings.budget` (its `m` is ignored), and recommend a margin.
pub fn margin_curve(
    searched: &[SearchedQuestion],
    layout: &Layout,
    settings: &QuerySettings,
    candidates: &[u32],
) -> Result<MarginCurve, QuerySettingsError> {
    let mut candidates = candidates.to_vec();
    candidates.sort_unstable();
    candidates.dedup();
    let MarginOutcomes { per_m, off } = score_margins(searched, layout, settings, &candidates)?;
    let mut points: Vec<CurvePoint> = candidates
        .iter()
        .zip(&per_m)
        .map(|(&m, outcomes)| CurvePoint::of(Some(m), outcomes))
        .collect();
    let off_point = off
        .as_ref()
        .filter(|_| !searched.is_empty())
        .map(|off| CurvePoint::of(None, off));
    let answered_of = |o: &[Outcome]| o.iter().map(|o| o.answered).collect::<Vec<bool>>();
    let mut answered: Vec<Vec<bool>> = per_m.iter().map(|o| answered_of(o)).collect();
    if let (Some(_), Some(off)) = (&off_point, &off) {
        answered.push(answered_of(off));
    }
    let recommended_m = if searched.is_empty() {
        None
    } else {
        recommend(&points)
    };
    let best_index = recommended_m.and_then(|m| candidates.iter().position(|&c| c == m));
    let mut off_point = off_point;
    let indistinguishable = match best_index {
        Some(b) => compare_with_best(b, &candidates, &mut points, off_point.as_mut(), &answered),
        None => Vec::new(),
    };
    let selection = off_point
        .as_ref()
        .map(|off| seams_against_off(&points, off, &answered));
    let benefit = match (best_index, off_point.as_ref()) {
        (Some(b), Some(o)) => benefit_of(
            &points[b],
            o,
            (&answered[b], &answered[answered.len() - 1]),
            selection.as_ref(),
        ),
        _ => Benefit::Unknown,
    };
    Ok(MarginCurve {
        budget: settings.budget,
        questions: searched.len(),
        crossing: searched
            .iter()
            .filter(|q| q.evidence.crosses_a_cut(layout))
            .count(),
        points,
        off: off_point,
        recommended_m,
        indistinguishable,
        benefit,
        selection,
        answered,
    })
}

/// Each question's outcome at every candidate margin, and with Seams off.
struct MarginOutcomes {
    /// Per candidate (in order), per question.
    per_m: Vec<Vec<Outcome>>,
    /// Per question with Seams off; `None` when some question's trace cannot say what chunks
    /// alone would have sent.
    off: Option<Vec<Outcome>>,
}

/// Score every searched question at each of `candidates` and with Seams off.
fn score_margins(
    searched: &[SearchedQuestion],
    layout: &Layout,
    settings: &QuerySettings,
    candidates: &[u32],
) -> Result<MarginOutcomes, QuerySettingsError> {
    let mut per_m: Vec<Vec<Outcome>> = vec![Vec::with_capacity(searched.len()); candidates.len()];
    let mut off: Vec<Outcome> = Vec::with_capacity(searched.len());
    let mut off_complete = true;
    layout.with_lookups(|lookups| -> Result<(), QuerySettingsError> {
        for q in searched {
            for (i, &m) in candidates.iter().enumerate() {
                let trace = replan(&q.input, &QuerySettings { m, ..*settings }, lookups)?;
                per_m[i].push(seams_outcome(&trace, &q.evidence, layout));
                if i == 0 {
                    match chunks_only_outcome(&trace, &q.evidence, layout) {
                        Some(o) => off.push(o),
                        None => off_complete = false,
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(MarginOutcomes {
        per_m,
        off: off_complete.then_some(off),
    })
}

/// Every other point (and Seams off, when scored: `answered`'s last row) compared with the
/// best point `b`, question by question; returns the margins the comparison cannot tell from
/// the best.
fn compare_with_best(
    b: usize,
    candidates: &[u32],
    points: &mut [CurvePoint],
    off_point: Option<&mut CurvePoint>,
    answered: &[Vec<bool>],
) -> Vec<u32> {
    let best = answered[b].clone();
    let mut indistinguishable = Vec::new();
    for (i, p) in points.iter_mut().enumerate() {
        if i != b {
            let diff = PairedDiff::of(&answered[i], &best);
            if diff.noise {
                indistinguishable.push(candidates[i]);
            }
            p.vs_best = Some(diff);
        }
    }
    if let Some(o) = off_point {
        o.vs_best = Some(PairedDiff::of(&answered[answered.len() - 1], &best));
    }
    indistinguishable
}

/// The resampled verdict of Seams (its margin tuned inside every resample) against Seams off
/// (`answered`'s last row).
fn seams_against_off(
    points: &[CurvePoint],
    off: &CurvePoint,
    answered: &[Vec<bool>],
) -> super::bootstrap::Verdict {
    let failed: Vec<Vec<bool>> = answered
        .iter()
        .map(|a| a.iter().map(|x| !x).collect())
        .collect();
    let labels: Vec<String> = points
        .iter()
        .map(CurvePoint::label)
        .chain(std::iter::once("Seams off".to_string()))
        .collect();
    let tokens: Vec<f64> = points
        .iter()
        .chain(std::iter::once(off))
        .map(|p| p.mean_tokens)
        .collect();
    let candidates: Vec<super::bootstrap::Candidate<'_>> = failed
        .iter()
        .zip(&labels)
        .zip(&tokens)
        .enumerate()
        .map(|(i, ((f, l), t))| super::bootstrap::Candidate {
            label: l,
            family: if i < points.len() { "seams" } else { "none" },
            failed: f,
            mean_tokens: *t,
        })
        .collect();
    super::bootstrap::verdict(&candidates, super::bootstrap::DEFAULT_RESAMPLES, 0)
}

/// Whether the best margin helps against Seams off: not at this setting when it fails as often,
/// within noise when the paired difference (of `answered`: best, off) or the resampled
/// `selection` says so, else helps.
fn benefit_of(
    best: &CurvePoint,
    off: &CurvePoint,
    (best_answered, off_answered): (&[bool], &[bool]),
    selection: Option<&super::bootstrap::Verdict>,
) -> Benefit {
    let seams_clear = selection.is_some_and(|v| {
        v.winner.is_some() && v.contenders.first().is_some_and(|c| c.family == "seams")
    });
    let diff = PairedDiff::of(best_answered, off_answered);
    if best.failures >= off.failures {
        Benefit::OutsideSetting {
            seams_failures: best.failures,
            off_failures: off.failures,
            diff,
        }
    } else if diff.noise || !seams_clear {
        Benefit::WithinNoise { diff }
    } else {
        Benefit::Helps { diff }
    }
}

#[cfg(test)]
mod margin_range_tests {
    use super::*;

    #[test]
    fn the_calibrated_margins_are_margins_settings_accept() {
        let m = crate::settings::M_RANGE;
        assert!(m.contains(MAX_M_RANGE.start()) && m.contains(MAX_M_RANGE.end()));
        assert!(MAX_M_RANGE.contains(&DEFAULT_MAX_M));
    }
}
