//! The measuring pages and the chunking choices driven by actions alone: calibration and
//! evaluation results arriving (or dropped when stale), `m` applied and rescored, `k` preparing
//! Seams again, and a chunker change rebuilding the layout.

use std::path::PathBuf;

use seamscope::chunk::ChunkerKind;
use seamscope::eval::grid::GridRow;
use seamscope::eval::strategy::Strategy;

use crate::tui::action::{Action, CalibrationAction, EvalAction, Page, Slider};
use crate::tui::background::{
    BackgroundProgress, Calibrated, EvalProblem, Evaluated, SeamsPrepared,
};
use crate::tui::fixture::{Fixture, PARAMS, calibration_report, eval_run};
use crate::tui::jobs::Request;
use crate::tui::layout_params::LayoutParams;

fn seams_row(f: &Fixture) -> GridRow {
    let row = f
        .app
        .evaluation
        .rows
        .iter()
        .find(|r| matches!(r.strategy, Strategy::Seams { .. }));
    match row {
        Some(r) => r.clone(),
        None => panic!("no Seams row"),
    }
}

fn other_rows(f: &Fixture) -> Vec<GridRow> {
    let rows = f.app.evaluation.rows.iter();
    rows.filter(|r| !matches!(r.strategy, Strategy::Seams { .. }))
        .cloned()
        .collect()
}

fn trace_m(f: &Fixture) -> Option<u32> {
    f.app.answer.as_ref().map(|a| a.trace.settings.m)
}

#[test]
fn tui_a_calibration_arrives_and_its_m_is_applied_through_the_m_slider() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Calibration));
    f.app
        .update(Action::Calibration(CalibrationAction::ApplyRecommended));
    assert!(
        f.app.notice.as_ref().is_some_and(|n| n.error),
        "nothing to apply before a calibration"
    );
    f.app.update(Action::Calibration(CalibrationAction::Run));
    let generation = match f.requests.try_recv() {
        Ok(Request::Calibrate {
            generation,
            query,
            gold,
        }) => {
            assert_eq!((query.k, query.depth), (PARAMS.k as u32, 150));
            assert!(gold, "the corpus' question set is used when there is one");
            generation
        }
        other => panic!("expected a Calibrate request, got {other:?}"),
    };
    assert!(f.app.jobs.calibration.is_current(generation));
    f.deliver_calibration(generation, calibration_report());
    assert!(f.app.jobs.calibration.in_flight().is_none());
    let recommended = f
        .app
        .calibration
        .report
        .as_ref()
        .and_then(|r| r.verdict.recommended_m);
    assert_eq!(recommended, Some(4), "the measured curve's fewest failures");
    assert_eq!(trace_m(&f), Some(2));

    let follow_up = f
        .app
        .update(Action::Calibration(CalibrationAction::ApplyRecommended));
    assert!(
        matches!(follow_up, Some(Action::SetSlider(Slider::M, 4))),
        "the m slider's own action: {follow_up:?}"
    );
    f.apply(Action::Calibration(CalibrationAction::ApplyRecommended));
    assert_eq!(f.app.sliders.m, 4);
    assert_eq!(trace_m(&f), Some(4), "the result on screen was replanned");
    let fired = f
        .app
        .answer
        .as_ref()
        .is_some_and(|a| a.trace.decisions.iter().any(|d| d.fires));
    assert!(!fired, "at m = 4 no seam of the fixture's ranking fires");
    assert!(f.requests.try_recv().is_err(), "applying m needs no worker");
}

#[test]
fn tui_g_switches_the_calibration_between_gold_questions_and_passages() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Calibration));
    let g = crossterm::event::Event::Key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char('g'),
    ));
    assert!(matches!(
        crate::tui::input::action_for(&f.app, &g),
        Some(Action::Calibration(CalibrationAction::ToggleQuestions))
    ));
    f.app
        .update(Action::Calibration(CalibrationAction::ToggleQuestions));
    match f.requests.try_recv() {
        Ok(Request::Calibrate { gold, .. }) => assert!(!gold, "g asks sampled passages"),
        other => panic!("expected a Calibrate request, got {other:?}"),
    }
    f.app
        .update(Action::Calibration(CalibrationAction::ToggleQuestions));
    match f.requests.try_recv() {
        Ok(Request::Calibrate { gold, .. }) => assert!(gold, "g again: the gold set"),
        other => panic!("expected a Calibrate request, got {other:?}"),
    }
}

