//! The diagnose page through `App::update`, as the keys drive it: `r` asks the worker for the
//! doctor, progress and the report come back, the arrows move over the worst examples and Enter
//! shows one in the text; stale and failed runs; the page drawn at 120 × 34 and 80 × 24. The
//! report is the doctor's real layout findings on the fixture corpus (the hub and evidence
//! checks need the model, which the fixture does not load).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;
use seamscope::doctor::evidence::EvidenceRisk;
use seamscope::doctor::score::Score;
use seamscope::doctor::{DoctorLayout, DoctorOptions, DoctorReport, cuts};
use seamscope::retrieve::EntryRef;

use super::{Diagnose, examples};
use crate::tui::action::{Action, Page, PageDone, Pane as Focus, Slider};
use crate::tui::background::BackgroundProgress;
use crate::tui::fixture::Fixture;
use crate::tui::jobs::Request;
use crate::tui::panes::{PageOutput, Pane};

/// The doctor's cut findings on the fixture's layout, as a report.
fn report(f: &Fixture) -> DoctorReport {
    let open = &f.app.shown.as_ref().expect("the fixture is open").open;
    let mut findings = cuts::cut_findings(&open.corpus, &open.layout);
    findings.push(cuts::atoms_split(&open.corpus, &open.layout));
    DoctorReport {
        layout: DoctorLayout {
            corpus: "fixture".into(),
            documents: open.corpus.documents.len(),
            tokens: 203,
            chunker: open.layout.chunker.clone(),
            chunks: open.layout.chunks.len(),
            seams: open.layout.seams.len(),
            k: 8,
            budget: 4,
            embedder: "test".into(),
        },
        options: DoctorOptions::default(),
        score: Score::of(&findings),
        findings,
        evidence: EvidenceRisk {
            chunk_tokens: 40.0,
            lengths: Vec::new(),
        },
        seconds: 0.4,
    }
}

/// The generation of the page job the screen asked for (other requests skipped).
fn expect_page_work(f: &mut Fixture) -> u64 {
    while let Ok(request) = f.requests.try_recv() {
        if let Request::PageWork { generation, job } = request {
            assert_eq!(job.page, Page::Diagnose);
            return generation;
        }
    }
    panic!("no page job was asked for");
}

fn key(f: &Fixture, code: KeyCode) -> Option<Action> {
    Diagnose.handle_key(&f.app, &KeyEvent::new(code, KeyModifiers::NONE))
}

fn deliver(f: &mut Fixture, generation: u64, result: Result<PageOutput, String>) {
    let layout_generation = f.app.shown.as_ref().map_or(0, |s| s.generation);
    f.app.update(Action::PageDone(Box::new(PageDone {
        generation,
        page: Page::Diagnose,
        layout_generation,
        result,
    })));
}

fn screen(f: &mut Fixture, width: u16, height: u16) -> String {
    f.draw(width, height).backend().to_string()
}

