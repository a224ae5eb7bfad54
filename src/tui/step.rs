//! Presenter mode: a query's decisions in the order a talk tells them.
//!
//! Each search list (dense, BM25 over chunks, BM25 over seams), then fusion, then the fire test
//! of every seam the budget fill reached, in fused order, then each step of the budget fill, and
//! last the context with Seams beside the one without. Everything comes straight from the
//! engine's [`Trace`]; this module only orders the decisions, says what each one decided in a
//! sentence a presenter can read aloud, and tells the panes how much has been revealed.

use seamscope::chunk::ChunkId;
use seamscope::retrieve::{Baseline, EntryRef, ListSource, RankedList, RankingInput, Trace};
use seamscope::session::OpenCorpus;

use crate::tui::widgets::gauge::thousands;

/// One decision of a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Search list `i` of the Seams ranking, as it entered fusion.
    Search(usize),
    /// Reciprocal rank fusion of the lists.
    Fuse,
    /// The fire test of `trace.decisions[i]`.
    Fire(usize),
    /// Step `i` of the budget fill (`trace.fill.steps[i]`).
    Fill(usize),
    /// The context with Seams beside the one without.
    Compare,
}

/// The search lists of a trace as fusion read them (cut to the depth), empty for a ranking
/// given as is.
pub fn search_lists(trace: &Trace) -> Vec<RankedList> {
    match &trace.input.ranking {
        RankingInput::Lists(lists) => lists
            .iter()
            .map(|l| l.truncated(trace.settings.depth))
            .collect(),
        RankingInput::Fused(_) => Vec::new(),
    }
}

/// The decisions of `trace` in walking order.
pub fn steps(trace: &Trace) -> Vec<Step> {
    let lists = match &trace.input.ranking {
        RankingInput::Lists(lists) => lists.len(),
        RankingInput::Fused(_) => 0,
    };
    let fire = trace.decisions_reached().map(|(i, _)| Step::Fire(i));
    let fill = (0..trace.fill.steps.len()).map(Step::Fill);
    (0..lists)
        .map(Step::Search)
        .chain([Step::Fuse])
        .chain(fire)
        .chain(fill)
        .chain([Step::Compare])
        .collect()
}

/// How much of a trace the panes show: all of it, or what presenter mode has reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reveal {
    /// The search list the ranking pane shows instead of the fused ranking.
    pub list: Option<usize>,
    /// Decisions `0..decisions` of the fire test have been made.
    pub decisions: usize,
    /// Steps `0..fill_steps` of the budget fill have been taken.
    pub fill_steps: usize,
    /// The chunks in the context so far.
    pub context: Vec<ChunkId>,
    /// Whether the comparison with the chunks-only context is shown.
    pub compare: bool,
}

impl Reveal {
    /// Everything: the screen outside presenter mode.
    pub fn all(trace: &Trace) -> Reveal {
        Reveal {
            list: None,
            decisions: trace.decisions.len(),
            fill_steps: trace.fill.steps.len(),
            context: trace.fill.chunks.clone(),
            compare: true,
        }
    }

    /// What has been reached at `step`.
    pub fn at(trace: &Trace, step: Step) -> Reveal {
        let all_decisions = trace.decisions.len();
        let (list, decisions, fill_steps, compare) = match step {
            Step::Search(i) => (Some(i), 0, 0, false),
            Step::Fuse => (None, 0, 0, false),
            Step::Fire(i) => (None, i + 1, 0, false),
            Step::Fill(i) => (None, all_decisions, i + 1, false),
            Step::Compare => (None, all_decisions, trace.fill.steps.len(), true),
        };
        Reveal {
            list,
            decisions,
            fill_steps,
            context: trace.fill.chunks_after(fill_steps),
            compare,
        }
    }

    /// Whether the fire test of `trace.decisions[i]` has been shown.
    pub fn decided(&self, i: usize) -> bool {
        i < self.decisions
    }
}

/// The name of a search list on screen.
pub fn list_name(source: ListSource) -> &'static str {
    match source {
        ListSource::Dense => "Dense search",
        ListSource::KeywordChunks => "BM25 over chunks",
        ListSource::KeywordSeams => "BM25 over seams",
    }
}

impl Step {
    /// The chunk or seam the step is about (for a list or fusion: its first entry).
    pub fn entry(self, trace: &Trace) -> Option<EntryRef> {
        match self {
            Step::Search(i) => search_lists(trace).get(i)?.hits.first().map(|h| h.entry),
            Step::Fuse => trace.fused.first().map(|e| e.entry),
            Step::Fire(i) => trace.decisions.get(i).map(|d| EntryRef::Seam(d.seam)),
            Step::Fill(i) => trace.fill.steps.get(i).map(|s| s.entry),
            Step::Compare => {
                let cmp = trace.without_seams.shown();
                cmp.added
                    .first()
                    .or(cmp.with_seams.first())
                    .map(|c| EntryRef::Chunk(*c))
            }
        }
    }

