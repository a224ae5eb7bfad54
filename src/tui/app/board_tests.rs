//! The evaluation page's strategy board and evidence-length map driven by actions alone: `s`
//! and `v` start the right jobs (the board only with gold questions), replies arrive or are
//! dropped when stale or cancelled, `a` on a Seams row sets `k`, `m` and side drop through the
//! sliders, and `a` on any other row says how to deploy it.

use std::sync::Arc;

use crossterm::event::{Event, KeyCode, KeyEvent};
use seamscope::board::BoardOptions;
use seamscope::board::map::DEFAULT_PER_BAND;

use crate::tui::action::{Action, BoardConstraint, EvalAction, Opened, Page};
use crate::tui::app::EvalView;
use crate::tui::background::{BoardDone, BoardResult};
use crate::tui::fixture::{self, Fixture, boards};
use crate::tui::gold::GoldQuestions;
use crate::tui::input::action_for;
use crate::tui::jobs::{BoardJob, Request};

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::from(code))
}

/// The next request must be a board job; returns its generation, job and budget.
fn expect_board(f: &mut Fixture) -> (u64, BoardJob, usize) {
    match f.requests.try_recv() {
        Ok(Request::Board {
            generation,
            job,
            budget,
        }) => (generation, *job, budget),
        other => panic!("expected a Board request, got {other:?}"),
    }
}

/// A screen on the evaluation page showing the hand-made board.
fn with_board() -> Fixture {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Evaluation));
    f.app.update(Action::Evaluation(EvalAction::RunBoard));
    let (generation, _, _) = expect_board(&mut f);
    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation,
                result: Ok(BoardResult::Board(Arc::new(boards::board()))),
            },
        ))));
    f
}

fn notice(f: &Fixture) -> String {
    f.app
        .notice
        .as_ref()
        .map_or_else(String::new, |n| n.text.clone())
}

#[test]
fn tui_s_runs_the_board_with_the_tune_defaults_on_the_gold_questions() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Evaluation));
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Char('s'))),
        Some(Action::Evaluation(EvalAction::RunBoard))
    ));
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Char('v'))),
        Some(Action::Evaluation(EvalAction::RunMap))
    ));
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Char('a'))),
        Some(Action::Evaluation(EvalAction::ApplyBoardRow))
    ));
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Tab)),
        Some(Action::Evaluation(EvalAction::CycleView(1)))
    ));
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Down)),
        Some(Action::Evaluation(EvalAction::BoardMove(1)))
    ));
    f.app.update(Action::Evaluation(EvalAction::RunBoard));
    assert_eq!(f.app.board.view, EvalView::Board);
    let (generation, job, budget) = expect_board(&mut f);
    assert_eq!(job, BoardJob::Strategies(BoardOptions::default()));
    assert_eq!(budget, f.app.sliders.budget, "scored at the budget slider");
    assert!(f.app.jobs.board.is_current(generation));

    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation,
                result: Ok(BoardResult::Board(Arc::new(boards::board()))),
            },
        ))));
    assert!(f.app.jobs.board.in_flight().is_none());
    assert_eq!(
        f.app.board.listed,
        vec![0, 1, 3, 4, 5, 6, 7, 2],
        "each family's best row first, then the rest"
    );
    assert_eq!(
        f.app.board.selected().map(|r| r.label.as_str()),
        Some("overlap 15%")
    );
}

