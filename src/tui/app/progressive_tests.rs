//! Progressive open as the screen sees it: a preview (documents, cuts, keyword indexes) shown
//! while the layout job embeds, questions answered on the keyword lists meanwhile, the vectors
//! swapped in without losing the view, and the files on disk checked and reloaded.

use std::sync::Arc;

use seamscope::index::lineage::CorpusChanges;
use seamscope::retrieve::ListSource;
use seamscope::session::QueryTimings;
use tokio::sync::mpsc::unbounded_channel;

use crate::tui::action::{Action, Answered, Searched};
use crate::tui::fixture::{Fixture, QUESTION};
use crate::tui::jobs::{Generations, Jobs, Request};

fn screen_text(f: &mut Fixture) -> String {
    f.draw(160, 48).backend().to_string()
}

/// Ask [`QUESTION`] and deliver the worker's answer on the corpus shown (keyword lists alone
/// when its vectors are not in, as the worker answers then).
fn ask_and_answer(f: &mut Fixture) {
    f.app.update(Action::StartTyping);
    f.app.update(Action::ClearQuery);
    f.app.update(Action::Paste(QUESTION.to_string()));
    f.app.update(Action::RunQuery);
    let generation = f.expect_ask();
    deliver(f, generation);
}

fn deliver(f: &mut Fixture, generation: u64) {
    let Some(shown) = &f.app.shown else {
        panic!("no corpus shown");
    };
    let open = Arc::clone(&shown.open);
    let query = f.app.query_settings();
    let dense_pending = !open.indexes.dense_ready();
    let input = if dense_pending {
        open.search_keywords(QUESTION, &query)
            .unwrap_or_else(|e| panic!("keyword answer: {e}"))
            .0
    } else {
        crate::tui::fixture::trace(&open, query).input
    };
    let layout_generation = shown.generation;
    f.app.update(Action::Answered(Box::new(Answered {
        generation,
        layout_generation,
        result: Ok(Searched {
            input,
            timings: QueryTimings::default(),
            dense_pending,
        }),
    })));
}

#[test]
fn tui_a_preview_shows_documents_and_answers_on_keywords_until_the_vectors_arrive() {
    let (mut f, generation, full) = Fixture::previewed();
    assert!(f.app.shown.is_some(), "the documents are shown at once");
    assert!(
        f.app.jobs.layout.in_flight().is_some(),
        "the layout job goes on embedding"
    );
    let screen = screen_text(&mut f);
    assert!(
        screen
            .lines()
            .next()
            .is_some_and(|top| top.contains("vectors coming:")),
        "the top line says what is still coming:\n{screen}"
    );
    assert!(screen.contains('✂'), "the cuts are drawn:\n{screen}");
    // At the smallest size the embedding's counts and time left still fit on the top line.
    f.app
        .update(Action::Progress(crate::tui::action::JobProgress {
            generation,
            stage: crate::tui::action::JobStage::Build(seamscope::index::BuildStage::EmbedChunks),
            done: 16_256,
            total: 79_433,
            eta: Some(std::time::Duration::from_secs(95)),
        }));
    let terminal = f.draw(120, 34);
    let buffer = terminal.backend().buffer();
    let top: String = (0..120).map(|x| buffer[(x, 0)].symbol()).collect();
    assert!(
        top.contains("vectors coming: embedding chunks 16,256/79,433 tokens · 1 min 35 s left"),
        "{top}"
    );

    ask_and_answer(&mut f);
    let answer = f.app.answer.as_ref().unwrap_or_else(|| panic!("no answer"));
    assert!(answer.dense_pending);
    let sources: Vec<ListSource> = match &answer.trace.input.ranking {
        seamscope::retrieve::RankingInput::Lists(lists) => lists.iter().map(|l| l.source).collect(),
        other => panic!("lists expected, got {other:?}"),
    };
    assert_eq!(
        sources,
        [ListSource::KeywordChunks, ListSource::KeywordSeams],
        "no dense list before the vectors"
    );
    assert!(
        !answer.trace.fused.is_empty(),
        "the keyword lists found the question's words"
    );
    let screen = screen_text(&mut f);
    assert!(
        screen.contains("dense pending: keyword lists only"),
        "the ranking says it ran on keywords alone:\n{screen}"
    );
    f.app.update(crate::tui::action::Action::NextChunk);
    let cursor = f.app.view.cursor;
    assert!(cursor.is_some());

    // The vectors arrive for the same layout: the view stays, the question is asked again.
    let params = f.app.sliders.layout();
    f.deliver_open(generation, params, full, None);
    assert!(f.app.jobs.layout.in_flight().is_none(), "the job is over");
    let shown = f.app.shown.as_ref().unwrap_or_else(|| panic!("shown"));
    assert!(shown.open.indexes.dense_ready());
    assert_eq!(f.app.view.cursor, cursor, "the reader's place is kept");
    assert!(
        f.app.answer.as_ref().is_some_and(|a| a.dense_pending),
        "the keyword answer stays on screen until the full one arrives"
    );
    let again = f.expect_ask();
    deliver(&mut f, again);
    let answer = f.app.answer.as_ref().unwrap_or_else(|| panic!("no answer"));
    assert!(!answer.dense_pending);
    let screen = screen_text(&mut f);
    assert!(
        !screen.contains("dense pending") && screen.contains("RRF c = 60"),
        "the full ranking replaced it:\n{screen}"
    );
}

