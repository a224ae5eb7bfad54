//! Draw time per frame at 200 x 60 on the sample corpus, printed (never asserted: the machines
//! are shared). `seamscope bench draw` gives the release figures for every screen.

use std::path::Path;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use seamscope::corpus::{Corpus, LoadOptions};
use seamscope::retrieve::{
    EntryRef, ListSource, QueryInput, RankedList, RankingInput, RerankInput,
};
use seamscope::session::QueryTimings;
use seamscope::settings::Settings;

use crate::tui::action::{Action, Pane, Searched};
use crate::tui::fixture::Fixture;

/// Frames drawn for the measurement.
const FRAMES: usize = 200;

/// Every chunk and seam of the corpus, ranked by made-up lists (the shape of a real query).
fn wide_answer(f: &Fixture) -> Searched {
    let Some(shown) = &f.app.shown else {
        panic!("no corpus shown");
    };
    let open = &shown.open;
    let chunks = open.layout.chunks.len() as u32;
    let seams = open.layout.seams.len() as u32;
    let spread = |n: u32, step: u32| (0..n).map(move |i| (i * step + 7) % n.max(1));
    let dense: Vec<EntryRef> = spread(chunks, 37)
        .map(|c| EntryRef::Chunk(seamscope::chunk::ChunkId(c)))
        .zip(spread(seams, 23).map(|s| EntryRef::Seam(seamscope::seam::SeamId(s))))
        .flat_map(|(c, s)| [s, c])
        .collect();
    let keyword_chunks = spread(chunks, 11).map(|c| EntryRef::Chunk(seamscope::chunk::ChunkId(c)));
    let keyword_seams = spread(seams, 13).map(|s| EntryRef::Seam(seamscope::seam::SeamId(s)));
    // The chunks-only side is what a real chunks-only search returns: the dense list without its
    // seams and the same BM25 list over chunks.
    let dense_chunks: Vec<EntryRef> = dense.iter().copied().filter(|e| !e.is_seam()).collect();
    let input = QueryInput {
        question: "Why does the order service accept stale reads?".into(),
        ranking: RankingInput::Lists(vec![
            RankedList::from_entries(ListSource::Dense, dense),
            RankedList::from_entries(ListSource::KeywordChunks, keyword_chunks.clone()),
            RankedList::from_entries(ListSource::KeywordSeams, keyword_seams),
        ]),
        chunks_only: Some(RankingInput::Lists(vec![
            RankedList::from_entries(ListSource::Dense, dense_chunks),
            RankedList::from_entries(ListSource::KeywordChunks, keyword_chunks),
        ])),
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    };
    Searched {
        input,
        timings: QueryTimings::default(),
        dense_pending: false,
    }
}

#[test]
fn tui_draw_time_per_frame_at_200x60() {
    let corpus = Corpus::load(Path::new("sample-corpus"), &LoadOptions::default());
    let corpus = corpus.unwrap_or_else(|e| panic!("sample corpus: {e}"));
    let settings = Settings {
        m: 1,
        ..Settings::default()
    };
    let mut f = Fixture::open_on(corpus, &settings);
    let answer = wide_answer(&f);
    f.show_searched(answer);
    f.app.update(Action::Focus(Pane::Ranking));
    let mut terminal = match Terminal::new(TestBackend::new(200, 60)) {
        Ok(t) => t,
        Err(e) => panic!("test terminal: {e}"),
    };
    let mut times: Vec<Duration> = Vec::with_capacity(FRAMES);
    for i in 0..FRAMES {
        // Something changes every frame: the ranking cursor moves and the text follows it.
        f.app
            .update(Action::MoveSelection(if i % 40 < 20 { 1 } else { -1 }));
        let app = &f.app;
        let started = Instant::now();
        let drawn = terminal.draw(|frame| super::draw(app, frame));
        times.push(started.elapsed());
        assert!(drawn.is_ok());
    }
    times.sort();
    let mean = times.iter().sum::<Duration>() / FRAMES as u32;
    let p95 = times[FRAMES * 95 / 100];
    let max = times[FRAMES - 1];
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "draw time per frame at 200x60 ({profile} build, {FRAMES} frames, sample corpus): mean {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        mean.as_secs_f64() * 1e3,
        p95.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3
    );
    // The figure is printed, never asserted (the machines are shared): `seamscope bench draw`
    // measures the release build on every screen. What is asserted is that each frame drew the
    // ranking with the cursor's entry in view.
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Fused ranking · "), "{screen}");
}
