//! The white paper's worked example (section 3.2), verbatim: seam 7|8 fires, seam 12|13 does not,
//! and a budget of five holds chunks 7, 8, 12, 3 and 20.

use seamscope::chunk::ChunkId;
use seamscope::retrieve::{
    Baseline, BudgetAction, BudgetStep, Comparison, EntryRef, FusedEntry, Lookups, Plan,
    QueryInput, QuerySettings, RankingInput, RerankInput, RerankStatus, chunks_only, fill_budget,
    fire_test, replan,
};
use seamscope::seam::SeamId;

const SEAM_7_8: SeamId = SeamId(78);
const SEAM_12_13: SeamId = SeamId(1213);

fn links(seam: SeamId) -> (ChunkId, ChunkId) {
    match seam {
        SEAM_7_8 => (ChunkId(7), ChunkId(8)),
        SEAM_12_13 => (ChunkId(12), ChunkId(13)),
        other => (ChunkId(other.0), ChunkId(other.0 + 1)),
    }
}

fn chunk(id: u32) -> EntryRef {
    EntryRef::Chunk(ChunkId(id))
}

fn ids(v: &[u32]) -> Vec<ChunkId> {
    v.iter().copied().map(ChunkId).collect()
}

/// Positions 1-11 of the example; chunk 13 is absent.
fn fused_ranking() -> Vec<FusedEntry> {
    [
        EntryRef::Seam(SEAM_7_8),   // 1: the whole argument
        chunk(12),                  // 2: an earlier section on read replicas
        EntryRef::Seam(SEAM_12_13), // 3: the cut after chunk 12
        chunk(7),                   // 4: the trade-off
        chunk(3),                   // 5: background
        chunk(20),                  // 6: background
        chunk(15),                  // 7: background
        chunk(30),                  // 8: other
        chunk(31),                  // 9: other
        chunk(32),                  // 10: other
        chunk(8),                   // 11: the decision and the exception
    ]
    .into_iter()
    .map(FusedEntry::given)
    .collect()
}

fn step(position: usize, entry: EntryRef, action: BudgetAction, used: usize) -> BudgetStep {
    BudgetStep {
        position,
        entry,
        action,
        slots_used_after: used,
    }
}

#[test]
fn retrieve_worked_example_fire_test() {
    let fused = fused_ranking();
    let decisions = fire_test(&fused, &links, 3);
    assert_eq!(decisions.len(), 2);

    let seam_7_8 = &decisions[0];
    assert_eq!(seam_7_8.seam, SEAM_7_8);
    assert_eq!(seam_7_8.seam_position, 1);
    assert_eq!(seam_7_8.left.fused_position, Some(4));
    assert_eq!(seam_7_8.right.fused_position, Some(11));
    assert!(seam_7_8.fires);
    assert!(seam_7_8.outranked_both());
    assert!(!seam_7_8.fired_on_absence);
    assert_eq!(
        seam_7_8.arithmetic(),
        "1 + 3 = 4 ≤ 4 (chunk 7) and ≤ 11 (chunk 8): fires"
    );

    let seam_12_13 = &decisions[1];
    assert_eq!(seam_12_13.seam, SEAM_12_13);
    assert_eq!(seam_12_13.seam_position, 3);
    assert!(!seam_12_13.fires);
    assert!(!seam_12_13.fired_on_absence);
    // Chunk 13 is absent and counts as last (11 + 1 = 12): it would not block; chunk 12 does.
    assert_eq!(seam_12_13.right.fused_position, None);
    assert_eq!(seam_12_13.right.counted_position, 12);
    assert_eq!(seam_12_13.blocked_by(), ids(&[12]));
    assert_eq!(
        seam_12_13.arithmetic(),
        "3 + 3 = 6 > 2 (chunk 12): does not fire"
    );
}

#[test]
fn retrieve_worked_example_budget_table() {
    let fused = fused_ranking();
    let decisions = fire_test(&fused, &links, 3);
    let plan = Plan::fused_order(&fused, &decisions);
    assert_eq!(plan.rerank, RerankStatus::NotConfigured);
    let fill = fill_budget(&plan, 5);
    assert_eq!(
        fill.steps,
        vec![
            step(
                1,
                EntryRef::Seam(SEAM_7_8),
                BudgetAction::AddedPair {
                    added: ids(&[7, 8])
                },
                2
            ),
            step(2, chunk(12), BudgetAction::Added, 3),
            step(3, EntryRef::Seam(SEAM_12_13), BudgetAction::DroppedSeam, 3),
            step(4, chunk(7), BudgetAction::SkippedAlreadyIncluded, 3),
            step(5, chunk(3), BudgetAction::Added, 4),
            step(6, chunk(20), BudgetAction::Added, 5),
        ]
    );
    assert_eq!(fill.chunks, ids(&[7, 8, 12, 3, 20]));
    assert_eq!(fill.slots_used, 5);
}

#[test]
fn retrieve_worked_example_without_seams() {
    let fused = fused_ranking();
    let baseline: Vec<ChunkId> = chunks_only(&fused).into_iter().take(5).collect();
    assert_eq!(baseline, ids(&[12, 7, 3, 20, 15]));
    let cmp = Comparison::new(Baseline::SeamsRemoved, ids(&[7, 8, 12, 3, 20]), baseline);
    assert_eq!(cmp.displaced, ids(&[15]));
    assert_eq!(cmp.added, ids(&[8]));
}

#[test]
fn retrieve_worked_example_through_replan() {
    let input = QueryInput {
        question: "Why does the order service accept stale reads?".to_string(),
        ranking: RankingInput::Fused(fused_ranking()),
        chunks_only: None,
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    };
    let settings = QuerySettings {
        m: 3,
        budget: 5,
        ..QuerySettings::default()
    };
    let tokens = |_: ChunkId| 1024;
    let lookups = Lookups {
        links: &links,
        tokens: &tokens,
    };
    let trace = replan(&input, &settings, &lookups).map_err(|e| e.to_string());
    let Ok(trace) = trace else {
        panic!("valid settings were rejected: {trace:?}");
    };
    assert_eq!(trace.fill.chunks, ids(&[7, 8, 12, 3, 20]));
    assert_eq!(trace.tokens_sent, 5 * 1024);
    assert_eq!(trace.without_seams.seams_removed.displaced, ids(&[15]));
    assert_eq!(trace.without_seams.seams_removed.added, ids(&[8]));
    assert!(trace.without_seams.retrieval.is_none());
    assert_eq!(trace.rerank_status(), &RerankStatus::NotConfigured);

    // The trace survives a JSON round trip unchanged.
    let json = serde_json::to_string(&trace).map_err(|e| e.to_string());
    let back: Result<seamscope::retrieve::Trace, String> = json
        .clone()
        .and_then(|j| serde_json::from_str(&j).map_err(|e| e.to_string()));
    assert_eq!(back.as_ref().ok(), Some(&trace), "{json:?}");

    // A bigger margin stops seam 7|8 (1 + 4 = 5 > 4): the plain ranking comes back.
    let stricter = trace.replan(&QuerySettings { m: 4, ..settings }, &lookups);
    let chunks = stricter.map(|t| t.fill.chunks).map_err(|e| e.to_string());
    assert_eq!(chunks, Ok(ids(&[12, 7, 3, 20, 15])));
}
