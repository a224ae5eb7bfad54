//! Which strategy should I deploy? Every boundary strategy on one board, on the same questions,
//! at the same budget: chunks only, overlap at several fractions, windows, neighbour expansion
//! (static ±1 and SCAR-style adaptive, tuned), Seams over its `k` × `m` (± side drop) and overlap
//! with Seams. Each row has its failure rate with a 95% interval, the tokens it sends, the
//! vectors it stores and what building it took; the Pareto rows are marked, and the verdict
//! ([`verdict`]) names a winner only when the data says so.
//!
//! Each strategy is prepared and every question searched on it once (the eval machinery:
//! [`crate::eval::prepare`]); every setting of a strategy (`m`, side drop, SCAR's τ and penalty)
//! is then scored from the kept searches by the pure stages. The evidence-length map ([`map`])
//! runs the same board on passages drawn at several lengths, no gold needed.

pub mod alternative;
pub mod constraint;
pub mod detail;
pub mod expand;
mod family;
pub mod fold;
mod judge;
pub mod map;
pub mod origin;
mod row;

use std::time::Instant;

use serde::Serialize;

pub use crate::calibrate::bootstrap as verdict;
use crate::calibrate::interval::{Interval, wilson};
use crate::embed::cosine;
use crate::eval::embedding::Embedding;
use crate::eval::grid::{GridSettings, Retrieved, prepare_reporting, save_cache, score};
use crate::eval::grid::{search_lists, select, side_scores};
use crate::eval::questions::Question;
use crate::eval::run::{SearchProgress, embed_questions};
use crate::eval::score::stores_once;
use crate::eval::strategy::{Pointer, Strategy, Unit};
use crate::retrieve::{RankedList, SideScores, fuse};
use crate::session::{Engine, EngineError, OpenCorpus};
use crate::settings::Settings;
pub use constraint::Constraints;
use expand::{Expansion, Relevance, expand_fill};
pub use family::{CARDS, Family, FamilyCard};
pub use fold::Member;
pub use judge::{constrain, finish_rows, judge};
pub use row::RowSettings;
pub use verdict::{Candidate, Contender, Verdict};

/// One row of the board.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardRow {
    /// Its label.
    pub label: String,
    /// Its family.
    pub family: Family,
    /// Its settings (a folded row's: its middle member's).
    pub settings: RowSettings,
    /// The settings a folded row stands for, each with the same outcome on every question
    /// (empty for a row of one setting).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// Questions whose context missed part of the evidence.
    pub failures: usize,
    /// `failures / questions`.
    pub failure_rate: f64,
    /// 95% Wilson interval of the failure rate.
    pub interval: Interval,
    /// Mean tokens sent per question.
    pub tokens: f64,
    /// Mean tokens of the context counted once (a passage in two returned chunks counts once).
    pub distinct_tokens: f64,
    /// Mean tokens sent more than once per question (overlap and windows send text twice).
    pub duplicated_tokens: f64,
    /// Duplicated tokens as a share of all tokens sent.
    pub duplicate_share: f64,
    /// Mean pairs of returned chunks that share text, per answer (a passage returned twice).
    pub passages_twice: f64,
    /// Chroma's token precision over the gold spans: evidence tokens returned / tokens returned
    /// (duplicates counted each time).
    pub span_precision: f64,
    /// Chroma's token IoU over the gold spans: evidence returned / (evidence + returned -
    /// evidence returned), duplicates counted each time.
    pub span_iou: f64,
    /// No two stored units share text: each passage is stored once.
    pub stores_once: bool,
    /// Vectors stored (units and pointers).
    pub vectors: usize,
    /// Vectors relative to the chunks alone.
    pub vectors_vs_chunks: f64,
    /// Seconds to build its indexes here (embedding what the vector cache lacked, then the
    /// in-memory collections).
    pub build_seconds: f64,
    /// Texts embedded for it (the rest came from the vector cache).
    pub embedded_texts: usize,
    /// Mean fires per question (Seams rows).
    pub fires_per_question: f64,
    /// No other row is as good on failures, tokens and vectors and better on one.
    pub pareto: bool,
    /// For each family's best row: the share of resamples its family won.
    pub p_best: Option<f64>,
    /// Why the board's constraints leave it out of the verdict (`None`: it satisfies them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// Per question: failed or not (question order).
    #[serde(skip)]
    pub failed: Vec<bool>,
    /// Per question: tokens sent.
    #[serde(skip)]
    pub tokens_sent: Vec<u64>,
    /// Per question: tokens sent more than once.
    #[serde(skip)]
    pub duplicated_sent: Vec<u64>,
    /// Per question, what the row sent and the figures counted from it (only when the options
    /// ask for it: `tune --per-question`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_question: Vec<detail::QuestionDetail>,
}

