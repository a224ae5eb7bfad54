//! The evidence-length map: which strategy wins depends on how long the evidence is that readers
//! need, and a user without gold questions cannot see that. So passages are drawn uniformly over
//! the corpus at several length bands, each asked as an offline question, and every strategy of
//! the board is scored per band, over all passages and over those a cut splits (the strategies
//! differ only there).
//!
//! Which offline question to ask matters. A question made of the passage's *opening* content
//! words (what `calibrate` asks) names where the passage starts, so the seam's far half never
//! matches it and overlap looks best at every length. A question made of content words drawn
//! from *across the whole passage* (about a third of its sentences, the words shuffled) agreed
//! with gold questions on both corpora the prototype tried, so the map uses that kind and also
//! scores the opening kind on the same passages, showing both verdicts when they disagree.

use serde::Serialize;

use super::verdict::{Candidate, Verdict, verdict};
use super::{Board, BoardOptions, BoardRow, Family, StrategyCost, board};
use crate::calibrate::KeywordQuestions;
use crate::calibrate::QuestionGenerator;
use crate::calibrate::generate::MAX_KEYWORDS;
use crate::calibrate::passage::{PassageOptions, sample_passages};
use crate::corpus::Corpus;
use crate::eval::questions::Question;
use crate::eval::run::SearchProgress;
use crate::layout::Layout;
use crate::session::{Engine, EngineError, OpenCorpus};

/// The default evidence-length bands, in tokens.
pub const DEFAULT_BANDS: [(usize, usize); 4] = [(50, 100), (100, 200), (200, 400), (400, 800)];
/// Default passages drawn per band.
pub const DEFAULT_PER_BAND: usize = 150;
/// Default resamples per band verdict (fewer than the board's: one per band and kind).
pub const DEFAULT_MAP_RESAMPLES: usize = 2_000;
/// Draws made per passage a band asks for: a draw whose passage is not of the band's length (the
/// document ends first, or its last sentence runs past the band) is left out, so a band draws up
/// to this many times its passages to fill itself with passages of its own length.
pub const DRAWS_PER_PASSAGE: usize = 4;

/// Whether `bands` can be a map: each runs from 1 token up, shortest first, and none overlaps
/// another (a passage belongs to one band). `Err` says which band is wrong.
pub fn check_bands(bands: &[(usize, usize)]) -> Result<(), String> {
    if bands.is_empty() {
        return Err("give at least one band, e.g. 50-100,100-200".to_string());
    }
    for (i, &(lo, hi)) in bands.iter().enumerate() {
        if lo == 0 || lo >= hi {
            return Err(format!(
                "band {lo}-{hi} must run from 1 token up, shortest first"
            ));
        }
        if let Some(&(plo, phi)) = i.checked_sub(1).map(|p| &bands[p])
            && lo < phi
        {
            return Err(if (plo, phi) == (lo, hi) {
                format!("band {lo}-{hi} is given twice: give each band once")
            } else {
                format!(
                    "bands {plo}-{phi} and {lo}-{hi} overlap: a passage belongs to one band, so each band must start at or after the end of the one before"
                )
            });
        }
    }
    Ok(())
}

/// Which offline question a passage is asked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionKind {
    /// Content words drawn from about a third of the passage's sentences, shuffled.
    WholePassage,
    /// The content words the passage opens with (`calibrate`'s kind).
    Opening,
}

/// What the map draws and scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapOptions {
    /// Length bands `(min, max)` in tokens.
    pub bands: Vec<(usize, usize)>,
    /// Passages drawn per band.
    pub per_band: usize,
    /// Seed of the passage draw and the question words.
    pub seed: u64,
    /// The strategies scored (the board's knobs; its `resamples` is used per band).
    pub board: BoardOptions,
}

impl MapOptions {
    /// The default map for seams of half-width `k`: one overlap, one window shape, static and
    /// SCAR expansion, Seams at `k` over every margin, overlap with Seams.
    pub fn for_k(k: usize) -> MapOptions {
        MapOptions {
            bands: DEFAULT_BANDS.to_vec(),
            per_band: DEFAULT_PER_BAND,
            seed: 0,
            board: BoardOptions {
                overlaps: vec![15],
                windows: vec![(256, 128)],
                ks: vec![k],
                resamples: DEFAULT_MAP_RESAMPLES,
                ..BoardOptions::default()
            },
        }
    }
}

