//! The wire under the MCP server: every line from stdin is checked before rmcp sees it, so a
//! line that is not a message gets a JSON-RPC error instead of silence (rmcp drops unparsable
//! input without a word, and a client would wait forever). Garbage, invalid UTF-8, nesting past
//! serde_json's limit of 128 and lines over [`MAX_LINE_BYTES`] (read without holding them whole)
//! are `-32700` parse errors with `id: null`; JSON that is not a JSON-RPC message is `-32600`
//! with its id when one can be read; `tools/call` whose `arguments` is not an object is
//! `-32602`. What passes goes to rmcp through an in-memory pipe; rmcp's answers and these errors
//! reach stdout through one writer, a whole line at a time, with C1 controls and bidi overrides
//! written as `\u` escapes.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

/// The longest line read as a message: 4 MiB (a question is at most 2,000 characters; the
/// longest legitimate call is a few KB).
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// JSON-RPC: the line is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON, but not a request.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: a request whose params have the wrong shape.
const INVALID_PARAMS: i64 = -32602;

/// Whether a tool's arguments have the shape it reads (`Err`: why not, for a `-32602`).
pub type ArgumentCheck = fn(tool: &str, arguments: &Value) -> Result<(), String>;

/// Room in the pipes between the wire and rmcp.
const PIPE_BYTES: usize = 64 * 1024;

/// Start the wire on stdin / stdout: the reader and writer rmcp serves on, and the task that
/// writes stdout (await it after the session ends, so the last answers are out).
pub fn start(arguments: ArgumentCheck) -> ((DuplexStream, DuplexStream), JoinHandle<()>) {
    let (to_server, server_in) = tokio::io::duplex(PIPE_BYTES);
    let (server_out, from_server) = tokio::io::duplex(PIPE_BYTES);
    let (lines, mut outgoing) = unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = outgoing.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let answers = lines.clone();
    tokio::spawn(async move {
        let mut from_server = BufReader::new(from_server);
        let mut line = Vec::new();
        loop {
            line.clear();
            match from_server.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    // C1 controls and bidi overrides as \u escapes, as for every JSON document
                    // seamscope prints: the same message to a parser, inert if a client shows it.
                    // A service key in any answer (a trace's rerank error under `detail:
                    // "full"`) is masked: values only, which keeps the JSON whole.
                    let scrubbed =
                        seamscope::text::redact::scrub_values(&String::from_utf8_lossy(&line));
                    let safe = crate::cli::out::json_safe(scrubbed.as_bytes()).into_bytes();
                    if answers.send(safe).is_err() {
                        break;
                    }
                }
            }
        }
    });
    tokio::spawn(gate(tokio::io::stdin(), to_server, lines, arguments));
    ((server_in, server_out), writer)
}

/// Read `input` line by line, pass messages to `server`, answer the rest on `replies`.
async fn gate(
    input: impl tokio::io::AsyncRead + Unpin,
    mut server: DuplexStream,
    replies: UnboundedSender<Vec<u8>>,
    arguments: ArgumentCheck,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let verdict = match read_line(&mut input, &mut line, MAX_LINE_BYTES).await {
            Ok(LineRead::Eof) | Err(_) => break,
            Ok(LineRead::Oversized) => Err(error_response(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "parse error: a line longer than {MAX_LINE_BYTES} bytes (4 MiB) was skipped unread"
                ),
            )),
            Ok(LineRead::Line) => check(&line, arguments),
        };
        match verdict {
            Ok(true) => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if server.write_all(&line).await.is_err() {
                    break;
                }
            }
            Ok(false) => {}
            Err(reply) => {
                let mut bytes = reply.to_string().into_bytes();
                bytes.push(b'\n');
                if replies.send(bytes).is_err() {
                    break;
                }
            }
        }
    }
    // Dropping `server` tells rmcp the client closed its end.
}

/// How a line read ended.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// A whole line is in the buffer (the last one may lack its newline).
    Line,
    /// The line was longer than the limit: skipped, none of it kept.
    Oversized,
    /// The input ended.
    Eof,
}

/// Read one line into `line`, never holding more than `max` bytes of it: a longer line is read
/// to its end and dropped.
async fn read_line(
    input: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    let mut oversized = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(if oversized {
                LineRead::Oversized
            } else if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if !oversized && line.len() + take > max {
            oversized = true;
            line.clear();
        }
        if !oversized {
            line.extend_from_slice(&available[..take]);
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(if oversized {
                LineRead::Oversized
            } else {
                LineRead::Line
            });
        }
    }
}

