//! Laying a corpus out a few documents at a time, so a screen can show the first documents while
//! the rest are tokenized, and reusing each document's stored layout ([`super::store`]) when one
//! verifies.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::store::{LayoutStore, Lookup, StoredDoc, check_sense, doc_hash};
use super::{GivenSource, Layout, LayoutError, LayoutTimings};
use crate::chunk::context::SearchContext;
use crate::chunk::{Chunk, ChunkId, Chunker, ChunkerKind};
use crate::corpus::{Corpus, DocId, Span};
use crate::seam::build_seams;
use crate::settings::Settings;
use crate::tokens::{TokenCounter, TokenOffsets, TokenizerError};

/// What the stored layouts gave while laying a corpus out, in documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StoreCounts {
    /// Read back from a verified stored layout: not tokenized.
    pub reused: usize,
    /// Tokenized and cut (and stored, when a store is in use).
    pub built: usize,
    /// Stored layouts that failed a check: built again and rewritten.
    pub damaged: usize,
}

/// A corpus being laid out in document order: [`LayoutBuilder::lay_out`] takes the next
/// documents, [`LayoutBuilder::layout`] gives the layout of those done so far (chunk and seam
/// ids are those the whole layout will have: they are numbered in document order).
pub struct LayoutBuilder {
    chunker: Box<dyn Chunker + Send + Sync>,
    given: Option<GivenSource>,
    heading_prefix: bool,
    k: usize,
    store: Option<LayoutStore>,
    offsets: Vec<TokenOffsets>,
    cuts: Vec<Vec<Span>>,
    tokenize: f64,
    chunk: f64,
    /// What the store gave so far.
    pub counts: StoreCounts,
}

/// One document's layout as the builder got it.
enum Laid {
    Stored(StoredDoc),
    Tokenized(TokenOffsets, [u8; 32], bool),
    Bare(TokenOffsets),
}

impl LayoutBuilder {
    /// A builder for `corpus` under `settings` (chunker, chunk size, `k`, heading prefixes).
    /// With `cache_dir`, each document's layout is read from or written to the stored layouts
    /// there (not for chunker `given`, whose cuts come from its file). Chunker `given` reads and
    /// places the cuts file here, so a bad file fails before anything is tokenized.
    pub fn for_settings(
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        settings: &Settings,
        cache_dir: Option<&Path>,
    ) -> Result<LayoutBuilder, LayoutError> {
        let (chunker, given): (Box<dyn Chunker + Send + Sync>, _) =
            if settings.chunker == ChunkerKind::Given {
                let file = settings.cuts_file.as_ref().ok_or(LayoutError::NoCutsFile)?;
                let cuts = crate::chunk::given::GivenCuts::load(file, corpus)?;
                let source = GivenSource {
                    file: file.clone(),
                    format: cuts.format,
                    records: cuts.records,
                    documents: cuts.documents(),
                };
                (Box::new(cuts), Some(source))
            } else {
                (settings.chunker.build(settings.chunk_tokens), None)
            };
        let store = cache_dir
            .filter(|_| given.is_none())
            .map(|dir| LayoutStore::new(dir, tokenizer.fingerprint(), &chunker.name()));
        Ok(LayoutBuilder {
            chunker,
            given,
            heading_prefix: settings.heading_prefix,
            k: settings.k,
            store,
            offsets: Vec::with_capacity(corpus.documents.len()),
            cuts: Vec::with_capacity(corpus.documents.len()),
            tokenize: 0.0,
            chunk: 0.0,
            counts: StoreCounts::default(),
        })
    }

    /// Documents laid out so far (the first ones of the corpus).
    pub fn laid_out(&self) -> usize {
        self.offsets.len()
    }

