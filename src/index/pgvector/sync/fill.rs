//! Filling a collection in one transaction: the collections it replaces removed, the collection
//! row, every chunk and seam row a batch at a time, the HNSW indexes, the metadata last.

use std::borrow::Cow;
use std::ops::Range;

use pgvector::Vector;
use serde_json::{Value, json};

use super::super::{Connection, Failure, PgClient, PgError, column};
use super::{
    INDEX_TIMEOUTS, Kind, UPLOAD_BATCH, batch, index_name, index_sql, is_uuid, lost, no_nul,
    rollback,
};
use crate::corpus::Corpus;
use crate::index::IndexError;
use crate::index::vectors::DenseCollection;
use crate::layout::Layout;

/// The lock every fill of a database takes for its transaction: row ids are unique across the
/// table, so fills of any collections (of one index or of two) replace each other, and must take
/// turns to see what they replace (overlapping, the later one's rows collided with the
/// earlier's uncommitted ones).
const FILL_LOCK: &str = "seamscope-fill";

/// Rows of one `INSERT` (or of one full check): ids, vectors, documents, metadata (JSON text).
pub(in crate::index::pgvector) struct Batch(
    pub Vec<String>,
    pub Vec<Vector>,
    pub Vec<String>,
    pub Vec<String>,
);

/// A layout's rows as a collection holds them: its chunks, then its seams, in id order, each
/// with its vector, its text and its metadata.
pub(in crate::index::pgvector) struct LayoutRows<'a> {
    /// The documents the rows' text comes from.
    pub corpus: &'a Corpus,
    /// The chunks and seams.
    pub layout: &'a Layout,
    /// The chunk vectors, in chunk order.
    pub chunks: &'a dyn DenseCollection,
    /// The seam vectors, in seam order.
    pub seams: &'a dyn DenseCollection,
    /// Each seam's search text.
    pub seam_texts: Vec<Cow<'a, str>>,
}

impl LayoutRows<'_> {
    /// Every row: chunks, then seams.
    pub(in crate::index::pgvector) fn total(&self) -> usize {
        self.layout.chunks.len() + self.layout.seams.len()
    }

    /// Every row id, chunks first.
    fn row_ids(&self) -> Vec<String> {
        let (n_chunks, n_seams) = (self.layout.chunks.len(), self.layout.seams.len());
        (0..n_chunks as u32)
            .map(|i| Kind::Chunk.row_id(i))
            .chain((0..n_seams as u32).map(|i| Kind::Seam.row_id(i)))
            .collect()
    }

    /// The rows of `range` (over chunks, then seams).
    pub(in crate::index::pgvector) fn batch(
        &self,
        range: Range<usize>,
    ) -> Result<Batch, IndexError> {
        let n_chunks = self.layout.chunks.len();
        let mut batch = Batch(Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // Chunks first, then seams, in id order.
        let split = range.start.max(n_chunks)..range.end.max(n_chunks);
        let chunk_part = range.start.min(n_chunks)..range.end.min(n_chunks);
        if !chunk_part.is_empty() {
            let vs = self
                .chunks
                .vectors(chunk_part.start as u32..chunk_part.end as u32)?;
            for (i, v) in chunk_part.zip(vs) {
                let c = &self.layout.chunks[i];
                let doc = self.corpus.doc(c.doc);
                batch.0.push(Kind::Chunk.row_id(i as u32));
                batch.1.push(Vector::from(v));
                batch.2.push(no_nul(doc.slice(c.span)));
                batch.3.push(
                    json!({"kind": "chunk", "id": i, "document": no_nul(&doc.path),
                           "start": c.span.start, "end": c.span.end})
                    .to_string(),
                );
            }
        }
        let seam_part = split.start - n_chunks..split.end - n_chunks;
        if !seam_part.is_empty() {
            let vs = self
                .seams
                .vectors(seam_part.start as u32..seam_part.end as u32)?;
            for (i, v) in seam_part.zip(vs) {
                let s = &self.layout.seams[i];
                let doc = self.corpus.doc(s.doc);
                batch.0.push(Kind::Seam.row_id(i as u32));
                batch.1.push(Vector::from(v));
                batch.2.push(no_nul(&self.seam_texts[i]));
                batch.3.push(
                    json!({"kind": "seam", "id": i, "document": no_nul(&doc.path),
                           "start": s.span.start, "end": s.span.end,
                           "left": s.left.0, "right": s.right.0})
                    .to_string(),
                );
            }
        }
        Ok(batch)
    }
}

