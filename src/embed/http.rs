//! What every HTTP model service shares: the key from an environment variable, requests retried
//! with backoff and jitter on 429 / 5xx / timeouts / dropped connections (honouring
//! `Retry-After`), and counters a progress line and a report read while the work runs.
//!
//! The embedding client ([`super::service`]) and the rerank client ([`super::rerank_service`])
//! are built on it, so both follow the same reliability rules.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::text::redact::Secrets;

/// How hard to try a service.
#[derive(Debug, Clone)]
pub struct Reliability {
    /// How long one request may take, connection included.
    pub timeout: Duration,
    /// Retries after the first try, for a retryable failure.
    pub retries: u32,
    /// The first backoff; each retry doubles it (with jitter) up to [`MAX_BACKOFF`].
    pub first_backoff: Duration,
}

impl Default for Reliability {
    fn default() -> Self {
        Reliability {
            timeout: Duration::from_secs(60),
            retries: 6,
            first_backoff: Duration::from_millis(500),
        }
    }
}

/// The longest wait between two tries, whatever `Retry-After` says; a service asking for more is
/// reported as an error rather than waited on for minutes.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Why a service call failed for good.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// The key's environment variable is not set (or empty).
    #[error(
        "the environment variable {} named by {setting} is not set: export the service's key in it (seamscope reads it from there and never prints or stores it)",
        crate::text::safe_name(.variable)
    )]
    KeyMissing {
        /// The variable.
        variable: String,
        /// The setting that named it.
        setting: &'static str,
    },
    /// The service refused the request; retrying would not help.
    #[error("{service} at {url} refused the request: HTTP {status}: {message}{hint}")]
    Refused {
        /// What kind of service.
        service: &'static str,
        /// The endpoint (credentials masked).
        url: String,
        /// HTTP status.
        status: u16,
        /// The service's own message (made terminal-safe).
        message: String,
        /// What to do about it.
        hint: String,
    },
    /// Every try failed with a retryable failure.
    #[error(
        "{service} at {url} failed {tries} times in a row (last: {last}); nothing more was sent: check the service, or raise embed_retries / embed_timeout_secs (both services use them)"
    )]
    GaveUp {
        /// What kind of service.
        service: &'static str,
        /// The endpoint (credentials masked).
        url: String,
        /// Tries made.
        tries: u32,
        /// The last failure.
        last: String,
    },
    /// The service asked to wait longer than seamscope waits.
    #[error(
        "{service} at {url} asked to wait {} before trying again (Retry-After), longer than the {max} s seamscope waits: try again later, or lower the request rate (fewer concurrent requests)",
        seconds_shown(*.seconds)
    )]
    WaitTooLong {
        /// What kind of service.
        service: &'static str,
        /// The endpoint (credentials masked).
        url: String,
        /// Seconds asked for.
        seconds: f64,
        /// Seconds seamscope waits at most.
        max: u64,
    },
    /// The address cannot be used for a request at all.
    #[error("{service} address {url} cannot be used: {why}")]
    BadAddress {
        /// What kind of service.
        service: &'static str,
        /// The endpoint (credentials masked).
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// The service answered with a redirect; seamscope does not follow one (the request and its
    /// key would go to an address the user did not name).
    #[error(
        "{service} at {url} redirected the request (HTTP {status}) to {location}: seamscope does not follow redirects, so the key and the texts go only where you point them; if that is the service's address, use it"
    )]
    Redirected {
        /// What kind of service.
        service: &'static str,
        /// The endpoint (credentials masked).
        url: String,
        /// HTTP status (301, 302, 303, 307, 308).
        status: u16,
        /// Where it pointed (`Location`, credentials masked, terminal-safe), or a note that it
        /// named no place.
        location: String,
    },
    /// The answer is not what the protocol sends.
    #[error("{service} at {url} sent an answer seamscope cannot use: {what}")]
    Malformed {
        /// What kind of service.
        service: &'static str,
        /// The endpoint (credentials masked).
        url: String,
        /// What is wrong with it.
        what: String,
    },
    /// The caller cancelled the work.
    #[error("cancelled")]
    Cancelled,
}