/// What each knob of the board takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardOptions {
    /// Overlap fractions, in percent of a chunk.
    pub overlaps: Vec<u32>,
    /// Window (width, stride) pairs.
    pub windows: Vec<(usize, usize)>,
    /// Seam half-widths.
    pub ks: Vec<usize>,
    /// Fire margins.
    pub ms: Vec<u32>,
    /// Side drop for Seams rows (`None`: off).
    pub side_drops: Vec<Option<f32>>,
    /// SCAR thresholds.
    pub taus: Vec<f32>,
    /// SCAR penalty weights.
    pub penalties: Vec<f32>,
    /// Overlap fractions combined with Seams (at each `k` of `ks`).
    pub overlap_seams: Vec<u32>,
    /// The families on the board (chunks only is always scored: it is the baseline).
    pub families: Vec<Family>,
    /// Bootstrap resamples for the verdict (0: no verdict).
    pub resamples: usize,
    /// Seed of the resampling.
    pub seed: u64,
    /// What the rows the verdict judges must satisfy.
    pub constraints: Constraints,
    /// Keep each row's per-question detail ([`detail::QuestionDetail`]) for the JSON.
    pub per_question: bool,
}

impl Default for BoardOptions {
    fn default() -> Self {
        BoardOptions {
            overlaps: vec![10, 15, 20, 25],
            windows: vec![(256, 128), (128, 64)],
            ks: vec![100, 150, 200],
            ms: (0..=30).collect(),
            side_drops: vec![None, Some(crate::retrieve::DEFAULT_SIDE_DROP)],
            taus: vec![0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
            penalties: vec![0.0, 0.5, 1.0],
            overlap_seams: vec![15],
            families: Family::ALL.to_vec(),
            resamples: verdict::DEFAULT_RESAMPLES,
            seed: 0,
            constraints: Constraints::default(),
            per_question: false,
        }
    }
}

/// What one prepared strategy cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrategyCost {
    /// The strategy's label.
    pub label: String,
    /// Vectors stored.
    pub vectors: usize,
    /// Texts embedded (the rest came from the vector cache).
    pub embedded_texts: usize,
    /// Seconds to prepare it (embed, build the collections).
    pub build_seconds: f64,
    /// Seconds to search every question on it.
    pub search_seconds: f64,
}

/// The whole board.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    /// Questions scored on every row.
    pub questions: usize,
    /// Where they came from, in words.
    pub source: String,
    /// The embedder whose rankings were measured (its identity).
    pub embedder: String,
    /// The base layout (`fixed-1024`, …).
    pub chunker: String,
    /// Tokens per chunk of the base layout.
    pub chunk_tokens: usize,
    /// Chunks of the base layout.
    pub chunks: usize,
    /// The final budget, in chunks, for every row.
    pub budget: usize,
    /// Every row, best first: failures, then tokens, then vectors.
    pub rows: Vec<BoardRow>,
    /// The verdict among the rows the constraints allow (`None` when resampling was off).
    pub verdict: Option<Verdict>,
    /// With constraints that leave rows out: the verdict over every row, as if there were none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<Verdict>,
    /// The knobs.
    pub options: BoardOptions,
    /// What each strategy cost.
    pub strategies: Vec<StrategyCost>,
    /// Seconds for the whole run.
    pub seconds: f64,
}

impl Board {
    /// The row with this label.
    pub fn row(&self, label: &str) -> Option<&BoardRow> {
        self.rows.iter().find(|r| r.label == label)
    }

