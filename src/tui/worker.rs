//! The worker: the one thread that owns the engine (its model needs `&mut` to embed). It opens
//! and rebuilds the corpus and runs questions, in request order, skipping requests that a newer
//! one superseded, and reports back with actions. The measuring jobs (calibration, evaluation)
//! live in [`measure`].

mod measure;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use seamscope::embed::install;
use seamscope::eval::questions::load_question_set;
use seamscope::index::BuildProgress;
use seamscope::layout::Layout;
use seamscope::retrieve::QuerySettings;
use seamscope::session::{Engine, OpenCorpus, needs_setup};
use seamscope::settings::Settings;
use seamscope::tokens::{TokenCounter, TokenizerError};
use tokio::sync::mpsc::UnboundedReceiver;

use super::action::{Action, Answer, Answered, JobProgress, JobStage, LayoutParams, Opened};
use super::doc_atoms::DocAtoms;
use super::gold::GoldQuestions;
use super::highlight::{Highlighter, Highlights};
use super::jobs::{Generations, Request};

/// Progress goes to the screen at most this often (and on every change of stage).
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What the worker needs to start.
pub struct WorkerSetup {
    /// The corpus folder or file.
    pub corpus: PathBuf,
    /// Settings for the engine.
    pub settings: Settings,
}

/// Sends progress reports, throttled.
struct Reporter<'a> {
    send: &'a dyn Fn(Action),
    generation: u64,
    last: Option<(JobStage, Instant)>,
}

impl Reporter<'_> {
    fn report(&mut self, stage: JobStage, done: usize, total: usize) {
        let due = match self.last {
            Some((last_stage, at)) => {
                last_stage != stage || at.elapsed() >= PROGRESS_EVERY || done >= total
            }
            None => true,
        };
        if due {
            self.last = Some((stage, Instant::now()));
            (self.send)(Action::Progress(JobProgress {
                generation: self.generation,
                stage,
                done,
                total,
            }));
        }
    }
}

/// The worker's state between requests.
struct Worker<'a> {
    setup: WorkerSetup,
    gens: Arc<Generations>,
    send: &'a dyn Fn(Action),
    engine: Option<Engine>,
    /// The newest layout built: its generation, chunking settings and corpus.
    current: Option<(u64, LayoutParams, Arc<OpenCorpus>)>,
    highlights: Option<Arc<Highlights>>,
    atoms: Option<Arc<DocAtoms>>,
    questions: Option<Arc<GoldQuestions>>,
    /// What the last evaluation ran on, so Seams can be prepared again for a new `k`.
    eval_base: Option<measure::EvalBase>,
}

/// Serve requests until the screen goes away.
pub fn run(
    setup: WorkerSetup,
    mut requests: UnboundedReceiver<Request>,
    send: &dyn Fn(Action),
    gens: Arc<Generations>,
) {
    let mut worker = Worker {
        setup,
        gens,
        send,
        engine: None,
        current: None,
        highlights: None,
        atoms: None,
        questions: None,
        eval_base: None,
    };
    while let Some(request) = requests.blocking_recv() {
        if worker.gens.shutting_down() {
            break;
        }
        worker.serve(request);
    }
}

