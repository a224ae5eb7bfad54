//! Syntax highlighting of code files and Markdown (fenced code included) with syntect.
//!
//! syntect names what each piece of text is (a scope such as `keyword.control.python`); this
//! module reduces those scopes to a handful of [`SyntaxClass`]es, which themes then colour by
//! meaning. It runs once per corpus, on the worker thread, never while drawing.

use seamscope::corpus::{Corpus, DocId, DocKind, Document};
use syntect::easy::HighlightLines;
use syntect::highlighting::{
    Color, ScopeSelectors, StyleModifier, Theme, ThemeItem, ThemeSettings,
};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Documents larger than this are shown without highlighting (syntect is slow on huge files).
const MAX_HIGHLIGHT_BYTES: usize = 2 * 1024 * 1024;
/// Lines longer than this stop highlighting for the rest of a document (minified code).
const MAX_LINE_BYTES: usize = 20_000;

/// What a piece of highlighted text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxClass {
    /// A keyword or storage modifier.
    Keyword,
    /// A string literal.
    String,
    /// A comment.
    Comment,
    /// A number or language constant.
    Number,
    /// A function name.
    Function,
    /// A type or class name.
    Type,
    /// A Markdown heading.
    Heading,
    /// Inline code or a fence without a known language.
    Code,
    /// Bold or italic text.
    Emphasis,
    /// A link.
    Link,
}

/// Scope selectors for each class, in the order of [`SyntaxClass`] (index + 1 is its code).
const CLASSES: [(SyntaxClass, &str); 10] = [
    (SyntaxClass::Keyword, "keyword, storage"),
    (SyntaxClass::String, "string"),
    (
        SyntaxClass::Comment,
        "comment, punctuation.definition.comment",
    ),
    (
        SyntaxClass::Number,
        "constant.numeric, constant.language, constant.character",
    ),
    (
        SyntaxClass::Function,
        "entity.name.function, support.function, variable.function",
    ),
    (
        SyntaxClass::Type,
        "entity.name.type, entity.name.class, support.type, support.class",
    ),
    (
        SyntaxClass::Heading,
        "markup.heading, entity.name.section, punctuation.definition.heading",
    ),
    (SyntaxClass::Code, "markup.raw"),
    (SyntaxClass::Emphasis, "markup.bold, markup.italic"),
    (SyntaxClass::Link, "markup.underline.link, meta.link"),
];

/// Scopes that stay plain even inside a highlighted region (operators, most punctuation).
const PLAIN: &str = "keyword.operator, punctuation.separator, punctuation.accessor";

/// A highlighted byte range of one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// What it is.
    pub class: SyntaxClass,
}

/// The highlighted ranges of every document of a corpus, each list sorted by start.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Highlights {
    docs: Vec<Vec<Token>>,
}

impl Highlights {
    /// Documents highlighted (the first ones of the corpus).
    pub fn documents(&self) -> usize {
        self.docs.len()
    }

    /// The highlighted ranges of one document (empty for plain text).
    pub fn doc(&self, id: DocId) -> &[Token] {
        self.docs.get(id.0 as usize).map_or(&[], Vec::as_slice)
    }
}

/// syntect's syntaxes and a theme that encodes each class as a colour code.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Theme,
}

fn code_color(code: u8) -> Color {
    Color {
        r: code,
        g: 0,
        b: 0,
        a: 255,
    }
}

impl Highlighter {
    /// Load syntect's built-in syntaxes (Markdown, Rust, Python, shell, SQL, YAML, JSON, ...).
    pub fn new() -> Highlighter {
        let mut scopes = Vec::new();
        for (i, (_, selectors)) in CLASSES.iter().enumerate() {
            scopes.extend(item(selectors, i as u8 + 1));
        }
        scopes.extend(item(PLAIN, 0));
        let theme = Theme {
            name: Some("seamscope-classes".into()),
            author: None,
            settings: ThemeSettings {
                foreground: Some(code_color(0)),
                ..ThemeSettings::default()
            },
            scopes,
        };
        Highlighter {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme,
        }
    }

