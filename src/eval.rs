//! Evaluation: question sets with gold answer spans, and how retrieval did on them.

pub mod metrics;
pub mod questions;
pub mod run;
