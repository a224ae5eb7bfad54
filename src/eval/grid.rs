//! The comparison grid: every strategy of DESIGN.md §7 on one question set, under one budget.
//!
//! Each strategy's texts are embedded through the shared vector cache, so a text two strategies
//! share (the baseline chunks, most of all) is embedded once, ever.

use std::collections::BTreeMap;

use serde::Serialize;

use super::collection::Collection;
use super::metrics::{SpanClass, covered, span_class};
use super::questions::Question;
use super::select::ends;
pub use super::select::{Retrieved, select};
use super::strategy::{
    Pointer, Strategy, Unit, extended_back, link, overlapping_spans, token_windows,
};
use crate::corpus::Corpus;
use crate::embed::cache::VectorCache;
use crate::embed::{EmbedOptions, EmbedStats, Embedder, embed_one, embed_texts};
use crate::index::search::lists_from_hits;
use crate::layout::Layout;
use crate::retrieve::{DEFAULT_SIDE_DROP, RankedList, SIDE_SCORE_DEPTH, SideScores};
use crate::seam::build_seams;
use crate::session::{Engine, EngineError};
use crate::tokens::TokenCounter;

/// The knobs shared by every strategy in a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GridSettings {
    /// Units in the final context.
    pub budget: usize,
    /// Fire margin for Seams.
    pub m: u32,
    /// Results per search list.
    pub depth: usize,
    /// RRF constant.
    pub rrf_c: f64,
    /// Tokens per baseline chunk.
    pub chunk_tokens: usize,
    /// Side-drop threshold for Seams (`None`: off).
    pub side_drop: Option<f32>,
}

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
    halves: Vec<[Vec<f32>; 2]>,
    /// Embedding work this strategy needed.
    pub embedding: EmbedStats,
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

/// The model side of an evaluation: an embedder, its tokenizer and the slice size.
pub struct Embedding<'a> {
    /// The embedder (the real model in the app; a test embedder in unit tests).
    pub embedder: &'a mut dyn Embedder,
    /// The embedder's tokenizer.
    pub tokenizer: &'a TokenCounter,
    /// Texts per call into the model.
    pub options: EmbedOptions,
    /// The vector cache every strategy shares, so no text is embedded twice.
    pub cache: &'a mut VectorCache,
}

impl<'a> Embedding<'a> {
    /// The engine's model and tokenizer with `cache` (see [`Engine::vector_cache`]).
    pub fn of(engine: &'a mut Engine, cache: &'a mut VectorCache) -> Embedding<'a> {
        Embedding {
            embedder: &mut engine.embedder,
            tokenizer: &engine.tokenizer,
            options: EmbedOptions {
                slice: engine.settings.embed_slice,
            },
            cache,
        }
    }
}

impl GridSettings {
    /// The grid knobs of a run's settings.
    pub fn from_settings(settings: &crate::settings::Settings) -> GridSettings {
        GridSettings {
            budget: settings.budget,
            m: settings.m,
            depth: settings.depth,
            rrf_c: settings.rrf_c,
            chunk_tokens: settings.chunk_tokens,
            side_drop: settings.side_drop,
        }
    }
}

