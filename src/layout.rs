//! The layout of a corpus under one setting: token offsets, chunks and seams.
//!
//! This is the `Corpus → Chunks → Seams` part of the pipeline; it is pure and deterministic.
//! Each document's token offsets and cuts may be kept under the cache folder ([`store`]) so a
//! corpus opened again is not tokenized again; seams are always recomputed (they are cheap and
//! depend on `k`). [`LayoutBuilder`] lays a corpus out a few documents at a time.

use std::borrow::Cow;
use std::time::Instant;

use serde::Serialize;

use crate::chunk::context::{DocContext, SearchContext};
use crate::chunk::{Chunk, ChunkId, Chunker, chunk_corpus};
use crate::corpus::{Corpus, DocId, Span};
use crate::seam::{Seam, SeamId, build_seams};
use rayon::prelude::*;

use crate::settings::Settings;
use crate::tokens::{TokenCounter, TokenOffsets, TokenizerError};

mod progressive;
pub mod records;
pub mod store;
pub use progressive::{LayoutBuilder, StoreCounts};

/// Chunks and seams of a corpus, with each document's token offsets.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Token offsets of each document, by document index.
    pub offsets: Vec<TokenOffsets>,
    /// Every chunk, in document order.
    pub chunks: Vec<Chunk>,
    /// Every seam, in document order.
    pub seams: Vec<Seam>,
    /// The chunker's name, with `+headings` when search texts carry heading paths; indexes are
    /// keyed by it, so each search-text variant gets its own index folder.
    pub chunker: String,
    /// The seam half-width used.
    pub k: usize,
    /// What search texts add in front of each exact span.
    pub search: SearchContext,
    /// Seconds spent per step.
    pub timings: LayoutTimings,
    /// Where the chunks came from when the user gave them (chunker `given`); `None` for the
    /// built-in chunkers.
    pub given: Option<GivenSource>,
    /// How many documents' layouts were read back from the stored layouts, and how many built.
    pub store: StoreCounts,
}

/// The cuts file a layout's chunks were read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GivenSource {
    /// The file, as given.
    pub file: std::path::PathBuf,
    /// The format it was read as.
    pub format: crate::chunk::given::CutsFormat,
    /// Records placed (one chunk each).
    pub records: usize,
    /// Documents with at least one given chunk.
    pub documents: usize,
}

impl GivenSource {
    /// The chunker as the screen names it: `given (cuts.jsonl)`.
    pub fn label(&self) -> String {
        let name = self
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.file.display().to_string());
        format!("given ({})", crate::text::safe_name(&name))
    }
}

impl From<crate::chunk::given::CutsError> for LayoutError {
    fn from(e: crate::chunk::given::CutsError) -> Self {
        LayoutError::Cuts(Box::new(e))
    }
}

/// Why a corpus could not be laid out.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// The tokenizer failed.
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// The cuts file of chunker `given` cannot be used.
    #[error(transparent)]
    Cuts(Box<crate::chunk::given::CutsError>),
    /// Chunker `given` without a cuts file.
    #[error(
        "chunker `given` takes its chunks from a cuts file: pass --cuts FILE (or set cuts_file)"
    )]
    NoCutsFile,
}

/// A seam name that names no seam of the layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeamNameError {
    /// Neither an id nor `left|right`.
    #[error("`{0}` is not a seam: give its id (`12`) or its two chunks as left|right (`40|41`)")]
    Unreadable(String),
    /// An id past the seam table.
    #[error("there is no seam {id}: this layout has {seams} seams (ids 0 to {})", seams.saturating_sub(1))]
    NoSuchSeam {
        /// The id asked for.
        id: u32,
        /// Seams in the layout.
        seams: usize,
    },
    /// A chunk id past the chunk table.
    #[error("there is no chunk {chunk}: this layout has {chunks} chunks (ids 0 to {})", chunks.saturating_sub(1))]
    NoSuchChunk {
        /// The chunk asked for.
        chunk: u32,
        /// Chunks in the layout.
        chunks: usize,
    },
    /// Two chunks that no cut joins.
    #[error(
        "there is no seam {left}|{right}: a seam joins a chunk and the next one in the same document (seams at those chunks: {near})"
    )]
    NotAdjacent {
        /// The left chunk asked for.
        left: u32,
        /// The right chunk asked for.
        right: u32,
        /// Seams touching either chunk, `40|41, 41|42`.
        near: String,
    },
}

