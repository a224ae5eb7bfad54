//! Constraints a user states on the board: "each passage stored once", "at most X× the vectors
//! of the chunks alone", "at most P% of the tokens sent twice". A board under constraints still
//! shows every row, but the verdict (and the map's leaders) are judged among the rows that
//! satisfy them, and the board says which rows were left out and why, and which row would lead
//! without them, so a constraint never hides what it costs.

use serde::{Deserialize, Serialize};

use super::BoardRow;

/// What the rows the verdict judges must satisfy (the default: nothing).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Constraints {
    /// Only strategies that store each passage once (no two stored units share text).
    pub once: bool,
    /// At most this many vectors per chunk of the base layout (chunks only stores 1×).
    pub max_vectors: Option<f64>,
    /// At most this share (0–1) of the tokens sent sent more than once.
    pub max_duplicate_share: Option<f64>,
}

impl Constraints {
    /// Whether any constraint is set.
    pub fn any(&self) -> bool {
        self.once || self.max_vectors.is_some() || self.max_duplicate_share.is_some()
    }

    /// Whether the values make sense: chunks only (1× the vectors, nothing sent twice, stored
    /// once) must satisfy them, since it is the baseline every row is judged against.
    pub fn check(&self) -> Result<(), String> {
        if let Some(x) = self.max_vectors
            && !(x.is_finite() && x >= 1.0)
        {
            return Err(format!(
                "--max-vectors {x}: chunks only stores 1× the vectors and is always on the board; give 1 or more"
            ));
        }
        if let Some(p) = self.max_duplicate_share
            && !(p.is_finite() && (0.0..=1.0).contains(&p))
        {
            return Err(format!(
                "--max-duplicate-share {}: a share of the tokens sent, from 0 to 100 (percent)",
                p * 100.0
            ));
        }
        Ok(())
    }

    /// Why `row` breaks the constraints, in words (`None` when it satisfies them).
    pub fn why_excluded(&self, row: &BoardRow) -> Option<String> {
        let mut why = Vec::new();
        if self.once && !row.stores_once {
            why.push("stores overlapping text".to_string());
        }
        if let Some(x) = self.max_vectors
            && row.vectors_vs_chunks > x + 1e-9
        {
            why.push(format!("{:.2}× the vectors > {x}×", row.vectors_vs_chunks));
        }
        if let Some(p) = self.max_duplicate_share
            && row.duplicate_share > p + 1e-12
        {
            why.push(format!(
                "{:.1}% of its tokens sent twice > {}%",
                row.duplicate_share * 100.0,
                trim(p * 100.0)
            ));
        }
        (!why.is_empty()).then(|| why.join(", "))
    }

    /// The limits `row` breaks, each in a few words without its own figures (`stores
    /// overlapping text`, `over 2× the vectors`), for grouping rows.
    pub fn broken(&self, row: &BoardRow) -> Vec<String> {
        let mut out = Vec::new();
        if self.once && !row.stores_once {
            out.push("stores overlapping text".to_string());
        }
        if let Some(x) = self.max_vectors
            && row.vectors_vs_chunks > x + 1e-9
        {
            out.push(format!("over {}× the vectors", trim(x)));
        }
        if let Some(p) = self.max_duplicate_share
            && row.duplicate_share > p + 1e-12
        {
            out.push(format!("over {}% sent twice", trim(p * 100.0)));
        }
        out
    }

