//! `seamscope_seams._core`: the `seams` crate's stages, callable from Python.
//!
//! Values cross the boundary as JSON text in exactly the shape `seamscope query --json` writes
//! (the `seams` types' own serde forms), so a Python caller reads the same dicts the trace holds
//! and nothing is re-implemented here: each function parses its input, calls the crate's function
//! and serialises the result. The typed Python API (`seamscope_seams/__init__.py`) turns friendly
//! inputs (`("chunk", 3)`, plain lists) into that JSON and back.
//!
//! Seam links and token counts come in as dicts. The stages take them as infallible lookups, so a
//! lookup that misses records the id and the call fails with a `KeyError` naming it, rather than
//! answering from a made-up link.

use std::cell::RefCell;
use std::collections::HashMap;

use pyo3::exceptions::{PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use seams::{
    BudgetFill, ChunkId, FireDecision, FusedEntry, Lookups, Plan, QueryInput, QuerySettings,
    RankedList, RankingInput, SeamId, SideDrop, SideScores,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Seam id -> (left chunk id, right chunk id), as Python passes it.
type LinkMap = HashMap<u32, (u32, u32)>;

fn parse<T: DeserializeOwned>(what: &str, json: &str) -> PyResult<T> {
    serde_json::from_str(json)
        .map_err(|e| PyValueError::new_err(format!("{what} is not in the shape seams reads: {e}")))
}

fn to_json<T: Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The links as the stages' lookup, recording every seam it was asked about but does not know.
struct LinkLookup<'a> {
    links: &'a LinkMap,
    missing: RefCell<Vec<u32>>,
}

impl<'a> LinkLookup<'a> {
    fn new(links: &'a LinkMap) -> Self {
        Self {
            links,
            missing: RefCell::new(Vec::new()),
        }
    }

    fn get(&self, seam: SeamId) -> (ChunkId, ChunkId) {
        match self.links.get(&seam.0) {
            Some(&(left, right)) => (ChunkId(left), ChunkId(right)),
            None => {
                self.missing.borrow_mut().push(seam.0);
                (ChunkId(u32::MAX), ChunkId(u32::MAX))
            }
        }
    }

    fn check(&self) -> PyResult<()> {
        let mut missing = self.missing.borrow().clone();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(());
        }
        let ids: Vec<String> = missing.iter().map(u32::to_string).collect();
        Err(PyKeyError::new_err(format!(
            "no link for seam {}: links must give every seam in the ranking its (left, right) chunks",
            ids.join(", ")
        )))
    }
}

/// A fire decision as Python sees it: the crate's fields plus what its methods say about it.
#[derive(Serialize)]
struct DecisionOut<'a> {
    #[serde(flatten)]
    decision: &'a FireDecision,
    /// The test written out: `1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires`.
    arithmetic: String,
    /// Fired with both chunks present: it truly outranked both.
    outranked_both: bool,
    /// The linked chunks that stopped it (empty when it fires).
    blocked_by: Vec<ChunkId>,
}

impl<'a> DecisionOut<'a> {
    fn new(decision: &'a FireDecision) -> Self {
        Self {
            decision,
            arithmetic: decision.arithmetic(),
            outranked_both: decision.outranked_both(),
            blocked_by: decision.blocked_by(),
        }
    }
}

/// A budget fill as Python sees it: the crate's fields plus each step's `description`.
#[derive(Serialize)]
struct FillOut<'a> {
    #[serde(flatten)]
    fill: &'a BudgetFill,
    descriptions: Vec<String>,
}

fn decisions_json(decisions: &[FireDecision]) -> PyResult<String> {
    let out: Vec<DecisionOut<'_>> = decisions.iter().map(DecisionOut::new).collect();
    to_json(&out)
}

