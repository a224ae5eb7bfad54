//! The traces page through `App::update`, as the keys drive it: without traces it says how to
//! give them; with them `r` asks the worker, progress and the report come back, the queries are
//! listed by suspicion with their suspects in words, the arrows move and Enter replays the query
//! on the explore page with what the app sent pinned beside the answer; a failed read is said on
//! the page; the page drawn at 120 × 34 and 80 × 24. The report is made here on the fixture's
//! layout (the engine's judge needs the model, which the fixture does not load; the tmux test
//! runs the real one on real traces).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;
use seamscope::chunk::ChunkId;
use seamscope::retrieve::{EntryRef, ListSource, RankingInput};
use seamscope::traces::suspicion::Suspect;
use seamscope::traces::{
    QueryVerdict, ReplaySearch, SentDocument, TracesReport, TracesSource, TracesSummary,
};

use super::{Traces, TracesPage};
use crate::tui::action::{Action, Page, PageDone, Pane as Focus, TracedReplay};
use crate::tui::app::{PinnedSide, TracesGiven};
use crate::tui::background::BackgroundProgress;
use crate::tui::fixture::{Fixture, QUESTION};
use crate::tui::jobs::Request;
use crate::tui::panes::{PageOutput, Pane};

/// A suspect cut `left|right` whose seam fires and brings `missing`.
fn suspect(left: u32, right: u32, missing: u32, sent_by_app: bool) -> Suspect {
    Suspect {
        sent: ChunkId(if missing == left { right } else { left }),
        sent_by_app,
        sent_rank: Some(1),
        missing: ChunkId(missing),
        left: ChunkId(left),
        right: ChunkId(right),
        seam_fires: true,
        seam_position: Some(1),
        lead: 2,
        neighbour_rank: Some(6),
        seams_brings_it: true,
        tier: if sent_by_app { 3 } else { 4 },
        margin: (!sent_by_app).then_some(0.042),
        sent_cosine: None,
        neighbour_cosine: None,
        seam_cosine: None,
        sandwiched: false,
        score: if sent_by_app { 2.5 } else { 2.521 },
    }
}

fn sent(chunk: Option<u32>, score: Option<f64>) -> SentDocument {
    SentDocument {
        chunk: chunk.map(ChunkId),
        doc: None,
        span: None,
        score,
        not_placed: chunk.is_none().then(|| "no document holds its text".into()),
    }
}

fn verdict(rank: usize, id: &str, question: &str, suspects: Vec<Suspect>) -> QueryVerdict {
    QueryVerdict {
        index: rank - 1,
        question: question.into(),
        question_id: Some(id.into()),
        trace_id: "t".into(),
        span_id: "s".into(),
        sent: vec![
            sent(Some(1), Some(0.83)),
            sent(Some(3), Some(0.8)),
            sent(None, Some(0.5)),
        ],
        budget: 3,
        replay_without_seams: vec![ChunkId(1), ChunkId(3), ChunkId(0)],
        replay_with_seams: vec![ChunkId(1), ChunkId(2), ChunkId(3)],
        seams_adds: vec![ChunkId(2)],
        seams_displaces: Vec::new(),
        tokens_added: 31,
        fires: 1,
        suspicion: suspects.first().map_or(0.0, |s| s.score),
        suspects,
        rank,
        gold: None,
        feedback: Vec::new(),
        overlap: None,
    }
}

/// Two traced queries on the fixture's layout: A01 (the fixture's question, whose seam 1|2
/// fires) and A02, whose passage the app missed on both sides; and one with no suspect.
fn traces_page(on_shown: bool) -> TracesPage {
    let mut summary = TracesSummary {
        queries: 3,
        seams_changes: 2.0 / 3.0,
        m: 1,
        ..TracesSummary::default()
    };
    summary.placement.distinct = 10;
    summary.placement.not_placed = 1;
    TracesPage {
        source: "otlp.jsonl".into(),
        report: TracesReport {
            summary,
            queries: vec![
                verdict(
                    1,
                    "A02",
                    "Where \u{1b}[31mdoes it go?",
                    vec![suspect(2, 3, 2, false)],
                ),
                verdict(2, "A01", QUESTION, vec![suspect(1, 2, 2, true)]),
                verdict(3, "A03", "Nothing to see?", Vec::new()),
            ],
        },
        chunks: 5,
        on_shown,
        given_cuts: false,
    }
}

