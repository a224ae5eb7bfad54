//! A live Phoenix server's spans, read through its REST API: `GET
//! /v1/projects/{project}/spans?limit=1000&cursor=…`, page after page until `next_cursor` is
//! null, each page read by [`trace_read`] as one source. Bounded: at most [`MAX_PAGES`] pages of at
//! most [`MAX_PAGE_BYTES`] each, a timeout per request. The API key, when the server wants one,
//! comes from `PHOENIX_API_KEY` and is never printed. The span annotations on each retriever span
//! (an evaluator's or a person's verdict) are read after the spans, as the queries' feedback.

use std::time::Duration;

use trace_read::TraceRead;

/// Spans asked for per page (Phoenix's largest page).
const PAGE_SPANS: usize = 1000;
/// Pages read at most (a million spans).
pub const MAX_PAGES: usize = 1000;
/// The largest page read, in bytes.
pub const MAX_PAGE_BYTES: u64 = 64 * 1024 * 1024;
/// The environment variable holding the server's API key, if it wants one.
pub const KEY_ENV: &str = "PHOENIX_API_KEY";

/// A Phoenix server that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PhoenixError {
    /// The address is not an http(s) URL.
    #[error(
        "phoenix:{0} is not an http:// or https:// address (write --traces phoenix:http://HOST:PORT)"
    )]
    BadUrl(String),
    /// No project named.
    #[error("reading a Phoenix server needs the project: add --project NAME")]
    NoProject,
    /// The project name cannot go in a path.
    #[error(
        "the project name {0:?} holds `/`, `?` or `#`, which Phoenix's API cannot take in a path"
    )]
    BadProject(String),
    /// The server did not answer.
    #[error("the Phoenix server at {url} did not answer: {why}; is it running (`phoenix serve`)?")]
    Unreachable {
        /// The server, credentials masked.
        url: String,
        /// Why.
        why: String,
    },
    /// The server answered with an error.
    #[error("the Phoenix server at {url} answered {status} to {path}: {body}")]
    Status {
        /// The server.
        url: String,
        /// The request's path.
        path: String,
        /// The HTTP status.
        status: u16,
        /// The start of its answer.
        body: String,
    },
    /// A page was not what the API returns.
    #[error("page {page} from the Phoenix server at {url} is not a page of spans: {why}")]
    BadPage {
        /// The server.
        url: String,
        /// The page, from 1.
        page: usize,
        /// What was wrong.
        why: String,
    },
    /// The spans read hold no retrieval step (or no known shape).
    #[error("the Phoenix project {project} at {url}: {error}")]
    Read {
        /// The server.
        url: String,
        /// The project.
        project: String,
        /// What the reader found.
        error: trace_read::TraceError,
    },
}

/// `url` with any user and password taken out, for messages.
fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://…@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// Read every span of `project` from the Phoenix server at `url`; `progress` hears the spans
/// read so far after each page.
pub fn read_project(
    url: &str,
    project: Option<&str>,
    progress: &mut dyn FnMut(usize),
) -> Result<TraceRead, PhoenixError> {
    let base = url.trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(PhoenixError::BadUrl(crate::text::safe_name(&masked(url))));
    }
    let shown = crate::text::safe_name(&masked(base));
    let project = project.ok_or(PhoenixError::NoProject)?;
    if project.is_empty() || project.contains(['/', '?', '#']) {
        return Err(PhoenixError::BadProject(crate::text::safe_name(project)));
    }
    let key = std::env::var(KEY_ENV).ok().filter(|k| !k.is_empty());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into();
    let reader = Reader {
        agent: &agent,
        base,
        key: key.as_deref(),
        shown: &shown,
    };
    let mut pages: Vec<Vec<u8>> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut spans = 0usize;
    for page in 1..=MAX_PAGES {
        let mut path = format!(
            "/v1/projects/{}/spans?limit={PAGE_SPANS}",
            percent_encode(project)
        );
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={}", percent_encode(c)));
        }
        let (status, body) = reader.fetch(&path).map_err(|failed| match failed {
            Fetch::Call(why) => PhoenixError::Unreachable {
                url: shown.clone(),
                why,
            },
            Fetch::Body(why) => PhoenixError::BadPage {
                url: shown.clone(),
                page,
                why,
            },
        })?;
        if status != 200 {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
            return Err(PhoenixError::Status {
                url: shown,
                path: crate::text::safe_name(&path),
                status,
                body: crate::text::safe_name(&redact(&text, key.as_deref())),
            });
        }
        let value: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| PhoenixError::BadPage {
                url: shown.clone(),
                page,
                why: e.to_string(),
            })?;
        let Some(data) = value.get("data").and_then(|d| d.as_array()) else {
            return Err(PhoenixError::BadPage {
                url: shown,
                page,
                why: "no `data` list".into(),
            });
        };
        spans += data.len();
        progress(spans);
        cursor = value
            .get("next_cursor")
            .and_then(|c| c.as_str())
            .map(str::to_string);
        pages.push(body);
        if cursor.is_none() {
            break;
        }
    }
    // Phoenix lists the newest spans first, page after page: the queries are turned around at
    // the end, so they come in the order the app ran them.
    let mut read = trace_read::read_all(pages.iter().map(|p| std::io::Cursor::new(p.as_slice())))
        .map_err(|error| PhoenixError::Read {
        url: shown.clone(),
        project: crate::text::safe_name(project),
        error,
    })?;
    read.queries.reverse();
    annotations(&reader, project, &mut read);
    Ok(read)
}

