//! The strategy families, each described once: one [`FamilyCard`] per family says its name, what
//! it stores and sends, whether it stores each passage once, whether it fires seams, the knobs
//! it is tuned over, the strategies it searches and the rows it scores on them (its grid), and
//! how a row is labelled. The board, the evidence-length map, calibrate's named alternative,
//! `tune --strategies` and the screen read the cards; what differs row by row (a row's knob
//! values, its deploy hint, how its context is filled) is [`RowSettings`], whose every match
//! names each family, so the compiler asks for a new family's arms.
//!
//! A new family: a variant of [`Family`], its card in [`CARDS`] (in board order), its
//! [`RowSettings`] variant (the compiler then asks for its knobs, deploy hint and fill), and
//! its look on the screen (`tui/family.rs`, whose test fails without it).

use serde::{Serialize, Serializer};

use super::BoardOptions;
use super::row::{Knob, RowSettings};
use crate::eval::strategy::Strategy;

/// A strategy family: the rows of one family are tuned against each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Chunks only.
    None,
    /// Overlapping chunks.
    Overlap,
    /// Sliding windows linked to their chunks.
    Windows,
    /// Static ±1 neighbour expansion.
    Neighbour,
    /// SCAR-style adaptive neighbour expansion.
    Scar,
    /// Seams.
    Seams,
    /// Overlapping chunks with Seams.
    OverlapSeams,
}

/// Everything the board knows of one family that is not a row's own values.
pub struct FamilyCard {
    /// The family.
    pub family: Family,
    /// Its name in JSON, on the command line (`--strategies`) and on the screen.
    pub name: &'static str,
    /// What it stores and what it sends, in a line (the `--strategies` help, the manual).
    pub about: &'static str,
    /// Whether no two units it stores share text (what `--once` asks for).
    pub stores_once: bool,
    /// Whether it fires seams (calibrate's named alternative compares Seams with the others).
    pub fires_seams: bool,
    /// The knobs its rows are tuned over, in the order its label names them.
    pub knobs: &'static [&'static str],
    /// Which of [`FamilyCard::knobs`] says whether side drop is on (its values make the
    /// label's `± side drop`).
    pub side_knob: Option<usize>,
    /// Its grid: each strategy it searches (on chunks of the given tokens) with a row it scores
    /// on it, in board order. Rows of one strategy share its searches.
    pub grid: fn(&BoardOptions, usize) -> Vec<(Strategy, RowSettings)>,
    /// The label of a row whose knobs take `parts` (each one value, or a folded row's runs),
    /// with the side-drop knob's values in the second argument.
    pub label: fn(&[String], &[Knob]) -> String,
}

