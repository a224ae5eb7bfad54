//! Advice that names the alternative: when calibration speaks well of Seams (it fails fewer
//! questions than chunks only), does a strategy without Seams do as well on the same questions,
//! and at what cost?
//!
//! The quick board's non-Seams families (overlap, windows, neighbours ±1, SCAR; chunks only as
//! the baseline) are scored on the questions the calibration scored ([`crate::board`] runs them);
//! this module only compares. Each family is held to the gate that let the report say Seams helps
//! against chunks only, both ways:
//!
//! - **better**: the family's best row fails fewer questions than Seams at its recommended margin,
//!   an exact sign test over the questions on which the two disagree gives p < 0.05, *and* in the
//!   paired bootstrap with tuning inside every resample (Seams over its margins, the family over
//!   its settings, each judged on the questions its resample left out) the family wins at least
//!   90% of the resamples;
//! - **worse**: the same with the roles swapped (Seams beats it beyond noise);
//! - **as well**: neither: the difference is noise on these questions.
//!
//! The sign test alone would compare two rows each picked as the best of its family on all the
//! questions; the bootstrap prices that selection in, so a family with eighteen settings (SCAR)
//! cannot look as good as Seams by having more tries. The alternative named is the best of the
//! families that do better, else of those that do as well (fewest failures, then fewest vectors,
//! then fewest tokens); with none, the closest one is named with how far behind it is.

use serde::{Deserialize, Serialize};

use super::bootstrap::{self, Candidate};
use super::objective::PairedDiff;

/// The command that shows the whole board.
pub const SEE_BOARD: &str = "seamscope tune --strategies all";

/// The rule behind the alternative line, in words.
pub const ALTERNATIVE_RULE: &str = "each non-Seams family of the quick board (overlap 10/15/20/25%, windows 256/128 and 128/64, neighbours ±1, SCAR) is scored on the same questions at the same budget; it does better (or worse) than Seams when its best row fails fewer (more) questions, an exact sign test gives p < 0.05, and its family (or Seams) wins at least 90% of paired bootstrap resamples with each family tuned inside every resample; otherwise it does as well";

/// One setting of a non-Seams family, as the comparison reads it.
#[derive(Debug, Clone)]
pub struct AltRow<'a> {
    /// Its label, e.g. `overlap 25%`.
    pub label: &'a str,
    /// Its family, e.g. `overlap` (rows of one family are tuned against each other).
    pub family: &'a str,
    /// Per question (the calibration's order): whether the context missed part of the evidence.
    pub failed: &'a [bool],
    /// Mean tokens sent per question.
    pub mean_tokens: f64,
    /// Vectors stored, relative to the chunks alone.
    pub vectors_vs_chunks: f64,
    /// Share of the tokens sent that were sent more than once.
    pub duplicate_share: f64,
    /// Whether each passage is stored once.
    pub stores_once: bool,
}

/// Seams' side: every scored margin, and which one the calibration recommends.
#[derive(Debug, Clone)]
pub struct SeamsSide<'a> {
    /// One row per candidate margin (family `seams`).
    pub margins: Vec<AltRow<'a>>,
    /// Index into `margins` of the recommended margin.
    pub best: usize,
}

/// How a family stands against Seams, under the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// It fails fewer questions than Seams, beyond noise.
    Better,
    /// The difference from Seams is noise.
    AsWell,
    /// Seams fails fewer questions, beyond noise.
    Worse,
}

/// One non-Seams family at its best row, against Seams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FamilyStanding {
    /// The family.
    pub family: String,
    /// Its best row on all the questions (fewest failures, then fewest tokens).
    pub label: String,
    /// Questions that row fails.
    pub failures: usize,
    /// `failures / questions`.
    pub failure_rate: f64,
    /// Mean tokens sent per question.
    pub mean_tokens: f64,
    /// Vectors stored, relative to the chunks alone.
    pub vectors_vs_chunks: f64,
    /// Share of the tokens sent that were sent more than once.
    pub duplicate_share: f64,
    /// Whether each passage is stored once.
    pub stores_once: bool,
    /// The row against Seams at its recommended margin (`gained`: questions this row answers
    /// and Seams misses).
    pub vs_seams: PairedDiff,
    /// Share of the bootstrap resamples (each side tuned inside) that this family won.
    pub p_better: f64,
    /// Share that Seams won.
    pub p_seams: f64,
    /// Where it stands under the gate.
    pub standing: Standing,
}

