//! The offline questions the map can ask about a passage, and what each one names.
//!
//! A real question about split evidence usually names one part of it (the setting, or the
//! result) while its answer needs all of it. Which offline kind behaves like that decides what
//! the map says about strategies that join the two sides of a cut, so every kind can be scored
//! against gold questions wherever gold exists ([`super::agreement`]).

use serde::Serialize;

use crate::calibrate::KeywordQuestions;
use crate::calibrate::QuestionGenerator;
use crate::calibrate::generate::MAX_KEYWORDS;

/// Which question a passage is asked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionKind {
    /// Content words drawn from about a third of the passage's sentences, spread over it,
    /// shuffled: the question names every part of the passage.
    WholePassage,
    /// The content words the passage opens with (`calibrate`'s kind): the question names where
    /// the passage starts.
    Opening,
    /// Content words of one contiguous third of the passage, at a seeded place, shuffled: the
    /// question names one part while the answer needs all of it, as real questions about split
    /// evidence do.
    OneSided,
    /// A language model's question about the whole passage (the configured endpoint).
    Llm,
}

/// The kinds that need no model, in the order the map reports them.
pub const OFFLINE_KINDS: [QuestionKind; 3] = [
    QuestionKind::OneSided,
    QuestionKind::WholePassage,
    QuestionKind::Opening,
];

/// The kind the map asks by default: the offline kind whose verdicts agreed best with the gold
/// questions where both were measured (`tune --map --questions`; the figures are in the manual's
/// map chapter and printed with every map, [`CHECKED_AGAINST_GOLD`]).
pub const DEFAULT_KIND: QuestionKind = QuestionKind::OneSided;

/// Where the default kind was checked against gold questions, and how well it agreed, in words
/// (measured with `tune --map --questions`; see the manual's map chapter).
pub const CHECKED_AGAINST_GOLD: &str = "checked against gold on the sample corpus only";

impl QuestionKind {
    /// The kind's name as the CLI and JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            QuestionKind::WholePassage => "whole-passage",
            QuestionKind::Opening => "opening",
            QuestionKind::OneSided => "one-sided",
            QuestionKind::Llm => "llm",
        }
    }

    /// The kind named `name`, or what the names are.
    pub fn parse(name: &str) -> Result<QuestionKind, String> {
        match name.trim() {
            "whole-passage" | "whole" => Ok(QuestionKind::WholePassage),
            "opening" => Ok(QuestionKind::Opening),
            "one-sided" => Ok(QuestionKind::OneSided),
            "llm" => Ok(QuestionKind::Llm),
            other => Err(format!(
                "{other:?} is not a question kind: one-sided, whole-passage, opening or llm"
            )),
        }
    }

    /// What a question of this kind is made of, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            QuestionKind::WholePassage => "content words from across the passage",
            QuestionKind::Opening => "the passage's opening content words",
            QuestionKind::OneSided => "content words of one contiguous third of the passage",
            QuestionKind::Llm => "a language model's question about the passage",
        }
    }
}

/// SplitMix64 step, for the question words' draw.
pub(super) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `words` shuffled with `seed` (Fisher–Yates), then cut to [`MAX_KEYWORDS`]: words from every
/// part chosen can survive the cap. `None` when there is no word.
fn shuffled_question(mut words: Vec<String>, seed: u64) -> Option<String> {
    let mut state = seed ^ 0x5EA7_5C0E;
    for i in (1..words.len()).rev() {
        state = mix(state);
        let j = (state % (i as u64 + 1)) as usize;
        words.swap(i, j);
    }
    words.truncate(MAX_KEYWORDS);
    (!words.is_empty()).then(|| words.join(" "))
}

/// Appends the content words of `text` not yet in `words`.
fn add_words(words: &mut Vec<String>, text: &str) {
    for w in KeywordQuestions::content_words(text) {
        if !words.contains(&w) {
            words.push(w);
        }
    }
}

/// A whole-passage question: content words from about a third of the passage's sentences, spread
/// over it (one from each third when it has three or more), shuffled with `seed`, at most
/// [`MAX_KEYWORDS`]. `None` when the passage has no content word.
pub fn whole_passage_question(passage: &str, seed: u64) -> Option<String> {
    let sents = crate::calibrate::sample::sentences(passage);
    let n = sents.len().max(1);
    let take = n.div_ceil(3);
    let mut words: Vec<String> = Vec::new();
    if sents.is_empty() {
        add_words(&mut words, passage);
    } else {
        // One sentence from each of `take` equal stretches, at a seeded place in it.
        for i in 0..take {
            let (lo, hi) = (i * n / take, ((i + 1) * n / take).max(i * n / take + 1));
            let at = lo + (mix(seed ^ (i as u64) << 32) % (hi - lo) as u64) as usize;
            let s = sents[at.min(n - 1)];
            add_words(&mut words, &passage[s.start..s.end]);
        }
    }
    shuffled_question(words, seed)
}