/// A wait as a message shows it: whole seconds, or "more than a day" for a service that asks
/// for an absurd one (`Retry-After: 1e308` would print 309 digits).
fn seconds_shown(seconds: f64) -> String {
    if seconds.is_finite() && seconds < 86_400.0 {
        format!("{seconds:.0} s")
    } else {
        "more than a day".to_string()
    }
}

/// Counts of what a client sent and how it went; shared between the worker and whoever shows
/// progress.
#[derive(Debug)]
pub struct ServiceMeter {
    started: Instant,
    requests: AtomicUsize,
    retries: AtomicUsize,
    inputs: AtomicUsize,
    tokens_sent: AtomicUsize,
    tokens_reported: AtomicUsize,
}

/// A snapshot of a [`ServiceMeter`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ServiceCounters {
    /// Requests answered with success.
    pub requests: usize,
    /// Tries that failed and were tried again (429, 5xx, timeouts, dropped connections).
    pub retries: usize,
    /// Texts sent in successful requests.
    pub inputs: usize,
    /// Tokens sent in successful requests, counted with the local tokenizer.
    pub tokens_sent: usize,
    /// Tokens the service itself reported using (`usage.prompt_tokens`), when it says.
    pub tokens_reported: usize,
    /// Seconds since the meter started.
    pub seconds: f64,
}

impl ServiceCounters {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &ServiceCounters) -> ServiceCounters {
        ServiceCounters {
            requests: self.requests - earlier.requests,
            retries: self.retries - earlier.retries,
            inputs: self.inputs - earlier.inputs,
            tokens_sent: self.tokens_sent - earlier.tokens_sent,
            tokens_reported: self.tokens_reported - earlier.tokens_reported,
            seconds: self.seconds - earlier.seconds,
        }
    }

    /// Add another run's counts to these.
    pub fn add(&mut self, other: &ServiceCounters) {
        self.requests += other.requests;
        self.retries += other.retries;
        self.inputs += other.inputs;
        self.tokens_sent += other.tokens_sent;
        self.tokens_reported += other.tokens_reported;
        self.seconds += other.seconds;
    }

    /// Successful requests per second over the counted time.
    pub fn requests_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.requests as f64 / self.seconds
        } else {
            0.0
        }
    }
}

impl Default for ServiceMeter {
    fn default() -> Self {
        ServiceMeter {
            started: Instant::now(),
            requests: AtomicUsize::new(0),
            retries: AtomicUsize::new(0),
            inputs: AtomicUsize::new(0),
            tokens_sent: AtomicUsize::new(0),
            tokens_reported: AtomicUsize::new(0),
        }
    }
}

impl ServiceMeter {
    /// The counts now.
    pub fn counters(&self) -> ServiceCounters {
        ServiceCounters {
            requests: self.requests.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            inputs: self.inputs.load(Ordering::Relaxed),
            tokens_sent: self.tokens_sent.load(Ordering::Relaxed),
            tokens_reported: self.tokens_reported.load(Ordering::Relaxed),
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }

    /// Count one successful request.
    pub fn answered(&self, inputs: usize, tokens_sent: usize, tokens_reported: usize) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.inputs.fetch_add(inputs, Ordering::Relaxed);
        self.tokens_sent.fetch_add(tokens_sent, Ordering::Relaxed);
        self.tokens_reported
            .fetch_add(tokens_reported, Ordering::Relaxed);
    }
}

/// An HTTP JSON endpoint with a key, tried with the reliability rules.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// What kind of service, for messages ("the embedding service").
    pub service: &'static str,
    /// The full URL requests go to.
    url: String,
    /// The URL as messages show it (credentials masked).
    shown: String,
    /// The key and the address's credentials: every body, header and address that goes into a
    /// message passes [`Secrets::scrub`] with them.
    secrets: Secrets,
    /// The header the key goes in and its value (`Authorization: Bearer …` or `api-key: …`).
    auth: Option<(&'static str, String)>,
    agent: ureq::Agent,
    reliability: Reliability,
    meter: Arc<ServiceMeter>,
}