/// Search texts for any span under one layout's search context: the search prefix (heading path,
/// repeated table header) and then the exact span. See [`Layout::search_text_source`].
pub struct SearchTextSource<'a> {
    corpus: &'a Corpus,
    /// One per document; empty when the context adds nothing.
    contexts: Vec<DocContext<'a>>,
}

impl<'a> SearchTextSource<'a> {
    /// The prefix put before `span` of `doc` for search; empty when there is none.
    pub fn prefix(&self, doc: DocId, span: Span) -> String {
        self.contexts
            .get(doc.0 as usize)
            .map(|c| c.prefix(span))
            .unwrap_or_default()
    }

    /// The text embedded and keyword-indexed for `span` of `doc`.
    pub fn text(&self, doc: DocId, span: Span) -> Cow<'a, str> {
        let exact = self.corpus.doc(doc).slice(span);
        let prefix = self.prefix(doc, span);
        if prefix.is_empty() {
            Cow::Borrowed(exact)
        } else {
            Cow::Owned(prefix + exact)
        }
    }
}

/// What [`Layout::with_heading_prefix`] adds to the chunker's name.
pub const HEADINGS_SUFFIX: &str = "+headings";

/// Time spent building a layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LayoutTimings {
    /// Tokenizing every document.
    pub tokenize: f64,
    /// Cutting chunks.
    pub chunk: f64,
    /// Building seam windows.
    pub seams: f64,
}

impl Layout {
    /// Tokenize, chunk and build seams for `corpus`.
    pub fn build(
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        chunker: &dyn Chunker,
        k: usize,
    ) -> Result<Layout, TokenizerError> {
        let t0 = Instant::now();
        // Documents are tokenized on every core (each in bounded pieces), in document order.
        let offsets = corpus
            .documents
            .par_iter()
            .map(|d| tokenizer.offsets(&d.text))
            .collect::<Result<Vec<_>, _>>()?;
        let t1 = Instant::now();
        let chunks = chunk_corpus(corpus, &offsets, chunker);
        let t2 = Instant::now();
        let seams = build_seams(corpus, &offsets, &chunks, k);
        let t3 = Instant::now();
        Ok(Layout {
            offsets,
            chunks,
            seams,
            chunker: chunker.name(),
            k,
            search: SearchContext {
                heading_path: false,
                table_header: chunker.repeats_table_header(),
            },
            given: None,
            store: StoreCounts {
                built: corpus.documents.len(),
                ..StoreCounts::default()
            },
            timings: LayoutTimings {
                tokenize: (t1 - t0).as_secs_f64(),
                chunk: (t2 - t1).as_secs_f64(),
                seams: (t3 - t2).as_secs_f64(),
            },
        })
    }

    /// Rebuild only the seams for a new `k`, keeping tokens and chunks.
    pub fn with_k(&self, corpus: &Corpus, k: usize) -> Layout {
        let t0 = Instant::now();
        let seams = build_seams(corpus, &self.offsets, &self.chunks, k);
        let mut timings = self.timings;
        timings.seams = t0.elapsed().as_secs_f64();
        Layout {
            offsets: self.offsets.clone(),
            chunks: self.chunks.clone(),
            seams,
            chunker: self.chunker.clone(),
            k,
            search: self.search,
            timings,
            given: self.given.clone(),
            store: self.store,
        }
    }

    /// Lay out `corpus` as `settings` say: chunker kind, chunk size, `k` and heading prefixes.
    /// Chunker `given` reads and places the cuts file here, so a bad file fails before
    /// anything is embedded.
    pub fn for_settings(
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        settings: &Settings,
    ) -> Result<Layout, LayoutError> {
        Layout::lay_out_all(corpus, tokenizer, settings, None)
    }

