//! Where the chunk and seam vectors are kept and searched, as plain data: one [`Store`] value,
//! parsed once (from `--store`, `--chroma`, `SEAMSCOPE_STORE`, `SEAMSCOPE_CHROMA_URL` or the
//! settings file's `store`, `chroma_url` and `pg_url` keys), carried by the settings, opened by
//! the index (`index::store::connect`) and labelled by itself on the screen and in reports.
//!
//! What each kind of store says about itself (its name, its address's form, its words on the
//! screen) is one [`StoreFacts`] here; its client and its collections live in its own folder
//! under `src/index/`. A new store is a variant of [`Store`] and of [`StoreKind`] with its facts
//! here, its folder, and its arm in `index::store::connect`; the compiler names every place.

use std::fmt;

use serde::{Serialize, Serializer};

/// Where the dense vectors are kept and searched, with the server's address as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Store {
    /// usearch, in the index folder (the default).
    #[default]
    Embedded,
    /// A Chroma server (`http://HOST:PORT`), over its v2 HTTP API.
    Chroma(String),
    /// Postgres with pgvector (`postgresql://USER@HOST:PORT/DATABASE`; the password comes from
    /// `SEAMSCOPE_PG_PASSWORD` or `PGPASSWORD`, never from here).
    Pgvector(String),
}

/// A kind of store, without its address: what reports name (`"kind": "chroma"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreKind {
    /// The usearch files.
    Embedded,
    /// A Chroma server.
    Chroma,
    /// Postgres with the pgvector extension.
    Pgvector,
}

/// What one kind of store says about itself, wherever it is named.
#[derive(Debug)]
pub struct StoreFacts {
    /// The name before the colon in `--store KIND:URL`, and in report lines.
    pub name: &'static str,
    /// The name in a sentence (`Chroma`, `pgvector`), and the screen's short label.
    pub title: &'static str,
    /// The address's form, as help and messages show it (empty for the embedded store).
    pub example: &'static str,
    /// The setting a wrong address is blamed on (`chroma_url`, `pg_url`; `store` for a store
    /// with no key of its own).
    pub setting: &'static str,
    /// What that setting allows, as the range error says.
    pub allowed: &'static str,
    /// The schemes its address may start with.
    pub schemes: &'static [&'static str],
    /// Whether a bare address in one of `schemes` (no `KIND:` before it) names this store.
    pub takes_bare_address: bool,
    /// Its address as messages show it, the password hidden.
    pub mask: fn(&str) -> String,
    /// The screen's words for dense search in it (None: the search mode's own words).
    pub screen: Option<&'static str>,
    /// Report lines' words for dense search in it, before ` at URL`.
    pub searched: &'static str,
    /// The benchmark's name for its dense search alone.
    pub dense_alone: &'static str,
}

const EMBEDDED: StoreFacts = StoreFacts {
    name: "embedded",
    title: "embedded",
    example: "",
    setting: "store",
    allowed: "embedded",
    schemes: &[],
    takes_bare_address: false,
    mask: str::to_string,
    screen: None,
    searched: "",
    dense_alone: "embedded dense",
};

const CHROMA: StoreFacts = StoreFacts {
    name: "chroma",
    title: "Chroma",
    example: "http://HOST:PORT",
    setting: "chroma_url",
    allowed: "an http:// or https:// address of a Chroma server, or absent (embedded store)",
    schemes: &["http://", "https://"],
    takes_bare_address: false,
    mask: crate::text::mask_credentials,
    screen: Some("dense search in Chroma (HNSW)"),
    searched: "HNSW in Chroma",
    dense_alone: "Chroma dense (HTTP)",
};

const PGVECTOR: StoreFacts = StoreFacts {
    name: "pgvector",
    title: "pgvector",
    example: "postgresql://USER@HOST:PORT/DATABASE",
    setting: "pg_url",
    allowed: "a postgresql:// address of a Postgres server with pgvector, or absent (embedded store)",
    schemes: &["postgresql://", "postgres://"],
    takes_bare_address: true,
    mask: crate::text::mask_password,
    screen: Some("approximate dense search in Postgres (pgvector HNSW)"),
    searched: "approximate (pgvector HNSW) in Postgres",
    dense_alone: "pgvector dense (HNSW)",
};

