//! The screen's state driven by actions alone: no terminal, no model run.

use seamscope::retrieve::{EntryRef, Trace};

use crate::tui::action::{Action, Pane, Searched, Slider};
use crate::tui::fixture::{Fixture, PARAMS, QUESTION, trace};
use crate::tui::jobs::Request;
use crate::tui::layout_params::LayoutParams;
use crate::tui::step::Step;

fn answer_trace(f: &Fixture) -> &Trace {
    match &f.app.answer {
        Some(a) => &a.trace,
        None => panic!("no answer shown"),
    }
}

/// Whether the seam between chunks 1 and 2 fires in the result shown.
fn seam_1_2_fires(f: &Fixture) -> bool {
    let Some(shown) = &f.app.shown else {
        panic!("no corpus shown");
    };
    let trace = answer_trace(f);
    let decision = trace
        .decisions
        .iter()
        .find(|d| shown.open.seam_label(d.seam) == "seam 1|2");
    match decision {
        Some(d) => d.fires,
        None => panic!("seam 1|2 is not in the ranking"),
    }
}

#[test]
fn tui_typing_a_query_and_running_it_asks_the_worker_and_shows_the_answer() {
    let mut f = Fixture::opened();
    assert!(!f.app.typing, "single keys are commands at start");
    f.app.update(Action::StartTyping);
    for c in QUESTION.chars() {
        f.app.update(Action::InsertChar(c));
    }
    f.app.update(Action::MoveQueryCursor(-1));
    f.app.update(Action::DeleteBack);
    f.app.update(Action::InsertChar('Y'));
    assert_eq!(f.app.query.text, QUESTION.replacen("deploy", "deploY", 1));
    f.app.update(Action::ClearQuery);
    f.app.update(Action::RunQuery);
    assert!(
        f.app.notice.as_ref().is_some_and(|n| n.error),
        "an empty question is refused"
    );
    assert!(f.requests.try_recv().is_err());

    for c in QUESTION.chars() {
        f.app.update(Action::InsertChar(c));
    }
    f.app.update(Action::RunQuery);
    let generation = match f.requests.try_recv() {
        Ok(Request::Ask {
            generation,
            question,
            query,
        }) => {
            assert_eq!(question, QUESTION);
            assert_eq!((query.m, query.budget, query.k), (2, 4, 8));
            generation
        }
        other => panic!("expected an Ask request, got {other:?}"),
    };
    assert!(!f.app.typing);
    assert_eq!(f.app.asked.as_deref(), Some(QUESTION));
    f.deliver_answer(generation);
    assert!(f.app.jobs.query.in_flight().is_none());
    assert_eq!(f.app.focus, Pane::Ranking);
    let top = answer_trace(&f).fused[0].entry;
    assert!(top.is_seam());
    assert_eq!(
        f.app.view.cursor,
        Some(top),
        "the document view shows the top entry"
    );
    assert!(seam_1_2_fires(&f));
}

#[test]
fn tui_moving_m_flips_a_seam_between_firing_and_not_firing() {
    let mut f = Fixture::answered();
    assert!(
        seam_1_2_fires(&f),
        "at m = 2 seam 1|2 leads both chunks by 2 and fires"
    );
    let with_fire = answer_trace(&f).fill.chunks.clone();
    f.app.update(Action::AdjustSlider(Slider::M, 1));
    assert_eq!(answer_trace(&f).settings.m, 3);
    assert!(!seam_1_2_fires(&f), "at m = 3 it does not fire");
    assert_ne!(
        answer_trace(&f).fill.chunks,
        with_fire,
        "the budget fill follows"
    );
    assert!(
        f.requests.try_recv().is_err(),
        "m replans at once: no background job"
    );
    assert!(f.app.jobs.layout.in_flight().is_none());
    f.app.update(Action::SetSlider(Slider::M, 2));
    assert!(seam_1_2_fires(&f));
    assert_eq!(answer_trace(&f).fill.chunks, with_fire);
    f.app.update(Action::AdjustSlider(Slider::Budget, -1));
    assert_eq!(answer_trace(&f).fill.budget, 3);
}

