//! Invariants of the pure retrieval stages on random rankings.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use seamscope::chunk::ChunkId;
use seamscope::retrieve::{
    BudgetAction, BudgetFill, EntryRef, FireDecision, FusedEntry, Hit, ListSource, Plan, PlanItem,
    RankedList, RerankScores, apply_rerank, fill_budget, fire_test, fuse, pinned_chunks,
    rerank_candidates,
};
use seamscope::seam::SeamId;

const CHUNKS: u32 = 30;
const SEAMS: u32 = 20;

fn entry() -> impl Strategy<Value = EntryRef> {
    prop_oneof![
        3 => (0..CHUNKS).prop_map(|i| EntryRef::Chunk(ChunkId(i))),
        2 => (0..SEAMS).prop_map(|i| EntryRef::Seam(SeamId(i))),
    ]
}

/// A fused ranking with each entry once (as `fuse` produces), and a link table for the seams.
fn ranking() -> impl Strategy<Value = (Vec<FusedEntry>, Vec<(u32, u32)>)> {
    (
        prop::collection::vec(entry(), 0..40),
        prop::collection::vec((0..CHUNKS + 5, 0..CHUNKS + 5), SEAMS as usize),
    )
        .prop_map(|(entries, links)| {
            let mut seen = HashSet::new();
            let fused = entries
                .into_iter()
                .filter(|e| seen.insert(*e))
                .map(FusedEntry::given)
                .collect();
            (fused, links)
        })
}

fn linker(table: &[(u32, u32)]) -> impl Fn(SeamId) -> (ChunkId, ChunkId) + '_ {
    move |seam: SeamId| {
        let (l, r) = table
            .get(seam.0 as usize)
            .copied()
            .unwrap_or((seam.0, seam.0 + 1));
        (ChunkId(l), ChunkId(r))
    }
}

fn run(
    fused: &[FusedEntry],
    table: &[(u32, u32)],
    m: u32,
    budget: usize,
) -> (Vec<FireDecision>, Plan, BudgetFill) {
    let links = linker(table);
    let decisions = fire_test(fused, &links, m);
    let plan = Plan::fused_order(fused, &decisions);
    let fill = fill_budget(&plan, budget);
    (decisions, plan, fill)
}

fn check_fill(
    fused: &[FusedEntry],
    decisions: &[FireDecision],
    plan: &Plan,
    fill: &BudgetFill,
) -> Result<(), TestCaseError> {
    let budget = fill.budget;
    prop_assert!(fill.chunks.len() <= budget, "budget exceeded");
    prop_assert_eq!(fill.slots_used, fill.chunks.len());
    let unique: HashSet<ChunkId> = fill.chunks.iter().copied().collect();
    prop_assert_eq!(unique.len(), fill.chunks.len(), "a chunk appears twice");

    // Every context chunk is a chunk of the ranking or a chunk linked by a fired seam: a seam's
    // own id never reaches the context.
    let direct: HashSet<ChunkId> = fused.iter().filter_map(|e| e.entry.chunk()).collect();
    let linked: HashSet<ChunkId> = decisions
        .iter()
        .filter(|d| d.fires)
        .flat_map(|d| [d.left.chunk, d.right.chunk])
        .collect();
    for c in &fill.chunks {
        prop_assert!(
            direct.contains(c) || linked.contains(c),
            "chunk {c:?} from nowhere"
        );
    }

    let items: HashMap<usize, PlanItem> =
        plan.entries.iter().map(|e| (e.position, e.item)).collect();
    let mut before = 0;
    let mut included: HashSet<ChunkId> = HashSet::new();
    for (i, step) in fill.steps.iter().enumerate() {
        prop_assert!(step.slots_used_after >= before);
        prop_assert!(step.slots_used_after <= budget);
        let item = items.get(&step.position).copied();
        prop_assert_eq!(item.map(|it| it.entry()), Some(step.entry));
        match (item, &step.action) {
            (Some(PlanItem::FiredSeam { left, right, .. }), action) => match action {
                BudgetAction::AddedPair { added } => {
                    // Both halves arrive together.
                    for c in added {
                        prop_assert!(*c == left || *c == right);
                        included.insert(*c);
                    }
                    prop_assert!(included.contains(&left) && included.contains(&right));
                    prop_assert_eq!(step.slots_used_after, before + added.len());
                }
                BudgetAction::SkippedNoRoom { needed, remaining } => {
                    prop_assert!(needed > remaining);
                    prop_assert_eq!(step.slots_used_after, before);
                    prop_assert!(!(included.contains(&left) && included.contains(&right)));
                }
                BudgetAction::FiredNothingNew => {
                    prop_assert!(included.contains(&left) && included.contains(&right));
                    prop_assert_eq!(step.slots_used_after, before);
                }
                other => prop_assert!(false, "fired seam got {other:?}"),
            },
            (Some(PlanItem::DroppedSeam { .. }), action) => {
                prop_assert_eq!(action, &BudgetAction::DroppedSeam);
                prop_assert_eq!(step.slots_used_after, before);
            }
            (Some(PlanItem::Chunk { chunk, .. }), BudgetAction::Added) => {
                prop_assert!(included.insert(chunk));
                prop_assert_eq!(step.slots_used_after, before + 1);
            }
            (Some(PlanItem::Chunk { chunk, .. }), BudgetAction::SkippedAlreadyIncluded) => {
                prop_assert!(included.contains(&chunk));
                prop_assert_eq!(step.slots_used_after, before);
            }
            (item, action) => prop_assert!(false, "{item:?} got {action:?}"),
        }
        // The walk stops right after the step that fills the budget.
        if step.slots_used_after == budget {
            prop_assert_eq!(i + 1, fill.steps.len());
        }
        before = step.slots_used_after;
    }
    prop_assert_eq!(included, unique);
    // It stops early only when the budget is full.
    if fill.slots_used < budget {
        prop_assert_eq!(fill.steps.len(), plan.entries.len());
    }
    Ok(())
}

