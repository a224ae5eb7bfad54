//! Reading a cuts file: JSON Lines or one JSON array, each record in one of three formats,
//! recognised from the first record and then required of every record.
//!
//! - **plain**: `{"doc": "guide.md", "start": 0, "end": 120}`, offsets in bytes unless the file
//!   opens with `{"offsets": "chars"}` or the record says `"offsets": "chars"`; an optional
//!   `"text"` is checked against the span. A bundle's `chunks.jsonl` is a plain cuts file.
//! - **LangChain** `Document`s: `page_content` and `metadata.source`, with `metadata.start_index`
//!   (characters) when the splitter ran with `add_start_index=True`. Also the serialised form
//!   `{"lc": 1, "kwargs": {...}}`.
//! - **LlamaIndex** nodes: `metadata.file_path` (or `file_name`), `start_char_idx`,
//!   `end_char_idx` (characters) and `text`.

// A refusal is built once per file, before any work: its size does not matter, and boxing every
// problem would only make the code harder to read.
#![allow(clippy::result_large_err)]

use serde_json::{Map, Value};

use super::{CutsFormat, CutsProblem, OffsetUnit, RecordAt};

/// A problem and the record it is in, when one is to blame.
pub type Located = (Option<RecordAt>, CutsProblem);

/// One record as read, before it is placed in its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCut {
    /// Where the record is in the file.
    pub at: RecordAt,
    /// The document as the record names it (a path in any of the forms matching accepts).
    pub doc: String,
    /// The first offset, when the record gives one (LangChain's `-1` reads as none).
    pub start: Option<usize>,
    /// The end offset, when the record gives one.
    pub end: Option<usize>,
    /// What the offsets count.
    pub unit: OffsetUnit,
    /// The chunk's text, when the record holds it: checked against the span, or searched for
    /// when there are no offsets.
    pub text: Option<String>,
    /// The page the record's offsets count from (1-based), when a loader made one document per
    /// page (LangChain's `metadata.page`, LlamaIndex's `metadata.page_label`).
    pub page: Option<u32>,
}

/// The page a loader's `metadata` names, 1-based: LangChain's `page` counts from 0, a
/// `page_label` ("7") as written; a label that is not a number ("iv") names no page.
pub fn page_of(meta: &Map<String, Value>) -> Option<u32> {
    if let Some(p) = meta.get("page").and_then(Value::as_u64) {
        return u32::try_from(p).ok()?.checked_add(1);
    }
    match meta.get("page_label") {
        Some(Value::String(label)) => label.trim().parse::<u32>().ok().filter(|p| *p > 0),
        Some(Value::Number(n)) => n.as_u64().and_then(|p| u32::try_from(p).ok()),
        _ => None,
    }
}

/// Every record of a cuts file's `content`, and the format they are in.
pub fn read_records(content: &str) -> Result<(CutsFormat, Vec<RawCut>), Located> {
    let values = json_values(content)?;
    let mut default_unit = OffsetUnit::Bytes;
    let mut format: Option<(CutsFormat, RecordAt)> = None;
    let mut out = Vec::new();
    for (i, (at, value)) in values.into_iter().enumerate() {
        let Value::Object(map) = value else {
            return Err((Some(at), CutsProblem::NotAnObject));
        };
        // A header record: only `offsets`, only first.
        if map.len() == 1 && map.contains_key("offsets") {
            if i > 0 || format.is_some() {
                return Err((Some(at), CutsProblem::LateHeader));
            }
            default_unit = unit_of(&map)
                .map_err(|p| (Some(at), p))?
                .unwrap_or_default();
            continue;
        }
        let map = unwrap_serialised(map);
        let this = detect(&map).ok_or((Some(at), CutsProblem::UnknownRecord))?;
        match format {
            None => format = Some((this, at)),
            Some((first, first_at)) if first != this => {
                return Err((
                    Some(at),
                    CutsProblem::MixedFormats {
                        this,
                        first,
                        first_at,
                    },
                ));
            }
            Some(_) => {}
        }
        let cut = match this {
            CutsFormat::Plain => plain(at, &map, default_unit),
            CutsFormat::LangChain => langchain(at, &map),
            CutsFormat::LlamaIndex => llamaindex(at, &map),
        }
        .map_err(|p| (Some(at), p))?;
        out.push(cut);
    }
    match format {
        Some((f, _)) => Ok((f, out)),
        None => Err((None, CutsProblem::NoRecords)),
    }
}

