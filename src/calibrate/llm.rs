//! Questions from a language model behind an OpenAI-compatible chat endpoint
//! ([`crate::embed::chat`], which says how it is called, retried and refused).
//!
//! One chat completion per sentence with a short system and user prompt; the question is the
//! reply's first non-empty line, with quotes, a `Question:` label and any `<think>…</think>`
//! block removed.

pub use crate::embed::chat::{DEFAULT_BACKOFF, DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECS, LlmConfig};

use super::generate::{GenError, QuestionGenerator};
use crate::embed::chat::ChatClient;

const SYSTEM_PROMPT: &str = "You write test questions for a search engine. You are given one \
sentence from a document and some text around it. Write one question that the sentence answers. \
Use your own words where you can instead of repeating the sentence's phrases, and do not refer to \
'the sentence', 'the text' or 'the document'. Reply with the question only.";

const PASSAGE_PROMPT: &str = "You write test questions for a search engine. You are given a \
passage of several sentences from a document. Write one question whose complete answer needs the \
whole passage, not only one of its sentences. Use your own words where you can instead of \
repeating the passage's phrases, and do not refer to 'the passage', 'the text' or 'the document'. \
Reply with the question only.";

/// The language-model question generator.
pub struct LlmQuestions {
    client: ChatClient,
}

impl LlmQuestions {
    /// Check the settings and prepare the HTTP client (nothing is sent yet).
    pub fn new(config: LlmConfig) -> Result<Self, GenError> {
        Ok(LlmQuestions {
            client: ChatClient::new(config)?,
        })
    }

    /// One chat completion, cleaned to one question.
    fn ask(&mut self, system: &str, user: &str) -> Result<String, GenError> {
        let reply = self.client.complete(system, user)?;
        clean_question(&reply.content).ok_or_else(|| {
            GenError::NoQuestion("the model replied with an empty question".to_string())
        })
    }
}

impl QuestionGenerator for LlmQuestions {
    fn name(&self) -> String {
        format!("llm:{}", self.client.model())
    }

    fn describe(&self) -> String {
        format!(
            "questions written by the language model {} at {} (OpenAI-compatible chat \
             completions, temperature 0). It can paraphrase, so its questions share fewer words \
             with the sentence than keyword queries do; a model may still copy phrases, or ask \
             about the surrounding text rather than the sentence.",
            self.client.model(),
            self.client.shown()
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
