//! Retrieval after search: fuse the ranked lists, run the fire test, rerank around fired seams,
//! fill the budget, and record it all in a [`Trace`].
//!
//! The stages live in the [`seams`] crate (`crates/seams`), which takes ranked lists of ids and the
//! seam links and nothing else from seamscope, so a pipeline elsewhere (and the Python package
//! built on it) applies the same Seams stage to its own rankings. This module re-exports all of
//! it, so `seamscope::retrieve::fuse::FusedEntry`, `seamscope::retrieve::Trace` and the rest are
//! the very same items. Search (dense and BM25) lives in [`crate::index`]; what it returns is
//! cached in a [`QueryInput`], and [`replan`] recomputes the rest in microseconds.

pub use seams::*;
