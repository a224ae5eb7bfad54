//! The steps of [`super::evidence_map`] between drawing and summing up: every band's passages
//! asked as every kind, the gold questions placed on the bands, and the scored board read back
//! per band (the drawn bands, the gold-only bands below and above them, and each kind's
//! agreement with the gold set).

use super::super::Board;
use super::agreement::{self, KindAgreement};
use super::band::{band_result, explain_all_failing};
use super::draw::{BandDraw, band_passages, split_by_cut};
use super::kinds::{DEFAULT_KIND, QuestionKind};
use super::words::GoldPlace;
use super::{BandResult, KindResult, MapBand, MapOptions};
use crate::calibrate::QuestionGenerator;
use crate::eval::questions::Question;
use crate::session::OpenCorpus;

/// The kinds the map asks, in order, once each: the language model's kind only with a
/// generator, and the default kind when none is left.
pub(super) fn asked_kinds(wanted: &[QuestionKind], has_generator: bool) -> Vec<QuestionKind> {
    let mut kinds: Vec<QuestionKind> = Vec::new();
    for &k in wanted {
        if !kinds.contains(&k) && (k != QuestionKind::Llm || has_generator) {
            kinds.push(k);
        }
    }
    if kinds.is_empty() {
        kinds.push(DEFAULT_KIND);
    }
    kinds
}

/// Every band's passages, flattened: passage `i` (of `n`) asked as kind `k` is the board's
/// question `k * n + i`.
pub(super) struct DrawnPassages {
    /// Per passage: the band it was drawn for.
    pub band_of: Vec<usize>,
    /// Per passage: a cut of the layout falls inside it.
    pub split: Vec<bool>,
    /// Per passage: its length in tokens.
    pub lengths: Vec<usize>,
    /// Per band: its draw, without its passages (kept for what was left out).
    pub draws: Vec<BandDraw>,
}

impl DrawnPassages {
    /// Draws `options.per_band` passages for each of `options.bands` and asks each as every kind
    /// of `kinds`; with the passages, their questions kind by kind (each kind's in passage
    /// order).
    pub fn draw(
        open: &OpenCorpus,
        options: &MapOptions,
        kinds: &[QuestionKind],
        mut generator: Option<&mut (dyn QuestionGenerator + '_)>,
    ) -> (Self, Vec<Question>) {
        let mut by_kind: Vec<Vec<Question>> = vec![Vec::new(); kinds.len()];
        let (mut band_of, mut split, mut lengths) = (Vec::new(), Vec::new(), Vec::new());
        let mut draws: Vec<BandDraw> = Vec::new();
        for &band in &options.bands {
            let mut drawn = band_passages(
                &open.corpus,
                &open.layout,
                band,
                options.per_band,
                options.seed,
                kinds,
                generator.as_deref_mut(),
            );
            for p in std::mem::take(&mut drawn.passages) {
                for (k, q) in p.questions.into_iter().enumerate() {
                    by_kind[k].push(q);
                }
                band_of.push(draws.len());
                split.push(p.split);
                lengths.push(p.tokens);
            }
            // Keep the count of passages the band got, for `why_short`.
            drawn.passages = Vec::new();
            draws.push(drawn);
        }
        let drawn = DrawnPassages {
            band_of,
            split,
            lengths,
            draws,
        };
        (drawn, by_kind.into_iter().flatten().collect())
    }

    /// The number of passages drawn over all bands.
    pub fn len(&self) -> usize {
        self.split.len()
    }

    /// The passages drawn for band `b`.
    fn in_band(&self, b: usize) -> Vec<usize> {
        (0..self.len()).filter(|&i| self.band_of[i] == b).collect()
    }
}

/// Where each gold question's evidence falls on the map's bands.
pub(super) struct GoldPlacement {
    /// Per gold question: its evidence's length in tokens.
    pub tokens: Vec<usize>,
    /// Per gold question: the band of that length, or below, above or between them.
    pub place: Vec<GoldPlace>,
    /// Per gold question: a cut of the layout falls inside one of its spans.
    pub is_split: Vec<bool>,
}

impl GoldPlacement {
    /// Measures `gold`'s evidence on the layout and places it on `bands`.
    pub fn of(open: &OpenCorpus, bands: &[(usize, usize)], gold: &[Question]) -> Self {
        let (first, last) = outer_edges(bands);
        let tokens: Vec<usize> = gold
            .iter()
            .map(|q| {
                let offs = &open.layout.offsets[q.doc.0 as usize];
                q.spans.iter().map(|s| offs.count_in(s.start, s.end)).sum()
            })
            .collect();
        let place = tokens
            .iter()
            .map(
                |&t| match bands.iter().position(|&(lo, hi)| t >= lo && t < hi) {
                    Some(b) => GoldPlace::Band(b),
                    None if t < first => GoldPlace::Below,
                    None if t >= last => GoldPlace::Above,
                    None => GoldPlace::Gap,
                },
            )
            .collect();
        let is_split = gold
            .iter()
            .map(|q| {
                q.spans
                    .iter()
                    .any(|s| split_by_cut(&open.layout, q.doc, *s))
            })
            .collect();
        GoldPlacement {
            tokens,
            place,
            is_split,
        }
    }