proptest! {
    #[test]
    fn retrieve_props_budget_fill_invariants(
        (fused, table) in ranking(),
        m in 0u32..8,
        budget in 0usize..12,
    ) {
        let (decisions, plan, fill) = run(&fused, &table, m, budget);
        check_fill(&fused, &decisions, &plan, &fill)?;
        // One decision per seam, and the fire rule holds exactly.
        let seams = fused.iter().filter(|e| e.entry.is_seam()).count();
        prop_assert_eq!(decisions.len(), seams);
        for d in &decisions {
            let target = d.seam_position as u64 + u64::from(m);
            let rule = target <= d.left.counted_position as u64 && target <= d.right.counted_position as u64;
            prop_assert_eq!(d.fires, rule);
            prop_assert_eq!(d.fired_on_absence, d.fires && (d.left.is_absent() || d.right.is_absent()));
            for link in d.links() {
                prop_assert_eq!(link.counted_position, link.fused_position.unwrap_or(fused.len() + 1));
            }
        }
        // Identical on repeated runs.
        prop_assert_eq!(run(&fused, &table, m, budget), (decisions, plan, fill));
    }

    #[test]
    fn retrieve_props_rerank_never_sends_pinned_chunks_and_keeps_every_entry(
        (fused, table) in ranking(),
        m in 0u32..8,
        budget in 0usize..12,
        n in 0usize..40,
        raw_scores in prop::collection::vec(-1.0f32..1.0, CHUNKS as usize),
    ) {
        let links = linker(&table);
        let decisions = fire_test(&fused, &links, m);
        let candidates = rerank_candidates(&fused, &decisions, n);
        let pinned = pinned_chunks(&decisions);
        prop_assert!(candidates.len() <= n);
        for c in &candidates {
            prop_assert!(!pinned.contains_key(c));
        }
        let scores = RerankScores {
            reranker: "random".into(),
            scores: candidates.iter().map(|&c| (c, raw_scores[c.0 as usize])).collect(),
        };
        let plan = apply_rerank(&fused, &decisions, Some(&scores), n);
        // Every fused entry appears exactly once; seams and pinned chunks keep their positions.
        prop_assert_eq!(plan.entries.len(), fused.len());
        let mut planned: Vec<EntryRef> = plan.entries.iter().map(|e| e.item.entry()).collect();
        let mut given: Vec<EntryRef> = fused.iter().map(|e| e.entry).collect();
        for (i, e) in plan.entries.iter().enumerate() {
            prop_assert_eq!(e.position, i + 1);
            let fixed = match e.item.entry() {
                EntryRef::Seam(_) => true,
                EntryRef::Chunk(c) => pinned.contains_key(&c),
            };
            if fixed {
                prop_assert_eq!(e.fused_position, e.position);
            }
        }
        planned.sort_by_key(|e| format!("{e:?}"));
        given.sort_by_key(|e| format!("{e:?}"));
        prop_assert_eq!(planned, given);
        let fill = fill_budget(&plan, budget);
        check_fill(&fused, &decisions, &plan, &fill)?;
    }

    #[test]
    fn retrieve_props_fuse_is_deterministic_and_ignores_list_order(
        lists in prop::collection::vec(prop::collection::vec(entry(), 0..20), 0..4),
        c in prop_oneof![Just(0.0f64), Just(1.0), Just(60.0)],
    ) {
        let sources = [ListSource::Dense, ListSource::KeywordChunks, ListSource::KeywordSeams];
        let lists: Vec<RankedList> = lists
            .into_iter()
            .enumerate()
            .map(|(i, entries)| RankedList::new(
                sources[i % sources.len()],
                entries.into_iter().map(|entry| Hit { entry, score: 0.5 }).collect(),
            ))
            .collect();
        let fused = fuse(&lists, c);
        prop_assert_eq!(&fuse(&lists, c), &fused);
        let mut reversed = lists.clone();
        reversed.reverse();
        let order: Vec<EntryRef> = fused.iter().map(|e| e.entry).collect();
        let reversed_order: Vec<EntryRef> = fuse(&reversed, c).iter().map(|e| e.entry).collect();
        prop_assert_eq!(&order, &reversed_order);
        // Each entry once; scores never rise down the list.
        let unique: HashSet<EntryRef> = order.iter().copied().collect();
        prop_assert_eq!(unique.len(), order.len());
        for pair in fused.windows(2) {
            prop_assert!(pair[0].score >= pair[1].score);
        }
    }
}
