//! Evaluation: question sets with gold answer spans, and how retrieval did on them.

pub mod baseline;
pub mod collection;
pub mod contextual;
pub mod embedding;
pub mod evidence;
pub mod failure;
pub mod grid;
pub mod grid_settings;
pub mod metrics;
pub mod placement;
pub mod prepare;
pub mod questions;
pub mod rescore;
pub mod run;
pub mod score;
pub mod select;
pub mod strategy;
pub mod survival;

pub use run::{CompareProgress, compare, search_strategies, sweep};
