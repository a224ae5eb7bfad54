//! Evaluation: question sets with gold answer spans, and how retrieval did on them.

pub mod questions;
