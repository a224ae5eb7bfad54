//! A client of a language model behind an OpenAI-compatible chat endpoint: question
//! generation (`calibrate::llm`) and contextual retrieval's contexts (`eval::contextual`) send
//! through it.
//!
//! One `POST {url}/chat/completions` per call with a system and a user message, temperature 0;
//! the reply is `choices[0].message.content`, with `usage` where the server reports it. Each
//! attempt has a connect timeout and a total timeout; timeouts, dropped connections, HTTP 5xx and
//! 429 are retried with doubling waits. An endpoint that refuses connections, an HTTP 4xx or a
//! reply that is not a chat completion stops at once with an error naming the URL and what was
//! wrong.

use std::io::ErrorKind;
use std::time::Duration;

use serde_json::{Value, json};

use crate::text::redact::Secrets;

/// Default time limit of one attempt (connect and total), in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Default retries after the first attempt.
pub const DEFAULT_RETRIES: u32 = 2;
/// Default wait before the first retry; it doubles for each further one.
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(1000);

/// Why no question came back for a sentence.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// Nothing usable could be made from this one sentence; the calibration skips it.
    #[error("no question for this sentence: {0}")]
    NoQuestion(String),
    /// The endpoint could not be reached at all.
    #[error(
        "cannot reach the language model at {url}: {detail} (is the server running, and is --llm-url right?)"
    )]
    Unreachable {
        /// The URL that was called.
        url: String,
        /// What the connection attempt said.
        detail: String,
    },
    /// Every attempt ran out of time.
    #[error(
        "the language model at {url} did not answer within {seconds} s ({attempts} attempt(s)); raise --llm-timeout or check the server"
    )]
    Timeout {
        /// The URL that was called.
        url: String,
        /// The time limit of one attempt, in seconds.
        seconds: f64,
        /// Attempts made.
        attempts: u32,
    },
    /// The endpoint answered with an HTTP error.
    #[error(
        "the language model at {url} answered HTTP {status} after {attempts} attempt(s): {body}"
    )]
    Status {
        /// The URL that was called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the reply body.
        body: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The reply was not an OpenAI-style chat completion.
    #[error(
        "the language model at {url} sent a reply seamscope cannot read: {what} (is it an OpenAI-compatible /chat/completions endpoint?)"
    )]
    Malformed {
        /// The URL that was called.
        url: String,
        /// What was wrong with it.
        what: String,
    },
    /// The generator's settings cannot be used.
    #[error("question generator settings: {0}")]
    Config(String),
}

/// Where the model is and how patiently to call it.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    /// The API base, e.g. `http://localhost:8080/v1` (a full `…/chat/completions` URL also works).
    pub url: String,
    /// The model name sent in each request.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when present.
    pub api_key: Option<String>,
    /// Time limit for opening the connection.
    pub connect_timeout: Duration,
    /// Time limit for one whole attempt.
    pub timeout: Duration,
    /// Retries after the first attempt, on timeouts, dropped connections, 5xx and 429.
    pub retries: u32,
    /// Wait before the first retry; doubles each time.
    pub backoff: Duration,
}

impl LlmConfig {
    /// A configuration with the default timeouts and retries.
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> Self {
        let timeout = Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS);
        Self {
            url: url.into(),
            model: model.into(),
            api_key: None,
            connect_timeout: timeout,
            timeout,
            retries: DEFAULT_RETRIES,
            backoff: DEFAULT_BACKOFF,
        }
    }

    /// The chat completions URL these settings call.
    pub fn endpoint(&self) -> String {
        let base = self.url.trim().trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        }
    }
}

/// A chat endpoint, ready to call.
pub struct ChatClient {
    config: LlmConfig,
    endpoint: String,
    /// The key and the address's credentials: every reply and address in a message passes
    /// [`Secrets::scrub`] with them.
    secrets: Secrets,
    /// The endpoint as messages show it (credentials masked).
    shown: String,
    agent: ureq::Agent,
}

/// One reply: its text, and the tokens the server says it read and wrote (None where it does
/// not say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatReply {
    /// `choices[0].message.content`.
    pub content: String,
    /// `usage.prompt_tokens`.
    pub prompt_tokens: Option<usize>,
    /// `usage.completion_tokens`.
    pub completion_tokens: Option<usize>,
}

/// What one attempt came to: a reply body, or an error that may be worth retrying.
enum Attempt {
    Reply(String),
    Retry(GenError),
    Stop(GenError),
}