/// Build one strategy's units, pointers and collections.
pub fn prepare(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    layout: &Layout,
    strategy: Strategy,
    settings: &GridSettings,
) -> Result<Prepared, EngineError> {
    let mut units = base_units(layout);
    let mut pointers = Vec::new();
    match strategy {
        Strategy::NoOverlap | Strategy::NeighbourExpansion => {}
        // Fixed chunks: token windows at a stride of chunk − overlap, each the chunk size. Any
        // other chunker: its own chunks, each reaching back `tokens` into its predecessor.
        Strategy::Overlap { tokens } => {
            let fixed = layout.chunker.starts_with("fixed");
            units = corpus
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
                .collect();
        }
        Strategy::Windows { width, stride } => {
            for (doc, offs) in corpus.documents.iter().zip(&layout.offsets) {
                let spans = token_windows(&doc.text, offs, width, stride, 0);
                pointers.extend(link(doc.id, spans, &units));
            }
        }
        Strategy::ChunkStrideWindows { width } => {
            for c in &layout.chunks {
                let offs = &layout.offsets[c.doc.0 as usize];
                let text = &corpus.doc(c.doc).text;
                let first = offs.first_at_or_after(c.span.start);
                let mid = first + c.tokens as usize / 2;
                let start_tok = mid.saturating_sub(width / 2).max(first);
                let spans = token_windows(text, offs, width, usize::MAX, start_tok);
                pointers.extend(link(c.doc, spans.into_iter().take(1).collect(), &units));
            }
        }
        Strategy::Seams { k } => {
            let seams = build_seams(corpus, &layout.offsets, &layout.chunks, k);
            pointers = seams
                .iter()
                .map(|s| Pointer {
                    doc: s.doc,
                    span: s.span,
                    links: vec![s.left.0, s.right.0],
                })
                .collect();
        }
    }
    let text = |doc: crate::corpus::DocId, span: crate::corpus::Span| corpus.doc(doc).slice(span);
    // Search texts as the live index builds them (heading paths, repeated table headers), so a
    // strategy is scored on what a query would really search.
    let source = layout.search_text_source(corpus);
    let unit_owned: Vec<_> = units.iter().map(|u| source.text(u.doc, u.span)).collect();
    let pointer_owned: Vec<_> = pointers
        .iter()
        .map(|p| source.text(p.doc, p.span))
        .collect();
    let unit_texts: Vec<&str> = unit_owned.iter().map(|t| t.as_ref()).collect();
    let pointer_texts: Vec<&str> = pointer_owned.iter().map(|t| t.as_ref()).collect();
    let (unit_vecs, mut stats) = embed_texts(
        model.embedder,
        model.tokenizer,
        model.cache,
        &unit_texts,
        model.options,
        &mut |_| true,
    )?;
    let (pointer_vecs, pstats) = embed_texts(
        model.embedder,
        model.tokenizer,
        model.cache,
        &pointer_texts,
        model.options,
        &mut |_| true,
    )?;
    stats.add(&pstats);
    let mut halves = Vec::new();
    if let Strategy::Seams { .. } = strategy {
        let mut texts: Vec<&str> = Vec::with_capacity(pointers.len() * 2);
        for p in &pointers {
            let cut = units[ends(p).1.0 as usize].span.start;
            texts.push(text(p.doc, crate::corpus::Span::new(p.span.start, cut)));
            texts.push(text(p.doc, crate::corpus::Span::new(cut, p.span.end)));
        }
        let (vecs, hstats) = embed_texts(
            model.embedder,
            model.tokenizer,
            model.cache,
            &texts,
            model.options,
            &mut |_| true,
        )?;
        stats.add(&hstats);
        let mut vecs = vecs.into_iter();
        while let (Some(l), Some(r)) = (vecs.next(), vecs.next()) {
            halves.push([l, r]);
        }
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
    })
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
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    crate::retrieve::fuse(lists, s.rrf_c)
        .iter()
        .take(SIDE_SCORE_DEPTH)
        .filter_map(|e| e.entry.seam())
        .filter_map(|seam| {
            let [l, r] = p.halves.get(seam.0 as usize)?;
            Some(SideScores {
                seam,
                left: dot(vector, l),
                right: dot(vector, r),
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

/// One question's scores under one strategy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// The context held every gold span.
    pub answered: bool,
    /// Tokens sent (duplicated text counts each time).
    pub tokens_sent: u64,
    /// Firings reached by the budget fill.
    pub fires: usize,
    /// Firings whose evidence does not cross their cut.
    pub false_fires: usize,
    /// Firings where one added unit holds none of the evidence.
    pub wasted_fires: usize,
    /// Class of each gold span against this strategy's units.
    pub classes: Vec<SpanClass>,
    /// Evidence tokens, returned tokens, and evidence tokens returned.
    pub token_overlap: (u64, u64, u64),
}

/// Score what a strategy (its `units` and `pointers`) returned for a question.
pub fn score(
    units: &[Unit],
    pointers: &[Pointer],
    layout: &Layout,
    q: &Question,
    r: &Retrieved,
) -> Scored {
    let returned: Vec<crate::corpus::Span> = r
        .units
        .iter()
        .map(|&u| units[u as usize])
        .filter(|u| u.doc == q.doc)
        .map(|u| u.span)
        .collect();
    let doc_units: Vec<crate::corpus::Span> = units
        .iter()
        .filter(|u| u.doc == q.doc)
        .map(|u| u.span)
        .collect();
    let offs = &layout.offsets[q.doc.0 as usize];
    let evidence: Vec<usize> = offs
        .starts
        .iter()
        .copied()
        .filter(|&t| q.spans.iter().any(|s| s.start <= t && t < s.end))
        .collect();
    let hit = evidence
        .iter()
        .filter(|&&t| returned.iter().any(|s| s.start <= t && t < s.end))
        .count();
    let tokens_sent: u64 = r
        .units
        .iter()
        .map(|&u| u64::from(units[u as usize].tokens))
        .sum();
    let holds = |u: u32| {
        let unit = units[u as usize];
        unit.doc == q.doc && q.spans.iter().any(|s| unit.span.overlaps(s))
    };
    let mut false_fires = 0;
    let mut wasted = 0;
    for (ptr, _) in &r.fired {
        let links = &pointers[*ptr as usize].links;
        let (left, right) = (links[0], *links.last().unwrap_or(&links[0]));
        let cut = units[right as usize].span.start;
        let crosses = units[left as usize].doc == q.doc
            && q.spans.iter().any(|s| s.start < cut && cut < s.end);
        if !crosses {
            false_fires += 1;
        }
        // Waste: a chunk the fire brought holds none of the evidence (side drop brings one).
        let dropped = r.dropped.iter().find(|d| d.0 == *ptr).map(|d| d.1);
        let brought = [left, right].into_iter().filter(|&c| Some(c) != dropped);
        if brought.into_iter().any(|c| !holds(c)) {
            wasted += 1;
        }
    }
    Scored {
        answered: q.spans.iter().all(|s| covered(*s, &returned)),
        tokens_sent,
        fires: r.fired.len(),
        false_fires,
        wasted_fires: wasted,
        classes: q.spans.iter().map(|s| span_class(*s, &doc_units)).collect(),
        token_overlap: (evidence.len() as u64, tokens_sent, hit as u64),
    }
}

/// One row of the results table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridRow {
    /// Strategy label.
    pub label: String,
    /// The strategy.
    pub strategy: Strategy,
    /// Vectors in its index.
    pub vectors: usize,
    /// Vectors relative to the baseline chunks alone.
    pub vectors_vs_chunks: f64,
    /// 1 - recall@budget over all questions.
    pub failure_rate: f64,
    /// Failures and questions per tag.
    pub by_tag: BTreeMap<String, (usize, usize)>,
    /// Mean tokens sent per answer.
    pub mean_tokens: f64,
    /// Firings per question (Seams only).
    pub fires_per_question: f64,
    /// Questions with at least one firing (Seams only).
    pub fire_rate: f64,
    /// Share of firings whose evidence does not cross the cut.
    pub false_fire_rate: f64,
    /// Share of firings where one added chunk holds none of the evidence.
    pub waste_rate: f64,
    /// Gold spans WHOLE / SPLIT / ABSENT against this strategy's units.
    pub span_classes: (usize, usize, usize),
    /// Share of gold spans WHOLE in one unit.
    pub answer_in_one_chunk: f64,
    /// Chroma-style token recall, precision and IoU (duplicates count against precision and IoU).
    pub span_recall: f64,
    /// See `span_recall`.
    pub span_precision: f64,
    /// See `span_recall`.
    pub span_iou: f64,
    /// Texts embedded for this strategy (the rest came from the cache).
    pub embedded_texts: usize,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { 0.0 } else { a / b }
}

/// Summarise a prepared strategy's scores into a table row.
pub fn row(p: &Prepared, base_units: usize, questions: &[Question], scores: &[Scored]) -> GridRow {
    let facts = RowFacts {
        label: &p.label,
        strategy: p.strategy,
        vectors: p.units.len() + p.pointers.len(),
        embedded_texts: p.embedding.cache_misses,
    };
    summarise(&facts, base_units, questions, scores)
}

/// What a table row says about a strategy beyond its scores.
#[derive(Debug, Clone, Copy)]
pub struct RowFacts<'a> {
    /// Its table label.
    pub label: &'a str,
    /// The strategy.
    pub strategy: Strategy,
    /// Vectors in its index (units and pointers).
    pub vectors: usize,
    /// Texts embedded for it (the rest came from the cache).
    pub embedded_texts: usize,
}

/// Summarise a strategy's per-question scores into a table row.
pub fn summarise(
    facts: &RowFacts<'_>,
    base_units: usize,
    questions: &[Question],
    scores: &[Scored],
) -> GridRow {
    let n = questions.len().max(1) as f64;
    let mut by_tag: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (q, s) in questions.iter().zip(scores) {
        for tag in &q.tags {
            let e = by_tag.entry(tag.clone()).or_default();
            e.1 += 1;
            if !s.answered {
                e.0 += 1;
            }
        }
    }
    let fires: usize = scores.iter().map(|s| s.fires).sum();
    let classes = scores.iter().flat_map(|s| s.classes.iter());
    let (mut whole, mut split, mut absent) = (0, 0, 0);
    for c in classes {
        match c {
            SpanClass::Whole => whole += 1,
            SpanClass::Split => split += 1,
            SpanClass::Absent => absent += 1,
        }
    }
    let (e, r, i): (u64, u64, u64) = scores.iter().fold((0, 0, 0), |acc, s| {
        (
            acc.0 + s.token_overlap.0,
            acc.1 + s.token_overlap.1,
            acc.2 + s.token_overlap.2,
        )
    });
    let vectors = facts.vectors;
    GridRow {
        label: facts.label.to_string(),
        strategy: facts.strategy,
        vectors,
        vectors_vs_chunks: ratio(vectors as f64, base_units as f64),
        failure_rate: scores.iter().filter(|s| !s.answered).count() as f64 / n,
        by_tag,
        mean_tokens: scores.iter().map(|s| s.tokens_sent as f64).sum::<f64>() / n,
        fires_per_question: fires as f64 / n,
        fire_rate: scores.iter().filter(|s| s.fires > 0).count() as f64 / n,
        false_fire_rate: ratio(
            scores.iter().map(|s| s.false_fires).sum::<usize>() as f64,
            fires as f64,
        ),
        waste_rate: ratio(
            scores.iter().map(|s| s.wasted_fires).sum::<usize>() as f64,
            fires as f64,
        ),
        span_classes: (whole, split, absent),
        answer_in_one_chunk: ratio(whole as f64, (whole + split + absent) as f64),
        span_recall: ratio(i as f64, e as f64),
        span_precision: ratio(i as f64, r as f64),
        span_iou: ratio(i as f64, (e + r - i) as f64),
        embedded_texts: facts.embedded_texts,
    }
}

/// Run every strategy on every question. `progress` hears each strategy's label as it starts.
///
/// Seams at the layout's own `k` (or the first Seams strategy when none has it) also gets a row
/// with side drop on, at `settings.side_drop` or [`DEFAULT_SIDE_DROP`], scored from the same
/// searches; every other row has side drop off.
pub fn run_grid(
    model: &mut Embedding<'_>,
    corpus: &Corpus,
    layout: &Layout,
    questions: &[Question],
    strategies: &[Strategy],
    settings: &GridSettings,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<GridRow>, EngineError> {
    let vectors = questions
        .iter()
        .map(|q| embed_one(model.embedder, model.tokenizer, &q.question))
        .collect::<Result<Vec<_>, _>>()?;
    let side_drop_k = strategies
        .iter()
        .filter_map(|s| match s {
            Strategy::Seams { k } => Some(*k),
            _ => None,
        })
        .find(|&k| k == layout.k)
        .or_else(|| {
            strategies.iter().find_map(|s| match s {
                Strategy::Seams { k } => Some(*k),
                _ => None,
            })
        });
    let plain = GridSettings {
        side_drop: None,
        ..*settings
    };
    let mut rows = Vec::new();
    for &strategy in strategies {
        progress(&strategy.label(settings.chunk_tokens));
        let p = prepare(model, corpus, layout, strategy, settings)?;
        save_cache(model.cache)?;
        let threshold = settings.side_drop.unwrap_or(DEFAULT_SIDE_DROP);
        let with_side_drop = matches!(strategy, Strategy::Seams { k } if Some(k) == side_drop_k);
        let mut scores = Vec::with_capacity(questions.len());
        let mut dropped_scores = Vec::new();
        for (q, v) in questions.iter().zip(&vectors) {
            let lists = search_lists(&p, v, &q.question, &plain)?;
            let sides = side_scores(&p, v, &lists, &plain);
            let r = select(strategy, &p.units, &p.pointers, &lists, &sides, &plain);
            scores.push(score(&p.units, &p.pointers, layout, q, &r));
            if with_side_drop {
                let on = GridSettings {
                    side_drop: Some(threshold),
                    ..plain
                };
                let r = select(strategy, &p.units, &p.pointers, &lists, &sides, &on);
                dropped_scores.push(score(&p.units, &p.pointers, layout, q, &r));
            }
        }
        rows.push(row(&p, layout.chunks.len(), questions, &scores));
        if with_side_drop {
            let mut r = row(&p, layout.chunks.len(), questions, &dropped_scores);
            r.label = format!("{} + side drop {threshold:.2}", r.label);
            r.embedded_texts = 0;
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Write the shared vector cache to disk, so the next run finds what this one embedded.
pub fn save_cache(cache: &mut VectorCache) -> Result<(), EngineError> {
    cache.save().map_err(|e| {
        EngineError::Index(crate::index::IndexError::Io {
            path: cache.path().to_path_buf(),
            message: e.to_string(),
        })
    })
}
