//! Which embedder and which reranker a run uses, as the user names them (`KIND:VALUE`).
//!
//! The names are plain data read from settings, flags and the environment; the engine turns a
//! parsed name into a loaded model when it starts ([`crate::session::Engine::load`]).

use std::path::PathBuf;

/// Where the vectors come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    /// The pinned all-MiniLM-L6-v2 that `seamscope setup` installs, or the folder `model_dir`
    /// names.
    Default,
    /// A local ONNX sentence-embedding model folder (`onnx:DIR`).
    Onnx(PathBuf),
    /// A model of fastembed's own catalog by name (`fastembed:NAME`).
    Catalog(String),
    /// An OpenAI-compatible `/v1/embeddings` service (`openai:URL`).
    OpenAi(String),
}

/// Who rescores the first ordinary chunks, if anyone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RerankerSpec {
    /// No reranker, or the folder `reranker_dir` names.
    Default,
    /// A local ONNX cross-encoder folder (`onnx:DIR`).
    Onnx(PathBuf),
    /// A cross-encoder of fastembed's catalog by name (`fastembed:NAME`).
    Catalog(String),
    /// A TEI, Jina or Cohere-style `/rerank` service (`rerank:URL`).
    Service(String),
}

/// The kinds an embedder name may start with, as help and errors list them.
pub const EMBEDDER_KINDS: &str = "fastembed:NAME (a model of fastembed's catalog; `seamscope models` lists them), openai:URL (an OpenAI-compatible /v1/embeddings service) or onnx:DIR (a local ONNX model folder)";

/// The kinds a reranker name may start with.
pub const RERANKER_KINDS: &str = "fastembed:NAME (a cross-encoder of fastembed's catalog), rerank:URL (a TEI, Jina or Cohere-style /rerank service) or onnx:DIR (a local ONNX cross-encoder folder)";

/// Split `KIND:VALUE`, refusing an empty value.
fn split(text: &str) -> Result<(&str, &str), String> {
    let text = text.trim();
    let (kind, value) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}` has no kind: write KIND:VALUE"))?;
    let value = value.trim();
    if value.is_empty() {
        return Err(format!("`{text}` names no {kind} after the colon"));
    }
    Ok((kind.trim(), value))
}

/// Check a service address: http(s), a host, a port that exists, no spaces or control
/// characters, no `#fragment` (never sent, and a path appended after it would be lost). Every
/// error shows the address with its credentials masked.
fn service_url(value: &str) -> Result<String, String> {
    let shown = crate::text::redact::shown_url(value);
    let rest = ["http://", "https://"]
        .into_iter()
        .find_map(|s| value.strip_prefix(s))
        .ok_or_else(|| {
            format!("the service address `{shown}` must start with http:// or https://")
        })?;
    if let Some(c) = value.chars().find(|c| c.is_control() || c.is_whitespace()) {
        let what = if c.is_whitespace() && !c.is_control() {
            "a space"
        } else {
            "a control character"
        };
        return Err(format!(
            "the service address `{shown}` holds {what} (U+{:04X}): an address has none",
            c as u32
        ));
    }
    if value.contains('#') {
        return Err(format!(
            "the service address `{shown}` has a #fragment, which is never sent to a service (the path after it would be lost): remove it"
        ));
    }
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match host_port.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((h, tail)) => (h, tail.strip_prefix(':')),
            None => return Err(format!("the service address `{shown}` has an unclosed [")),
        },
        None => match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        },
    };
    if host.is_empty() {
        return Err(format!("the service address `{shown}` has no host"));
    }
    if let Some(port) = port {
        let valid = !port.is_empty()
            && port.chars().all(|c| c.is_ascii_digit())
            && port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p));
        if !valid {
            return Err(format!(
                "the service address `{shown}` has port `{port}`: a port is a number from 1 to 65535"
            ));
        }
    }
    Ok(value.trim_end_matches('/').to_string())
}

