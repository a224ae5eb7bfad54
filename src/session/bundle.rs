//! Opening a bundle: the bundle reader ([`crate::export::read`]) returns its documents,
//! records and vectors as plain data; the engine checks them against its model, cuts the layout
//! again and builds in-memory indexes from the vectors.

use std::path::Path;

use crate::embed::Embedder;
use crate::export::read::{BundleError, read_bundle};
use crate::index::{BuildReport, IndexSet};
use crate::layout::Layout;

use super::{Engine, EngineError, OpenCorpus};

/// Why a bundle does not open on the loaded engine: the bundle itself, or laying it out and
/// indexing it under its settings.
#[derive(Debug, thiserror::Error)]
pub enum OpenBundleError {
    /// The bundle is unreadable, damaged, from another version or for another model.
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// Its settings, layout or indexes failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl Engine {
    /// Open the bundle `seamscope export` wrote into `folder`, read-only: its documents, its
    /// layout (cut again under its settings and checked against its records), its vectors and
    /// keyword indexes in memory. The engine's settings take the bundle's chunking and query
    /// settings; the loaded model must be the one the bundle's vectors came from. Nothing is
    /// embedded but the questions. (The bundle reader returns plain data; the engine opens it.)
    pub fn open_bundle(&mut self, folder: &Path) -> Result<OpenCorpus, OpenBundleError> {
        let bundle = read_bundle(folder)?;
        let loaded = self.embedder.identity().to_string();
        let prefixes = (
            bundle.settings.query_prefix.as_str(),
            bundle.settings.document_prefix.as_str(),
        );
        if prefixes
            != (
                self.embedder.query_prefix(),
                self.embedder.document_prefix(),
            )
        {
            return Err(BundleError::Model {
                folder: folder.to_path_buf(),
                bundle: format!(
                    "{} with query prefix {:?} and document prefix {:?}",
                    bundle.settings.model, prefixes.0, prefixes.1
                ),
                loaded: format!(
                    "{loaded} with query prefix {:?} and document prefix {:?}",
                    self.embedder.query_prefix(),
                    self.embedder.document_prefix()
                ),
            }
            .into());
        }
        if bundle.settings.model != loaded || bundle.settings.dim != self.embedder.dim() {
            return Err(BundleError::Model {
                folder: folder.to_path_buf(),
                bundle: bundle.settings.model.clone(),
                loaded,
            }
            .into());
        }
        let mut settings = self.settings.clone();
        bundle.settings.apply(folder, &mut settings)?;
        let layout = Layout::for_settings(&bundle.corpus, &self.tokenizer, &settings)
            .map_err(EngineError::from)?;
        bundle.check_layout(&layout)?;
        let indexes = IndexSet::with_vectors(
            &bundle.corpus,
            &layout,
            (
                bundle.settings.dim,
                &bundle.chunk_vectors,
                &bundle.seam_vectors,
            ),
            settings.exact_search_limit,
            folder,
        )
        .map_err(EngineError::from)?;
        self.settings = settings;
        let report = BuildReport::in_memory(folder.to_path_buf(), true, indexes.search_mode);
        Ok(OpenCorpus {
            corpus: bundle.corpus,
            layout,
            indexes,
            report,
        })
    }
}