    /// The number of gold questions.
    fn len(&self) -> usize {
        self.place.len()
    }
}

/// The shortest band's lower end and the longest band's upper end (0 without bands).
pub(super) fn outer_edges(bands: &[(usize, usize)]) -> (usize, usize) {
    (
        bands.first().map_or(0, |b| b.0),
        bands.last().map_or(0, |b| b.1),
    )
}

/// The scored board read back per band: which of its questions are which passage or gold
/// question, and how many resamples each band's verdict draws.
pub(super) struct BandScoring<'a> {
    /// The board scored on the drawn passages (every kind) and then the gold questions.
    pub scored: &'a Board,
    /// The drawn passages.
    pub drawn: &'a DrawnPassages,
    /// The gold questions' places.
    pub gold: &'a GoldPlacement,
    /// The kinds asked, the map's own first.
    pub kinds: &'a [QuestionKind],
    /// Resamples per band verdict.
    pub resamples: usize,
}

impl BandScoring<'_> {
    /// The board's index of gold question `g` (after every kind's passages).
    fn gold_index(&self, g: usize) -> usize {
        self.kinds.len() * self.drawn.len() + g
    }

    /// Some board row is kept out by the constraints, so an unconstrained verdict says more.
    pub fn any_excluded(&self) -> bool {
        self.scored.rows.iter().any(|r| r.excluded.is_some())
    }

    /// The gold questions at `place`: their band result (none without any), how many there
    /// are and how many of them a cut splits.
    fn gold_result(&self, place: GoldPlace, seed: u64) -> (Option<BandResult>, usize, usize) {
        let at: Vec<usize> = (0..self.gold.len())
            .filter(|&g| self.gold.place[g] == place)
            .collect();
        let idx: Vec<usize> = at.iter().map(|&g| self.gold_index(g)).collect();
        let sp: Vec<bool> = at.iter().map(|&g| self.gold.is_split[g]).collect();
        let result = (!idx.is_empty())
            .then(|| band_result(self.scored, &idx, &sp, (self.resamples, seed), false));
        (result, idx.len(), sp.iter().filter(|s| **s).count())
    }

    /// One band per drawn band: its passages' results for every kind, and its gold questions'.
    pub fn drawn_bands(&self, options: &MapOptions) -> Vec<MapBand> {
        let n = self.drawn.len();
        let any_excluded = self.any_excluded();
        let mut bands = Vec::new();
        for (b, &(lo, hi)) in options.bands.iter().enumerate() {
            let at = self.drawn.in_band(b);
            let band_split: Vec<bool> = at.iter().map(|&i| self.drawn.split[i]).collect();
            let seed = options.board.seed ^ b as u64;
            let mean_evidence_tokens = at
                .iter()
                .map(|&i| self.drawn.lengths[i] as f64)
                .sum::<f64>()
                / at.len().max(1) as f64;
            let of_kind = |k: usize, every: bool| {
                let idx: Vec<usize> = at.iter().map(|&i| k * n + i).collect();
                let mut result = band_result(
                    self.scored,
                    &idx,
                    &band_split,
                    (self.resamples, seed),
                    every,
                );
                explain_all_failing(&mut result, mean_evidence_tokens);
                result
            };
            let (gold_band, gold_questions, gold_split) =
                self.gold_result(GoldPlace::Band(b), seed);
            let d = &self.drawn.draws[b];
            bands.push(MapBand {
                min_tokens: lo,
                max_tokens: hi,
                gold_only: false,
                questions: at.len(),
                draws: d.draws,
                shorter: d.shorter,
                longest_shorter: d.longest_shorter,
                longer: d.longer,
                repeats: d.repeats,
                short_because: d.why_short(options.per_band, at.len()),
                split_questions: band_split.iter().filter(|s| **s).count(),
                mean_evidence_tokens,
                result: of_kind(0, false),
                unconstrained: any_excluded.then(|| of_kind(0, true)),
                kinds: (1..self.kinds.len())
                    .map(|k| KindResult {
                        kind: self.kinds[k],
                        result: of_kind(k, false),
                    })
                    .collect(),
                gold: gold_band,
                gold_questions,
                gold_split,
            });
        }
        bands
    }

    /// Gold evidence outside the map's bands gets a band of its own: one below the first band
    /// (from 1 token) and one above the last (up to the longest gold evidence), each only when
    /// some gold question falls there.
    pub fn add_outside_bands(&self, bands: &mut Vec<MapBand>, options: &MapOptions) {
        let (first, last) = outer_edges(&options.bands);
        let seed = options.board.seed ^ 0xB0;
        let longest_gold = self.gold.tokens.iter().copied().max().unwrap_or(0);
        if let Some(below) = self.outside_band(GoldPlace::Below, (1, first.max(2)), seed) {
            bands.insert(0, below);
        }
        let above = (last, longest_gold.max(last) + 1);
        if let Some(above) = self.outside_band(GoldPlace::Above, above, seed) {
            bands.push(above);
        }
    }

    /// The gold-only band from `lo` to `hi` holding the gold questions at `place`, when any.
    fn outside_band(
        &self,
        place: GoldPlace,
        (lo, hi): (usize, usize),
        seed: u64,
    ) -> Option<MapBand> {
        let (gold_band, gold_questions, gold_split) = self.gold_result(place, seed);
        (gold_questions > 0).then(|| MapBand {
            min_tokens: lo,
            max_tokens: hi,
            gold_only: true,
            questions: 0,
            draws: 0,
            shorter: 0,
            longest_shorter: 0,
            longer: 0,
            repeats: 0,
            short_because: None,
            split_questions: 0,
            mean_evidence_tokens: 0.0,
            result: band_result(self.scored, &[], &[], (0, seed), false),
            unconstrained: None,
            kinds: Vec::new(),
            gold: gold_band,
            gold_questions,
            gold_split,
        })
    }

    /// Each kind's agreement with the gold set on the split questions, best first (none
    /// without gold questions).
    pub fn agreements(&self, bands: usize) -> Vec<KindAgreement> {
        if self.gold.len() == 0 {
            return Vec::new();
        }
        let n = self.drawn.len();
        let gold_split: Vec<(Option<usize>, bool, usize)> = (0..self.gold.len())
            .filter(|&g| self.gold.is_split[g])
            .map(|g| match self.gold.place[g] {
                GoldPlace::Band(b) => (Some(b), false, self.gold_index(g)),
                place => (None, place == GoldPlace::Below, self.gold_index(g)),
            })
            .collect();
        let mut agreements: Vec<KindAgreement> = Vec::new();
        for (k, &kind) in self.kinds.iter().enumerate() {
            let placed: Vec<agreement::Placed> = (0..n)
                .filter(|&i| self.drawn.split[i])
                .map(|i| (Some(self.drawn.band_of[i]), k * n + i))
                .collect();
            agreements.push(agreement::agreement(
                self.scored,
                kind,
                bands,
                &placed,
                &gold_split,
            ));
        }
        agreements.sort_by(|a, b| {
            let (sa, sb) = (a.score(), b.score());
            sb.0.total_cmp(&sa.0).then(sb.1.total_cmp(&sa.1))
        });
        agreements
    }
}
