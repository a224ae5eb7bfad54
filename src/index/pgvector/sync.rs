//! The collection of one index in Postgres: creating the tables, filling a collection in one
//! transaction, checking a stored one before reuse, searching it through its HNSW indexes, and
//! moving an index's dense search onto it.

mod fill;

use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use pgvector::Vector;
use serde_json::{Map, Value, json};

use super::{Failure, LAYOUT_VERSION, PgClient, PgError, column};
use crate::corpus::Corpus;
use crate::index::remote::{
    CollectionSync, SPOT_TOLERANCE, ServerStore, StoreKind, StoreSync, fingerprint,
};
use crate::index::vectors::{DenseCollection, SearchMode};
use crate::index::{DenseStore, IndexError, IndexSet};
use crate::layout::Layout;
use fill::{Batch, LayoutRows, upload};

/// Rows sent per `INSERT`.
const UPLOAD_BATCH: usize = 500;

/// Building the HNSW indexes may take this many timeouts.
const INDEX_TIMEOUTS: u32 = 10;

/// The largest `hnsw.ef_search` pgvector takes.
const MAX_EF_SEARCH: usize = 1000;

/// The tables, langchain-postgres `PGVector`'s own, created when absent.
const TABLES: &str = "CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS langchain_pg_collection (
    uuid uuid PRIMARY KEY, name varchar NOT NULL UNIQUE, cmetadata json);
CREATE TABLE IF NOT EXISTS langchain_pg_embedding (
    id varchar PRIMARY KEY,
    collection_id uuid REFERENCES langchain_pg_collection(uuid) ON DELETE CASCADE,
    embedding vector, document varchar, cmetadata jsonb);";

/// The two kinds of rows in a collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Chunk,
    Seam,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Chunk => "chunk",
            Kind::Seam => "seam",
        }
    }

    /// The row id of `id`: `chunk-7`, `seam-3`.
    fn row_id(self, id: u32) -> String {
        format!("{}-{id}", self.name())
    }

    /// The id in a row id of this kind, when it is one (`chunk-7` → 7; `chunk-07` → none).
    fn parse(self, row_id: &str) -> Option<u32> {
        let digits = row_id.strip_prefix(self.name())?.strip_prefix('-')?;
        let canonical = digits == "0" || !digits.starts_with('0');
        digits
            .parse()
            .ok()
            .filter(|_| canonical && digits.bytes().all(|b| b.is_ascii_digit()))
    }
}

/// The collection of the index whose folder is named `key`.
pub fn collection_name(key: &str) -> String {
    format!("seamscope-{key}")
}

/// The HNSW index of one kind of a collection.
fn index_name(uuid: &str, kind: Kind) -> String {
    format!("seamscope_hnsw_{}_{}", uuid.replace('-', ""), kind.name())
}

/// Whether `uuid` is a UUID as Postgres prints one, so it can stand in a statement's text.
fn is_uuid(uuid: &str) -> bool {
    uuid.len() == 36
        && uuid.bytes().enumerate().all(|(i, b)| {
            matches!(i, 8 | 13 | 18 | 23) == (b == b'-') && (b == b'-' || b.is_ascii_hexdigit())
        })
}

/// The statement dense search runs for `count` rows of `kind` (`chunk` or `seam`) of the
/// collection `uuid` with `dim`-dimensional vectors, the question's vector as `$1`: the
/// collection and kind stand in its text, so the planner matches the partial HNSW index's
/// predicate and orders by the index's own expression.
pub fn search_sql(uuid: &str, kind: &str, dim: usize, count: usize) -> String {
    format!(
        "SELECT id, (embedding::vector({dim})) <=> $1::vector AS distance \
         FROM langchain_pg_embedding \
         WHERE collection_id = '{uuid}' AND cmetadata->>'kind' = '{kind}' \
         ORDER BY (embedding::vector({dim})) <=> $1::vector LIMIT {count}"
    )
}

