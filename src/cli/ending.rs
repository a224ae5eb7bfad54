//! How a command ends: nothing more on success; on failure the error once on stderr
//! (terminal-safe), one JSON error document under `--json`, and the exit code (2 for usage).

use std::process::ExitCode;

use super::{UsageError, out};

/// The files a failed load skipped, when the error is "no usable documents".
fn skipped_files(error: &anyhow::Error) -> Option<&[seamscope::corpus::SkippedFile]> {
    use seamscope::corpus::CorpusError;
    use seamscope::session::EngineError;
    error.chain().find_map(|e| {
        let corpus =
            e.downcast_ref::<CorpusError>()
                .or_else(|| match e.downcast_ref::<EngineError>() {
                    Some(EngineError::Corpus(c)) => Some(c),
                    _ => None,
                });
        match corpus {
            Some(CorpusError::NoDocuments { skipped, .. }) => Some(skipped.as_slice()),
            _ => None,
        }
    })
}

/// An error as `--json` prints it on stdout: the message, and the skip list when nothing could
/// be loaded, so a script sees why without parsing stderr.
fn error_json(error: &anyhow::Error) -> serde_json::Value {
    let mut v = serde_json::json!({
        "error": {
            "message": error_text(error),
            "kind": error_kind(error),
        },
        "exit_code": exit_code(error),
    });
    if let Some(skipped) = skipped_files(error) {
        v["skipped"] = serde_json::to_value(skipped).unwrap_or_default();
    }
    v
}

/// What kind of failure an error is, for scripts: `usage` (the command line was wrong; exit 2)
/// or `failed` (the run failed; exit 1).
fn error_kind(error: &anyhow::Error) -> &'static str {
    if exit_code(error) == 2 {
        "usage"
    } else {
        "failed"
    }
}

/// The exit code for an error: 2 when the command line was wrong, 1 when the run failed.
fn exit_code(error: &anyhow::Error) -> u8 {
    if error.chain().any(|e| e.is::<UsageError>()) {
        2
    } else {
        1
    }
}

/// End a run: on success nothing more; on failure the error once on stderr (terminal-safe,
/// each cause said once) and, under `--json`, one error document on stdout in place of
/// whatever the command had written. A reader that went away ends the run quietly.
pub(super) fn finish(result: anyhow::Result<()>, json: bool) -> ExitCode {
    let Err(e) = result else {
        return ExitCode::SUCCESS;
    };
    let stdout_failed = e.chain().find_map(|c| c.downcast_ref::<out::StdoutError>());
    if stdout_failed.is_some_and(out::StdoutError::is_closed_pipe) {
        return ExitCode::SUCCESS;
    }
    let held = out::take_held();
    if json && stdout_failed.is_none() {
        let mut document = error_json(&e);
        if let Some(partial) =
            held.and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        {
            document["output"] = partial;
        }
        let text = serde_json::to_string_pretty(&document).unwrap_or_default();
        if let Err(write) = outln!("{text}").and_then(|()| out::release()) {
            errln!("error: {write}");
        }
    }
    errln!("error: {}", error_text(&e));
    ExitCode::from(exit_code(&e))
}

/// An error and its causes on one line, `outer: cause: root`, leaving out a cause whose words
/// the text already holds (an OS error a message quoted and also carries as its source).
fn error_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    // A service's key never reaches stderr or the --json document, whatever message held it.
    seamscope::text::safe(&seamscope::text::redact::scrub(&text))
}