    /// [`Layout::for_settings`], reading each document's layout from the stored layouts under
    /// `cache_dir` when one verifies and storing those it builds.
    pub fn for_settings_stored(
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        settings: &Settings,
        cache_dir: &std::path::Path,
    ) -> Result<Layout, LayoutError> {
        Layout::lay_out_all(corpus, tokenizer, settings, Some(cache_dir))
    }

    fn lay_out_all(
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        settings: &Settings,
        cache_dir: Option<&std::path::Path>,
    ) -> Result<Layout, LayoutError> {
        let mut builder = LayoutBuilder::for_settings(corpus, tokenizer, settings, cache_dir)?;
        builder.lay_out(corpus, tokenizer, corpus.documents.len())?;
        Ok(builder.into_layout(corpus))
    }

    /// The chunker as people read it: `given (cuts.jsonl)` for given cuts, else its name
    /// (`fixed-1024`).
    pub fn chunker_label(&self) -> String {
        match &self.given {
            Some(g) => g.label(),
            None => self.chunker.clone(),
        }
    }

    /// How the cuts of a fixed layout moved back to word starts
    /// ([`crate::chunk::fixed::cut_moves`]); `None` for any other chunker.
    pub fn fixed_cut_moves(&self) -> Option<crate::chunk::fixed::CutMoveSummary> {
        // The fixed chunker's name is `fixed-<tokens>` (then `+headings` when prefixed).
        let digits: String = self
            .chunker
            .strip_prefix("fixed-")?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let chunk_tokens: usize = digits.parse().ok()?;
        let mut moves = Vec::new();
        for (doc, offsets) in self.offsets.iter().enumerate() {
            let spans: Vec<Span> = self
                .chunks
                .iter()
                .filter(|c| c.doc.0 as usize == doc)
                .map(|c| c.span)
                .collect();
            moves.extend(crate::chunk::fixed::cut_moves(
                offsets,
                &spans,
                chunk_tokens,
            ));
        }
        Some(crate::chunk::fixed::CutMoveSummary::of(&moves))
    }

    /// The parts of `doc` that no chunk holds (gaps between given chunks, or before the first
    /// and after the last), in order; empty for the built-in chunkers, which tile.
    pub fn uncovered(&self, doc: DocId, len: usize) -> Vec<Span> {
        let mut out = Vec::new();
        let mut reach = 0;
        for c in self.chunks.iter().filter(|c| c.doc == doc) {
            if c.span.start > reach {
                out.push(Span::new(reach, c.span.start));
            }
            reach = reach.max(c.span.end);
        }
        if reach < len {
            out.push(Span::new(reach, len));
        }
        out
    }

    /// The same layout with heading-path prefixes in its search texts switched on or off; the
    /// chunker name gains or loses `+headings`. Spans do not change.
    pub fn with_heading_prefix(mut self, on: bool) -> Layout {
        let base = self
            .chunker
            .strip_suffix(HEADINGS_SUFFIX)
            .unwrap_or(&self.chunker)
            .to_string();
        self.chunker = if on {
            format!("{base}{HEADINGS_SUFFIX}")
        } else {
            base
        };
        self.search.heading_path = on;
        self
    }

    /// The chunk with this id.
    pub fn chunk(&self, id: ChunkId) -> &Chunk {
        &self.chunks[id.0 as usize]
    }