    /// Lay out the documents after those done, up to (not including) document `upto`: read
    /// from the store where a verified layout is there, else tokenized on every core, cut, and
    /// stored (best effort: a cache that cannot be written only loses the head start).
    pub fn lay_out(
        &mut self,
        corpus: &Corpus,
        tokenizer: &TokenCounter,
        upto: usize,
    ) -> Result<(), TokenizerError> {
        let upto = upto.min(corpus.documents.len());
        let from = self.laid_out();
        if upto <= from {
            return Ok(());
        }
        let t0 = Instant::now();
        let docs = &corpus.documents[from..upto];
        let store = self.store.as_ref();
        let chunker = self.chunker.as_ref();
        // Text the tokenizer gives a token for (an error counts as yes: the layout is rebuilt).
        let yields_tokens = |text: &str| tokenizer.count(text).map_or(true, |n| n > 0);
        let laid = docs
            .par_iter()
            .map(|d| {
                let Some(store) = store else {
                    return Ok(Laid::Bare(tokenizer.offsets(&d.text)?));
                };
                let hash = doc_hash(&d.text, &format!("{:?}", d.kind));
                let stored = match store.load(&d.text, &hash) {
                    // A whole file is trusted only when it also makes sense for this document.
                    Lookup::Hit(doc) => {
                        let recut = || chunker.cut(d, &doc.offsets);
                        match check_sense(&d.text, &doc, recut, &yields_tokens) {
                            Ok(()) => Lookup::Hit(doc),
                            Err(why) => Lookup::Damaged(why),
                        }
                    }
                    other => other,
                };
                Ok(match stored {
                    Lookup::Hit(doc) => Laid::Stored(doc),
                    Lookup::Missing => Laid::Tokenized(tokenizer.offsets(&d.text)?, hash, false),
                    Lookup::Damaged(_) => Laid::Tokenized(tokenizer.offsets(&d.text)?, hash, true),
                })
            })
            .collect::<Result<Vec<Laid>, TokenizerError>>()?;
        let t1 = Instant::now();
        // (layout, whether it was built here, whether a damaged stored one was replaced)
        let done: Vec<(StoredDoc, bool, bool)> = docs
            .par_iter()
            .zip(laid)
            .map(|(d, laid)| match laid {
                Laid::Stored(doc) => (doc, false, false),
                Laid::Tokenized(offsets, hash, damaged) => {
                    let cuts = chunker.cut(d, &offsets);
                    let doc = StoredDoc { offsets, cuts };
                    if let Some(store) = store {
                        let _ = store.save(&d.text, &hash, &doc);
                    }
                    (doc, true, damaged)
                }
                Laid::Bare(offsets) => {
                    let cuts = chunker.cut(d, &offsets);
                    (StoredDoc { offsets, cuts }, true, false)
                }
            })
            .collect();
        for (doc, built, damaged) in done {
            if built {
                self.counts.built += 1;
            } else {
                self.counts.reused += 1;
            }
            self.counts.damaged += usize::from(damaged);
            self.offsets.push(doc.offsets);
            self.cuts.push(doc.cuts);
        }
        self.tokenize += (t1 - t0).as_secs_f64();
        self.chunk += t1.elapsed().as_secs_f64();
        Ok(())
    }

    /// The layout of the documents done so far, over `corpus` (which holds at least them).
    pub fn layout(&self, corpus: &Corpus) -> Layout {
        self.assemble(corpus, self.offsets.clone())
    }

    /// The layout of the documents done, taking the builder's offsets.
    pub fn into_layout(mut self, corpus: &Corpus) -> Layout {
        let offsets = std::mem::take(&mut self.offsets);
        self.assemble(corpus, offsets)
    }

