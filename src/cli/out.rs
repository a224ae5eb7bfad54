//! Where the command line's words go. stdout is written fallibly and terminal-safe (a full disk is an error with
//! exit 1, not a panic in `println!`) and, under `--json`, held until the command ends so that
//! a run prints exactly one JSON document: its own, or an error document when it fails. Every
//! message on stderr passes through [`seamscope::text::safe`] here, at the one sink, so no text
//! from a file, a server or the OS can reach the terminal as an escape sequence.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;

/// stdout held back while a `--json` command runs (`None`: written straight through).
static HELD: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// stdout could not be written: a full disk, a closed pipe, a revoked terminal.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to standard output: {0}")]
pub struct StdoutError(io::Error);

impl StdoutError {
    /// Whether the reader went away (`seamscope chunks --json | head`): the run ends quietly.
    pub fn is_closed_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Hold stdout until [`release`] or [`take_held`]: a `--json` command's one document.
pub fn hold() {
    *HELD.lock().unwrap_or_else(|p| p.into_inner()) = Some(Vec::new());
}

/// Write to stdout (or to the held document); the macros [`outln!`] and [`out!`] call this.
pub fn write(args: fmt::Arguments) -> Result<(), StdoutError> {
    let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
    match held.as_mut() {
        Some(buffer) => buffer.write_fmt(args).map_err(StdoutError),
        None => {
            let text = seamscope::text::safe(&args.to_string());
            io::stdout()
                .lock()
                .write_all(text.as_bytes())
                .map_err(StdoutError)
        }
    }
}

/// What a `--json` command had written when it failed, taken back so it is not printed as is
/// (`None` when stdout was not held).
pub fn take_held() -> Option<Vec<u8>> {
    HELD.lock().unwrap_or_else(|p| p.into_inner()).take()
}

/// Write what was held (if anything) and flush stdout: the end of every successful run.
pub fn release() -> Result<(), StdoutError> {
    let held = take_held();
    let mut stdout = io::stdout().lock();
    if let Some(bytes) = held {
        stdout
            .write_all(json_safe(&bytes).as_bytes())
            .map_err(StdoutError)?;
    }
    stdout.flush().map_err(StdoutError)
}

/// A held JSON document with the characters a terminal may act on but JSON leaves raw (C1
/// controls, DEL, bidirectional overrides) written as `\uXXXX` escapes: the same document to a
/// parser, inert on a screen. (serde_json already escapes C0 controls, ESC included; these
/// characters can only occur inside strings, where an escape means the same.)
pub fn json_safe(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{7f}'..='\u{9f}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// One message line on stderr, made terminal-safe; a failure to write it is ignored (there is
/// nowhere left to say so).
pub fn message(args: fmt::Arguments, newline: bool) {
    let text = seamscope::text::safe(&args.to_string());
    let mut stderr = io::stderr().lock();
    let _ = if newline {
        writeln!(stderr, "{text}")
    } else {
        write!(stderr, "{text}")
    };
}

/// `println!` that returns a [`StdoutError`] instead of panicking.
macro_rules! outln {
    () => {
        $crate::cli::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that returns a [`StdoutError`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!($($arg)*))
    };
}

/// `eprintln!` through the terminal-safe sink.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::out::message(format_args!($($arg)*), true)
    };
}

/// `eprint!` through the terminal-safe sink.
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::cli::out::message(format_args!($($arg)*), false)
    };
}