    /// Each family's best row (fewest failures, then fewest tokens), in board family order.
    pub fn family_best(&self) -> Vec<&BoardRow> {
        Family::ALL
            .iter()
            .filter_map(|f| self.rows.iter().find(|r| r.family == *f))
            .collect()
    }
}

/// A strategy searched on every question, with what the expansion gate needs.
struct Searched {
    strategy: Strategy,
    units: Vec<Unit>,
    pointers: Vec<Pointer>,
    lists: Vec<Vec<RankedList>>,
    sides: Vec<Vec<SideScores>>,
    /// Chunks only: per question, `(unit, cos(q, unit))` near the top and their neighbours.
    relevance: Vec<Vec<(u32, f32)>>,
    /// Chunks only: cos(unit i, unit i + 1).
    continuity: Vec<f32>,
    cost: StrategyCost,
}

/// What one question's units are under `settings`.
fn retrieve_one(s: &Searched, q: usize, settings: &RowSettings, grid: &GridSettings) -> Retrieved {
    let plain = |units| Retrieved {
        units,
        fired: Vec::new(),
        dropped: Vec::new(),
    };
    let expand = |expansion| {
        let fused = fuse(&s.lists[q], grid.rrf_c);
        let rel = Relevance {
            to_question: &s.relevance[q],
            continuity: &s.continuity,
        };
        plain(expand_fill(&s.units, &fused, grid.budget, expansion, &rel))
    };
    match *settings {
        RowSettings::Neighbour => expand(Expansion::Static),
        RowSettings::Scar { tau, penalty } => expand(Expansion::Scar { tau, penalty }),
        RowSettings::Seams { m, side_drop, .. } => {
            let g = GridSettings {
                m,
                side_drop,
                ..*grid
            };
            select(
                s.strategy,
                &s.units,
                &s.pointers,
                &s.lists[q],
                &s.sides[q],
                &g,
            )
        }
        RowSettings::OverlapSeams { m, .. } => {
            let g = GridSettings {
                m,
                side_drop: None,
                ..*grid
            };
            select(
                s.strategy,
                &s.units,
                &s.pointers,
                &s.lists[q],
                &s.sides[q],
                &g,
            )
        }
        _ => select(
            s.strategy,
            &s.units,
            &s.pointers,
            &s.lists[q],
            &s.sides[q],
            grid,
        ),
    }
}

/// The cosines the SCAR gate needs for one question: the first `depth` units of the fused
/// ranking and their neighbours.
fn relevance_of(
    prepared: &crate::eval::prepare::Prepared,
    vector: &[f32],
    lists: &[RankedList],
    grid: &GridSettings,
) -> Vec<(u32, f32)> {
    let mut wanted: Vec<u32> = fuse(lists, grid.rrf_c)
        .iter()
        .filter_map(|e| match e.entry {
            crate::retrieve::EntryRef::Chunk(c) => Some(c.0),
            _ => None,
        })
        .take(grid.depth)
        .flat_map(|c| [c.checked_sub(1), Some(c), c.checked_add(1)])
        .flatten()
        .filter(|&u| (u as usize) < prepared.units.len())
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    wanted
        .into_iter()
        .filter_map(|u| Some((u, cosine(vector, prepared.unit_vector(u as usize)?))))
        .collect()
}

