//! Chunk and seam vectors kept in Postgres with the pgvector extension, searched there through
//! an HNSW index (`--store pgvector:URL`).
//!
//! Like the Chroma adapter ([`super::chroma`]) this is the [`super::vectors::DenseCollection`]
//! shape and nothing more: seamscope still embeds on this machine, keeps the keyword lists in
//! tantivy and runs fusion, the fire test and the budget fill itself. The shared checks (the
//! vectors' fingerprint, the spot check) are [`super::remote`]'s.
//!
//! # The table layout
//!
//! The tables are langchain-postgres `PGVector`'s own, so the Python package's `add_bundle`
//! and seamscope read and write the same rows. Both are created when absent, after
//! `CREATE EXTENSION IF NOT EXISTS vector`:
//!
//! - `langchain_pg_collection(uuid uuid PRIMARY KEY, name varchar NOT NULL UNIQUE,
//!   cmetadata json)`;
//! - `langchain_pg_embedding(id varchar PRIMARY KEY, collection_id uuid REFERENCES
//!   langchain_pg_collection(uuid) ON DELETE CASCADE, embedding vector, document varchar,
//!   cmetadata jsonb)`.
//!
//! One collection per index, named `seamscope-<index key>` (the index folder's name), holding
//! the chunks and the seams. Its `cmetadata` is `{"seamscope_layout": 1, "model": <the
//! embedder's identity, as a bundle records it>, "dim": D, "k": K, "chunks": n, "seams": n,
//! "fingerprint": <remote::fingerprint of the chunk vectors, then the seam vectors>}`.
//!
//! Rows: id `chunk-<N>` / `seam-<N>`; `document` the chunk's exact text / the seam's search text
//! (its window with any heading prefix, as embedded); `embedding` the vector; `cmetadata`
//! `{"kind": "chunk"|"seam", "id": N, "document": <path in the corpus>, "start": <byte>, "end":
//! <byte>}`, seams also `"left"` and `"right"` (their chunk ids); a seam's span is its window.
//!
//! Search is cosine distance (`<=>`) through one partial HNSW expression index per collection
//! and kind, `USING hnsw ((embedding::vector(D)) vector_cosine_ops) WHERE collection_id = '<uuid>'
//! AND cmetadata->>'kind' = 'chunk'`, with `hnsw.ef_search` at least the depth asked and
//! sequential scans and sorts off on seamscope's connection (a small collection would otherwise
//! be read whole, exactly); the statement is [`search_sql`], whose plan `bench store` shows and
//! the tests check walks the index. It is approximate, and the screen says so.
//!
//! A collection is filled in one transaction (rows, indexes, and the metadata last), so a
//! killed fill leaves nothing; a stored collection is reused only when its metadata, its row
//! counts and ids, and spot-checked vectors agree with the local index, and is refilled
//! otherwise. Row ids are unique across the whole table (langchain-postgres's key), so one
//! database holds one seamscope index's rows at a time: filling a collection replaces another
//! seamscope collection whose ids it needs (and says so), and refuses where a collection that
//! seamscope did not write holds them.
//!
//! The password comes from `SEAMSCOPE_PG_PASSWORD` (or libpq's `PGPASSWORD`), never from the
//! address: an address with a password is refused, and addresses are shown with any password
//! masked. No TLS: the server is on loopback or a trusted network. Every statement is bounded
//! by `pg_timeout_secs` on the client and on the server: a server that goes away or stalls is
//! an error after it, and the next statement connects anew.

use std::sync::Mutex;
use std::time::Duration;

use tokio_postgres::config::SslMode;
use tokio_postgres::{NoTls, Row};

mod sync;

pub use sync::{PgCollection, collection_name, search_sql};

/// The variables the password is read from, in order.
pub const PASSWORD_VARIABLES: [&str; 2] = ["SEAMSCOPE_PG_PASSWORD", "PGPASSWORD"];

/// Version of the collections' layout (ids, metadata); bump when it changes.
pub const LAYOUT_VERSION: i64 = 1;