    /// The constraints in words, e.g. `each passage stored once, at most 1.5× the vectors`
    /// (`None` when none is set).
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.once {
            parts.push("each passage stored once".to_string());
        }
        if let Some(x) = self.max_vectors {
            parts.push(format!("at most {}× the vectors of the chunks", trim(x)));
        }
        if let Some(p) = self.max_duplicate_share {
            parts.push(format!(
                "at most {}% of the tokens sent twice",
                trim(p * 100.0)
            ));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// `1.5` → `1.5`, `2.0` → `2`.
fn trim(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Which rows `constraints` left out, grouped by family, in words: `overlap (4 rows: stores
/// overlapping text), windows 128/64 (16.80× the vectors > 4×)`.
pub fn excluded_words(rows: &[BoardRow], constraints: &Constraints) -> Option<String> {
    let mut groups: Vec<(super::Family, Vec<&BoardRow>)> = Vec::new();
    for r in rows.iter().filter(|r| r.excluded.is_some()) {
        match groups.iter_mut().find(|(f, _)| *f == r.family) {
            Some((_, v)) => v.push(r),
            None => groups.push((r.family, vec![r])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(f, v)| match v.as_slice() {
            [one] => format!(
                "{} ({})",
                one.label,
                one.excluded.as_deref().unwrap_or_default()
            ),
            many => {
                let mut why: Vec<String> = Vec::new();
                for r in many {
                    for b in constraints.broken(r) {
                        if !why.contains(&b) {
                            why.push(b);
                        }
                    }
                }
                format!("{} ({} rows: {})", f.name(), many.len(), why.join(", "))
            }
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Family, RowSettings};
    use crate::calibrate::interval::wilson;

    fn row(label: &str, family: Family, once: bool, vectors: f64, dup: f64) -> BoardRow {
        BoardRow {
            label: label.into(),
            family,
            settings: RowSettings::ChunksOnly,
            members: Vec::new(),
            failures: 0,
            failure_rate: 0.0,
            interval: wilson(0, 10),
            tokens: 100.0,
            distinct_tokens: 100.0,
            duplicated_tokens: dup * 100.0,
            duplicate_share: dup,
            passages_twice: 0.0,
            span_precision: 0.0,
            span_iou: 0.0,
            stores_once: once,
            vectors: 10,
            vectors_vs_chunks: vectors,
            build_seconds: 0.0,
            embedded_texts: 0,
            fires_per_question: 0.0,
            pareto: false,
            p_best: None,
            excluded: None,
            failed: vec![false; 10],
            tokens_sent: vec![100; 10],
            duplicated_sent: vec![0; 10],
            per_question: Vec::new(),
        }
    }

    #[test]
    fn each_constraint_says_what_it_excludes() {
        let c = Constraints {
            once: true,
            max_vectors: Some(2.0),
            max_duplicate_share: Some(0.05),
        };
        assert!(c.any() && c.check().is_ok());
        let chunks = row("chunks only", Family::None, true, 1.0, 0.0);
        assert_eq!(c.why_excluded(&chunks), None);
        let seams = row("Seams k 150 m 1", Family::Seams, true, 1.98, 0.0);
        assert_eq!(c.why_excluded(&seams), None);
        let overlap = row("overlap 25%", Family::Overlap, false, 1.32, 0.111);
        assert_eq!(
            c.why_excluded(&overlap).unwrap(),
            "stores overlapping text, 11.1% of its tokens sent twice > 5%"
        );
        let windows = row("windows 128/64", Family::Windows, true, 16.8, 0.0);
        assert_eq!(c.why_excluded(&windows).unwrap(), "16.80× the vectors > 2×");
        assert_eq!(
            c.describe().unwrap(),
            "each passage stored once, at most 2× the vectors of the chunks, at most 5% of the tokens sent twice"
        );
        assert_eq!(Constraints::default().describe(), None);
        assert!(!Constraints::default().any());
    }

    #[test]
    fn constraints_that_would_exclude_the_baseline_are_refused() {
        let low = Constraints {
            max_vectors: Some(0.5),
            ..Constraints::default()
        };
        assert!(low.check().unwrap_err().contains("chunks only"));
        let share = Constraints {
            max_duplicate_share: Some(1.5),
            ..Constraints::default()
        };
        assert!(share.check().unwrap_err().contains("0 to 100"));
        let nan = Constraints {
            max_vectors: Some(f64::NAN),
            ..Constraints::default()
        };
        assert!(nan.check().is_err());
    }

    #[test]
    fn excluded_rows_are_grouped_by_family() {
        let c = Constraints {
            once: true,
            max_vectors: Some(2.0),
            ..Constraints::default()
        };
        let mut rows = vec![
            row("windows 256/128", Family::Windows, true, 8.37, 0.0),
            row("windows 128/64", Family::Windows, true, 15.87, 0.0),
            row("overlap 10%", Family::Overlap, false, 1.1, 0.04),
            row("overlap 25%", Family::Overlap, false, 1.3, 0.11),
            row("Seams k 150 m 1", Family::Seams, true, 1.98, 0.0),
            row(
                "overlap 15% + Seams k 150 m 2",
                Family::OverlapSeams,
                false,
                2.1,
                0.07,
            ),
        ];
        for r in &mut rows {
            r.excluded = c.why_excluded(r);
        }
        assert_eq!(
            excluded_words(&rows, &c).unwrap(),
            "windows (2 rows: over 2× the vectors), overlap (2 rows: stores overlapping text), \
             overlap 15% + Seams k 150 m 2 (stores overlapping text, 2.10× the vectors > 2×)"
        );
        rows.retain(|r| r.family == Family::Seams);
        assert_eq!(excluded_words(&rows, &c), None);
    }
}
