//! Making a strategy ready and searching it: its units and pointers, their search texts
//! embedded through the shared vector cache (Seams also gets its half-window vectors for side
//! drop), in-memory collections, and one question's ranked lists, built by the same code as the
//! live index's.

use super::collection::Collection;
use super::contextual::ContextCost;
use super::embedding::Embedding;
use super::grid_settings::GridSettings;
use super::select::{Retrieved, ends, select};
use super::strategy::{
    Pointer, Strategy, Unit, UnitId, extended_back, link, overlapping_spans, token_windows,
};
use crate::corpus::Corpus;
use crate::embed::chat::GenError;
use crate::embed::late::{LateStats, cached_late_vectors};
use crate::embed::{EmbedStats, cosine, embed_texts};
use crate::index::search::lists_from_hits;
use crate::layout::Layout;
use crate::retrieve::{RankedList, SIDE_SCORE_DEPTH, SideScores};
use crate::seam::build_seams;
use crate::session::EngineError;

/// Each seam's two half-window vectors: left of its cut, right of it.
type SeamHalves = Vec<[Vec<f32>; 2]>;

/// A strategy made ready: its units, pointers and search collections.
pub struct Prepared {
    /// The strategy.
    pub strategy: Strategy,
    /// Its table label.
    pub label: String,
    /// What can be returned.
    pub units: Vec<Unit>,
    /// What only leads to units.
    pub pointers: Vec<Pointer>,
    unit_search: Collection,
    pointer_search: Option<Collection>,
    /// For Seams: each pointer's two half-window vectors (left of the cut, right of it), for side
    /// drop; empty for other strategies.
    halves: SeamHalves,
    /// Embedding work this strategy needed.
    pub embedding: EmbedStats,
    /// What its contexts cost (contextual retrieval; nothing for the others).
    pub contexts: ContextCost,
}

impl Prepared {
    /// Unit `i`'s search vector.
    pub fn unit_vector(&self, i: usize) -> Option<&[f32]> {
        self.unit_search.vector(i)
    }
}

fn base_units(layout: &Layout) -> Vec<Unit> {
    layout
        .chunks
        .iter()
        .map(|c| Unit {
            doc: c.doc,
            span: c.span,
            tokens: c.tokens,
        })
        .collect()
}

/// Build one strategy's units, pointers and collections.
pub fn prepare(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    layout: &Layout,
    strategy: Strategy,
    settings: &GridSettings,
) -> Result<Prepared, EngineError> {
    prepare_reporting(model, corpus, layout, strategy, settings, &mut |_, _| {})
}

/// [`prepare`], telling `progress` what it embeds as it goes: `("units", p)`, `("pointers", p)`,
/// `("seam halves", p)`, with the tokens done and to do in that part (the cache serves the rest).
pub fn prepare_reporting(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    layout: &Layout,
    strategy: Strategy,
    settings: &GridSettings,
    progress: &mut dyn FnMut(&str, crate::embed::EmbedProgress),
) -> Result<Prepared, EngineError> {
    let (units, pointers) = units_and_pointers(corpus, layout, strategy, settings);
    // Search texts as the live index builds them (heading paths, repeated table headers), so a
    // strategy is scored on what a query would really search.
    let source = layout.search_text_source(corpus);
    let mut unit_owned: Vec<_> = units.iter().map(|u| source.text(u.doc, u.span)).collect();
    let contexts = if matches!(
        strategy,
        Strategy::Contextual | Strategy::ContextualSeams { .. }
    ) {
        put_contexts(model, corpus, &units, &mut unit_owned, progress)?
    } else {
        ContextCost::default()
    };
    let pointer_owned: Vec<_> = pointers
        .iter()
        .map(|p| source.text(p.doc, p.span))
        .collect();
    let unit_texts: Vec<&str> = unit_owned.iter().map(|t| t.as_ref()).collect();
    let pointer_texts: Vec<&str> = pointer_owned.iter().map(|t| t.as_ref()).collect();
    let late = matches!(
        strategy,
        Strategy::LateChunks { .. } | Strategy::LateSeams { .. }
    );
    let (unit_vecs, pointer_vecs, mut stats) = if late {
        late_part(model, (corpus, layout), &units, &pointers, progress)?
    } else {
        let (unit_vecs, mut stats) = embed_part(model, &unit_texts, "units", progress)?;
        let (pointer_vecs, pstats) = embed_part(model, &pointer_texts, "pointers", progress)?;
        stats.add(&pstats);
        (unit_vecs, pointer_vecs, stats)
    };
    let mut halves = Vec::new();
    if matches!(
        strategy,
        Strategy::Seams { .. }
            | Strategy::OverlapSeams { .. }
            | Strategy::LateSeams { .. }
            | Strategy::ContextualSeams { .. }
    ) {
        let (vecs, hstats) = seam_half_vectors(model, corpus, &units, &pointers, progress)?;
        stats.add(&hstats);
        halves = vecs;
    }
    let kw = |e: crate::index::keywords::KeywordError| EngineError::Index(e.into());
    let unit_search = Collection::build(&unit_texts, unit_vecs).map_err(kw)?;
    let pointer_search = if pointers.is_empty() {
        None
    } else {
        Some(Collection::build(&pointer_texts, pointer_vecs).map_err(kw)?)
    };
    Ok(Prepared {
        strategy,
        label: strategy.label(settings.chunk_tokens),
        units,
        pointers,
        unit_search,
        pointer_search,
        halves,
        embedding: stats,
        contexts,
    })
}

