//! A small corpus with a hand-made ranking, for testing the screen without a terminal or a model
//! run: real chunks and seams (the real tokenizer), indexes built with a stand-in embedder, and a
//! trace from the engine's own pure stages.

use std::sync::Arc;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use seamscope::chunk::{ChunkId, ChunkerKind};
use seamscope::corpus::Corpus;
use seamscope::embed::testing::HashEmbedder;
use seamscope::index::{BuildOptions, open_or_build};
use seamscope::layout::Layout;
use seamscope::retrieve::{
    EntryRef, ListSource, QueryInput, QuerySettings, RankedList, RankingInput, RerankInput, replan,
};
use seamscope::seam::SeamId;
use seamscope::session::{OpenCorpus, QueryTimings};
use seamscope::settings::Settings;
use seamscope::tokens::TokenCounter;
use tempfile::TempDir;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

pub mod boards;
mod reports;

pub use reports::{calibration_report, eval_run};

use super::action::{Action, Answered, Opened, Searched};
use super::app::App;
use super::doc_atoms::DocAtoms;
use super::gold::GoldQuestions;
use super::highlight::{Highlighter, Highlights};
use super::jobs::{Generations, Jobs, Request};
use super::layout_params::LayoutParams;
use super::share::ViewFile;
use super::theme::Theme;
use super::views;
use seamscope::eval::questions::Question;

/// The question the fixture's ranking answers.
pub const QUESTION: &str = "Why does the cache go cold after a deploy?";

const DESIGN: &str = "# Cache design\n\nThe route cache keeps recent answers close to the \
dispatchers. It is warmed from the previous day's traffic every night.\n\n## Eviction\n\nEntries \
leave the cache when they are older than ten minutes or when memory runs short. A deploy restarts \
every node, and a restarted node starts empty. That is why the cache goes cold after a deploy: the \
warm-up job only runs at night.\n\n```python\ndef warm(cache, log):\n    # replay yesterday's \
lookups\n    for key in log.keys():\n        cache.put(key, \"warm\")\n    return 42\n```\n\n\
## Limits\n\nThe cache never holds billing data.\n";

const NOTES: &str = "Notes from the cache review. The team agreed to warm the cache during a \
deploy instead of waiting for the night job. Each node will copy the hot keys from a peer before \
it takes traffic. Until then, expect slower answers for about fifteen minutes after each \
deploy.\n\nThe review also asked for a dashboard of hit rates per node.\n";

/// Chunk size and seam half-width of the fixture's first layout.
pub const PARAMS: LayoutParams = LayoutParams {
    chunk_tokens: 40,
    k: 8,
    chunker: ChunkerKind::Fixed,
    heading_prefix: false,
};

/// A screen opened on the fixture corpus, with the worker's request queue to inspect.
pub struct Fixture {
    /// The screen's state.
    pub app: App,
    /// What the screen asked the worker to do.
    pub requests: UnboundedReceiver<Request>,
    /// Syntax classes of the fixture corpus.
    pub highlights: Arc<Highlights>,
    /// Atoms of the fixture corpus.
    pub atoms: Arc<DocAtoms>,
    cache: TempDir,
}

/// The real model's tokenizer (installed by `seamscope setup`).
pub fn tokenizer() -> TokenCounter {
    let places = seamscope::places::Places::of(&Settings::default());
    match TokenCounter::from_file(&places.model_dir.join("tokenizer.json")) {
        Ok(t) => t,
        Err(e) => panic!("the model's tokenizer is needed (run `seamscope setup`): {e}"),
    }
}

/// The fixture's two documents.
pub fn corpus() -> Corpus {
    Corpus::from_texts([("cache-design.md", DESIGN), ("review-notes.txt", NOTES)])
}

