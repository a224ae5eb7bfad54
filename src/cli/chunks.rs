//! `seamscope chunks`: every chunk and seam of a corpus with exact byte spans and token counts, so
//! anyone can check the meters independently. Pure layout: only the model's tokenizer is loaded.

use std::path::Path;

use serde::Serialize;

use seamscope::chunk::context::SearchContext;
use seamscope::corpus::Corpus;
use seamscope::layout::Layout;
use seamscope::session::report::{ChunkInfo, SeamRecord};
use seamscope::settings::Settings;
use seamscope::text::safe_name as safe;
use seamscope::tokens::TokenCounter;

use super::{GlobalArgs, LayoutArgs};

/// The model's tokenizer, for the commands that lay a corpus out without embedding it
/// (`chunks`, `atoms`, `questions check`). They never install the model (a download of
/// hundreds of MB for a listing): when it is not there, they say so and how to get it.
pub fn load_tokenizer(settings: &Settings) -> anyhow::Result<TokenCounter> {
    match seamscope::session::Engine::load_tokenizer(settings) {
        Err(seamscope::session::EngineError::NotInstalled { model_dir }) => anyhow::bail!(
            "this command embeds nothing, but counts tokens with the embedding model's tokenizer, which is not installed in {}: run `seamscope setup` once (or set SEAMSCOPE_MODEL_DIR to a folder holding tokenizer.json and model.onnx)",
            seamscope::text::safe_name(&model_dir)
        ),
        other => Ok(other?),
    }
}

/// Load a corpus with the settings' size limit.
pub fn load_corpus(path: &Path, settings: &Settings) -> anyhow::Result<Corpus> {
    Ok(Corpus::load(
        path,
        &seamscope::places::load_options(settings),
    )?)
}

#[derive(Serialize)]
struct DocumentRow {
    id: u32,
    path: String,
    bytes: usize,
    /// The extractor that made the text (`text`, `pdf`, ...) and its version: offsets are byte
    /// offsets into that text.
    extractor: String,
    extractor_version: String,
    /// Pages, for a paged document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pages: Option<usize>,
    tokens: usize,
    chunks: usize,
    /// Spans no chunk holds (given cuts only: the built-in chunkers tile every document).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    uncovered: Vec<seamscope::corpus::Span>,
}

#[derive(Serialize)]
struct ChunkRow {
    #[serde(flatten)]
    chunk: ChunkInfo,
    /// Text put in front of the span for search only (heading path, repeated table header).
    #[serde(skip_serializing_if = "String::is_empty")]
    search_prefix: String,
}

#[derive(Serialize)]
struct SeamRow {
    #[serde(flatten)]
    seam: SeamRecord,
    /// Bytes the two chunks share (given cuts that overlap); the cut is in their middle.
    #[serde(skip_serializing_if = "is_zero")]
    overlap_bytes: usize,
    /// Bytes between the two chunks that neither holds (given cuts with a gap).
    #[serde(skip_serializing_if = "is_zero")]
    gap_bytes: usize,
    #[serde(skip_serializing_if = "String::is_empty")]
    search_prefix: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The whole listing, as printed and as JSON.
#[derive(Serialize)]
struct ChunkListing {
    corpus: String,
    chunker: String,
    /// The cuts file, when the chunks are the user's own (chunker `given`).
    #[serde(skip_serializing_if = "Option::is_none")]
    given: Option<seamscope::layout::GivenSource>,
    chunk_tokens: usize,
    k: usize,
    search_context: SearchContext,
    /// How the fixed chunker's cuts moved back to word starts (fixed chunker only).
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_moves: Option<seamscope::chunk::fixed::CutMoveSummary>,
    documents: Vec<DocumentRow>,
    chunks: Vec<ChunkRow>,
    seams: Vec<SeamRow>,
    /// The grouped line of files left out (the `--json` document lists each instead).
    #[serde(skip)]
    skipped: Option<String>,
}

impl ChunkListing {
    fn new(corpus: &Corpus, layout: &Layout, chunk_tokens: usize) -> Self {
        let (chunk_prefixes, seam_prefixes) = layout.search_prefixes(corpus);
        ChunkListing {
            corpus: corpus.root.display().to_string(),
            chunker: layout.chunker.clone(),
            given: layout.given.clone(),
            chunk_tokens,
            k: layout.k,
            search_context: layout.search,
            cut_moves: layout.fixed_cut_moves(),
            skipped: seamscope::corpus::skip_summary(&corpus.skipped),
            documents: corpus
                .documents
                .iter()
                .map(|d| DocumentRow {
                    id: d.id.0,
                    path: d.path.clone(),
                    bytes: d.text.len(),
                    extractor: d.source.extractor.clone(),
                    extractor_version: d.source.version.clone(),
                    pages: (!d.source.pages.is_empty()).then(|| d.source.pages.len()),
                    tokens: layout.offsets[d.id.0 as usize].len(),
                    chunks: layout.chunks.iter().filter(|c| c.doc == d.id).count(),
                    uncovered: layout.uncovered(d.id, d.text.len()),
                })
                .collect(),
            chunks: layout
                .chunks
                .iter()
                .zip(chunk_prefixes)
                .map(|(c, search_prefix)| ChunkRow {
                    chunk: ChunkInfo::of(c, corpus),
                    search_prefix,
                })
                .collect(),
            seams: layout
                .seams
                .iter()
                .zip(seam_prefixes)
                .map(|(s, search_prefix)| {
                    let (l, r) = (layout.chunk(s.left).span, layout.chunk(s.right).span);
                    SeamRow {
                        seam: SeamRecord::of(s, corpus),
                        overlap_bytes: l.end.saturating_sub(r.start),
                        gap_bytes: r.start.saturating_sub(l.end),
                        search_prefix,
                    }
                })
                .collect(),
        }
    }

