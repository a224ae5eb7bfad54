//! seamscope's engine: from a folder of documents to chunks, seams, indexes and query traces.
//!
//! The pipeline is a chain of plain data:
//! `Corpus → Chunks → Seams → Vectors + keyword indexes → Rankings → Fused ranking →
//! Fire decisions → Budget fill → Context`.
//! The engine never prints and never touches the terminal; front ends live in the binary.
//!
//! The whole pipeline, with the real model (installed by `seamscope setup`):
//!
//! ```no_run
//! use seamscope::session::Engine;
//! use seamscope::settings::Settings;
//!
//! let mut engine = Engine::load(Settings::default())?;
//! let open = engine.open_corpus("sample-corpus".as_ref(), &mut |_progress| true)?;
//! let settings = engine.settings.query_settings();
//! let (trace, _timings) = engine.ask(&open, "Why are stale reads accepted?", &settings)?;
//! for step in &trace.fill.steps {
//!     println!("{}: {}", open.entry_label(step.entry), step.action.describe());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every stage is plain data, so each can be used alone. Cutting a text and placing a seam
//! window over its cut, with a stand-in tokenizer of one token per word:
//!
//! ```
//! use seamscope::chunk::fixed::cut_fixed;
//! use seamscope::seam::{seam_window, sentence_edges};
//! use seamscope::tokens::TokenOffsets;
//!
//! let text = "Orders keep flowing in an outage. Reads may be stale for a while. \
//!             Billing records stay strongly consistent. Everything else may lag.";
//! let offsets = TokenOffsets::of_words(text);
//! let chunks = cut_fixed(text, &offsets, 8);
//! // The second cut falls inside "Billing records stay | strongly consistent."
//! assert_eq!(&text[chunks[1].start..chunks[1].end], "be stale for a while. Billing records stay ");
//! // A seam of k = 3 tokens a side, grown outward to sentence edges, holds the whole sentence.
//! let seam = seam_window(text, &offsets, &sentence_edges(text), chunks[1], chunks[2], 3);
//! assert_eq!(
//!     &text[seam.start..seam.end],
//!     "Billing records stay strongly consistent. Everything else may lag."
//! );
//! ```

// "The engine never prints": enforced here rather than in Cargo.toml, because the binary's CLI must.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod board;
pub mod calibrate;
pub mod chunk;
pub mod corpus;
pub mod cuts;
pub mod doctor;
pub mod embed;
pub mod eval;
pub mod export;
pub mod extract;
pub mod files;
pub mod index;
pub mod layout;
pub mod places;
pub mod retrieve;
pub mod seam;
pub mod session;
pub mod settings;
pub mod spec;
pub mod text;
pub mod tokens;
pub mod traces;
pub mod tune;
