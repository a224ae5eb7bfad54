//! The `doctor` tool: the query-free diagnosis of `seamscope doctor --json` on the open corpus.

use rmcp::schemars;
use serde::Deserialize;

use seamscope::doctor::{DoctorOptions, DoctorProgress};

use super::Workbench;
use super::compact::Detail;

/// Input of `doctor`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DoctorParams {
    /// Chunks in the budget the sampled questions are asked at, 1 to 10000.
    budget: Option<usize>,
    /// Offline questions drawn for the hub findings, 0 to 100000 (default 100; 0 skips them).
    questions: Option<usize>,
    /// Seed of the draws.
    seed: Option<u64>,
    /// `compact` (default: each finding with its count, share and three worst examples) or
    /// `full` (also every location of every finding).
    detail: Option<Detail>,
}

impl Workbench {
    /// Diagnose the open corpus.
    pub(super) fn doctor(&mut self, p: &DoctorParams) -> Result<String, String> {
        let settings = self.settings_with(None, p.budget, None)?;
        if settings.budget == 0 {
            return Err("budget must be at least 1 to ask the sampled questions".to_string());
        }
        let questions = p
            .questions
            .unwrap_or(seamscope::doctor::hubs::DEFAULT_QUESTIONS);
        if questions > 100_000 {
            return Err(format!("questions must be 0 to 100000 (got {questions})"));
        }
        let options = DoctorOptions {
            questions,
            seed: p.seed.unwrap_or(0),
            ..DoctorOptions::default()
        };
        let mut progress = |p: DoctorProgress| {
            if let DoctorProgress::Asking { done, total } = p
                && done > 0
                && (done.is_multiple_of(50) || done == total)
            {
                errln!("seamscope mcp: doctor asked {done} of {total}");
            }
            true
        };
        let report = seamscope::doctor::diagnose(
            &mut self.engine,
            &self.open,
            &settings.query_settings(),
            &options,
            &mut progress,
        );
        let mut report = report
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "the diagnosis was stopped".to_string())?;
        if p.detail.unwrap_or_default() != Detail::Full {
            for f in &mut report.findings {
                f.locations.clear();
            }
        }
        serde_json::to_string(&report).map_err(|e| e.to_string())
    }
}
