//! A cuts file as its writer wrote it: the records of a splitter's dump (plain, LangChain or
//! LlamaIndex) and what can be wrong with one. Below both the corpus (which may rebuild its
//! documents from a split dump alone) and the `given` chunker (which places the records in the
//! documents), so neither reaches into the other.

mod problems;
pub mod records;

pub use problems::{CutsError, CutsFormat, CutsProblem, OffsetUnit, RecordAt};