    fn syntax_for(&self, doc: &Document) -> Option<&SyntaxReference> {
        match doc.kind {
            DocKind::Markdown => self.syntaxes.find_syntax_by_name("Markdown"),
            DocKind::Code => {
                let ext = doc.path.rsplit('.').next().unwrap_or("");
                self.syntaxes.find_syntax_by_extension(ext)
            }
            DocKind::Text => None,
        }
    }

    /// The highlighted ranges of one document. syntect's Markdown grammar does not look inside
    /// fenced blocks, so each fence with a known language is highlighted again with that language.
    pub fn document(&self, doc: &Document) -> Vec<Token> {
        let Some(syntax) = self.syntax_for(doc) else {
            return Vec::new();
        };
        if doc.text.len() > MAX_HIGHLIGHT_BYTES {
            return Vec::new();
        }
        let mut tokens = self.highlight(&doc.text, syntax, 0);
        if doc.kind != DocKind::Markdown {
            return tokens;
        }
        for (inner, language) in fenced_blocks(&doc.text) {
            let Some(code) = self.language(&language) else {
                continue;
            };
            tokens = tokens
                .into_iter()
                .flat_map(|t| outside(t, inner.start, inner.end))
                .collect();
            tokens.extend(self.highlight(&doc.text[inner.clone()], code, inner.start));
        }
        tokens.sort_by_key(|t| t.start);
        tokens
    }

    /// The syntax for a fence's language tag (`python`, `rust`, `shell`, `yaml`, ...).
    fn language(&self, tag: &str) -> Option<&SyntaxReference> {
        let tag = match tag.to_ascii_lowercase().as_str() {
            "shell" | "console" | "bash" | "zsh" => "sh".to_string(),
            other => other.to_string(),
        };
        self.syntaxes.find_syntax_by_token(&tag)
    }

    /// Highlight `text` with `syntax`; token offsets start at `base`.
    fn highlight(&self, text: &str, syntax: &SyntaxReference, base: usize) -> Vec<Token> {
        let mut lines = HighlightLines::new(syntax, &self.theme);
        let mut tokens: Vec<Token> = Vec::new();
        let mut offset = base;
        for line in LinesWithEndings::from(text) {
            if line.len() > MAX_LINE_BYTES {
                break;
            }
            let Ok(pieces) = lines.highlight_line(line, &self.syntaxes) else {
                break;
            };
            for (style, piece) in pieces {
                let code = style.foreground.r as usize;
                let start = offset;
                offset += piece.len();
                let Some((class, _)) = code.checked_sub(1).and_then(|i| CLASSES.get(i)) else {
                    continue;
                };
                match tokens.last_mut() {
                    Some(last) if last.end == start && last.class == *class => last.end = offset,
                    _ => tokens.push(Token {
                        start,
                        end: offset,
                        class: *class,
                    }),
                }
            }
        }
        tokens
    }