/// Why the Postgres server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// The address is not a usable postgresql:// URL.
    #[error(
        "the Postgres address {url} is not usable: {why} (give it as postgresql://USER@HOST:PORT/DATABASE, the password in SEAMSCOPE_PG_PASSWORD or PGPASSWORD)"
    )]
    Address {
        /// The address given, any password masked.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// Nothing answered, the connection failed or it closed.
    #[error(
        "cannot reach Postgres at {url}: {detail}; start the server (or check the address and SEAMSCOPE_PG_PASSWORD), or drop --store to use the embedded store"
    )]
    Unreachable {
        /// The server, any password masked.
        url: String,
        /// What failed.
        detail: String,
    },
    /// A statement took longer than the timeout.
    #[error(
        "Postgres at {url} did not answer within {seconds} s (pg_timeout_secs) when asked to {action}"
    )]
    Timeout {
        /// The server, any password masked.
        url: String,
        /// What was asked.
        action: String,
        /// The timeout in seconds.
        seconds: f64,
    },
    /// The server asks for a password and none was given.
    #[error(
        "Postgres at {url} asks for a password and none was given: set SEAMSCOPE_PG_PASSWORD (or PGPASSWORD), or give it in the address"
    )]
    NeedsPassword {
        /// The server, any password masked.
        url: String,
    },
    /// The server answered with an error.
    #[error("Postgres at {url} refused to {action}: {message}")]
    Refused {
        /// The server, any password masked.
        url: String,
        /// What was asked.
        action: String,
        /// The server's own message (with its SQLSTATE).
        message: String,
    },
    /// What the server holds is not what seamscope wrote or expects.
    #[error("Postgres at {url}: cannot {action}: {what}")]
    Unexpected {
        /// The server, any password masked.
        url: String,
        /// What was asked.
        action: String,
        /// What is wrong.
        what: String,
    },
}

/// The address as messages show it: any password masked ([`crate::text::mask_password`]).
pub fn display_url(url: &str) -> String {
    crate::text::mask_password(url.trim())
}

/// A connection to one Postgres server, on a one-thread runtime of its own.
pub struct PgClient {
    /// The runtime the connection's futures run on (taken when the client is dropped).
    runtime: Option<tokio::runtime::Runtime>,
    config: tokio_postgres::Config,
    /// The address as messages and reports show it.
    url: String,
    timeout: Duration,
    /// The open connection, when there is one, and the `hnsw.ef_search` it has set. Held for
    /// the whole of each operation, so one search's settings are not another's.
    conn: Mutex<Option<Connection>>,
}

impl std::fmt::Debug for PgClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgClient({})", self.url)
    }
}

/// An open connection.
pub(super) struct Connection {
    pub(super) client: tokio_postgres::Client,
    /// The `hnsw.ef_search` this session has set (0: the server's default).
    pub(super) ef_search: usize,
    /// Search statements prepared on this connection, by their text: a search is then one
    /// round trip (bind and execute) instead of two.
    pub(super) searches: std::collections::HashMap<String, tokio_postgres::Statement>,
    /// Which connection this is (one number per connection opened by this process), so a
    /// transaction spanning several calls finds out when the connection under it was replaced.
    pub(super) serial: u64,
}

