//! Span attributes in one form: a flat map of dotted keys to plain JSON values, whether they
//! came as OTLP's `[{key, value: {stringValue: …}}]` list, as a flat object of dotted keys, or
//! as nested objects (`{"retrieval": {"documents": [{"document": {…}}]}}`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Attributes by dotted key.
pub type Attrs = BTreeMap<String, Value>;

/// The attributes of a span, in whichever of the three forms they came.
pub fn attributes(value: &Value) -> Attrs {
    let mut out = Attrs::new();
    match value {
        Value::Array(list) => {
            for kv in list {
                if let (Some(key), Some(v)) =
                    (kv.get("key").and_then(Value::as_str), kv.get("value"))
                {
                    flatten_into(key, any_value(v), &mut out);
                }
            }
        }
        Value::Object(map) => {
            for (key, v) in map {
                flatten_into(key, v.clone(), &mut out);
            }
        }
        _ => {}
    }
    out
}

/// OTLP's `AnyValue` as plain JSON (`intValue` may come as a string, as proto3 JSON writes
/// 64-bit integers).
pub fn any_value(v: &Value) -> Value {
    let Some(obj) = v.as_object() else {
        return v.clone();
    };
    if let Some(s) = obj.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = obj.get("intValue") {
        return match i {
            Value::String(s) => s
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| Value::String(s.clone())),
            other => other.clone(),
        };
    }
    if let Some(d) = obj.get("doubleValue") {
        return d.clone();
    }
    if let Some(b) = obj.get("boolValue") {
        return b.clone();
    }
    if let Some(a) = obj.get("arrayValue") {
        let values = a.get("values").and_then(Value::as_array);
        return Value::Array(
            values
                .map(|v| v.iter().map(any_value).collect())
                .unwrap_or_default(),
        );
    }
    if let Some(kv) = obj.get("kvlistValue") {
        let mut map = Map::new();
        for pair in kv
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(key), Some(v)) =
                (pair.get("key").and_then(Value::as_str), pair.get("value"))
            {
                map.insert(key.to_string(), any_value(v));
            }
        }
        return Value::Object(map);
    }
    if obj.is_empty() {
        return Value::Null;
    }
    v.clone()
}

/// Put `value` under `key`, nested objects and arrays as further dotted keys.
fn flatten_into(key: &str, value: Value, out: &mut Attrs) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                flatten_into(&format!("{key}.{k}"), v, out);
            }
        }
        // An array of objects is a list of records (`retrieval.documents`); an array of plain
        // values stays one value.
        Value::Array(items) if items.iter().any(Value::is_object) => {
            for (i, v) in items.into_iter().enumerate() {
                flatten_into(&format!("{key}.{i}"), v, out);
            }
        }
        other => {
            out.insert(key.to_string(), other);
        }
    }
}

/// A string attribute.
pub fn str_of<'a>(attrs: &'a Attrs, key: &str) -> Option<&'a str> {
    attrs.get(key).and_then(Value::as_str)
}

/// The numbered records under `prefix` (`retrieval.documents` → 0, 1, 2, … with their own keys,
/// the prefix and number taken off), in number order.
pub fn numbered(attrs: &Attrs, prefix: &str) -> Vec<Attrs> {
    let start = format!("{prefix}.");
    let mut by_index: BTreeMap<usize, Attrs> = BTreeMap::new();
    for (key, value) in attrs.range(start.clone()..) {
        let Some(rest) = key.strip_prefix(&start) else {
            break;
        };
        let Some((index, field)) = rest.split_once('.') else {
            continue;
        };
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
        by_index
            .entry(index)
            .or_default()
            .insert(field.to_string(), value.clone());
    }
    by_index.into_values().collect()
}

/// The keys under `prefix.` as an object of their own (`document.metadata.source` →
/// `{"source": …}`), or the value at `prefix` itself parsed when it is a JSON string.
pub fn object_at(attrs: &Attrs, prefix: &str) -> BTreeMap<String, Value> {
    if let Some(Value::String(s)) = attrs.get(prefix)
        && let Ok(Value::Object(map)) = serde_json::from_str::<Value>(s)
    {
        return map.into_iter().collect();
    }
    if let Some(Value::Object(map)) = attrs.get(prefix) {
        return map.clone().into_iter().collect();
    }
    let start = format!("{prefix}.");
    let mut out = BTreeMap::new();
    for (key, value) in attrs.range(start.clone()..) {
        let Some(rest) = key.strip_prefix(&start) else {
            break;
        };
        out.insert(rest.to_string(), value.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_three_forms_give_the_same_map() {
        let otlp = json!([
            {"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}},
            {"key": "retrieval.documents.0.document.content", "value": {"stringValue": "a"}},
            {"key": "retrieval.documents.0.document.score", "value": {"doubleValue": 0.5}},
            {"key": "retrieval.documents.1.document.content", "value": {"stringValue": "b"}},
            {"key": "n", "value": {"intValue": "7"}}
        ]);
        let flat = json!({
            "openinference.span.kind": "RETRIEVER",
            "retrieval.documents.0.document.content": "a",
            "retrieval.documents.0.document.score": 0.5,
            "retrieval.documents.1.document.content": "b",
            "n": 7
        });
        let nested = json!({
            "openinference": {"span": {"kind": "RETRIEVER"}},
            "retrieval": {"documents": [
                {"document": {"content": "a", "score": 0.5}},
                {"document": {"content": "b"}}
            ]},
            "n": 7
        });
        let a = attributes(&otlp);
        assert_eq!(a, attributes(&flat));
        assert_eq!(a, attributes(&nested));
        let docs = numbered(&a, "retrieval.documents");
        assert_eq!(docs.len(), 2);
        assert_eq!(str_of(&docs[1], "document.content"), Some("b"));
    }

    #[test]
    fn metadata_as_a_json_string_or_as_keys() {
        let a = attributes(&json!({
            "x.metadata": "{\"source\": \"a.md\", \"start_index\": 3}",
            "y.metadata.source": "b.md"
        }));
        assert_eq!(object_at(&a, "x.metadata")["start_index"], json!(3));
        assert_eq!(object_at(&a, "y.metadata")["source"], json!("b.md"));
    }
}