/// The strategy's retrievable units and the pointers (windows, seams) that only lead to them.
fn units_and_pointers(
    corpus: &Corpus,
    layout: &Layout,
    strategy: Strategy,
    settings: &GridSettings,
) -> (Vec<Unit>, Vec<Pointer>) {
    let units = base_units(layout);
    match strategy {
        Strategy::NoOverlap
        | Strategy::NeighbourExpansion
        | Strategy::LateChunks { .. }
        | Strategy::Contextual => (units, Vec::new()),
        Strategy::Overlap { tokens } => (
            overlapping_units(corpus, layout, settings, tokens),
            Vec::new(),
        ),
        Strategy::OverlapSeams { tokens, k } => {
            let units = overlapping_units(corpus, layout, settings, tokens);
            let pointers = overlap_seams(corpus, layout, &units, k);
            (units, pointers)
        }
        Strategy::Windows { width, stride } => {
            let mut pointers = Vec::new();
            for (doc, offs) in corpus.documents.iter().zip(&layout.offsets) {
                let spans = token_windows(&doc.text, offs, width, stride, 0);
                pointers.extend(link(doc.id, spans, &units));
            }
            (units, pointers)
        }
        Strategy::ChunkStrideWindows { width } => {
            let pointers = chunk_centred_windows(corpus, layout, &units, width);
            (units, pointers)
        }
        Strategy::Seams { k } | Strategy::LateSeams { k, .. } | Strategy::ContextualSeams { k } => {
            let seams = build_seams(corpus, &layout.offsets, &layout.chunks, k);
            let pointers = seams
                .iter()
                .map(|s| Pointer {
                    doc: s.doc,
                    span: s.span,
                    links: vec![UnitId(s.left.0), UnitId(s.right.0)],
                    cut: Some(s.cut),
                })
                .collect();
            (units, pointers)
        }
    }
}

/// Overlapping units. Fixed chunks: token windows at a stride of chunk − overlap, each the chunk
/// size. Any other chunker: its own chunks, each reaching back `tokens` into its predecessor.
fn overlapping_units(
    corpus: &Corpus,
    layout: &Layout,
    settings: &GridSettings,
    tokens: usize,
) -> Vec<Unit> {
    let fixed = layout.chunker.starts_with("fixed");
    corpus
        .documents
        .iter()
        .zip(&layout.offsets)
        .flat_map(|(doc, offs)| {
            let spans = if fixed {
                overlapping_spans(&doc.text, offs, settings.chunk_tokens, tokens)
            } else {
                let own: Vec<crate::corpus::Span> = layout
                    .chunks
                    .iter()
                    .filter(|c| c.doc == doc.id)
                    .map(|c| c.span)
                    .collect();
                extended_back(&doc.text, offs, &own, tokens)
            };
            spans.into_iter().map(move |span| Unit {
                doc: doc.id,
                span,
                tokens: offs.count_in(span.start, span.end) as u32,
            })
        })
        .collect()
}

/// One window of `width` tokens per chunk, centred on the chunk's middle, linked to the units
/// it overlaps.
fn chunk_centred_windows(
    corpus: &Corpus,
    layout: &Layout,
    units: &[Unit],
    width: usize,
) -> Vec<Pointer> {
    let mut pointers = Vec::new();
    for c in &layout.chunks {
        let offs = &layout.offsets[c.doc.0 as usize];
        let text = &corpus.doc(c.doc).text;
        let first = offs.first_at_or_after(c.span.start);
        let mid = first + c.tokens as usize / 2;
        let start_tok = mid.saturating_sub(width / 2).max(first);
        let spans = token_windows(text, offs, width, usize::MAX, start_tok);
        pointers.extend(link(c.doc, spans.into_iter().take(1).collect(), units));
    }
    pointers
}