/// `corpus` laid out with `params`, indexed in `cache` with a stand-in embedder.
pub fn open_corpus(corpus: Corpus, params: LayoutParams, cache: &TempDir) -> Arc<OpenCorpus> {
    let tokenizer = tokenizer();
    let chunker = params.chunker.build(params.chunk_tokens);
    let layout = Layout::build(&corpus, &tokenizer, chunker.as_ref(), params.k)
        .map(|l| l.with_heading_prefix(params.heading_prefix));
    let layout = layout.unwrap_or_else(|e| panic!("fixture layout: {e}"));
    let mut embedder = HashEmbedder::new(16, 256);
    let built = open_or_build(
        &corpus,
        &layout,
        &mut embedder,
        &tokenizer,
        cache.path(),
        BuildOptions::default(),
        &mut |_| true,
    );
    let (indexes, report) = built.unwrap_or_else(|e| panic!("fixture indexes: {e}"));
    Arc::new(OpenCorpus {
        corpus,
        layout,
        indexes,
        report,
    })
}

fn chunk(i: u32) -> EntryRef {
    EntryRef::Chunk(ChunkId(i))
}

/// The seam whose left chunk is `left`.
fn seam_after(open: &OpenCorpus, left: u32) -> EntryRef {
    let seam = open.layout.seams.iter().find(|s| s.left == ChunkId(left));
    EntryRef::Seam(seam.map_or(SeamId(0), |s| s.id))
}

/// A trace for [`QUESTION`] under `query`: seam 1|2 leads its chunks by two places (it fires for
/// m ≤ 2), and the seam after the first chunk of the notes fires only on absence, at m = 1.
///
/// Chunk 2 ranks low on its own, so at budget 4 a real chunks-only run misses it and Seams brings
/// it in. The chunks-only lists are what a real chunks-only search returns for the same scores:
/// the dense list without its seams and the same BM25 list over chunks, fused like any other.
pub fn trace(open: &OpenCorpus, query: QuerySettings) -> seamscope::retrieve::Trace {
    let notes_first = open
        .layout
        .chunks
        .iter()
        .find(|c| c.doc.0 == 1)
        .map_or(0, |c| c.id.0);
    let dense = RankedList::from_entries(
        ListSource::Dense,
        [
            seam_after(open, 1),
            chunk(3),
            chunk(1),
            seam_after(open, notes_first),
            chunk(notes_first),
            chunk(0),
            chunk(2),
            seam_after(open, 0),
        ],
    );
    let keyword_chunks = RankedList::from_entries(ListSource::KeywordChunks, [chunk(3), chunk(1)]);
    let keyword_seams = RankedList::from_entries(ListSource::KeywordSeams, [seam_after(open, 1)]);
    let dense_chunks = RankedList::new(
        ListSource::Dense,
        dense
            .hits
            .iter()
            .copied()
            .filter(|h| !h.entry.is_seam())
            .collect(),
    );
    let input = QueryInput {
        question: QUESTION.to_string(),
        chunks_only: Some(RankingInput::Lists(vec![
            dense_chunks,
            keyword_chunks.clone(),
        ])),
        ranking: RankingInput::Lists(vec![dense, keyword_chunks, keyword_seams]),
        rerank: RerankInput::NotConfigured,
        side_scores: Vec::new(),
    };
    let trace = open.with_lookups(|l| replan(&input, &query, l));
    trace.unwrap_or_else(|e| panic!("fixture trace: {e}"))
}

/// The fixture's question set: [`QUESTION`] with its evidence (the deploy sentences of the cache
/// design, which a cut of the 40-token chunks splits), and one question about the notes.
pub fn gold_questions() -> GoldQuestions {
    let span_of = |text: &str, from: &str, to: &str| {
        let start = text.find(from).unwrap_or(0);
        let end = text.find(to).map_or(text.len(), |e| e + to.len());
        seamscope::corpus::Span::new(start, end)
    };
    GoldQuestions::Loaded(vec![
        Question {
            id: "F01".into(),
            question: QUESTION.to_string(),
            doc: seamscope::corpus::DocId(0),
            spans: vec![span_of(DESIGN, "Entries leave", "runs at night.")],
            tags: vec!["boundary".into()],
        },
        Question {
            id: "F02".into(),
            question: "How will nodes warm up during a deploy?".into(),
            doc: seamscope::corpus::DocId(1),
            spans: vec![span_of(NOTES, "Each node will copy", "takes traffic.")],
            tags: vec!["inside".into()],
        },
    ])
}