    /// The facts the pure query stages need, read from this layout: seam links and chunk
    /// token counts.
    pub fn with_lookups<R>(&self, f: impl FnOnce(&crate::retrieve::Lookups<'_>) -> R) -> R {
        let links = |s: SeamId| {
            let seam = self.seam(s);
            (seam.left, seam.right)
        };
        let tokens = |c: crate::chunk::ChunkId| self.chunk(c).tokens;
        f(&crate::retrieve::Lookups {
            links: &links,
            tokens: &tokens,
        })
    }

    /// The seam with this id.
    pub fn seam(&self, id: SeamId) -> &Seam {
        &self.seams[id.0 as usize]
    }

    /// The seam a person names: its id (`12`, `seam 12`) or its two chunks (`40|41`,
    /// `seam 40|41`, `cut 40|41`), as labels and reports show them.
    pub fn find_seam(&self, name: &str) -> Result<SeamId, SeamNameError> {
        let text = name.trim();
        let bare = ["seam", "cut"]
            .iter()
            .find_map(|p| text.strip_prefix(p))
            .unwrap_or(text)
            .trim();
        let number = |t: &str| t.trim().parse::<u32>().ok();
        if let Some((l, r)) = bare.split_once('|') {
            let (Some(l), Some(r)) = (number(l), number(r)) else {
                return Err(SeamNameError::Unreadable(text.to_string()));
            };
            if let Some(seam) = self.seams.iter().find(|s| s.left.0 == l && s.right.0 == r) {
                return Ok(seam.id);
            }
            let chunks = self.chunks.len() as u32;
            if let Some(missing) = [l, r].into_iter().find(|c| *c >= chunks) {
                return Err(SeamNameError::NoSuchChunk {
                    chunk: missing,
                    chunks: self.chunks.len(),
                });
            }
            let near: Vec<String> = self
                .seams
                .iter()
                .filter(|s| s.left.0 == l || s.right.0 == r || s.left.0 == r || s.right.0 == l)
                .map(|s| format!("{}|{}", s.left.0, s.right.0))
                .collect();
            return Err(SeamNameError::NotAdjacent {
                left: l,
                right: r,
                near: if near.is_empty() {
                    "none: those chunks are whole documents".to_string()
                } else {
                    near.join(", ")
                },
            });
        }
        let id = number(bare).ok_or_else(|| SeamNameError::Unreadable(text.to_string()))?;
        self.seams
            .get(id as usize)
            .map(|s| s.id)
            .ok_or(SeamNameError::NoSuchSeam {
                id,
                seams: self.seams.len(),
            })
    }

    /// The exact evidence text of every chunk, in id order.
    pub fn chunk_texts<'a>(&self, corpus: &'a Corpus) -> Vec<&'a str> {
        self.chunks
            .iter()
            .map(|c| corpus.doc(c.doc).slice(c.span))
            .collect()
    }

    /// The text of every seam window, in id order.
    pub fn seam_texts<'a>(&self, corpus: &'a Corpus) -> Vec<&'a str> {
        self.seams
            .iter()
            .map(|s| corpus.doc(s.doc).slice(s.span))
            .collect()
    }

    /// Search texts under this layout's [`SearchContext`] for any span of the corpus: the
    /// layout's own chunks and seams, or the units and pointers of a strategy compared with them.
    pub fn search_text_source<'a>(&self, corpus: &'a Corpus) -> SearchTextSource<'a> {
        SearchTextSource {
            corpus,
            contexts: if self.search.is_none() {
                Vec::new()
            } else {
                corpus
                    .documents
                    .iter()
                    .map(|d| DocContext::new(d, self.search))
                    .collect()
            },
        }
    }

    /// The search prefix of every chunk and of every seam, in id order (empty strings when the
    /// layout's [`SearchContext`] adds nothing).
    pub fn search_prefixes(&self, corpus: &Corpus) -> (Vec<String>, Vec<String>) {
        let source = self.search_text_source(corpus);
        (
            self.chunks
                .iter()
                .map(|c| source.prefix(c.doc, c.span))
                .collect(),
            self.seams
                .iter()
                .map(|s| source.prefix(s.doc, s.span))
                .collect(),
        )
    }

    /// The texts to embed and keyword-index for every chunk and every seam, in id order: the
    /// search prefix, then the exact span. Never shown or sent as evidence.
    pub fn search_texts<'a>(&self, corpus: &'a Corpus) -> (Vec<Cow<'a, str>>, Vec<Cow<'a, str>>) {
        let (chunk_prefixes, seam_prefixes) = self.search_prefixes(corpus);
        let join = |prefix: String, exact: &'a str| {
            if prefix.is_empty() {
                Cow::Borrowed(exact)
            } else {
                Cow::Owned(prefix + exact)
            }
        };
        (
            chunk_prefixes
                .into_iter()
                .zip(self.chunk_texts(corpus))
                .map(|(p, t)| join(p, t))
                .collect(),
            seam_prefixes
                .into_iter()
                .zip(self.seam_texts(corpus))
                .map(|(p, t)| join(p, t))
                .collect(),
        )
    }

    /// Total tokens over all documents.
    pub fn total_tokens(&self) -> usize {
        self.offsets.iter().map(|o| o.len()).sum()
    }
}