#[test]
fn tui_applying_the_calibration_sets_the_scanned_k_and_m() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Calibration));
    f.app.update(Action::Calibration(CalibrationAction::Run));
    let generation = f.expect_calibrate();
    let mut best = seamscope::tune::TuneRow {
        chunk_tokens: PARAMS.chunk_tokens,
        k: Some(PARAMS.k + 4),
        m: Some(3),
        budget: 4,
        side_drop: None,
        wasted_fires_per_question: 0.0,
        failures: 1,
        failure_rate: 0.1,
        interval: seamscope::calibrate::interval::wilson(1, 10),
        mean_tokens: 100.0,
        vectors: 10,
        fires_per_question: 0.5,
        false_fires_per_question: 0.1,
        pareto: true,
        traced: None,
    };
    let other = best.clone();
    best.k = Some(PARAMS.k + 4);
    // The report comes first, while the other strategies are still scored beside it: shown,
    // the job still running; then the same report with them ends the job, the k scan kept.
    f.app
        .update(Action::Calibration(CalibrationAction::Done(Box::new(
            Calibrated {
                generation,
                result: Ok(std::sync::Arc::new(calibration_report())),
                k_scan: vec![
                    best,
                    seamscope::tune::TuneRow {
                        k: Some(PARAMS.k),
                        failures: 2,
                        ..other
                    },
                ],
                partial: true,
            },
        ))));
    assert!(f.app.calibration.report.is_some());
    assert!(f.app.jobs.calibration.is_current(generation));
    assert!(
        f.app.jobs.calibration.in_flight().is_some(),
        "still scoring the others"
    );
    f.app
        .update(Action::Calibration(CalibrationAction::Done(Box::new(
            Calibrated {
                generation,
                result: Ok(std::sync::Arc::new(calibration_report())),
                k_scan: Vec::new(),
                partial: false,
            },
        ))));
    assert!(f.app.jobs.calibration.in_flight().is_none());
    assert_eq!(f.app.calibration.k_scan.len(), 2, "the k scan stays");
    assert_eq!(f.app.calibration.recommended(), Some((PARAMS.k + 4, 3)));
    let follow_up = f
        .app
        .update(Action::Calibration(CalibrationAction::ApplyRecommended));
    assert_eq!(f.app.sliders.k, PARAMS.k + 4, "k moved: its seams rebuild");
    assert!(matches!(follow_up, Some(Action::SetSlider(Slider::M, 3))));
    let screen = f.draw(200, 60).backend().to_string();
    assert!(screen.contains("k scan:"), "{screen}");
}

#[test]
fn tui_a_stale_or_cancelled_calibration_is_dropped() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Calibration));
    f.app.update(Action::Calibration(CalibrationAction::Run));
    let older = f.expect_calibrate();
    f.app.update(Action::Calibration(CalibrationAction::Run));
    let newer = f.expect_calibrate();
    for generation in [older, newer] {
        f.app
            .update(Action::Calibration(CalibrationAction::Progress(
                BackgroundProgress {
                    generation,
                    what: "asking questions".into(),
                    done: if generation == newer { 37 } else { 99 },
                    total: 120,
                },
            )));
    }
    let screen = f.draw(200, 60).backend().to_string();
    assert!(
        screen.contains("calibrating: asking questions 37/120"),
        "the newest job's gauge: {screen}"
    );
    f.deliver_calibration(older, calibration_report());
    assert!(
        f.app.calibration.report.is_none(),
        "the older report is dropped"
    );
    assert!(f.app.jobs.calibration.is_current(newer));
    f.app.update(Action::CancelJob);
    assert!(f.app.jobs.calibration.in_flight().is_none());
    f.deliver_calibration(newer, calibration_report());
    assert!(
        f.app.calibration.report.is_none(),
        "a cancelled report is dropped"
    );
}