/// One card per family, in board order.
pub const CARDS: [FamilyCard; 7] = [
    FamilyCard {
        family: Family::None,
        name: "none",
        about: "disjoint chunks only: the baseline every row is judged against (always scored)",
        stores_once: true,
        fires_seams: false,
        knobs: &[],
        side_knob: None,
        grid: |_, _| vec![(Strategy::NoOverlap, RowSettings::ChunksOnly)],
        label: |_, _| "chunks only".into(),
    },
    FamilyCard {
        family: Family::Overlap,
        name: "overlap",
        about: "chunks whose starts step back into the previous chunk: neighbours share text, \
                and what they share can be sent twice",
        stores_once: false,
        fires_seams: false,
        knobs: &["percent"],
        side_knob: None,
        grid: |options, chunk_tokens| {
            options
                .overlaps
                .iter()
                .map(|&p| {
                    let tokens = overlap_tokens(p, chunk_tokens);
                    (
                        Strategy::Overlap { tokens },
                        RowSettings::Overlap {
                            percent: percent_of(tokens, chunk_tokens, options),
                            tokens,
                        },
                    )
                })
                .collect()
        },
        label: |parts, _| format!("overlap {}%", part(parts, 0)),
    },
    FamilyCard {
        family: Family::Windows,
        name: "windows",
        about: "sliding windows stored as extra search vectors, each bringing the disjoint \
                chunks it overlaps (no text stored or sent twice; the cost is vectors)",
        stores_once: true,
        fires_seams: false,
        knobs: &["width/stride"],
        side_knob: None,
        grid: |options, _| {
            options
                .windows
                .iter()
                .map(|&(width, stride)| {
                    (
                        Strategy::Windows { width, stride },
                        RowSettings::Windows { width, stride },
                    )
                })
                .collect()
        },
        label: |parts, _| format!("windows {}", part(parts, 0)),
    },
    FamilyCard {
        family: Family::Neighbour,
        name: "neighbour",
        about: "chunks only, each retrieved chunk bringing both neighbours within the budget",
        stores_once: true,
        fires_seams: false,
        knobs: &[],
        side_knob: None,
        grid: |_, _| vec![(Strategy::NoOverlap, RowSettings::Neighbour)],
        label: |_, _| "neighbours ±1".into(),
    },
    FamilyCard {
        family: Family::Scar,
        name: "scar",
        about: "chunks only, a neighbour joining when its relevance less a continuity penalty \
                reaches a share of the retrieved chunk's (SCAR)",
        stores_once: true,
        fires_seams: false,
        knobs: &["tau", "penalty"],
        side_knob: None,
        grid: |options, _| {
            options
                .taus
                .iter()
                .flat_map(|&tau| {
                    options.penalties.iter().map(move |&penalty| {
                        (Strategy::NoOverlap, RowSettings::Scar { tau, penalty })
                    })
                })
                .collect()
        },
        label: |parts, _| format!("SCAR τ {} λ {}", part(parts, 0), part(parts, 1)),
    },
    FamilyCard {
        family: Family::Seams,
        name: "seams",
        about: "chunks plus one small seam vector over each cut, bringing both chunks when it \
                clearly outranks them (the fire test at margin m)",
        stores_once: true,
        fires_seams: true,
        knobs: &["k", "side drop", "m"],
        side_knob: Some(1),
        grid: |options, _| {
            options
                .ks
                .iter()
                .flat_map(|&k| {
                    options.ms.iter().flat_map(move |&m| {
                        options.side_drops.iter().map(move |&side_drop| {
                            (
                                Strategy::Seams { k },
                                RowSettings::Seams { k, m, side_drop },
                            )
                        })
                    })
                })
                .collect()
        },
        label: |parts, sides| {
            let off = sides.iter().any(|s| s.0 < 0);
            let on: Vec<&Knob> = sides.iter().filter(|s| s.0 >= 0).collect();
            let side = match (off, on.first()) {
                (_, None) => String::new(),
                (false, Some(t)) => format!(" + side drop {}", t.1),
                (true, Some(t)) => format!(" ± side drop {}", t.1),
            };
            format!("Seams k {} m {}{side}", part(parts, 0), part(parts, 2))
        },
    },
    FamilyCard {
        family: Family::OverlapSeams,
        name: "overlap+seams",
        about: "overlapping chunks plus a seam over each overlap: both repairs at once",
        stores_once: false,
        fires_seams: true,
        knobs: &["percent", "k", "m"],
        side_knob: None,
        grid: |options, chunk_tokens| {
            options
                .overlap_seams
                .iter()
                .flat_map(|&p| {
                    let tokens = overlap_tokens(p, chunk_tokens);
                    let percent = percent_of(tokens, chunk_tokens, options);
                    options.ks.iter().flat_map(move |&k| {
                        options.ms.iter().map(move |&m| {
                            (
                                Strategy::OverlapSeams { tokens, k },
                                RowSettings::OverlapSeams {
                                    percent,
                                    tokens,
                                    k,
                                    m,
                                },
                            )
                        })
                    })
                })
                .collect()
        },
        label: |parts, _| {
            format!(
                "overlap {}% + Seams k {} m {}",
                part(parts, 0),
                part(parts, 1),
                part(parts, 2)
            )
        },
    },
];

/// The `i`th of a label's parts (empty past the end).
fn part(parts: &[String], i: usize) -> &str {
    parts.get(i).map_or("", String::as_str)
}

/// Tokens of an overlap of `percent` of a chunk of `chunk_tokens` (at most half a chunk).
fn overlap_tokens(percent: u32, chunk_tokens: usize) -> usize {
    (chunk_tokens * percent as usize)
        .div_ceil(100)
        .min(chunk_tokens / 2)
}

/// The overlap percent the options asked for that gives `tokens` (two percents can round to the
/// same tokens: the first asked names the row).
fn percent_of(tokens: usize, chunk_tokens: usize, options: &BoardOptions) -> u32 {
    options
        .overlaps
        .iter()
        .chain(&options.overlap_seams)
        .copied()
        .find(|&p| overlap_tokens(p, chunk_tokens) == tokens)
        .unwrap_or((tokens * 100 / chunk_tokens.max(1)) as u32)
}

impl Family {
    /// Every family, in board order (the cards' order).
    pub const ALL: [Family; CARDS.len()] = {
        let mut all = [Family::None; CARDS.len()];
        let mut i = 0;
        while i < CARDS.len() {
            all[i] = CARDS[i].family;
            i += 1;
        }
        all
    };

