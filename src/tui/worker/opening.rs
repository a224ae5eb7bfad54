//! Opening a corpus on the worker: laying it out, showing the preview, embedding while
//! questions are answered on the keyword lists, opening a bundle, and handing the result to the
//! screen.

use std::sync::Arc;
use std::time::{Duration, Instant};

use seamscope::chunk::ChunkerKind;
use seamscope::corpus::{Corpus, CorpusReader};
use seamscope::index::BuildProgress;
use seamscope::layout::{Layout, LayoutBuilder};
use seamscope::retrieve::QuerySettings;
use seamscope::session::OpenCorpus;
use seamscope::settings::Settings;
use seamscope::tokens::TokenCounter;

use super::{Build, Reporter, Worker, answer_while_building, search_on};
use crate::tui::action::{Action, JobStage, Opened};
use crate::tui::gold::GoldQuestions;
use crate::tui::jobs::JobKind;
use crate::tui::layout_params::LayoutParams;

impl Worker<'_> {
    /// Open the corpus (or lay it out again for new chunking settings) in two steps: the
    /// documents, cuts and keyword indexes first, sent as a preview the screen shows and asks at
    /// once; then the vectors, embedded while questions keep being answered on the keyword
    /// lists, and the finished corpus sent to replace the preview.
    pub(super) fn open(
        &mut self,
        generation: u64,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
        reload: bool,
    ) -> Result<(), String> {
        if self.setup.bundle {
            return self.open_bundle(generation, params, question, query);
        }
        let mut reporter = Reporter::new(self.send, generation);
        let asked = (question.as_deref(), query);
        let Some((corpus, layout, settings)) =
            self.lay_out((generation, params, reload), asked, &mut reporter)?
        else {
            return Ok(());
        };
        let preview = Arc::new(
            OpenCorpus::keywords_only(corpus.clone(), layout.clone()).map_err(|e| e.to_string())?,
        );
        if !self.gens.is_current(JobKind::Layout, generation) {
            return Ok(());
        }
        let shown = Shown {
            params,
            coming: None,
            finished: false,
        };
        self.deliver(generation, shown, Arc::clone(&preview), asked);

        self.ensure_engine(&mut reporter)?;
        let build = Build {
            generation,
            settings,
            corpus,
            layout,
        };
        let Some(opened) = self.index_answering(build, &preview, &mut reporter)? else {
            return Ok(());
        };
        let shown = Shown {
            params,
            coming: None,
            finished: true,
        };
        self.deliver(generation, shown, Arc::new(opened), asked);
        Ok(())
    }

    /// Lay the documents out under `params`: read from disk the first time (or again when
    /// `reload`) and laid out a few at a time, the first ones shown while the rest are
    /// tokenized ([`Worker::stream_layout`]); else the documents in memory cut again. Returns
    /// the corpus, its layout and the engine's settings carrying `params`; `None` when a newer
    /// layout job superseded this one.
    fn lay_out(
        &mut self,
        job: (u64, LayoutParams, bool),
        asked: (Option<&str>, QuerySettings),
        reporter: &mut Reporter<'_>,
    ) -> Result<Option<(Corpus, Layout, Settings)>, String> {
        let (generation, params, reload) = job;
        let current = self
            .current
            .as_ref()
            .filter(|_| !reload)
            .map(|(_, shown, open)| (*shown, Arc::clone(open)));
        self.ensure_tokenizer(reporter)?;
        reporter.report(JobStage::Layout, 0, 0);
        let settings = Settings {
            chunk_tokens: params.chunk_tokens,
            k: params.k,
            chunker: params.chunker,
            heading_prefix: params.heading_prefix,
            ..self.engine_settings()
        };
        if reload {
            // The files changed: what was worked out from their text once is stale.
            self.highlights = None;
            self.atoms = None;
            self.questions = None;
        }
        let (corpus, layout) = match current {
            None => {
                let Some(corpus) =
                    self.read_corpus((generation, params), &settings, asked, reporter)?
                else {
                    return Ok(None);
                };
                let Some(layout) =
                    self.stream_layout((generation, params), &corpus, &settings, asked, reporter)?
                else {
                    return Ok(None);
                };
                (corpus, layout)
            }
            // The documents are already in memory: only the layout changes.
            Some((shown, cur)) => {
                let tokenizer = self.layout_tokenizer()?;
                let layout =
                    relayout(&cur, shown, tokenizer, &settings).map_err(|e| e.to_string())?;
                (cur.corpus.clone(), layout)
            }
        };
        Ok(Some((corpus, layout, settings)))
    }

    /// Fetch pdfium first when the corpus holds PDFs and it is missing (first run), its lines in
    /// the setup log on the screen. A failed fetch is said there too, and the PDFs are then
    /// skipped with the reason and the fix (`seamscope setup`) the skipped list shows.
    fn fetch_pdfium(&mut self, settings: &Settings, reporter: &mut Reporter<'_>) {
        let send = self.send;
        let fetched = seamscope::session::first_run::install_pdfium_if_needed(
            settings,
            &self.setup.corpus,
            || reporter.report(JobStage::SetupPdf, 0, 0),
            &mut |line| send(Action::SetupLog(line.to_string())),
        );
        if let Err(e) = fetched {
            send(Action::SetupLog(e.to_string()));
        }
    }

    /// Read the corpus' files. When a chunker of seamscope's own cuts them, the first document
    /// is laid out and shown as soon as it is read, and the rest are read after: a folder of
    /// PDFs draws its first document before the others are extracted. A long first file is
    /// shown by its start ([`CorpusReader::start_of_next`]: a long PDF's first pages) before it
    /// is read whole. `None` when a newer layout job superseded this one.
    fn read_corpus(
        &mut self,
        job: (u64, LayoutParams),
        settings: &Settings,
        asked: (Option<&str>, QuerySettings),
        reporter: &mut Reporter<'_>,
    ) -> Result<Option<Corpus>, String> {
        let (generation, params) = job;
        self.fetch_pdfium(settings, reporter);
        let mut reader = CorpusReader::open(
            &self.setup.corpus,
            &seamscope::places::load_options(settings),
        )
        .map_err(|e| e.to_string())?;
        let files = reader.files();
        // Given cuts are placed against every document at once, so they wait for all of them.
        if settings.chunker != ChunkerKind::Given {
            // A long first file (a PDF of hundreds of pages) is shown by its start first.
            let mut first = reader.start_of_next(START_PREVIEW_BYTES);
            if first.is_none() && reader.unread() > 1 {
                reader.read_until(1);
                reporter.report(JobStage::Layout, files - reader.unread(), files);
                first = reader.partial().filter(|_| reader.unread() > 0);
            }
            if let Some(first) = first {
                // Not stored: a start's layout is never asked for again.
                let tokenizer = self.layout_tokenizer()?.clone();
                let mut builder = LayoutBuilder::for_settings(&first, &tokenizer, settings, None)
                    .map_err(|e| e.to_string())?;
                builder
                    .lay_out(&first, &tokenizer, first.documents.len())
                    .map_err(|e| e.to_string())?;
                let layout = builder.into_layout(&first);
                if !self.gens.is_current(JobKind::Layout, generation) {
                    return Ok(None);
                }
                self.deliver_part((generation, params, files), first, layout, asked)?;
                reporter.report(JobStage::Layout, files - reader.unread(), files);
            }
        }
        while reader.read_next() {
            reporter.report(JobStage::Layout, files - reader.unread(), files);
            if !self.gens.is_current(JobKind::Layout, generation) {
                return Ok(None);
            }
        }
        reader.finish().map(Some).map_err(|e| e.to_string())
    }

    /// Lay `corpus` out in batches of documents, each batch as many bytes as all before it,
    /// every document's layout read back from the stored layouts when it verifies: the first
    /// documents are shown at once, and the list fills in as the rest are laid out (a preview
    /// of the documents done at most every [`STREAM_EVERY`]). `None` when a newer layout job
    /// superseded this one.
    fn stream_layout(
        &mut self,
        job: (u64, LayoutParams),
        corpus: &Corpus,
        settings: &Settings,
        asked: (Option<&str>, QuerySettings),
        reporter: &mut Reporter<'_>,
    ) -> Result<Option<Layout>, String> {
        let (generation, params) = job;
        // A clone (the vocabulary, a few milliseconds) so previews can be sent between batches.
        let tokenizer = self.layout_tokenizer()?.clone();
        let cache_dir = seamscope::places::Places::of(settings).cache_dir;
        let mut builder =
            LayoutBuilder::for_settings(corpus, &tokenizer, settings, Some(&cache_dir))
                .map_err(|e| e.to_string())?;
        let total = corpus.documents.len();
        let mut last_preview: Option<Instant> = None;
        let mut upto = next_batch_end(corpus, 0);
        while builder.laid_out() < total {
            builder
                .lay_out(corpus, &tokenizer, upto)
                .map_err(|e| e.to_string())?;
            let done = builder.laid_out();
            reporter.report(JobStage::Layout, done, total);
            if !self.gens.is_current(JobKind::Layout, generation) {
                return Ok(None);
            }
            let due = last_preview.is_none_or(|at| at.elapsed() >= STREAM_EVERY);
            if done < total && due {
                let part = corpus_prefix(corpus, done);
                let layout = builder.layout(&part);
                self.deliver_part((generation, params, total), part, layout, asked)?;
                last_preview = Some(Instant::now());
            }
            upto = next_batch_end(corpus, done);
        }
        Ok(Some(builder.into_layout(corpus)))
    }

    /// Show part of the corpus (its documents and cuts, no indexes) while `coming` documents
    /// in all are still being read or laid out.
    fn deliver_part(
        &mut self,
        (generation, params, coming): (u64, LayoutParams, usize),
        part: Corpus,
        layout: Layout,
        asked: (Option<&str>, QuerySettings),
    ) -> Result<(), String> {
        let preview = OpenCorpus::documents_only(part, layout).map_err(|e| e.to_string())?;
        let shown = Shown {
            params,
            coming: Some(coming),
            finished: false,
        };
        self.deliver(generation, shown, Arc::new(preview), asked);
        Ok(())
    }

    /// Embed and index a layout's vectors with the loaded engine, answering the questions that
    /// come in meanwhile on the keyword-only `preview`. `None` when a newer layout job
    /// superseded this one.
    fn index_answering(
        &mut self,
        build: Build,
        preview: &OpenCorpus,
        reporter: &mut Reporter<'_>,
    ) -> Result<Option<OpenCorpus>, String> {
        let send = self.send;
        let gens = Arc::clone(&self.gens);
        let generation = build.generation;
        let Worker {
            engine,
            requests,
            backlog,
            ..
        } = self;
        let engine = engine
            .as_mut()
            .ok_or_else(|| "the model is not loaded".to_string())?;
        engine.settings = build.settings;
        let mut progress = |p: BuildProgress| {
            reporter.report(JobStage::Build(p.stage), p.done, p.total);
            answer_while_building(requests, backlog, preview, generation, send, &gens);
            gens.is_current(JobKind::Layout, generation)
        };
        let opened = engine.index_layout(build.corpus, build.layout, &mut progress);
        if !self.gens.is_current(JobKind::Layout, generation) {
            return Ok(None);
        }
        opened.map(Some).map_err(|e| e.to_string())
    }

    /// Open the bundle folder read-only: its own documents, layout and vectors (nothing is
    /// embedded but questions), under the settings it was exported with.
    fn open_bundle(
        &mut self,
        generation: u64,
        params: LayoutParams,
        question: Option<String>,
        query: QuerySettings,
    ) -> Result<(), String> {
        let mut reporter = Reporter::new(self.send, generation);
        self.ensure_engine(&mut reporter)?;
        reporter.report(JobStage::Layout, 0, 0);
        let engine = self
            .engine
            .as_mut()
            .ok_or_else(|| "the model is not loaded".to_string())?;
        let open = Arc::new(
            engine
                .open_bundle(&self.setup.corpus)
                .map_err(|e| format!("{e:#}"))?,
        );
        let shown = Shown {
            params,
            coming: None,
            finished: true,
        };
        self.deliver(generation, shown, open, (question.as_deref(), query));
        Ok(())
    }

    /// Send layout `generation`'s corpus to the screen with what it takes to show it (highlights,
    /// atoms and the question set, worked out once per set of files) and the current question
    /// searched on it: the first documents while the rest are laid out (`coming`), a preview
    /// while its vectors are embedded (not `finished`), or done.
    fn deliver(
        &mut self,
        generation: u64,
        shown: Shown,
        open: Arc<OpenCorpus>,
        (question, query): (Option<&str>, QuerySettings),
    ) {
        let Shown {
            params,
            coming,
            finished,
        } = shown;
        let highlights = self.highlights(&open, generation);
        let atoms = self.atoms(&open);
        let (questions, searched) = if coming.is_some() {
            // Only the first documents: the question set may name the others, and the question
            // is searched once every document is in.
            (Arc::new(GoldQuestions::Missing), None)
        } else {
            let query = QuerySettings {
                k: params.k as u32,
                ..query
            };
            let questions = self.questions(&open);
            let searched = question.and_then(|q| search_on(&open, &mut self.engine, q, query).ok());
            self.current = Some((generation, params, Arc::clone(&open)));
            (questions, searched)
        };
        let opened = Box::new(Opened {
            generation,
            open,
            highlights,
            atoms,
            params,
            searched,
            questions,
            coming,
        });
        (self.send)(if finished {
            Action::Opened(opened)
        } else {
            Action::Previewed(opened)
        });
    }
}

