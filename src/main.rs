//! seamscope: see where chunk boundaries fall in retrieval, and fix them with seams.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    cli::run()
}