#[test]
fn tui_an_eval_arrives_and_m_rescores_seams_without_a_new_search() {
    let mut f = Fixture::evaluated();
    assert!(f.app.jobs.eval.in_flight().is_none());
    let rows = &f.app.evaluation.rows;
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["no overlap", "neighbour expansion", "Seams k=8"]);
    let at_2 = seams_row(&f);
    assert_eq!(
        at_2.fire_rate, 0.25,
        "only the fact across cut 1|2 fires at m = 2"
    );
    assert_eq!(at_2.false_fire_rate, 0.0);
    let others = other_rows(&f);

    f.app.update(Action::AdjustSlider(Slider::M, -1));
    let at_1 = seams_row(&f);
    assert_eq!(
        at_1.fire_rate, 0.75,
        "at m = 1 the seams one place ahead fire too"
    );
    assert!(at_1.false_fire_rate > 0.6 && at_1.waste_rate > 0.6);
    assert_eq!(other_rows(&f), others, "only Seams has a fire test");
    assert!(f.requests.try_recv().is_err(), "rescoring needs no worker");
    assert!(f.app.jobs.eval.in_flight().is_none());

    f.app.update(Action::SetSlider(Slider::M, 5));
    let at_5 = seams_row(&f);
    assert_eq!(at_5.fire_rate, 0.0);
    assert!(
        at_5.failure_rate > at_2.failure_rate,
        "the split fact is lost"
    );

    f.app.update(Action::AdjustSlider(Slider::Budget, -2));
    assert!(f.requests.try_recv().is_err());
    let smaller = other_rows(&f);
    assert!(
        smaller[0].mean_tokens < others[0].mean_tokens,
        "a budget change rescores every row"
    );
}

#[test]
fn tui_a_k_change_prepares_only_seams_again_and_stale_evals_are_dropped() {
    let mut f = Fixture::evaluated();
    f.app.update(Action::AdjustSlider(Slider::K, 1));
    let _layout = f.expect_open();
    let generation = match f.requests.try_recv() {
        Ok(Request::PrepareSeams { generation, k, .. }) => {
            assert_eq!(k, PARAMS.k + 10);
            generation
        }
        other => panic!("expected a PrepareSeams request, got {other:?}"),
    };
    let others = other_rows(&f);
    let Some(shown) = &f.app.shown else {
        panic!("no corpus shown");
    };
    let mut run = eval_run(&shown.open);
    let Some(mut seams) = run.strategies.pop() else {
        panic!("the run has Seams");
    };
    seams.strategy = Strategy::Seams { k: 18 };
    seams.label = seams.strategy.label(PARAMS.chunk_tokens);
    f.app
        .update(Action::Evaluation(EvalAction::SeamsPrepared(Box::new(
            SeamsPrepared {
                generation,
                result: Ok(seams),
            },
        ))));
    assert_eq!(seams_row(&f).label, "Seams k=18");
    assert_eq!(other_rows(&f), others, "the other strategies are kept");
    assert!(f.app.jobs.eval.in_flight().is_none());

    f.app.update(Action::Evaluation(EvalAction::RunComparison));
    let older = f.expect_evaluate();
    f.app.update(Action::Evaluation(EvalAction::RunComparison));
    let newer = f.expect_evaluate();
    f.deliver_eval(older);
    assert_eq!(
        seams_row(&f).label,
        "Seams k=18",
        "the older run is dropped"
    );
    assert!(f.app.jobs.eval.is_current(newer));
    f.deliver_eval(newer);
    assert_eq!(seams_row(&f).label, "Seams k=8");
}