/// Whether a line goes to the server (`Ok(true)`), is blank (`Ok(false)`), or is answered here
/// with the error response in `Err`.
fn check(line: &[u8], tool_arguments: ArgumentCheck) -> Result<bool, Value> {
    let Some(value) = parse_line(line)? else {
        return Ok(false);
    };
    let Value::Object(message) = &value else {
        return Err(error_response(
            Value::Null,
            INVALID_REQUEST,
            "invalid request: a message is one JSON object (MCP has no batches)".to_string(),
        ));
    };
    let id = match message.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    let invalid = |code: i64, why: &str| Err(error_response(id.clone(), code, why.to_string()));
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid(
            INVALID_REQUEST,
            "invalid request: \"jsonrpc\" must be \"2.0\"",
        );
    }
    if message
        .get("id")
        .is_some_and(|i| id.is_null() && !i.is_null())
    {
        return invalid(
            INVALID_REQUEST,
            "invalid request: \"id\" must be a number or a string",
        );
    }
    let method = match message.get("method") {
        Some(Value::String(method)) => method.as_str(),
        Some(_) => {
            return invalid(
                INVALID_REQUEST,
                "invalid request: \"method\" must be a string",
            );
        }
        // A client's response to a request of the server.
        None if message.contains_key("result") || message.contains_key("error") => {
            return Ok(true);
        }
        None => return invalid(INVALID_REQUEST, "invalid request: no \"method\""),
    };
    let params = message.get("params");
    if params.is_some_and(|p| !p.is_object() && !p.is_null()) {
        return invalid(
            INVALID_PARAMS,
            "invalid params: \"params\" must be an object",
        );
    }
    if method == "tools/call"
        && let Err((code, why)) = check_tool_call(params.and_then(Value::as_object), tool_arguments)
    {
        return invalid(code, &why);
    }
    // A request rmcp cannot read would be answered without its id: answer it here, with it.
    if message.contains_key("id")
        && let Err(e) = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value.clone())
    {
        return invalid(INVALID_REQUEST, &format!("invalid request: {e}"));
    }
    Ok(true)
}

/// The JSON value of one line: `Ok(None)` for a blank line, `Err` with the parse error's
/// response for a line that is not UTF-8 or not JSON. A trailing newline and a leading BOM are
/// ignored.
fn parse_line(line: &[u8]) -> Result<Option<Value>, Value> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|e| {
        error_response(
            Value::Null,
            PARSE_ERROR,
            format!("parse error: the line is not UTF-8 ({e})"),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| error_response(Value::Null, PARSE_ERROR, format!("parse error: {e}")))?;
    Ok(Some(value))
}

/// The checks of a `tools/call` request's params: a tool name, and arguments (an object, if
/// any) that the tool accepts; `Err` with the error code and message otherwise.
fn check_tool_call(
    params: Option<&serde_json::Map<String, Value>>,
    tool_arguments: ArgumentCheck,
) -> Result<(), (i64, String)> {
    if !params
        .and_then(|p| p.get("name"))
        .is_some_and(Value::is_string)
    {
        return Err((
            INVALID_PARAMS,
            "invalid params: tools/call needs \"name\", the tool's name as a string".to_string(),
        ));
    }
    let arguments = params
        .and_then(|p| p.get("arguments"))
        .filter(|a| !a.is_null());
    if let Some(arguments) = arguments
        && !arguments.is_object()
    {
        return Err((
            INVALID_PARAMS,
            format!(
                "invalid params: \"arguments\" must be an object of the tool's inputs, not {}",
                kind_of(arguments)
            ),
        ));
    }
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let empty = json!({});
    if let Err(why) = tool_arguments(name, arguments.unwrap_or(&empty)) {
        return Err((
            INVALID_PARAMS,
            format!("invalid params: the arguments of {name}: {why}"),
        ));
    }
    Ok(())
}

/// A JSON value's kind in words.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON-RPC error response.
fn error_response(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tool `strict` takes `{"n": number}`; other tools anything.
    fn arguments(tool: &str, arguments: &Value) -> Result<(), String> {
        match tool {
            "strict" if !arguments["n"].is_number() => Err("n must be a number".into()),
            _ => Ok(()),
        }
    }

    fn check(line: &[u8]) -> Result<bool, Value> {
        super::check(line, arguments)
    }

    fn code(line: &str) -> (i64, Value) {
        let reply = check(line.as_bytes()).expect_err("an error response");
        (
            reply["error"]["code"].as_i64().unwrap_or(0),
            reply["id"].clone(),
        )
    }

    #[test]
    fn lines_that_are_not_messages_get_their_error() {
        assert_eq!(code("garbage"), (PARSE_ERROR, Value::Null));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(code(&deep), (PARSE_ERROR, Value::Null));
        let bad_utf8 = check(b"{\"jsonrpc\": \"2.0\xff\"}").expect_err("refused");
        assert_eq!(bad_utf8["error"]["code"], PARSE_ERROR);
        assert_eq!(code("[1, 2]"), (INVALID_REQUEST, Value::Null));
        assert_eq!(
            code(r#"{"id": 7, "method": "ping"}"#),
            (INVALID_REQUEST, json!(7))
        );
        assert_eq!(
            code(r#"{"jsonrpc": "2.0", "id": "a", "method": 5}"#),
            (INVALID_REQUEST, json!("a"))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "query", "arguments": [1]}}"#
            ),
            (INVALID_PARAMS, json!(3))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "strict", "arguments": {"n": "one"}}}"#
            ),
            (INVALID_PARAMS, json!(4))
        );
        assert_eq!(check(b"  \r\n"), Ok(false));
        assert_eq!(
            check(br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#),
            Ok(true)
        );
    }

    #[tokio::test]
    async fn an_oversized_line_is_skipped_without_being_held() {
        let mut text = vec![b'x'; 100];
        text.extend_from_slice(b"\n{}\n");
        let mut input = BufReader::with_capacity(8, &text[..]);
        let mut line = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut line, 16).await.unwrap(),
            LineRead::Oversized
        );
        assert!(line.len() <= 16);
        line.clear();
        assert_eq!(
            read_line(&mut input, &mut line, 16).await.unwrap(),
            LineRead::Line
        );
        assert_eq!(line, b"{}\n");
        line.clear();
        assert_eq!(
            read_line(&mut input, &mut line, 16).await.unwrap(),
            LineRead::Eof
        );
    }
}
