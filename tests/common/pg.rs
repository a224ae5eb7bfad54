//! The Postgres server `scripts/test` starts (SEAMSCOPE_TEST_PG_URL): a fresh database per test,
//! SQL run on it as the tests' own hand (to look, to damage), and a loopback proxy that can stall.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The server the test run started.
pub fn server() -> String {
    std::env::var("SEAMSCOPE_TEST_PG_URL").unwrap_or_else(|_| {
        panic!(
            "SEAMSCOPE_TEST_PG_URL is not set: scripts/test starts a throwaway Postgres + pgvector server and sets it; \
             by hand: d=$(mktemp -d) && chmod 711 $d && scripts/pg-server $d/pg 55450 & \
             SEAMSCOPE_TEST_PG_URL=postgresql://postgres@127.0.0.1:55450/postgres"
        )
    })
}

/// `url` with its database replaced by `database`.
pub fn with_database(url: &str, database: &str) -> String {
    let base = url.split('?').next().unwrap_or(url);
    let cut = base
        .rfind('/')
        .filter(|&i| i > "postgresql://".len())
        .unwrap_or(base.len());
    format!("{}/{database}", &base[..cut])
}

/// Run `sql` (one or more statements, simple protocol) on the database at `url`; every row's
/// columns as text.
pub fn sql(url: &str, sql: &str) -> Vec<Vec<Option<String>>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let messages = client
            .simple_query(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        messages
            .into_iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                ),
                _ => None,
            })
            .collect()
    })
}

/// A new, empty database on the test server, its URL: tests do not share collections (row ids
/// are unique across a database's langchain_pg_embedding).
pub fn fresh_database(tag: &str) -> String {
    let url = server();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("seamscope_{tag}_{}_{nanos}", std::process::id());
    sql(&url, &format!("CREATE DATABASE {name}"));
    with_database(&url, &name)
}

/// A loopback proxy to the test server's port: forwards every connection until `stall` is set,
/// then holds what it gets without passing it on (a server that stopped answering); `cut`
/// closes every connection it carries (a server that went away).
pub struct Proxy {
    /// The proxy's port.
    pub port: u16,
    /// While set, nothing is forwarded.
    pub stall: Arc<AtomicBool>,
    /// Every socket it has opened or accepted.
    sockets: Arc<std::sync::Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// A proxy to the host and port of `url`.
    pub fn to(url: &str) -> Proxy {
        let authority = url
            .split("://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|a| a.rsplit('@').next())
            .unwrap()
            .to_string();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stall = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stall);
        let sockets = Arc::new(std::sync::Mutex::new(Vec::new()));
        let held = Arc::clone(&sockets);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(upstream) = TcpStream::connect(&authority) else {
                    continue;
                };
                let mut all = held.lock().unwrap();
                all.push(client.try_clone().unwrap());
                all.push(upstream.try_clone().unwrap());
                drop(all);
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), upstream.try_clone().unwrap()),
                    (upstream, client),
                ] {
                    let flag = Arc::clone(&flag);
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 16384];
                        loop {
                            let n = match from.read(&mut buf) {
                                Ok(0) | Err(_) => return,
                                Ok(n) => n,
                            };
                            while flag.load(Ordering::SeqCst) {
                                std::thread::sleep(Duration::from_millis(20));
                            }
                            if to.write_all(&buf[..n]).is_err() {
                                return;
                            }
                        }
                    });
                }
            }
        });
        Proxy {
            port,
            stall,
            sockets,
        }
    }

    /// Close every connection the proxy carries, both ways.
    pub fn cut(&self) {
        for socket in self.sockets.lock().unwrap().drain(..) {
            let _ = socket.shutdown(std::net::Shutdown::Both);
        }
    }
}
