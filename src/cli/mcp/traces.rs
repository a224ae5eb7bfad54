//! The `traces` tool: `seamscope traces` on the open corpus, a traces file the server may read
//! (inside the corpus folder or an `--allow-dir` folder), answered compactly: the figures over all
//! traced queries and the most suspect ones, each with the cut that points at it.

use std::path::Path;

use rmcp::schemars;
use serde::Deserialize;

use seamscope::chunk::ChunkerKind;
use seamscope::layout::Layout;
use seamscope::traces::{ReplayOptions, ReplaySearch, TracesReport};

use super::Workbench;
use super::compact::Detail;

/// Input of `traces`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct TracesParams {
    /// The traces file (OTLP JSON, JSONL of OpenInference spans, LangSmith runs, Langfuse
    /// observations or LangChain events; detected), inside the corpus folder or a folder the
    /// server was started with (`--allow-dir`); a relative path is read from the corpus folder.
    traces: String,
    /// A gold question file whose ids match the traces' `question_id` metadata, to score the
    /// rank (never used in it); same folders as `traces`.
    questions: Option<String>,
    /// Fire margin of the replay, 0 to 10000.
    m: Option<u32>,
    /// `dense` (default: a vector store's retriever, as most apps run) or `hybrid`.
    search: Option<SearchParam>,
    /// Suspect queries listed, 1 to 1000 (default 10).
    top: Option<usize>,
    /// `compact` (default: the figures and the top queries, a few KB) or `full` (the whole
    /// report of `seamscope traces --json`: every query with every cut beside its sent chunks).
    detail: Option<Detail>,
}

/// `search` of [`TracesParams`].
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum SearchParam {
    /// Dense search alone.
    Dense,
    /// Dense and BM25, fused.
    Hybrid,
}

impl Workbench {
    /// Read traces against the open corpus' documents, on the app's recovered cuts.
    pub(super) fn traces(&mut self, p: &TracesParams) -> Result<String, String> {
        let top = p.top.unwrap_or(10);
        if !(1..=1000).contains(&top) {
            return Err(format!("top must be 1 to 1000 (got {top})"));
        }
        let path = self.allowed.check(Path::new(&p.traces))?;
        let read = seamscope::traces::read_file(&path).map_err(|e| e.to_string())?;
        let gold = match &p.questions {
            Some(q) => {
                let path = self.question_file(Some(q))?;
                Some(
                    super::super::common::load_question_file(&path, &self.open.corpus)
                        .map_err(|e| format!("{e:#}"))?,
                )
            }
            None => None,
        };
        let corpus = self.open.corpus.clone();
        let prepared = seamscope::traces::prepare(read, &corpus);
        let cache_dir = self.engine.places.cache_dir.clone();
        let cuts = prepared
            .write_recovered_cuts(&corpus, &cache_dir)
            .map_err(|e| e.to_string())?;
        let mut settings = self.settings_with(p.m, None, None)?;
        settings.chunker = ChunkerKind::Given;
        settings.cuts_file = Some(cuts);
        let layout =
            Layout::for_settings_stored(&corpus, &self.engine.tokenizer, &settings, &cache_dir)
                .map_err(|e| e.to_string())?;
        errln!(
            "seamscope mcp: traces: indexing the app's cuts ({} chunks)",
            layout.chunks.len()
        );
        let app = self
            .engine
            .index_layout(corpus, layout, &mut |_| true)
            .map_err(|e| e.to_string())?;
        let search = match p.search {
            Some(SearchParam::Hybrid) => ReplaySearch::Hybrid,
            _ => ReplaySearch::Dense,
        };
        let options = ReplayOptions {
            query: settings.query_settings(),
            budget: None,
            near: None,
            search,
        };
        let engine = &mut self.engine;
        let report = seamscope::traces::judge(
            &prepared,
            &app.corpus,
            &app.layout,
            options,
            gold.as_deref(),
            |question, qs| seamscope::traces::replay(engine, &app, question, qs, search),
            &mut |done, total| {
                if done > 0 && (done.is_multiple_of(50) || done == total) {
                    errln!("seamscope mcp: traces replayed {done} of {total}");
                }
            },
        )?;
        if p.detail.unwrap_or_default() == Detail::Full {
            return serde_json::to_string(&report).map_err(|e| e.to_string());
        }
        brief(&report, top)
    }
}

/// The report in brief: its summary (three of the documents not placed) and the `top` queries,
/// each with its rank, question, suspicion, why, what was sent and what Seams adds.
fn brief(report: &TracesReport, top: usize) -> Result<String, String> {
    let queries: Vec<serde_json::Value> = report
        .queries
        .iter()
        .take(top)
        .map(|v| {
            serde_json::json!({
                "rank": v.rank,
                "question_id": v.question_id,
                "question": v.question.chars().take(160).collect::<String>(),
                "suspicion": (v.suspicion * 100.0).round() / 100.0,
                "why": v.why(),
                "sent": v.sent.iter().map(|s| s.chunk.map(|c| c.0)).collect::<Vec<_>>(),
                "seams_adds": v.seams_adds.iter().map(|c| c.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut summary = serde_json::to_value(&report.summary).map_err(|e| e.to_string())?;
    if let Some(p) = summary.get_mut("placement")
        && let Some(examples) = p.get_mut("not_placed_examples")
        && let Some(list) = examples.as_array_mut()
    {
        list.truncate(3);
    }
    serde_json::to_string(&serde_json::json!({"summary": summary, "queries": queries}))
        .map_err(|e| e.to_string())
}
