//! The worker: the one thread that owns the engine (its model needs `&mut` to embed). It opens
//! and rebuilds the corpus and runs questions, in request order, skipping requests that a newer
//! one superseded, and reports back with actions. Every background job runs through one wrapper,
//! [`job`] (its generation, progress, cancel, a panic as its error, no reply once superseded), so
//! a job is just its work: calibration and evaluation in [`measure`], the strategy board and
//! evidence-length map in [`board`], a page's own measurement in [`page`]; opening a corpus is
//! in [`opening`].

mod board;
mod job;
mod measure;
mod opening;
mod page;

use job::JobId;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use seamscope::corpus::Corpus;
use seamscope::eval::questions::load_question_set;
use seamscope::index::lineage::{CorpusChanges, document_hashes};
use seamscope::layout::Layout;
use seamscope::retrieve::QuerySettings;
use seamscope::session::{Engine, OpenCorpus};
use seamscope::settings::Settings;
use seamscope::tokens::TokenCounter;
use tokio::sync::mpsc::UnboundedReceiver;

use super::action::{
    Action, Answered, CalibrationAction, EvalAction, JobProgress, JobStage, PageDone, Searched,
};
use super::background::{BoardDone, Calibrated, Evaluated, SeamsPrepared};
use super::doc_atoms::DocAtoms;
use super::gold::GoldQuestions;
use super::highlight::{Highlighter, Highlights};
use super::jobs::{Generations, JobKind, PageJob, Request};
use super::layout_params::LayoutParams;

/// What opening a corpus was doing when it panicked, as its error says.
const OPEN_FAILED: &str = "opening the corpus (see the message printed on exit)";

/// What a page's measurement was doing when it panicked, as its error says.
const PAGE_WORK_FAILED: &str = "measuring (see the message printed on exit)";

/// Progress goes to the screen at most this often (and on every change of stage).
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What the worker needs to start.
pub struct WorkerSetup {
    /// The corpus folder or file.
    pub corpus: PathBuf,
    /// Settings for the engine.
    pub settings: Settings,
    /// Whether `corpus` is a bundle folder, opened read-only.
    pub bundle: bool,
}

/// Sends progress reports, throttled, with the time left at the stage's rate so far.
struct Reporter<'a> {
    send: &'a dyn Fn(Action),
    generation: u64,
    last: Option<(JobStage, Instant)>,
    /// The stage in progress: when it started and how far it was then.
    stage_start: Option<(JobStage, Instant, usize)>,
}

impl<'a> Reporter<'a> {
    fn new(send: &'a dyn Fn(Action), generation: u64) -> Reporter<'a> {
        Reporter {
            send,
            generation,
            last: None,
            stage_start: None,
        }
    }

    fn report(&mut self, stage: JobStage, done: usize, total: usize) {
        let now = Instant::now();
        let (started, done_then) = match self.stage_start {
            Some((s, at, then)) if s == stage => (at, then),
            _ => {
                self.stage_start = Some((stage, now, done));
                (now, done)
            }
        };
        let due = match self.last {
            Some((last_stage, at)) => {
                last_stage != stage || at.elapsed() >= PROGRESS_EVERY || done >= total
            }
            None => true,
        };
        if due {
            self.last = Some((stage, now));
            (self.send)(Action::Progress(JobProgress {
                generation: self.generation,
                stage,
                done,
                total,
                eta: eta(
                    now - started,
                    done.saturating_sub(done_then),
                    total.saturating_sub(done),
                ),
            }));
        }
    }
}

/// Time left at the rate so far: `elapsed` for `progressed` units, `left` to go. None until
/// there is a rate worth quoting (a second of work, some units done).
fn eta(elapsed: Duration, progressed: usize, left: usize) -> Option<Duration> {
    if progressed == 0 || elapsed < Duration::from_secs(1) {
        return None;
    }
    Some(elapsed.mul_f64(left as f64 / progressed as f64))
}

/// A layout whose vectors are to be embedded: its job's generation, the engine's settings for
/// it, and the documents and cuts.
struct Build {
    generation: u64,
    settings: Settings,
    corpus: Corpus,
    layout: Layout,
}

/// The worker's state between requests.
struct Worker<'a> {
    setup: WorkerSetup,
    gens: Arc<Generations>,
    send: &'a dyn Fn(Action),
    /// Requests from the screen; also read between embedding slices, so that questions are
    /// answered on the keyword lists while a corpus embeds.
    requests: UnboundedReceiver<Request>,
    /// Requests taken from `requests` during a build that must wait for it to end.
    backlog: VecDeque<Request>,
    /// The tokenizer, loaded before the model so the documents and cuts show first.
    tokenizer: Option<TokenCounter>,
    engine: Option<Engine>,
    /// The newest layout built: its generation, chunking settings and corpus (keyword-only while
    /// its vectors are being embedded).
    current: Option<(u64, LayoutParams, Arc<OpenCorpus>)>,
    highlights: Option<Arc<Highlights>>,
    /// The syntaxes, loaded on the first highlight and kept for the documents that follow.
    highlighter: Option<Highlighter>,
    atoms: Option<Arc<DocAtoms>>,
    questions: Option<Arc<GoldQuestions>>,
    /// What the last evaluation ran on, so Seams can be prepared again for a new `k`.
    eval_base: Option<measure::EvalBase>,
}

