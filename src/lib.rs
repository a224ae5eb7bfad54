//! seamscope's engine: from a folder of documents to chunks, seams, indexes and query traces.
//!
//! The pipeline is a chain of plain data:
//! `Corpus → Chunks → Seams → Vectors + keyword indexes → Rankings → Fused ranking →
//! Fire decisions → Budget fill → Context`.
//! The engine never prints and never touches the terminal; front ends live in the binary.

pub mod calibrate;
pub mod chunk;
pub mod corpus;
pub mod embed;
pub mod eval;
pub mod index;
pub mod layout;
pub mod retrieve;
pub mod seam;
pub mod session;
pub mod settings;
pub mod text;
pub mod tokens;