#[test]
fn tui_applying_a_seams_row_sets_k_m_and_side_drop_through_the_sliders() {
    let mut f = with_board();
    f.app.update(Action::Evaluation(EvalAction::BoardMove(1)));
    assert_eq!(
        f.app.board.selected().map(|r| r.label.as_str()),
        Some("Seams k 30 m 3")
    );
    f.app.update(Action::Evaluation(EvalAction::ApplyBoardRow));
    assert_eq!((f.app.sliders.k, f.app.sliders.m), (30, 3));
    assert_eq!(f.app.base_query.side_drop, None);
    let said = notice(&f);
    assert!(
        said.contains("applied Seams k 30 m 3: k = 30, m = 3, side drop off"),
        "{said}"
    );
    assert!(said.contains("rebuilt for the new k"), "{said}");
    assert!(!f.app.notice.as_ref().is_some_and(|n| n.error));
    // The k slider's own path: a layout job for the new seams; m replanned the answer at once.
    let generation = match f.requests.try_recv() {
        Ok(Request::Open {
            generation, params, ..
        }) => {
            assert_eq!(params.k, 30);
            generation
        }
        other => panic!("expected an Open request for the new k, got {other:?}"),
    };
    assert_eq!(f.app.answer.as_ref().map(|a| a.trace.settings.m), Some(3));
    // The worker's preview of the new seams is not the user's doing: the status line stays.
    let params = f.app.sliders.layout();
    let open = f.layout(params);
    f.app.update(Action::Previewed(Box::new(Opened {
        generation,
        open,
        highlights: Arc::clone(&f.highlights),
        atoms: Arc::clone(&f.atoms),
        params,
        searched: None,
        questions: Arc::new(fixture::gold_questions()),
        coming: None,
    })));
    assert!(notice(&f).contains("applied Seams k 30"), "{}", notice(&f));

    // The last row: Seams with side drop switches side drop on at its threshold.
    f.app.update(Action::Evaluation(EvalAction::BoardMove(100)));
    assert_eq!(
        f.app.board.selected().map(|r| r.label.as_str()),
        Some("Seams k 20 m 5 + side drop 0.30")
    );
    f.app.update(Action::Evaluation(EvalAction::ApplyBoardRow));
    assert_eq!((f.app.sliders.k, f.app.sliders.m), (20, 5));
    assert_eq!(f.app.base_query.side_drop, Some(0.3));
    assert!(notice(&f).contains("side drop 0.30"), "{}", notice(&f));
}

#[test]
fn tui_applying_another_familys_row_shows_its_deploy_hint_and_moves_nothing() {
    let mut f = with_board();
    let before = f.app.sliders;
    f.app.update(Action::Evaluation(EvalAction::ApplyBoardRow));
    let said = notice(&f);
    assert!(
        said.starts_with(
            "to deploy overlap 15% in your own pipeline: chunks of 40 tokens overlapping by 6"
        ),
        "{said}"
    );
    assert!(said.contains("chunk_overlap=6"), "{said}");
    assert_eq!(f.app.sliders, before, "the sliders stay");
    assert!(f.requests.try_recv().is_err(), "nothing to rebuild");

    // SCAR: its τ and penalty, in words.
    f.app.update(Action::Evaluation(EvalAction::BoardMove(4)));
    f.app.update(Action::Evaluation(EvalAction::ApplyBoardRow));
    assert!(notice(&f).contains("SCAR's τ = 0.70"), "{}", notice(&f));

    // Off the board view, `a` applies nothing it does not show.
    f.app.update(Action::Evaluation(EvalAction::CycleView(1)));
    f.app.update(Action::Evaluation(EvalAction::ApplyBoardRow));
    assert!(notice(&f).contains("Tab shows the board"), "{}", notice(&f));
    assert_eq!(f.app.sliders, before);
}