/// Settings of the fixture: m = 2, budget 4, small chunks.
pub fn settings() -> Settings {
    Settings {
        m: 2,
        budget: 4,
        chunk_tokens: PARAMS.chunk_tokens,
        k: PARAMS.k,
        ..Settings::default()
    }
}

impl Fixture {
    /// A screen at 200 x 60 whose corpus has been opened (no question yet).
    pub fn opened() -> Fixture {
        Fixture::open_on(corpus(), &settings())
    }

    /// A screen at 200 x 60 opened on `corpus` under `settings` (no question yet).
    pub fn open_on(corpus: Corpus, settings: &Settings) -> Fixture {
        Fixture::open_with(corpus, settings, None)
    }

    /// A screen restoring a saved view: it opens the fixture corpus and then asks the view's
    /// question (the answer is not delivered yet).
    pub fn restoring(view: ViewFile) -> Fixture {
        let mut settings = settings();
        if let Err(e) = view.settings.apply(&mut settings) {
            panic!("view settings: {e}");
        }
        Fixture::open_with(corpus(), &settings, Some(view))
    }

    /// A screen whose layout job delivered only its preview: the documents, cuts and keyword
    /// indexes, the vectors still to come (the job is still running). Returns the fixture, the
    /// job's generation and the finished corpus the job will deliver.
    pub fn previewed() -> (Fixture, u64, Arc<OpenCorpus>) {
        let mut f = Fixture::opened();
        f.app.update(Action::Reload);
        let generation = f.expect_open();
        let params = f.app.sliders.layout();
        let full = f.layout(params);
        let preview = OpenCorpus::keywords_only(full.corpus.clone(), full.layout.clone())
            .unwrap_or_else(|e| panic!("keyword preview: {e}"));
        f.app.update(Action::Previewed(Box::new(Opened {
            generation,
            open: Arc::new(preview),
            highlights: Arc::clone(&f.highlights),
            atoms: Arc::clone(&f.atoms),
            params,
            searched: None,
            questions: Arc::new(gold_questions()),
            coming: None,
        })));
        (f, generation, full)
    }