impl ChatClient {
    /// Check the settings and prepare the HTTP client (nothing is sent yet).
    pub fn new(config: LlmConfig) -> Result<Self, GenError> {
        let endpoint = config.endpoint();
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            return Err(GenError::Config(format!(
                "--llm-url must start with http:// or https:// (got {:?})",
                crate::embed::http::mask_credentials(&config.url)
            )));
        }
        if config.model.trim().is_empty() {
            return Err(GenError::Config(
                "--llm-model is empty: name the model the endpoint should use".to_string(),
            ));
        }
        if config.timeout.is_zero() || config.connect_timeout.is_zero() {
            return Err(GenError::Config(
                "timeouts must be longer than 0 seconds".to_string(),
            ));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(config.connect_timeout))
            .timeout_global(Some(config.timeout))
            .build()
            .into();
        let mut secrets = Secrets::new();
        secrets.add_url(&endpoint);
        if let Some(key) = &config.api_key {
            secrets.add(key);
        }
        secrets.remember();
        Ok(Self {
            shown: secrets.shown_url(&endpoint),
            secrets,
            config,
            endpoint,
            agent,
        })
    }

    fn timeout_error(&self, attempts: u32) -> GenError {
        GenError::Timeout {
            url: self.shown.clone(),
            seconds: self.config.timeout.as_secs_f64(),
            attempts,
        }
    }

    fn unreachable(&self, detail: String) -> GenError {
        GenError::Unreachable {
            url: self.shown.clone(),
            detail: self.secrets.scrub(&detail),
        }
    }

    fn attempt(&self, body: &str, attempts: u32) -> Attempt {
        let mut request = self
            .agent
            .post(&self.endpoint)
            .header("Accept", "application/json");
        if let Some(key) = &self.config.api_key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let result = request
            .content_type("application/json")
            .send(body)
            .and_then(|mut r| {
                let status = r.status().as_u16();
                r.body_mut().read_to_string().map(|text| (status, text))
            });
        match result {
            Ok((status, text)) if (200..300).contains(&status) => Attempt::Reply(text),
            Ok((status, text)) => {
                let err = GenError::Status {
                    url: self.shown.clone(),
                    status,
                    body: self.secrets.scrub(&snippet(&self.secrets.scrub(&text))),
                    attempts,
                };
                if status >= 500 || status == 429 {
                    Attempt::Retry(err)
                } else {
                    Attempt::Stop(err)
                }
            }
            Err(ureq::Error::Timeout(_)) => Attempt::Retry(self.timeout_error(attempts)),
            Err(ureq::Error::Io(e)) => match e.kind() {
                ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                    Attempt::Retry(self.timeout_error(attempts))
                }
                ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::UnexpectedEof
                | ErrorKind::BrokenPipe => {
                    Attempt::Retry(self.unreachable(format!("the connection dropped ({e})")))
                }
                _ => Attempt::Stop(self.unreachable(e.to_string())),
            },
            Err(ureq::Error::Protocol(e)) => Attempt::Stop(GenError::Malformed {
                url: self.shown.clone(),
                what: format!("the reply is not valid HTTP ({e})"),
            }),
            Err(ureq::Error::HostNotFound) => {
                Attempt::Stop(self.unreachable("the host name does not resolve".to_string()))
            }
            Err(e) => Attempt::Stop(self.unreachable(e.to_string())),
        }
    }

    /// The reply's text and usage in a chat completion body.
    fn parse(&self, body: &str) -> Result<ChatReply, GenError> {
        let malformed = |what: String| GenError::Malformed {
            url: self.shown.clone(),
            what: self.secrets.scrub(&what),
        };
        let value: Value = serde_json::from_str(body).map_err(|e| {
            malformed(format!(
                "it is not JSON ({e}); it starts with {:?}",
                snippet(body)
            ))
        })?;
        let content = value
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                malformed(format!(
                    "it has no text at choices[0].message.content; it starts with {:?}",
                    snippet(body)
                ))
            })?;
        let usage = |field: &str| {
            value
                .pointer(&format!("/usage/{field}"))
                .and_then(Value::as_u64)
                .map(|n| n as usize)
        };
        Ok(ChatReply {
            content: content.to_string(),
            prompt_tokens: usage("prompt_tokens"),
            completion_tokens: usage("completion_tokens"),
        })
    }

    /// The endpoint as messages show it (credentials masked).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The model the requests name.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// One chat completion (temperature 0) with retries on timeouts, dropped connections, 5xx
    /// and 429.
    pub fn complete(&self, system: &str, user: &str) -> Result<ChatReply, GenError> {
        let body = json!({
            "model": self.config.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        })
        .to_string();
        let attempts = self.config.retries.saturating_add(1);
        let mut wait = self.config.backoff;
        for n in 1..=attempts {
            match self.attempt(&body, n) {
                Attempt::Reply(text) => return self.parse(&text),
                Attempt::Stop(e) => return Err(e),
                Attempt::Retry(e) if n == attempts => return Err(e),
                Attempt::Retry(_) => {
                    std::thread::sleep(wait);
                    wait = wait.saturating_mul(2);
                }
            }
        }
        Err(self.timeout_error(attempts))
    }
}

/// The first 200 characters of a reply, on one line.
fn snippet(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s: String = one_line.chars().take(200).collect();
    if one_line.chars().count() > 200 {
        s.push('…');
    }
    s
}