impl EmbedderSpec {
    /// Parse a name as typed (`fastembed:bge-small-en-v1.5`, `openai:http://127.0.0.1:8080/v1`,
    /// `onnx:/models/e5`); `default` (or nothing) is the pinned model.
    pub fn parse(text: &str) -> Result<EmbedderSpec, String> {
        // The name came from a flag, a variable or a settings file: shown safely.
        Self::parse_raw(text).map_err(|e| crate::text::safe_name(&e))
    }

    fn parse_raw(text: &str) -> Result<EmbedderSpec, String> {
        if text.trim().is_empty() || text.trim() == "default" {
            return Ok(EmbedderSpec::Default);
        }
        let (kind, value) = split(text).map_err(|e| format!("{e}; kinds: {EMBEDDER_KINDS}"))?;
        match kind {
            "fastembed" => Ok(EmbedderSpec::Catalog(value.to_string())),
            "openai" => Ok(EmbedderSpec::OpenAi(service_url(value)?)),
            "onnx" => Ok(EmbedderSpec::Onnx(PathBuf::from(value))),
            other => Err(format!(
                "`{other}` is not a kind of embedder; kinds: {EMBEDDER_KINDS}"
            )),
        }
    }

    /// A short label for a screen's header: `None` for the pinned default; the model and the
    /// service's host for a service (`text-embedding-3-small @ api.openai.com`), the catalog
    /// name, or the folder's name. Credentials in an address are never shown.
    pub fn label(&self, service_model: Option<&str>) -> Option<String> {
        match self {
            EmbedderSpec::Default => None,
            EmbedderSpec::Catalog(name) => Some(format!("fastembed:{name}")),
            EmbedderSpec::Onnx(dir) => Some(format!(
                "onnx:{}",
                dir.file_name().map_or_else(
                    || dir.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                )
            )),
            EmbedderSpec::OpenAi(url) => {
                let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
                let host = rest.split(['/', '?']).next().unwrap_or(rest);
                let host = host.rsplit('@').next().unwrap_or(host);
                Some(format!("openai:{} @ {host}", service_model.unwrap_or("?")))
            }
        }
    }
}

impl RerankerSpec {
    /// Parse a name as typed (`fastembed:bge-reranker-base`, `rerank:http://127.0.0.1:8081`,
    /// `onnx:/models/ce`); `none` (or nothing) means no reranker beyond `reranker_dir`.
    pub fn parse(text: &str) -> Result<RerankerSpec, String> {
        // The name came from a flag, a variable or a settings file: shown safely.
        Self::parse_raw(text).map_err(|e| crate::text::safe_name(&e))
    }