impl Worker<'_> {
    fn serve(&mut self, request: Request) {
        match request {
            Request::Open {
                generation,
                params,
                question,
                query,
            } => {
                if !self.gens.layout_is_current(generation) {
                    return;
                }
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.open(generation, params, question, query)
                }));
                let error = match outcome {
                    Ok(Ok(())) => return,
                    Ok(Err(error)) => error,
                    Err(_) => {
                        "internal error while opening the corpus (see the message printed on exit)"
                            .to_string()
                    }
                };
                if self.gens.layout_is_current(generation) {
                    (self.send)(Action::OpenFailed { generation, error });
                }
            }
            Request::Ask {
                generation,
                question,
                query,
            } => {
                if !self.gens.query_is_current(generation) {
                    return;
                }
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.ask(&question, query)
                }));
                let result = outcome.unwrap_or_else(|_| {
                    Err("internal error while running the question".to_string())
                });
                let layout_generation = self.current.as_ref().map_or(0, |(g, _, _)| *g);
                (self.send)(Action::Answered(Box::new(Answered {
                    generation,
                    layout_generation,
                    result,
                })));
            }
            Request::Calibrate {
                generation,
                query,
                gold,
            } => self.calibrate(generation, query, gold),
            Request::Evaluate {
                generation,
                grid,
                k,
            } => self.evaluate(generation, grid, k),
            Request::PrepareSeams {
                generation,
                k,
                grid,
            } => self.prepare_seams(generation, k, grid),
        }
    }

    /// Install (first run) and load the engine, once.
    fn engine(&mut self, reporter: &mut Reporter<'_>) -> Result<&mut Engine, String> {
        if self.engine.is_none() {
            let settings = Settings {
                // Smaller calls into the model: progress and cancelling come sooner.
                embed_slice: self.setup.settings.embed_slice.min(16),
                ..self.setup.settings.clone()
            };
            if needs_setup(&settings) {
                reporter.report(JobStage::Setup, 0, 0);
                let send = self.send;
                install::install(&settings.places().data_dir, &mut |line| {
                    send(Action::SetupLog(line.to_string()))
                })
                .map_err(|e| e.to_string())?;
            }
            reporter.report(JobStage::LoadModel, 0, 0);
            self.engine = Some(Engine::load(settings).map_err(|e| e.to_string())?);
        }
        self.engine
            .as_mut()
            .ok_or_else(|| "the engine did not load".to_string())
    }

    fn open(
        &mut self,
        generation: u64,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
    ) -> Result<(), String> {
        let send = self.send;
        let gens = Arc::clone(&self.gens);
        let mut reporter = Reporter {
            send,
            generation,
            last: None,
        };
        let current = self
            .current
            .as_ref()
            .map(|(_, shown, open)| (*shown, Arc::clone(open)));
        let path = self.setup.corpus.clone();
        let engine = self.engine(&mut reporter)?;
        reporter.report(JobStage::Layout, 0, 0);
        engine.settings.chunk_tokens = params.chunk_tokens;
        engine.settings.k = params.k;
        engine.settings.chunker = params.chunker;
        engine.settings.heading_prefix = params.heading_prefix;
        let mut progress = |p: BuildProgress| {
            reporter.report(JobStage::Build(p.stage), p.done, p.total);
            gens.layout_is_current(generation)
        };
        let opened = match current {
            None => engine.open_corpus(&path, &mut progress),
            // The documents are already in memory: only the layout changes.
            Some((shown, cur)) => {
                let layout = relayout(&cur, shown, &engine.tokenizer, &engine.settings)
                    .map_err(|e| e.to_string())?;
                engine.index_layout(cur.corpus.clone(), layout, &mut progress)
            }
        };
        if !self.gens.layout_is_current(generation) {
            return Ok(());
        }
        let open = Arc::new(opened.map_err(|e| e.to_string())?);
        let highlights = self.highlights(&open, generation);
        let atoms = self.atoms(&open);
        let questions = self.questions(&open);
        let query = QuerySettings {
            k: params.k as u32,
            ..query
        };
        let answer = question.and_then(|q| self.ask_on(&open, &q, query).ok());
        self.current = Some((generation, params, Arc::clone(&open)));
        (self.send)(Action::Opened(Box::new(Opened {
            generation,
            open,
            highlights,
            atoms,
            params,
            answer,
            questions,
        })));
        Ok(())
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
                Err(errors) => GoldQuestions::Bad(match errors.as_slice() {
                    [one] => one.to_string(),
                    [first, ..] => format!("{first} (and {} more problems)", errors.len() - 1),
                    [] => "unreadable".to_string(),
                }),
            }
        });
        self.questions = Some(Arc::clone(&questions));
        questions
    }

    /// Highlight the corpus once; its text does not change when chunks or seams do.
    fn highlights(&mut self, open: &OpenCorpus, generation: u64) -> Arc<Highlights> {
        if let Some(h) = &self.highlights {
            return Arc::clone(h);
        }
        let mut reporter = Reporter {
            send: self.send,
            generation,
            last: None,
        };
        let highlighter = Highlighter::new();
        let highlights = Arc::new(highlighter.corpus(&open.corpus, &mut |done, total| {
            reporter.report(JobStage::Highlight, done, total);
            !self.gens.shutting_down()
        }));
        self.highlights = Some(Arc::clone(&highlights));
        highlights
    }

    /// Find the atoms of the corpus once; like its highlights, they do not change with the layout.
    fn atoms(&mut self, open: &OpenCorpus) -> Arc<DocAtoms> {
        if let Some(a) = &self.atoms {
            return Arc::clone(a);
        }
        let gens = Arc::clone(&self.gens);
        let atoms = Arc::new(DocAtoms::find(&open.corpus, &mut |_, _| {
            !gens.shutting_down()
        }));
        self.atoms = Some(Arc::clone(&atoms));
        atoms
    }

    fn ask(&mut self, question: &str, query: QuerySettings) -> Result<Answer, String> {
        let Some((_, _, open)) = &self.current else {
            return Err("the corpus is not open yet".into());
        };
        let open = Arc::clone(open);
        self.ask_on(&open, question, query)
    }

    fn ask_on(
        &mut self,
        open: &OpenCorpus,
        question: &str,
        query: QuerySettings,
    ) -> Result<Answer, String> {
        let engine = self
            .engine
            .as_mut()
            .ok_or_else(|| "the model is not loaded".to_string())?;
        let (trace, timings) = engine
            .ask(open, question, &query)
            .map_err(|e| e.to_string())?;
        Ok(Answer {
            question: question.to_string(),
            trace,
            timings,
        })
    }
}

/// The layout of an open corpus under new chunking settings (`settings` already carry them):
/// the same chunks with new seams when only `k` or heading prefixes change, else the documents
/// cut again with the chosen chunker (its heading prefixes kept).
fn relayout(
    current: &OpenCorpus,
    shown: LayoutParams,
    tokenizer: &TokenCounter,
    settings: &Settings,
) -> Result<Layout, TokenizerError> {
    let same_chunks =
        shown.chunk_tokens == settings.chunk_tokens && shown.chunker == settings.chunker;
    if same_chunks {
        Ok(current
            .layout
            .with_k(&current.corpus, settings.k)
            .with_heading_prefix(settings.heading_prefix))
    } else {
        Layout::for_settings(&current.corpus, tokenizer, settings)
    }
}

#[cfg(test)]
mod tests {
    use seamscope::chunk::ChunkerKind;

    use super::*;
    use crate::tui::fixture::{self, PARAMS};

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