/// One family's best row in a band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapRow {
    /// The row's label (the family's best setting in this band).
    pub label: String,
    /// Its family.
    pub family: Family,
    /// Failures over the band's passages.
    pub failures: usize,
    /// `failures / questions`.
    pub failure_rate: f64,
    /// Failure rate over the passages a cut splits (`None` when none is split).
    pub split_failure_rate: Option<f64>,
    /// Mean tokens sent.
    pub tokens: f64,
    /// Vectors relative to the chunks alone.
    pub vectors_vs_chunks: f64,
    /// Share of the band's resamples its family won.
    pub p_best: f64,
}

/// One kind of question's results in a band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BandResult {
    /// Each family's best row, best first.
    pub rows: Vec<MapRow>,
    /// The band's verdict (families tuned inside each resample).
    pub verdict: Verdict,
}

/// One length band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapBand {
    /// Shortest target length, in tokens.
    pub min_tokens: usize,
    /// Longest target length, in tokens.
    pub max_tokens: usize,
    /// Passages asked: every one of them is of the band's length (`min_tokens` up to, not
    /// including, `max_tokens`); 0 when the corpus gave none, and then the band was not measured.
    pub questions: usize,
    /// Draws made for the band.
    pub draws: usize,
    /// Distinct passages drawn and left out as shorter than the band (their document ends
    /// first).
    pub shorter: usize,
    /// The longest of those, in tokens.
    pub longest_shorter: usize,
    /// Passages drawn and left out as running past the band (their last sentence ends beyond
    /// it, or one sentence is longer than the band).
    pub longer: usize,
    /// Of the passages asked, those a cut of the layout splits.
    pub split_questions: usize,
    /// Mean passage length, in tokens.
    pub mean_evidence_tokens: f64,
    /// Whole-passage questions: each family's best row, best first (`rows`), and their verdict
    /// (`verdict`).
    #[serde(flatten)]
    pub whole: BandResult,
    /// The same passages asked with their opening words.
    pub opening: BandResult,
    /// Gold questions whose evidence falls in this band, when a gold set was given.
    pub gold: Option<BandResult>,
    /// Gold questions in the band.
    pub gold_questions: usize,
}

impl MapBand {
    /// Whether the band holds any passage (an empty band was not measured and says nothing).
    pub fn measured(&self) -> bool {
        self.questions > 0
    }

    /// Why the band has no passage, in words (`None` when it has some).
    pub fn why_empty(&self) -> Option<String> {
        if self.measured() {
            return None;
        }
        Some(match (self.shorter, self.longer) {
            (0, 0) => "the corpus has no passage to draw".to_string(),
            (_, 0) => format!(
                "every passage drawn was shorter, {} tokens at most: no document holds {} tokens of whole sentences",
                self.longest_shorter, self.min_tokens
            ),
            (0, _) => format!(
                "every passage drawn ran past {} tokens (its sentences are longer than the band)",
                self.max_tokens
            ),
            (s, l) => format!(
                "of the passages drawn, {s} were shorter and {l} ran past {} tokens",
                self.max_tokens
            ),
        })
    }
}

/// The whole map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvidenceMap {
    /// The bands, shortest first.
    pub bands: Vec<MapBand>,
    /// The verdict in words (whole-passage questions).
    pub verdict: String,
    /// The verdict with opening-word questions.
    pub opening_verdict: String,
    /// Whether the two kinds name different leaders in some band.
    pub kinds_disagree: bool,
    /// With a gold set: where its evidence lies and whether the map agrees with it, in words.
    pub gold_verdict: Option<String>,
    /// Gold questions whose evidence is of no band's length (placed in none).
    pub gold_outside_bands: usize,
    /// The embedder whose rankings were measured.
    pub embedder: String,
    /// Tokens per chunk of the layout.
    pub chunk_tokens: usize,
    /// The final budget.
    pub budget: usize,
    /// What each strategy cost.
    pub strategies: Vec<StrategyCost>,
    /// The knobs.
    pub options: MapOptions,
    /// Seconds for the whole run.
    pub seconds: f64,
}