/// The statement that builds the HNSW index of `kind` of the collection `uuid`.
fn index_sql(uuid: &str, kind: Kind, dim: usize) -> String {
    format!(
        "CREATE INDEX IF NOT EXISTS {} ON langchain_pg_embedding \
         USING hnsw ((embedding::vector({dim})) vector_cosine_ops) \
         WHERE collection_id = '{uuid}' AND cmetadata->>'kind' = '{}'",
        index_name(uuid, kind),
        kind.name()
    )
}

/// One kind of vectors of a collection in Postgres, searched there.
#[derive(Debug)]
pub struct PgCollection {
    client: Arc<PgClient>,
    uuid: String,
    name: String,
    kind: Kind,
    dim: usize,
    len: usize,
}

impl PgCollection {
    /// The collection's name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The collection's uuid on the server.
    pub fn uuid(&self) -> &str {
        &self.uuid
    }
}

/// The stored vectors of `ids` of `kind` in the collection `uuid`, in any order.
fn stored_vectors(
    client: &PgClient,
    (uuid, name): (&str, &str),
    kind: Kind,
    ids: &[u32],
) -> Result<Vec<(u32, Vec<f32>)>, PgError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let row_ids: Vec<String> = ids.iter().map(|&i| kind.row_id(i)).collect();
    let uuid = uuid.to_string();
    client.with_connection(&format!("read {} vectors of {name}", kind.name()), |c| {
        Box::pin(async move {
            let rows = c
                .client
                .query(
                    "SELECT id, embedding FROM langchain_pg_embedding \
                     WHERE collection_id = $1::text::uuid AND id = ANY($2)",
                    &[&uuid, &row_ids],
                )
                .await?;
            rows.iter()
                .map(|row| {
                    let id: String = column(row, 0)?;
                    let id = kind.parse(&id).ok_or_else(|| {
                        Failure::Unexpected(format!("a row id {id:?} is not seamscope's"))
                    })?;
                    let v: Option<Vector> = column(row, 1)?;
                    let v = v.ok_or_else(|| {
                        Failure::Unexpected(format!("row {} has no embedding", kind.row_id(id)))
                    })?;
                    Ok((id, v.to_vec()))
                })
                .collect()
        })
    })
}

impl DenseCollection for PgCollection {
    fn len(&self) -> usize {
        self.len
    }

