//! The evidence-length map: which strategy wins depends on how long the evidence is that readers
//! need, and a user without gold questions cannot see that. So passages are drawn uniformly over
//! the corpus at several length bands, each asked as an offline question, and every strategy of
//! the board (the same families and settings, tuning priced in per band) is scored per band,
//! over all passages and over those a cut splits (the strategies differ only there).
//!
//! Which question is asked matters ([`kinds`]): a question that names where a passage starts
//! never matches a seam's far half, one drawn from across the whole passage names both sides of
//! a cut, and real questions about split evidence usually name one side. Each kind can be scored
//! against gold questions wherever they exist ([`agreement`]); the map asks the kind that agreed
//! best, and with a gold set shows every kind's agreement beside the gold questions' own bands.

pub mod agreement;
mod assemble;
mod band;
mod draw;
pub mod kinds;
mod words;

use serde::Serialize;

use super::verdict::Verdict;
use super::{BoardOptions, Family, StrategyCost, board};
use crate::calibrate::QuestionGenerator;
use crate::eval::questions::Question;
use crate::eval::run::SearchProgress;
use crate::session::{Engine, EngineError, OpenCorpus};
use crate::settings::Settings;
pub use agreement::KindAgreement;
use assemble::{BandScoring, DrawnPassages, GoldPlacement, asked_kinds};
pub use draw::{DRAWS_PER_PASSAGE, MAX_DRAWS_PER_PASSAGE};
pub use kinds::{DEFAULT_KIND, OFFLINE_KINDS, QuestionKind, whole_passage_question};
use words::{GoldPlace, gold_words, leader, sentence};

/// The default evidence-length bands, in tokens.
pub const DEFAULT_BANDS: [(usize, usize); 4] = [(50, 100), (100, 200), (200, 400), (400, 800)];
/// Default passages drawn per band.
pub const DEFAULT_PER_BAND: usize = 150;
/// Default resamples per band verdict (fewer than the board's: one per band and kind).
pub const DEFAULT_MAP_RESAMPLES: usize = 2_000;

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

/// What the map draws and scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapOptions {
    /// Length bands `(min, max)` in tokens.
    pub bands: Vec<(usize, usize)>,
    /// Passages drawn per band.
    pub per_band: usize,
    /// Seed of the passage draw and the question words.
    pub seed: u64,
    /// The kinds of question asked about every passage; the first is the map's own (its rows
    /// and verdict), the others are scored on the same passages beside it.
    pub kinds: Vec<QuestionKind>,
    /// The strategies scored (the board's knobs; its `resamples` is used per band).
    pub board: BoardOptions,
}

impl Default for MapOptions {
    /// The board's families and settings, the default bands, the default kind.
    fn default() -> Self {
        MapOptions {
            bands: DEFAULT_BANDS.to_vec(),
            per_band: DEFAULT_PER_BAND,
            seed: 0,
            kinds: vec![DEFAULT_KIND],
            board: BoardOptions {
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
    /// Share of the tokens sent that were sent more than once (overlap sends text twice).
    pub duplicate_share: f64,
    /// No two stored units share text: each passage is stored once.
    pub stores_once: bool,
    /// Vectors relative to the chunks alone.
    pub vectors_vs_chunks: f64,
    /// Share of the band's resamples its family won.
    pub p_best: f64,
}

/// One kind of question's results in a band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BandResult {
    /// Each family's best row among those the constraints allow, best first.
    pub rows: Vec<MapRow>,
    /// The band's verdict (families tuned inside each resample).
    pub verdict: Verdict,
}

/// Another kind of question's results in a band (same passages).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindResult {
    /// The kind asked.
    pub kind: QuestionKind,
    /// Its rows and verdict.
    #[serde(flatten)]
    pub result: BandResult,
}

/// One length band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapBand {
    /// Shortest length, in tokens.
    pub min_tokens: usize,
    /// Longest length (not included), in tokens.
    pub max_tokens: usize,
    /// A band only gold questions fall in (shorter than the first band or longer than the
    /// last): the map drew no passage for it.
    pub gold_only: bool,
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
    /// Draws that landed on a passage already drawn.
    pub repeats: usize,
    /// Why the band holds fewer passages than asked, in words (`None`: full, or empty).
    pub short_because: Option<String>,
    /// Of the passages asked, those a cut of the layout splits.
    pub split_questions: usize,
    /// Mean passage length, in tokens.
    pub mean_evidence_tokens: f64,
    /// The map's kind of question: each family's best row, best first (`rows`), and their
    /// verdict (`verdict`).
    #[serde(flatten)]
    pub result: BandResult,
    /// With constraints that leave rows out: the band over every row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<BandResult>,
    /// The other kinds asked about the same passages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<KindResult>,
    /// Gold questions whose evidence falls in this band, when a gold set was given.
    pub gold: Option<BandResult>,
    /// Gold questions in the band.
    pub gold_questions: usize,
    /// Of those, the ones a cut of the layout splits.
    pub gold_split: usize,
}

