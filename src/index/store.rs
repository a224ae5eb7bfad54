//! The store the settings name, opened: the one place that turns a [`Store`] into its server's
//! client. Each store's client and collections live in its own folder (`chroma/`,
//! `pgvector/`); a new store adds its arm here, and the compiler asks for it.

use std::sync::Arc;
use std::time::Duration;

use super::IndexError;
use super::chroma::ChromaClient;
use super::pgvector::PgClient;
use super::remote::ServerStore;
use crate::settings::Settings;
use crate::spec::store::Store;

/// Connect to the server `store` names, under `settings`' timeouts (None for the embedded
/// store): a server that is not there fails here, before any embedding.
pub fn connect(
    store: &Store,
    settings: &Settings,
) -> Result<Option<Arc<dyn ServerStore>>, IndexError> {
    let seconds = Duration::from_secs;
    Ok(match store {
        Store::Embedded => None,
        Store::Chroma(url) => Some(Arc::new(ChromaClient::connect(
            url,
            seconds(settings.chroma_timeout_secs),
        )?)),
        Store::Pgvector(url) => Some(Arc::new(PgClient::connect(
            url,
            seconds(settings.pg_timeout_secs),
        )?)),
    })
}