    fn search(
        &self,
        query: &[f32],
        count: usize,
        _mode: SearchMode,
    ) -> Result<Vec<(u32, f32)>, IndexError> {
        if count == 0 || self.len == 0 {
            return Ok(Vec::new());
        }
        let count = count.min(self.len);
        let sql = search_sql(&self.uuid, self.kind.name(), self.dim, count);
        let vector = Vector::from(query.to_vec());
        let (kind, len) = (self.kind, self.len);
        let rows = self
            .client
            .with_connection(&format!("search {}", self.name), |c| {
                Box::pin(async move {
                    plan_searches(c, count).await?;
                    let statement = match c.searches.get(&sql) {
                        Some(statement) => statement.clone(),
                        None => {
                            let statement = c.client.prepare(&sql).await?;
                            c.searches.insert(sql, statement.clone());
                            statement
                        }
                    };
                    let rows = c.client.query(&statement, &[&vector]).await?;
                    rows.iter()
                        .map(|row| {
                            let id: String = column(row, 0)?;
                            let distance: Option<f64> = column(row, 1)?;
                            let found = kind.parse(&id).filter(|&i| (i as usize) < len);
                            match (found, distance) {
                                (Some(i), Some(d)) => Ok((i, (1.0 - d) as f32)),
                                _ => Err(Failure::Unexpected(format!(
                                    "it returned the row {}, which is not one of the collection's {len} {}s: was it written by something else? (open the corpus again to fill it anew)",
                                    crate::text::safe_name(&id),
                                    kind.name()
                                ))),
                            }
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
            })?;
        if rows.is_empty() {
            // Removed (or refilled under another uuid) since it was opened.
            return Err(PgError::Unexpected {
                url: self.client.url().to_string(),
                action: format!("search {}", self.name),
                what: format!(
                    "the collection holds none of its {len} {}s now; open the corpus again (R on the screen, or run the command again) to fill it anew",
                    self.kind.name()
                ),
            }
            .into());
        }
        let mut hits = rows;
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(hits)
    }

    fn explain(&self, query: &[f32], count: usize) -> Result<Option<String>, IndexError> {
        let count = count.clamp(1, self.len.max(1));
        let sql = format!(
            "EXPLAIN {}",
            search_sql(&self.uuid, self.kind.name(), self.dim, count)
        );
        let vector = Vector::from(query.to_vec());
        let plan =
            self.client
                .with_connection(&format!("explain a search of {}", self.name), |c| {
                    Box::pin(async move {
                        plan_searches(c, count).await?;
                        let rows = c.client.query(&sql, &[&vector]).await?;
                        rows.iter()
                            .map(|row| column::<String>(row, 0))
                            .collect::<Result<Vec<_>, _>>()
                    })
                })?;
        Ok(Some(plan.join("\n")))
    }

    fn vectors(&self, ids: Range<u32>) -> Result<Vec<Vec<f32>>, IndexError> {
        let wanted: Vec<u32> = ids.clone().collect();
        let mut got = Vec::with_capacity(wanted.len());
        for batch in wanted.chunks(UPLOAD_BATCH) {
            got.extend(stored_vectors(
                &self.client,
                (&self.uuid, &self.name),
                self.kind,
                batch,
            )?);
        }
        got.sort_by_key(|(id, _)| *id);
        if got.iter().map(|(id, _)| *id).ne(ids) {
            return Err(PgError::Unexpected {
                url: self.client.url().to_string(),
                action: format!("read vectors of {}", self.name),
                what: "rows are missing".into(),
            }
            .into());
        }
        Ok(got.into_iter().map(|(_, v)| v).collect())
    }
}

/// Set the connection up for searches of `count` rows: `hnsw.ef_search` at least that (HNSW
/// returns at most ef_search rows), and sequential scans and sorts off, so the planner walks the
/// partial HNSW index even where the collection is small enough that it would rather read every
/// row (exact, and not what the screen says). Set once per connection and depth.
async fn plan_searches(c: &mut super::Connection, count: usize) -> Result<(), Failure> {
    let ef = (count * 2).clamp(100, MAX_EF_SEARCH);
    if c.ef_search != ef {
        c.client
            .batch_execute(&format!(
                "SET hnsw.ef_search = {ef}; SET enable_seqscan = off; SET enable_sort = off;"
            ))
            .await?;
        c.ef_search = ef;
    }
    Ok(())
}

/// Run `sql` (statements in the simple protocol) within `scale` timeouts; with `on`, only on the
/// connection of that serial (the one a fill's transaction is on).
fn batch(
    client: &PgClient,
    action: &str,
    (scale, on): (u32, Option<u64>),
    sql: String,
) -> Result<(), PgError> {
    client.run(action, scale, |c| {
        Box::pin(async move {
            if on.is_some_and(|serial| serial != c.serial) {
                return Err(lost());
            }
            c.client.batch_execute(&sql).await.map_err(Failure::from)
        })
    })
}

/// Why a fill stopped when its connection was replaced under it.
fn lost() -> Failure {
    Failure::Unexpected("the connection was lost during the fill; nothing of it was kept".into())
}

/// Create the extension and the tables when absent (under a lock, so two first runs at once
/// do not race).
fn ensure_tables(client: &PgClient) -> Result<(), PgError> {
    batch(
        client,
        "create the pgvector extension and the langchain_pg tables",
        (1, None),
        format!("BEGIN; SELECT pg_advisory_xact_lock(5432100777); {TABLES} COMMIT;"),
    )
    .inspect_err(|_| rollback(client))
}

/// End an open transaction, best effort (the error that stopped it is the one reported).
fn rollback(client: &PgClient) {
    let _ = batch(client, "roll back", (1, None), "ROLLBACK".into());
}

/// A collection as the server describes it: its uuid and metadata (none when it has none).
struct Found {
    uuid: String,
    metadata: Option<Map<String, Value>>,
}

fn find_collection(client: &PgClient, name: &str) -> Result<Option<Found>, PgError> {
    let owned = name.to_string();
    let row = client.with_connection(&format!("describe collection {name}"), |c| {
        Box::pin(async move {
            let row = c
                .client
                .query_opt(
                    "SELECT uuid::text, cmetadata::text FROM langchain_pg_collection WHERE name = $1",
                    &[&owned],
                )
                .await?;
            row.map(|r| Ok::<_, Failure>((column::<String>(&r, 0)?, column::<Option<String>>(&r, 1)?)))
                .transpose()
        })
    })?;
    let Some((uuid, metadata)) = row else {
        return Ok(None);
    };
    if !is_uuid(&uuid) {
        return Err(PgError::Unexpected {
            url: client.url().to_string(),
            action: format!("describe collection {name}"),
            what: format!("its uuid {:?} is not one", crate::text::safe_name(&uuid)),
        });
    }
    let metadata = metadata
        .and_then(|m| serde_json::from_str::<Value>(&m).ok())
        .and_then(|v| v.as_object().cloned());
    Ok(Some(Found { uuid, metadata }))
}

/// Why the stored collection `found` cannot be reused as holding `local`'s chunk and seam
/// vectors under `expected` metadata, or `None` when it can.
fn stale_because(
    client: &PgClient,
    (name, found): (&str, &Found),
    expected: &Map<String, Value>,
    (dim, chunks, seams): (usize, &dyn DenseCollection, &dyn DenseCollection),
    rows: &LayoutRows<'_>,
) -> Result<Option<String>, IndexError> {
    let Some(metadata) = &found.metadata else {
        return Ok(Some(
            "it has no seamscope metadata (a fill that did not finish, or another writer)".into(),
        ));
    };
    for (key, value) in expected {
        if metadata.get(key) != Some(value) {
            return Ok(Some(format!(
                "its metadata `{key}` does not match these vectors"
            )));
        }
    }
    let uuid = found.uuid.clone();
    let (n_chunks, n_seams) = (chunks.len() as i64, seams.len() as i64);
    let dim = dim as i32;
    let counts = client.with_connection(&format!("count the rows of {name}"), |c| {
        Box::pin(async move {
            let row = c
                .client
                .query_one(
                    "SELECT \
                       count(*) FILTER (WHERE CASE WHEN id ~ '^chunk-(0|[1-9][0-9]{0,8})$' \
                         THEN cmetadata->>'kind' = 'chunk' AND substr(id, 7)::bigint < $2 ELSE false END), \
                       count(*) FILTER (WHERE CASE WHEN id ~ '^seam-(0|[1-9][0-9]{0,8})$' \
                         THEN cmetadata->>'kind' = 'seam' AND substr(id, 6)::bigint < $3 ELSE false END), \
                       count(*) FILTER (WHERE vector_dims(embedding) = $4), \
                       count(*) \
                     FROM langchain_pg_embedding WHERE collection_id = $1::text::uuid",
                    &[&uuid, &n_chunks, &n_seams, &dim],
                )
                .await?;
            let get = |i| column::<i64>(&row, i);
            Ok([get(0)?, get(1)?, get(2)?, get(3)?])
        })
    })?;
    let [good_chunks, good_seams, good_dims, total] = counts;
    if total != n_chunks + n_seams {
        return Ok(Some(format!(
            "it holds {total} rows, the index has {n_chunks} chunks and {n_seams} seams"
        )));
    }
    if good_chunks != n_chunks || good_seams != n_seams {
        return Ok(Some(format!(
            "its rows are not chunk-0..{n_chunks} and seam-0..{n_seams} with their kinds"
        )));
    }
    if good_dims != total {
        return Ok(Some(format!(
            "{} of its rows are not {dim}-dimensional vectors",
            total - good_dims
        )));
    }
    rows_differ(client, (&found.uuid, name), rows)
}

/// Why the collection's stored rows differ from `rows`, or `None` when every row (its id,
/// vector, text and metadata) is the index's: every row is read back, [`UPLOAD_BATCH`] at a
/// time. A spot check of a few vectors once reused a collection with two rows' vectors
/// overwritten, and never looked at the metadata.
fn rows_differ(
    client: &PgClient,
    (uuid, name): (&str, &str),
    rows: &LayoutRows<'_>,
) -> Result<Option<String>, IndexError> {
    let total = rows.total();
    let mut done = 0;
    while done < total {
        let end = (done + UPLOAD_BATCH).min(total);
        let Batch(ids, vectors, documents, metas) = rows.batch(done..end)?;
        let mut stored = stored_rows(client, (uuid, name), &ids)?;
        for (i, id) in ids.iter().enumerate() {
            let Some((vector, document, metadata)) = stored.remove(id) else {
                return Ok(Some(format!("its row {id} is missing")));
            };
            let mine = vectors[i].as_slice();
            let same = vector.len() == mine.len()
                && vector
                    .iter()
                    .zip(mine)
                    .all(|(a, b)| (a - b).abs() <= SPOT_TOLERANCE);
            if !same {
                return Ok(Some(format!(
                    "its stored vector of {id} differs from the index's"
                )));
            }
            if document != documents[i] {
                return Ok(Some(format!(
                    "its stored text of {id} differs from the layout's"
                )));
            }
            let theirs = metadata.and_then(|m| serde_json::from_str::<Value>(&m).ok());
            let ours = serde_json::from_str::<Value>(&metas[i]).ok();
            if theirs != ours {
                return Ok(Some(format!(
                    "its stored metadata of {id} differs from the layout's"
                )));
            }
        }
        done = end;
    }
    Ok(None)
}

/// One stored row's vector, text and metadata (JSON text), by id.
type StoredRow = (Vec<f32>, String, Option<String>);

/// The stored rows of `ids` in the collection of `uuid`.
fn stored_rows(
    client: &PgClient,
    (uuid, name): (&str, &str),
    ids: &[String],
) -> Result<std::collections::HashMap<String, StoredRow>, PgError> {
    let (uuid, ids) = (uuid.to_string(), ids.to_vec());
    client.with_connection(&format!("read back the rows of {name}"), |c| {
        Box::pin(async move {
            let rows = c
                .client
                .query(
                    "SELECT id, embedding, coalesce(document, ''), cmetadata::text \
                     FROM langchain_pg_embedding \
                     WHERE collection_id = $1::text::uuid AND id = ANY($2)",
                    &[&uuid, &ids],
                )
                .await?;
            rows.iter()
                .map(|row| {
                    let id: String = column(row, 0)?;
                    let v: Option<Vector> = column(row, 1)?;
                    let v =
                        v.ok_or_else(|| Failure::Unexpected(format!("row {id} has no embedding")))?;
                    Ok((id, (v.to_vec(), column(row, 2)?, column(row, 3)?)))
                })
                .collect()
        })
    })
}

/// Build the HNSW indexes of a reused collection when they are missing (dropped by hand).
fn ensure_indexes(client: &PgClient, uuid: &str, dim: usize) -> Result<(), PgError> {
    let sql = format!(
        "{}; {};",
        index_sql(uuid, Kind::Chunk, dim),
        index_sql(uuid, Kind::Seam, dim)
    );
    batch(
        client,
        "build the HNSW indexes",
        (INDEX_TIMEOUTS, None),
        sql,
    )
}

/// Text Postgres can hold: `varchar` and `jsonb` take no NUL.
fn no_nul(text: &str) -> String {
    text.replace('\0', "")
}

impl IndexSet {
    /// Move this index's dense search to Postgres: the chunk and seam vectors go into one
    /// collection of langchain-postgres's tables named after the index folder
    /// (`seamscope-<key>`), reused when it verifies as holding exactly these vectors, and every
    /// later search of this set asks the server through the collection's HNSW indexes.
    /// Keyword indexes stay local. `corpus` and `layout` give the rows their text and
    /// metadata; `progress(done, total)` counts rows written.
    pub fn attach_pgvector(
        &mut self,
        client: &Arc<PgClient>,
        (corpus, layout): (&Corpus, &Layout),
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<StoreSync, IndexError> {
        let started = Instant::now();
        let key = self.remote_key("Postgres")?;
        let name = collection_name(&key);
        let dim = self.manifest.dim;
        let (n_chunks, n_seams) = (self.chunk_vectors.len(), self.seam_vectors.len());
        if layout.chunks.len() != n_chunks || layout.seams.len() != n_seams {
            return Err(IndexError::Io {
                path: self.dir.clone(),
                message: "the layout and the index differ in their chunks or seams".into(),
            });
        }
        let chunks = self.chunk_vectors.as_ref();
        let seams = self.seam_vectors.as_ref();
        let expected = json!({
            "seamscope_layout": LAYOUT_VERSION,
            "model": self.manifest.model,
            "dim": dim,
            "k": self.manifest.k,
            "chunks": n_chunks,
            "seams": n_seams,
            "fingerprint": fingerprint(dim, &[chunks, seams], UPLOAD_BATCH)?,
        });
        let expected_map = expected.as_object().cloned().unwrap_or_default();
        ensure_tables(client)?;
        let found = find_collection(client, &name)?;
        let rows = LayoutRows {
            corpus,
            layout,
            chunks,
            seams,
            seam_texts: layout.search_texts(corpus).1,
        };
        let stale = match &found {
            None => Some("the server had no such collection".to_string()),
            Some(f) => stale_because(
                client,
                (&name, f),
                &expected_map,
                (dim, chunks, seams),
                &rows,
            )?,
        };
        let (uuid, reason) = match (found, stale) {
            (Some(f), None) => {
                ensure_indexes(client, &f.uuid, dim)?;
                (f.uuid, None)
            }
            (_, stale) => {
                let reason = stale.unwrap_or_default();
                let (uuid, reason) =
                    upload(client, (&name, expected, dim), &rows, reason, progress)?;
                (uuid, Some(reason))
            }
        };
        self.search_through(client, &uuid, &name);
        Ok(StoreSync {
            kind: StoreKind::Pgvector,
            url: client.url().to_string(),
            collections: vec![CollectionSync {
                name,
                vectors: n_chunks + n_seams,
                uploaded: reason.is_some(),
                checked: if reason.is_some() {
                    0
                } else {
                    n_chunks + n_seams
                },
                reason,
            }],
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Every later dense search of this set asks the collection `name` (of `uuid`) through its
    /// HNSW indexes, which are approximate.
    fn search_through(&mut self, client: &Arc<PgClient>, uuid: &str, name: &str) {
        let dim = self.manifest.dim;
        let (n_chunks, n_seams) = (self.chunk_vectors.len(), self.seam_vectors.len());
        let collection = |kind: Kind, len| PgCollection {
            client: Arc::clone(client),
            uuid: uuid.to_string(),
            name: name.to_string(),
            kind,
            dim,
            len,
        };
        self.chunk_vectors = Box::new(collection(Kind::Chunk, n_chunks));
        self.seam_vectors = Box::new(collection(Kind::Seam, n_seams));
        // pgvector's HNSW index: approximate.
        self.search_mode = SearchMode::Approximate;
        self.store = DenseStore::Server {
            kind: StoreKind::Pgvector,
            url: client.url().to_string(),
            collections: vec![name.to_string()],
        };
    }
}

impl ServerStore for PgClient {
    fn attach(
        self: Arc<Self>,
        set: &mut IndexSet,
        laid: (&Corpus, &Layout),
        _settings: &crate::settings::Settings,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<StoreSync, IndexError> {
        set.attach_pgvector(&self, laid, progress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_ids_round_trip_and_nothing_else_parses() {
        assert_eq!(Kind::Chunk.parse(&Kind::Chunk.row_id(7)), Some(7));
        assert_eq!(Kind::Seam.parse("seam-0"), Some(0));
        for bad in [
            "seam-7", "chunk-07", "chunk-", "chunk--1", "chunk-1x", "chunk7",
        ] {
            assert_eq!(Kind::Chunk.parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_a_printed_uuid_stands_in_a_statement() {
        assert!(is_uuid("0f8fad5b-d9cb-469f-a165-70867728950e"));
        for bad in [
            "",
            "0f8fad5b-d9cb-469f-a165-70867728950",
            "0f8fad5b'd9cb-469f-a165-70867728950e",
        ] {
            assert!(!is_uuid(bad), "{bad}");
        }
        let sql = search_sql("0f8fad5b-d9cb-469f-a165-70867728950e", "chunk", 384, 10);
        assert!(sql.contains("ORDER BY (embedding::vector(384)) <=> $1::vector LIMIT 10"));
    }
}