/// What the quick board's other strategies say beside the verdict on Seams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alternatives {
    /// Questions compared (the calibration's).
    pub questions: usize,
    /// Seams' row: the recommended margin.
    pub seams_label: String,
    /// Questions Seams fails at that margin.
    pub seams_failures: usize,
    /// Its failure rate.
    pub seams_failure_rate: f64,
    /// Seams' vectors (chunks and seams) relative to the chunks alone.
    pub seams_vectors_vs_chunks: f64,
    /// Each non-Seams family at its best row, in board order.
    pub families: Vec<FamilyStanding>,
    /// The family named in the sentence: the best that does better, else the best that does as
    /// well, else none.
    pub named: Option<String>,
    /// Questions the board's chunks-only row fails (the calibration's "Seams off" is the same
    /// retrieval; a difference would be shown).
    pub chunks_only_failures: usize,
    /// Seconds the comparison took (preparing, searching and scoring the families, and the
    /// resampling).
    pub seconds: f64,
    /// Texts embedded for it (the rest came from the vector cache).
    pub embedded_texts: usize,
    /// The line the report prints.
    pub sentence: String,
    /// The rule, in words.
    pub rule: String,
}

/// Cost and evidence of a family's row, for [`Alternatives`].
pub struct Measured {
    /// Questions the board's chunks-only row fails.
    pub chunks_only_failures: usize,
    /// Seams' vectors relative to the chunks alone.
    pub seams_vectors_vs_chunks: f64,
    /// Seconds the board took.
    pub seconds: f64,
    /// Texts embedded for it.
    pub embedded_texts: usize,
}

fn failures(failed: &[bool]) -> usize {
    failed.iter().filter(|f| **f).count()
}

/// The row of `rows` with the fewest failures, then the fewest tokens.
fn best_of<'r, 'a>(rows: &[&'r AltRow<'a>]) -> Option<&'r AltRow<'a>> {
    rows.iter()
        .min_by(|a, b| {
            failures(a.failed)
                .cmp(&failures(b.failed))
                .then(a.mean_tokens.total_cmp(&b.mean_tokens))
        })
        .copied()
}

