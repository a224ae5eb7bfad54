//! A winner only beyond noise: a paired bootstrap over the questions, with each family's tuning
//! done inside every resample. Used by the strategy board ([`crate::board`]), its map, and
//! calibration's verdict on whether Seams helps (Seams tuned over `m` against Seams off).
//!
//! Picking the best of many rows is a selection, not a test: the top of many noisy rows is biased
//! upward, and a family with 186 settings would "win" by having more tries. So each resample
//! draws the questions with replacement (every row's outcome on a question travels with it), each
//! family picks its best setting on the drawn questions (in-bag), and that setting is scored on
//! the questions the draw left out (out-of-bag): a family is judged by how its *tuned* choice
//! does on questions it was not tuned on. The family with the fewest out-of-bag failures wins
//! the resample (ties split). A winner is named only when one family wins at least
//! [`WIN_SHARE`] of the resamples; otherwise the verdict is a tie among every family with a
//! real share, with a rough count of the questions that would settle it.

use serde::{Deserialize, Serialize};

/// Share of resamples a family must win to be named the winner.
pub const WIN_SHARE: f64 = 0.9;
/// Default number of resamples.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// A family below this share of wins is not listed among the contenders.
pub const CONTENDER_SHARE: f64 = 0.05;

/// One scored setting: which family it belongs to and which questions it failed.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    /// Its label.
    pub label: &'a str,
    /// Its family (rows of one family are tuned against each other).
    pub family: &'a str,
    /// Per question: whether the context missed part of the evidence.
    pub failed: &'a [bool],
    /// Mean tokens sent (breaks ties between settings of one family: the cheaper one is chosen).
    pub mean_tokens: f64,
}

/// One family's standing in the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contender {
    /// The family's best row on all the questions.
    pub label: String,
    /// The family.
    pub family: String,
    /// Share of resamples its tuned choice won (ties split).
    pub p_best: f64,
    /// Roughly how many questions of this kind in all would separate it from the leader at 90%
    /// confidence (`None` for the leader itself, or when the two fail on exactly the same
    /// questions).
    pub questions_needed: Option<usize>,
}

/// What the resampling says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The winning family's best row, when one family won at least [`WIN_SHARE`] of resamples.
    pub winner: Option<String>,
    /// With no winner: the contenders' rows, best share first (empty when there is a winner).
    pub tied_with: Vec<String>,
    /// Every family with at least [`CONTENDER_SHARE`] of the wins, best share first.
    pub contenders: Vec<Contender>,
    /// Resamples drawn.
    pub resamples: usize,
    /// Seed of the draw.
    pub seed: u64,
    /// Share needed to name a winner.
    pub win_share: f64,
    /// Questions resampled.
    pub questions: usize,
    /// Why nothing can be concluded, when nothing can: no question, one question (no resample
    /// leaves one out to judge on), or every setting failing on the same questions (budget 0,
    /// say). Then there is no winner and no contender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inconclusive: Option<String>,
}

impl Verdict {
    /// The verdict in words, e.g. `winner: overlap 154 (15.0%) (wins 94% of 10000 resamples)`
    /// or `tied among Seams … (55%), overlap … (40%); about 400 questions would settle it`.
    pub fn sentence(&self) -> String {
        let share = |c: &Contender| format!("{} ({:.0}%)", c.label, c.p_best * 100.0);
        if let Some(why) = &self.inconclusive {
            return format!("nothing can be concluded: {why}");
        }
        if let Some(w) = &self.winner {
            let p = self.contenders.first().map_or(1.0, |c| c.p_best);
            return format!(
                "winner: {w} (its family wins {:.0}% of {} resamples of the {} questions, tuning included)",
                p * 100.0,
                self.resamples,
                self.questions
            );
        }
        if self.contenders.is_empty() {
            return "no verdict: no question to resample".to_string();
        }
        let names: Vec<String> = self.contenders.iter().map(share).collect();
        let needed = self
            .contenders
            .iter()
            .filter_map(|c| c.questions_needed)
            .min();
        let settle = match needed {
            Some(n) if n > self.questions => format!(
                "; roughly {n} questions of this kind (about {} more) would separate the top two",
                n - self.questions
            ),
            Some(_) => "; the leader's edge shows on these questions, but tuning each family inside every resample keeps it below the bar".to_string(),
            None => "; the top two fail on the same questions: more questions of this kind would not separate them".to_string(),
        };
        format!(
            "tied among {} (share of {} resamples won, tuning included; a winner needs {:.0}%){settle}",
            names.join(", "),
            self.resamples,
            self.win_share * 100.0
        )
    }
}