    /// The layout as text: what was cut and how, then every chunk and every seam.
    fn print(&self) -> Result<(), crate::cli::out::StdoutError> {
        outln!(
            "{}: {} documents, {} chunks ({}), {} seams (k = {})",
            safe(&self.corpus),
            self.documents.len(),
            self.chunks.len(),
            self.chunker,
            self.seams.len(),
            self.k
        )?;
        if let Some(skipped) = &self.skipped {
            outln!("  {skipped} (--json lists each file and why)")?;
        }
        if let Some(m) = &self.cut_moves {
            outln!("  {m}")?;
        }
        if let Some(g) = &self.given {
            let uncovered: usize = self
                .documents
                .iter()
                .flat_map(|d| &d.uncovered)
                .map(|s| s.len())
                .sum();
            outln!(
                "  given: {} read as {} ({} records over {} of {} documents); {} bytes no chunk holds",
                safe(&g.file.display().to_string()),
                g.format,
                g.records,
                g.documents,
                self.documents.len(),
                uncovered
            )?;
        }
        self.print_chunks()?;
        self.print_seams()
    }

    /// One line per chunk: where it lies and its tokens, marked when it is searched with context.
    fn print_chunks(&self) -> Result<(), crate::cli::out::StdoutError> {
        outln!(
            "  {:>6}  {:<40} {:>9} {:>9} {:>6}",
            "chunk",
            "document#ordinal",
            "start",
            "end",
            "tokens"
        )?;
        for row in &self.chunks {
            let c = &row.chunk;
            let key = format!("{}#{}", safe(&c.doc), c.ordinal);
            let mark = if row.search_prefix.is_empty() {
                ""
            } else {
                "  +context"
            };
            outln!(
                "  {:>6}  {:<40} {:>9} {:>9} {:>6}{mark}",
                c.id,
                key,
                c.start,
                c.end,
                c.tokens
            )?;
        }
        Ok(())
    }

    /// One line per seam: the two chunks it joins, where it is cut, where it lies, its tokens.
    fn print_seams(&self) -> Result<(), crate::cli::out::StdoutError> {
        outln!(
            "  {:>6}  {:<40} {:>9} {:>9} {:>6}",
            "seam",
            "left|right",
            "start",
            "end",
            "tokens"
        )?;
        for row in &self.seams {
            let s = &row.seam;
            outln!(
                "  {:>6}  {:<40} {:>9} {:>9} {:>6}",
                s.id,
                match (row.overlap_bytes, row.gap_bytes) {
                    (0, 0) => format!("{}|{} (cut at {})", s.left, s.right, s.cut),
                    (o, 0) => format!(
                        "{}|{} (cut at {}, mid-overlap of {o} B)",
                        s.left, s.right, s.cut
                    ),
                    (_, g) => format!(
                        "{}|{} (cut at {}, mid-gap of {g} B)",
                        s.left, s.right, s.cut
                    ),
                },
                s.start,
                s.end,
                s.left_tokens + s.right_tokens
            )?;
        }
        Ok(())
    }
}

/// List the layout of `corpus` under the layout options.
pub fn run(
    global: &GlobalArgs,
    corpus: &Path,
    layout_args: &LayoutArgs,
    json: bool,
) -> anyhow::Result<()> {
    let mut settings = global.settings()?;
    layout_args.apply(&mut settings)?;
    let tokenizer = load_tokenizer(&settings)?;
    let corpus = load_corpus(corpus, &settings)?;
    crate::cli::out::note_skipped(&corpus.skipped);
    let layout = Layout::for_settings(&corpus, &tokenizer, &settings)?;
    let listing = ChunkListing::new(&corpus, &layout, settings.chunk_tokens);
    if json {
        outln!("{}", serde_json::to_string_pretty(&listing)?)?;
    } else {
        listing.print()?;
    }
    Ok(())
}