/// Prepare `strategy` and search every question on it.
fn search_one(
    model: &mut Embedding<'_>,
    open: &OpenCorpus,
    (questions, vectors): (&[Question], &[Vec<f32>]),
    strategy: Strategy,
    (index, count): (usize, usize),
    grid: &GridSettings,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<Searched>, EngineError> {
    let label = strategy.label(grid.chunk_tokens);
    let label = label.as_str();
    if !progress(SearchProgress::Preparing {
        index,
        count,
        label,
    }) {
        return Ok(None);
    }
    let t0 = Instant::now();
    let prepared = prepare_reporting(
        model,
        &open.corpus,
        &open.layout,
        strategy,
        grid,
        &mut |part, p| {
            progress(SearchProgress::Embedding {
                index,
                count,
                label,
                part,
                progress: p,
            });
        },
    )?;
    save_cache(model.cache)?;
    let build_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let chunks_only = strategy == Strategy::NoOverlap;
    let mut lists = Vec::with_capacity(questions.len());
    let mut sides = Vec::with_capacity(questions.len());
    let mut relevance = Vec::with_capacity(questions.len());
    for (i, (q, v)) in questions.iter().zip(vectors).enumerate() {
        let found = search_lists(&prepared, v, &q.question, grid)?;
        sides.push(side_scores(&prepared, v, &found, grid));
        if chunks_only {
            relevance.push(relevance_of(&prepared, v, &found, grid));
        } else {
            relevance.push(Vec::new());
        }
        lists.push(found);
        let go = progress(SearchProgress::Searching {
            index,
            count,
            label,
            done: i + 1,
            total: questions.len(),
        });
        if !go {
            return Ok(None);
        }
    }
    let continuity: Vec<f32> = if chunks_only {
        (0..prepared.units.len())
            .map(|i| {
                let same = prepared
                    .units
                    .get(i + 1)
                    .is_some_and(|n| n.doc == prepared.units[i].doc);
                match (same, prepared.unit_vector(i), prepared.unit_vector(i + 1)) {
                    (true, Some(a), Some(b)) => cosine(a, b),
                    _ => f32::NAN,
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let cost = StrategyCost {
        label: label.to_string(),
        vectors: prepared.units.len() + prepared.pointers.len(),
        embedded_texts: prepared.embedding.cache_misses,
        build_seconds,
        search_seconds: t1.elapsed().as_secs_f64(),
    };
    Ok(Some(Searched {
        strategy,
        units: prepared.units,
        pointers: prepared.pointers,
        lists,
        sides,
        relevance,
        continuity,
        cost,
    }))
}

/// Score every setting of every strategy the options call for on `questions`, at `settings`'
/// budget, margin, depth, RRF constant and chunk size (its side drop aside), on `open`'s layout;
/// then the verdict. The settings come by value, never through the engine's: a caller scoring
/// at another budget passes that budget, and a panic leaves the engine as it was. `progress`
/// returns whether to go on; `Ok(None)` means it was stopped.
pub fn board(
    engine: &mut Engine,
    open: &OpenCorpus,
    settings: &Settings,
    questions: &[Question],
    source: &str,
    options: &BoardOptions,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<Board>, EngineError> {
    let started = Instant::now();
    let Some(vectors) = embed_questions(engine, questions, &mut |_, _| true)? else {
        return Ok(None);
    };
    let grid = GridSettings {
        side_drop: None,
        ..GridSettings::from_settings(settings)
    };
    let chunk_tokens = grid.chunk_tokens;
    let plan = family::plan(options, chunk_tokens);
    let (mut cache, _) = engine.vector_cache();
    let mut searched = Vec::with_capacity(plan.len());
    {
        let mut model = Embedding::of(engine, &mut cache);
        for (i, &(strategy, _)) in plan.iter().enumerate() {
            let one = search_one(
                &mut model,
                open,
                (questions, &vectors),
                strategy,
                (i, plan.len()),
                &grid,
                progress,
            )?;
            match one {
                Some(s) => searched.push(s),
                None => return Ok(None),
            }
        }
    }
    let chunks = open.layout.chunks.len();
    let n = questions.len();
    let rows: Vec<BoardRow> = searched
        .iter()
        .zip(&plan)
        .flat_map(|(s, (_, rows))| rows.iter().map(move |&settings| (s, settings)))
        .map(|(s, settings)| score_row(s, settings, questions, open, (&grid, options.per_question)))
        .collect();
    let (rows, verdict, unconstrained) = finish_rows(rows, options);
    Ok(Some(Board {
        questions: n,
        source: source.to_string(),
        embedder: engine.embedder.identity().to_string(),
        chunker: open.layout.chunker.clone(),
        chunk_tokens,
        chunks,
        budget: grid.budget,
        rows,
        verdict,
        unconstrained,
        options: options.clone(),
        strategies: searched.into_iter().map(|s| s.cost).collect(),
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// One setting of a searched strategy scored on every question.
fn score_row(
    s: &Searched,
    settings: RowSettings,
    questions: &[Question],
    open: &OpenCorpus,
    (grid, keep_detail): (&GridSettings, bool),
) -> BoardRow {
    let n = questions.len();
    let mut per_question = Vec::new();
    let mut failed = Vec::with_capacity(n);
    let mut tokens_sent = Vec::with_capacity(n);
    let mut duplicated_sent = Vec::with_capacity(n);
    let mut fires = 0usize;
    let (mut distinct, mut duplicated, mut twice) = (0u64, 0u64, 0u64);
    let (mut evidence, mut returned, mut hit) = (0u64, 0u64, 0u64);
    for (qi, q) in questions.iter().enumerate() {
        let r = retrieve_one(s, qi, &settings, grid);
        let scored = score(&s.units, &s.pointers, &open.layout, q, &r);
        if keep_detail {
            per_question.push(detail::of(
                &open.corpus,
                &open.layout,
                &s.units,
                q,
                &r,
                &scored,
            ));
        }
        failed.push(!scored.answered);
        tokens_sent.push(scored.tokens_sent);
        fires += scored.fires;
        distinct += scored.context.distinct;
        duplicated += scored.context.duplicated;
        duplicated_sent.push(scored.context.duplicated);
        twice += u64::from(scored.context.overlapping_pairs);
        evidence += scored.token_overlap.0;
        returned += scored.token_overlap.1;
        hit += scored.token_overlap.2;
    }
    let failures = failed.iter().filter(|f| **f).count();
    let per = |x: u64| x as f64 / n.max(1) as f64;
    let share = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let vectors = s.cost.vectors;
    BoardRow {
        label: settings.label(),
        family: settings.family(),
        settings,
        members: Vec::new(),
        failures,
        failure_rate: failures as f64 / n.max(1) as f64,
        interval: wilson(failures, n),
        tokens: tokens_sent.iter().sum::<u64>() as f64 / n.max(1) as f64,
        distinct_tokens: per(distinct),
        duplicated_tokens: per(duplicated),
        duplicate_share: share(duplicated, distinct + duplicated),
        passages_twice: per(twice),
        span_precision: share(hit, returned),
        span_iou: share(hit, (evidence + returned).saturating_sub(hit)),
        stores_once: stores_once(&s.units),
        vectors,
        vectors_vs_chunks: vectors as f64 / open.layout.chunks.len().max(1) as f64,
        build_seconds: s.cost.build_seconds,
        embedded_texts: s.cost.embedded_texts,
        fires_per_question: fires as f64 / n.max(1) as f64,
        pareto: false,
        p_best: None,
        excluded: None,
        failed,
        tokens_sent,
        duplicated_sent,
        per_question,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_families_follow_the_settings() {
        let s = RowSettings::Seams {
            k: 150,
            m: 1,
            side_drop: Some(0.25),
        };
        assert_eq!(s.label(), "Seams k 150 m 1 + side drop 0.25");
        assert_eq!(s.family().name(), "seams");
        let o = RowSettings::OverlapSeams {
            percent: 15,
            tokens: 154,
            k: 150,
            m: 2,
        };
        assert_eq!(o.family().name(), "overlap+seams");
        assert!(o.deploy_hint(1024).contains("overlapping by 154"));
        let j = serde_json::to_value(Family::OverlapSeams).unwrap();
        assert_eq!(j, "overlap+seams");
        let o = RowSettings::Overlap {
            percent: 15,
            tokens: 154,
        };
        assert!(o.deploy_hint(1024).contains("chunk_overlap=154"));
    }

    #[test]
    fn the_default_board_has_every_family() {
        let opts = BoardOptions::default();
        let list: Vec<Strategy> = family::plan(&opts, 1024)
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert!(list.contains(&Strategy::NoOverlap));
        assert!(list.contains(&Strategy::Overlap { tokens: 154 }));
        assert!(list.contains(&Strategy::Windows {
            width: 256,
            stride: 128
        }));
        assert!(list.contains(&Strategy::Seams { k: 150 }));
        assert!(list.contains(&Strategy::OverlapSeams {
            tokens: 154,
            k: 150
        }));
    }
}