/// A small deterministic generator (SplitMix64): the draw depends only on the seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// One family's distinct settings, as the questions each fails.
struct Family<'a> {
    name: &'a str,
    /// Index (into the candidates) of the family's best row on all the questions.
    best: usize,
    /// Distinct failure patterns, cheapest setting first among equals: (candidate, failing questions).
    settings: Vec<(usize, Vec<u32>)>,
}

fn families<'a>(candidates: &[Candidate<'a>]) -> Vec<Family<'a>> {
    let mut out: Vec<Family<'a>> = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        let fails: Vec<u32> = c
            .failed
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(q, _)| q as u32)
            .collect();
        let at = match out.iter().position(|f| f.name == c.family) {
            Some(at) => at,
            None => {
                out.push(Family {
                    name: c.family,
                    best: i,
                    settings: Vec::new(),
                });
                out.len() - 1
            }
        };
        let fam = &mut out[at];
        let b = &candidates[fam.best];
        let better = |x: &Candidate<'_>, y: &Candidate<'_>, xf: usize| {
            let yf = y.failed.iter().filter(|f| **f).count();
            xf < yf || (xf == yf && x.mean_tokens < y.mean_tokens)
        };
        if better(c, b, fails.len()) {
            fam.best = i;
        }
        match fam.settings.iter_mut().find(|(_, f)| *f == fails) {
            Some(same) if candidates[same.0].mean_tokens > c.mean_tokens => same.0 = i,
            Some(_) => {}
            None => fam.settings.push((i, fails)),
        }
    }
    out
}

