//! Opening a corpus on the worker: laying it out, showing the preview, embedding while
//! questions are answered on the keyword lists, opening a bundle, and handing the result to the
//! screen.

use std::sync::Arc;

use seamscope::corpus::Corpus;
use seamscope::index::BuildProgress;
use seamscope::layout::Layout;
use seamscope::retrieve::QuerySettings;
use seamscope::session::OpenCorpus;
use seamscope::settings::Settings;
use seamscope::tokens::TokenCounter;

use super::{Build, Reporter, Worker, answer_while_building, search_on};
use crate::tui::action::{Action, JobStage, Opened};
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
        let (corpus, layout, settings) = self.lay_out(params, reload, &mut reporter)?;
        let preview = Arc::new(
            OpenCorpus::keywords_only(corpus.clone(), layout.clone()).map_err(|e| e.to_string())?,
        );
        if !self.gens.is_current(JobKind::Layout, generation) {
            return Ok(());
        }
        self.deliver(
            generation,
            params,
            Arc::clone(&preview),
            question.as_deref(),
            query,
            false,
        );

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
        self.deliver(
            generation,
            params,
            Arc::new(opened),
            question.as_deref(),
            query,
            true,
        );
        Ok(())
    }

    /// Lay the documents out under `params`: read from disk the first time (or again when
    /// `reload`), else the documents in memory cut again. Returns the corpus, its layout and
    /// the engine's settings carrying `params`.
    fn lay_out(
        &mut self,
        params: LayoutParams,
        reload: bool,
        reporter: &mut Reporter<'_>,
    ) -> Result<(Corpus, Layout, Settings), String> {
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
        let tokenizer = self.layout_tokenizer()?;
        let (corpus, layout) = match current {
            None => {
                let corpus = Corpus::load(&self.setup.corpus, &settings.load_options())
                    .map_err(|e| e.to_string())?;
                let layout = Layout::for_settings(&corpus, tokenizer, &settings)
                    .map_err(|e| e.to_string())?;
                (corpus, layout)
            }
            // The documents are already in memory: only the layout changes.
            Some((shown, cur)) => {
                let layout =
                    relayout(&cur, shown, tokenizer, &settings).map_err(|e| e.to_string())?;
                (cur.corpus.clone(), layout)
            }
        };
        if reload {
            // The files changed: what was worked out from their text once is stale.
            self.highlights = None;
            self.atoms = None;
            self.questions = None;
        }
        Ok((corpus, layout, settings))
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
        self.deliver(generation, params, open, question.as_deref(), query, true);
        Ok(())
    }

    /// Send layout `generation`'s corpus to the screen with what it takes to show it (highlights,
    /// atoms and the question set, worked out once per set of files) and the current question
    /// searched on it: as a preview while its vectors are embedded (`finished` false), or done.
    fn deliver(
        &mut self,
        generation: u64,
        params: LayoutParams,
        open: Arc<OpenCorpus>,
        question: Option<&str>,
        query: QuerySettings,
        finished: bool,
    ) {
        let highlights = self.highlights(&open, generation);
        let atoms = self.atoms(&open);
        let questions = self.questions(&open);
        let query = QuerySettings {
            k: params.k as u32,
            ..query
        };
        let searched = question.and_then(|q| search_on(&open, &mut self.engine, q, query).ok());
        self.current = Some((generation, params, Arc::clone(&open)));
        let opened = Box::new(Opened {
            generation,
            open,
            highlights,
            atoms,
            params,
            searched,
            questions,
        });
        (self.send)(if finished {
            Action::Opened(opened)
        } else {
            Action::Previewed(opened)
        });
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