impl StoreKind {
    /// Every kind, in the order help and messages list them.
    pub const ALL: [StoreKind; 3] = [StoreKind::Embedded, StoreKind::Chroma, StoreKind::Pgvector];

    /// What this kind says about itself.
    pub fn facts(self) -> &'static StoreFacts {
        match self {
            StoreKind::Embedded => &EMBEDDED,
            StoreKind::Chroma => &CHROMA,
            StoreKind::Pgvector => &PGVECTOR,
        }
    }

    /// The store of this kind at `address` (ignored for the embedded store).
    pub fn at(self, address: String) -> Store {
        match self {
            StoreKind::Embedded => Store::Embedded,
            StoreKind::Chroma => Store::Chroma(address),
            StoreKind::Pgvector => Store::Pgvector(address),
        }
    }

    /// How the store is named in report lines (`chroma`, `pgvector`).
    pub fn label(self) -> &'static str {
        self.facts().name
    }

    /// The stores a user can name, as messages list them: `embedded, chroma:http://HOST:PORT
    /// or pgvector:postgresql://USER@HOST:PORT/DATABASE`.
    pub fn choices() -> String {
        let named: Vec<String> = StoreKind::ALL
            .iter()
            .map(|k| match k.facts() {
                f if f.example.is_empty() => f.name.to_string(),
                f => format!("{}:{}", f.name, f.example),
            })
            .collect();
        match named.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// An address its store cannot use: the setting to blame, the address masked, what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongAddress {
    /// The setting (`chroma_url`, `pg_url`, `store`).
    pub setting: &'static str,
    /// The address as messages show it.
    pub shown: String,
    /// What the setting allows.
    pub allowed: &'static str,
}

impl Store {
    /// Which kind of store this is.
    pub fn kind(&self) -> StoreKind {
        match self {
            Store::Embedded => StoreKind::Embedded,
            Store::Chroma(_) => StoreKind::Chroma,
            Store::Pgvector(_) => StoreKind::Pgvector,
        }
    }

    /// The server's address as given (None for the embedded store).
    pub fn address(&self) -> Option<&str> {
        match self {
            Store::Embedded => None,
            Store::Chroma(url) | Store::Pgvector(url) => Some(url),
        }
    }

    /// What this store says about itself.
    pub fn facts(&self) -> &'static StoreFacts {
        self.kind().facts()
    }

    /// How the store is named in report lines (`embedded`, `chroma`, `pgvector`).
    pub fn label(&self) -> &'static str {
        self.facts().name
    }

    /// Whether the vectors are searched on a server (anything but the embedded store).
    pub fn is_server(&self) -> bool {
        self.address().is_some()
    }

    /// Read `embedded`, `KIND:URL` (`chroma:http://HOST:PORT`, `pgvector:postgresql://…`) or a
    /// bare address a store claims (`postgresql://…` is pgvector's). The error says what is
    /// wrong, the address masked, starting with what was typed (`chroma: needs …`), so a caller
    /// puts the flag or setting in front. The address's scheme is checked by [`Store::check`].
    pub fn parse(text: &str) -> Result<Store, String> {
        let text = text.trim();
        for kind in StoreKind::ALL {
            let facts = kind.facts();
            if text == facts.name && facts.example.is_empty() {
                return Ok(kind.at(String::new()));
            }
            if facts.takes_bare_address && facts.schemes.iter().any(|s| text.starts_with(s)) {
                return Ok(kind.at(text.to_string()));
            }
        }
        let (name, url) = text.split_once(':').unwrap_or((text, ""));
        let url = url.trim();
        let named = StoreKind::ALL
            .into_iter()
            .find(|k| k.facts().name == name && !k.facts().example.is_empty());
        match named {
            Some(kind) if !url.is_empty() => Ok(kind.at(url.to_string())),
            Some(kind) => Err(format!(
                "{}: needs the server's address, as {}:{}",
                kind.facts().name,
                kind.facts().name,
                kind.facts().example
            )),
            None => Err(format!(
                "{}: unknown store; give {}",
                crate::text::mask_password(text),
                StoreKind::choices()
            )),
        }
    }

    /// `Err` when the address does not start with one of its store's schemes.
    pub fn check(&self) -> Result<(), WrongAddress> {
        let facts = self.facts();
        match self.address() {
            Some(url) if !facts.schemes.iter().any(|s| url.trim().starts_with(s)) => {
                Err(WrongAddress {
                    setting: facts.setting,
                    shown: (facts.mask)(url),
                    allowed: facts.allowed,
                })
            }
            _ => Ok(()),
        }
    }

    /// The address as messages show it, the password hidden (None for the embedded store).
    pub fn shown_address(&self) -> Option<String> {
        self.address().map(self.facts().mask)
    }
}

