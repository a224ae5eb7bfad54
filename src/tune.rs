//! Tuning before deployment: a grid over chunk size × `k` × `m` × budget, scored on questions
//! with known evidence, ranked by failure rate with tokens sent and vectors as costs.
//!
//! Each chunk size is laid out once and each `k` re-derives only its seams
//! ([`Layout::with_k`]); opening its indexes embeds only the texts the vector cache lacks, so a
//! `k` change embeds only the new seam windows. Every question is searched once per layout and
//! kept; `m` and the budget are then rescored by the pure stages, with no search
//! ([`margin_curve`]). "Seams off" (chunks-only retrieval) is scored for every layout and budget
//! beside the margins.
//!
//! A row is on the **Pareto front** when no other row is at least as good on failure rate,
//! tokens sent and vectors and strictly better on one: the rows worth choosing between.

mod questions;
mod scan;

use std::time::Instant;

use serde::Serialize;

use crate::calibrate::interval::Interval;
use crate::calibrate::objective::{CurvePoint, Evidence, SearchedQuestion, margin_curve};
use crate::corpus::Corpus;
use crate::index::BuildProgress;
use crate::layout::Layout;
use crate::session::{Engine, EngineError, OpenCorpus};
use crate::settings::Settings;

pub use questions::{calibration_questions, gold_questions, passage_questions};
pub use scan::{K_SCAN, best_per_k, scan_k};

/// The values each knob takes in the grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneGrid {
    /// Tokens per chunk.
    pub chunk_tokens: Vec<usize>,
    /// Seam half-widths.
    pub ks: Vec<usize>,
    /// Fire margins.
    pub ms: Vec<u32>,
    /// Final budgets, in chunks.
    pub budgets: Vec<usize>,
    /// Side-drop thresholds (`None`: side drop off).
    pub side_drops: Vec<Option<f32>>,
}

impl TuneGrid {
    /// Grid points, Seams rows only (each layout and budget adds one "Seams off" row).
    pub fn points(&self) -> usize {
        self.chunk_tokens.len()
            * self.ks.len()
            * self.ms.len()
            * self.budgets.len()
            * self.side_drops.len().max(1)
    }
}

/// A question with the evidence its context must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuneQuestion {
    /// The question text.
    pub text: String,
    /// What the context must hold (byte spans, so every layout scores it the same way).
    pub evidence: Evidence,
}

impl TuneQuestion {
    /// A question from a question set, with its gold spans.
    pub fn of(q: &crate::eval::questions::Question) -> TuneQuestion {
        TuneQuestion {
            text: q.question.clone(),
            evidence: Evidence::of(q),
        }
    }

    /// A question an app's traces hold: no gold, so its context never fails; tuning on it gives
    /// only the costs (tokens sent and fires) on the real question distribution.
    pub fn traced(text: &str) -> TuneQuestion {
        TuneQuestion {
            text: text.to_string(),
            evidence: Evidence {
                doc: crate::corpus::DocId(0),
                spans: Vec::new(),
            },
        }
    }

    /// A passage a calibration asked about, with its question (`None` when it got none or its
    /// document is not in `corpus`).
    pub fn of_passage(
        record: &crate::calibrate::PassageRecord,
        corpus: &Corpus,
    ) -> Option<TuneQuestion> {
        let doc = corpus.documents.iter().find(|d| d.path == record.doc)?;
        Some(TuneQuestion {
            text: record.question.clone()?,
            evidence: Evidence {
                doc: doc.id,
                spans: vec![crate::corpus::Span::new(record.start, record.end)],
            },
        })
    }
}

/// One grid point, scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneRow {
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Seam half-width (`None` for "Seams off").
    pub k: Option<usize>,
    /// Fire margin (`None` for "Seams off").
    pub m: Option<u32>,
    /// Final budget, in chunks.
    pub budget: usize,
    /// Side-drop threshold (`None`: off).
    pub side_drop: Option<f32>,
    /// Mean wasted fires per question (a chunk a fire brought holds none of the evidence).
    pub wasted_fires_per_question: f64,
    /// Questions whose context missed part of the evidence.
    pub failures: usize,
    /// `failures / questions`.
    pub failure_rate: f64,
    /// 95% Wilson interval of the failure rate.
    pub interval: Interval,
    /// Mean tokens sent per question.
    pub mean_tokens: f64,
    /// Vectors in the index (chunks, plus seams for a Seams row).
    pub vectors: usize,
    /// Mean fires per question.
    pub fires_per_question: f64,
    /// Mean false fires per question.
    pub false_fires_per_question: f64,
    /// No other row is as good on failure, tokens and vectors and better on one.
    pub pareto: bool,
    /// What the row costs on the questions of an app's traces (`tune --traces`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced: Option<TracedCost>,
}

