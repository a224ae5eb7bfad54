//! `seamscope index`: chunk, embed and index a corpus, and say what was done.

use std::path::Path;

use serde::Serialize;

use seamscope::corpus::SkippedFile;
use seamscope::embed::device::DeviceReport;
use seamscope::embed::http::ServiceCounters;
use seamscope::index::{BuildReport, IndexSizes};
use seamscope::layout::{LayoutTimings, StoreCounts};
use seamscope::session::OpenCorpus;

use super::common::{BuildBar, start_engine};
use super::{GlobalArgs, LayoutArgs};

/// Everything `index` reports, as printed and as JSON.
#[derive(Debug, Serialize)]
pub struct IndexSummary {
    corpus: String,
    documents: usize,
    skipped: Vec<SkippedFile>,
    tokens: usize,
    chunker: String,
    chunks: usize,
    /// How the fixed chunker's cuts moved back to word starts (fixed chunker only).
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_moves: Option<seamscope::chunk::fixed::CutMoveSummary>,
    k: usize,
    seams: usize,
    mean_seam_tokens: f64,
    vectors: usize,
    vectors_vs_chunks_alone: f64,
    tokens_embedded: usize,
    tokens_from_cache: usize,
    layout_seconds: LayoutTimings,
    /// Documents whose layout was read back from the stored layouts, built, or rebuilt because
    /// the stored one was damaged.
    stored_layouts: StoreCounts,
    /// The embedder's identity (model, hash or service model, dimension, window).
    embedder: String,
    /// Where the model ran, and why when `auto` chose the CPU; `null` for an embedding service.
    device: Option<DeviceReport>,
    /// What was sent to an embedding service (requests, retries, tokens); absent for a local
    /// model.
    #[serde(skip_serializing_if = "Option::is_none")]
    service: Option<ServiceCounters>,
    /// How dense search runs: exact, approximate (HNSW), or HNSW in Chroma or Postgres at a URL.
    dense_search: String,
    build: BuildReport,
}

impl IndexSummary {
    fn new(open: &OpenCorpus, embedder: String, device: Option<&DeviceReport>) -> Self {
        let l = &open.layout;
        let seam_tokens: usize = l
            .seams
            .iter()
            .map(|s| (s.left_tokens + s.right_tokens) as usize)
            .sum();
        let r = &open.report;
        IndexSummary {
            corpus: open.corpus.root.display().to_string(),
            documents: open.corpus.documents.len(),
            skipped: open.corpus.skipped.clone(),
            tokens: l.total_tokens(),
            chunker: l.chunker.clone(),
            chunks: l.chunks.len(),
            cut_moves: l.fixed_cut_moves(),
            k: l.k,
            seams: l.seams.len(),
            mean_seam_tokens: seam_tokens as f64 / l.seams.len().max(1) as f64,
            vectors: l.chunks.len() + l.seams.len(),
            vectors_vs_chunks_alone: (l.chunks.len() + l.seams.len()) as f64
                / l.chunks.len().max(1) as f64,
            tokens_embedded: r.chunk_embedding.tokens_embedded + r.seam_embedding.tokens_embedded,
            tokens_from_cache: r.chunk_embedding.tokens_cached + r.seam_embedding.tokens_cached,
            layout_seconds: l.timings,
            stored_layouts: l.store,
            embedder,
            device: device.cloned(),
            service: match (&r.chunk_embedding.service, &r.seam_embedding.service) {
                (None, None) => None,
                (a, b) => {
                    let mut sum = a.unwrap_or_default();
                    sum.add(&b.unwrap_or_default());
                    Some(sum)
                }
            },
            dense_search: open.indexes.dense_search(),
            build: r.clone(),
        }
    }

    fn print(&self) -> Result<(), crate::cli::out::StdoutError> {
        self.print_layout()?;
        self.print_store()?;
        self.print_embedding()?;
        self.print_run()?;
        self.print_time_and_place()
    }

    /// Documents, tokens, chunks, seams and vectors.
    fn print_layout(&self) -> Result<(), crate::cli::out::StdoutError> {
        outln!("corpus     {}", seamscope::text::safe_name(&self.corpus))?;
        match seamscope::corpus::skip_summary(&self.skipped) {
            Some(summary) => outln!("documents  {} loaded, {summary}", self.documents)?,
            None => outln!(
                "documents  {} loaded, {} skipped",
                self.documents,
                self.skipped.len()
            )?,
        }
        for s in &self.skipped {
            outln!(
                "           skipped {}: {}",
                seamscope::text::safe_name(&s.path),
                s.reason
            )?;
        }
        outln!("tokens     {}", self.tokens)?;
        outln!("chunks     {} ({})", self.chunks, self.chunker)?;
        if let Some(m) = &self.cut_moves {
            outln!("cut moves  {m}")?;
        }
        outln!(
            "seams      {} (k = {}, mean window {:.0} tokens)",
            self.seams,
            self.k,
            self.mean_seam_tokens
        )?;
        outln!(
            "vectors    {} = {:.2}x chunks alone (dense search: {})",
            self.vectors,
            self.vectors_vs_chunks_alone,
            self.dense_search
        )?;
        Ok(())
    }