impl MapBand {
    /// Whether the band holds any passage (an empty band was not measured and says nothing).
    pub fn measured(&self) -> bool {
        self.questions > 0
    }

    /// The results of `kind` in this band (the map's own kind or another one asked).
    pub fn of_kind(&self, kind: QuestionKind, map_kind: QuestionKind) -> Option<&BandResult> {
        if kind == map_kind {
            return Some(&self.result);
        }
        self.kinds
            .iter()
            .find(|k| k.kind == kind)
            .map(|k| &k.result)
    }

    /// Why the band has no passage, in words (`None` when it has some).
    pub fn why_empty(&self) -> Option<String> {
        if self.measured() {
            return None;
        }
        if self.gold_only {
            return Some(format!(
                "gold evidence outside the map's bands ({} questions); no passages drawn",
                self.gold_questions
            ));
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

/// Another kind's verdict over the whole map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindVerdict {
    /// The kind asked.
    pub kind: QuestionKind,
    /// Its verdict in words.
    pub verdict: String,
    /// Whether it names another leader than the map's kind in some band.
    pub disagrees: bool,
}

/// The whole map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvidenceMap {
    /// The bands, shortest first (with gold-only bands below and above when a gold set has
    /// evidence outside the map's own).
    pub bands: Vec<MapBand>,
    /// The kind of question the map asked (its rows and verdict).
    pub kind: QuestionKind,
    /// Where that kind was checked against gold questions and how well it agreed, in words.
    pub kind_checked: String,
    /// The verdict in words (among the rows the constraints allow).
    pub verdict: String,
    /// With constraints that leave rows out: the verdict over every row, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconstrained_verdict: Option<String>,
    /// The other kinds' verdicts on the same passages.
    pub other_verdicts: Vec<KindVerdict>,
    /// Whether another kind names different leaders in some band.
    pub kinds_disagree: bool,
    /// With a gold set: each kind's agreement with it on split evidence, best first.
    pub agreement: Vec<KindAgreement>,
    /// With a gold set: where its evidence lies and whether the map agrees with it, in words.
    pub gold_verdict: Option<String>,
    /// Gold questions whose evidence is of no band's length of the map's own (they are in the
    /// gold-only bands).
    pub gold_outside_bands: usize,
    /// The embedder whose rankings were measured.
    pub embedder: String,
    /// Tokens per chunk of the layout.
    pub chunk_tokens: usize,
    /// The final budget.
    pub budget: usize,
    /// Board rows (settings) scored in every band.
    pub settings_scored: usize,
    /// What each strategy cost.
    pub strategies: Vec<StrategyCost>,
    /// The knobs.
    pub options: MapOptions,
    /// Seconds for the whole run.
    pub seconds: f64,
}

impl EvidenceMap {
    /// The first other kind whose verdict names other leaders than the map's kind.
    pub fn disagreeing(&self) -> Option<&KindVerdict> {
        self.other_verdicts.iter().find(|v| v.disagrees)
    }
}

/// Draw the passages, ask each as every kind of `options.kinds` (`generator` writes the
/// language model's kind), score every strategy on them (and on `gold` when given: its
/// questions' own evidence lengths placed on the same bands, with a band below and above for
/// evidence outside them) and summarise per band, every row at `settings`' budget, depth and
/// RRF constant (see [`board`]). `None` when `progress` stopped it.
pub fn evidence_map(
    engine: &mut Engine,
    open: &OpenCorpus,
    settings: &Settings,
    options: &MapOptions,
    gold: Option<&[Question]>,
    generator: Option<&mut (dyn QuestionGenerator + '_)>,
    progress: &mut dyn FnMut(SearchProgress<'_>) -> bool,
) -> Result<Option<EvidenceMap>, EngineError> {
    let started = std::time::Instant::now();
    let kinds = asked_kinds(&options.kinds, generator.is_some());
    let (drawn, mut questions) = DrawnPassages::draw(open, options, &kinds, generator);
    let gold = gold.unwrap_or(&[]);
    questions.extend(gold.iter().cloned());
    let board_options = BoardOptions {
        resamples: 0,
        ..options.board.clone()
    };
    let Some(scored) = board(
        engine,
        open,
        settings,
        &questions,
        "evidence-length map",
        &board_options,
        progress,
    )?
    else {
        return Ok(None);
    };
    let placed = GoldPlacement::of(open, &options.bands, gold);
    let scoring = BandScoring {
        scored: &scored,
        drawn: &drawn,
        gold: &placed,
        kinds: &kinds,
        resamples: options.board.resamples,
    };
    let mut bands = scoring.drawn_bands(options);
    let map_kind = kinds[0];
    let verdict = sentence(&bands, |b| Some(&b.result));
    let unconstrained_verdict = scoring
        .any_excluded()
        .then(|| sentence(&bands, |b| b.unconstrained.as_ref()));
    let other_verdicts = other_verdicts(&bands, &kinds);
    let agreements = scoring.agreements(options.bands.len());
    let gold_verdict = (!gold.is_empty()).then(|| gold_words(&bands, gold.len(), &placed.place));
    scoring.add_outside_bands(&mut bands, options);
    Ok(Some(EvidenceMap {
        kind: map_kind,
        kind_checked: kind_checked(&agreements, map_kind),
        kinds_disagree: other_verdicts.iter().any(|v| v.disagrees),
        other_verdicts,
        verdict,
        unconstrained_verdict,
        agreement: agreements,
        gold_verdict,
        gold_outside_bands: placed
            .place
            .iter()
            .filter(|p| !matches!(p, GoldPlace::Band(_)))
            .count(),
        bands,
        embedder: scored.embedder,
        chunk_tokens: scored.chunk_tokens,
        budget: scored.budget,
        settings_scored: scored.rows.iter().map(|r| r.members.len().max(1)).sum(),
        strategies: scored.strategies,
        options: MapOptions {
            kinds,
            ..options.clone()
        },
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// Each other kind's verdict over the drawn bands, and whether its band leaders differ from
/// the map's kind's (`kinds[0]`).
fn other_verdicts(bands: &[MapBand], kinds: &[QuestionKind]) -> Vec<KindVerdict> {
    let map_kind = kinds[0];
    let leaders = |k: QuestionKind| -> Vec<Option<Family>> {
        bands
            .iter()
            .map(|b| {
                b.of_kind(k, map_kind)
                    .and_then(leader)
                    .map(|(r, _)| r.family)
            })
            .collect()
    };
    kinds[1..]
        .iter()
        .map(|&k| KindVerdict {
            kind: k,
            verdict: sentence(bands, |b| b.of_kind(k, map_kind)),
            disagrees: leaders(k) != leaders(map_kind),
        })
        .collect()
}

/// How the map's kind was checked: against this gold set (its agreement and the best kind's
/// name) when there is one, else the general note on the kinds.
fn kind_checked(agreements: &[KindAgreement], map_kind: QuestionKind) -> String {
    match agreements.iter().find(|a| a.kind == map_kind) {
        Some(a) => format!(
            "checked against this gold set: {}; best agreement: {}",
            a.words(),
            agreements.first().map_or("-", |b| b.kind.name())
        ),
        None => kinds::CHECKED_AGAINST_GOLD.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::bootstrap::Contender;
    use crate::chunk::fixed::FixedTokens;
    use crate::corpus::Corpus;
    use crate::layout::Layout;
    use crate::tokens::TokenOffsets;
    use draw::band_passages;

    const KINDS: [QuestionKind; 3] = OFFLINE_KINDS;

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
            let drawn = band_passages(&corpus, &lay, band, 30, 1, &KINDS, None);
            assert!(!drawn.passages.is_empty(), "{band:?}");
            assert!(drawn.passages.len() <= 30);
            for p in &drawn.passages {
                let t = p.tokens;
                assert!(
                    (band.0..band.1).contains(&t),
                    "{band:?}: a {t}-token passage"
                );
                // One question per kind, all about the same passage.
                assert_eq!(p.questions.len(), KINDS.len());
                assert!(p.questions.iter().all(|q| q.spans == p.questions[0].spans));
                let w = &p.questions[0];
                assert!(w.id.starts_with(&format!("map-{}-{}-", band.0, band.1)));
            }
        }
        for band in [(200, 400), (400, 800), (5000, 9000)] {
            let drawn = band_passages(&corpus, &lay, band, 30, 1, &KINDS, None);
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
            let drawn = band_passages(&tiny, &lay, band, 30, 1, &KINDS, None);
            assert!(drawn.passages.is_empty());
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
                duplicate_share: 0.0,
                stores_once: true,
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
            gold_only: false,
            questions,
            draws: 120,
            shorter: if questions == 0 { 120 } else { 0 },
            longest_shorter: 150,
            longer: 0,
            repeats: 0,
            short_because: None,
            split_questions: 0,
            mean_evidence_tokens: 0.0,
            result,
            unconstrained: None,
            kinds: Vec::new(),
            gold: None,
            gold_questions: 0,
            gold_split: 0,
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
        let s = sentence(&bands, |b| Some(&b.result));
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
        let s = sentence(&gap, |b| Some(&b.result));
        assert!(s.contains("~50–100 tokens; Seams k 8 m 2"), "{s}");
        // A band whose verdict concludes nothing says so instead of naming a leader.
        let flat = [band(50, 100, None, 10), band(100, 200, seams, 30)];
        let s = sentence(&flat, |b| Some(&b.result));
        assert!(s.contains("50–100 tokens: nothing can be concluded"), "{s}");
        assert!(
            s.starts_with("Seams k 8 m 2 leads (not beyond noise) for evidence of ~100–200"),
            "{s}"
        );
        // No band measured: no verdict.
        let none = [band(50, 100, None, 0), band(100, 200, None, 0)];
        let s = sentence(&none, |b| Some(&b.result));
        assert!(
            s.starts_with("no verdict: no band had passages of its length"),
            "{s}"
        );
        assert!(bands[2].why_empty().is_some() && bands[0].why_empty().is_none());
    }
}