/// What a row costs on the questions an app's traces hold: no gold there, so no failure rate,
/// only what the context spends on the real question distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TracedCost {
    /// Mean tokens sent per traced query.
    pub mean_tokens: f64,
    /// Mean fires per traced query that added a chunk (how often Seams changes the context).
    pub fires_per_query: f64,
}

impl TuneRow {
    /// A short name: `chunk 1024 · k 150 · m 1 · budget 5` or `chunk 1024 · Seams off · budget 5`.
    pub fn label(&self) -> String {
        match (self.k, self.m) {
            (Some(k), Some(m)) => format!(
                "chunk {} · k {k} · m {m} · budget {}{}",
                self.chunk_tokens,
                self.budget,
                self.side_drop
                    .map(|t| format!(" · side drop {t:.2}"))
                    .unwrap_or_default()
            ),
            _ => format!(
                "chunk {} · Seams off · budget {}",
                self.chunk_tokens, self.budget
            ),
        }
    }
}

/// What one layout cost to prepare.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayoutCost {
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Seam half-width.
    pub k: usize,
    /// Chunks.
    pub chunks: usize,
    /// Seams.
    pub seams: usize,
    /// Texts embedded to open its indexes (the rest came from the vector cache).
    pub embedded_texts: usize,
    /// Seconds to lay out and open its indexes.
    pub open_seconds: f64,
    /// Seconds to search every question once.
    pub search_seconds: f64,
    /// Seconds to rescore every `m` and budget from the kept searches.
    pub rescore_seconds: f64,
}

/// The whole tuning run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneReport {
    /// The grid.
    pub grid: TuneGrid,
    /// Questions scored at every point.
    pub questions: usize,
    /// Where the questions came from, in words.
    pub source: String,
    /// The embedder whose rankings were measured (its identity).
    #[serde(default)]
    pub embedder: Option<String>,
    /// Every row, best first: failure rate, then tokens, then vectors.
    pub rows: Vec<TuneRow>,
    /// What each layout cost.
    pub layouts: Vec<LayoutCost>,
    /// The traces whose questions each row's `traced` cost was measured on, in words, and how
    /// many queries they held (`tune --traces`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced: Option<(String, usize)>,
}

impl TuneReport {
    /// The best row (fewest failures; ties to fewer tokens, then fewer vectors).
    pub fn best(&self) -> Option<&TuneRow> {
        self.rows.first()
    }
}

/// How far tuning has come.
#[derive(Debug, Clone, PartialEq)]
pub enum TuneProgress {
    /// A layout's indexes are being opened or built.
    Opening {
        /// Its chunk size.
        chunk_tokens: usize,
        /// Its `k`.
        k: usize,
        /// The build's own progress.
        build: BuildProgress,
    },
    /// Questions searched on a layout.
    Searching {
        /// Its chunk size.
        chunk_tokens: usize,
        /// Its `k`.
        k: usize,
        /// Questions done.
        done: usize,
        /// Questions in all.
        total: usize,
    },
}

/// Mark the rows no other row dominates on (failure rate, tokens, vectors).
pub fn mark_pareto(rows: &mut [TuneRow]) {
    let keys: Vec<(f64, f64, usize)> = rows
        .iter()
        .map(|r| (r.failure_rate, r.mean_tokens, r.vectors))
        .collect();
    for (i, row) in rows.iter_mut().enumerate() {
        let a = keys[i];
        row.pareto = !keys.iter().any(|b| {
            b.0 <= a.0 && b.1 <= a.1 && b.2 <= a.2 && (b.0 < a.0 || b.1 < a.1 || b.2 < a.2)
        });
    }
}

/// Sort rows best first: failure rate, then tokens, then vectors, then the larger `m`.
pub fn rank(rows: &mut [TuneRow]) {
    rows.sort_by(|a, b| {
        a.failures
            .cmp(&b.failures)
            .then(a.mean_tokens.total_cmp(&b.mean_tokens))
            .then(a.vectors.cmp(&b.vectors))
            .then(b.m.cmp(&a.m))
    });
}

/// What scoring one base layout at several `k` gave: rows (unranked) and what each `k` cost.
pub type LayoutRows = (Vec<TuneRow>, Vec<LayoutCost>);