fn key(f: &Fixture, code: KeyCode) -> Option<Action> {
    Traces.handle_key(&f.app, &KeyEvent::new(code, KeyModifiers::NONE))
}

fn screen(f: &mut Fixture, width: u16, height: u16) -> String {
    f.draw(width, height).backend().to_string()
}

/// A screen opened with `--traces`, on the traces page.
fn with_traces() -> Fixture {
    let mut f = Fixture::answered();
    f.app.traces = Some(TracesGiven::new(
        TracesSource::File("otlp.jsonl".into()),
        None,
    ));
    f.app.update(Action::ShowPage(Page::Traces));
    f
}

/// `r`, and the generation of the page job the screen asked for (other requests skipped).
fn run(f: &mut Fixture) -> u64 {
    let run = key(f, KeyCode::Char('r')).expect("r reads the traces");
    f.app.update(run);
    while let Ok(request) = f.requests.try_recv() {
        if let Request::PageWork { generation, job } = request {
            assert_eq!(job.page, Page::Traces);
            return generation;
        }
    }
    panic!("no page job was asked for");
}

fn deliver(f: &mut Fixture, generation: u64, result: Result<PageOutput, String>) {
    let layout_generation = f.app.shown.as_ref().map_or(0, |s| s.generation);
    f.app.update(Action::PageDone(Box::new(PageDone {
        generation,
        page: Page::Traces,
        layout_generation,
        result,
    })));
}

#[test]
fn tui_without_traces_the_page_gives_the_command_that_opens_them() {
    let mut f = Fixture::answered();
    f.app.corpus_path = "docs-folder".into();
    assert_eq!(crate::tui::panes::page_for_key('5'), Some(Page::Traces));
    f.app.update(Action::ShowPage(Page::Traces));
    let text = screen(&mut f, 120, 34);
    assert!(text.contains("No traces were given"), "{text}");
    assert!(
        text.contains("seamscope docs-folder --traces FILE"),
        "{text}"
    );
    assert!(key(&f, KeyCode::Char('r')).is_none(), "nothing to read");
    assert!(key(&f, KeyCode::Enter).is_none(), "nothing to replay");
}