#[test]
fn tui_a_missing_question_set_says_how_to_add_one() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Evaluation));
    f.app.update(Action::Evaluation(EvalAction::RunComparison));
    let generation = f.expect_evaluate();
    let path = PathBuf::from("fixture/questions.jsonl");
    f.app
        .update(Action::Evaluation(EvalAction::Evaluated(Box::new(
            Evaluated {
                generation,
                result: Err(EvalProblem::MissingQuestions(path)),
            },
        ))));
    let screen = f.draw(160, 44).backend().to_string();
    assert!(screen.contains("No question set"), "{screen}");
    assert!(screen.contains("fixture/questions.jsonl"), "{screen}");
    assert!(screen.contains("\"spans\""), "an example line: {screen}");
}

#[test]
fn tui_a_chunker_change_rebuilds_with_the_chosen_chunker() {
    let mut f = Fixture::answered();
    f.app.update(Action::CycleChunker(1));
    let (generation, params) = match f.requests.try_recv() {
        Ok(Request::Open {
            generation, params, ..
        }) => (generation, params),
        other => panic!("expected an Open request, got {other:?}"),
    };
    assert_eq!(params.chunker, ChunkerKind::Sentence);
    assert_eq!(
        (params.chunk_tokens, params.k),
        (PARAMS.chunk_tokens, PARAMS.k)
    );
    let sentence = LayoutParams {
        chunker: ChunkerKind::Sentence,
        ..PARAMS
    };
    let open = f.layout(sentence);
    f.deliver_open(generation, sentence, open, None);
    let Some(shown) = &f.app.shown else {
        panic!("no corpus shown");
    };
    assert_eq!(shown.params.chunker, ChunkerKind::Sentence);
    assert!(shown.open.layout.chunker.starts_with("sentence-"));
    let _ask = f.expect_ask();

    f.app.update(Action::ToggleHeadingPrefix);
    let generation = match f.requests.try_recv() {
        Ok(Request::Open {
            generation, params, ..
        }) => {
            assert!(params.heading_prefix);
            assert_eq!(params.chunker, ChunkerKind::Sentence);
            generation
        }
        other => panic!("expected an Open request, got {other:?}"),
    };
    let header = f.draw(200, 60).backend().to_string();
    assert!(header.contains("headings on…"), "pending: {header}");
    f.app.update(Action::OpenFailed {
        generation,
        error: "disk full".into(),
    });
    assert!(!f.app.sliders.heading_prefix, "the choice goes back");
}

/// Rows standing for `failed` lists, cloned from the fixture's first row.
fn rows_failing(f: &Fixture, failed: &[Vec<bool>]) -> Vec<GridRow> {
    let Some(template) = f.app.evaluation.rows.first() else {
        panic!("the fixture has rows");
    };
    failed
        .iter()
        .enumerate()
        .map(|(i, fails)| GridRow {
            label: format!("row {i}"),
            failed: fails.clone(),
            ..template.clone()
        })
        .collect()
}

#[test]
fn the_evaluation_page_names_a_winner_only_beyond_noise() {
    let f = Fixture::evaluated();
    assert!(
        f.app.evaluation.verdict.is_some(),
        "an evaluation run comes with its verdict"
    );
    // 200 questions: one row fails 10, the other 120 of them: beyond noise.
    let clear = rows_failing(
        &f,
        &[
            (0..200).map(|q| q < 10).collect(),
            (0..200).map(|q| q < 120).collect(),
        ],
    );
    let Some(v) = super::evaluation::rows_verdict(&clear) else {
        panic!("rows with failures have a verdict");
    };
    assert_eq!(v.winner.as_deref(), Some("row 0"), "{v:?}");
    // 20 questions, 3 failures against 4: the best row is not beyond noise.
    let close = rows_failing(
        &f,
        &[
            (0..20).map(|q| q < 3).collect(),
            (0..20).map(|q| q >= 16).collect(),
        ],
    );
    let Some(v) = super::evaluation::rows_verdict(&close) else {
        panic!("rows with failures have a verdict");
    };
    assert_eq!(v.winner, None, "{v:?}");
    assert_eq!(v.tied_with.len(), 2, "{v:?}");
    let words = v.sentence();
    assert!(words.starts_with("tied among row 0 ("), "{words}");
}
