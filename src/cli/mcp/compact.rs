//! The answers `query` and `calibrate` give by default: what an agent needs to reason about a
//! question in a few KB, not the whole trace (about 100 KB on the sample corpus, mostly search
//! lists and the layout's tables). `detail: "full"` still returns the whole document.

use rmcp::schemars;
use serde_json::{Value, json};

use seamscope::calibrate::CalibrationReport;
use seamscope::retrieve::{BudgetAction, ChunkId, Trace};
use seamscope::session::OpenCorpus;
use seamscope::text::safe_name;

/// The longest first line quoted for a context chunk, in characters.
const FIRST_LINE_CHARS: usize = 120;

/// How much an answer says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// The essentials, a few KB (the default).
    #[default]
    Compact,
    /// The whole document, as the command's `--json` writes it (about 100 KB).
    Full,
}

/// One chunk as an agent needs it: id, document, first line, tokens.
fn chunk_entry(open: &OpenCorpus, id: ChunkId, tokens: u32) -> Value {
    let chunk = open.layout.chunk(id);
    let doc = open.corpus.doc(chunk.doc);
    let first_line = doc
        .slice(chunk.span)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut line: String = first_line.chars().take(FIRST_LINE_CHARS).collect();
    if first_line.chars().count() > FIRST_LINE_CHARS {
        line.push('…');
    }
    json!({
        "chunk": id.0,
        "doc": safe_name(&doc.path),
        "first_line": safe_name(&line),
        "tokens": tokens,
    })
}

/// `query`'s compact answer: the context with Seams (each chunk, and the seam that brought it
/// when one did), the fired seams the budget fill reached with their arithmetic, tokens sent,
/// and the context without Seams beside it.
pub fn query(open: &OpenCorpus, trace: &Trace) -> Value {
    let brought_by = |chunk: ChunkId| {
        trace.fill.steps.iter().find_map(|step| match &step.action {
            BudgetAction::AddedPair { added } if added.contains(&chunk) => step
                .entry
                .seam()
                .map(|s| open.seam_label(s).trim_start_matches("seam ").to_string()),
            _ => None,
        })
    };
    let context: Vec<Value> = trace
        .context
        .iter()
        .map(|c| {
            let mut entry = chunk_entry(open, c.chunk, c.tokens);
            if let Some(seam) = brought_by(c.chunk) {
                entry["brought_by_seam"] = json!(seam);
            }
            entry
        })
        .collect();
    let in_context = |id: ChunkId| trace.fill.chunks.contains(&id);
    let fired: Vec<Value> = trace
        .decisions_reached()
        .map(|(_, d)| d)
        .filter(|d| d.fires)
        .map(|d| {
            json!({
                "seam": d.seam.0,
                "pair": format!("{}|{}", d.left.chunk.0, d.right.chunk.0),
                "seam_rank": d.seam_position,
                "left_rank": d.left.fused_position,
                "right_rank": d.right.fused_position,
                "m": d.m,
                "test": d.arithmetic(),
                "both_in_context": in_context(d.left.chunk) && in_context(d.right.chunk),
            })
        })
        .collect();
    let reached = trace.decisions_reached().count();
    let shown = trace.without_seams.shown();
    let tokens_of = |id: ChunkId| open.layout.chunk(id).tokens;
    let without: Vec<Value> = shown
        .without_seams
        .iter()
        .map(|&id| chunk_entry(open, id, tokens_of(id)))
        .collect();
    let without_tokens: u64 = shown
        .without_seams
        .iter()
        .map(|&id| u64::from(tokens_of(id)))
        .sum();
    let s = &trace.settings;
    json!({
        "detail": "compact",
        "question": trace.question(),
        "settings": {"k": s.k, "m": s.m, "budget": s.budget, "depth": s.depth, "side_drop": s.side_drop},
        "context": context,
        "tokens_sent": trace.tokens_sent,
        "fired_seams": fired,
        "seams_reached": reached,
        "without_seams": {
            "baseline": shown.baseline,
            "context": without,
            "tokens_sent": without_tokens,
        },
        "chunks_seams_added": shown.added.iter().map(|c| c.0).collect::<Vec<_>>(),
        "chunks_seams_displaced": shown.displaced.iter().map(|c| c.0).collect::<Vec<_>>(),
        "more": "call again with detail \"full\" for the whole trace (fused ranking, every fire test, the fill step by step, the layout's chunks and seams: about 100 KB); `explain` with seam \"L|R\" says in words why one seam fired or not",
    })
}

/// `calibrate`'s compact answer: the setup, the verdict, the failure-vs-m curve (rates,
/// intervals and mean tokens per m, and Seams off), the white paper's rule and the warnings;
/// without the per-question samples.
pub fn calibrate(report: &CalibrationReport) -> Result<Value, String> {
    let full = serde_json::to_value(report).map_err(|e| e.to_string())?;
    let point = |p: &Value| {
        json!({
            "m": p["m"],
            "failure_rate": rounded(&p["failure_rate"], 4),
            "interval": [rounded(&p["interval"]["low"], 4), rounded(&p["interval"]["high"], 4)],
            "mean_tokens": rounded(&p["mean_tokens"], 1),
            "fires_per_question": rounded(&p["fires_per_question"], 3),
        })
    };
    let objective = &full["objective"];
    let curve: Vec<Value> = objective["points"]
        .as_array()
        .map(|points| points.iter().map(point).collect())
        .unwrap_or_default();
    let setup = &full["setup"];
    Ok(json!({
        "detail": "compact",
        "setup": {
            "corpus": setup["corpus"],
            "embedder": setup["embedder"],
            "chunker": setup["chunker"],
            "k": setup["k"],
            "depth": setup["depth"],
            "budget": setup["budget"],
            "objective_source": setup["objective_source"],
            "generator": setup["generator"],
            "seed": setup["seed"],
        },
        "verdict": full["verdict"],
        "curve": {
            "questions": objective["questions"],
            "points": curve,
            "off": point(&objective["off"]),
            "indistinguishable_from_best": objective["indistinguishable"],
        },
        "paper_rule": full["paper_rule"],
        "warnings": full["warnings"],
        "more": "call again with detail \"full\" for the whole report of `seamscope calibrate --json` (every sampled sentence and passage: about 120 KB)",
    }))
}

/// A number with `places` decimals (other values as they are): a rate to 4 places says all a
/// 95% interval can.
fn rounded(value: &Value, places: i32) -> Value {
    match value.as_f64() {
        Some(x) => {
            let scale = 10f64.powi(places);
            json!((x * scale).round() / scale)
        }
        None => value.clone(),
    }
}