/// Score `questions` on `base` (laid out at `chunk_tokens`), searched with `query` (its depth and
/// `c`; `k`, `m` and the budget come from the grid), at every `k` of `ks`, every margin of `ms` and
/// every budget of `budgets`, plus "Seams off" per budget. `extra_seconds` (laying out `base`)
/// is added to each layout's open time.
///
/// `progress` returns whether to go on; `Ok(None)` means it was stopped.
#[allow(clippy::too_many_arguments)]
pub fn tune_layout(
    engine: &mut Engine,
    corpus: &Corpus,
    base: &Layout,
    chunk_tokens: usize,
    query: &crate::retrieve::QuerySettings,
    ks: &[usize],
    ms: &[u32],
    budgets: &[usize],
    side_drops: &[Option<f32>],
    questions: &[TuneQuestion],
    extra_seconds: f64,
    progress: &mut dyn FnMut(TuneProgress) -> bool,
) -> Result<Option<LayoutRows>, EngineError> {
    let mut rows = Vec::new();
    let mut layouts = Vec::new();
    for (ki, &k) in ks.iter().enumerate() {
        let t1 = Instant::now();
        let Some(open) = open_at_k(engine, (corpus, base), (chunk_tokens, k), progress)? else {
            return Ok(None);
        };
        let open_seconds = t1.elapsed().as_secs_f64() + extra_seconds;
        let t2 = Instant::now();
        let query = crate::retrieve::QuerySettings {
            k: k as u32,
            ..*query
        };
        let score_sides = side_drops.iter().any(Option::is_some);
        let Some(searched) = search_layout(
            engine,
            (&open, &query, score_sides),
            questions,
            &mut |done| {
                progress(TuneProgress::Searching {
                    chunk_tokens,
                    k,
                    done,
                    total: questions.len(),
                })
            },
        )?
        else {
            return Ok(None);
        };
        let search_seconds = t2.elapsed().as_secs_f64();
        let t3 = Instant::now();
        let chunks = open.layout.chunks.len();
        let seams = open.layout.seams.len();
        let grid = (ms, budgets, side_drops);
        let scored = score_layout(
            &searched,
            &open.layout,
            &query,
            grid,
            (chunk_tokens, k, ki == 0),
        )?;
        rows.extend(scored);
        layouts.push(LayoutCost {
            chunk_tokens,
            k,
            chunks,
            seams,
            embedded_texts: open.report.chunk_embedding.cache_misses
                + open.report.seam_embedding.cache_misses,
            open_seconds,
            search_seconds,
            rescore_seconds: t3.elapsed().as_secs_f64(),
        });
    }
    Ok(Some((rows, layouts)))
}

/// The searched questions rescored at every margin, budget and side drop of the grid: one row
/// per curve point, and on the first `k` a "Seams off" row per budget.
fn score_layout(
    searched: &[SearchedQuestion],
    layout: &Layout,
    query: &crate::retrieve::QuerySettings,
    (ms, budgets, side_drops): (&[u32], &[usize], &[Option<f32>]),
    (chunk_tokens, k, first_k): (usize, usize, bool),
) -> Result<Vec<TuneRow>, EngineError> {
    let mut rows = Vec::new();
    for (&budget, (di, &side_drop)) in budgets
        .iter()
        .flat_map(|b| std::iter::repeat(b).zip(side_drops.iter().enumerate()))
    {
        let settings = crate::retrieve::QuerySettings {
            budget,
            side_drop,
            ..*query
        };
        let curve = margin_curve(searched, layout, &settings, ms)?;
        for p in &curve.points {
            let vectors = layout.chunks.len() + layout.seams.len();
            rows.push(TuneRow::of_point(
                p,
                (chunk_tokens, k, budget, side_drop),
                vectors,
            ));
        }
        // "Seams off" depends on neither k nor side drop: one row per chunk size and budget.
        if let (true, 0, Some(off)) = (first_k, di, &curve.off) {
            rows.push(TuneRow::seams_off(
                off,
                chunk_tokens,
                budget,
                layout.chunks.len(),
            ));
        }
    }
    Ok(rows)
}