/// `user:password@` in a URL replaced by `***@` and the values of query parameters named like
/// keys (`?key=…`) by `***`, so an address can be printed.
pub fn mask_credentials(url: &str) -> String {
    crate::text::redact::shown_url(url)
}

/// Read the key from the variable `key_env` names; `None` when no variable is named.
pub fn read_key(
    key_env: Option<&str>,
    setting: &'static str,
) -> Result<Option<String>, ServiceError> {
    let Some(variable) = key_env.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_string())),
        _ => Err(ServiceError::KeyMissing {
            variable: variable.to_string(),
            setting,
        }),
    }
}

/// One try's outcome before the retry rule decides.
enum Try {
    Answer(Value),
    Retry { why: String, wait: Option<f64> },
    Fail(ServiceError),
}

impl Endpoint {
    /// An endpoint at `url` with `key` (sent as `Authorization: Bearer KEY`, or as `api-key` to
    /// Azure OpenAI hosts).
    pub fn new(
        service: &'static str,
        url: String,
        key: Option<String>,
        reliability: Reliability,
        meter: Arc<ServiceMeter>,
    ) -> Endpoint {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A redirect is reported, not followed: ureq would turn a 301/302 POST into a GET
            // and fail a 307 with nothing said about where it pointed.
            .max_redirects(0)
            .timeout_connect(Some(reliability.timeout.min(Duration::from_secs(10))))
            .timeout_global(Some(reliability.timeout))
            .build()
            .into();
        let azure = url
            .split_once("://")
            .map(|(_, rest)| rest.split(['/', '?']).next().unwrap_or(""))
            .is_some_and(|host| host.ends_with(".openai.azure.com"));
        let auth = key.clone().map(|k| {
            if azure {
                ("api-key", k)
            } else {
                ("Authorization", format!("Bearer {k}"))
            }
        });
        let mut secrets = Secrets::new();
        secrets.add_url(&url);
        if let Some(k) = &key {
            secrets.add(k);
        }
        secrets.remember();
        Endpoint {
            service,
            shown: crate::text::safe_name(&secrets.shown_url(&url)),
            secrets,
            url,
            auth,
            agent,
            reliability,
            meter,
        }
    }

    /// The address as messages show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The meter this endpoint counts on.
    pub fn meter(&self) -> &Arc<ServiceMeter> {
        &self.meter
    }

    /// A malformed-answer error for this endpoint.
    pub fn malformed(&self, what: impl Into<String>) -> ServiceError {
        ServiceError::Malformed {
            service: self.service,
            url: self.shown.clone(),
            what: self.secrets.scrub(&what.into()),
        }
    }

    /// Text from the service (a body, a header, a transport error) as a message may show it:
    /// every secret masked, control characters made visible, on one line.
    fn shown_text(&self, text: &str) -> String {
        crate::text::safe_name(&self.secrets.scrub(text))
    }

