//! Evaluations on an open corpus, as every front end runs them: the strategy comparison
//! ([`compare`]), Seams at several margins beside chunks-only retrieval ([`sweep`]), and the
//! searches both keep so that a margin or budget can be scored again without searching
//! ([`embed_questions`], [`search_strategies`]).

use super::contextual::ContextWriter;
pub use super::grid::CompareProgress;
use super::grid::{Embedding, GridRow, GridSettings, prepare_reporting, run_grid, save_cache};
use super::questions::Question;
use super::rescore::SearchedStrategy;
use super::strategy::Strategy;
use crate::embed::{EmbedProgress, embed_one};
use crate::retrieve::DEFAULT_SIDE_DROP;
use crate::session::{Engine, EngineError, OpenCorpus};
use crate::settings::Settings;

/// How far a search of several strategies has come. Returning `false` from the callback stops
/// the search (between questions).
#[derive(Debug, Clone, Copy)]
pub enum SearchProgress<'a> {
    /// Strategy `index` (from 0, of `count`) starts: its texts are embedded next.
    Preparing {
        /// Which strategy, from 0.
        index: usize,
        /// Strategies in the run.
        count: usize,
        /// Its label.
        label: &'a str,
    },
    /// Strategy `index` embeds `part` (`units`, `pointers`, `seam halves`).
    Embedding {
        /// Which strategy, from 0.
        index: usize,
        /// Strategies in the run.
        count: usize,
        /// Its label.
        label: &'a str,
        /// What it embeds.
        part: &'a str,
        /// Tokens done and to do in that part.
        progress: EmbedProgress,
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

/// Embed every question with the engine's model; `progress(done, total)` after each, `false`
/// stops (`Ok(None)`).
pub fn embed_questions(
    engine: &mut Engine,
    questions: &[Question],
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<Vec<Vec<f32>>>, EngineError> {
    let mut vectors = Vec::with_capacity(questions.len());
    for q in questions {
        vectors.push(embed_one(
            &mut engine.embedder,
            &engine.tokenizer,
            &q.question,
        )?);
        if !progress(vectors.len(), questions.len()) {
            return Ok(None);
        }
    }
    Ok(Some(vectors))
}

/// Prepare each strategy (embedding what the vector cache lacks) and search every question
/// with it, keeping the searches so any margin or budget can be scored from them. `None` when
/// `progress` stopped it.
pub fn search_strategies(
    engine: &mut Engine,
    open: &OpenCorpus,
    questions: &[Question],
    vectors: &[Vec<f32>],
    strategies: &[Strategy],
    grid: &GridSettings,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<Vec<SearchedStrategy>>, EngineError> {
    let searched = (questions, vectors, strategies);
    search_strategies_with(engine, open, searched, grid, None, progress)
}

/// [`search_strategies`] with a language model writing contextual retrieval's contexts (the
/// contextual strategies are refused without one).
pub fn search_strategies_with(
    engine: &mut Engine,
    open: &OpenCorpus,
    (questions, vectors, strategies): (&[Question], &[Vec<f32>], &[Strategy]),
    grid: &GridSettings,
    mut contexts: Option<&mut ContextWriter>,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<Vec<SearchedStrategy>>, EngineError> {
    let mut cache = engine.vector_cache().0;
    let count = strategies.len();
    let mut searched = Vec::with_capacity(count);
    for (index, &strategy) in strategies.iter().enumerate() {
        let label = strategy.label(grid.chunk_tokens);
        let label = label.as_str();
        progress(SearchProgress::Preparing {
            index,
            count,
            label,
        });
        let mut model = Embedding::of(engine, &mut cache);
        model.contexts = contexts.as_deref_mut();
        let mut embedding = |part: &str, p: EmbedProgress| {
            progress(SearchProgress::Embedding {
                index,
                count,
                label,
                part,
                progress: p,
            });
        };
        let prepared = prepare_reporting(
            &mut model,
            &open.corpus,
            &open.layout,
            strategy,
            grid,
            &mut embedding,
        )?;
        save_cache(&mut cache)?;
        let one =
            SearchedStrategy::search(prepared, questions, vectors, grid, &mut |done, total| {
                progress(SearchProgress::Searching {
                    index,
                    count,
                    label,
                    done,
                    total,
                })
            })?;
        match one {
            Some(s) => searched.push(s),
            None => return Ok(None),
        }
    }
    Ok(Some(searched))
}

/// Seams at several margins beside chunks-only retrieval, each question searched once: the
/// margins are scored from the kept searches (cheap: only the questions are embedded when the
/// corpus is indexed at `k`). Each margin has a row with side drop off and one with it on.
/// `progress` hears the questions being embedded and each strategy's search.
pub fn sweep(
    engine: &mut Engine,
    open: &OpenCorpus,
    questions: &[Question],
    (ms, grid, k): (&[u32], GridSettings, usize),
    progress: &mut dyn FnMut(CompareProgress<'_>),
) -> Result<Vec<GridRow>, EngineError> {
    let vectors = embed_questions(engine, questions, &mut |done, total| {
        progress(CompareProgress::Questions { done, total });
        true
    })?
    .unwrap_or_default();
    let strategies = [Strategy::NoOverlap, Strategy::Seams { k }];
    let searched = search_strategies(
        engine,
        open,
        questions,
        &vectors,
        &strategies,
        &grid,
        &mut |p| {
            match p {
                SearchProgress::Preparing {
                    index,
                    count,
                    label,
                } => progress(CompareProgress::Strategy {
                    index,
                    count,
                    label,
                }),
                SearchProgress::Embedding { .. } => {}
                SearchProgress::Searching {
                    index,
                    count,
                    label,
                    done,
                    total,
                } => progress(CompareProgress::Searching {
                    index,
                    count,
                    label,
                    done,
                    total,
                }),
            }
            true
        },
    )?
    .unwrap_or_default();
    let (chunks, seams) = (&searched[0], &searched[1]);
    let mut rows = vec![chunks.row(&open.layout, questions, &grid)];
    rows[0].label = "chunks only".into();
    // Side drop gets its own rows, scored from the same searches (see DESIGN: off by default).
    let threshold = grid.side_drop.unwrap_or(DEFAULT_SIDE_DROP);
    for &m in ms {
        let plain = GridSettings {
            m,
            side_drop: None,
            ..grid
        };
        let mut row = seams.row(&open.layout, questions, &plain);
        row.label = format!("Seams k={k} m={m}");
        rows.push(row);
        let on = GridSettings {
            side_drop: Some(threshold),
            ..plain
        };
        let mut row = seams.row(&open.layout, questions, &on);
        row.label = format!("Seams k={k} m={m} + side drop {threshold:.2}");
        rows.push(row);
    }
    Ok(rows)
}

/// The strategy comparison of DESIGN.md §7 under `settings`' budget: every strategy of
/// [`Strategy::grid`] (Seams at each of `seam_k`) on every question. Strategies whose vectors
/// are not cached yet are embedded first (minutes on a CPU the first time); `progress` hears
/// the questions being embedded, each strategy as it starts and each question it searches.
pub fn compare(
    engine: &mut Engine,
    open: &OpenCorpus,
    questions: &[Question],
    settings: &Settings,
    seam_k: &[usize],
    progress: &mut dyn FnMut(CompareProgress<'_>),
) -> Result<Vec<GridRow>, EngineError> {
    let grid = GridSettings::from_settings(settings);
    let strategies = Strategy::grid(settings.chunk_tokens, settings.k, seam_k);
    let (mut cache, _) = engine.vector_cache();
    let mut model = Embedding::of(engine, &mut cache);
    run_grid(
        &mut model,
        &open.corpus,
        &open.layout,
        questions,
        &strategies,
        &grid,
        progress,
    )
}
