//! `seamscope bench`: the speed figures the issues name, printed (never asserted in tests).

pub mod ingest;
pub mod query;

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchKind {
    /// Ingest tokens/s and the pipeline's overhead over calling the model directly.
    Ingest,
    /// Re-planning after an `m` change, and a full query against embedding the question alone.
    Query,
}