    /// POST `body`, retrying what can be retried; the answer's JSON. `stop` is checked before
    /// every try and every wait, so another request's failure ends this one's retries.
    pub fn post(
        &self,
        body: &Value,
        stop: &dyn Fn() -> bool,
        refused_hint: &dyn Fn(u16, &str) -> String,
    ) -> Result<Value, ServiceError> {
        let text = body.to_string();
        let mut tries = 0u32;
        loop {
            if stop() {
                return Err(ServiceError::Cancelled);
            }
            tries += 1;
            let (why, wait) = match self.try_once(&text, refused_hint) {
                Try::Answer(v) => return Ok(v),
                Try::Fail(e) => return Err(e),
                Try::Retry { why, wait } => (why, wait),
            };
            if tries > self.reliability.retries {
                return Err(ServiceError::GaveUp {
                    service: self.service,
                    url: self.shown.clone(),
                    tries,
                    last: why,
                });
            }
            let wait = match wait {
                Some(seconds) if seconds > MAX_BACKOFF.as_secs_f64() => {
                    return Err(ServiceError::WaitTooLong {
                        service: self.service,
                        url: self.shown.clone(),
                        seconds,
                        max: MAX_BACKOFF.as_secs(),
                    });
                }
                Some(seconds) => Duration::from_secs_f64(seconds.max(0.0)),
                None => backoff(self.reliability.first_backoff, tries),
            };
            self.meter.retries.fetch_add(1, Ordering::Relaxed);
            sleep_unless(wait, stop);
        }
    }

    fn try_once(&self, body: &str, refused_hint: &dyn Fn(u16, &str) -> String) -> Try {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some((name, value)) = &self.auth {
            request = request.header(*name, value);
        }
        let mut response = match request.send(body) {
            Ok(r) => r,
            // An address the HTTP library cannot use is not tried again.
            Err(e @ (ureq::Error::BadUri(_) | ureq::Error::Http(_))) => {
                return Try::Fail(ServiceError::BadAddress {
                    service: self.service,
                    url: self.shown.clone(),
                    why: self.shown_text(&e.to_string()),
                });
            }
            Err(e) => {
                return Try::Retry {
                    why: self.shown_text(&describe_transport(&e)),
                    wait: None,
                };
            }
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let text = match response
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_string()
        {
            Ok(t) => t,
            Err(e) => {
                return Try::Retry {
                    why: format!(
                        "the answer broke off ({})",
                        self.shown_text(&describe_transport(&e))
                    ),
                    wait: None,
                };
            }
        };
        if (300..400).contains(&status) {
            let location = response
                .headers()
                .get("location")
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            return Try::Fail(ServiceError::Redirected {
                service: self.service,
                url: self.shown.clone(),
                status,
                location: match location {
                    Some(place) => {
                        let place: String = place.chars().take(300).collect();
                        let mut theirs = self.secrets.clone();
                        theirs.add_url(&place);
                        self.shown_text(&theirs.shown_url(&place))
                    }
                    None => "no address (the answer had no Location header)".to_string(),
                },
            });
        }
        if status == 429 || status == 408 || (500..600).contains(&status) {
            return Try::Retry {
                why: format!(
                    "HTTP {status}{}",
                    self.shown_text(&short_message(&self.secrets.scrub(&text)))
                ),
                wait: retry_after,
            };
        }
        if !(200..300).contains(&status) {
            let message = self.shown_text(&error_message(&self.secrets.scrub(&text)));
            return Try::Fail(ServiceError::Refused {
                service: self.service,
                url: self.shown.clone(),
                status,
                hint: refused_hint(status, &message),
                message,
            });
        }
        match serde_json::from_str(&text) {
            Ok(v) => Try::Answer(v),
            Err(e) => Try::Fail(self.malformed(format!("not JSON ({e})"))),
        }
    }
}

/// The wait before try `tries + 1`: the first backoff doubled per try, capped, with jitter
/// (between half and all of it), so many clients do not retry in step.
fn backoff(first: Duration, tries: u32) -> Duration {
    let full = first
        .saturating_mul(1u32 << tries.saturating_sub(1).min(16))
        .min(Duration::from_secs(20));
    full.mul_f64(0.5 + 0.5 * jitter())
}

/// A number in [0, 1) that differs from call to call (no seeded generator is needed here).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(CALLS.fetch_add(1, Ordering::Relaxed));
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Sleep `wait`, waking every 50 ms to see whether to stop.
fn sleep_unless(wait: Duration, stop: &dyn Fn() -> bool) {
    let until = Instant::now() + wait;
    while !stop() {
        let now = Instant::now();
        if now >= until {
            return;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(50)));
    }
}