/// A one-sided question: the content words of one contiguous third of the passage (by its
/// content words in reading order, at least one word and at most [`MAX_KEYWORDS`]), the third
/// placed uniformly with `seed`, shuffled. `None` when the passage has no content word.
pub fn one_sided_question(passage: &str, seed: u64) -> Option<String> {
    let sents = crate::calibrate::sample::sentences(passage);
    let mut words: Vec<String> = Vec::new();
    if sents.is_empty() {
        add_words(&mut words, passage);
    } else {
        for s in &sents {
            add_words(&mut words, &passage[s.start..s.end]);
        }
    }
    if words.is_empty() {
        return None;
    }
    let len = words.len().div_ceil(3).clamp(1, MAX_KEYWORDS);
    let start = (mix(seed ^ 0x0E51_DED0) % (words.len() - len + 1) as u64) as usize;
    shuffled_question(words[start..start + len].to_vec(), seed)
}

/// The question of `kind` about `passage`; `generator` writes the language model's kind (`None`
/// for that kind when no endpoint is configured). `None` when the passage yields no question.
pub fn question_of(
    kind: QuestionKind,
    passage: &str,
    seed: u64,
    generator: Option<&mut (dyn QuestionGenerator + '_)>,
) -> Option<String> {
    match kind {
        QuestionKind::WholePassage => whole_passage_question(passage, seed),
        QuestionKind::OneSided => one_sided_question(passage, seed),
        QuestionKind::Opening => KeywordQuestions.passage_question(passage).ok(),
        QuestionKind::Llm => generator?.passage_question(passage).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(tag: &str, sentences: usize, words: usize) -> String {
        (0..sentences)
            .map(|s| {
                let body: Vec<String> = (0..words)
                    .map(|w| match w {
                        0 => format!("{}{s}w{w}", tag.to_uppercase()),
                        _ => format!("{tag}{s}w{w}"),
                    })
                    .collect();
                format!("{}.", body.join(" "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn whole_passage_questions_draw_words_from_across_the_passage() {
        let passage = "Alpha beacons guard the harbour entrance. Nothing else happens here today. \
                       Bravo cranes unload the freighters. The weather stays calm all week. \
                       Charlie tugboats berth the tankers. Quiet evenings follow every shift. \
                       Delta pilots board inbound vessels. Gulls circle above the piers.";
        let q = whole_passage_question(passage, 3).unwrap();
        let words: Vec<&str> = q.split(' ').collect();
        assert!(words.len() <= MAX_KEYWORDS);
        // One sentence from each third: words from the opening, the middle and the end.
        let first_third = [
            "alpha",
            "beacons",
            "guard",
            "harbour",
            "entrance",
            "nothing",
            "happens",
            "today",
            "bravo",
            "cranes",
            "unload",
            "freighters",
        ];
        let last_third = [
            "charlie", "tugboats", "berth", "tankers", "quiet", "evenings", "follow", "shift",
            "delta", "pilots", "board", "inbound", "vessels", "gulls", "circle", "piers",
        ];
        assert!(words.iter().any(|w| first_third.contains(w)), "{q}");
        assert!(words.iter().any(|w| last_third.contains(w)), "{q}");
        // The opening kind names only how the passage starts.
        let opening = KeywordQuestions.passage_question(passage).unwrap();
        assert!(opening.starts_with("alpha beacons guard"));
        // Seeded: the same seed, the same question.
        assert_eq!(whole_passage_question(passage, 3), Some(q));
        assert_eq!(whole_passage_question("the of and", 1), None);
    }

    #[test]
    fn one_sided_questions_name_one_contiguous_part() {
        let passage = prose("xyz", 9, 4);
        for seed in 0..20 {
            let q = one_sided_question(&passage, seed).unwrap();
            // 36 content words: a third is 12, all from consecutive positions.
            let mut at: Vec<usize> = q
                .split(' ')
                .map(|w| {
                    let rest = w.strip_prefix("xyz").unwrap();
                    let (s, w) = rest.split_once('w').unwrap();
                    s.parse::<usize>().unwrap() * 4 + w.parse::<usize>().unwrap()
                })
                .collect();
            at.sort_unstable();
            assert_eq!(at.len(), 12, "{q}");
            assert!(at.windows(2).all(|p| p[1] == p[0] + 1), "{q}");
        }
        // Different seeds place the third at different places.
        let firsts: std::collections::BTreeSet<String> = (0..20)
            .map(|s| {
                let mut w: Vec<String> = one_sided_question(&passage, s)
                    .unwrap()
                    .split(' ')
                    .map(String::from)
                    .collect();
                w.sort();
                w[0].clone()
            })
            .collect();
        assert!(firsts.len() > 3, "{firsts:?}");
        assert_eq!(one_sided_question("a an the", 1), None);
    }

    #[test]
    fn kinds_parse_by_their_names() {
        for k in [
            QuestionKind::WholePassage,
            QuestionKind::Opening,
            QuestionKind::OneSided,
            QuestionKind::Llm,
        ] {
            assert_eq!(QuestionKind::parse(k.name()), Ok(k));
        }
        assert!(
            QuestionKind::parse("sideways")
                .unwrap_err()
                .contains("one-sided")
        );
    }
}