/// One record on its own (a trace's retrieved document written as a LangChain `Document`, a
/// LlamaIndex node or a plain record), in whichever format it is.
pub fn read_record(at: RecordAt, value: Value) -> Result<RawCut, CutsProblem> {
    let Value::Object(map) = value else {
        return Err(CutsProblem::NotAnObject);
    };
    let map = unwrap_serialised(map);
    match detect(&map).ok_or(CutsProblem::UnknownRecord)? {
        CutsFormat::Plain => plain(at, &map, unit_of(&map)?.unwrap_or_default()),
        CutsFormat::LangChain => langchain(at, &map),
        CutsFormat::LlamaIndex => llamaindex(at, &map),
    }
}

/// The JSON values of the file with where each is: one per non-blank line, or the items of one
/// array when the file starts with `[`.
pub fn json_values(content: &str) -> Result<Vec<(RecordAt, Value)>, Located> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    if content.trim_start().starts_with('[') {
        let items: Vec<Value> = serde_json::from_str(content).map_err(|e| {
            (
                Some(RecordAt::Line(e.line())),
                CutsProblem::Json(e.to_string()),
            )
        })?;
        return Ok(items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (RecordAt::Item(i + 1), v))
            .collect());
    }
    let mut out = Vec::new();
    for (i, line) in content.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = RecordAt::Line(i + 1);
        let value =
            serde_json::from_str(line).map_err(|e| (Some(at), CutsProblem::Json(e.to_string())))?;
        out.push((at, value));
    }
    Ok(out)
}

/// LangChain's `dumpd` form (`{"lc": 1, "type": "constructor", "kwargs": {...}}`) unwrapped to
/// its fields; anything else as it is.
pub fn unwrap_serialised(mut map: Map<String, Value>) -> Map<String, Value> {
    if map.contains_key("lc")
        && let Some(Value::Object(kwargs)) = map.remove("kwargs")
    {
        return kwargs;
    }
    map
}

/// Which format a record is in, from the fields only that format has.
fn detect(map: &Map<String, Value>) -> Option<CutsFormat> {
    let meta = map.get("metadata").and_then(Value::as_object);
    if map.contains_key("page_content") {
        Some(CutsFormat::LangChain)
    } else if map.contains_key("start_char_idx")
        || map.contains_key("end_char_idx")
        || meta.is_some_and(|m| m.contains_key("file_path") || m.contains_key("file_name"))
    {
        Some(CutsFormat::LlamaIndex)
    } else if map.contains_key("doc") {
        Some(CutsFormat::Plain)
    } else {
        None
    }
}

fn unit_of(map: &Map<String, Value>) -> Result<Option<OffsetUnit>, CutsProblem> {
    match map.get("offsets") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "bytes" => Ok(Some(OffsetUnit::Bytes)),
        Some(Value::String(s)) if s == "chars" => Ok(Some(OffsetUnit::Chars)),
        Some(other) => Err(CutsProblem::BadField {
            field: "offsets",
            why: format!("is {other}; it must be \"bytes\" or \"chars\""),
        }),
    }
}

/// A non-negative whole number, absent (or null), or an error naming the field. `minus_one`:
/// `-1` reads as absent (LangChain writes it when its own search for the chunk failed).
fn offset(
    map: &Map<String, Value>,
    field: &'static str,
    minus_one: bool,
) -> Result<Option<usize>, CutsProblem> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                return usize::try_from(u)
                    .map(Some)
                    .map_err(|_| CutsProblem::BadField {
                        field,
                        why: format!("{u} is too large"),
                    });
            }
            if minus_one && n.as_i64() == Some(-1) {
                return Ok(None);
            }
            Err(CutsProblem::BadField {
                field,
                why: format!("is {n}; offsets are whole numbers from 0"),
            })
        }
        Some(other) => Err(CutsProblem::BadField {
            field,
            why: format!("is {other}; offsets are whole numbers from 0"),
        }),
    }
}