#[test]
fn tui_the_board_needs_gold_questions_and_points_at_the_map() {
    let mut f = Fixture::answered();
    if let Some(shown) = &mut f.app.shown {
        shown.questions = Arc::new(GoldQuestions::Missing);
    }
    f.app.update(Action::ShowPage(Page::Evaluation));
    f.app.update(Action::Evaluation(EvalAction::RunBoard));
    assert!(f.requests.try_recv().is_err(), "no job without gold");
    let said = notice(&f);
    assert!(
        said.contains("needs gold questions") && said.contains("v draws"),
        "{said}"
    );
    assert!(f.app.notice.as_ref().is_some_and(|n| n.error));
    f.app.update(Action::Evaluation(EvalAction::ApplyBoardRow));
    assert!(notice(&f).contains("press s"), "{}", notice(&f));

    f.app.update(Action::Evaluation(EvalAction::RunMap));
    assert_eq!(f.app.board.view, EvalView::Map);
    let (generation, job, _) = expect_board(&mut f);
    match &job {
        BoardJob::Map(options) => {
            assert_eq!(options.per_band, DEFAULT_PER_BAND);
            // The board's own grid, so the map can see the board's better rows.
            let grid = seamscope::board::BoardOptions::default();
            assert_eq!(options.board.ks, grid.ks, "the board's k");
            assert_eq!(options.board.overlaps, grid.overlaps);
            assert_eq!(options.board.windows, grid.windows);
        }
        other => panic!("expected the map, got {other:?}"),
    }
    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation,
                result: Ok(BoardResult::Map(Arc::new(boards::map()))),
            },
        ))));
    assert!(f.app.board.map.is_some());
}

#[test]
fn tui_esc_cancels_the_board_and_a_stale_or_cancelled_reply_is_dropped() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Evaluation));
    f.app.update(Action::Evaluation(EvalAction::RunBoard));
    let (older, _, _) = expect_board(&mut f);
    f.app.update(Action::Evaluation(EvalAction::RunMap));
    let (newer, _, _) = expect_board(&mut f);
    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation: older,
                result: Ok(BoardResult::Board(Arc::new(boards::board()))),
            },
        ))));
    assert!(
        f.app.board.board.is_none(),
        "the superseded board is dropped"
    );
    assert!(f.app.jobs.board.is_current(newer));
    f.app.update(Action::CancelJob);
    assert_eq!(notice(&f), "cancelled");
    assert!(f.app.jobs.board.in_flight().is_none());
    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation: newer,
                result: Ok(BoardResult::Map(Arc::new(boards::map()))),
            },
        ))));
    assert!(f.app.board.map.is_none(), "the cancelled map is dropped");
}

#[test]
fn tui_tab_cycles_the_evaluation_views_and_r_goes_back_to_the_comparison() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Evaluation));
    assert_eq!(f.app.board.view, EvalView::Comparison);
    f.app.update(Action::Evaluation(EvalAction::CycleView(1)));
    assert_eq!(f.app.board.view, EvalView::Board);
    f.app.update(Action::Evaluation(EvalAction::CycleView(1)));
    assert_eq!(f.app.board.view, EvalView::Map);
    f.app.update(Action::Evaluation(EvalAction::CycleView(1)));
    assert_eq!(f.app.board.view, EvalView::Comparison);
    f.app.update(Action::Evaluation(EvalAction::CycleView(-1)));
    assert_eq!(f.app.board.view, EvalView::Map);
    f.app.update(Action::Evaluation(EvalAction::RunComparison));
    assert_eq!(f.app.board.view, EvalView::Comparison);
}

#[test]
fn tui_the_board_and_map_views_draw_rows_verdicts_and_the_chart() {
    let mut f = with_board();
    f.app.update(Action::Evaluation(EvalAction::BoardMove(1)));
    let screen = f.draw(200, 60).backend().to_string();
    assert!(screen.contains("verdict: tied among"), "{screen}");
    assert!(
        screen.contains("▶ Seams k 30 m 3"),
        "the cursor row: {screen}"
    );
    assert!(
        screen.contains("15.0% ["),
        "failure rate and interval: {screen}"
    );
    assert!(screen.contains("55%"), "p_best: {screen}");
    assert!(screen.contains("◆"), "Pareto: {screen}");
    assert!(
        screen.contains("a sets k = 30, m = 3, side drop off on the sliders"),
        "{screen}"
    );
    let small = f.draw(120, 34).backend().to_string();
    assert!(small.contains("▶ Seams k 30 m 3"), "{small}");

    f.app.update(Action::Evaluation(EvalAction::RunMap));
    let (generation, _, _) = expect_board(&mut f);
    let waiting = f.draw(200, 60).backend().to_string();
    assert!(waiting.contains("map: waiting for the worker"), "{waiting}");
    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation,
                result: Ok(BoardResult::Map(Arc::new(boards::map()))),
            },
        ))));
    let screen = f.draw(200, 60).backend().to_string();
    assert!(
        screen.contains("map verdict: overlap 15% leads"),
        "{screen}"
    );
    assert!(screen.contains("failure % by evidence length"), "{screen}");
    assert!(
        screen.contains("10–20") && screen.contains("40–80"),
        "{screen}"
    );
    assert!(screen.contains("★ 10.0%"), "the band leader: {screen}");
    assert!(
        screen.contains("asked as opening questions instead"),
        "{screen}"
    );
    // What each family's best rows send: overlap sends text twice and stores it twice.
    assert!(screen.contains("6.7%    no"), "{screen}");
    let small = f.draw(120, 34).backend().to_string();
    assert!(small.contains("map verdict:"), "{small}");
}