    /// The server's collections, when the vectors live there.
    fn print_store(&self) -> Result<(), crate::cli::out::StdoutError> {
        let r = &self.build;
        if let Some(store) = &r.store {
            for c in &store.collections {
                let what = match &c.reason {
                    Some(reason) => format!("uploaded ({})", seamscope::text::safe_name(reason)),
                    None if c.checked >= c.vectors => format!(
                        "reused: every one of its {} rows read back equal to the index's (vector, text, metadata)",
                        c.checked
                    ),
                    None => format!(
                        "reused: its count and fingerprint match, and {} of its {} vectors were spot-checked",
                        c.checked, c.vectors
                    ),
                };
                outln!(
                    "{:<10} {} · {} vectors · {what}",
                    store.kind.label(),
                    seamscope::text::safe_name(&c.name),
                    c.vectors
                )?;
            }
        }
        Ok(())
    }

    /// What was embedded or taken from the cache, what changed on disk, and from which files.
    fn print_embedding(&self) -> Result<(), crate::cli::out::StdoutError> {
        let r = &self.build;
        if r.reopened {
            outln!("embedding  none: reopened a verified index")?;
        } else {
            let c = &r.chunk_embedding;
            let s = &r.seam_embedding;
            outln!(
                "embedding  {} tokens embedded, {} served from cache",
                self.tokens_embedded,
                self.tokens_from_cache
            )?;
            outln!("           chunks: {}", embedded_line(c))?;
            outln!("           seams:  {}", embedded_line(s))?;
        }
        if let Some(c) = &r.changes {
            let names = |v: &[String]| {
                v.iter()
                    .map(|p| seamscope::text::safe_name(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            outln!(
                "changes    since the last index of this folder: {} added, {} modified, {} removed, {} unchanged",
                c.added.len(),
                c.modified.len(),
                c.removed.len(),
                c.unchanged
            )?;
            for (what, files) in [
                ("added", &c.added),
                ("modified", &c.modified),
                ("removed", &c.removed),
            ] {
                if !files.is_empty() {
                    outln!("           {what}: {}", names(files))?;
                }
            }
        }
        if !r.reopened && r.embedded_files.len() < self.documents {
            for f in &r.embedded_files {
                outln!(
                    "           embedded from {}: {} chunk texts, {} seam texts",
                    seamscope::text::safe_name(&f.path),
                    f.chunks,
                    f.seams
                )?;
            }
        }
        Ok(())
    }

    /// The embedder, where it ran, what a service was sent, and why a rebuild happened.
    fn print_run(&self) -> Result<(), crate::cli::out::StdoutError> {
        let r = &self.build;
        outln!("embedder   {}", seamscope::text::safe_name(&self.embedder))?;
        if let Some(device) = &self.device {
            outln!("device     {}", device.line())?;
        }
        if let Some(s) = &self.service {
            outln!(
                "service    {} requests ({} retried) · {} texts · {} tokens sent{} · {:.1} requests/s",
                s.requests,
                s.retries,
                s.inputs,
                s.tokens_sent,
                if s.tokens_reported > 0 {
                    format!(" ({} by the service's count)", s.tokens_reported)
                } else {
                    String::new()
                },
                s.requests_per_second()
            )?;
        }
        if let Some(why) = &r.rebuilt_because {
            outln!("rebuilt    the existing index was not used: {why}")?;
        }
        Ok(())
    }

    /// Time per stage, sizes on disk and the index folder.
    fn print_time_and_place(&self) -> Result<(), crate::cli::out::StdoutError> {
        let r = &self.build;
        let t = &self.layout_seconds;
        let b = &r.timings;
        outln!(
            "time       tokenize {:.2}s, chunk {:.3}s, seams {:.3}s, open {:.2}s, embed chunks {:.2}s, embed seams {:.2}s, write {:.2}s",
            t.tokenize,
            t.chunk,
            t.seams,
            b.open,
            b.embed_chunks,
            b.embed_seams,
            b.write_indexes
        )?;
        let IndexSizes {
            chunk_vectors,
            seam_vectors,
            chunk_keywords,
            seam_keywords,
        } = r.bytes_on_disk;
        outln!(
            "on disk    vectors: chunks {}, seams {}; keywords: chunks {}, seams {}",
            kib(chunk_vectors),
            kib(seam_vectors),
            kib(chunk_keywords),
            kib(seam_keywords)
        )?;
        outln!(
            "index      {}",
            seamscope::text::safe_name(&r.dir.display().to_string())
        )?;
        Ok(())
    }
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

/// Index `corpus` and print the summary.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout: &LayoutArgs,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout.apply(&mut settings)?;
    let mut engine = start_engine(settings)?;
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_corpus(corpus, &mut |p| bar.update(p));
    bar.finish();
    let open = open?;
    crate::cli::out::note_skipped(&open.corpus.skipped);
    let summary = IndexSummary::new(&open, engine.embedder.describe(), engine.embedder.device());
    if json {
        outln!("{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        summary.print()?;
    }
    Ok(())
}

/// "N embedded, M from cache (W model windows)", with repeats within the batch when there were any.
fn embedded_line(stats: &seamscope::embed::EmbedStats) -> String {
    let repeats = match stats.duplicates_in_batch {
        0 => String::new(),
        n => format!(", {n} repeated text{}", if n == 1 { "" } else { "s" }),
    };
    format!(
        "{} embedded, {} from cache{repeats} ({} model windows)",
        stats.cache_misses, stats.cache_hits, stats.windows
    )
}