/// The connections opened so far.
static CONNECTIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Drop for PgClient {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which tokio forbids inside another runtime (the MCP
        // server's): let it wind down on its own thread.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl PgClient {
    /// Connect to the server at `url` (`postgresql://USER@HOST:PORT/DATABASE`), the password
    /// from [`PASSWORD_VARIABLES`]. The server has `timeout` to connect and to answer each
    /// statement (the `pg_timeout_secs` setting).
    pub fn connect(url: &str, timeout: Duration) -> Result<PgClient, PgError> {
        let shown = display_url(url);
        let address = |why: &str| PgError::Address {
            url: shown.clone(),
            why: why.to_string(),
        };
        let given = url.trim();
        if !(given.starts_with("postgresql://") || given.starts_with("postgres://")) {
            return Err(address("it must start with postgresql://"));
        }
        let mut config = given.parse::<tokio_postgres::Config>().map_err(|e| {
            address(&format!(
                "it does not parse ({})",
                crate::text::safe_name(&e.to_string())
            ))
        })?;
        if config.get_password().is_some() {
            return Err(address(
                "it holds a password, which any user of this machine can read on a command line; put it in SEAMSCOPE_PG_PASSWORD (or PGPASSWORD) instead",
            ));
        }
        if config.get_hosts().is_empty() {
            return Err(address("it has no host"));
        }
        if config.get_ssl_mode() == SslMode::Require {
            return Err(address(
                "it asks for TLS (sslmode=require), which this build does not speak; connect over loopback or a trusted network",
            ));
        }
        if config.get_user().is_none() {
            return Err(address("it names no user"));
        }
        if let Some(password) = PASSWORD_VARIABLES
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|p| !p.is_empty()))
        {
            config.password(password);
        }
        let timeout = timeout.max(Duration::from_millis(1));
        config
            .application_name("seamscope")
            .connect_timeout(timeout)
            .tcp_user_timeout(timeout)
            .keepalives(true)
            .keepalives_idle(timeout.max(Duration::from_secs(1)))
            .options(format!(
                "-c statement_timeout={}",
                timeout.as_millis().max(1)
            ));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("seamscope-pg")
            .enable_all()
            .build()
            .map_err(|e| PgError::Unreachable {
                url: shown.clone(),
                detail: format!("cannot start its client runtime: {e}"),
            })?;
        let client = PgClient {
            runtime: Some(runtime),
            config,
            url: shown,
            timeout,
            conn: Mutex::new(None),
        };
        client.with_connection("answer", |c| {
            Box::pin(async move {
                c.client.simple_query("SELECT 1").await?;
                Ok(())
            })
        })?;
        Ok(client)
    }

    /// The server's address, any password masked.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The timeout each statement has.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime is there until the client is dropped")
    }

    /// Run `work` on the open connection (connecting first when there is none), within
    /// `scale` timeouts; `action` says what was asked, for the error. A timeout or a closed
    /// connection drops the connection, so the next call connects anew.
    pub(super) fn run<T>(
        &self,
        action: &str,
        scale: u32,
        work: impl for<'c> FnOnce(&'c mut Connection) -> Work<'c, T>,
    ) -> Result<T, PgError> {
        let mut held = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if held.is_none() {
            *held = Some(self.open()?);
        }
        let conn = held.as_mut().expect("just connected");
        let limit = self.timeout * scale.max(1);
        let outcome = self
            .runtime()
            .block_on(async { tokio::time::timeout(limit, work(conn)).await });
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(failure)) => {
                let error = self.failure(action, failure);
                if matches!(error, PgError::Unreachable { .. }) || conn.client.is_closed() {
                    *held = None;
                }
                Err(error)
            }
            Err(_) => {
                *held = None;
                Err(PgError::Timeout {
                    url: self.url.clone(),
                    action: action.to_string(),
                    seconds: limit.as_secs_f64(),
                })
            }
        }
    }

    /// [`PgClient::run`] within one timeout.
    pub(super) fn with_connection<T>(
        &self,
        action: &str,
        work: impl for<'c> FnOnce(&'c mut Connection) -> Work<'c, T>,
    ) -> Result<T, PgError> {
        self.run(action, 1, work)
    }

    /// Open a connection, within the timeout.
    fn open(&self) -> Result<Connection, PgError> {
        let config = self.config.clone();
        let opened = self
            .runtime()
            .block_on(async { tokio::time::timeout(self.timeout, config.connect(NoTls)).await });
        let (client, connection) = match opened {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => return Err(self.failure("accept a connection", Failure::Pg(e))),
            Err(_) => {
                return Err(PgError::Unreachable {
                    url: self.url.clone(),
                    detail: format!(
                        "it did not answer within {} s (pg_timeout_secs)",
                        self.timeout.as_secs_f64()
                    ),
                });
            }
        };
        self.runtime().spawn(async move {
            // Ends when the connection closes; the next statement then fails and reconnects.
            let _ = connection.await;
        });
        Ok(Connection {
            client,
            ef_search: 0,
            searches: std::collections::HashMap::new(),
            serial: CONNECTIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// The error for a failed statement.
    fn failure(&self, action: &str, failure: Failure) -> PgError {
        match failure {
            Failure::Unexpected(what) => PgError::Unexpected {
                url: self.url.clone(),
                action: action.to_string(),
                what,
            },
            Failure::Pg(e) => {
                if let Some(db) = e.as_db_error() {
                    let mut message = format!("{} ({})", db.message(), db.code().code());
                    if let Some(detail) = db.detail() {
                        message.push_str(&format!("; {detail}"));
                    }
                    return PgError::Refused {
                        url: self.url.clone(),
                        action: action.to_string(),
                        message: crate::text::safe_name(&message),
                    };
                }
                // The client's own message is "invalid configuration"; what it means (the
                // server asked for a password) is in its source.
                let mut cause: Option<&(dyn std::error::Error + 'static)> =
                    std::error::Error::source(&e);
                while let Some(c) = cause {
                    if c.to_string().contains("password missing") {
                        return PgError::NeedsPassword {
                            url: self.url.clone(),
                        };
                    }
                    cause = c.source();
                }
                let detail = if e.is_closed() {
                    "the connection closed (the server stopped or dropped it)".to_string()
                } else {
                    crate::text::safe_name(&e.to_string())
                };
                PgError::Unreachable {
                    url: self.url.clone(),
                    detail,
                }
            }
        }
    }
}

/// The future of one piece of work on a connection.
pub(super) type Work<'c, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, Failure>> + Send + 'c>>;

/// Why one statement failed, before it is named with the server and the action.
#[derive(Debug)]
pub(super) enum Failure {
    /// The client library's error.
    Pg(tokio_postgres::Error),
    /// The answer is not what seamscope expects.
    Unexpected(String),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Pg(e)
    }
}

/// Column `i` of `row` as `T`, or why not.
pub(super) fn column<'r, T: tokio_postgres::types::FromSql<'r>>(
    row: &'r Row,
    i: usize,
) -> Result<T, Failure> {
    row.try_get(i)
        .map_err(|e| Failure::Unexpected(format!("column {i}: {e}")))
}

/// A Postgres failure as the index's error.
impl From<PgError> for super::IndexError {
    fn from(e: PgError) -> Self {
        super::IndexError::Server(super::remote::ServerError(Box::new(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn passwords_never_reach_a_shown_address() {
        for (given, shown) in [
            (
                "postgresql://alice:s3cret@h:5432/db",
                "postgresql://alice:***@h:5432/db",
            ),
            (
                "postgresql://alice@h:5432/db?password=s3cret&sslmode=disable",
                "postgresql://alice@h:5432/db?password=***&sslmode=disable",
            ),
            ("postgresql://alice@h/db", "postgresql://alice@h/db"),
            ("postgres://h/db?x=1", "postgres://h/db?x=1"),
        ] {
            assert_eq!(display_url(given), shown, "{given}");
        }
    }

    #[test]
    fn addresses_are_checked_before_anything_is_sent() {
        for (url, why) in [
            ("http://h:1/db", "must start with postgresql://"),
            (
                "postgresql://alice:s3cret@127.0.0.1:1/db",
                "holds a password",
            ),
            (
                "postgresql://alice@127.0.0.1:1/db?password=s3cret",
                "holds a password",
            ),
            ("postgresql://alice@127.0.0.1:1/db?sslmode=require", "TLS"),
            (
                "postgresql://alice@127.0.0.1:1/db?bogus=1",
                "does not parse",
            ),
        ] {
            let msg = PgClient::connect(url, SECOND).unwrap_err().to_string();
            assert!(msg.contains(why), "{url}: {msg}");
            assert!(!msg.contains("s3cret"), "{msg}");
        }
    }

    #[test]
    fn a_closed_port_is_unreachable_at_once_and_a_stalled_server_after_the_timeout() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let msg = PgClient::connect(&format!("postgresql://u@127.0.0.1:{port}/db"), SECOND)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(&format!(
                "cannot reach Postgres at postgresql://u@127.0.0.1:{port}/db"
            )),
            "{msg}"
        );
        // Accepts and never answers.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                held.push(stream);
            }
        });
        let started = std::time::Instant::now();
        let msg = PgClient::connect(&format!("postgresql://u@127.0.0.1:{port}/db"), SECOND)
            .unwrap_err()
            .to_string();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(msg.contains("did not answer within 1 s"), "{msg}");
    }
}
