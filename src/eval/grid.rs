//! The comparison grid: every strategy of DESIGN.md §7 on one question set, under one budget.
//!
//! Each strategy's texts are embedded through the shared vector cache, so a text two strategies
//! share (the baseline chunks, most of all) is embedded once, ever. Preparing and searching a
//! strategy lives in [`prepare`](super::prepare), scoring in [`score`](super::score); this file
//! holds the run's knobs, the model handle and the run itself.

pub use super::embedding::Embedding;
pub use super::grid_settings::GridSettings;
pub use super::prepare::{
    Prepared, prepare, prepare_reporting, retrieve, search_lists, side_scores,
};
use super::questions::Question;
pub use super::score::{GridRow, RowFacts, Scored, row, score, summarise};
pub use super::select::{Retrieved, select};
use super::strategy::Strategy;
use crate::corpus::Corpus;
use crate::embed::cache::VectorCache;
use crate::embed::embed_one;
use crate::layout::Layout;
use crate::retrieve::DEFAULT_SIDE_DROP;
use crate::session::EngineError;

/// How far a strategy comparison ([`run_grid`]) or a margin sweep has come, for a front end to
/// show (10,000 questions take minutes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareProgress<'a> {
    /// `done` of `total` questions embedded.
    Questions {
        /// Questions embedded.
        done: usize,
        /// Questions in all.
        total: usize,
    },
    /// Strategy `index` (from 0, of `count`) starts: its texts not yet cached are embedded.
    Strategy {
        /// Which strategy, from 0.
        index: usize,
        /// Strategies in the run.
        count: usize,
        /// Its label.
        label: &'a str,
    },
    /// Strategy `index` has searched `done` of `total` questions.
    Searching {
        /// Which strategy, from 0.
        index: usize,
        /// Strategies in the run.
        count: usize,
        /// Its label.
        label: &'a str,
        /// Questions searched.
        done: usize,
        /// Questions in all.
        total: usize,
    },
}

/// Run every strategy on every question. `progress` hears the questions being embedded, each
/// strategy as it starts and each question it searches.
///
/// Seams at the layout's own `k` (or the first Seams strategy when none has it) also gets a row
/// with side drop on, at `settings.side_drop` or [`DEFAULT_SIDE_DROP`], scored from the same
/// searches; every other row has side drop off.
pub fn run_grid(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    layout: &Layout,
    questions: &[Question],
    strategies: &[Strategy],
    settings: &GridSettings,
    progress: &mut dyn FnMut(CompareProgress<'_>),
) -> Result<Vec<GridRow>, EngineError> {
    let total = questions.len();
    let mut vectors = Vec::with_capacity(total);
    for q in questions {
        vectors.push(embed_one(model.embedder, model.tokenizer, &q.question)?);
        progress(CompareProgress::Questions {
            done: vectors.len(),
            total,
        });
    }
    let seam_ks: Vec<usize> = strategies
        .iter()
        .filter_map(|s| match s {
            Strategy::Seams { k } => Some(*k),
            _ => None,
        })
        .collect();
    let side_drop_k = seam_ks
        .iter()
        .copied()
        .find(|&k| k == layout.k)
        .or(seam_ks.first().copied());
    let plain = GridSettings {
        side_drop: None,
        ..*settings
    };
    let mut rows = Vec::new();
    let count = strategies.len();
    for (index, &strategy) in strategies.iter().enumerate() {
        let label = strategy.label(settings.chunk_tokens);
        progress(CompareProgress::Strategy {
            index,
            count,
            label: &label,
        });
        let p = prepare(model, corpus, layout, strategy, settings)?;
        save_cache(model.cache)?;
        let threshold = settings.side_drop.unwrap_or(DEFAULT_SIDE_DROP);
        let with_side_drop = matches!(strategy, Strategy::Seams { k } if Some(k) == side_drop_k);
        let mut scores = Vec::with_capacity(questions.len());
        let mut dropped_scores = Vec::new();
        for (done, (q, v)) in questions.iter().zip(&vectors).enumerate() {
            let lists = search_lists(&p, v, &q.question, &plain)?;
            let sides = side_scores(&p, v, &lists, &plain);
            let r = select(strategy, &p.units, &p.pointers, &lists, &sides, &plain);
            scores.push(score(&p.units, &p.pointers, layout, q, &r));
            if with_side_drop {
                let on = GridSettings {
                    side_drop: Some(threshold),
                    ..plain
                };
                let r = select(strategy, &p.units, &p.pointers, &lists, &sides, &on);
                dropped_scores.push(score(&p.units, &p.pointers, layout, q, &r));
            }
            progress(CompareProgress::Searching {
                index,
                count,
                label: &label,
                done: done + 1,
                total,
            });
        }
        rows.push(row(&p, layout.chunks.len(), questions, &scores));
        if with_side_drop {
            let mut r = row(&p, layout.chunks.len(), questions, &dropped_scores);
            r.label = format!("{} + side drop {threshold:.2}", r.label);
            r.embedded_texts = 0;
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Write the shared vector cache to disk, so the next run finds what this one embedded.
pub fn save_cache(cache: &mut VectorCache) -> Result<(), EngineError> {
    cache.save().map_err(|e| {
        EngineError::Index(crate::index::IndexError::Io {
            path: cache.path().to_path_buf(),
            message: e.to_string(),
        })
    })
}