    /// Its card.
    pub fn card(self) -> &'static FamilyCard {
        CARDS
            .iter()
            .find(|c| c.family == self)
            .expect("every family has a card (tested)")
    }

    /// Its name in JSON and on the screen.
    pub fn name(self) -> &'static str {
        self.card().name
    }

    /// The family named `name` (`none`, `overlap`, `windows`, `neighbour`, `scar`, `seams`,
    /// `overlap+seams`).
    pub fn parse(name: &str) -> Option<Family> {
        CARDS.iter().find(|c| c.name == name).map(|c| c.family)
    }
}

impl Serialize for Family {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// What the board searches and scores for `options`: each strategy once, with every row scored
/// on it, in board order. Chunks only is always there (the baseline); the other families when
/// `options` asks for them.
pub(super) fn plan(
    options: &BoardOptions,
    chunk_tokens: usize,
) -> Vec<(Strategy, Vec<RowSettings>)> {
    let mut plan: Vec<(Strategy, Vec<RowSettings>)> = Vec::new();
    let on = CARDS
        .iter()
        .filter(|c| c.family == Family::None || options.families.contains(&c.family));
    for card in on {
        for (strategy, settings) in (card.grid)(options, chunk_tokens) {
            match plan.iter_mut().find(|(s, _)| *s == strategy) {
                Some((_, rows)) if rows.contains(&settings) => {}
                Some((_, rows)) => rows.push(settings),
                None => plan.push((strategy, vec![settings])),
            }
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_one_card_in_board_order() {
        assert_eq!(CARDS.len(), Family::ALL.len());
        for (i, card) in CARDS.iter().enumerate() {
            assert_eq!(Family::ALL[i], card.family);
            assert_eq!(Family::parse(card.name), Some(card.family));
            assert_eq!(
                serde_json::to_value(card.family).unwrap(),
                serde_json::json!(card.name)
            );
            assert!(!card.about.is_empty());
            assert!(card.side_knob.is_none_or(|k| k < card.knobs.len()));
        }
        let names: std::collections::BTreeSet<&str> = CARDS.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), CARDS.len(), "names are unique");
    }

    /// A family that misses a piece fails here: its grid gives rows of its own family whose
    /// labels its card draws, with as many knobs as the card names.
    #[test]
    fn every_card_gives_rows_of_its_own_family_with_its_knobs() {
        let options = BoardOptions::default();
        for card in &CARDS {
            let rows = (card.grid)(&options, 1024);
            assert!(
                !rows.is_empty(),
                "{} has rows under the default options",
                card.name
            );
            for (_, settings) in &rows {
                assert_eq!(settings.family(), card.family, "{}", card.name);
                assert_eq!(settings.knobs().len(), card.knobs.len(), "{}", card.name);
                assert!(!settings.label().is_empty());
                assert!(!settings.deploy_hint(1024).is_empty());
            }
        }
    }

    #[test]
    fn the_plan_searches_each_strategy_once_and_scores_every_row() {
        let options = BoardOptions::default();
        let plan = plan(&options, 1024);
        let strategies: Vec<Strategy> = plan.iter().map(|(s, _)| *s).collect();
        // Chunks only first, then overlap, windows, Seams at each k, overlap + Seams.
        assert_eq!(strategies[0], Strategy::NoOverlap);
        assert_eq!(strategies.len(), 1 + 4 + 2 + 3 + 3);
        let first: Vec<&str> = plan[0]
            .1
            .iter()
            .map(|r| r.family().name())
            .take(2)
            .collect();
        assert_eq!(first, ["none", "neighbour"]);
        let rows: usize = plan.iter().map(|(_, r)| r.len()).sum();
        let expected = 1 + 1 + 6 * 3 + 4 + 2 + 3 * 31 * 2 + 3 * 31;
        assert_eq!(rows, expected);
        // Only chunks only when no family is asked for: the baseline is always scored.
        let none = plan_of(&[]);
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].1, vec![RowSettings::ChunksOnly]);
    }

    #[test]
    fn two_percents_that_round_to_the_same_tokens_make_one_row() {
        let options = BoardOptions {
            overlaps: vec![10, 11],
            families: vec![Family::Overlap],
            ..BoardOptions::default()
        };
        // 10% and 11% of 8 tokens both round up to 1 token.
        let plan = plan(&options, 8);
        assert_eq!(plan.len(), 2);
        assert_eq!(
            plan[1].1,
            vec![RowSettings::Overlap {
                percent: 10,
                tokens: 1
            }]
        );
    }

    fn plan_of(families: &[Family]) -> Vec<(Strategy, Vec<RowSettings>)> {
        plan(
            &BoardOptions {
                families: families.to_vec(),
                ..BoardOptions::default()
            },
            1024,
        )
    }
}
