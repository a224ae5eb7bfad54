//! seamscope: see where chunk boundaries fall in retrieval, and fix them with seams.

use std::process::ExitCode;

mod cli;
mod tui;

fn main() -> ExitCode {
    restore_default_sigpipe();
    cli::run()
}

/// A reader that goes away (`seamscope chunks --json | head`) ends seamscope quietly, as it ends
/// any Unix tool, instead of a panic in `println!` (Rust ignores SIGPIPE by default, so every
/// write after the reader left would fail).
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; `signal` with
    // `SIG_DFL` only resets the disposition of SIGPIPE and touches no memory of ours.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