/// One family against Seams, under the gate ([`bootstrap::verdict`] with `resamples` from `seed`).
pub fn standing(
    seams: &SeamsSide<'_>,
    family: &[&AltRow<'_>],
    resamples: usize,
    seed: u64,
) -> Option<FamilyStanding> {
    let best = best_of(family)?;
    let s = seams.margins.get(seams.best)?;
    let answered = |f: &[bool]| f.iter().map(|x| !x).collect::<Vec<bool>>();
    let vs_seams = PairedDiff::of(&answered(best.failed), &answered(s.failed));
    let candidates: Vec<Candidate<'_>> = seams
        .margins
        .iter()
        .chain(family.iter().copied())
        .map(|r| Candidate {
            label: r.label,
            family: r.family,
            failed: r.failed,
            mean_tokens: r.mean_tokens,
        })
        .collect();
    let v = bootstrap::verdict(&candidates, resamples, seed);
    let share = |name: &str| {
        v.contenders
            .iter()
            .find(|c| c.family == name)
            .map_or(0.0, |c| c.p_best)
    };
    let (p_better, p_seams) = (share(best.family), share(s.family));
    let (mine, theirs) = (failures(best.failed), failures(s.failed));
    let beyond = |fewer: bool, p: f64| fewer && !vs_seams.noise && p >= v.win_share;
    let standing = if beyond(mine < theirs, p_better) {
        Standing::Better
    } else if beyond(theirs < mine, p_seams) {
        Standing::Worse
    } else {
        Standing::AsWell
    };
    Some(FamilyStanding {
        family: best.family.to_string(),
        label: best.label.to_string(),
        failures: mine,
        failure_rate: mine as f64 / best.failed.len().max(1) as f64,
        mean_tokens: best.mean_tokens,
        vectors_vs_chunks: best.vectors_vs_chunks,
        duplicate_share: best.duplicate_share,
        stores_once: best.stores_once,
        vs_seams,
        p_better,
        p_seams,
        standing,
    })
}

/// Compare every non-Seams family of `rows` (board order kept; rows of family `none`, the
/// baseline, are left out) with Seams, name the alternative and write the sentence.
pub fn compare(
    seams: &SeamsSide<'_>,
    rows: &[AltRow<'_>],
    measured: Measured,
    resamples: usize,
) -> Option<Alternatives> {
    let s = seams.margins.get(seams.best)?;
    let mut order: Vec<&str> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.family != "none" && r.family != "seams")
    {
        if !order.contains(&r.family) {
            order.push(r.family);
        }
    }
    let families: Vec<FamilyStanding> = order
        .iter()
        .filter_map(|name| {
            let mine: Vec<&AltRow<'_>> = rows.iter().filter(|r| r.family == *name).collect();
            standing(seams, &mine, resamples, 0)
        })
        .collect();
    let named = pick(&families).map(|f| f.family.clone());
    let seams_failures = failures(s.failed);
    let mut out = Alternatives {
        questions: s.failed.len(),
        seams_label: s.label.to_string(),
        seams_failures,
        seams_failure_rate: seams_failures as f64 / s.failed.len().max(1) as f64,
        seams_vectors_vs_chunks: measured.seams_vectors_vs_chunks,
        families,
        named,
        chunks_only_failures: measured.chunks_only_failures,
        seconds: measured.seconds,
        embedded_texts: measured.embedded_texts,
        sentence: String::new(),
        rule: ALTERNATIVE_RULE.to_string(),
    };
    out.sentence = out.words();
    Some(out)
}

/// The family to name: the best that does better, else the best that does as well (fewest
/// failures, then fewest vectors, then fewest tokens).
fn pick(families: &[FamilyStanding]) -> Option<&FamilyStanding> {
    let best_with = |standing: Standing| {
        families
            .iter()
            .filter(|f| f.standing == standing)
            .min_by(|a, b| {
                a.failures
                    .cmp(&b.failures)
                    .then(a.vectors_vs_chunks.total_cmp(&b.vectors_vs_chunks))
                    .then(a.mean_tokens.total_cmp(&b.mean_tokens))
            })
    };
    best_with(Standing::Better).or_else(|| best_with(Standing::AsWell))
}

/// What a row costs, in words: `1.32× the vectors (Seams 1.98×) and 11% duplicated tokens`.
pub fn cost_words(f: &FamilyStanding, seams_vectors: f64) -> String {
    let dup = if f.duplicate_share > 0.0005 {
        format!("{:.0}% duplicated tokens", f.duplicate_share * 100.0)
    } else {
        "no duplicated tokens".to_string()
    };
    format!(
        "{:.2}× the vectors (Seams {seams_vectors:.2}×) and {dup}",
        f.vectors_vs_chunks
    )
}

impl Alternatives {
    /// The family named, when one is.
    pub fn named_family(&self) -> Option<&FamilyStanding> {
        let name = self.named.as_deref()?;
        self.families.iter().find(|f| f.family == name)
    }

    /// The evidence for one family: `it fails 9.2% against Seams' 16.2% at m = 1 (14 gained, 5
    /// lost, sign test p = 0.064; resampled with each side tuned inside, it wins 88% and Seams
    /// 12%; beyond noise needs p < 0.05 and 90%)`.
    fn evidence(&self, f: &FamilyStanding) -> String {
        format!(
            "it fails {:.1}% against Seams' {:.1}% at {} ({} gained, {} lost, sign test {}; \
             resampled with each side tuned inside, it wins {:.0}% and Seams {:.0}%; \
             beyond noise needs p < 0.05 and 90%)",
            f.failure_rate * 100.0,
            self.seams_failure_rate * 100.0,
            self.seams_label,
            f.vs_seams.gained,
            f.vs_seams.lost,
            if f.vs_seams.p < 0.001 {
                "p < 0.001".to_string()
            } else {
                format!("p = {:.3}", f.vs_seams.p)
            },
            f.p_better * 100.0,
            f.p_seams * 100.0
        )
    }

    /// How the named family stands, in words.
    fn verdict_words(&self, f: &FamilyStanding) -> &'static str {
        match f.standing {
            Standing::Better => "does better than Seams beyond noise",
            _ if f.failures < self.seams_failures => {
                "does as well as Seams (fewer failures, not beyond noise)"
            }
            _ if f.failures > self.seams_failures => {
                "does as well as Seams (more failures, within noise)"
            }
            _ => "does as well as Seams",
        }
    }

    /// The other families that do better or as well, in words (`; windows 256/128 and SCAR …
    /// do as well too`), or nothing.
    fn others(&self) -> String {
        let of = |standing: Standing| -> Vec<&str> {
            self.families
                .iter()
                .filter(|f| f.standing == standing && Some(&f.family) != self.named.as_ref())
                .map(|f| f.label.as_str())
                .collect()
        };
        let list = |names: Vec<&str>| match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let (better, as_well) = (of(Standing::Better), of(Standing::AsWell));
        let mut out = String::new();
        if !better.is_empty() {
            out.push_str(&format!("; also better beyond noise: {}", list(better)));
        }
        if !as_well.is_empty() {
            out.push_str(&format!("; as well too: {}", list(as_well)));
        }
        out
    }

    /// The line the report prints, with the evidence behind it.
    pub fn words(&self) -> String {
        self.line(true)
    }

    /// The line without the evidence (the screen shows it beside the curve).
    pub fn short(&self) -> String {
        self.line(false)
    }

    fn line(&self, evidence: bool) -> String {
        let head = format!(
            "Other strategies on the same {} questions: ",
            self.questions
        );
        let why = |f: &FamilyStanding| {
            if evidence {
                format!("; {}", self.evidence(f))
            } else {
                String::new()
            }
        };
        let body = match self.named_family() {
            Some(f) => format!(
                "{} {} at {}{}{}",
                f.label,
                self.verdict_words(f),
                cost_words(f, self.seams_vectors_vs_chunks),
                why(f),
                self.others()
            ),
            None => match self.families.iter().min_by_key(|f| f.failures) {
                Some(f) => format!(
                    "no non-Seams strategy of the quick board does as well as Seams; the best is \
                     {} (fails {:.1}% against Seams' {:.1}%) at {}{}",
                    f.label,
                    f.failure_rate * 100.0,
                    self.seams_failure_rate * 100.0,
                    cost_words(f, self.seams_vectors_vs_chunks),
                    why(f)
                ),
                None => "no non-Seams strategy of the quick board was scored".to_string(),
            },
        };
        format!("{head}{body}: see `{SEE_BOARD}`.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails(n: usize, which: std::ops::Range<usize>) -> Vec<bool> {
        (0..n).map(|i| which.contains(&i)).collect()
    }

    fn row<'a>(label: &'a str, family: &'a str, failed: &'a [bool], vectors: f64) -> AltRow<'a> {
        AltRow {
            label,
            family,
            failed,
            mean_tokens: 1000.0,
            vectors_vs_chunks: vectors,
            duplicate_share: if family == "overlap" { 0.111 } else { 0.0 },
            stores_once: family != "overlap",
        }
    }

    fn measured() -> Measured {
        Measured {
            chunks_only_failures: 40,
            seams_vectors_vs_chunks: 1.98,
            seconds: 1.0,
            embedded_texts: 0,
        }
    }

    #[test]
    fn a_family_as_good_as_seams_is_named_with_its_cost() {
        let n = 200;
        // Seams fails 10 at its best margin, 40 at the other; overlap 25% fails the same 10
        // questions but one, overlap 10% 35; windows fail 38: Seams beats them beyond noise.
        let (s0, s1) = (fails(n, 0..10), fails(n, 0..40));
        let (o25, o10, w) = (fails(n, 1..10), fails(n, 0..35), fails(n, 2..40));
        let seams = SeamsSide {
            margins: vec![
                row("m = 0", "seams", &s0, 1.98),
                row("m = 1", "seams", &s1, 1.98),
            ],
            best: 0,
        };
        let rows = [
            row("overlap 10%", "overlap", &o10, 1.1),
            row("overlap 25%", "overlap", &o25, 1.32),
            row("windows 256/128", "windows", &w, 8.4),
        ];
        let a = compare(&seams, &rows, measured(), 2000).unwrap();
        let by = |f: &str| a.families.iter().find(|x| x.family == f).unwrap();
        assert_eq!(by("overlap").label, "overlap 25%", "the family's best row");
        assert_eq!(by("overlap").standing, Standing::AsWell, "{a:?}");
        assert_eq!(by("windows").standing, Standing::Worse, "{a:?}");
        assert_eq!(a.named.as_deref(), Some("overlap"));
        let s = &a.sentence;
        assert!(
            s.contains("Other strategies on the same 200 questions: overlap 25% does as well as Seams (fewer failures, not beyond noise) at 1.32× the vectors"),
            "{s}"
        );
        assert!(
            s.contains("1.32× the vectors (Seams 1.98×) and 11% duplicated tokens"),
            "{s}"
        );
        assert!(
            s.contains("it fails 4.5% against Seams' 5.0% at m = 0"),
            "{s}"
        );
        assert!(s.ends_with("see `seamscope tune --strategies all`."), "{s}");
        assert!(!s.contains("windows"), "a worse family is not offered: {s}");
        let short = a.short();
        assert!(
            short.contains("overlap 25% does as well as Seams (fewer failures, not beyond noise) at 1.32× the vectors")
                && !short.contains("sign test"),
            "the screen's line keeps the cost and drops the evidence: {short}"
        );
    }

    #[test]
    fn a_family_better_beyond_noise_is_named_before_one_that_only_ties() {
        let n = 200;
        let s = fails(n, 0..40);
        let (w, o) = (fails(n, 0..5), fails(n, 0..38));
        let seams = SeamsSide {
            margins: vec![row("m = 3", "seams", &s, 1.98)],
            best: 0,
        };
        let rows = [
            row("overlap 15%", "overlap", &o, 1.2),
            row("windows 128/64", "windows", &w, 16.8),
        ];
        let a = compare(&seams, &rows, measured(), 2000).unwrap();
        assert_eq!(a.named.as_deref(), Some("windows"), "{a:?}");
        let f = a.named_family().unwrap();
        assert_eq!(f.standing, Standing::Better);
        assert!(f.p_better >= 0.9 && f.vs_seams.p < 0.05, "{f:?}");
        assert!(
            a.sentence.contains(
                "windows 128/64 does better than Seams beyond noise at 16.80× the vectors \
                 (Seams 1.98×) and no duplicated tokens"
            ),
            "{}",
            a.sentence
        );
        assert!(a.sentence.contains("sign test p < 0.001"), "{}", a.sentence);
        assert!(
            a.sentence.contains("; as well too: overlap 15%"),
            "{}",
            a.sentence
        );
    }

    #[test]
    fn fewer_failures_within_noise_is_as_well_not_better() {
        // One question apart: fewer failures, but neither the sign test nor the resamples can
        // tell them apart.
        let n = 130;
        let (s, o) = (fails(n, 0..14), fails(n, 0..13));
        let seams = SeamsSide {
            margins: vec![row("m = 1", "seams", &s, 1.98)],
            best: 0,
        };
        let rows = [row("overlap 20%", "overlap", &o, 1.2)];
        let a = compare(&seams, &rows, measured(), 2000).unwrap();
        assert_eq!(a.families[0].standing, Standing::AsWell, "{a:?}");
        assert!(
            a.sentence
                .contains("does as well as Seams (fewer failures, not beyond noise)"),
            "{}",
            a.sentence
        );
    }

    #[test]
    fn with_none_as_good_the_closest_is_named_with_how_far_behind() {
        let n = 200;
        let s = fails(n, 0..5);
        let (nb, scar1, scar2) = (fails(n, 0..40), fails(n, 0..30), fails(n, 0..45));
        let seams = SeamsSide {
            margins: vec![row("m = 2", "seams", &s, 1.98)],
            best: 0,
        };
        let rows = [
            row("chunks only", "none", &nb, 1.0),
            row("neighbours ±1", "neighbour", &nb, 1.0),
            row("SCAR τ 0.50 λ 0.00", "scar", &scar1, 1.0),
            row("SCAR τ 0.90 λ 0.00", "scar", &scar2, 1.0),
        ];
        let a = compare(&seams, &rows, measured(), 2000).unwrap();
        assert_eq!(a.named, None, "{a:?}");
        assert_eq!(
            a.families.len(),
            2,
            "chunks only is the baseline, not a family"
        );
        assert!(a.families.iter().all(|f| f.standing == Standing::Worse));
        assert!(
            a.sentence.starts_with(
                "Other strategies on the same 200 questions: no non-Seams strategy of the quick \
                 board does as well as Seams; the best is SCAR τ 0.50 λ 0.00 (fails 15.0% against \
                 Seams' 2.5%) at 1.00× the vectors (Seams 1.98×) and no duplicated tokens; it \
                 fails 15.0% against Seams' 2.5% at m = 2"
            ),
            "{}",
            a.sentence
        );
    }
}
