//! A regression gate for CI: save an evaluation's rows as a baseline, and compare a later run
//! against it, failing when a strategy's failure rate rises by more than a set number of points.
//!
//! Rows are matched by label. A row in only one of the two runs is listed, never silently
//! dropped; a baseline made on another question count or budget is named in the comparison, as
//! its rates are not comparable point for point.

use serde::{Deserialize, Serialize};

use super::grid::GridRow;

/// The file format's version; a baseline of another version is refused with a clear error.
pub const BASELINE_VERSION: u32 = 1;

/// One strategy's numbers as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineRow {
    /// The strategy's label, e.g. `Seams k=150`.
    pub label: String,
    /// 1 − recall@budget.
    pub failure_rate: f64,
    /// Mean tokens sent per answer.
    pub mean_tokens: f64,
    /// Vectors in its index.
    pub vectors: usize,
}

/// What a saved run was, and its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// [`BASELINE_VERSION`].
    pub version: u32,
    /// Questions scored.
    pub questions: usize,
    /// Final budget, in chunks.
    pub budget: usize,
    /// Free-form description of the run (corpus, chunker, question file).
    pub description: String,
    /// The embedder whose rankings were measured (its identity); absent in baselines written
    /// before it was recorded.
    #[serde(default)]
    pub embedder: Option<String>,
    /// The rows.
    pub rows: Vec<BaselineRow>,
}

impl Baseline {
    /// A baseline of `rows`.
    pub fn of(
        rows: &[GridRow],
        questions: usize,
        budget: usize,
        description: String,
        embedder: Option<String>,
    ) -> Self {
        Baseline {
            version: BASELINE_VERSION,
            questions,
            budget,
            description,
            embedder,
            rows: rows
                .iter()
                .map(|r| BaselineRow {
                    label: r.label.clone(),
                    failure_rate: r.failure_rate,
                    mean_tokens: r.mean_tokens,
                    vectors: r.vectors,
                })
                .collect(),
        }
    }

    /// Read a baseline from JSON text, refusing other versions.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let b: Baseline =
            serde_json::from_str(text).map_err(|e| format!("not a seamscope baseline: {e}"))?;
        if b.version != BASELINE_VERSION {
            return Err(format!(
                "baseline version {} is not {BASELINE_VERSION}; save it again with this seamscope",
                b.version
            ));
        }
        Ok(b)
    }
}

/// One strategy before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowChange {
    /// The strategy's label.
    pub label: String,
    /// Failure rate in the baseline.
    pub before: f64,
    /// Failure rate now.
    pub after: f64,
    /// `after − before`, in percentage points.
    pub points: f64,
    /// Mean tokens in the baseline and now.
    pub tokens: (f64, f64),
    /// The rise is more than the allowed points.
    pub regressed: bool,
}

/// A run compared with a baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BaselineComparison {
    /// Allowed rise, in percentage points.
    pub fail_over: f64,
    /// Rows present in both.
    pub changes: Vec<RowChange>,
    /// Labels only the baseline has.
    pub missing: Vec<String>,
    /// Labels only this run has.
    pub new: Vec<String>,
    /// Why the two runs are not comparable point for point, when they are not.
    pub mismatch: Option<String>,
}

impl BaselineComparison {
    /// Whether any row's failure rate rose by more than the allowed points.
    pub fn regressed(&self) -> bool {
        self.changes.iter().any(|c| c.regressed)
    }
}

/// Compare `rows` (scored on `questions` at `budget`) with `baseline`, allowing a rise of
/// `fail_over` percentage points.
pub fn compare(
    baseline: &Baseline,
    rows: &[GridRow],
    questions: usize,
    budget: usize,
    fail_over: f64,
) -> BaselineComparison {
    let mut changes = Vec::new();
    let mut new = Vec::new();
    for r in rows {
        match baseline.rows.iter().find(|b| b.label == r.label) {
            Some(b) => {
                let points = (r.failure_rate - b.failure_rate) * 100.0;
                changes.push(RowChange {
                    label: r.label.clone(),
                    before: b.failure_rate,
                    after: r.failure_rate,
                    points,
                    tokens: (b.mean_tokens, r.mean_tokens),
                    // A rounding hair above the limit is not a regression.
                    regressed: points > fail_over + 1e-9,
                });
            }
            None => new.push(r.label.clone()),
        }
    }
    let missing = baseline
        .rows
        .iter()
        .filter(|b| !rows.iter().any(|r| r.label == b.label))
        .map(|b| b.label.clone())
        .collect();
    let mismatch = (baseline.questions != questions || baseline.budget != budget).then(|| {
        format!(
            "the baseline scored {} questions at budget {}, this run {} at budget {}",
            baseline.questions, baseline.budget, questions, budget
        )
    });
    BaselineComparison {
        fail_over,
        changes,
        missing,
        new,
        mismatch,
    }
}