    fn open_with(corpus: Corpus, settings: &Settings, view: Option<ViewFile>) -> Fixture {
        let (tx, requests) = unbounded_channel();
        let jobs = Jobs::new(tx, Arc::new(Generations::default()));
        let theme = Theme::builtin_default();
        let mut app = App::new("fixture".into(), settings, theme, jobs);
        app.restoring = view;
        app.update(Action::Resize(200, 60));
        let cache = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("tempdir: {e}"),
        };
        let params = app.sliders.layout();
        let open = open_corpus(corpus, params, &cache);
        let highlights = Arc::new(Highlighter::new().corpus(&open.corpus, &mut |_, _| true));
        let atoms = Arc::new(DocAtoms::find(&open.corpus, &mut |_, _| true));
        let mut fixture = Fixture {
            app,
            requests,
            highlights,
            atoms,
            cache,
        };
        fixture.app.update(Action::Open);
        let generation = fixture.expect_open();
        fixture.deliver_open(generation, params, open, None);
        fixture
    }

    /// A screen that has asked [`QUESTION`] and shows its answer.
    pub fn answered() -> Fixture {
        let mut f = Fixture::opened();
        f.app.update(Action::StartTyping);
        for c in QUESTION.chars() {
            f.app.update(Action::InsertChar(c));
        }
        f.app.update(Action::RunQuery);
        let generation = f.expect_ask();
        f.deliver_answer(generation);
        f
    }

    /// The next request must be an `Open`; returns its generation.
    pub fn expect_open(&mut self) -> u64 {
        match self.requests.try_recv() {
            Ok(Request::Open { generation, .. }) => generation,
            other => panic!("expected an Open request, got {other:?}"),
        }
    }

    /// The next request must be an `Ask`; returns its generation.
    pub fn expect_ask(&mut self) -> u64 {
        match self.requests.try_recv() {
            Ok(Request::Ask { generation, .. }) => generation,
            other => panic!("expected an Ask request, got {other:?}"),
        }
    }

    /// Deliver a finished layout job, as the worker would.
    pub fn deliver_open(
        &mut self,
        generation: u64,
        params: LayoutParams,
        open: Arc<OpenCorpus>,
        searched: Option<Searched>,
    ) {
        self.app.update(Action::Opened(Box::new(Opened {
            generation,
            open,
            highlights: Arc::clone(&self.highlights),
            atoms: Arc::clone(&self.atoms),
            params,
            searched,
            questions: Arc::new(gold_questions()),
            coming: None,
        })));
    }

    /// Deliver the answer to [`QUESTION`] on the corpus shown, as the worker would.
    pub fn deliver_answer(&mut self, generation: u64) {
        let Some(shown) = &self.app.shown else {
            panic!("no corpus shown");
        };
        let input = trace(&shown.open, self.app.query_settings()).input;
        let layout_generation = shown.generation;
        self.app.update(Action::Answered(Box::new(Answered {
            generation,
            layout_generation,
            result: Ok(Searched {
                input,
                timings: QueryTimings::default(),
                dense_pending: false,
            }),
        })));
    }

    /// Another layout of the fixture corpus, indexed in this fixture's cache.
    pub fn layout(&self, params: LayoutParams) -> Arc<OpenCorpus> {
        open_corpus(corpus(), params, &self.cache)
    }

    /// Show what `searched` found as the result of the question last asked (skipping the worker).
    pub fn show_searched(&mut self, searched: Searched) {
        self.app.asked = Some(searched.input.question.clone());
        self.app.query.text = searched.input.question.clone();
        self.app.update(Action::RunQuery);
        let generation = self.expect_ask();
        let layout_generation = self.app.shown.as_ref().map_or(0, |s| s.generation);
        self.app.update(Action::Answered(Box::new(Answered {
            generation,
            layout_generation,
            result: Ok(searched),
        })));
    }

    /// Draw the screen into a test terminal of `width` x `height`.
    pub fn draw(&mut self, width: u16, height: u16) -> Terminal<TestBackend> {
        self.app.update(Action::Resize(width, height));
        let mut terminal = match Terminal::new(TestBackend::new(width, height)) {
            Ok(t) => t,
            Err(e) => panic!("test terminal: {e}"),
        };
        let app = &self.app;
        if let Err(e) = terminal.draw(|frame| views::draw(app, frame)) {
            panic!("draw: {e}");
        }
        terminal
    }
}

#[cfg(test)]
mod tests {
    use seamscope::retrieve::{EntryRef, ListSource, RankingInput};

    use super::*;

    /// The entries of the list from `source` among `lists`.
    fn entries(lists: &RankingInput, source: ListSource) -> Vec<EntryRef> {
        let RankingInput::Lists(lists) = lists else {
            panic!("the fixture gives search lists");
        };
        let list = lists.iter().find(|l| l.source == source);
        list.map(|l| l.hits.iter().map(|h| h.entry).collect())
            .unwrap_or_default()
    }

    /// A real chunks-only search is the same dense search without the seam vectors and the same
    /// BM25 over chunks: the fixture's chunks-only lists must agree with its Seams lists.
    #[test]
    fn the_fixture_chunks_only_lists_agree_with_its_seams_lists() {
        let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let open = open_corpus(corpus(), PARAMS, &cache);
        let trace = trace(&open, settings().query_settings());
        let Some(chunks_only) = trace.input.chunks_only.as_ref() else {
            panic!("the fixture runs the chunks-only side");
        };
        let mut dense = entries(&trace.input.ranking, ListSource::Dense);
        dense.retain(|e| !e.is_seam());
        assert_eq!(entries(chunks_only, ListSource::Dense), dense);
        assert_eq!(
            entries(chunks_only, ListSource::KeywordChunks),
            entries(&trace.input.ranking, ListSource::KeywordChunks)
        );
        assert!(entries(chunks_only, ListSource::KeywordSeams).is_empty());
    }
}