/// What every request to the server needs.
struct Reader<'a> {
    agent: &'a ureq::Agent,
    base: &'a str,
    key: Option<&'a str>,
    shown: &'a str,
}

/// How a request failed: no answer, or an answer whose body could not be read.
enum Fetch {
    Call(String),
    Body(String),
}

impl Reader<'_> {
    /// `GET path`: the status and the body (at most a page's bytes); the error in words, the
    /// key never in them.
    fn fetch(&self, path: &str) -> Result<(u16, Vec<u8>), Fetch> {
        let mut request = self.agent.get(format!("{}{path}", self.base));
        if let Some(k) = self.key {
            request = request.header("Authorization", format!("Bearer {k}"));
        }
        let mut response = request
            .call()
            .map_err(|e| Fetch::Call(redact(&e.to_string(), self.key)))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_PAGE_BYTES)
            .read_to_vec()
            .map_err(|e| Fetch::Body(redact(&e.to_string(), self.key)))?;
        Ok((status, body))
    }

    /// `GET path` as JSON; the error in words (the key never in them).
    fn get(&self, path: &str) -> Result<serde_json::Value, String> {
        let (status, body) = self
            .fetch(path)
            .map_err(|(Fetch::Call(why) | Fetch::Body(why))| why)?;
        if status != 200 {
            return Err(format!("{} answered {status}", self.shown));
        }
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    }
}

/// Span ids asked about per annotations request (they travel in the URL).
const ANNOTATION_SPANS_PER_REQUEST: usize = 50;

/// The span annotations on each traced query's retriever span (`GET
/// /v1/projects/{project}/span_annotations?span_ids=…`, paged), as its feedback: an evaluator's
/// or a person's verdict on that retrieval. A server without the endpoint, or one that fails,
/// leaves the feedback empty and says so among the problems; the spans are read all the same.
fn annotations(reader: &Reader<'_>, project: &str, read: &mut TraceRead) {
    let mut by_span: std::collections::HashMap<String, Vec<trace_read::Feedback>> =
        std::collections::HashMap::new();
    let ids: Vec<String> = read.queries.iter().map(|q| q.span_id.clone()).collect();
    for batch in ids.chunks(ANNOTATION_SPANS_PER_REQUEST) {
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut path = format!(
                "/v1/projects/{}/span_annotations?limit={PAGE_SPANS}",
                percent_encode(project)
            );
            for id in batch {
                path.push_str(&format!("&span_ids={}", percent_encode(id)));
            }
            if let Some(c) = &cursor {
                path.push_str(&format!("&cursor={}", percent_encode(c)));
            }
            let page = match reader.get(&path) {
                Ok(page) => page,
                Err(why) => {
                    read.problem(
                        "phoenix span annotations".into(),
                        format!(
                            "not read ({}): the queries carry no feedback",
                            crate::text::safe_name(&why)
                        ),
                    );
                    return;
                }
            };
            for a in page
                .get("data")
                .and_then(|d| d.as_array())
                .into_iter()
                .flatten()
            {
                let (Some(span), Some(name)) = (
                    a.get("span_id").and_then(|v| v.as_str()),
                    a.get("name").and_then(|v| v.as_str()),
                ) else {
                    continue;
                };
                by_span
                    .entry(span.to_string())
                    .or_default()
                    .push(trace_read::Feedback {
                        name: name.to_string(),
                        score: a.pointer("/result/score").and_then(|v| v.as_f64()),
                        label: a
                            .pointer("/result/label")
                            .and_then(|v| v.as_str())
                            .map(str::to_string),
                    });
            }
            cursor = page
                .get("next_cursor")
                .and_then(|c| c.as_str())
                .map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
    }
    for q in &mut read.queries {
        if let Some(f) = by_span.remove(&q.span_id) {
            q.feedback.extend(f);
        }
    }
}

/// `text` with the key taken out.
fn redact(text: &str, key: Option<&str>) -> String {
    match key {
        Some(k) if k.len() >= 4 => text.replace(k, "[PHOENIX_API_KEY]"),
        _ => text.to_string(),
    }
}

/// Percent-encode what a path segment or query value cannot hold.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_projects_are_checked_before_any_request() {
        let mut nothing = |_| {};
        assert!(matches!(
            read_project("localhost:6006", Some("p"), &mut nothing),
            Err(PhoenixError::BadUrl(_))
        ));
        assert!(matches!(
            read_project("http://127.0.0.1:9", None, &mut nothing),
            Err(PhoenixError::NoProject)
        ));
        assert!(matches!(
            read_project("http://127.0.0.1:9", Some("a/b"), &mut nothing),
            Err(PhoenixError::BadProject(_))
        ));
        assert_eq!(masked("http://u:secret@host:1/x"), "http://…@host:1/x");
        assert_eq!(percent_encode("my project"), "my%20project");
    }
}
