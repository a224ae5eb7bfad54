//! Evaluation: question sets with gold answer spans, and how retrieval did on them.

pub mod baseline;
pub mod collection;
pub mod grid;
pub mod metrics;
pub mod questions;
pub mod rescore;
pub mod select;
pub mod strategy;