/// Lays `base` out again with seams of `k` tokens and indexes it, reporting the build to
/// `progress`; `Ok(None)` when it says stop.
fn open_at_k(
    engine: &mut Engine,
    (corpus, base): (&Corpus, &Layout),
    (chunk_tokens, k): (usize, usize),
    progress: &mut dyn FnMut(TuneProgress) -> bool,
) -> Result<Option<OpenCorpus>, EngineError> {
    let layout = base.with_k(corpus, k);
    let mut stopped = false;
    let open = engine.index_layout(corpus.clone(), layout, &mut |build| {
        let go = progress(TuneProgress::Opening {
            chunk_tokens,
            k,
            build,
        });
        stopped |= !go;
        go
    });
    if stopped {
        return Ok(None);
    }
    Ok(Some(open?))
}

/// Asks every question of `open` (scoring seam sides when a side drop is tried), telling
/// `progress` how many are done; `Ok(None)` when it says stop.
fn search_layout(
    engine: &mut Engine,
    (open, query, score_sides): (&OpenCorpus, &crate::retrieve::QuerySettings, bool),
    questions: &[TuneQuestion],
    progress: &mut dyn FnMut(usize) -> bool,
) -> Result<Option<Vec<SearchedQuestion>>, EngineError> {
    let mut searched = Vec::with_capacity(questions.len());
    for (i, q) in questions.iter().enumerate() {
        let (trace, _) = engine.ask_scoring_sides(open, &q.text, query, score_sides)?;
        searched.push(SearchedQuestion {
            input: trace.input,
            evidence: q.evidence.clone(),
        });
        if !progress(i + 1) {
            return Ok(None);
        }
    }
    Ok(Some(searched))
}

impl TuneRow {
    /// The row of one margin curve point, at chunk size, `k`, budget and side drop, over an
    /// index of `vectors`.
    fn of_point(
        p: &CurvePoint,
        (chunk_tokens, k, budget, side_drop): (usize, usize, usize, Option<f32>),
        vectors: usize,
    ) -> TuneRow {
        TuneRow {
            chunk_tokens,
            k: Some(k),
            m: p.m,
            budget,
            side_drop,
            wasted_fires_per_question: p.wasted_fires_per_question,
            failures: p.failures,
            failure_rate: p.failure_rate,
            interval: p.interval,
            mean_tokens: p.mean_tokens,
            vectors,
            fires_per_question: p.fires_per_question,
            false_fires_per_question: p.false_fires_per_question,
            pareto: false,
            traced: None,
        }
    }

    /// The "Seams off" row of a chunk size and budget: chunks alone, nothing fires.
    fn seams_off(off: &CurvePoint, chunk_tokens: usize, budget: usize, chunks: usize) -> TuneRow {
        TuneRow {
            chunk_tokens,
            k: None,
            m: None,
            budget,
            side_drop: None,
            wasted_fires_per_question: 0.0,
            failures: off.failures,
            failure_rate: off.failure_rate,
            interval: off.interval,
            mean_tokens: off.mean_tokens,
            vectors: chunks,
            fires_per_question: 0.0,
            false_fires_per_question: 0.0,
            pareto: false,
            traced: None,
        }
    }

    /// Whether `other` is the same grid point (chunk size, `k`, `m`, budget, side drop).
    fn same_point(&self, other: &TuneRow) -> bool {
        (self.chunk_tokens, self.k, self.m, self.budget)
            == (other.chunk_tokens, other.k, other.m, other.budget)
            && self.side_drop.map(f32::to_bits) == other.side_drop.map(f32::to_bits)
    }
}

/// The questions of an app's traces, for `tune`'s cost side on the real question distribution.
pub struct TracedQuestions<'a> {
    /// Each traced query as [`TuneQuestion::traced`] makes it.
    pub questions: &'a [TuneQuestion],
    /// Where they came from, in words.
    pub source: &'a str,
}

/// Run the grid on `corpus` with `questions` under the engine's other settings.
///
/// `progress` returns whether to go on; `Ok(None)` means it was stopped.
///
/// With `traced`, every grid point is also measured on the questions of an app's traces (each
/// searched once per layout, as the scored questions are): the row's `traced` cost.
pub fn tune(
    engine: &mut Engine,
    corpus: &Corpus,
    questions: &[TuneQuestion],
    traced: Option<&TracedQuestions<'_>>,
    grid: &TuneGrid,
    source: &str,
    progress: &mut dyn FnMut(TuneProgress) -> bool,
) -> Result<Option<TuneReport>, EngineError> {
    let base: Settings = engine.settings.clone();
    let mut rows = Vec::new();
    let mut layouts = Vec::new();
    for &chunk_tokens in &grid.chunk_tokens {
        let at = (&base, chunk_tokens, grid);
        let Some((more, costs)) = tune_chunk_size(engine, corpus, at, questions, traced, progress)?
        else {
            return Ok(None);
        };
        rows.extend(more);
        layouts.extend(costs);
    }
    mark_pareto(&mut rows);
    rank(&mut rows);
    Ok(Some(TuneReport {
        grid: grid.clone(),
        questions: questions.len(),
        source: source.to_string(),
        embedder: Some(engine.embedder.identity().to_string()),
        rows,
        layouts,
        traced: traced.map(|t| (t.source.to_string(), t.questions.len())),
    }))
}