#[test]
fn tui_the_traces_page_lists_queries_by_suspicion_and_enter_replays_one_beside_the_app() {
    let mut f = with_traces();
    assert!(screen(&mut f, 120, 34).contains("read once the corpus is embedded"));
    let generation = run(&mut f);
    f.app.update(Action::PageProgress(BackgroundProgress {
        generation,
        what: "replaying the questions".into(),
        done: 2,
        total: 3,
    }));
    assert!(screen(&mut f, 120, 34).contains("traces: replaying the questions 2/3"));
    deliver(&mut f, generation, Ok(PageOutput::from(traces_page(true))));

    for (width, height) in [(80, 24), (120, 34), (200, 50)] {
        let text = screen(&mut f, width, height);
        assert!(text.contains("3 queries read"), "{width}: {text}");
        assert!(text.contains("in 67%"), "{width}: {text}");
        assert!(
            text.contains("placed 9 of 10, 1 not placed"),
            "{width}: {text}"
        );
        assert!(
            text.contains("cut 2|3 · its seam fires · the app sent neither side"),
            "{width}: {text}"
        );
        assert!(text.contains("A01"), "{width}: {text}");
        assert!(
            text.contains("your app sent: 1 (0.83) · 3 (0.80) · ? (0.50)"),
            "{width}: {text}"
        );
        assert!(text.contains("with Seams: 1 +2 3"), "{width}: {text}");
        assert!(!text.contains('\u{1b}'), "no raw escape reaches the screen");
    }
    assert!(
        screen(&mut f, 200, 50).contains("cut 1|2 · its seam fires · Seams adds chunk 2"),
        "A01's suspect in words"
    );
    assert!(
        screen(&mut f, 200, 50).contains(
            "cut 2|3 · its seam fires · the app sent neither side · Seams adds chunks 2 and 3 · seam +0.042 on the app's best"
        ),
        "A02's suspect in words, with the seam's margin over what the app sent"
    );

    // Down moves to A01; the cursor stops at the last query.
    f.app.update(key(&f, KeyCode::Down).expect("down moves"));
    assert_eq!(f.app.page_state(Page::Traces).map(|s| s.cursor), Some(1));
    f.app
        .update(key(&f, KeyCode::PageDown).expect("page down moves"));
    assert_eq!(f.app.page_state(Page::Traces).map(|s| s.cursor), Some(2));
    f.app.update(key(&f, KeyCode::Up).expect("up moves"));

    // Enter: the question asked on the layout shown, the app's context pinned beside it.
    let replay = key(&f, KeyCode::Enter).expect("Enter replays the query");
    let Action::ReplayTraced(r) = &replay else {
        panic!("Enter gave {replay:?}");
    };
    assert_eq!(r.verdict.question_id.as_deref(), Some("A01"));
    assert!(!r.relayout, "the report ran on the layout shown");
    f.app.update(replay);
    assert_eq!(f.app.page, Page::Explore);
    assert_eq!(f.app.sliders.budget, 3, "the app's budget");
    assert!(matches!(
        f.app.pinned.as_ref().map(|p| &p.side),
        Some(PinnedSide::AppSent(_))
    ));
    let generation = f.expect_ask();
    f.deliver_answer(generation);
    // The answer fuses what the judged replay fused: the dense list alone, as the app.
    let answer = f.app.answer.as_ref().expect("the question was answered");
    let RankingInput::Lists(lists) = &answer.trace.input.ranking else {
        panic!("the fixture's answer comes from search lists");
    };
    assert!(!lists.is_empty());
    assert!(
        lists.iter().all(|l| l.source == ListSource::Dense),
        "{lists:?}"
    );
    let text = screen(&mut f, 200, 50);
    assert!(text.contains("your app sent · budget 3"), "{text}");
    assert!(text.contains("with Seams · m "), "{text}");
    assert!(text.contains("dense search, as the app"), "{text}");
    assert!(text.contains("▶ suspect seam 1|2"), "{text}");
    assert!(
        text.contains("context: 1 (0.83) 3 (0.80) ? (0.50)"),
        "{text}"
    );

    // A compact screen (one pane at a time) shows the comparison itself.
    f.app.update(Action::Resize(80, 24));
    f.app.update(Action::ShowPage(Page::Traces));
    f.app
        .update(key(&f, KeyCode::Enter).expect("Enter replays the query"));
    let generation = f.expect_ask();
    f.deliver_answer(generation);
    let text = screen(&mut f, 80, 24);
    assert_eq!(f.app.focus, Focus::Compare, "{text}");
    assert!(text.contains("your app sent"), "{text}");
    assert!(text.contains("with Seams"), "{text}");
}