#[test]
fn tui_a_k_change_rebuilds_in_the_background_and_the_newest_change_wins() {
    let mut f = Fixture::answered();
    let before = answer_trace(&f).clone();
    f.app.update(Action::AdjustSlider(Slider::K, 1));
    let first = match f.requests.try_recv() {
        Ok(Request::Open {
            generation,
            params,
            question,
            ..
        }) => {
            assert_eq!(params.k, PARAMS.k + 10);
            assert_eq!(
                question.as_deref(),
                Some(QUESTION),
                "the question is re-asked"
            );
            generation
        }
        other => panic!("expected an Open request, got {other:?}"),
    };
    assert!(f.app.jobs.layout.is_current(first));
    assert_eq!(
        answer_trace(&f),
        &before,
        "the previous result stays while the job runs"
    );

    f.app.update(Action::AdjustSlider(Slider::K, 1));
    let second = f.expect_open();
    assert!(second > first);
    assert!(
        !f.app.jobs.layout.is_current(first),
        "the older job is superseded"
    );

    let k18 = LayoutParams {
        k: PARAMS.k + 10,
        ..PARAMS
    };
    let k28 = LayoutParams {
        k: PARAMS.k + 20,
        ..PARAMS
    };
    let old = f.layout(k18);
    let old_answer = Searched {
        input: trace(&old, f.app.query_settings()).input,
        timings: Default::default(),
        dense_pending: false,
    };
    f.deliver_open(first, k18, old, Some(old_answer));
    let shown_k = f.app.shown.as_ref().map(|s| s.params.k);
    assert_eq!(shown_k, Some(PARAMS.k), "the older result is dropped");
    assert!(f.app.jobs.layout.is_current(second));

    let new = f.layout(k28);
    assert_eq!(new.layout.k, 28);
    f.deliver_open(second, k28, new, None);
    assert_eq!(f.app.shown.as_ref().map(|s| s.params.k), Some(28));
    assert!(f.app.jobs.layout.in_flight().is_none());
    assert!(
        f.app.answer.is_none(),
        "no result from the old layout survives"
    );
    let ask = f.expect_ask();
    f.deliver_answer(ask);
    assert_eq!(answer_trace(&f).settings.k, 28);
}

#[test]
fn tui_a_stale_answer_and_a_failed_rebuild_leave_the_screen_as_it_was() {
    let mut f = Fixture::answered();
    f.app.update(Action::StartTyping);
    f.app.update(Action::RunQuery);
    let older = f.expect_ask();
    f.app.update(Action::RunQuery);
    let newer = f.expect_ask();
    f.deliver_answer(older);
    assert!(
        f.app.jobs.query.is_current(newer),
        "an older answer does not end the newer query"
    );
    f.deliver_answer(newer);
    assert!(f.app.jobs.query.in_flight().is_none());

    f.app.update(Action::AdjustSlider(Slider::ChunkTokens, 1));
    let generation = f.expect_open();
    assert_eq!(f.app.sliders.chunk_tokens, PARAMS.chunk_tokens + 128);
    f.app.update(Action::OpenFailed {
        generation,
        error: "disk full".into(),
    });
    assert_eq!(
        f.app.sliders.chunk_tokens, PARAMS.chunk_tokens,
        "the slider goes back"
    );
    assert!(f.app.answer.is_some());
    assert!(
        f.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("disk full"))
    );
}