    fn assemble(&self, corpus: &Corpus, offsets: Vec<TokenOffsets>) -> Layout {
        let mut chunks = Vec::new();
        for (i, (cuts, offs)) in self.cuts.iter().zip(&offsets).enumerate() {
            for (ordinal, span) in cuts.iter().enumerate() {
                chunks.push(Chunk {
                    id: ChunkId(chunks.len() as u32),
                    doc: DocId(i as u32),
                    ordinal: ordinal as u32,
                    span: *span,
                    tokens: offs.count_in(span.start, span.end) as u32,
                });
            }
        }
        let t0 = Instant::now();
        let seams = build_seams(corpus, &offsets, &chunks, self.k);
        let layout = Layout {
            offsets,
            chunks,
            seams,
            chunker: self.chunker.name(),
            k: self.k,
            search: SearchContext {
                heading_path: false,
                table_header: self.chunker.repeats_table_header(),
            },
            timings: LayoutTimings {
                tokenize: self.tokenize,
                chunk: self.chunk,
                seams: t0.elapsed().as_secs_f64(),
            },
            given: self.given.clone(),
            store: self.counts,
        };
        layout.with_heading_prefix(self.heading_prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::store::{LayoutStore, doc_hash};

    fn corpus(dir: &Path) -> Corpus {
        let docs = dir.join("docs");
        std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
        for (name, text) in [
            (
                "a.md",
                "# One\n\nalpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu.\n\nnu xi omicron pi rho sigma tau upsilon phi chi psi omega.\n",
            ),
            (
                "b.txt",
                "one two three four five six seven eight nine ten eleven twelve thirteen fourteen.\n",
            ),
            ("c.md", "Short.\n"),
        ] {
            std::fs::write(docs.join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        Corpus::load(&docs, &crate::places::load_options(&Settings::default()))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn settings() -> Settings {
        Settings {
            chunk_tokens: 5,
            k: 2,
            ..Settings::default()
        }
    }

    /// Offsets, chunks and seams: everything but the timings and counts.
    fn same(a: &Layout, b: &Layout) -> bool {
        a.offsets == b.offsets
            && a.chunks == b.chunks
            && a.seams == b.seams
            && a.chunker == b.chunker
            && a.k == b.k
    }

    #[test]
    fn stored_layouts_are_reused_and_a_damaged_one_is_rebuilt_and_rewritten() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = dir.path().join("cache");
        let corpus = corpus(dir.path());
        let tokenizer = TokenCounter::whitespace_for_tests();
        let fresh = Layout::for_settings(&corpus, &tokenizer, &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(fresh.seams.len() >= 2, "the test needs cuts");

        let lay_out = || {
            Layout::for_settings_stored(&corpus, &tokenizer, &settings(), &cache)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let cold = lay_out();
        assert!(same(&cold, &fresh));
        assert_eq!(cold.store.built, 3);
        let warm = lay_out();
        assert!(same(&warm, &fresh));
        assert_eq!((warm.store.reused, warm.store.built), (3, 0));

        // Damage one stored file: it is detected, rebuilt, and written again whole.
        let doc = &corpus.documents[0];
        let store = LayoutStore::new(&cache, tokenizer.fingerprint(), &fresh.chunker);
        let path = store.path(&doc_hash(&doc.text, &format!("{:?}", doc.kind)));
        let good = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut bad = good.clone();
        let middle = bad.len() / 2;
        bad[middle] ^= 0x5a;
        std::fs::write(&path, &bad).unwrap_or_else(|e| panic!("{e}"));
        let mended = lay_out();
        assert!(
            same(&mended, &fresh),
            "a damaged stored layout is never trusted"
        );
        assert_eq!(
            (
                mended.store.reused,
                mended.store.built,
                mended.store.damaged
            ),
            (2, 1, 1)
        );
        let rewritten = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rewritten, good, "the damaged file is rewritten");
        // Truncated to nothing: the same.
        std::fs::write(&path, b"").unwrap_or_else(|e| panic!("{e}"));
        assert!(same(&lay_out(), &fresh));
        assert_eq!(std::fs::read(&path).unwrap_or_default(), good);

        // Another chunk size is another layout, not a stale one.
        let wider = Settings {
            chunk_tokens: 9,
            ..settings()
        };
        let other = Layout::for_settings_stored(&corpus, &tokenizer, &wider, &cache)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(other.store.built, 3);
        let plain =
            Layout::for_settings(&corpus, &tokenizer, &wider).unwrap_or_else(|e| panic!("{e}"));
        assert!(same(&other, &plain));
    }

    #[test]
    fn a_stored_layout_that_is_whole_but_lies_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = dir.path().join("cache");
        let corpus = corpus(dir.path());
        let tokenizer = TokenCounter::whitespace_for_tests();
        let lay_out = || {
            Layout::for_settings_stored(&corpus, &tokenizer, &settings(), &cache)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let fresh = lay_out();
        let doc = &corpus.documents[0];
        let hash = doc_hash(&doc.text, &format!("{:?}", doc.kind));
        let store = LayoutStore::new(&cache, tokenizer.fingerprint(), &fresh.chunker);
        let truth = match store.load(&doc.text, &hash) {
            Lookup::Hit(d) => d,
            other => panic!("expected a stored layout, got {other:?}"),
        };
        let chunker = settings().chunker.build(settings().chunk_tokens);
        // Each forgery is saved through the store, so its trailer is a true checksum.
        let squeezed = {
            // Every token moved into the first chunk, in order, on char boundaries.
            let first = truth.cuts[0];
            let mut offsets = TokenOffsets::default();
            for i in 0..truth.offsets.len() {
                let at = (first.start + i).min(first.end - 1);
                offsets.starts.push(at);
                offsets.ends.push(at + 1);
            }
            offsets
        };
        let forgeries = [
            // Offsets rewritten, cuts left: the chunker cuts these offsets elsewhere.
            StoredDoc {
                offsets: squeezed.clone(),
                cuts: truth.cuts.clone(),
            },
            // Offsets rewritten and cuts recut to agree: the rest of the text has no token.
            StoredDoc {
                cuts: chunker.cut(doc, &squeezed),
                offsets: squeezed,
            },
            // True offsets, cuts moved: not what the chunker makes of them.
            StoredDoc {
                offsets: truth.offsets.clone(),
                cuts: vec![Span::new(0, doc.text.len())],
            },
        ];
        for (n, forged) in forgeries.iter().enumerate() {
            store
                .save(&doc.text, &hash, forged)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                matches!(store.load(&doc.text, &hash), Lookup::Hit(_)),
                "forgery {n} passes the checksum"
            );
            let again = lay_out();
            assert!(same(&again, &fresh), "forgery {n} was trusted");
            assert_eq!(
                (again.store.reused, again.store.built, again.store.damaged),
                (2, 1, 1),
                "forgery {n}"
            );
            assert!(
                matches!(store.load(&doc.text, &hash), Lookup::Hit(d) if d == truth),
                "forgery {n} is rewritten with the truth"
            );
        }
        // The truth itself passes: a layout the tokenizer and chunker made is never refused.
        let warm = lay_out();
        assert_eq!((warm.store.reused, warm.store.damaged), (3, 0));
    }

    #[test]
    fn text_the_tokenizer_drops_may_lie_between_tokens() {
        let text = "alpha \u{7}\u{7} beta";
        let offsets = TokenOffsets {
            starts: vec![0, 9],
            ends: vec![5, 13],
        };
        let stored = StoredDoc {
            offsets,
            cuts: vec![Span::new(0, text.len())],
        };
        let recut = || vec![Span::new(0, text.len())];
        // The bells give no token: fine. Were they a word, the layout would lie.
        assert!(check_sense(text, &stored, recut, &|_| false).is_ok());
        let why = check_sense(text, &stored, recut, &|s| !s.is_empty())
            .err()
            .unwrap_or_default();
        assert!(why.contains("bytes 5..9"), "{why}");
    }

    #[test]
    fn a_layout_built_a_few_documents_at_a_time_keeps_the_ids_of_the_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let corpus = corpus(dir.path());
        let tokenizer = TokenCounter::whitespace_for_tests();
        let whole = Layout::for_settings(&corpus, &tokenizer, &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut builder = LayoutBuilder::for_settings(&corpus, &tokenizer, &settings(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        builder
            .lay_out(&corpus, &tokenizer, 1)
            .unwrap_or_else(|e| panic!("{e}"));
        let first = builder.layout(&corpus);
        assert_eq!(builder.laid_out(), 1);
        assert!(!first.chunks.is_empty());
        assert!(first.chunks.iter().all(|c| c.doc == DocId(0)));
        assert_eq!(first.chunks[..], whole.chunks[..first.chunks.len()]);
        assert_eq!(first.seams[..], whole.seams[..first.seams.len()]);
        builder
            .lay_out(&corpus, &tokenizer, 99)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(same(&builder.into_layout(&corpus), &whole));
    }
}
