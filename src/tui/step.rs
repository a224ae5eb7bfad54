//! Step mode: a query's decisions in the order the white paper's worked example tells them.
//!
//! First the fire test of every seam the budget fill reached, in fused order; then each step of
//! the budget fill. Both come straight from the engine's [`Trace`]; this module only orders them
//! for walking and says in words what each one decided.

use seamscope::retrieve::{EntryRef, Trace};
use seamscope::session::OpenCorpus;

/// One decision of a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The fire test of `trace.decisions[i]`.
    Fire(usize),
    /// Step `i` of the budget fill (`trace.fill.steps[i]`).
    Fill(usize),
}

/// The decisions of `trace` in walking order.
pub fn steps(trace: &Trace) -> Vec<Step> {
    let reach = trace.fill.steps.last().map_or(0, |s| s.position);
    let fire = trace
        .decisions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.seam_position <= reach)
        .map(|(i, _)| Step::Fire(i));
    let fill = (0..trace.fill.steps.len()).map(Step::Fill);
    fire.chain(fill).collect()
}

impl Step {
    /// The chunk or seam under test.
    pub fn entry(self, trace: &Trace) -> Option<EntryRef> {
        match self {
            Step::Fire(i) => trace.decisions.get(i).map(|d| EntryRef::Seam(d.seam)),
            Step::Fill(i) => trace.fill.steps.get(i).map(|s| s.entry),
        }
    }

    /// The entry's 1-based fused position.
    pub fn position(self, trace: &Trace) -> Option<usize> {
        match self {
            Step::Fire(i) => trace.decisions.get(i).map(|d| d.seam_position),
            Step::Fill(i) => trace.fill.steps.get(i).map(|s| s.position),
        }
    }

    /// The stage this step belongs to.
    pub fn stage(self) -> &'static str {
        match self {
            Step::Fire(_) => "fire test",
            Step::Fill(_) => "budget fill",
        }
    }

    /// What was decided, in words: the fire test's arithmetic, or the fill's action and slots.
    pub fn describe(self, trace: &Trace, open: &OpenCorpus) -> String {
        match self {
            Step::Fire(i) => match trace.decisions.get(i) {
                Some(d) => {
                    let absent = if d.fired_on_absence {
                        " (passed only because a linked chunk is absent from the ranking)"
                    } else {
                        ""
                    };
                    format!(
                        "{} at position {}: {}{absent}",
                        open.seam_label(d.seam),
                        d.seam_position,
                        d.arithmetic()
                    )
                }
                None => String::new(),
            },
            Step::Fill(i) => match trace.fill.steps.get(i) {
                Some(s) => format!(
                    "position {}, {}: {}; {} of {} slots used",
                    s.position,
                    open.entry_label(s.entry),
                    s.action.describe(),
                    s.slots_used_after,
                    trace.fill.budget
                ),
                None => String::new(),
            },
        }
    }
}
