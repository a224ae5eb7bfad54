//! The knobs every strategy of an evaluation run shares.

use serde::Serialize;

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
