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
    /// Passages asked.
    pub questions: usize,
    /// Of those, passages a cut of the layout splits.
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

/// The passages of one band, with both kinds of question (those with no content word left out).
fn band_passages(
    corpus: &Corpus,
    layout: &Layout,
    band: (usize, usize),
    per_band: usize,
    seed: u64,
) -> Vec<(Question, Question, bool, usize)> {
    let options = PassageOptions {
        count: per_band,
        min_tokens: band.0,
        max_tokens: band.1,
        seed: seed ^ (band.0 as u64) << 20 ^ band.1 as u64,
    };
    let drawn = sample_passages(corpus, layout, &options);
    let mut opening = KeywordQuestions;
    drawn
        .passages
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let text = corpus.doc(p.doc).slice(p.span);
            let whole = whole_passage_question(text, seed.wrapping_add(i as u64))?;
            let first = opening.passage_question(text).ok()?;
            let split = layout.chunks.iter().any(|c| {
                c.doc == p.doc && c.span.start > p.span.start && c.span.start < p.span.end
            });
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
            Some((
                q(format!("map-{}-{}-{i}-whole", band.0, band.1), whole),
                q(format!("map-{}-{}-{i}-opening", band.0, band.1), first),
                split,
                p.tokens,
            ))
        })
        .collect()
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
    let n = at.len().max(1) as f64;
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

/// The map's verdict in words: runs of bands with the same leading family.
fn sentence(bands: &[MapBand], pick: impl Fn(&MapBand) -> &BandResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bands.len() {
        let Some((row, clear)) = leader(pick(&bands[i])) else {
            i += 1;
            continue;
        };
        let fam = row.family;
        let mut j = i;
        let mut all_clear = clear;
        while j + 1 < bands.len()
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
        let range = if i == 0 {
            format!("up to ~{} tokens", bands[j].max_tokens)
        } else if j + 1 == bands.len() {
            format!("beyond ~{} tokens", bands[i].min_tokens)
        } else {
            format!("at ~{}–{} tokens", bands[i].min_tokens, bands[j].max_tokens)
        };
        parts.push(format!("{} {verb} for evidence {range}{cost}", row.label));
        i = j + 1;
    }
    if parts.is_empty() {
        return "no verdict: no band had passages".to_string();
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
    for (b, &band) in options.bands.iter().enumerate() {
        for (w, o, s, t) in band_passages(
            &open.corpus,
            &open.layout,
            band,
            options.per_band,
            options.seed,
        ) {
            whole.push(w);
            opening.push(o);
            band_of.push(b);
            split.push(s);
            lengths.push(t);
        }
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
            options
                .bands
                .iter()
                .position(|&(lo, hi)| t >= lo && t < hi)
                .or_else(|| {
                    let first = options.bands.first()?;
                    if t < first.0 {
                        Some(0)
                    } else {
                        Some(options.bands.len() - 1)
                    }
                })
        })
        .collect();
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
    let gold_verdict = (!gold.is_empty()).then(|| gold_words(&bands, gold.len()));
    Ok(Some(EvidenceMap {
        bands,
        verdict: verdict_words,
        opening_verdict,
        kinds_disagree,
        gold_verdict,
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
fn gold_words(bands: &[MapBand], total: usize) -> String {
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
    format!(
        "gold set ({total} questions) by evidence length: {}",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