    /// The entry's 1-based fused position (fire tests and fill steps only).
    pub fn position(self, trace: &Trace) -> Option<usize> {
        match self {
            Step::Fire(i) => trace.decisions.get(i).map(|d| d.seam_position),
            Step::Fill(i) => trace.fill.steps.get(i).map(|s| s.position),
            Step::Search(_) | Step::Fuse | Step::Compare => None,
        }
    }

    /// The stage this step belongs to.
    pub fn stage(self, trace: &Trace) -> String {
        match self {
            Step::Search(i) => search_lists(trace)
                .get(i)
                .map_or("search", |l| list_name(l.source))
                .to_string(),
            Step::Fuse => "rank fusion".to_string(),
            Step::Fire(_) => "fire test".to_string(),
            Step::Fill(_) => "budget fill".to_string(),
            Step::Compare => "with vs without Seams".to_string(),
        }
    }

    /// The caption a presenter reads aloud: what this step decided, in words.
    pub fn describe(self, trace: &Trace, open: &OpenCorpus) -> String {
        match self {
            Step::Search(i) => describe_list(trace, open, i),
            Step::Fuse => format!(
                "Rank fusion: each entry scores Σ 1/(c + rank) over the lists it is in (c = {}); \
                 raw scores are never compared. {} entries.",
                trace.settings.rrf_c,
                trace.fused.len(),
            ),
            Step::Fire(i) => match trace.decisions.get(i) {
                Some(d) => format!(
                    "{} at #{}: {} — {}",
                    open.seam_label(d.seam),
                    d.seam_position,
                    d.arithmetic(),
                    d.reason()
                ),
                None => String::new(),
            },
            Step::Fill(i) => match trace.fill.steps.get(i) {
                Some(s) => format!(
                    "#{} {}: {}; {} of {} slots used",
                    s.position,
                    short_name(open, s.entry),
                    s.action.describe(),
                    s.slots_used_after,
                    trace.fill.budget
                ),
                None => String::new(),
            },
            Step::Compare => describe_compare(trace),
        }
    }
}

fn describe_list(trace: &Trace, open: &OpenCorpus, i: usize) -> String {
    let lists = search_lists(trace);
    let Some(list) = lists.get(i) else {
        return String::new();
    };
    let what = match list.source {
        ListSource::Dense => "the question's vector against every chunk and seam, in one list",
        ListSource::KeywordChunks => "the question's words against the chunks alone",
        ListSource::KeywordSeams => "the question's words against the seam windows alone",
    };
    let top = list.hits.first().map_or("nothing".to_string(), |h| {
        format!("{} ({:.3})", short_name(open, h.entry), h.score)
    });
    format!(
        "{}: {what}; {} hits kept. #1 is {top}.",
        list_name(list.source),
        list.hits.len(),
    )
}

/// `chunk 40` or `seam 40|41`.
pub fn short_name(open: &OpenCorpus, entry: EntryRef) -> String {
    match entry {
        EntryRef::Chunk(c) => format!("chunk {}", c.0),
        EntryRef::Seam(s) => open.seam_label(s),
    }
}

fn describe_compare(trace: &Trace) -> String {
    let cmp = trace.without_seams.shown();
    let ids = |v: &[ChunkId]| {
        v.iter()
            .map(|c| c.0.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let change = match (cmp.added.is_empty(), cmp.displaced.is_empty()) {
        (true, true) => "the same chunks: Seams changed nothing here".to_string(),
        _ => format!(
            "Seams added {} and displaced {}",
            if cmp.added.is_empty() {
                "none".to_string()
            } else {
                format!("chunk {}", ids(&cmp.added))
            },
            if cmp.displaced.is_empty() {
                "none".to_string()
            } else {
                format!("chunk {}", ids(&cmp.displaced))
            }
        ),
    };
    let baseline = match cmp.baseline {
        Baseline::ChunksOnlyRetrieval => "a chunks-only retrieval",
        Baseline::SeamsRemoved => "this ranking with its seams deleted",
    };
    format!(
        "With Seams the context is chunks {} ({} tokens); without Seams ({baseline}) it is \
         chunks {}: {change}.",
        ids(&cmp.with_seams),
        thousands(trace.tokens_sent as usize),
        ids(&cmp.without_seams),
    )
}
