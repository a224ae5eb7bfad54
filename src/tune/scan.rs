//! The `k` scan beside a calibration: the calibration's questions searched again at a few seam
//! half-widths, every margin scored, and the best row of each `k` kept.

use super::{TuneProgress, TuneQuestion, TuneRow, rank, tune_layout};
use crate::calibrate::objective::DEFAULT_MAX_M;
use crate::retrieve::QuerySettings;
use crate::session::{Engine, EngineError, OpenCorpus};

/// The seam half-widths a scan tries besides the layout's own.
pub const K_SCAN: [usize; 3] = [100, 150, 200];

/// Scan `k` ([`K_SCAN`] and the current `k`) on `questions` at `query`'s budget, every
/// margin from 0 to [`DEFAULT_MAX_M`] with side drop off: the best row of each `k`, best first.
/// `Ok(None)` when `progress` stopped it.
pub fn scan_k(
    engine: &mut Engine,
    open: &OpenCorpus,
    (chunk_tokens, k): (usize, usize),
    query: &QuerySettings,
    questions: &[TuneQuestion],
    progress: &mut dyn FnMut(TuneProgress) -> bool,
) -> Result<Option<Vec<TuneRow>>, EngineError> {
    let mut ks: Vec<usize> = K_SCAN.to_vec();
    ks.push(k);
    ks.sort_unstable();
    ks.dedup();
    let ms: Vec<u32> = (0..=DEFAULT_MAX_M).collect();
    let scanned = tune_layout(
        engine,
        &open.corpus,
        &open.layout,
        chunk_tokens,
        query,
        &ks,
        &ms,
        &[query.budget],
        &[None],
        questions,
        0.0,
        progress,
    )?;
    Ok(scanned.map(|(rows, _)| best_per_k(rows)))
}

/// The best row of each `k`, best first (fewest failures, then tokens, then the larger m).
pub fn best_per_k(mut rows: Vec<TuneRow>) -> Vec<TuneRow> {
    rows.retain(|r| r.k.is_some());
    rank(&mut rows);
    let mut seen = Vec::new();
    rows.retain(|r| {
        let new = !seen.contains(&r.k);
        seen.push(r.k);
        new
    });
    rows
}