/// Serve requests until the screen goes away.
pub fn run(
    setup: WorkerSetup,
    requests: UnboundedReceiver<Request>,
    send: &dyn Fn(Action),
    gens: Arc<Generations>,
) {
    let mut worker = Worker {
        setup,
        gens,
        send,
        requests,
        backlog: VecDeque::new(),
        tokenizer: None,
        engine: None,
        current: None,
        highlights: None,
        highlighter: None,
        atoms: None,
        questions: None,
        eval_base: None,
    };
    loop {
        let next = match worker.backlog.pop_front() {
            Some(request) => Some(request),
            None => worker.requests.blocking_recv(),
        };
        let Some(request) = next else { break };
        if worker.gens.shutting_down() {
            break;
        }
        worker.serve(request);
    }
}

/// What `questions check` would do with a question file the loader refused: how many lines are
/// fine, repairable and beyond repair, and the command that writes the repaired copy.
fn repair_hint(path: &std::path::Path, open: &OpenCorpus) -> String {
    let Ok(text) = std::fs::read_to_string(path) else {
        return String::new();
    };
    let summary = seamscope::doctor::gold::check(&open.corpus, &open.layout, &text)
        .report
        .summary;
    format!(
        " · questions check: {} of {} lines fine, {} repairable, {} beyond repair; \
         `seamscope questions check <corpus> questions.jsonl --fix FILE` writes a repaired copy",
        summary.ok, summary.lines, summary.repaired, summary.dropped
    )
}