#[test]
fn tui_constraints_judge_the_board_again_and_say_who_leads_without_them() {
    let mut f = with_board();
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Char('o'))),
        Some(Action::Evaluation(EvalAction::CycleConstraint(
            BoardConstraint::Once
        )))
    ));
    assert!(matches!(
        action_for(&f.app, &key(KeyCode::Char('V'))),
        Some(Action::Evaluation(EvalAction::CycleConstraint(
            BoardConstraint::MaxVectors
        )))
    ));
    f.app.update(Action::Evaluation(EvalAction::CycleConstraint(
        BoardConstraint::Once,
    )));
    let board = f.app.board.board.clone().unwrap();
    // Overlap stores text twice: its rows are left out, the others judged.
    for r in &board.rows {
        assert_eq!(r.excluded.is_some(), !r.stores_once, "{}", r.label);
    }
    let v = board.verdict.as_ref().unwrap();
    assert!(
        v.contenders
            .iter()
            .all(|c| !c.family.starts_with("overlap")),
        "{v:?}"
    );
    let free = board
        .unconstrained
        .as_ref()
        .expect("the verdict without them");
    assert_eq!(free.contenders[0].family, "overlap", "{free:?}");
    assert!(notice(&f).contains("judges 6 of 8 rows"), "{}", notice(&f));
    // The screen says so.
    let screen = f.draw(160, 50).backend().to_string();
    assert!(
        screen.contains("judged among 6 of 8 rows: each passage stored once"),
        "{screen}"
    );
    assert!(
        screen.contains("without them overlap 15% leads"),
        "{screen}"
    );
    assert!(screen.contains('⊘'), "{screen}");
    // At most 1.5× the vectors as well: windows (2.5×) and Seams (1.9×) are left out too.
    f.app.update(Action::Evaluation(EvalAction::CycleConstraint(
        BoardConstraint::MaxVectors,
    )));
    f.app.update(Action::Evaluation(EvalAction::CycleConstraint(
        BoardConstraint::MaxVectors,
    )));
    let board = f.app.board.board.clone().unwrap();
    let seams = board
        .rows
        .iter()
        .find(|r| r.label == "Seams k 30 m 3")
        .unwrap();
    assert_eq!(seams.excluded.as_deref(), Some("1.88× the vectors > 1.5×"));
    // Off again: every row is judged, and the next run keeps the constraints.
    f.app.update(Action::Evaluation(EvalAction::CycleConstraint(
        BoardConstraint::MaxVectors,
    )));
    f.app.update(Action::Evaluation(EvalAction::CycleConstraint(
        BoardConstraint::Once,
    )));
    let board = f.app.board.board.clone().unwrap();
    assert!(board.rows.iter().all(|r| r.excluded.is_none()));
    assert!(board.unconstrained.is_none());
    f.app.update(Action::Evaluation(EvalAction::CycleConstraint(
        BoardConstraint::Once,
    )));
    f.app.update(Action::Evaluation(EvalAction::RunBoard));
    let (_, job, _) = expect_board(&mut f);
    let BoardJob::Strategies(options) = job else {
        panic!("{job:?}")
    };
    assert!(options.constraints.once);
}
