//! What a board row is: its settings (its family's knobs, set), with the label the board prints
//! and the hint for deploying it outside seamscope. What a family is beyond one row's values is
//! its card (`family.rs`).

use serde::{Deserialize, Serialize};

use super::Family;

/// One row's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RowSettings {
    /// Chunks only.
    ChunksOnly,
    /// Overlap of `percent` of a chunk (`tokens` tokens).
    Overlap {
        /// Share of a chunk repeated in the next, in percent.
        percent: u32,
        /// The same in tokens.
        tokens: usize,
    },
    /// Windows of `width` tokens every `stride`.
    Windows {
        /// Window length.
        width: usize,
        /// Tokens between window starts.
        stride: usize,
    },
    /// Every retrieved chunk brings both neighbours.
    Neighbour,
    /// SCAR's gate.
    Scar {
        /// Relative threshold.
        tau: f32,
        /// Continuity penalty weight.
        penalty: f32,
    },
    /// Seams.
    Seams {
        /// Seam half-width.
        k: usize,
        /// Fire margin.
        m: u32,
        /// Side-drop threshold (`None`: off).
        side_drop: Option<f32>,
    },
    /// Overlap with Seams.
    OverlapSeams {
        /// Overlap in percent of a chunk.
        percent: u32,
        /// The same in tokens.
        tokens: usize,
        /// Seam half-width.
        k: usize,
        /// Fire margin.
        m: u32,
    },
}

impl RowSettings {
    /// The row's family.
    pub fn family(&self) -> Family {
        match self {
            RowSettings::ChunksOnly => Family::None,
            RowSettings::Overlap { .. } => Family::Overlap,
            RowSettings::Windows { .. } => Family::Windows,
            RowSettings::Neighbour => Family::Neighbour,
            RowSettings::Scar { .. } => Family::Scar,
            RowSettings::Seams { .. } => Family::Seams,
            RowSettings::OverlapSeams { .. } => Family::OverlapSeams,
        }
    }

    /// A short label, e.g. `overlap 15%`, `windows 256/128`, `SCAR τ 0.80 λ 0.50`,
    /// `Seams k 150 m 1 + side drop 0.25`: the family's label of its knobs.
    pub fn label(&self) -> String {
        let knobs = self.knobs();
        let parts: Vec<String> = knobs.iter().map(|k| k.1.clone()).collect();
        let card = self.family().card();
        let sides: Vec<Knob> = card
            .side_knob
            .and_then(|i| knobs.get(i).cloned())
            .into_iter()
            .collect();
        (card.label)(&parts, &sides)
    }

    /// How to set this row up in one's own pipeline, in words (the settings another tool takes).
    pub fn deploy_hint(&self, chunk_tokens: usize) -> String {
        match *self {
            RowSettings::ChunksOnly => format!(
                "disjoint chunks of {chunk_tokens} tokens (LangChain: chunk_size={chunk_tokens}, chunk_overlap=0, counting tokens)"
            ),
            RowSettings::Overlap { tokens, .. } => format!(
                "chunks of {chunk_tokens} tokens overlapping by {tokens} (LangChain: chunk_size={chunk_tokens}, chunk_overlap={tokens}, counting tokens)"
            ),
            RowSettings::Windows { width, stride } => format!(
                "index windows of {width} tokens every {stride} tokens, each returning the chunks it overlaps (a multi-vector retriever: window size {width}, stride {stride})"
            ),
            RowSettings::Neighbour => {
                "after retrieval, add each retrieved chunk's neighbours on both sides within the budget".into()
            }
            RowSettings::Scar { tau, penalty } => format!(
                "after retrieval, add a neighbour n of retrieved chunk c when cos(q,n) − {penalty:.2}·(1 − cos(c,n)) ≥ {tau:.2}·cos(q,c) (SCAR's τ = {tau:.2}, penalty weight {penalty:.2})"
            ),
            RowSettings::Seams { k, m, side_drop } => format!(
                "seamscope export with k {k}, m {m}{} (seamscope export --from-tune FILE)",
                side_drop
                    .map(|t| format!(", side drop {t:.2}"))
                    .unwrap_or_default()
            ),
            RowSettings::OverlapSeams { tokens, k, m, .. } => format!(
                "chunks of {chunk_tokens} tokens overlapping by {tokens}, plus a seam of half-width {k} over each overlap fired at margin {m}"
            ),
        }
    }
}

/// One knob's value: a key to sort and compare by, and how it is shown.
pub(crate) type Knob = (i64, String);

fn milli(x: f32) -> i64 {
    (f64::from(x) * 1000.0).round() as i64
}

impl RowSettings {
    /// The row's knobs, in the order a label names them (the finest grid last): what the board
    /// folds rows of one outcome by.
    pub(crate) fn knobs(&self) -> Vec<Knob> {
        match *self {
            RowSettings::ChunksOnly | RowSettings::Neighbour => Vec::new(),
            RowSettings::Overlap { percent, .. } => vec![(i64::from(percent), percent.to_string())],
            RowSettings::Windows { width, stride } => {
                vec![(
                    -((width * 1_000_000 + stride) as i64),
                    format!("{width}/{stride}"),
                )]
            }
            RowSettings::Scar { tau, penalty } => vec![
                (milli(tau), format!("{tau:.2}")),
                (milli(penalty), format!("{penalty:.2}")),
            ],
            RowSettings::Seams { k, m, side_drop } => vec![
                (k as i64, k.to_string()),
                match side_drop {
                    None => (-1, "off".to_string()),
                    Some(t) => (milli(t), format!("{t:.2}")),
                },
                (i64::from(m), m.to_string()),
            ],
            RowSettings::OverlapSeams { percent, k, m, .. } => vec![
                (i64::from(percent), percent.to_string()),
                (k as i64, k.to_string()),
                (i64::from(m), m.to_string()),
            ],
        }
    }
}