/// Embeds one part of a strategy (`part` names it to `progress`) through the shared cache.
fn embed_part(
    model: &mut Embedding<'_>,
    texts: &[&str],
    part: &str,
    progress: &mut dyn FnMut(&str, crate::embed::EmbedProgress),
) -> Result<(Vec<Vec<f32>>, EmbedStats), EngineError> {
    Ok(embed_texts(
        model.embedder,
        model.tokenizer,
        model.cache,
        texts,
        model.options,
        &mut |p| {
            progress(part, p);
            true
        },
    )?)
}

/// Contextual retrieval: each unit's context, from the model's writer, put before its search
/// text; what it cost. Refused without a writer, saying what is needed.
fn put_contexts(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    units: &[Unit],
    texts: &mut [std::borrow::Cow<'_, str>],
    progress: &mut dyn FnMut(&str, crate::embed::EmbedProgress),
) -> Result<ContextCost, EngineError> {
    let Some(writer) = model.contexts.as_deref_mut() else {
        return Err(EngineError::Chat(GenError::Config(
            "contextual retrieval needs a language model: name an OpenAI-compatible chat \
             endpoint with --llm-url"
                .into(),
        )));
    };
    let before = writer.cost;
    let chunks: Vec<_> = units.iter().map(|u| (u.doc, u.span)).collect();
    let written = writer.contexts(corpus, &chunks, &mut |done, total| {
        progress(
            "contexts",
            crate::embed::EmbedProgress {
                done_tokens: done,
                total_tokens: total,
            },
        )
    })?;
    for (text, context) in texts.iter_mut().zip(written) {
        *text = std::borrow::Cow::Owned(format!("{context}\n\n{text}"));
    }
    Ok(writer.cost.since(before))
}

/// Late chunking's unit and pointer vectors, and what making them took.
type LateParts = (Vec<Vec<f32>>, Vec<Vec<f32>>, EmbedStats);

/// Late chunking's vectors: each document read whole once (in macro windows past the model's
/// window), its units' and pointers' spans pooled from its token states, through the shared
/// cache (a document whose spans are all cached is not read). The stats count each span as one
/// text, its tokens those of the document read.
fn late_part(
    model: &mut Embedding<'_>,
    (corpus, layout): (&Corpus, &Layout),
    units: &[Unit],
    pointers: &[Pointer],
    progress: &mut dyn FnMut(&str, crate::embed::EmbedProgress),
) -> Result<LateParts, EngineError> {
    let started = std::time::Instant::now();
    let doc_tokens = |i: usize| layout.offsets.get(i).map_or(0, |o| o.len());
    let total_tokens: usize = (0..corpus.documents.len()).map(doc_tokens).sum();
    let (mut done_tokens, mut tokens_read) = (0, 0);
    let mut unit_vecs = vec![Vec::new(); units.len()];
    let mut pointer_vecs = vec![Vec::new(); pointers.len()];
    let mut late = LateStats::default();
    for (i, doc) in corpus.documents.iter().enumerate() {
        done_tokens += doc_tokens(i);
        let mine_units: Vec<usize> = (0..units.len())
            .filter(|&i| units[i].doc == doc.id)
            .collect();
        let mine_pointers: Vec<usize> = (0..pointers.len())
            .filter(|&i| pointers[i].doc == doc.id)
            .collect();
        let spans: Vec<crate::corpus::Span> = mine_units
            .iter()
            .map(|&i| units[i].span)
            .chain(mine_pointers.iter().map(|&i| pointers[i].span))
            .collect();
        if spans.is_empty() {
            continue;
        }
        let read_before = late.documents;
        let vectors = cached_late_vectors(
            model.embedder,
            model.tokenizer,
            model.cache,
            &doc.text,
            &spans,
            &mut late,
        )?;
        if late.documents > read_before {
            tokens_read += doc_tokens(i);
        }
        let mut vectors = vectors.into_iter();
        for &i in &mine_units {
            unit_vecs[i] = vectors.next().unwrap_or_default();
        }
        for &i in &mine_pointers {
            pointer_vecs[i] = vectors.next().unwrap_or_default();
        }
        progress(
            "late chunking",
            crate::embed::EmbedProgress {
                done_tokens,
                total_tokens,
            },
        );
    }
    let stats = EmbedStats {
        texts: units.len() + pointers.len(),
        cache_hits: late.cached,
        cache_misses: late.pooled,
        windows: late.windows,
        tokens_embedded: tokens_read,
        model_seconds: started.elapsed().as_secs_f64(),
        ..EmbedStats::default()
    };
    Ok((unit_vecs, pointer_vecs, stats))
}

/// Each seam's two half-window vectors (left of its cut, right of it), for side drop.
fn seam_half_vectors(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    units: &[Unit],
    pointers: &[Pointer],
    progress: &mut dyn FnMut(&str, crate::embed::EmbedProgress),
) -> Result<(SeamHalves, EmbedStats), EngineError> {
    let text = |doc: crate::corpus::DocId, span: crate::corpus::Span| corpus.doc(doc).slice(span);
    let mut texts: Vec<&str> = Vec::with_capacity(pointers.len() * 2);
    for p in pointers {
        let cut = p.cut.unwrap_or(units[ends(p).1.index()].span.start);
        texts.push(text(p.doc, crate::corpus::Span::new(p.span.start, cut)));
        texts.push(text(p.doc, crate::corpus::Span::new(cut, p.span.end)));
    }
    let (vecs, stats) = embed_part(model, &texts, "seam halves", progress)?;
    let mut halves = Vec::with_capacity(pointers.len());
    let mut vecs = vecs.into_iter();
    while let (Some(l), Some(r)) = (vecs.next(), vecs.next()) {
        halves.push([l, r]);
    }
    Ok((halves, stats))
}

/// Seams over overlapping units: one per pair of neighbours in a document, centred on the
/// middle of their overlap ([`crate::seam::cut_between`]), linked to both.
fn overlap_seams(corpus: &Corpus, layout: &Layout, units: &[Unit], k: usize) -> Vec<Pointer> {
    let chunks: Vec<crate::chunk::Chunk> = units
        .iter()
        .enumerate()
        .map(|(i, u)| crate::chunk::Chunk {
            id: crate::chunk::ChunkId(i as u32),
            doc: u.doc,
            ordinal: i as u32,
            span: u.span,
            tokens: u.tokens,
        })
        .collect();
    build_seams(corpus, &layout.offsets, &chunks, k)
        .iter()
        .map(|s| Pointer {
            doc: s.doc,
            span: s.span,
            links: vec![UnitId(s.left.0), UnitId(s.right.0)],
            cut: Some(s.cut),
        })
        .collect()
}

/// Half scores of the Seams pointers near the top of the fused lists, for side drop (empty for
/// other strategies).
pub fn side_scores(
    p: &Prepared,
    vector: &[f32],
    lists: &[RankedList],
    s: &GridSettings,
) -> Vec<SideScores> {
    if p.halves.is_empty() {
        return Vec::new();
    }
    crate::retrieve::fuse(lists, s.rrf_c)
        .iter()
        .take(SIDE_SCORE_DEPTH)
        .filter_map(|e| e.entry.seam())
        .filter_map(|seam| {
            let [l, r] = p.halves.get(seam.0 as usize)?;
            Some(SideScores {
                seam,
                left: cosine(vector, l),
                right: cosine(vector, r),
            })
        })
        .collect()
}

/// Run one question's searches (its vector and text) on a prepared strategy: with pointers, the
/// same three lists a live query searches (dense over units and pointers together, BM25 over
/// units, BM25 over pointers); without, dense and BM25 over units. Built by the same code as the
/// live index's lists ([`lists_from_hits`]), so ranks and ties agree. Everything after this is
/// pure: see [`select`].
pub fn search_lists(
    p: &Prepared,
    vector: &[f32],
    question: &str,
    s: &GridSettings,
) -> Result<Vec<RankedList>, EngineError> {
    let kw = |e: crate::index::keywords::KeywordError| EngineError::Index(e.into());
    let unit_dense = p.unit_search.dense(vector, s.depth);
    let unit_keywords = p.unit_search.keywords(question, s.depth).map_err(kw)?;
    Ok(match &p.pointer_search {
        Some(ps) => {
            let pointer_dense = ps.dense(vector, s.depth);
            let pointer_keywords = ps.keywords(question, s.depth).map_err(kw)?;
            lists_from_hits(
                &unit_dense,
                &pointer_dense,
                &unit_keywords,
                &pointer_keywords,
                s.depth,
            )
            .with_seams
        }
        None => lists_from_hits(&unit_dense, &[], &unit_keywords, &[], s.depth).chunks_only,
    })
}

/// Run one question (its vector and text) through a prepared strategy: search, then select.
pub fn retrieve(
    p: &Prepared,
    vector: &[f32],
    question: &str,
    s: &GridSettings,
) -> Result<Retrieved, EngineError> {
    let lists = search_lists(p, vector, question, s)?;
    let sides = side_scores(p, vector, &lists, s);
    Ok(select(p.strategy, &p.units, &p.pointers, &lists, &sides, s))
}