/// `embedded`, or `KIND:URL` with the password hidden: how a store is written in a message.
impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shown_address() {
            Some(url) => write!(f, "{}:{url}", self.label()),
            None => f.write_str(self.label()),
        }
    }
}

/// Written as the settings file's `store` key reads it: `embedded` or `KIND:URL`, as given.
impl Serialize for Store {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.address() {
            Some(url) => serializer.collect_str(&format_args!("{}:{url}", self.label())),
            None => serializer.serialize_str(self.label()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_are_read_and_a_bad_one_is_said_with_its_password_masked() {
        let read = |t: &str| Store::parse(t);
        assert_eq!(read("embedded"), Ok(Store::Embedded));
        assert_eq!(
            read(" chroma:http://h:8000 "),
            Ok(Store::Chroma("http://h:8000".into()))
        );
        for given in [
            "pgvector:postgresql://u@h:5432/db",
            "postgresql://u@h:5432/db",
        ] {
            assert_eq!(
                read(given),
                Ok(Store::Pgvector("postgresql://u@h:5432/db".into())),
                "{given}"
            );
        }
        assert_eq!(
            read("chroma").unwrap_err(),
            "chroma: needs the server's address, as chroma:http://HOST:PORT"
        );
        assert_eq!(
            read("pgvector:").unwrap_err(),
            "pgvector: needs the server's address, as pgvector:postgresql://USER@HOST:PORT/DATABASE"
        );
        assert_eq!(
            read("mongo:mongodb://u:s3cret@h/db").unwrap_err(),
            "mongo:mongodb://u:***@h/db: unknown store; give embedded, chroma:http://HOST:PORT or pgvector:postgresql://USER@HOST:PORT/DATABASE"
        );
    }

    #[test]
    fn a_wrong_scheme_blames_the_stores_setting() {
        let wrong = Store::Pgvector("http://u:pw@h:1".into())
            .check()
            .unwrap_err();
        assert_eq!(
            (wrong.setting, wrong.shown.as_str()),
            ("pg_url", "http://u:***@h:1")
        );
        let wrong = Store::Chroma("ftp://h".into()).check().unwrap_err();
        assert_eq!(wrong.setting, "chroma_url");
        assert!(Store::Chroma(" https://h ".into()).check().is_ok());
        assert!(Store::Embedded.check().is_ok());
    }

    #[test]
    fn a_store_writes_itself_masked_and_reads_back() {
        let pg = Store::Pgvector("postgresql://u:pw@h/db".into());
        assert_eq!(pg.to_string(), "pgvector:postgresql://u:***@h/db");
        assert_eq!(Store::Embedded.to_string(), "embedded");
        for store in [Store::Embedded, Store::Chroma("http://h:1".into()), pg] {
            let written = serde_json::to_value(&store).unwrap();
            assert_eq!(Store::parse(written.as_str().unwrap()), Ok(store));
        }
    }
}