/// Fill the collection `name` with `rows` (see [`fill`]); returns its uuid and why it was
/// written: `reason`, with the collections it replaced named.
pub(in crate::index::pgvector) fn upload(
    client: &PgClient,
    (name, metadata, dim): (&str, Value, usize),
    rows: &LayoutRows<'_>,
    reason: String,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(String, String), IndexError> {
    let (uuid, replaced, waited) = fill(client, (name, metadata, dim), rows, progress)?;
    // Fills of one database take turns ([`FILL_LOCK`]); one that had to wait replaced what the
    // other had just written, and each said "uploaded": say it here.
    let reason = if waited {
        format!(
            "{reason}; another seamscope fill of this database ran at the same time: this one waited for it and replaced what it wrote, so only the last fill's collection remains"
        )
    } else {
        reason
    };
    if replaced.is_empty() {
        return Ok((uuid, reason));
    }
    let reason = format!(
        "{reason}; it replaced {} (row ids are unique across langchain_pg_embedding, so a database holds one seamscope index at a time)",
        replaced
            .iter()
            .map(|n| crate::text::safe_name(n))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok((uuid, reason))
}

/// Fill the collection in one transaction: the old one of this name and any other seamscope
/// collection holding these row ids removed (with their indexes), the collection row, every
/// row, the HNSW indexes, the metadata last. Returns its uuid, the collections it replaced and
/// whether it waited for another fill of the database.
fn fill(
    client: &PgClient,
    collection: (&str, Value, usize),
    rows: &LayoutRows<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(String, Vec<String>, bool), IndexError> {
    let run = fill_in_transaction(client, collection, rows, progress);
    if run.is_err() {
        rollback(client);
    }
    run
}

/// [`fill`]'s steps, on one connection (a failure leaves the transaction to roll back).
fn fill_in_transaction(
    client: &PgClient,
    (name, metadata, dim): (&str, Value, usize),
    rows: &LayoutRows<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(String, Vec<String>, bool), IndexError> {
    let (replaced, uuid, serial, waited) = begin_fill(client, name, rows.row_ids())?;
    add_rows(client, (name, &uuid, serial), rows, progress)?;
    finish_fill(client, (name, &uuid, serial), dim, &metadata)?;
    // Fresh statistics, so the planner knows the new rows (best effort).
    let _ = batch(
        client,
        "analyze langchain_pg_embedding",
        (INDEX_TIMEOUTS, None),
        "ANALYZE langchain_pg_embedding".into(),
    );
    Ok((uuid, replaced, waited))
}

/// Open the transaction (holding the fill lock), remove the collections it replaces and add the
/// new collection row. Returns the collections it replaced, the new uuid, the serial of the
/// connection the transaction is on (every later step checks it is still that one: a lost
/// connection's transaction is gone, and the next statement would run outside it), and whether
/// another fill of the database held [`FILL_LOCK`], so this one waited for it.
fn begin_fill(
    client: &PgClient,
    name: &str,
    row_ids: Vec<String>,
) -> Result<(Vec<String>, String, u64, bool), IndexError> {
    let owned = name.to_string();
    let (replaced, uuid, serial, waited) =
        client.with_connection(&format!("start filling {name}"), |c| {
            Box::pin(async move {
                c.client.batch_execute("BEGIN").await?;
                let free = c
                    .client
                    .query_one(
                        "SELECT pg_try_advisory_xact_lock(hashtext($1))",
                        &[&FILL_LOCK],
                    )
                    .await?;
                let waited = !column::<bool>(&free, 0)?;
                if waited {
                    c.client
                        .execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&FILL_LOCK])
                        .await?;
                }
                let replaced = remove_holders(c, &owned, &row_ids).await?;
                let row = c
                    .client
                    .query_one(
                        "INSERT INTO langchain_pg_collection (uuid, name, cmetadata) \
                     VALUES (gen_random_uuid(), $1, NULL) RETURNING uuid::text",
                        &[&owned],
                    )
                    .await?;
                let uuid: String = column(&row, 0)?;
                Ok((replaced, uuid, c.serial, waited))
            })
        })?;
    if !is_uuid(&uuid) {
        return Err(PgError::Unexpected {
            url: client.url().to_string(),
            action: format!("fill {name}"),
            what: format!(
                "the new collection's uuid {:?} is not one",
                crate::text::safe_name(&uuid)
            ),
        }
        .into());
    }
    Ok((replaced, uuid, serial, waited))
}

/// Remove this name's old collection, and other collections holding our row ids (ids are
/// unique across the table), with their indexes; returns the other collections' names. Only
/// seamscope's own index collections (its name prefix and layout) are ever replaced: a bundle
/// the Python package's add_bundle wrote carries the layout too, under a name of the user's,
/// and is never touched.
async fn remove_holders(
    c: &mut Connection,
    owned: &str,
    row_ids: &[String],
) -> Result<Vec<String>, Failure> {
    let holders = c
        .client
        .query(
            "SELECT c.uuid::text, c.name, (c.cmetadata->>'seamscope_layout') IS NOT NULL \
             AND c.name LIKE 'seamscope-%' \
             FROM langchain_pg_collection c WHERE c.name = $1 OR EXISTS ( \
               SELECT 1 FROM langchain_pg_embedding e \
               WHERE e.collection_id = c.uuid AND e.id = ANY($2))",
            &[&owned, &row_ids],
        )
        .await?;
    let mut replaced = Vec::new();
    for row in &holders {
        let (uuid, other, ours): (String, String, bool) =
            (column(row, 0)?, column(row, 1)?, column(row, 2)?);
        if other != owned && !ours {
            return Err(Failure::Unexpected(format!(
                "the collection {} (not one of seamscope's index collections: a bundle add_bundle wrote, or rows of your own) holds rows with seamscope's ids (chunk-N, seam-N), which are unique across langchain_pg_embedding; give seamscope another database (or schema), or remove that collection",
                crate::text::safe_name(&other)
            )));
        }
        if !is_uuid(&uuid) {
            return Err(Failure::Unexpected(format!(
                "collection {} has no proper uuid",
                crate::text::safe_name(&other)
            )));
        }
        c.client
            .batch_execute(&format!(
                "DROP INDEX IF EXISTS {}; DROP INDEX IF EXISTS {}; \
                 DELETE FROM langchain_pg_collection WHERE uuid = '{uuid}';",
                index_name(&uuid, Kind::Chunk),
                index_name(&uuid, Kind::Seam)
            ))
            .await?;
        if other != owned {
            replaced.push(other);
        }
    }
    Ok(replaced)
}

/// Insert every row, [`UPLOAD_BATCH`] at a time, on the transaction's connection; `progress`
/// counts rows written.
fn add_rows(
    client: &PgClient,
    (name, uuid, serial): (&str, &str, u64),
    rows: &LayoutRows<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), IndexError> {
    let total = rows.total();
    let mut done = 0;
    while done < total {
        let end = (done + UPLOAD_BATCH).min(total);
        let Batch(ids, vectors, documents, metas) = rows.batch(done..end)?;
        let uuid = uuid.to_string();
        client.with_connection(&format!("add rows to {name}"), |c| {
            Box::pin(async move {
                if c.serial != serial {
                    return Err(lost());
                }
                c.client
                    .execute(
                        "INSERT INTO langchain_pg_embedding (id, collection_id, embedding, document, cmetadata) \
                         SELECT i, $1::text::uuid, e, d, m::jsonb \
                         FROM unnest($2::varchar[], $3::vector[], $4::varchar[], $5::text[]) AS t(i, e, d, m)",
                        &[&uuid, &ids, &vectors, &documents, &metas],
                    )
                    .await?;
                Ok(())
            })
        })?;
        done = end;
        progress(done, total);
    }
    Ok(())
}

/// Build the HNSW indexes, write the collection's metadata and commit, on the transaction's
/// connection.
fn finish_fill(
    client: &PgClient,
    (name, uuid, serial): (&str, &str, u64),
    dim: usize,
    metadata: &Value,
) -> Result<(), IndexError> {
    let finish = format!(
        "SET LOCAL statement_timeout = {}; {}; {};",
        (client.timeout() * INDEX_TIMEOUTS).as_millis(),
        index_sql(uuid, Kind::Chunk, dim),
        index_sql(uuid, Kind::Seam, dim)
    );
    batch(
        client,
        &format!("build the HNSW indexes of {name}"),
        (INDEX_TIMEOUTS, Some(serial)),
        finish,
    )?;
    let (uuid_done, metadata) = (uuid.to_string(), metadata.to_string());
    client.with_connection(&format!("finish filling {name}"), |c| {
        Box::pin(async move {
            if c.serial != serial {
                return Err(lost());
            }
            c.client
                .execute(
                    "UPDATE langchain_pg_collection SET cmetadata = $2::text::json \
                     WHERE uuid = $1::text::uuid",
                    &[&uuid_done, &metadata],
                )
                .await?;
            c.client.batch_execute("COMMIT").await?;
            Ok(())
        })
    })?;
    Ok(())
}