    /// Highlight every document, reporting after each; stops early (plain text for the rest)
    /// when `progress` returns false.
    #[cfg(test)]
    pub fn corpus(
        &self,
        corpus: &Corpus,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Highlights {
        self.extend(None, corpus, progress)
    }

    /// The highlights of `corpus`, keeping those `done` already holds for its first documents
    /// (the corpus grows as it is laid out) and highlighting only the rest.
    pub fn extend(
        &self,
        done: Option<&Highlights>,
        corpus: &Corpus,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Highlights {
        let total = corpus.documents.len();
        let mut docs = Vec::with_capacity(total);
        if let Some(done) = done {
            docs.extend(done.docs.iter().take(total).cloned());
        }
        for doc in &corpus.documents[docs.len()..] {
            docs.push(self.document(doc));
            if !progress(docs.len(), total) {
                break;
            }
        }
        Highlights { docs }
    }
}

/// The parts of a token that lie outside `start..end`.
fn outside(t: Token, start: usize, end: usize) -> Vec<Token> {
    let mut parts = Vec::new();
    if t.start < start {
        parts.push(Token {
            end: t.end.min(start),
            ..t
        });
    }
    if t.end > end {
        parts.push(Token {
            start: t.start.max(end),
            ..t
        });
    }
    parts
}

/// Fenced code blocks of a Markdown text: the byte range of each block's code (between its
/// fence lines) and its language tag (empty when none).
fn fenced_blocks(text: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, usize, String)> = None;
    let mut offset = 0;
    for line in LinesWithEndings::from(text) {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start_matches(' ');
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        let fence: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        let is_fence = fence.len() >= 3 && fence.chars().all(|c| fence.starts_with(c));
        match &open {
            None if is_fence => {
                let tag = trimmed[fence.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                open = Some((fence, offset, tag.to_string()));
            }
            Some((marker, code_start, tag))
                if is_fence
                    && fence.starts_with(marker.as_str())
                    && trimmed[fence.len()..].trim().is_empty() =>
            {
                blocks.push((*code_start..start, tag.clone()));
                open = None;
            }
            _ => {}
        }
    }
    blocks
}

fn item(selectors: &str, code: u8) -> Option<ThemeItem> {
    let scope: ScopeSelectors = selectors.parse().ok()?;
    Some(ThemeItem {
        scope,
        style: StyleModifier {
            foreground: Some(code_color(code)),
            background: None,
            font_style: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes_of(text: &str, path: &str) -> Vec<(String, SyntaxClass)> {
        let corpus = Corpus::from_texts([(path, text)]);
        let doc = corpus.doc(DocId(0));
        Highlighter::new()
            .document(doc)
            .into_iter()
            .map(|t| (text[t.start..t.end].to_string(), t.class))
            .collect()
    }

    #[test]
    fn markdown_fence_code_is_highlighted_by_its_language() {
        let md = "# Title\n\nSome `code` here.\n\n```python\ndef run(x):\n    return \"ok\"  # done\n```\n";
        let found = classes_of(md, "a.md");
        assert!(
            found
                .iter()
                .any(|(t, c)| t.contains("Title") && *c == SyntaxClass::Heading)
        );
        assert!(
            found
                .iter()
                .any(|(t, c)| t == "def" && *c == SyntaxClass::Keyword),
            "{found:?}"
        );
        assert!(
            found
                .iter()
                .any(|(t, c)| t.contains("ok") && *c == SyntaxClass::String)
        );
        assert!(
            found
                .iter()
                .any(|(t, c)| t.contains("done") && *c == SyntaxClass::Comment)
        );
    }

    #[test]
    fn fences_are_found_with_their_language() {
        let md = "a\n```rust\nfn x() {}\n```\n~~~\nplain\n~~~\n    ```not a fence\n";
        let blocks = fenced_blocks(md);
        assert_eq!(blocks.len(), 2);
        assert_eq!(&md[blocks[0].0.clone()], "fn x() {}\n");
        assert_eq!(blocks[0].1, "rust");
        assert_eq!(
            (&md[blocks[1].0.clone()], blocks[1].1.as_str()),
            ("plain\n", "")
        );
    }

    #[test]
    fn plain_text_has_no_tokens_and_offsets_stay_on_the_text() {
        assert!(classes_of("fn main() {}", "notes.txt").is_empty());
        let rs = "fn main() {\r\n    let s = \"é\";\r\n}\r\n";
        let corpus = Corpus::from_texts([("m.rs", rs)]);
        for t in Highlighter::new().document(corpus.doc(DocId(0))) {
            assert!(
                rs.is_char_boundary(t.start) && rs.is_char_boundary(t.end) && t.end <= rs.len()
            );
        }
    }
}
