//! `eval`'s progress lines on stderr: 10,000 questions take minutes, and a silent run looks hung.
//!
//! Lines go to stderr only (stdout stays the table, or one JSON document under `--json`): when
//! the questions start and finish embedding, when each strategy starts, and in between at each
//! tenth of the questions embedded or searched, but no sooner than [`QUIET`] after the last
//! line, so a log of a long run holds a line every few seconds and a short run a dozen lines.

use std::time::{Duration, Instant};

use seamscope::eval::CompareProgress;

/// The least time between two lines inside one stage.
const QUIET: Duration = Duration::from_secs(5);

/// Turns the engine's progress into a few lines on stderr.
#[derive(Debug)]
pub struct EvalProgressLines {
    /// The stage of the last line (0: questions, else strategy index + 1) and its tenth.
    last: Option<(usize, usize)>,
    /// When the last line was written.
    said_at: Instant,
    /// The least time between two lines inside one stage.
    quiet: Duration,
}

impl Default for EvalProgressLines {
    fn default() -> Self {
        EvalProgressLines::with_quiet(QUIET)
    }
}

impl EvalProgressLines {
    /// Lines at least `quiet` apart inside a stage.
    pub fn with_quiet(quiet: Duration) -> Self {
        EvalProgressLines {
            last: None,
            said_at: Instant::now(),
            quiet,
        }
    }

    /// Report `p` when it is worth a line.
    pub fn update(&mut self, p: CompareProgress<'_>) {
        if let Some(line) = self.line(p) {
            errln!("{line}");
        }
    }

    /// The line `p` is worth, if any.
    fn line(&mut self, p: CompareProgress<'_>) -> Option<String> {
        match p {
            CompareProgress::Questions { done, total } => {
                let edge = done <= 1 || done == total;
                self.due(0, done, total, edge)
                    .map(|pct| format!("eval: embedding questions: {done}/{total} ({pct}%)"))
            }
            CompareProgress::Strategy {
                index,
                count,
                label,
            } => {
                self.due(index + 1, 0, 1, true);
                Some(format!("eval: [{}/{count}] {label}", index + 1))
            }
            CompareProgress::Searching {
                index,
                count,
                label,
                done,
                total,
            } => self.due(index + 1, done, total, false).map(|pct| {
                format!(
                    "eval: [{}/{count}] {label}: {done}/{total} questions searched ({pct}%)",
                    index + 1
                )
            }),
        }
    }

    /// The percentage to show when `done` of `total` in `stage` deserves a line: always when
    /// `edge`, else at a new tenth once the stage has been quiet long enough.
    fn due(&mut self, stage: usize, done: usize, total: usize, edge: bool) -> Option<usize> {
        let total = total.max(1);
        let tenth = done * 10 / total;
        let new_tenth = self
            .last
            .filter(|(s, _)| *s == stage)
            .is_none_or(|(_, t)| tenth > t);
        if !(edge || new_tenth && self.said_at.elapsed() >= self.quiet) {
            return None;
        }
        self.last = Some((stage, tenth));
        self.said_at = Instant::now();
        Some(done * 100 / total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(quiet: Duration) -> Vec<String> {
        let mut p = EvalProgressLines::with_quiet(quiet);
        let mut out = Vec::new();
        for done in 1..=200 {
            out.extend(p.line(CompareProgress::Questions { done, total: 200 }));
        }
        for index in 0..2 {
            let label = "Seams k=30";
            out.extend(p.line(CompareProgress::Strategy {
                index,
                count: 2,
                label,
            }));
            for done in 1..=200 {
                out.extend(p.line(CompareProgress::Searching {
                    index,
                    count: 2,
                    label,
                    done,
                    total: 200,
                }));
            }
        }
        out
    }

    #[test]
    fn a_slow_run_reports_each_tenth_and_a_fast_one_only_its_stages() {
        let slow = lines(Duration::ZERO);
        assert_eq!(slow.len(), 11 + 2 * 11, "{slow:#?}");
        assert!(slow.contains(&"eval: embedding questions: 100/200 (50%)".to_string()));
        assert!(
            slow.contains(&"eval: [2/2] Seams k=30: 20/200 questions searched (10%)".to_string())
        );
        let fast = lines(Duration::from_secs(3600));
        assert_eq!(
            fast,
            [
                "eval: embedding questions: 1/200 (0%)",
                "eval: embedding questions: 200/200 (100%)",
                "eval: [1/2] Seams k=30",
                "eval: [2/2] Seams k=30",
            ]
        );
    }
}
