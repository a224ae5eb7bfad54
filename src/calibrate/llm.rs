//! Questions from a language model behind an OpenAI-compatible chat endpoint.
//!
//! One `POST {url}/chat/completions` per sentence with a short system and user prompt; the
//! question is `choices[0].message.content`, first non-empty line, with quotes, a `Question:`
//! label and any `<think>…</think>` block removed. Each attempt has a connect timeout and a
//! total timeout; timeouts, dropped connections, HTTP 5xx and 429 are retried with doubling
//! waits. An endpoint that refuses connections, an HTTP 4xx or a reply that is not a chat
//! completion stops at once with an error naming the URL and what was wrong.

use std::io::ErrorKind;
use std::time::Duration;

use serde_json::{Value, json};

use super::generate::{GenError, QuestionGenerator};
use crate::text::redact::Secrets;

/// Default time limit of one attempt (connect and total), in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Default retries after the first attempt.
pub const DEFAULT_RETRIES: u32 = 2;
/// Default wait before the first retry; it doubles for each further one.
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(1000);

const SYSTEM_PROMPT: &str = "You write test questions for a search engine. You are given one \
sentence from a document and some text around it. Write one question that the sentence answers. \
Use your own words where you can instead of repeating the sentence's phrases, and do not refer to \
'the sentence', 'the text' or 'the document'. Reply with the question only.";

const PASSAGE_PROMPT: &str = "You write test questions for a search engine. You are given a \
passage of several sentences from a document. Write one question whose complete answer needs the \
whole passage, not only one of its sentences. Use your own words where you can instead of \
repeating the passage's phrases, and do not refer to 'the passage', 'the text' or 'the document'. \
Reply with the question only.";

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

/// The language-model question generator.
pub struct LlmQuestions {
    config: LlmConfig,
    endpoint: String,
    /// The key and the address's credentials: every reply and address in a message passes
    /// [`Secrets::scrub`] with them.
    secrets: Secrets,
    /// The endpoint as messages show it (credentials masked).
    shown: String,
    agent: ureq::Agent,
}

/// What one attempt came to: a reply body, or an error that may be worth retrying.
enum Attempt {
    Reply(String),
    Retry(GenError),
    Stop(GenError),
}

impl LlmQuestions {
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

    /// The question in a chat completion body.
    fn parse(&self, body: &str) -> Result<String, GenError> {
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
        clean_question(content).ok_or_else(|| {
            GenError::NoQuestion("the model replied with an empty question".to_string())
        })
    }
}

impl QuestionGenerator for LlmQuestions {
    fn name(&self) -> String {
        format!("llm:{}", self.config.model)
    }

    fn describe(&self) -> String {
        format!(
            "questions written by the language model {} at {} (OpenAI-compatible chat \
             completions, temperature 0). It can paraphrase, so its questions share fewer words \
             with the sentence than keyword queries do; a model may still copy phrases, or ask \
             about the surrounding text rather than the sentence.",
            self.config.model, self.endpoint
        )
    }

    fn question(&mut self, sentence: &str, context: &str) -> Result<String, GenError> {
        self.ask(
            SYSTEM_PROMPT,
            &format!(
                "Text around it (for understanding only):\n{context}\n\nSentence:\n{sentence}\n\nQuestion:"
            ),
        )
    }

    fn passage_question(&mut self, passage: &str) -> Result<String, GenError> {
        self.ask(PASSAGE_PROMPT, &format!("Passage:\n{passage}\n\nQuestion:"))
    }
}

impl LlmQuestions {
    /// One chat completion with retries, cleaned to one question.
    fn ask(&mut self, system: &str, user: &str) -> Result<String, GenError> {
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

/// The question in a model's reply: no `<think>` block, first non-empty line, no label or quotes.
pub fn clean_question(content: &str) -> Option<String> {
    let mut text = content;
    if let Some(end) = text.find("</think>") {
        text = &text[end + "</think>".len()..];
    }
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut q = line;
    for label in ["Question:", "question:", "Q:"] {
        if let Some(rest) = q.strip_prefix(label) {
            q = rest.trim_start();
        }
    }
    let q = q
        .trim_matches(|c| matches!(c, '"' | '\'' | '“' | '”' | '*' | '`'))
        .trim();
    (!q.is_empty()).then(|| q.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_takes_a_base_or_a_full_url() {
        let c = LlmConfig::new("http://localhost:8080/v1/", "m");
        assert_eq!(c.endpoint(), "http://localhost:8080/v1/chat/completions");
        let c = LlmConfig::new("http://h/v1/chat/completions", "m");
        assert_eq!(c.endpoint(), "http://h/v1/chat/completions");
        assert!(matches!(
            LlmQuestions::new(LlmConfig::new("localhost:8080", "m")),
            Err(GenError::Config(_))
        ));
        assert!(matches!(
            LlmQuestions::new(LlmConfig::new("http://h/v1", " ")),
            Err(GenError::Config(_))
        ));
    }

    #[test]
    fn replies_are_cleaned_to_one_question() {
        assert_eq!(
            clean_question("  \"How often are batches retried?\"\n\nExtra notes").as_deref(),
            Some("How often are batches retried?")
        );
        assert_eq!(
            clean_question("<think>hmm\nok</think>\nQuestion: Who owns the key?").as_deref(),
            Some("Who owns the key?")
        );
        assert_eq!(clean_question(" \n \"\" "), None);
    }
}
