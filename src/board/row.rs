//! What a board row is: its strategy family and its settings, with the label the board prints
//! and the hint for deploying it outside seamscope.

use serde::Serialize;

/// A strategy family: the rows of one family are tuned against each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Family {
    /// Chunks only.
    #[serde(rename = "none")]
    None,
    /// Overlapping chunks.
    #[serde(rename = "overlap")]
    Overlap,
    /// Sliding windows linked to their chunks.
    #[serde(rename = "windows")]
    Windows,
    /// Static ±1 neighbour expansion.
    #[serde(rename = "neighbour")]
    Neighbour,
    /// SCAR-style adaptive neighbour expansion.
    #[serde(rename = "scar")]
    Scar,
    /// Seams.
    #[serde(rename = "seams")]
    Seams,
    /// Overlapping chunks with Seams.
    #[serde(rename = "overlap+seams")]
    OverlapSeams,
}

impl Family {
    /// Its name in JSON and on the screen.
    pub fn name(self) -> &'static str {
        match self {
            Family::None => "none",
            Family::Overlap => "overlap",
            Family::Windows => "windows",
            Family::Neighbour => "neighbour",
            Family::Scar => "scar",
            Family::Seams => "seams",
            Family::OverlapSeams => "overlap+seams",
        }
    }

    /// The family named `name` (`none`, `overlap`, `windows`, `neighbour`, `scar`, `seams`,
    /// `overlap+seams`).
    pub fn parse(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every family, in board order.
    pub const ALL: [Family; 7] = [
        Family::None,
        Family::Overlap,
        Family::Windows,
        Family::Neighbour,
        Family::Scar,
        Family::Seams,
        Family::OverlapSeams,
    ];
}

/// One row's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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
        let family = self.family();
        let sides: Vec<Knob> = family
            .side_knob()
            .and_then(|i| knobs.get(i).cloned())
            .into_iter()
            .collect();
        family.label_of(&parts, &sides)
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

impl Family {
    /// The label of a row of this family whose knobs take `parts` (each one value, or a folded
    /// row's runs), with the side-drop knob's values in `sides` (Seams).
    pub(crate) fn label_of(self, parts: &[String], sides: &[Knob]) -> String {
        let p = |i: usize| parts.get(i).map_or("", String::as_str);
        match self {
            Family::None => "chunks only".into(),
            Family::Neighbour => "neighbours ±1".into(),
            Family::Overlap => format!("overlap {}%", p(0)),
            Family::Windows => format!("windows {}", p(0)),
            Family::Scar => format!("SCAR τ {} λ {}", p(0), p(1)),
            Family::Seams => {
                let off = sides.iter().any(|s| s.0 < 0);
                let on: Vec<&Knob> = sides.iter().filter(|s| s.0 >= 0).collect();
                let side = match (off, on.first()) {
                    (_, None) => String::new(),
                    (false, Some(t)) => format!(" + side drop {}", t.1),
                    (true, Some(t)) => format!(" ± side drop {}", t.1),
                };
                format!("Seams k {} m {}{side}", p(0), p(2))
            }
            Family::OverlapSeams => format!("overlap {}% + Seams k {} m {}", p(0), p(1), p(2)),
        }
    }

    /// Which knob says whether side drop is on (its values make the label's `± side drop`).
    pub(crate) fn side_knob(self) -> Option<usize> {
        (self == Family::Seams).then_some(1)
    }
}
