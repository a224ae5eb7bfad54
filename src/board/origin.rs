//! A board row behind an export: `seamscope export --from-tune FILE [--row LABEL]` takes a Seams
//! row of a `tune --strategies --json` report, applies its `k`, `m`, side drop, chunk size and
//! budget, and records where they came from in the bundle's `settings.json`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use crate::export::provenance::TuneOrigin;

/// Why a board report cannot back an export.
#[derive(Debug, thiserror::Error)]
pub enum TuneOriginError {
    /// The file cannot be read.
    #[error("cannot read the tune report {}: {error}", crate::text::safe_name(&.path.display().to_string()))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (quoted in the message, so not a `source`: a report of the whole chain says it once).
        error: crate::files::ReadFileError,
    },
    /// Not a `tune --strategies --json` report.
    #[error(
        "{} is not a strategy board ({why}): write one with `seamscope tune <folder> --strategies all --json > FILE`",
        crate::text::safe_name(&.path.display().to_string())
    )]
    NotABoard {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The row asked for is not on the board.
    #[error("the board has no row {}: Seams rows are named like \"Seams k 150 m 1\" (see `tune --strategies` output)", crate::text::safe_name(.0))]
    NoRow(String),
    /// The row is not a Seams row: a bundle holds a Seams layout.
    #[error(
        "row {} belongs to the {family} family: a seamscope bundle holds chunks and seams, so only a Seams row can be exported; to deploy this row in your own pipeline: {hint}",
        crate::text::safe_name(.row)
    )]
    NotSeams {
        /// The row.
        row: String,
        /// Its family.
        family: String,
        /// How to set it up elsewhere.
        hint: String,
    },
    /// The board measured other rankings than this export would build.
    #[error("{0}")]
    Mismatch(String),
}

/// The parts of a board report an export reads.
#[derive(Deserialize)]
struct BoardFile {
    source: String,
    questions: usize,
    embedder: String,
    #[serde(default)]
    chunker: Option<String>,
    chunk_tokens: usize,
    budget: usize,
    rows: Vec<RowFile>,
    #[serde(default)]
    verdict: Option<VerdictFile>,
}

#[derive(Deserialize)]
struct RowFile {
    label: String,
    family: String,
    settings: serde_json::Value,
    failure_rate: f64,
    interval: crate::calibrate::interval::Interval,
    /// A folded row's settings, each with the row's outcome.
    #[serde(default)]
    members: Vec<MemberFile>,
}

#[derive(Deserialize)]
struct MemberFile {
    label: String,
    settings: serde_json::Value,
}

#[derive(Deserialize)]
struct VerdictFile {
    winner: Option<String>,
    #[serde(default)]
    tied_with: Vec<String>,
    #[serde(default)]
    resamples: usize,
}

impl TuneOrigin {
    /// Read `path` and take row `row` (or, without one, the verdict's winner when it is a Seams
    /// row, else the board's best Seams row).
    pub fn read(path: &Path, row: Option<&str>) -> Result<TuneOrigin, TuneOriginError> {
        let bytes = crate::files::read_json(path).map_err(|error| TuneOriginError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let board: BoardFile =
            serde_json::from_slice(&bytes).map_err(|e| TuneOriginError::NotABoard {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        let winner = board.verdict.as_ref().and_then(|v| v.winner.clone());
        // A member of a folded row is asked for by its own label and exported with its own
        // settings (its outcome is the row's).
        let member = row.and_then(|label| {
            board.rows.iter().find_map(|r| {
                let m = r.members.iter().find(|m| m.label == label)?;
                Some((r, m))
            })
        });
        let chosen = match row {
            Some(label) => board
                .rows
                .iter()
                .find(|r| r.label == label)
                .or(member.map(|(r, _)| r))
                .ok_or_else(|| TuneOriginError::NoRow(label.to_string()))?,
            None => winner
                .as_deref()
                .and_then(|w| {
                    board
                        .rows
                        .iter()
                        .find(|r| r.label == w && r.family == "seams")
                })
                .or_else(|| board.rows.iter().find(|r| r.family == "seams"))
                .ok_or_else(|| TuneOriginError::NotABoard {
                    path: path.to_path_buf(),
                    why: "it has no Seams row".into(),
                })?,
        };
        if chosen.family != "seams" {
            return Err(TuneOriginError::NotSeams {
                row: chosen.label.clone(),
                family: chosen.family.clone(),
                hint: deploy_hint(&chosen.settings, board.chunk_tokens),
            });
        }
        let (settings, row_name) = match member {
            Some((r, m)) if r.label != m.label && row != Some(r.label.as_str()) => {
                (&m.settings, format!("{} (of row {})", m.label, r.label))
            }
            _ => (&chosen.settings, chosen.label.clone()),
        };
        let field = |name: &str| settings.get(name).cloned();
        let k = field("k")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| TuneOriginError::NotABoard {
                path: path.to_path_buf(),
                why: format!("row {} has no k", chosen.label),
            })? as usize;
        let m = field("m")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| TuneOriginError::NotABoard {
                path: path.to_path_buf(),
                why: format!("row {} has no m", chosen.label),
            })? as u32;
        let side_drop = field("side_drop")
            .and_then(|v| v.as_f64())
            .map(|t| t as f32);
        let verdict = board.verdict.as_ref().map(|v| match &v.winner {
            Some(w) => format!("winner {w} ({} resamples)", v.resamples),
            None => format!(
                "tied among {} ({} resamples)",
                v.tied_with.join(", "),
                v.resamples
            ),
        });
        Ok(TuneOrigin {
            file: path.display().to_string(),
            blake3: blake3::hash(&bytes).to_hex().to_string(),
            row: row_name,
            source: board.source,
            questions: board.questions,
            embedder: board.embedder,
            chunker: board.chunker.unwrap_or_default(),
            chunk_tokens: board.chunk_tokens,
            k,
            m,
            side_drop,
            budget: board.budget,
            failure_rate: chosen.failure_rate,
            interval_low: chosen.interval.low,
            interval_high: chosen.interval.high,
            verdict,
        })
    }

    /// Refuse an export whose embedder or layout differs from what the board measured.
    pub fn check(&self, embedder: &str, chunker: &str) -> Result<(), TuneOriginError> {
        if self.embedder != embedder {
            return Err(TuneOriginError::Mismatch(format!(
                "the board measured embedder {} but this export embeds with {}: its failure rates do not carry over; run tune again with this embedder",
                crate::text::safe_name(&self.embedder),
                crate::text::safe_name(embedder)
            )));
        }
        if !self.chunker.is_empty() && self.chunker != chunker {
            return Err(TuneOriginError::Mismatch(format!(
                "the board measured layout {} but this export cuts {}: give the same --chunker / --chunk-tokens, or run tune again",
                crate::text::safe_name(&self.chunker),
                crate::text::safe_name(chunker)
            )));
        }
        Ok(())
    }
}

/// The deploy hint of a row read back from JSON (its settings as the board wrote them).
fn deploy_hint(settings: &serde_json::Value, chunk_tokens: usize) -> String {
    match serde_json::from_value::<super::RowSettings>(settings.clone()) {
        Ok(row) => row.deploy_hint(chunk_tokens),
        Err(_) => "see the row's settings in the report".into(),
    }
}
