//! Question generators: one question per sampled sentence, answered by that sentence.
//!
//! Pluggable behind [`QuestionGenerator`]. The default, [`KeywordQuestions`], works offline and
//! says plainly what it is; [`LlmQuestions`](super::llm::LlmQuestions) asks a language model
//! behind an OpenAI-compatible endpoint.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

pub use crate::embed::chat::GenError;

impl GenError {
    /// Whether the calibration must stop (the generator cannot work at all), rather than skip
    /// one sentence.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, GenError::NoQuestion(_))
    }
}

/// Writes a question that a sentence answers.
pub trait QuestionGenerator {
    /// A short name for reports, e.g. `offline-keywords` or `llm:qwen2.5-7b`.
    fn name(&self) -> String;
    /// What the generator does and what it cannot do, in plain words, for the screen and report.
    fn describe(&self) -> String;
    /// A question answered by `sentence`; `context` (the sentences around it) is for
    /// understanding only.
    fn question(&mut self, sentence: &str, context: &str) -> Result<String, GenError>;
    /// A question whose complete answer needs the whole `passage` (several sentences), for the
    /// measured objective. By default, the sentence question with the passage as its own context.
    fn passage_question(&mut self, passage: &str) -> Result<String, GenError> {
        self.question(passage, passage)
    }
}

/// Most content words an offline question keeps.
pub const MAX_KEYWORDS: usize = 12;

/// Longest word an offline question keeps, in characters: a longer "word" (a base64 blob, a hash,
/// a minified line) names nothing a reader would ask about, and a few of them made a question
/// of 60,000 characters that the engine refuses, stopping calibration and tuning.
pub const MAX_KEYWORD_CHARS: usize = 40;

/// English function words the offline generator drops.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "else",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "neither",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "per",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "thus",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "via",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The offline default: a keyword query built from the sentence's content words, no model.
#[derive(Debug, Clone, Default)]
pub struct KeywordQuestions;

impl KeywordQuestions {
    /// The content words of `sentence`, lowercased, first occurrence only, in order, at most
    /// [`MAX_KEYWORDS`].
    pub fn content_words(sentence: &str) -> Vec<String> {
        let mut seen = HashSet::new();
        sentence
            .unicode_words()
            .map(str::to_lowercase)
            .filter(|w| {
                let has_digit = w.chars().any(|c| c.is_ascii_digit());
                let chars = w.chars().count();
                (has_digit || chars >= 3)
                    && chars <= MAX_KEYWORD_CHARS
                    && !STOPWORDS.contains(&w.as_str())
            })
            .filter(|w| seen.insert(w.clone()))
            .take(MAX_KEYWORDS)
            .collect()
    }
}

impl QuestionGenerator for KeywordQuestions {
    fn name(&self) -> String {
        "offline-keywords".to_string()
    }

    fn describe(&self) -> String {
        format!(
            "offline keyword query, no language model: each question is the sentence's content \
             words (common English function words, punctuation and one- or two-letter words \
             dropped, numbers kept, at most {MAX_KEYWORDS}, in order). It cannot paraphrase, \
             resolve pronouns or ask about meaning, so every question shares its words with the \
             sentence: it favours keyword (BM25) matches and short texts that repeat those words, \
             such as seams. Treat the head starts as a rough guide; --llm-url asks a language \
             model for questions in other words. For a passage of several sentences (the \
             measured objective), the question is the content words the passage opens with, as \
             a reader's question names a topic and the answer runs on past it; the context must \
             still hold the whole passage."
        )
    }

    fn passage_question(&mut self, passage: &str) -> Result<String, GenError> {
        let words = Self::content_words(passage);
        if words.is_empty() {
            return Err(GenError::NoQuestion(
                "the passage has no content words".to_string(),
            ));
        }
        Ok(words.join(" "))
    }

    fn question(&mut self, sentence: &str, _context: &str) -> Result<String, GenError> {
        let words = Self::content_words(sentence);
        if words.is_empty() {
            return Err(GenError::NoQuestion(
                "the sentence has no content words".to_string(),
            ));
        }
        Ok(words.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_questions_keep_content_words_in_order() {
        let mut g = KeywordQuestions;
        let q = g
            .question(
                "The ledger writer retries each batch 3 times before it gives up on the batch.",
                "",
            )
            .unwrap();
        assert_eq!(q, "ledger writer retries batch 3 times gives");
        assert!(g.describe().contains("cannot paraphrase"));
        assert_eq!(g.name(), "offline-keywords");
    }

    #[test]
    fn keyword_questions_cap_length_and_reject_empty_sentences() {
        let long = (0..40)
            .map(|i| format!("word{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(KeywordQuestions::content_words(&long).len(), MAX_KEYWORDS);
        let err = KeywordQuestions
            .question("It is on the up.", "")
            .unwrap_err();
        assert!(!err.is_fatal(), "{err}");
    }

    #[test]
    fn keyword_questions_skip_over_long_words() {
        let blob = "Q".repeat(2_000);
        let sentence = format!("The signing key {blob} rotates every quarter {blob}x.");
        let q = KeywordQuestions.question(&sentence, "").unwrap();
        assert_eq!(q, "signing key rotates quarter");
        let edge = "a".repeat(MAX_KEYWORD_CHARS);
        assert_eq!(KeywordQuestions::content_words(&edge), vec![edge.clone()]);
        assert!(KeywordQuestions::content_words(&format!("{edge}a")).is_empty());
        // A passage of nothing but long words has no question, an error calibration skips.
        let err = KeywordQuestions.passage_question(&blob).unwrap_err();
        assert!(!err.is_fatal(), "{err}");
    }

    #[test]
    fn passage_questions_name_what_the_passage_opens_with() {
        let passage = (0..48)
            .map(|i| format!("term{i:02}"))
            .collect::<Vec<_>>()
            .join(" ");
        let q = KeywordQuestions.passage_question(&passage).unwrap();
        let words: Vec<&str> = q.split(' ').collect();
        assert_eq!(words.len(), MAX_KEYWORDS);
        assert_eq!((words[0], words[11]), ("term00", "term11"));
        assert!(KeywordQuestions.passage_question("it is so.").is_err());
    }
}