/// A layout of `corpus` for unit tests: one token per whitespace-delimited word, cut into fixed
/// chunks of `tokens` tokens, no seams.
#[cfg(test)]
pub(crate) fn of_words(corpus: &Corpus, tokens: usize) -> Layout {
    let offsets: Vec<TokenOffsets> = corpus
        .documents
        .iter()
        .map(|d| TokenOffsets::of_words(&d.text))
        .collect();
    let chunks = crate::chunk::chunk_corpus(
        corpus,
        &offsets,
        &crate::chunk::fixed::FixedTokens { tokens },
    );
    Layout {
        offsets,
        chunks,
        seams: Vec::new(),
        chunker: format!("fixed-{tokens}"),
        k: 1,
        search: SearchContext::default(),
        timings: LayoutTimings::default(),
        given: None,
        store: StoreCounts::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two documents: chunks 0, 1, 2 in the first (seams 0|1 and 1|2), chunk 3 alone in the
    /// second.
    fn layout() -> Layout {
        let chunk = |id: u32, doc: u32, ordinal: u32| Chunk {
            id: ChunkId(id),
            doc: DocId(doc),
            ordinal,
            span: Span { start: 0, end: 1 },
            tokens: 1,
        };
        let seam = |id: u32, left: u32| Seam {
            id: SeamId(id),
            doc: DocId(0),
            left: ChunkId(left),
            right: ChunkId(left + 1),
            cut: 0,
            span: Span { start: 0, end: 1 },
            left_tokens: 1,
            right_tokens: 1,
        };
        Layout {
            offsets: Vec::new(),
            chunks: vec![
                chunk(0, 0, 0),
                chunk(1, 0, 1),
                chunk(2, 0, 2),
                chunk(3, 1, 0),
            ],
            seams: vec![seam(0, 0), seam(1, 1)],
            chunker: "fixed-1".into(),
            k: 1,
            search: SearchContext::default(),
            timings: LayoutTimings::default(),
            given: None,
            store: StoreCounts::default(),
        }
    }

    #[test]
    fn layout_find_seam_by_id_or_by_its_chunks() {
        let l = layout();
        for name in ["1|2", " seam 1|2", "cut 1 | 2", "1", "seam 1"] {
            assert_eq!(l.find_seam(name), Ok(SeamId(1)), "{name}");
        }
        assert_eq!(l.find_seam("0|1"), Ok(SeamId(0)));
    }

    #[test]
    fn layout_find_seam_says_what_is_wrong() {
        let l = layout();
        let message = |name: &str| l.find_seam(name).unwrap_err().to_string();
        assert!(message("forty").contains("`forty` is not a seam"));
        assert!(message("1|x").contains("left|right"));
        assert_eq!(
            message("7"),
            "there is no seam 7: this layout has 2 seams (ids 0 to 1)"
        );
        assert!(message("3|9").contains("there is no chunk 9: this layout has 4 chunks"));
        let far = message("0|2");
        assert!(far.contains("there is no seam 0|2"), "{far}");
        assert!(far.contains("0|1, 1|2"), "{far}");
        assert!(message("2|3").contains("no seam 2|3"));
    }
}
