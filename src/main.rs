//! seamscope: see where chunk boundaries fall in retrieval, and fix them with seams.

use std::process::ExitCode;

mod cli;
mod tui;

fn main() -> ExitCode {
    cli::run()
}