/// The grid's rows at one chunk size of `grid` (the rest of the settings from `base`): its
/// layout built, every `k`, `m`, budget and side drop measured on `questions`, and with
/// `traced`, each row's cost on the traced questions too.
///
/// `progress` returns whether to go on; `Ok(None)` means it was stopped.
fn tune_chunk_size(
    engine: &mut Engine,
    corpus: &Corpus,
    (base, chunk_tokens, grid): (&Settings, usize, &TuneGrid),
    questions: &[TuneQuestion],
    traced: Option<&TracedQuestions<'_>>,
    progress: &mut dyn FnMut(TuneProgress) -> bool,
) -> Result<Option<LayoutRows>, EngineError> {
    let t0 = Instant::now();
    let layout = Layout::for_settings(
        corpus,
        &engine.tokenizer,
        &Settings {
            chunk_tokens,
            ..base.clone()
        },
    )?;
    let query = base.query_settings();
    // The grid at this chunk size on some questions, `build_seconds` (laying out) added to
    // each `k`'s open time.
    let measure = |engine: &mut Engine,
                   questions: &[TuneQuestion],
                   build_seconds: f64,
                   progress: &mut dyn FnMut(TuneProgress) -> bool| {
        tune_layout(
            engine,
            corpus,
            &layout,
            chunk_tokens,
            &query,
            &grid.ks,
            &grid.ms,
            &grid.budgets,
            &grid.side_drops,
            questions,
            build_seconds,
            progress,
        )
    };
    let Some((mut rows, costs)) = measure(engine, questions, t0.elapsed().as_secs_f64(), progress)?
    else {
        return Ok(None);
    };
    if let Some(t) = traced.filter(|t| !t.questions.is_empty()) {
        // The same grid on the traced questions: the layout's indexes are built by now, so
        // this only searches and rescores.
        let Some((on_traced, _)) = measure(engine, t.questions, 0.0, progress)? else {
            return Ok(None);
        };
        for row in &mut rows {
            row.traced = on_traced
                .iter()
                .find(|o| o.same_point(row))
                .map(|o| TracedCost {
                    mean_tokens: o.mean_tokens,
                    fires_per_query: o.fires_per_question,
                });
        }
    }
    Ok(Some((rows, costs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(m: u32, failures: usize, tokens: f64, vectors: usize) -> TuneRow {
        TuneRow {
            chunk_tokens: 1024,
            k: Some(150),
            m: Some(m),
            budget: 5,
            side_drop: None,
            wasted_fires_per_question: 0.0,
            failures,
            failure_rate: failures as f64 / 10.0,
            interval: Interval {
                low: 0.0,
                high: 1.0,
            },
            mean_tokens: tokens,
            vectors,
            fires_per_question: 0.0,
            false_fires_per_question: 0.0,
            pareto: false,
            traced: None,
        }
    }

    #[test]
    fn pareto_rows_are_the_undominated_ones_and_ranking_puts_failures_first() {
        let mut rows = vec![
            row(1, 2, 5000.0, 150), // best failure
            row(2, 3, 4000.0, 150), // cheaper tokens: on the front
            row(3, 3, 4500.0, 150), // dominated by m = 2
            row(4, 4, 4000.0, 80),  // fewer vectors: on the front
            row(5, 2, 5000.0, 150), // ties m = 1 exactly: neither dominates
        ];
        mark_pareto(&mut rows);
        let front: Vec<u32> = rows
            .iter()
            .filter(|r| r.pareto)
            .map(|r| r.m.unwrap())
            .collect();
        assert_eq!(front, vec![1, 2, 4, 5]);
        rank(&mut rows);
        let order: Vec<u32> = rows.iter().map(|r| r.m.unwrap()).collect();
        // Failures first; a tie goes to the larger m.
        assert_eq!(order, vec![5, 1, 2, 3, 4]);
    }
}