    fn parse_raw(text: &str) -> Result<RerankerSpec, String> {
        if text.trim().is_empty() || text.trim() == "none" {
            return Ok(RerankerSpec::Default);
        }
        let (kind, value) = split(text).map_err(|e| format!("{e}; kinds: {RERANKER_KINDS}"))?;
        match kind {
            "fastembed" => Ok(RerankerSpec::Catalog(value.to_string())),
            "rerank" => Ok(RerankerSpec::Service(service_url(value)?)),
            "onnx" => Ok(RerankerSpec::Onnx(PathBuf::from(value))),
            other => Err(format!(
                "`{other}` is not a kind of reranker; kinds: {RERANKER_KINDS}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedder_names_parse_by_kind() {
        assert_eq!(EmbedderSpec::parse("").unwrap(), EmbedderSpec::Default);
        assert_eq!(
            EmbedderSpec::parse("default").unwrap(),
            EmbedderSpec::Default
        );
        assert_eq!(
            EmbedderSpec::parse("fastembed:bge-small-en-v1.5").unwrap(),
            EmbedderSpec::Catalog("bge-small-en-v1.5".into())
        );
        assert_eq!(
            EmbedderSpec::parse("openai:http://127.0.0.1:8080/v1/").unwrap(),
            EmbedderSpec::OpenAi("http://127.0.0.1:8080/v1".into())
        );
        assert_eq!(
            EmbedderSpec::parse("onnx:/m/e5").unwrap(),
            EmbedderSpec::Onnx("/m/e5".into())
        );
    }

    #[test]
    fn bad_embedder_names_say_what_is_allowed() {
        let e = EmbedderSpec::parse("bge-small").unwrap_err();
        assert!(e.contains("no kind") && e.contains("openai:URL"), "{e}");
        let e = EmbedderSpec::parse("cohere:x").unwrap_err();
        assert!(e.contains("`cohere` is not a kind"), "{e}");
        let e = EmbedderSpec::parse("openai:").unwrap_err();
        assert!(e.contains("names no openai"), "{e}");
        let e = EmbedderSpec::parse("openai:localhost:8080").unwrap_err();
        assert!(e.contains("must start with http://"), "{e}");
        let e = EmbedderSpec::parse("openai:http:///v1").unwrap_err();
        assert!(e.contains("has no host"), "{e}");
    }

    #[test]
    fn addresses_that_cannot_work_are_usage_errors_not_retried_requests() {
        for (bad, says) in [
            ("openai:http://127.0.0.1:99999/v1", "port `99999`"),
            ("openai:http://127.0.0.1:0/v1", "port `0`"),
            ("openai:http://127.0.0.1:80a/v1", "port `80a`"),
            ("openai:http://127.0.0.1:/v1", "port ``"),
            ("openai:http://h/v1#frag", "#fragment"),
            ("openai:http://h/v\u{7}1", "control character (U+0007)"),
            ("openai:http://h/v1\u{1b}[2J", "control character (U+001B)"),
            ("openai:http://h/a b", "a space"),
            ("openai:http://[::1/v1", "unclosed ["),
        ] {
            let e = EmbedderSpec::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
            assert!(!e.contains('\u{1b}') && !e.contains('\u{7}'), "{e:?}");
            let rerank = bad.replacen("openai:", "rerank:", 1);
            assert!(RerankerSpec::parse(&rerank).unwrap_err().contains(says));
        }
        for good in [
            "openai:http://[::1]:8080/v1",
            "openai:https://u:p@host:443/v1?api-version=1",
            "openai:http://localhost:65535",
        ] {
            assert!(EmbedderSpec::parse(good).is_ok(), "{good}");
        }
        // An error about an address never shows its key.
        let e = EmbedderSpec::parse("openai:http://h:99999/v1?key=AIzaSySecret").unwrap_err();
        assert!(!e.contains("AIzaSySecret"), "{e}");
    }

    #[test]
    fn header_labels_are_short_and_hide_credentials() {
        let spec = EmbedderSpec::parse("openai:https://user:pw@api.openai.com/v1").unwrap();
        assert_eq!(
            spec.label(Some("text-embedding-3-small")).unwrap(),
            "openai:text-embedding-3-small @ api.openai.com"
        );
        assert_eq!(EmbedderSpec::Default.label(None), None);
        assert_eq!(
            EmbedderSpec::parse("onnx:/models/e5-base/")
                .unwrap()
                .label(None)
                .unwrap(),
            "onnx:e5-base"
        );
    }

    #[test]
    fn a_name_with_escape_sequences_is_shown_safely() {
        for bad in [
            "\u{1b}[2Jevil",
            "x\u{1b}]52;c;Y3VybA==\u{7}:y",
            "openai:\u{1b}[31m",
        ] {
            let e = EmbedderSpec::parse(bad).unwrap_err();
            assert!(!e.contains('\u{1b}') && !e.contains('\u{7}'), "{e:?}");
            let e = RerankerSpec::parse(bad).unwrap_err();
            assert!(!e.contains('\u{1b}') && !e.contains('\u{7}'), "{e:?}");
        }
    }

    #[test]
    fn reranker_names_parse_by_kind() {
        assert_eq!(RerankerSpec::parse("none").unwrap(), RerankerSpec::Default);
        assert_eq!(
            RerankerSpec::parse("rerank:https://api.cohere.com/v2").unwrap(),
            RerankerSpec::Service("https://api.cohere.com/v2".into())
        );
        assert_eq!(
            RerankerSpec::parse("fastembed:bge-reranker-base").unwrap(),
            RerankerSpec::Catalog("bge-reranker-base".into())
        );
        assert!(RerankerSpec::parse("openai:http://x").is_err());
    }
}
