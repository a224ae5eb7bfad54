//! Scoring the two halves of seam windows against a question, for side drop.
//!
//! A half is the seam window from its start to the cut (left) or from the cut to its end
//! (right). Its vector comes from the shared vector cache (keyed by text), so each half is
//! embedded once, ever; the cache is opened on first use and written back whenever a question
//! needed new halves. Only seams among the first [`SIDE_SCORE_DEPTH`] fused
//! positions are scored: deeper seams do not reach a budget fill.

use super::{Engine, EngineError, OpenCorpus};
use crate::corpus::Span;
use crate::embed::{EmbedOptions, cosine, embed_texts};
use crate::retrieve::{FusedEntry, SIDE_SCORE_DEPTH, SideScores};

impl Engine {
    /// Half scores of the seams among the first [`SIDE_SCORE_DEPTH`] entries of `fused`, against
    /// the question's `vector`.
    pub fn side_scores(
        &mut self,
        open: &OpenCorpus,
        vector: &[f32],
        fused: &[FusedEntry],
    ) -> Result<Vec<SideScores>, EngineError> {
        let seams: Vec<_> = fused
            .iter()
            .take(SIDE_SCORE_DEPTH)
            .filter_map(|e| e.entry.seam())
            .map(|s| open.layout.seam(s))
            .collect();
        if seams.is_empty() {
            return Ok(Vec::new());
        }
        let mut texts: Vec<&str> = Vec::with_capacity(seams.len() * 2);
        for s in &seams {
            let doc = open.corpus.doc(s.doc);
            texts.push(doc.slice(Span::new(s.span.start, s.cut)));
            texts.push(doc.slice(Span::new(s.cut, s.span.end)));
        }
        if self.halves.is_none() {
            self.halves = Some(self.vector_cache().0);
        }
        let Some(cache) = self.halves.as_mut() else {
            return Ok(Vec::new());
        };
        let options = EmbedOptions {
            slice: self.settings.embed_slice,
        };
        let (vectors, stats) = embed_texts(
            &mut self.embedder,
            &self.tokenizer,
            cache,
            &texts,
            options,
            &mut |_| true,
        )?;
        // New halves go to disk at once, so the next run (or process) finds them.
        if stats.cache_misses > 0 {
            self.save_half_vectors()?;
        }
        Ok(seams
            .iter()
            .zip(vectors.chunks(2))
            .map(|(s, pair)| SideScores {
                seam: s.id,
                left: cosine(vector, &pair[0]),
                right: cosine(vector, &pair[1]),
            })
            .collect())
    }

    /// Write the half vectors embedded so far to the shared vector cache on disk.
    pub fn save_half_vectors(&mut self) -> Result<(), EngineError> {
        if let Some(cache) = self.halves.as_mut() {
            cache.save().map_err(|e| {
                EngineError::Index(crate::index::IndexError::Io {
                    path: cache.path().to_path_buf(),
                    message: e.to_string(),
                })
            })?;
        }
        Ok(())
    }
}