#[test]
fn tui_a_replayed_query_shows_its_suspect_seam_in_the_ranking_and_its_cut_in_the_text() {
    let mut f = with_traces();
    // A suspect cut whose seam the fixture's answer ranks last, not where the cursor starts.
    let open = std::sync::Arc::clone(&f.app.shown.as_ref().expect("shown").open);
    let seam = open
        .layout
        .seams
        .iter()
        .find(|s| s.left == ChunkId(0) && s.right == ChunkId(1))
        .map(|s| EntryRef::Seam(s.id))
        .expect("the fixture has seam 0|1");
    f.app.update(Action::ReplayTraced(Box::new(TracedReplay {
        verdict: verdict(1, "A01", QUESTION, vec![suspect(0, 1, 0, true)]),
        search: ReplaySearch::Dense,
        relayout: false,
    })));
    let generation = f.expect_ask();
    f.deliver_answer(generation);
    let answer = f.app.answer.as_ref().expect("the question was answered");
    let at = answer
        .trace
        .fused
        .iter()
        .position(|e| e.entry == seam)
        .expect("seam 0|1 is in the fused ranking");
    assert!(at > 0, "the test needs the seam off the first row");
    assert_eq!(f.app.lists.ranking.selected, at);
    assert_eq!(f.app.view.cursor, Some(seam));
    assert_eq!(f.app.view.doc, open.layout.chunk(ChunkId(1)).doc);
}

#[test]
fn tui_a_replay_off_the_layout_shown_lays_the_app_cuts_out_or_says_why_not() {
    let mut f = with_traces();
    let generation = run(&mut f);
    deliver(&mut f, generation, Ok(PageOutput::from(traces_page(false))));
    assert!(screen(&mut f, 120, 34).contains("indexed apart: Enter lays them out"));
    let replay = key(&f, KeyCode::Enter).expect("Enter replays the query");
    assert!(matches!(&replay, Action::ReplayTraced(r) if r.relayout));
    // The fixture was not opened on a cuts file: there is no `given` layout to go to.
    f.app.update(replay);
    assert_eq!(f.app.page, Page::Traces);
    let notice = f
        .app
        .notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default();
    assert!(notice.contains("not opened on the app's cuts"), "{notice}");

    // Opened on one, the screen lays it out again and asks A01 once it is shown.
    f.app.sliders.has_cuts = true;
    f.app.update(Action::ShowPage(Page::Traces));
    f.app.update(key(&f, KeyCode::Down).expect("down moves"));
    let again = key(&f, KeyCode::Enter).expect("Enter replays the query");
    f.app.update(again);
    assert_eq!(f.app.page, Page::Explore);
    assert_eq!(f.app.sliders.chunker, seamscope::chunk::ChunkerKind::Given);
    match f.requests.try_recv() {
        Ok(Request::Open {
            params, question, ..
        }) => {
            assert_eq!(params.chunker, seamscope::chunk::ChunkerKind::Given);
            assert_eq!(question.as_deref(), Some(QUESTION.trim()));
        }
        other => panic!("expected the app's cuts laid out, got {other:?}"),
    }
}

#[test]
fn tui_traces_that_cannot_be_read_are_said_on_the_page() {
    let mut f = with_traces();
    let generation = run(&mut f);
    deliver(
        &mut f,
        generation,
        Err("cannot read traces from otlp.jsonl: No such file or directory (os error 2)".into()),
    );
    let text = screen(&mut f, 80, 24);
    assert!(
        text.contains("the traces could not be read or judged: cannot read traces"),
        "{text}"
    );
    assert!(text.contains("r reads them again once"), "{text}");
    assert!(key(&f, KeyCode::Enter).is_none(), "nothing to replay");
    // Esc cancels a run under way.
    let _ = run(&mut f);
    f.app.update(key(&f, KeyCode::Esc).expect("Esc cancels"));
    assert!(f.app.jobs.page.in_flight().is_none());
}

#[test]
fn tui_snapshot_traces_page() {
    let mut f = with_traces();
    let generation = run(&mut f);
    deliver(&mut f, generation, Ok(PageOutput::from(traces_page(true))));
    f.app.update(key(&f, KeyCode::Down).expect("down moves"));
    assert_snapshot!("traces_120x34", f.draw(120, 34).backend());
    assert_snapshot!("traces_80x24", f.draw(80, 24).backend());
}