#[test]
fn tui_the_diagnose_page_runs_the_doctor_and_enter_shows_an_example_in_the_text() {
    let mut f = Fixture::answered();
    let page_key = KeyEvent::new(KeyCode::Char('4'), KeyModifiers::NONE);
    assert_eq!(
        crate::tui::panes::page_for_key('4'),
        Some(Page::Diagnose),
        "{page_key:?}"
    );
    f.app.update(Action::ShowPage(Page::Diagnose));
    assert!(screen(&mut f, 120, 34).contains("Press r to diagnose this layout"));

    // The doctor's sampled questions are asked at the screen's budget and margin.
    f.app.update(Action::SetSlider(Slider::Budget, 3));
    let run = key(&f, KeyCode::Char('r')).expect("r runs the doctor");
    let asked = format!("{run:?}");
    assert!(
        asked.contains("budget: 3") && asked.contains(&format!("m: {}", f.app.sliders.m)),
        "{asked}"
    );
    f.app.update(run);
    let generation = expect_page_work(&mut f);
    f.app.update(Action::PageProgress(BackgroundProgress {
        generation,
        what: "asking sampled questions".into(),
        done: 3,
        total: 10,
    }));
    assert!(screen(&mut f, 120, 34).contains("diagnosing: asking sampled questions 3/10"));

    let report = report(&f);
    let all: Vec<_> = examples(&report)
        .into_iter()
        .map(|(i, e)| (i, e.clone()))
        .collect();
    assert!(all.len() >= 2, "the fixture's cuts give examples: {all:?}");
    deliver(&mut f, generation, Ok(PageOutput::from(report.clone())));
    assert!(f.app.jobs.page.in_flight().is_none());
    let text = screen(&mut f, 120, 34);
    assert!(
        text.contains(&format!("score {:.1} / 100", report.score.value)),
        "{text}"
    );
    let first = &report.findings[all[0].0];
    assert!(text.contains(&first.label), "{text}");
    assert!(
        text.contains(&format!("why: {}", &first.why[..40])),
        "{text}"
    );

    // Down moves to the second example; the cursor stops at the last.
    f.app.update(key(&f, KeyCode::Down).expect("down moves"));
    assert_eq!(f.app.page_state(Page::Diagnose).map(|s| s.cursor), Some(1));
    f.app.update(Action::PageCursor {
        delta: 1000,
        rows: all.len(),
    });
    assert_eq!(
        f.app.page_state(Page::Diagnose).map(|s| s.cursor),
        Some(all.len() - 1)
    );
    f.app.update(Action::PageCursor {
        delta: -1000,
        rows: all.len(),
    });
    f.app.update(key(&f, KeyCode::Down).expect("down moves"));

    // Enter: the explore page, the example's document, the cursor on the chunk holding its
    // place, that place in view.
    let example = &all[1].1;
    let go = key(&f, KeyCode::Enter).expect("Enter goes to the example");
    let Action::GoTo { doc, byte } = go else {
        panic!("Enter gave {go:?}");
    };
    let open = std::sync::Arc::clone(&f.app.shown.as_ref().unwrap().open);
    assert_eq!(
        open.corpus.documents[doc.0 as usize].path,
        example.location.doc
    );
    assert_eq!(byte, example.location.at.unwrap_or(example.location.start));
    f.app.update(Action::GoTo { doc, byte });
    assert_eq!(f.app.page, Page::Explore);
    assert_eq!(f.app.focus, Focus::Text);
    assert_eq!(f.app.view.doc, doc);
    let holder = open
        .layout
        .chunks
        .iter()
        .find(|c| c.doc == doc && c.span.start <= byte && byte < c.span.end)
        .expect("a chunk holds the place");
    assert_eq!(f.app.view.cursor, Some(EntryRef::Chunk(holder.id)));
    let rows = f.app.doc_rows(doc, f.app.text_geometry().width);
    let row = rows.row_of_byte(byte).expect("the place has a row");
    let height = f.app.text_geometry().height;
    assert!(
        f.app.view.scroll <= row && row < f.app.view.scroll + height,
        "row {row} in view from {} ({height} rows)",
        f.app.view.scroll
    );
}

#[test]
fn tui_the_diagnose_page_drops_stale_runs_and_says_when_one_failed() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Diagnose));
    f.app
        .update(key(&f, KeyCode::Char('r')).expect("r runs the doctor"));
    let old = expect_page_work(&mut f);
    f.app
        .update(key(&f, KeyCode::Char('r')).expect("r runs the doctor"));
    let newer = expect_page_work(&mut f);
    assert!(newer > old);
    let report = report(&f);
    deliver(&mut f, old, Ok(PageOutput::from(report.clone())));
    assert!(
        f.app.page_state(Page::Diagnose).is_none(),
        "a superseded run's report is dropped"
    );
    f.app.update(Action::CancelJob);
    assert!(f.app.jobs.page.in_flight().is_none(), "Esc cancels");

    f.app
        .update(key(&f, KeyCode::Char('r')).expect("r runs the doctor"));
    let failing = expect_page_work(&mut f);
    deliver(&mut f, failing, Err("the model is not loaded".into()));
    let text = screen(&mut f, 120, 34);
    assert!(
        text.contains("the diagnosis failed: the model is not loaded"),
        "{text}"
    );

    // A report of an older layout says so.
    f.app
        .update(key(&f, KeyCode::Char('r')).expect("r runs the doctor"));
    let generation = expect_page_work(&mut f);
    let layout_generation = f.app.shown.as_ref().unwrap().generation;
    f.app.update(Action::PageDone(Box::new(PageDone {
        generation,
        page: Page::Diagnose,
        layout_generation: layout_generation + 1,
        result: Ok(PageOutput::from(report)),
    })));
    assert!(f.app.page_is_stale(Page::Diagnose));
    assert!(screen(&mut f, 120, 34).contains("the layout changed since: r diagnoses it again"));
}

#[test]
fn tui_snapshot_diagnose_page() {
    let mut f = Fixture::answered();
    f.app.update(Action::ShowPage(Page::Diagnose));
    f.app
        .update(key(&f, KeyCode::Char('r')).expect("r runs the doctor"));
    let generation = expect_page_work(&mut f);
    let report = report(&f);
    deliver(&mut f, generation, Ok(PageOutput::from(report)));
    f.app.update(key(&f, KeyCode::Down).expect("down moves"));
    assert_snapshot!("diagnose_120x34", f.draw(120, 34).backend());
    assert_snapshot!("diagnose_80x24", f.draw(80, 24).backend());
}
