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

/// Run every strategy on every question. `progress` hears each strategy's label as it starts.
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
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<GridRow>, EngineError> {
    let vectors = questions
        .iter()
        .map(|q| embed_one(model.embedder, model.tokenizer, &q.question))
        .collect::<Result<Vec<_>, _>>()?;
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
    for &strategy in strategies {
        progress(&strategy.label(settings.chunk_tokens));
        let p = prepare(model, corpus, layout, strategy, settings)?;
        save_cache(model.cache)?;
        let threshold = settings.side_drop.unwrap_or(DEFAULT_SIDE_DROP);
        let with_side_drop = matches!(strategy, Strategy::Seams { k } if Some(k) == side_drop_k);
        let mut scores = Vec::with_capacity(questions.len());
        let mut dropped_scores = Vec::new();
        for (q, v) in questions.iter().zip(&vectors) {
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
