//! A strategy searched once over a question set, then scored at any `m` or budget without
//! searching again: the lists each question's searches returned are kept, and only the pure
//! stages (fuse, fire test, budget fill, scoring) run again. Microseconds per question, no
//! model, no index: what a screen needs when a slider moves.

use super::grid::{
    GridRow, GridSettings, Prepared, RowFacts, score, search_lists, side_scores, summarise,
};
use super::questions::Question;
use super::select::select;
use super::strategy::{Pointer, Strategy, Unit};
use crate::layout::Layout;
use crate::retrieve::{RankedList, SideScores};
use crate::session::EngineError;

/// A strategy with every question's search results: plain data, cheap to score again.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchedStrategy {
    /// The strategy.
    pub strategy: Strategy,
    /// Its table label.
    pub label: String,
    /// What it can return.
    pub units: Vec<Unit>,
    /// What only leads to units.
    pub pointers: Vec<Pointer>,
    /// Texts embedded when it was prepared (the rest came from the cache).
    pub embedded_texts: usize,
    /// Each question's ranked lists, in question order.
    pub lists: Vec<Vec<RankedList>>,
    /// Each question's Seams half scores (empty for other strategies), for side drop.
    pub sides: Vec<Vec<SideScores>>,
}

impl SearchedStrategy {
    /// Search every question (`vectors[i]` is the embedding of `questions[i]`) on a prepared
    /// strategy and keep the lists. `progress(done, total)` is called after each question and
    /// returns whether to go on; `Ok(None)` means it was stopped.
    pub fn search(
        prepared: Prepared,
        questions: &[Question],
        vectors: &[Vec<f32>],
        settings: &GridSettings,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Option<SearchedStrategy>, EngineError> {
        let mut lists = Vec::with_capacity(questions.len());
        let mut sides = Vec::with_capacity(questions.len());
        for (q, v) in questions.iter().zip(vectors) {
            let found = search_lists(&prepared, v, &q.question, settings)?;
            sides.push(side_scores(&prepared, v, &found, settings));
            lists.push(found);
            if !progress(lists.len(), questions.len()) {
                return Ok(None);
            }
        }
        Ok(Some(SearchedStrategy {
            strategy: prepared.strategy,
            label: prepared.label.clone(),
            embedded_texts: prepared.embedding.cache_misses,
            units: prepared.units,
            pointers: prepared.pointers,
            lists,
            sides,
        }))
    }

    /// The table row under `settings` (its `m` and budget), from the kept lists alone.
    ///
    /// `layout` is the one the strategy was prepared on (its token offsets score the spans);
    /// `depth` and the RRF constant should match the search: the lists were cut at that depth.
    pub fn row(&self, layout: &Layout, questions: &[Question], settings: &GridSettings) -> GridRow {
        let scores: Vec<_> = questions
            .iter()
            .zip(self.lists.iter().zip(&self.sides))
            .map(|(q, (lists, sides))| {
                let r = select(
                    self.strategy,
                    &self.units,
                    &self.pointers,
                    lists,
                    sides,
                    settings,
                );
                score(&self.units, &self.pointers, layout, q, &r)
            })
            .collect();
        let facts = RowFacts {
            label: &self.label,
            strategy: self.strategy,
            vectors: self.units.len() + self.pointers.len(),
            embedded_texts: self.embedded_texts,
        };
        summarise(&facts, layout.chunks.len(), questions, &scores)
    }
}