/// Why `candidates` over `n` questions cannot tell anything apart, when they cannot.
fn inconclusive(candidates: &[Candidate<'_>], n: usize) -> Option<String> {
    if n == 0 || candidates.is_empty() {
        return Some("no question was scored".to_string());
    }
    if n == 1 {
        return Some(
            "only one question was scored: every resample draws it, so none is left out to judge on"
                .to_string(),
        );
    }
    let first = candidates[0].failed;
    if candidates.iter().all(|c| c.failed == first) {
        let failed = first.iter().filter(|f| **f).count();
        return Some(if candidates.len() == 1 {
            format!(
                "only one setting was scored (it fails {failed} of the {n} questions): there is nothing to compare it with"
            )
        } else if failed == 0 {
            format!(
                "every setting answers all {n} questions, so the questions do not tell them apart"
            )
        } else if failed == n {
            format!(
                "every setting fails all {n} questions: no context held any question's whole evidence, so the questions do not tell them apart"
            )
        } else {
            format!(
                "every setting fails on the same {failed} of the {n} questions, so the questions do not tell them apart"
            )
        });
    }
    None
}

/// The bootstrap verdict over `candidates` (each family tuned inside every resample), with
/// `resamples` draws from `seed`. When nothing can be concluded ([`Verdict::inconclusive`]) it
/// names no winner and no contender.
pub fn verdict(candidates: &[Candidate<'_>], resamples: usize, seed: u64) -> Verdict {
    let n = candidates.first().map_or(0, |c| c.failed.len());
    let nothing = |why: String| Verdict {
        winner: None,
        tied_with: Vec::new(),
        contenders: Vec::new(),
        resamples: 0,
        seed,
        win_share: WIN_SHARE,
        questions: n,
        inconclusive: Some(why),
    };
    if let Some(why) = inconclusive(candidates, n) {
        return nothing(why);
    }
    let fams = families(candidates);
    let (wins, drawn) = resampled_wins(candidates, &fams, resamples, seed);
    if drawn == 0 {
        return nothing(format!(
            "no resample of the {n} questions left one out to judge on (resamples: {resamples})"
        ));
    }
    let contenders = standings(candidates, &fams, &wins, drawn);
    let winner = contenders
        .first()
        .filter(|c| c.p_best >= WIN_SHARE)
        .map(|c| c.label.clone());
    let tied_with = if winner.is_some() {
        Vec::new()
    } else {
        contenders.iter().map(|c| c.label.clone()).collect()
    };
    Verdict {
        winner,
        tied_with,
        contenders,
        resamples: drawn,
        seed,
        win_share: WIN_SHARE,
        questions: n,
        inconclusive: None,
    }
}

/// Each family's wins over `resamples` draws from `seed` (ties split), and how many draws left
/// a question out to judge on. Each family's choice is made on the drawn questions and scored on
/// the ones left out.
fn resampled_wins(
    candidates: &[Candidate<'_>],
    fams: &[Family<'_>],
    resamples: usize,
    seed: u64,
) -> (Vec<f64>, usize) {
    let n = candidates.first().map_or(0, |c| c.failed.len());
    let mut wins = vec![0.0f64; fams.len()];
    let mut rng = SplitMix(seed);
    let mut weight = vec![0u32; n];
    let mut drawn = 0usize;
    if n > 0 && !fams.is_empty() {
        for _ in 0..resamples {
            weight.iter_mut().for_each(|w| *w = 0);
            for _ in 0..n {
                weight[rng.below(n)] += 1;
            }
            let out_of_bag = weight.iter().filter(|&&w| w == 0).count();
            if out_of_bag == 0 {
                continue;
            }
            drawn += 1;
            // Each family's choice on the drawn questions, scored on the ones left out.
            let held_out: Vec<u32> = fams
                .iter()
                .map(|f| {
                    let chosen = f
                        .settings
                        .iter()
                        .min_by(|a, b| {
                            let fa: u32 = a.1.iter().map(|&q| weight[q as usize]).sum();
                            let fb: u32 = b.1.iter().map(|&q| weight[q as usize]).sum();
                            fa.cmp(&fb).then(
                                candidates[a.0]
                                    .mean_tokens
                                    .total_cmp(&candidates[b.0].mean_tokens),
                            )
                        })
                        .map_or(&[][..], |s| s.1.as_slice());
                    chosen.iter().filter(|&&q| weight[q as usize] == 0).count() as u32
                })
                .collect();
            let best = held_out.iter().copied().min().unwrap_or(0);
            let tied = held_out.iter().filter(|&&h| h == best).count() as f64;
            for (w, &h) in wins.iter_mut().zip(&held_out) {
                if h == best {
                    *w += 1.0 / tied;
                }
            }
        }
    }
    (wins, drawn)
}

/// The families with at least [`CONTENDER_SHARE`] of the `drawn` resamples' wins (the leader
/// always), best share first, each with the questions that would separate it from the leader.
fn standings(
    candidates: &[Candidate<'_>],
    fams: &[Family<'_>],
    wins: &[f64],
    drawn: usize,
) -> Vec<Contender> {
    let share = |w: f64| w / drawn as f64;
    let mut order: Vec<usize> = (0..fams.len()).collect();
    order.sort_by(|&a, &b| wins[b].total_cmp(&wins[a]).then(a.cmp(&b)));
    let leader = order.first().copied();
    order
        .iter()
        .filter(|&&i| share(wins[i]) >= CONTENDER_SHARE || Some(i) == leader)
        .map(|&i| {
            let f = &fams[i];
            Contender {
                label: candidates[f.best].label.to_string(),
                family: f.name.to_string(),
                p_best: share(wins[i]),
                questions_needed: match leader {
                    Some(l) if l != i => {
                        questions_needed(candidates[fams[l].best].failed, candidates[f.best].failed)
                    }
                    _ => None,
                },
            }
        })
        .collect()
}

/// Questions needed for a paired difference in failures between `a` (the leader) and `b` to
/// show at 90% one-sided confidence: `(z · sd / mean)²` with z = 1.2816, from the per-question
/// differences measured now, divided by e⁻¹ ≈ 0.368 because each resample judges on the
/// questions it left out (about that share). Rough by design. `None` when they never differ.
pub fn questions_needed(a: &[bool], b: &[bool]) -> Option<usize> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(u8::from(y)) - f64::from(u8::from(x)))
        .collect();
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    if mean.abs() < 1e-12 {
        return None;
    }
    let z = 1.2816;
    let paired = (z * var.sqrt() / mean.abs()).powi(2);
    Some((paired / (-1.0f64).exp()).ceil().max(2.0) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails(n: usize, which: &[usize]) -> Vec<bool> {
        (0..n).map(|i| which.contains(&i)).collect()
    }

    #[test]
    fn a_family_that_fixes_many_questions_and_breaks_none_wins() {
        let n = 200;
        let base = fails(n, &(0..40).collect::<Vec<_>>());
        let better = fails(n, &(0..10).collect::<Vec<_>>());
        let c = [
            Candidate {
                label: "chunks only",
                family: "none",
                failed: &base,
                mean_tokens: 100.0,
            },
            Candidate {
                label: "overlap 15%",
                family: "overlap",
                failed: &better,
                mean_tokens: 120.0,
            },
        ];
        let v = verdict(&c, 2000, 7);
        assert_eq!(v.winner.as_deref(), Some("overlap 15%"));
        assert!(v.tied_with.is_empty());
        assert!(v.contenders[0].p_best > 0.99, "{v:?}");
        assert!(v.sentence().starts_with("winner: overlap 15%"));
    }

    #[test]
    fn one_question_apart_is_a_tie_with_a_count_of_questions_to_settle_it() {
        let n = 130;
        let a = fails(n, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
        let b = fails(n, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
        let c = [
            Candidate {
                label: "A",
                family: "seams",
                failed: &a,
                mean_tokens: 100.0,
            },
            Candidate {
                label: "B",
                family: "overlap",
                failed: &b,
                mean_tokens: 100.0,
            },
        ];
        let v = verdict(&c, 2000, 1);
        assert_eq!(v.winner, None);
        assert_eq!(v.tied_with, vec!["A".to_string(), "B".to_string()]);
        let sum: f64 = v.contenders.iter().map(|c| c.p_best).sum();
        assert!((sum - 1.0).abs() < 1e-9, "shares add up to one: {sum}");
        let needed = v.contenders[1].questions_needed.unwrap();
        assert!(
            needed > n,
            "one question in 130 needs far more questions: {needed}"
        );
        assert!(
            v.sentence().starts_with("tied among A ("),
            "{}",
            v.sentence()
        );
    }

    #[test]
    fn many_noisy_settings_do_not_beat_one_fixed_setting_by_having_more_tries() {
        // 60 settings of one family, each failing a different random half of 40 hard questions
        // plus the same 20 others; a fixed row fails the 40 hard ones' expected share.
        let n = 120;
        let mut rng = SplitMix(3);
        let noisy: Vec<Vec<bool>> = (0..60)
            .map(|_| (0..n).map(|q| q < 40 && rng.below(2) == 0).collect())
            .collect();
        let fixed: Vec<bool> = (0..n).map(|q| q < 40 && q % 2 == 0).collect();
        let labels: Vec<String> = (0..60).map(|i| format!("noisy {i}")).collect();
        let mut c: Vec<Candidate<'_>> = noisy
            .iter()
            .zip(&labels)
            .map(|(f, l)| Candidate {
                label: l,
                family: "seams",
                failed: f,
                mean_tokens: 100.0,
            })
            .collect();
        c.push(Candidate {
            label: "fixed",
            family: "overlap",
            failed: &fixed,
            mean_tokens: 100.0,
        });
        // On all questions the best noisy setting looks better than the fixed row...
        let best_noisy = noisy
            .iter()
            .map(|f| f.iter().filter(|x| **x).count())
            .min()
            .unwrap();
        assert!(best_noisy < 20, "{best_noisy}");
        // ...but tuned inside each resample and scored out of bag, it is not a winner.
        let v = verdict(&c, 2000, 11);
        assert_eq!(v.winner, None, "{v:?}");
    }

    #[test]
    fn degenerate_questions_conclude_nothing_and_name_no_leader() {
        let cand = |label: &'static str, family: &'static str, failed: &'static [bool]| Candidate {
            label,
            family,
            failed,
            mean_tokens: 1.0,
        };
        // One question: every resample draws it, none is left out.
        let one = verdict(&[cand("a", "x", &[false]), cand("b", "y", &[true])], 500, 1);
        assert!(one.winner.is_none() && one.contenders.is_empty() && one.tied_with.is_empty());
        assert!(
            one.sentence()
                .starts_with("nothing can be concluded: only one question"),
            "{}",
            one.sentence()
        );
        // Budget 0: every setting fails every question.
        const ALL: [bool; 6] = [true; 6];
        let zero = verdict(&[cand("a", "x", &ALL), cand("b", "y", &ALL)], 500, 1);
        assert!(zero.contenders.is_empty(), "{zero:?}");
        assert!(
            zero.sentence()
                .contains("every setting fails all 6 questions"),
            "{}",
            zero.sentence()
        );
        // The same questions failed by every setting: nothing tells them apart.
        const SAME: [bool; 4] = [true, false, false, true];
        let tied = verdict(&[cand("a", "x", &SAME), cand("b", "y", &SAME)], 500, 1);
        assert!(
            tied.sentence().contains("the same 2 of the 4 questions"),
            "{}",
            tied.sentence()
        );
        // No question at all.
        let empty = verdict(&[cand("a", "x", &[])], 500, 1);
        assert!(empty.sentence().contains("no question was scored"));
        // No resample drawn: nothing to conclude either.
        let unsampled = verdict(
            &[
                cand("a", "x", &[true, false]),
                cand("b", "y", &[false, true]),
            ],
            0,
            1,
        );
        assert!(unsampled.contenders.is_empty() && unsampled.inconclusive.is_some());
    }

    #[test]
    fn the_draw_is_seeded() {
        let a = fails(50, &[1, 2, 3]);
        let b = fails(50, &[1, 2, 4, 5]);
        let c = [
            Candidate {
                label: "a",
                family: "x",
                failed: &a,
                mean_tokens: 1.0,
            },
            Candidate {
                label: "b",
                family: "y",
                failed: &b,
                mean_tokens: 1.0,
            },
        ];
        assert_eq!(verdict(&c, 500, 5), verdict(&c, 500, 5));
        assert_ne!(
            verdict(&c, 500, 5).contenders[0].p_best,
            verdict(&c, 500, 6).contenders[0].p_best
        );
    }
}