fn settings_error(e: seams::QuerySettingsError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The module Python imports as `seamscope_seams._core`.
#[pymodule(name = "_core")]
mod core {
    use super::*;

    /// Fuse ranked lists (JSON `[{"source", "hits"}]`) with RRF constant `c`, each list cut to
    /// `depth` hits first when given; returns the fused ranking as JSON.
    #[pyfunction]
    #[pyo3(signature = (lists_json, c, depth=None))]
    fn fuse(lists_json: &str, c: f64, depth: Option<usize>) -> PyResult<String> {
        let lists: Vec<RankedList> = parse("lists", lists_json)?;
        let settings = QuerySettings {
            rrf_c: c,
            depth: depth.unwrap_or(usize::MAX),
            ..QuerySettings::default()
        };
        settings.validate().map_err(settings_error)?;
        to_json(&RankingInput::Lists(lists).fused(&settings))
    }

    /// The fire test at margin `m` on a fused ranking (JSON), with `links` giving each seam's
    /// (left, right) chunks; returns the decisions as JSON, each with its `arithmetic`.
    #[pyfunction]
    fn fire_test(fused_json: &str, links: LinkMap, m: u32) -> PyResult<String> {
        let fused: Vec<FusedEntry> = parse("fused", fused_json)?;
        let lookup = LinkLookup::new(&links);
        let decisions = seams::fire_test(&fused, &|s| lookup.get(s), m);
        lookup.check()?;
        decisions_json(&decisions)
    }

    /// Side drop at `threshold` over fire decisions (JSON) and each seam's half scores (JSON
    /// `[{"seam", "left", "right"}]`); returns the drops as JSON.
    #[pyfunction]
    fn side_drops(decisions_json: &str, scores_json: &str, threshold: f32) -> PyResult<String> {
        let decisions: Vec<FireDecision> = parse("decisions", decisions_json)?;
        let scores: Vec<SideScores> = parse("side scores", scores_json)?;
        let settings = QuerySettings {
            side_drop: Some(threshold),
            ..QuerySettings::default()
        };
        settings.validate().map_err(settings_error)?;
        to_json(&seams::side_drops(&decisions, &scores, threshold))
    }

    /// Fill a budget of `budget` chunks from a fused ranking and its fire decisions (JSON), with
    /// optional side drops (JSON); returns the fill as JSON, with each step's `description`.
    #[pyfunction]
    #[pyo3(signature = (fused_json, decisions_json, budget, side_drops_json=None))]
    fn fill_budget(
        fused_json: &str,
        decisions_json: &str,
        budget: usize,
        side_drops_json: Option<&str>,
    ) -> PyResult<String> {
        let fused: Vec<FusedEntry> = parse("fused", fused_json)?;
        let decisions: Vec<FireDecision> = parse("decisions", decisions_json)?;
        let mut plan = Plan::fused_order(&fused, &decisions);
        if let Some(json) = side_drops_json {
            let drops: Vec<SideDrop> = parse("side drops", json)?;
            plan.apply_side_drops(&drops);
        }
        let fill = seams::fill_budget(&plan, budget);
        let descriptions = fill.steps.iter().map(|s| s.action.describe()).collect();
        to_json(&FillOut {
            fill: &fill,
            descriptions,
        })
    }

    /// Every stage at once (`seams::replan`): a query input and settings (JSON, missing settings
    /// take the defaults), seam links and chunk token counts (`None`: every chunk counts 0);
    /// returns the trace as JSON.
    #[pyfunction]
    #[pyo3(signature = (input_json, settings_json, links, tokens=None))]
    fn replan(
        input_json: &str,
        settings_json: &str,
        links: LinkMap,
        tokens: Option<HashMap<u32, u32>>,
    ) -> PyResult<String> {
        let input: QueryInput = parse("input", input_json)?;
        let settings: QuerySettings = parse("settings", settings_json)?;
        let lookup = LinkLookup::new(&links);
        let missing_tokens: RefCell<Vec<u32>> = RefCell::new(Vec::new());
        let count = |chunk: ChunkId| match &tokens {
            None => 0,
            Some(map) => map.get(&chunk.0).copied().unwrap_or_else(|| {
                missing_tokens.borrow_mut().push(chunk.0);
                0
            }),
        };
        let trace = seams::replan(
            &input,
            &settings,
            &Lookups {
                links: &|s| lookup.get(s),
                tokens: &count,
            },
        )
        .map_err(settings_error)?;
        lookup.check()?;
        if let Some(chunk) = missing_tokens.borrow().first() {
            return Err(PyKeyError::new_err(format!(
                "no token count for chunk {chunk}, which the context holds: give every chunk's count, or none"
            )));
        }
        // The trace as `query --json` writes it, its decisions with the same extras as
        // `fire_test` gives. Through text, not `to_value`: that widens each f32 score to f64
        // digits (0.42424506 would come back as 0.42424505949020386).
        let json_error = |e: serde_json::Error| PyValueError::new_err(e.to_string());
        let mut value: serde_json::Value =
            serde_json::from_str(&to_json(&trace)?).map_err(json_error)?;
        let decisions: Vec<DecisionOut<'_>> =
            trace.decisions.iter().map(DecisionOut::new).collect();
        if let Some(map) = value.as_object_mut() {
            map.insert(
                "decisions".to_string(),
                serde_json::to_value(&decisions).map_err(json_error)?,
            );
        }
        to_json(&value)
    }

    /// The blake3 hash (hex) of a file's bytes, as `manifest.json` records it.
    #[pyfunction]
    fn blake3_file(path: std::path::PathBuf) -> PyResult<String> {
        let read_error =
            |e: std::io::Error| PyOSError::new_err(format!("cannot read {}: {e}", path.display()));
        let file = std::fs::File::open(&path).map_err(read_error)?;
        let mut hasher = blake3::Hasher::new();
        hasher.update_reader(file).map_err(read_error)?;
        Ok(hasher.finalize().to_hex().to_string())
    }

    /// The `seams` crate's default query settings (`k`, `m`, `budget`, `depth`, `rrf_c`, ...) as JSON.
    #[pyfunction]
    fn defaults() -> PyResult<String> {
        to_json(&QuerySettings::default())
    }
}