/// SplitMix64 step, for the question words' draw.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A whole-passage question: content words from about a third of the passage's sentences, spread
/// over it (one from each third when it has three or more), shuffled with `seed`, at most
/// [`MAX_KEYWORDS`]. `None` when the passage has no content word.
pub fn whole_passage_question(passage: &str, seed: u64) -> Option<String> {
    let sents = crate::calibrate::sample::sentences(passage);
    let n = sents.len().max(1);
    let take = n.div_ceil(3);
    let mut chosen: Vec<&str> = Vec::with_capacity(take);
    if sents.is_empty() {
        chosen.push(passage);
    } else {
        // One sentence from each of `take` equal stretches, at a seeded place in it.
        for i in 0..take {
            let (lo, hi) = (i * n / take, ((i + 1) * n / take).max(i * n / take + 1));
            let at = lo + (mix(seed ^ (i as u64) << 32) % (hi - lo) as u64) as usize;
            let s = sents[at.min(n - 1)];
            chosen.push(&passage[s.start..s.end]);
        }
    }
    let mut words: Vec<String> = Vec::new();
    for s in chosen {
        for w in KeywordQuestions::content_words(s) {
            if !words.contains(&w) {
                words.push(w);
            }
        }
    }
    // Fisher–Yates with the seed, then the cap: words from every chosen sentence can survive it.
    let mut state = seed ^ 0x5EA7_5C0E;
    for i in (1..words.len()).rev() {
        state = mix(state);
        let j = (state % (i as u64 + 1)) as usize;
        words.swap(i, j);
    }
    words.truncate(MAX_KEYWORDS);
    (!words.is_empty()).then(|| words.join(" "))
}

/// One band's draw: its passages with both kinds of question (those with no content word left
/// out), the split flag and the length; and how many draws it made and left out.
struct BandDraw {
    passages: Vec<(Question, Question, bool, usize)>,
    draws: usize,
    shorter: usize,
    longer: usize,
    longest_shorter: usize,
}

/// The passages of one band: only passages whose length lies in the band (`lo` up to, not
/// including, `hi`), at most `per_band`, from up to [`DRAWS_PER_PASSAGE`] × `per_band` draws.
fn band_passages(
    corpus: &Corpus,
    layout: &Layout,
    band: (usize, usize),
    per_band: usize,
    seed: u64,
) -> BandDraw {
    let (lo, hi) = band;
    let options = PassageOptions {
        count: per_band.saturating_mul(DRAWS_PER_PASSAGE),
        min_tokens: lo,
        max_tokens: hi.saturating_sub(1).max(lo),
        seed: seed ^ (lo as u64) << 20 ^ hi as u64,
    };
    let drawn = sample_passages(corpus, layout, &options);
    let mut out = BandDraw {
        passages: Vec::new(),
        draws: options.count,
        shorter: 0,
        longer: drawn.too_long,
        longest_shorter: 0,
    };
    let mut opening = KeywordQuestions;
    for (i, p) in drawn.passages.iter().enumerate() {
        if p.tokens < lo {
            out.shorter += 1;
            out.longest_shorter = out.longest_shorter.max(p.tokens);
            continue;
        }
        if p.tokens >= hi {
            out.longer += 1;
            continue;
        }
        // The draw is seeded and taken in order, so the band is the same whatever was left out.
        if out.passages.len() == per_band {
            continue;
        }
        let text = corpus.doc(p.doc).slice(p.span);
        let Some(whole) = whole_passage_question(text, seed.wrapping_add(i as u64)) else {
            continue;
        };
        let Ok(first) = opening.passage_question(text) else {
            continue;
        };
        let split = layout
            .chunks
            .iter()
            .any(|c| c.doc == p.doc && c.span.start > p.span.start && c.span.start < p.span.end);
        let q = |id: String, question: String| Question {
            id,
            question,
            doc: p.doc,
            spans: vec![p.span],
            tags: if split {
                vec!["map".into(), "split".into()]
            } else {
                vec!["map".into()]
            },
        };
        out.passages.push((
            q(format!("map-{lo}-{hi}-{i}-whole"), whole),
            q(format!("map-{lo}-{hi}-{i}-opening"), first),
            split,
            p.tokens,
        ));
    }
    out
}