#[test]
fn tui_focus_checks_the_files_and_r_reloads_them() {
    let mut f = Fixture::opened();
    f.app.update(Action::CheckCorpus);
    let shown_generation = f.app.shown.as_ref().map_or(0, |s| s.generation);
    match f.requests.try_recv() {
        Ok(Request::CheckChanges { generation }) => assert_eq!(generation, shown_generation),
        other => panic!("expected a check of the files, got {other:?}"),
    }
    let changes = CorpusChanges {
        previous_index: String::new(),
        added: vec!["new\u{1b}[31m.md".into()],
        modified: vec!["a.md".into(), "b.md".into(), "c.md".into(), "d.md".into()],
        removed: vec![],
        unchanged: 2,
    };
    f.app.update(Action::CorpusChanged {
        generation: shown_generation,
        changes: Ok(changes.clone()),
    });
    let notice = f
        .app
        .notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default();
    assert_eq!(
        notice,
        "4 files changed (a.md, b.md, c.md, 1 more), 1 file added (new␛[31m.md) on disk: R reloads"
    );
    // A report about a layout no longer shown is dropped.
    f.app.notice = None;
    f.app.update(Action::CorpusChanged {
        generation: shown_generation + 100,
        changes: Ok(changes),
    });
    assert!(f.app.notice.is_none());

    f.app.update(Action::Reload);
    match f.requests.try_recv() {
        Ok(Request::Open { reload, .. }) => assert!(reload, "R reads the files again"),
        other => panic!("expected a reload, got {other:?}"),
    }
}

#[test]
fn tui_the_worker_answers_on_keywords_between_slices_and_keeps_other_requests() {
    let (f, generation, _) = Fixture::previewed();
    let preview = f
        .app
        .shown
        .as_ref()
        .map(|s| Arc::clone(&s.open))
        .unwrap_or_else(|| panic!("shown"));
    let (tx, mut rx) = unbounded_channel();
    let gens = Arc::new(Generations::default());
    let mut jobs = Jobs::new(tx, Arc::clone(&gens));
    let query = f.app.query_settings();
    jobs.start_query("an older question".into(), query);
    let newest = jobs.start_query(QUESTION.into(), query);
    jobs.check_changes(generation);
    let (reply_tx, mut replies) = unbounded_channel();
    let send = move |a: Action| {
        let _ = reply_tx.send(a);
    };
    let mut backlog = std::collections::VecDeque::new();
    crate::tui::worker::answer_while_building(
        &mut rx,
        &mut backlog,
        &preview,
        generation,
        &send,
        &gens,
    );
    match replies.try_recv() {
        Ok(Action::Answered(answered)) => {
            assert_eq!(
                answered.generation, newest,
                "only the newest question is answered"
            );
            assert_eq!(answered.layout_generation, generation);
            let answer = answered.result.unwrap_or_else(|e| panic!("{e}"));
            assert!(answer.dense_pending && !answer.input.ranking.fused(&query).is_empty());
        }
        other => panic!("expected an answer, got {other:?}"),
    }
    assert!(
        replies.try_recv().is_err(),
        "the superseded question is skipped"
    );
    assert_eq!(
        backlog.into_iter().collect::<Vec<_>>(),
        [Request::CheckChanges { generation }],
        "the rest waits for the build"
    );
}

#[test]
fn tui_the_document_list_fills_in_while_the_rest_are_laid_out() {
    let mut f = Fixture::opened();
    f.app.update(Action::Reload);
    let generation = f.expect_open();
    let params = f.app.sliders.layout();
    let full = f.layout(params);
    let total = full.corpus.documents.len();
    assert!(total >= 2, "the fixture needs two documents");
    // The first document alone, as the worker sends it before the rest are tokenized.
    let first = seamscope::corpus::DocId(0);
    let mut layout = full.layout.clone();
    layout.offsets.truncate(1);
    layout.chunks.retain(|c| c.doc == first);
    layout.seams.retain(|s| s.doc == first);
    let corpus = seamscope::corpus::Corpus {
        documents: full.corpus.documents[..1].to_vec(),
        ..full.corpus.clone()
    };
    let part = seamscope::session::OpenCorpus::keywords_only(corpus, layout)
        .unwrap_or_else(|e| panic!("preview: {e}"));
    let opened = |open, coming| {
        Box::new(crate::tui::action::Opened {
            generation,
            open,
            highlights: Arc::clone(&f.highlights),
            atoms: Arc::clone(&f.atoms),
            params,
            searched: None,
            questions: Arc::new(crate::tui::gold::GoldQuestions::Missing),
            coming,
        })
    };
    let first_part = opened(Arc::new(part), Some(total));
    let keyword_preview =
        seamscope::session::OpenCorpus::keywords_only(full.corpus.clone(), full.layout.clone())
            .unwrap_or_else(|e| panic!("preview: {e}"));
    let whole = opened(Arc::new(keyword_preview), None);
    f.app.update(Action::Previewed(first_part));
    let screen = screen_text(&mut f);
    assert!(
        screen.contains(&format!("Documents · 1 of {total}")),
        "the list says more documents are coming:\n{screen}"
    );
    assert!(f.app.jobs.layout.in_flight().is_some());
    f.app.update(crate::tui::action::Action::NextChunk);
    let cursor = f.app.view.cursor;

    f.app.update(Action::Previewed(whole));
    let screen = screen_text(&mut f);
    assert!(
        screen.contains(&format!("Documents · {total} "))
            && !screen.contains(&format!(" of {total}")),
        "every document is listed:\n{screen}"
    );
    assert_eq!(f.app.view.cursor, cursor, "the reader's place is kept");
    let shown = f.app.shown.as_ref().unwrap_or_else(|| panic!("shown"));
    assert_eq!(shown.open.corpus.documents.len(), total);
    assert!(shown.coming.is_none());
    assert!(
        f.app.jobs.layout.in_flight().is_some(),
        "the vectors are still to come"
    );
}