/// `Retry-After` as seconds: a number of seconds (fractions allowed) or an HTTP date.
fn parse_retry_after(value: &str) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return seconds.is_finite().then_some(seconds.max(0.0));
    }
    let at = httpdate_seconds(value)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs_f64();
    Some((at - now).max(0.0))
}

/// Seconds since the epoch of an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`), the form
/// `Retry-After` dates take.
fn httpdate_seconds(value: &str) -> Option<f64> {
    let parts: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + m * 60 + s) as f64)
}

fn describe_transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "no answer in time".to_string(),
        ureq::Error::HostNotFound => "the host name does not resolve".to_string(),
        ureq::Error::ConnectionFailed => "cannot connect".to_string(),
        other => crate::text::safe_name(&other.to_string()),
    }
}

/// The message inside an error answer (`{"error": {"message": …}}`, `{"error": "…"}`,
/// `{"message": …}` or `{"detail": …}`), or the start of the body.
fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let found = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))
            .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_string))
    });
    let text = found.unwrap_or_else(|| body.chars().take(300).collect());
    crate::text::safe_name(text.trim())
}

fn short_message(body: &str) -> String {
    let m = error_message(body);
    if m.is_empty() {
        String::new()
    } else {
        format!(": {}", m.chars().take(120).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(parse_retry_after("2"), Some(2.0));
        assert_eq!(parse_retry_after(" 0.25 "), Some(0.25));
        assert_eq!(parse_retry_after("-3"), Some(0.0));
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(
            httpdate_seconds("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(1_445_412_480.0)
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(0.0)
        );
    }

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        let first = Duration::from_millis(100);
        for tries in 1..=12 {
            let b = backoff(first, tries);
            let full = first
                .saturating_mul(1 << (tries - 1))
                .min(Duration::from_secs(20));
            assert!(b >= full / 2 && b <= full, "try {tries}: {b:?} vs {full:?}");
        }
    }

    #[test]
    fn credentials_in_addresses_are_masked() {
        assert_eq!(
            mask_credentials("https://user:secret@host:8080/v1?x=1"),
            "https://***@host:8080/v1?x=1"
        );
        assert_eq!(
            mask_credentials("http://127.0.0.1:80/v1"),
            "http://127.0.0.1:80/v1"
        );
        assert_eq!(mask_credentials("http://host/path@x"), "http://host/path@x");
        assert_eq!(
            mask_credentials("https://h/v1?key=AIzaSy123&alt=json"),
            "https://h/v1?key=***&alt=json"
        );
    }

    #[test]
    fn error_messages_are_found_in_every_shape() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad model","type":"x"}}"#),
            "bad model"
        );
        assert_eq!(
            error_message(r#"{"error":"input too long"}"#),
            "input too long"
        );
        assert_eq!(error_message(r#"{"detail":"nope"}"#), "nope");
        assert_eq!(error_message("plain \u{1b}[2Jtext"), "plain ␛[2Jtext");
    }

    use crate::embed::testing::loopback::{Loopback, Reply, Request};

    fn quick() -> Reliability {
        Reliability {
            timeout: Duration::from_secs(10),
            retries: 1,
            first_backoff: Duration::from_millis(10),
        }
    }

    fn post_to(url: String, key: Option<&str>) -> ServiceError {
        let endpoint = Endpoint::new(
            "the embedding service",
            url,
            key.map(str::to_string),
            quick(),
            Arc::new(ServiceMeter::default()),
        );
        let never = || false;
        let hint = |_: u16, _: &str| String::new();
        endpoint
            .post(&serde_json::json!({"input": ["x"]}), &never, &hint)
            .unwrap_err()
    }

    /// A body that echoes what the request carried: its Authorization header and its query.
    fn echo(fixture: &str, status: u16) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
        let fixture = fixture.trim().to_string();
        move |r: &Request| {
            let sent = r.header("authorization").unwrap_or("");
            let key = sent.strip_prefix("Bearer ").unwrap_or(sent);
            let body = fixture.replace("{KEY}", key).replace("{PATH}", &r.path);
            (status, Vec::new(), body)
        }
    }

    #[test]
    fn a_service_that_echoes_the_key_never_gets_it_into_a_message() {
        let key = "sk-live-0123456789abcdef";
        let query_key = "AIzaSyQueryKey0042";
        for fixture in [
            include_str!("../../tests/fixtures/hostile/service-401-openai.json"),
            include_str!("../../tests/fixtures/hostile/service-401-header.json"),
            include_str!("../../tests/fixtures/hostile/service-400-json-field.json"),
        ] {
            // Refused (401), and given up on after retries (500): both carry the body.
            for status in [401, 500] {
                let server = Loopback::start(echo(fixture, status));
                let url = format!(
                    "{}/v1/embeddings?api-version=1&key={query_key}",
                    server.base
                );
                let e = post_to(url, Some(key)).to_string();
                assert!(e.contains(&format!("HTTP {status}")), "{e}");
                assert!(e.contains("api-version=1&key=***"), "{e}");
                for secret in [key, "0123456789abcdef", query_key] {
                    assert!(!e.contains(secret), "{secret} in {e}");
                }
            }
        }
    }

    #[test]
    fn a_redirect_is_reported_with_where_it_points_and_not_followed() {
        for status in [301, 302, 307, 308] {
            let server = Loopback::start(move |_| {
                let to = "https://elsewhere.example/v1/embeddings?key=LEAKED-KEY-9";
                (status, vec![("Location".into(), to.into())], String::new())
            });
            let e = post_to(format!("{}/v1/embeddings", server.base), None);
            let text = e.to_string();
            assert!(matches!(e, ServiceError::Redirected { .. }), "{text}");
            assert!(
                text.contains(&format!(
                    "redirected the request (HTTP {status}) to https://elsewhere.example/v1/embeddings?key=***"
                )),
                "{text}"
            );
            assert!(!text.contains("LEAKED-KEY-9"), "{text}");
            assert_eq!(server.arrived(), 1, "the redirect was not followed");
        }
        let server = Loopback::start(|_| (302, Vec::new(), String::new()));
        let e = post_to(format!("{}/v1/embeddings", server.base), None).to_string();
        assert!(e.contains("no Location header"), "{e}");
    }

    #[test]
    fn an_absurd_retry_after_is_an_error_of_one_short_line() {
        for asked in ["1e308", "99999999999", "inf"] {
            let server = Loopback::start(move |_| {
                (429, vec![("Retry-After".into(), asked.into())], "{}".into())
            });
            let e = post_to(format!("{}/v1/embeddings", server.base), None);
            let text = e.to_string();
            if asked == "inf" {
                // Not a number seamscope takes: the client's own backoff, then it gives up.
                assert!(matches!(e, ServiceError::GaveUp { .. }), "{text}");
            } else {
                assert!(text.contains("asked to wait more than a day"), "{text}");
                assert!(text.len() < 400, "{} bytes: {text}", text.len());
            }
        }
    }

    #[test]
    fn an_address_the_http_library_cannot_use_is_refused_not_retried() {
        // (The settings refuse such an address first: see spec.rs; this is the last guard.)
        let e = post_to("http://127.0.0.1:9/v1/emb\u{7}eddings".into(), None);
        assert!(matches!(e, ServiceError::BadAddress { .. }), "{e}");
        assert!(!e.to_string().contains('\u{7}'), "{e}");
    }

    #[test]
    fn a_missing_key_names_its_variable() {
        let e = read_key(Some("SEAMSCOPE_TEST_NO_SUCH_KEY_VAR"), "embed_key_env").unwrap_err();
        assert!(e.to_string().contains("SEAMSCOPE_TEST_NO_SUCH_KEY_VAR"));
        assert_eq!(read_key(None, "embed_key_env").unwrap(), None);
    }
}