impl Worker<'_> {
    fn serve(&mut self, request: Request) {
        match request {
            Request::Open {
                generation,
                params,
                question,
                query,
                reload,
            } => self.open_job(generation, params, question, query, reload),
            Request::Ask {
                generation,
                question,
                query,
            } => self.ask_job(generation, question, query),
            Request::CheckChanges { generation } => self.check_changes(generation),
            Request::Calibrate {
                generation,
                query,
                gold,
            } => self.run_job(
                JobId::new(JobKind::Calibration, generation, "calibrating"),
                |worker, job| worker.calibrate(job, query, gold),
                |result| {
                    Action::Calibration(CalibrationAction::Done(Box::new(Calibrated {
                        generation,
                        result,
                        k_scan: Vec::new(),
                        partial: false,
                    })))
                },
            ),
            Request::Evaluate {
                generation,
                grid,
                k,
            } => self.run_job(
                JobId::new(JobKind::Eval, generation, "evaluating"),
                |worker, job| worker.evaluate(job, grid, k),
                |result| {
                    Action::Evaluation(EvalAction::Evaluated(Box::new(Evaluated {
                        generation,
                        result,
                    })))
                },
            ),
            Request::PrepareSeams {
                generation,
                k,
                grid,
            } => self.run_job(
                JobId::new(JobKind::Eval, generation, "preparing Seams"),
                |worker, job| worker.prepare_seams(job, k, grid),
                |result| {
                    Action::Evaluation(EvalAction::SeamsPrepared(Box::new(SeamsPrepared {
                        generation,
                        result,
                    })))
                },
            ),
            Request::Board {
                generation,
                job: board,
                budget,
            } => self.run_job(
                JobId::new(JobKind::Board, generation, "measuring the strategies"),
                |worker, job| worker.board(job, *board, budget),
                |result| {
                    Action::Evaluation(EvalAction::BoardDone(Box::new(BoardDone {
                        generation,
                        result,
                    })))
                },
            ),
            Request::PageWork {
                generation,
                job: page,
            } => self.page_job(generation, page),
        }
    }

    /// Open the corpus or rebuild its layout: opening replies with its own actions as it goes;
    /// only a failure ends it here.
    fn open_job(
        &mut self,
        generation: u64,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
        reload: bool,
    ) {
        self.run_job(
            JobId::new(JobKind::Layout, generation, OPEN_FAILED),
            |worker, _| {
                worker
                    .open(generation, params, question, query, reload)
                    .map(|()| None::<Infallible>)
            },
            |result| {
                let Err(error) = result;
                Action::OpenFailed { generation, error }
            },
        )
    }

    /// Run a question on the layout shown.
    fn ask_job(&mut self, generation: u64, question: String, query: QuerySettings) {
        let layout_generation = self.current.as_ref().map_or(0, |(g, _, _)| *g);
        self.run_job(
            JobId::new(JobKind::Query, generation, "running the question"),
            |worker, _| worker.ask(&question, query).map(Some),
            |result| {
                Action::Answered(Box::new(Answered {
                    generation,
                    layout_generation,
                    result,
                }))
            },
        )
    }

    /// Run a pane-model page's work on the layout shown.
    fn page_job(&mut self, generation: u64, page: PageJob) {
        let layout_generation = self.current.as_ref().map_or(0, |(g, _, _)| *g);
        self.run_job(
            JobId::new(JobKind::Page, generation, PAGE_WORK_FAILED),
            |worker, job| worker.page_work(job, page.work.as_ref()),
            |result| {
                Action::PageDone(Box::new(PageDone {
                    generation,
                    page: page.page,
                    layout_generation,
                    result,
                }))
            },
        )
    }

    /// The engine's settings: the file's, with smaller calls into the model so progress and
    /// cancelling come sooner.
    fn engine_settings(&self) -> Settings {
        Settings {
            embed_slice: self.setup.settings.embed_slice.min(16),
            ..self.setup.settings.clone()
        }
    }

    /// Install (first run) and load the tokenizer, once: enough to cut the corpus.
    fn ensure_tokenizer(&mut self, reporter: &mut Reporter<'_>) -> Result<(), String> {
        if self.tokenizer.is_some() || self.engine.is_some() {
            return Ok(());
        }
        let settings = self.engine_settings();
        let send = self.send;
        seamscope::session::install_if_needed(
            &settings,
            || reporter.report(JobStage::Setup, 0, 0),
            &mut |line| send(Action::SetupLog(line.to_string())),
        )
        .map_err(|e| e.to_string())?;
        self.tokenizer = Some(Engine::load_tokenizer(&settings).map_err(|e| e.to_string())?);
        Ok(())
    }

    /// Load the engine (model and runtime) once, with the tokenizer already loaded.
    fn ensure_engine(&mut self, reporter: &mut Reporter<'_>) -> Result<(), String> {
        if self.engine.is_some() {
            return Ok(());
        }
        self.ensure_tokenizer(reporter)?;
        let tokenizer = self
            .tokenizer
            .take()
            .ok_or_else(|| "the tokenizer did not load".to_string())?;
        reporter.report(JobStage::LoadModel, 0, 0);
        match Engine::load_with_tokenizer(self.engine_settings(), tokenizer.clone()) {
            Ok(engine) => {
                self.engine = Some(engine);
                Ok(())
            }
            Err(e) => {
                self.tokenizer = Some(tokenizer);
                Err(e.to_string())
            }
        }
    }

    /// The tokenizer: the engine's once it is loaded.
    fn layout_tokenizer(&self) -> Result<&TokenCounter, String> {
        self.engine
            .as_ref()
            .map(|e| &e.tokenizer)
            .or(self.tokenizer.as_ref())
            .ok_or_else(|| "the tokenizer is not loaded".to_string())
    }

    /// Compare the files on disk with the corpus shown and report the difference, if any.
    fn check_changes(&mut self, generation: u64) {
        let Some((_, _, open)) = &self.current else {
            return;
        };
        if self.setup.bundle {
            // A bundle is what was deployed: its documents are inside it, not the folder's files.
            return;
        }
        let options = seamscope::places::load_options(&self.setup.settings);
        let changes = match Corpus::load(&self.setup.corpus, &options) {
            Ok(on_disk) => {
                let changes = CorpusChanges::between(
                    String::new(),
                    &document_hashes(&open.corpus),
                    &document_hashes(&on_disk),
                );
                if changes.added.is_empty()
                    && changes.modified.is_empty()
                    && changes.removed.is_empty()
                {
                    return;
                }
                Ok(changes)
            }
            Err(e) => Err(e.to_string()),
        };
        (self.send)(Action::CorpusChanged {
            generation,
            changes,
        });
    }

    /// Read the corpus' question set once; like the atoms, it does not change with the layout.
    fn questions(&mut self, open: &OpenCorpus) -> Arc<GoldQuestions> {
        if let Some(q) = &self.questions {
            return Arc::clone(q);
        }
        let path = measure::questions_path(&self.setup.corpus);
        let questions = Arc::new(if !path.is_file() {
            GoldQuestions::Missing
        } else {
            match load_question_set(&path, &open.corpus) {
                Ok((questions, _)) => GoldQuestions::Loaded(questions),
                Err(errors) => {
                    let problems = match errors.as_slice() {
                        [one] => one.to_string(),
                        [first, ..] => format!("{first} (and {} more problems)", errors.len() - 1),
                        [] => "unreadable".to_string(),
                    };
                    GoldQuestions::Bad(format!("{problems}{}", repair_hint(&path, open)))
                }
            }
        });
        self.questions = Some(Arc::clone(&questions));
        questions
    }

    /// Highlight the corpus once; its text does not change when chunks or seams do. While the
    /// documents are laid out a few at a time, only those not highlighted yet are.
    fn highlights(&mut self, open: &OpenCorpus, generation: u64) -> Arc<Highlights> {
        let total = open.corpus.documents.len();
        if let Some(h) = self.highlights.as_ref().filter(|h| h.documents() >= total) {
            return Arc::clone(h);
        }
        let mut reporter = Reporter::new(self.send, generation);
        let highlighter = self.highlighter.get_or_insert_with(Highlighter::new);
        let gens = &self.gens;
        let highlights = Arc::new(highlighter.extend(
            self.highlights.as_deref(),
            &open.corpus,
            &mut |done, total| {
                reporter.report(JobStage::Highlight, done, total);
                !gens.shutting_down()
            },
        ));
        self.highlights = Some(Arc::clone(&highlights));
        highlights
    }

    /// Find the atoms of the corpus once; like its highlights, they do not change with the layout.
    fn atoms(&mut self, open: &OpenCorpus) -> Arc<DocAtoms> {
        let total = open.corpus.documents.len();
        if let Some(a) = self.atoms.as_ref().filter(|a| a.documents() >= total) {
            return Arc::clone(a);
        }
        let gens = Arc::clone(&self.gens);
        let atoms = Arc::new(DocAtoms::extend(
            self.atoms.as_deref(),
            &open.corpus,
            &mut |_, _| !gens.shutting_down(),
        ));
        self.atoms = Some(Arc::clone(&atoms));
        atoms
    }

    fn ask(&mut self, question: &str, query: QuerySettings) -> Result<Searched, String> {
        let Some((_, _, open)) = &self.current else {
            return Err("the corpus is not open yet".into());
        };
        let open = Arc::clone(open);
        search_on(&open, &mut self.engine, question, query)
    }
}