/// Each family's best row over the questions `at` (indices into the board's questions), its
/// verdict, best first.
fn band_result(
    board: &Board,
    at: &[usize],
    split: &[bool],
    resamples: usize,
    seed: u64,
) -> BandResult {
    let failed: Vec<Vec<bool>> = board
        .rows
        .iter()
        .map(|r| at.iter().map(|&i| r.failed[i]).collect())
        .collect();
    let tokens = |r: &BoardRow| {
        at.iter().map(|&i| r.tokens_sent[i] as f64).sum::<f64>() / at.len().max(1) as f64
    };
    let candidates: Vec<Candidate<'_>> = board
        .rows
        .iter()
        .zip(&failed)
        .map(|(r, f)| Candidate {
            label: &r.label,
            family: r.family.name(),
            failed: f,
            mean_tokens: tokens(r),
        })
        .collect();
    let v = verdict(&candidates, resamples, seed);
    if at.is_empty() {
        // Nothing was measured: no row to show, and the verdict says so.
        return BandResult {
            rows: Vec::new(),
            verdict: v,
        };
    }
    let n = at.len() as f64;
    let split_n = split.iter().filter(|s| **s).count();
    let mut rows: Vec<MapRow> = Family::ALL
        .iter()
        .filter_map(|fam| {
            let (r, f) = board
                .rows
                .iter()
                .zip(&failed)
                .filter(|(r, _)| r.family == *fam)
                .min_by(|a, b| {
                    let fa = a.1.iter().filter(|x| **x).count();
                    let fb = b.1.iter().filter(|x| **x).count();
                    fa.cmp(&fb).then(tokens(a.0).total_cmp(&tokens(b.0)))
                })?;
            let failures = f.iter().filter(|x| **x).count();
            let split_failures = f.iter().zip(split).filter(|(x, s)| **x && **s).count();
            Some(MapRow {
                label: r.label.clone(),
                family: r.family,
                failures,
                failure_rate: failures as f64 / n,
                split_failure_rate: (split_n > 0).then(|| split_failures as f64 / split_n as f64),
                tokens: tokens(r),
                vectors_vs_chunks: r.vectors_vs_chunks,
                p_best: v
                    .contenders
                    .iter()
                    .find(|c| c.family == fam.name())
                    .map_or(0.0, |c| c.p_best),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        a.failures
            .cmp(&b.failures)
            .then(a.tokens.total_cmp(&b.tokens))
    });
    BandResult { rows, verdict: v }
}

/// Which family leads a band: the verdict's first contender, with whether it is a clear winner.
fn leader(result: &BandResult) -> Option<(&MapRow, bool)> {
    let first = result.verdict.contenders.first()?;
    let row = result
        .rows
        .iter()
        .find(|r| r.family.name() == first.family)?;
    Some((row, result.verdict.winner.is_some()))
}

/// The map's verdict in words: runs of adjacent bands with the same leading family, each named
/// by the lengths it was measured at; then the bands that say nothing (no passage of their
/// length, or a verdict that concludes nothing), so no claim reaches past what was measured.
fn sentence(bands: &[MapBand], pick: impl Fn(&MapBand) -> &BandResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut silent: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bands.len() {
        let band = &bands[i];
        let Some((row, clear)) = leader(pick(band)) else {
            let why = match band.why_empty() {
                Some(why) => format!(
                    "no passage of {}–{} tokens ({why})",
                    band.min_tokens, band.max_tokens
                ),
                None => format!(
                    "{}–{} tokens: {}",
                    band.min_tokens,
                    band.max_tokens,
                    pick(band).verdict.sentence()
                ),
            };
            silent.push(why);
            i += 1;
            continue;
        };
        let fam = row.family;
        let mut j = i;
        let mut all_clear = clear;
        while j + 1 < bands.len()
            && bands[j].max_tokens == bands[j + 1].min_tokens
            && leader(pick(&bands[j + 1])).is_some_and(|(r, _)| r.family == fam)
        {
            j += 1;
            all_clear &= leader(pick(&bands[j])).is_some_and(|(_, c)| c);
        }
        let verb = if all_clear {
            "wins"
        } else {
            "leads (not beyond noise)"
        };
        let cost = if row.vectors_vs_chunks > 1.05 {
            format!(" at {:.1}× the vectors", row.vectors_vs_chunks)
        } else {
            String::new()
        };
        parts.push(format!(
            "{} {verb} for evidence of ~{}–{} tokens{cost}",
            row.label, bands[i].min_tokens, bands[j].max_tokens
        ));
        i = j + 1;
    }
    if parts.is_empty() {
        let what = if bands.iter().any(MapBand::measured) {
            "no band's verdict concludes anything"
        } else {
            "no band had passages of its length"
        };
        return format!("no verdict: {what}; {}", silent.join("; "));
    }
    let windows = bands
        .iter()
        .flat_map(|b| pick(b).rows.iter())
        .find(|r| r.family == Family::Windows);
    let mut s = parts.join("; ");
    if let Some(w) = windows
        && !parts.iter().any(|p| p.starts_with("windows"))
    {
        s.push_str(&format!(
            " ({} need {:.1}× the vectors)",
            w.label, w.vectors_vs_chunks
        ));
    }
    if !silent.is_empty() {
        s.push_str(&format!("; not measured: {}", silent.join("; ")));
    }
    s
}

/// Draw the passages, score every strategy on them (and on `gold` when given: its questions'
/// own evidence lengths placed on the same bands) and summarise per band.
pub fn evidence_map(
    engine: &mut Engine,
    open: &OpenCorpus,
    options: &MapOptions,
    gold: Option<&[Question]>,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<EvidenceMap>, EngineError> {
    let started = std::time::Instant::now();
    let mut whole = Vec::new();
    let mut opening = Vec::new();
    let mut band_of = Vec::new();
    let mut split = Vec::new();
    let mut lengths = Vec::new();
    let mut draws = Vec::new();
    for (b, &band) in options.bands.iter().enumerate() {
        let mut drawn = band_passages(
            &open.corpus,
            &open.layout,
            band,
            options.per_band,
            options.seed,
        );
        for (w, o, s, t) in std::mem::take(&mut drawn.passages) {
            whole.push(w);
            opening.push(o);
            band_of.push(b);
            split.push(s);
            lengths.push(t);
        }
        draws.push(drawn);
    }
    let n = whole.len();
    let gold = gold.unwrap_or(&[]);
    let mut questions = whole;
    questions.extend(opening);
    questions.extend(gold.iter().cloned());
    let board_options = BoardOptions {
        resamples: 0,
        ..options.board.clone()
    };
    let Some(scored) = board(
        engine,
        open,
        &questions,
        "evidence-length map",
        &board_options,
        progress,
    )?
    else {
        return Ok(None);
    };
    let gold_band: Vec<Option<usize>> = gold
        .iter()
        .map(|q| {
            let offs = &open.layout.offsets[q.doc.0 as usize];
            let t: usize = q.spans.iter().map(|s| offs.count_in(s.start, s.end)).sum();
            // A gold question belongs to the band of its length, or to none.
            options.bands.iter().position(|&(lo, hi)| t >= lo && t < hi)
        })
        .collect();
    let gold_outside_bands = gold_band.iter().filter(|b| b.is_none()).count();
    let resamples = options.board.resamples;
    let mut bands = Vec::new();
    for (b, &(lo, hi)) in options.bands.iter().enumerate() {
        let at: Vec<usize> = (0..n).filter(|&i| band_of[i] == b).collect();
        let at_opening: Vec<usize> = at.iter().map(|&i| i + n).collect();
        let band_split: Vec<bool> = at.iter().map(|&i| split[i]).collect();
        let seed = options.board.seed ^ b as u64;
        let main = band_result(&scored, &at, &band_split, resamples, seed);
        let open_result = band_result(&scored, &at_opening, &band_split, resamples, seed);
        let gold_at: Vec<usize> = (0..gold.len())
            .filter(|&g| gold_band[g] == Some(b))
            .map(|g| 2 * n + g)
            .collect();
        let gold_split: Vec<bool> = gold_at
            .iter()
            .map(|&i| questions[i].has_tag("boundary"))
            .collect();
        let gold_result = (!gold_at.is_empty())
            .then(|| band_result(&scored, &gold_at, &gold_split, resamples, seed));
        bands.push(MapBand {
            min_tokens: lo,
            max_tokens: hi,
            questions: at.len(),
            draws: draws[b].draws,
            shorter: draws[b].shorter,
            longest_shorter: draws[b].longest_shorter,
            longer: draws[b].longer,
            split_questions: band_split.iter().filter(|s| **s).count(),
            mean_evidence_tokens: at.iter().map(|&i| lengths[i] as f64).sum::<f64>()
                / at.len().max(1) as f64,
            whole: main,
            opening: open_result,
            gold: gold_result,
            gold_questions: gold_at.len(),
        });
    }
    let verdict_words = sentence(&bands, |b| &b.whole);
    let opening_verdict = sentence(&bands, |b| &b.opening);
    let kinds_disagree = bands.iter().any(|b| {
        leader(&b.whole).map(|(r, _)| r.family) != leader(&b.opening).map(|(r, _)| r.family)
    });
    let gold_verdict =
        (!gold.is_empty()).then(|| gold_words(&bands, gold.len(), gold_outside_bands));
    Ok(Some(EvidenceMap {
        bands,
        verdict: verdict_words,
        opening_verdict,
        kinds_disagree,
        gold_verdict,
        gold_outside_bands,
        embedder: scored.embedder,
        chunk_tokens: scored.chunk_tokens,
        budget: scored.budget,
        strategies: scored.strategies,
        options: options.clone(),
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// Where the gold set's evidence lies on the map, and whether the map's leader there matches the
/// gold questions' own.
fn gold_words(bands: &[MapBand], total: usize, outside: usize) -> String {
    let mut parts = Vec::new();
    for b in bands {
        let m = &b.whole;
        let Some(g) = &b.gold else { continue };
        let map_leader = leader(m).map(|(r, _)| r.family);
        let gold_leader = leader(g).map(|(r, _)| r.family);
        let agree = if map_leader == gold_leader {
            "agree"
        } else {
            "differ"
        };
        parts.push(format!(
            "{}–{} tokens: {} gold questions, gold leader {} ({:.0}%), map leader {} — {agree}",
            b.min_tokens,
            b.max_tokens,
            b.gold_questions,
            leader(g).map_or("-".into(), |(r, _)| r.label.clone()),
            g.verdict.contenders.first().map_or(0.0, |c| c.p_best) * 100.0,
            leader(m).map_or("-".into(), |(r, _)| r.label.clone()),
        ));
    }
    if outside > 0 {
        parts.push(format!(
            "{outside} gold questions have evidence of no band's length and are in none"
        ));
    }
    format!(
        "gold set ({total} questions) by evidence length: {}",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::bootstrap::Contender;
    use crate::chunk::fixed::FixedTokens;
    use crate::tokens::TokenOffsets;

    /// `corpus` laid out in whitespace words (one token each) in chunks of `chunk`.
    fn layout(corpus: &Corpus, chunk: usize) -> Layout {
        let offsets: Vec<TokenOffsets> = corpus
            .documents
            .iter()
            .map(|d| TokenOffsets::of_words(&d.text))
            .collect();
        let chunks = crate::chunk::chunk_corpus(corpus, &offsets, &FixedTokens { tokens: chunk });
        let seams = crate::seam::build_seams(corpus, &offsets, &chunks, 4);
        Layout {
            offsets,
            chunks,
            seams,
            chunker: format!("fixed-{chunk}"),
            k: 4,
            search: Default::default(),
            timings: Default::default(),
            given: None,
            store: Default::default(),
        }
    }

    /// `sentences` sentences of `words` distinct content words each.
    fn prose(tag: &str, sentences: usize, words: usize) -> String {
        (0..sentences)
            .map(|s| {
                let body: Vec<String> = (0..words)
                    .map(|w| match w {
                        0 => format!("Harbour{tag}x{s}"),
                        _ => format!("crane{tag}x{s}y{w}"),
                    })
                    .collect();
                format!("{}.", body.join(" "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_band_holds_only_passages_of_its_length_and_says_why_it_is_empty() {
        // Files of 150 words (15 sentences of 10): no passage of 200 tokens or more exists.
        let corpus = Corpus::from_texts(
            (0..6).map(|i| (format!("f{i}.md"), prose(&format!("f{i}"), 15, 10))),
        );
        let lay = layout(&corpus, 64);
        for band in [(50, 100), (100, 200)] {
            let drawn = band_passages(&corpus, &lay, band, 30, 1);
            assert!(!drawn.passages.is_empty(), "{band:?}");
            assert!(drawn.passages.len() <= 30);
            for (w, _, _, t) in &drawn.passages {
                assert!(
                    (band.0..band.1).contains(t),
                    "{band:?}: a {t}-token passage"
                );
                assert!(w.id.starts_with(&format!("map-{}-{}-", band.0, band.1)));
            }
        }
        for band in [(200, 400), (400, 800), (5000, 9000)] {
            let drawn = band_passages(&corpus, &lay, band, 30, 1);
            assert!(
                drawn.passages.is_empty(),
                "{band:?}: {} passages",
                drawn.passages.len()
            );
            assert!(drawn.shorter > 0 && drawn.longer == 0, "{band:?}");
            assert!(drawn.longest_shorter <= 150, "{}", drawn.longest_shorter);
        }
        // A 7-token corpus has no passage in any band.
        let tiny = Corpus::from_texts([("t.md", "One two three four five six seven.")]);
        let lay = layout(&tiny, 64);
        for band in DEFAULT_BANDS {
            assert!(band_passages(&tiny, &lay, band, 30, 1).passages.is_empty());
        }
    }

    #[test]
    fn bands_are_each_given_once_and_never_overlap() {
        assert!(check_bands(&[(50, 100), (100, 200)]).is_ok());
        assert!(check_bands(&[(50, 100), (5000, 9000)]).is_ok());
        assert!(check_bands(&[]).is_err());
        assert!(
            check_bands(&[(100, 200), (100, 200)])
                .unwrap_err()
                .contains("twice")
        );
        assert!(
            check_bands(&[(50, 150), (100, 200)])
                .unwrap_err()
                .contains("overlap")
        );
        assert!(check_bands(&[(0, 10)]).is_err());
        assert!(check_bands(&[(10, 10)]).is_err());
    }

    fn band(lo: usize, hi: usize, leader: Option<(&str, Family)>, questions: usize) -> MapBand {
        let rows: Vec<MapRow> = leader
            .iter()
            .map(|&(label, family)| MapRow {
                label: label.to_string(),
                family,
                failures: 1,
                failure_rate: 0.1,
                split_failure_rate: None,
                tokens: 100.0,
                vectors_vs_chunks: 1.0,
                p_best: 0.6,
            })
            .collect();
        let verdict = Verdict {
            winner: None,
            tied_with: Vec::new(),
            contenders: leader
                .iter()
                .map(|&(label, family)| Contender {
                    label: label.to_string(),
                    family: family.name().to_string(),
                    p_best: 0.6,
                    questions_needed: None,
                })
                .collect(),
            resamples: 100,
            seed: 0,
            win_share: 0.9,
            questions,
            inconclusive: (leader.is_none() && questions > 0)
                .then(|| "every setting fails on the same 3 of the 10 questions".to_string()),
        };
        let result = BandResult { rows, verdict };
        MapBand {
            min_tokens: lo,
            max_tokens: hi,
            questions,
            draws: 120,
            shorter: if questions == 0 { 120 } else { 0 },
            longest_shorter: 150,
            longer: 0,
            split_questions: 0,
            mean_evidence_tokens: 0.0,
            whole: result.clone(),
            opening: result,
            gold: None,
            gold_questions: 0,
        }
    }

    #[test]
    fn the_verdict_speaks_only_of_bands_that_were_measured() {
        let seams = Some(("Seams k 8 m 2", Family::Seams));
        // Seams leads the two measured bands; the two longer ones have no passage.
        let bands = [
            band(50, 100, seams, 30),
            band(100, 200, seams, 30),
            band(200, 400, None, 0),
            band(400, 800, None, 0),
        ];
        let s = sentence(&bands, |b| &b.whole);
        assert!(
            s.starts_with("Seams k 8 m 2 leads (not beyond noise) for evidence of ~50–200 tokens"),
            "{s}"
        );
        assert!(!s.contains("up to ~800") && !s.contains("beyond ~"), "{s}");
        assert!(
            s.contains("not measured: no passage of 200–400 tokens (every passage drawn was shorter, 150 tokens at most"),
            "{s}"
        );
        assert!(s.contains("no passage of 400–800 tokens"), "{s}");
        // A run never reaches across a gap between bands.
        let gap = [band(50, 100, seams, 30), band(5000, 9000, seams, 30)];
        let s = sentence(&gap, |b| &b.whole);
        assert!(s.contains("~50–100 tokens; Seams k 8 m 2"), "{s}");
        // A band whose verdict concludes nothing says so instead of naming a leader.
        let flat = [band(50, 100, None, 10), band(100, 200, seams, 30)];
        let s = sentence(&flat, |b| &b.whole);
        assert!(s.contains("50–100 tokens: nothing can be concluded"), "{s}");
        assert!(
            s.starts_with("Seams k 8 m 2 leads (not beyond noise) for evidence of ~100–200"),
            "{s}"
        );
        // No band measured: no verdict.
        let none = [band(50, 100, None, 0), band(100, 200, None, 0)];
        let s = sentence(&none, |b| &b.whole);
        assert!(
            s.starts_with("no verdict: no band had passages of its length"),
            "{s}"
        );
        assert!(bands[2].why_empty().is_some() && bands[0].why_empty().is_none());
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
}
