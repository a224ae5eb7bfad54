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

/// The files the command's corpus left out, for its `--json` document (`None`: no corpus
/// loaded).
static SKIPPED: Mutex<Option<Vec<seamscope::corpus::SkippedFile>>> = Mutex::new(None);

/// Note the files a loaded corpus left out: [`release`] adds them to the `--json` document as
/// `skipped` when the command's own document does not list them already.
pub fn note_skipped(skipped: &[seamscope::corpus::SkippedFile]) {
    *SKIPPED.lock().unwrap_or_else(|p| p.into_inner()) = Some(skipped.to_vec());
}

/// A JSON object document with `"skipped": [...]` added before its closing brace, unless it
/// has that key already (or is not an object: an array's shape is left as it is).
pub fn with_skipped(document: &[u8], skipped: &[seamscope::corpus::SkippedFile]) -> Vec<u8> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(document)
    else {
        return document.to_vec();
    };
    if map.contains_key("skipped") {
        return document.to_vec();
    }
    let Some(close) = document.iter().rposition(|b| *b == b'}') else {
        return document.to_vec();
    };
    let list = serde_json::to_string(skipped).unwrap_or_else(|_| "[]".into());
    let comma = if map.is_empty() { "" } else { "," };
    let mut out = document[..close].to_vec();
    while out.last().is_some_and(u8::is_ascii_whitespace) {
        out.pop();
    }
    out.extend_from_slice(format!("{comma}\n  \"skipped\": {list}\n").as_bytes());
    out.extend_from_slice(&document[close..]);
    out
}

/// Write what was held (if anything) and flush stdout: the end of every successful run.
pub fn release() -> Result<(), StdoutError> {
    let held = take_held();
    let skipped = SKIPPED.lock().unwrap_or_else(|p| p.into_inner()).take();
    let mut stdout = io::stdout().lock();
    if let Some(mut bytes) = held {
        if let Some(skipped) = skipped {
            bytes = with_skipped(&bytes, &skipped);
        }
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

#[cfg(test)]
mod tests {
    use super::with_skipped;
    use seamscope::corpus::{SkipReason, SkippedFile};

    #[test]
    fn an_object_document_gains_the_skipped_list_once_and_other_shapes_stay() {
        let skipped = [SkippedFile {
            path: "a.docx".into(),
            reason: SkipReason::Empty,
        }];
        let parse = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
        let added = with_skipped(b"{\n  \"documents\": 2\n}\n", &skipped);
        let v = parse(&added);
        assert_eq!(v["documents"], 2);
        assert_eq!(v["skipped"][0]["path"], "a.docx");
        assert_eq!(v["skipped"][0]["reason"], "empty");
        assert_eq!(
            parse(&with_skipped(b"{}", &skipped))["skipped"][0]["path"],
            "a.docx"
        );
        let own = b"{\"skipped\": []}".to_vec();
        assert_eq!(with_skipped(&own, &skipped), own);
        let array = b"[{\"row\": 1}]".to_vec();
        assert_eq!(with_skipped(&array, &skipped), array);
    }
}