/// Search a question on `open`: every slow step (embedding, search, reranking, side scores)
/// when its vectors are in, else the keyword lists alone (no model needed, so `engine` may be
/// busy or not loaded yet). The screen plans the result.
fn search_on(
    open: &OpenCorpus,
    engine: &mut Option<Engine>,
    question: &str,
    query: QuerySettings,
) -> Result<Searched, String> {
    let dense_ready = open.indexes.dense_ready();
    let (input, timings) = if dense_ready {
        let engine = engine
            .as_mut()
            .ok_or_else(|| "the model is not loaded".to_string())?;
        engine.search(open, question, &query, query.side_drop.is_some())
    } else {
        open.search_keywords(question, &query)
    }
    .map_err(|e| e.to_string())?;
    Ok(Searched {
        input,
        timings,
        dense_pending: !dense_ready,
    })
}

/// Between two embedding slices of the build of layout `generation`: answer the questions that
/// came in on the keyword-only `preview`, and keep every other request for after the build.
pub(crate) fn answer_while_building(
    requests: &mut UnboundedReceiver<Request>,
    backlog: &mut VecDeque<Request>,
    preview: &OpenCorpus,
    generation: u64,
    send: &dyn Fn(Action),
    gens: &Generations,
) {
    while let Ok(request) = requests.try_recv() {
        match request {
            Request::Ask {
                generation: query_generation,
                question,
                query,
            } => {
                if !gens.is_current(JobKind::Query, query_generation) {
                    continue;
                }
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    search_on(preview, &mut None, &question, query)
                }))
                .unwrap_or_else(|_| Err("internal error while running the question".to_string()));
                send(Action::Answered(Box::new(Answered {
                    generation: query_generation,
                    layout_generation: generation,
                    result,
                })));
            }
            other => backlog.push_back(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use seamscope::chunk::ChunkerKind;

    use super::opening::relayout;
    use super::*;
    use crate::tui::fixture::{self, PARAMS};

    #[test]
    fn a_refused_question_file_says_what_questions_check_would_repair() {
        let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let open = fixture::open_corpus(fixture::corpus(), PARAMS, &cache);
        let text = &open.corpus.documents[0].text;
        let quote = "the cache goes cold";
        let at = text.find(quote).expect("the fixture says it");
        // One line whose offsets are off by three bytes (the text places it), one whose quote is
        // nowhere in the corpus.
        let lines = [
            serde_json::json!({"id": "q1", "question": "Why is it cold?", "doc": "cache-design.md",
                "spans": [{"start": at + 3, "end": at + 3 + quote.len(), "text": quote}]}),
            serde_json::json!({"id": "q2", "question": "What is never said?", "doc": "cache-design.md",
                "spans": [{"text": "a sentence this corpus never had in it"}]}),
        ];
        let file = cache.path().join("questions.jsonl");
        let body: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        std::fs::write(&file, body.join("\n")).unwrap_or_else(|e| panic!("{e}"));
        let hint = repair_hint(&file, &open);
        assert!(
            hint.contains("questions check: 0 of 2 lines fine, 1 repairable, 1 beyond repair"),
            "{hint}"
        );
        assert!(
            hint.contains("--fix FILE` writes a repaired copy"),
            "{hint}"
        );
    }

    #[test]
    fn a_new_chunker_cuts_again_and_a_new_k_keeps_the_chunks() {
        let cache = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let open = fixture::open_corpus(fixture::corpus(), PARAMS, &cache);
        let tokenizer = fixture::tokenizer();
        let settings = |p: LayoutParams| Settings {
            chunk_tokens: p.chunk_tokens,
            k: p.k,
            chunker: p.chunker,
            heading_prefix: p.heading_prefix,
            ..Settings::default()
        };
        let structure = LayoutParams {
            chunker: ChunkerKind::Structure,
            heading_prefix: true,
            ..PARAMS
        };
        let cut = relayout(&open, PARAMS, &tokenizer, &settings(structure));
        let cut = cut.unwrap_or_else(|e| panic!("relayout: {e}"));
        assert_eq!(cut.chunker, "structure-40+headings");
        assert!(cut.search.heading_path);
        assert_ne!(
            cut.chunks, open.layout.chunks,
            "the structure chunker keeps the fence whole"
        );

        let wider = LayoutParams { k: 20, ..PARAMS };
        let same = relayout(&open, PARAMS, &tokenizer, &settings(wider));
        let same = same.unwrap_or_else(|e| panic!("relayout: {e}"));
        assert_eq!(same.chunks, open.layout.chunks);
        assert_eq!((same.k, same.chunker.as_str()), (20, "fixed-40"));
    }
}