fn string(map: &Map<String, Value>, field: &'static str) -> Result<Option<String>, CutsProblem> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(CutsProblem::BadField {
            field,
            why: format!("is {other}, not a string"),
        }),
    }
}

fn plain(at: RecordAt, map: &Map<String, Value>, unit: OffsetUnit) -> Result<RawCut, CutsProblem> {
    let doc = string(map, "doc")?.ok_or(CutsProblem::MissingField("doc"))?;
    let start = offset(map, "start", false)?;
    let end = offset(map, "end", false)?;
    let text = string(map, "text")?;
    if start.is_none() && text.is_none() {
        return Err(CutsProblem::MissingField("start"));
    }
    if end.is_none() && text.is_none() {
        return Err(CutsProblem::MissingField("end"));
    }
    Ok(RawCut {
        at,
        doc,
        start,
        end,
        unit: unit_of(map)?.unwrap_or(unit),
        text,
        page: None,
    })
}

fn langchain(at: RecordAt, map: &Map<String, Value>) -> Result<RawCut, CutsProblem> {
    let text = string(map, "page_content")?;
    let meta = map
        .get("metadata")
        .and_then(Value::as_object)
        .ok_or(CutsProblem::MissingField("metadata.source"))?;
    let doc = string(meta, "source")?.ok_or(CutsProblem::MissingField("metadata.source"))?;
    Ok(RawCut {
        at,
        doc,
        start: offset(meta, "start_index", true)?,
        end: None,
        unit: OffsetUnit::Chars,
        text,
        page: page_of(meta),
    })
}