/// How a delivery is to be shown: its chunking settings, the documents still coming (their
/// total) while only the first are laid out, and whether its vectors are in.
struct Shown {
    params: LayoutParams,
    coming: Option<usize>,
    finished: bool,
}

/// At most this often the screen gets the documents laid out so far.
const STREAM_EVERY: Duration = Duration::from_millis(250);

/// The text a long first document is shown by while it is read whole: about 64k tokens, laid
/// out in a fraction of a second.
const START_PREVIEW_BYTES: usize = 256 * 1024;

/// The bytes the second batch of documents lays out at least (the first is one document).
const FIRST_BATCH_BYTES: usize = 64 * 1024;

/// Where the next batch of documents ends when the first `done` are laid out: as many bytes as
/// all before it (at least [`FIRST_BATCH_BYTES`]), and at least one document.
fn next_batch_end(corpus: &Corpus, done: usize) -> usize {
    let docs = &corpus.documents;
    let so_far: usize = docs[..done.min(docs.len())]
        .iter()
        .map(|d| d.text.len())
        .sum();
    let budget = so_far.max(FIRST_BATCH_BYTES);
    let mut end = done;
    let mut bytes = 0;
    while end < docs.len() && (end == done || bytes + docs[end].text.len() <= budget) {
        bytes += docs[end].text.len();
        end += 1;
    }
    end
}

/// The first `n` documents of `corpus`, as a corpus of their own (ids unchanged).
fn corpus_prefix(corpus: &Corpus, n: usize) -> Corpus {
    Corpus {
        root: corpus.root.clone(),
        documents: corpus.documents[..n.min(corpus.documents.len())].to_vec(),
        skipped: corpus.skipped.clone(),
    }
}

/// The layout of an open corpus under new chunking settings (`settings` already carry them):
/// the same chunks with new seams when only `k` or heading prefixes change, else the documents
/// cut again with the chosen chunker (its heading prefixes kept).
pub(super) fn relayout(
    current: &OpenCorpus,
    shown: LayoutParams,
    tokenizer: &TokenCounter,
    settings: &Settings,
) -> Result<Layout, seamscope::layout::LayoutError> {
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