#[test]
fn tui_step_mode_walks_fire_tests_then_each_slot() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleStepMode);
    let Some((steps, 0)) = f.app.current_step() else {
        panic!("step mode starts at the first decision");
    };
    assert!(matches!(steps[0], Step::Search(0)), "the first search list");
    let first_fire = steps
        .iter()
        .position(|s| matches!(s, Step::Fire(_)))
        .unwrap_or_else(|| panic!("a fire test: {steps:?}"));
    assert!(steps.iter().any(|s| matches!(s, Step::Fill(_))));
    for _ in 0..first_fire {
        f.app.update(Action::StepForward);
    }
    let trace = answer_trace(&f).clone();
    let first_position = steps[first_fire].position(&trace).unwrap_or(0);
    assert_eq!(f.app.lists.ranking.selected + 1, first_position);
    assert_eq!(f.app.view.cursor, steps[first_fire].entry(&trace));
    for _ in 0..steps.len() + 3 {
        f.app.update(Action::StepForward);
    }
    assert_eq!(
        f.app.step,
        Some(steps.len() - 1),
        "stepping stops at the last decision"
    );
    assert_eq!(steps.last(), Some(&Step::Compare), "the closing comparison");
    let Some(Step::Fill(last)) = steps.get(steps.len() - 2).copied() else {
        panic!("the step before it fills the last slot");
    };
    assert_eq!(f.app.lists.budget.selected, last);
    f.app.update(Action::StepBack);
    assert_eq!(f.app.step, Some(steps.len() - 2));
    f.app.update(Action::AdjustSlider(Slider::M, 1));
    assert!(f.app.step.is_some(), "step mode follows a replanned result");
    f.app.update(Action::ToggleStepMode);
    assert_eq!(f.app.step, None);
}

#[test]
fn tui_keys_move_chunk_to_chunk_and_cut_to_cut() {
    let mut f = Fixture::opened();
    f.app.update(Action::StopTyping);
    f.app.update(Action::NextChunk);
    assert_eq!(
        f.app.view.cursor,
        Some(EntryRef::Chunk(seamscope::chunk::ChunkId(0)))
    );
    f.app.update(Action::NextCut);
    let Some(EntryRef::Seam(seam)) = f.app.view.cursor else {
        panic!("a cut selects its seam");
    };
    let Some(shown) = &f.app.shown else {
        panic!("no corpus shown");
    };
    assert_eq!(shown.open.seam_label(seam), "seam 0|1");
    f.app.update(Action::NextChunk);
    assert_eq!(
        f.app.view.cursor,
        Some(EntryRef::Chunk(seamscope::chunk::ChunkId(1)))
    );
    f.app.update(Action::PrevCut);
    assert_eq!(f.app.view.cursor, Some(EntryRef::Seam(seam)));
    f.app.update(Action::Focus(Pane::Documents));
    f.app.update(Action::MoveSelection(1));
    assert_eq!(
        f.app.view.doc.0, 1,
        "the document list picks the document shown"
    );
    assert_eq!(f.app.view.cursor, None);
    f.app.update(Action::ClickRow(Pane::Documents, 0));
    assert_eq!(f.app.view.doc.0, 0);
}

#[test]
fn tui_a_document_pasted_as_a_question_is_refused_with_the_limit() {
    let mut f = Fixture::opened();
    f.app.update(Action::Paste("stale reads ".repeat(500)));
    f.app.update(Action::RunQuery);
    let notice = f.app.notice.as_ref().map(|n| (n.error, n.text.clone()));
    assert!(
        notice
            .as_ref()
            .is_some_and(|(error, text)| *error && text.contains("at most 2000 characters")),
        "{notice:?}"
    );
    assert!(f.requests.try_recv().is_err(), "nothing is asked");
    assert!(f.app.typing, "the text stays to be shortened");
}

#[test]
fn tui_d_switches_side_drop_and_asks_again_for_half_scores() {
    let mut f = Fixture::answered();
    assert_eq!(f.app.query_settings().side_drop, None, "off by default");
    f.app.update(Action::ToggleSideDrop);
    let on = f.app.query_settings().side_drop;
    assert_eq!(on, Some(seamscope::retrieve::DEFAULT_SIDE_DROP));
    // The fixture's answer has no half scores: the question is asked again, with side drop on.
    f.expect_ask();
    assert!(
        f.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("side drop on"))
    );
    f.app.update(Action::ToggleSideDrop);
    assert_eq!(f.app.query_settings().side_drop, None);
    assert!(f.requests.try_recv().is_err(), "switching off only replans");
}