fn llamaindex(at: RecordAt, map: &Map<String, Value>) -> Result<RawCut, CutsProblem> {
    let meta = map.get("metadata").and_then(Value::as_object);
    let doc = match meta {
        Some(m) => match string(m, "file_path")? {
            Some(p) => Some(p),
            None => string(m, "file_name")?,
        },
        None => None,
    }
    .ok_or(CutsProblem::MissingField("metadata.file_path"))?;
    let start = offset(map, "start_char_idx", false)?;
    let end = offset(map, "end_char_idx", false)?;
    let text = string(map, "text")?;
    if (start.is_none() || end.is_none()) && text.is_none() {
        return Err(CutsProblem::MissingField("start_char_idx"));
    }
    Ok(RawCut {
        at,
        doc,
        start,
        end,
        unit: OffsetUnit::Chars,
        text,
        page: meta.and_then(page_of),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(content: &str) -> Result<(CutsFormat, Vec<RawCut>), Located> {
        read_records(content)
    }

    #[test]
    fn plain_lines_in_bytes_or_chars() {
        let (f, cuts) = read("{\"doc\": \"a.md\", \"start\": 0, \"end\": 5}\n\n{\"doc\": \"a.md\", \"start\": 5, \"end\": 9, \"offsets\": \"chars\"}\n").unwrap();
        assert_eq!(f, CutsFormat::Plain);
        assert_eq!(cuts[0].at, RecordAt::Line(1));
        assert_eq!(
            (cuts[0].start, cuts[0].end, cuts[0].unit),
            (Some(0), Some(5), OffsetUnit::Bytes)
        );
        assert_eq!(
            cuts[1].at,
            RecordAt::Line(3),
            "blank lines keep their numbers"
        );
        assert_eq!(cuts[1].unit, OffsetUnit::Chars);
        let (_, cuts) =
            read("{\"offsets\": \"chars\"}\n{\"doc\": \"a.md\", \"start\": 0, \"end\": 5}\n")
                .unwrap();
        assert_eq!(
            (cuts[0].unit, cuts[0].at),
            (OffsetUnit::Chars, RecordAt::Line(2))
        );
    }

    #[test]
    fn langchain_documents_as_lines_array_or_serialised() {
        let line = r#"{"page_content": "Hello", "metadata": {"source": "x/a.md", "start_index": 7}, "type": "Document"}"#;
        let (f, cuts) = read(line).unwrap();
        assert_eq!(f, CutsFormat::LangChain);
        assert_eq!(cuts[0].doc, "x/a.md");
        assert_eq!(
            (cuts[0].start, cuts[0].end, cuts[0].unit),
            (Some(7), None, OffsetUnit::Chars)
        );
        assert_eq!(cuts[0].text.as_deref(), Some("Hello"));
        let array = format!(
            "[\n  {line},\n  {}\n]",
            r#"{"page_content": "x", "metadata": {"source": "a.md", "start_index": -1}}"#
        );
        let (_, cuts) = read(&array).unwrap();
        assert_eq!(cuts[1].at, RecordAt::Item(2));
        assert_eq!(cuts[1].start, None, "-1 is LangChain's 'not found'");
        let dumped = r#"{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"], "kwargs": {"page_content": "Hi", "metadata": {"source": "a.md"}}}"#;
        let (f, cuts) = read(dumped).unwrap();
        assert_eq!((f, cuts[0].start), (CutsFormat::LangChain, None));
    }

    #[test]
    fn llamaindex_nodes() {
        let node = r#"{"id_": "n1", "class_name": "TextNode", "metadata": {"file_path": "/data/c/a.md", "file_name": "a.md"}, "text": "Hi", "start_char_idx": 3, "end_char_idx": 5}"#;
        let (f, cuts) = read(node).unwrap();
        assert_eq!(f, CutsFormat::LlamaIndex);
        assert_eq!(
            (cuts[0].doc.as_str(), cuts[0].start, cuts[0].end),
            ("/data/c/a.md", Some(3), Some(5))
        );
        let by_name =
            r#"{"metadata": {"file_name": "a.md"}, "start_char_idx": 0, "end_char_idx": 2}"#;
        assert_eq!(read(by_name).unwrap().1[0].doc, "a.md");
    }

    #[test]
    fn bad_records_name_their_line_and_reason() {
        let err = |content: &str| read(content).unwrap_err();
        assert_eq!(
            err("{\"doc\": \"a\", \"start\": 0, \"end\": 1}\nnot json\n").0,
            Some(RecordAt::Line(2))
        );
        assert!(matches!(
            err("{\"doc\": \"a\", \"start\": 0}").1,
            CutsProblem::MissingField("end")
        ));
        assert!(matches!(
            err("{\"doc\": \"a\", \"start\": -3, \"end\": 1}").1,
            CutsProblem::BadField { field: "start", .. }
        ));
        assert!(matches!(
            err("{\"doc\": \"a\", \"start\": 0, \"end\": 1, \"offsets\": \"words\"}").1,
            CutsProblem::BadField {
                field: "offsets",
                ..
            }
        ));
        assert!(matches!(err("{\"id\": 3}").1, CutsProblem::UnknownRecord));
        assert!(matches!(err("[1]").1, CutsProblem::NotAnObject));
        assert!(matches!(err("\n\n").1, CutsProblem::NoRecords));
        let mixed = err(
            "{\"doc\": \"a\", \"start\": 0, \"end\": 1}\n{\"page_content\": \"x\", \"metadata\": {\"source\": \"a\"}}\n",
        );
        assert_eq!(mixed.0, Some(RecordAt::Line(2)));
        assert!(matches!(
            mixed.1,
            CutsProblem::MixedFormats {
                first: CutsFormat::Plain,
                this: CutsFormat::LangChain,
                ..
            }
        ));
        assert!(matches!(
            err("{\"doc\": \"a\", \"start\": 0, \"end\": 1}\n{\"offsets\": \"chars\"}").1,
            CutsProblem::LateHeader
        ));
        assert!(matches!(
            err("{\"page_content\": \"x\", \"metadata\": {}}").1,
            CutsProblem::MissingField("metadata.source")
        ));
    }
}
