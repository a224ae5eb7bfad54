//! Each document a traced retriever returned, placed in the corpus: by its metadata (the
//! document it names and its `start_index` or page, its text checked there), else by its exact
//! text anywhere in the corpus, else by its words in order (line breaks and markup between them,
//! as an extractor leaves them), else by the fuzzy placement `questions check` uses. A document
//! not placed is kept with why, never dropped.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use trace_read::{RetrievedDocument, TraceRead};

use crate::chunk::given::RecordPlacer;
use crate::corpus::{Corpus, DocId, Span};
use crate::cuts::RecordAt;
use crate::eval::placement::{PlacedBy, place_text};

/// How a document was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlacedHow {
    /// By the document and offsets its metadata names, its text checked there.
    Metadata,
    /// By its exact text, found once in the corpus.
    ExactText,
    /// By its words in order, found once.
    Words,
    /// By the fuzzy placement of `questions check` (most of its words in one window).
    Fuzzy,
}

/// Where one retrieved document lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Placed {
    /// The document.
    pub doc: DocId,
    /// Its byte span there.
    pub span: Span,
    /// How it was found.
    pub how: PlacedHow,
}

/// The same retrieved document as the key of its placement: its text and what its metadata
/// says of where it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct DocKey {
    content: Arc<str>,
    source: Option<String>,
    start: Option<u64>,
    page: Option<u64>,
}

impl DocKey {
    fn of(d: &RetrievedDocument) -> Self {
        DocKey {
            content: d.content.clone(),
            source: source_of(d).map(str::to_string),
            start: d.meta_u64("start_index"),
            page: d.meta_u64("page"),
        }
    }
}

/// Metadata keys that name a document, in the order looked for.
const SOURCE_KEYS: [&str; 5] = ["source", "file_path", "file_name", "path", "filename"];

fn source_of(d: &RetrievedDocument) -> Option<&str> {
    SOURCE_KEYS.iter().find_map(|k| d.meta_str(k))
}

/// Every distinct retrieved document of a trace read, placed or not.
#[derive(Debug, Default)]
pub struct Placements {
    by_key: HashMap<DocKey, Result<Placed, String>>,
}

/// Placement counts, for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PlacementCounts {
    /// Distinct documents returned.
    pub distinct: usize,
    /// Placed, by how.
    pub by_metadata: usize,
    /// Placed by exact text.
    pub by_exact_text: usize,
    /// Placed by words in order.
    pub by_words: usize,
    /// Placed by fuzzy placement.
    pub fuzzy: usize,
    /// Not placed.
    pub not_placed: usize,
    /// The first not placed, with why.
    pub not_placed_examples: Vec<NotPlaced>,
}

/// A document not placed, and why.
#[derive(Debug, Clone, Serialize)]
pub struct NotPlaced {
    /// The document its metadata names, if any.
    pub source: Option<String>,
    /// The first words of its text.
    pub starts: String,
    /// Why it was not placed.
    pub why: String,
}

/// Documents not placed listed one by one; past it they are counted.
const NOT_PLACED_LISTED: usize = 20;

impl Placements {
    /// Place every distinct document of `read` in `corpus`.
    pub fn of(read: &TraceRead, corpus: &Corpus) -> Placements {
        let mut placer = RecordPlacer::new(corpus);
        let mut by_key = HashMap::new();
        for q in &read.queries {
            for d in q.retrieved.iter().chain(q.reranked.iter().flatten()) {
                let key = DocKey::of(d);
                if by_key.contains_key(&key) {
                    continue;
                }
                let placed = place_one(d, corpus, &mut placer);
                by_key.insert(key, placed);
            }
        }
        Placements { by_key }
    }

    /// Where `d` lies, or why it was not placed.
    pub fn get(&self, d: &RetrievedDocument) -> Result<Placed, String> {
        self.by_key
            .get(&DocKey::of(d))
            .cloned()
            .unwrap_or_else(|| Err("not among the documents placed".into()))
    }

    /// Every placed document's span, by document.
    pub fn spans(&self) -> HashMap<DocId, Vec<Span>> {
        let mut out: HashMap<DocId, Vec<Span>> = HashMap::new();
        for p in self.by_key.values().flatten() {
            out.entry(p.doc).or_default().push(p.span);
        }
        out
    }

    /// How many were placed, by how, and the first not placed.
    pub fn counts(&self) -> PlacementCounts {
        let mut c = PlacementCounts {
            distinct: self.by_key.len(),
            ..PlacementCounts::default()
        };
        let mut missing: Vec<(&DocKey, &String)> = Vec::new();
        for (key, placed) in &self.by_key {
            match placed {
                Ok(p) => match p.how {
                    PlacedHow::Metadata => c.by_metadata += 1,
                    PlacedHow::ExactText => c.by_exact_text += 1,
                    PlacedHow::Words => c.by_words += 1,
                    PlacedHow::Fuzzy => c.fuzzy += 1,
                },
                Err(why) => missing.push((key, why)),
            }
        }
        c.not_placed = missing.len();
        missing.sort_by(|a, b| (&a.0.source, &a.0.content).cmp(&(&b.0.source, &b.0.content)));
        c.not_placed_examples = missing
            .into_iter()
            .take(NOT_PLACED_LISTED)
            .map(|(key, why)| NotPlaced {
                source: key.source.clone(),
                starts: key.content.chars().take(60).collect(),
                why: why.clone(),
            })
            .collect();
        c
    }
}

/// Place one document: metadata, exact text, words, fuzzy.
fn place_one(
    d: &RetrievedDocument,
    corpus: &Corpus,
    placer: &mut RecordPlacer<'_>,
) -> Result<Placed, String> {
    if d.too_long() {
        return Err(format!(
            "its text is {} bytes, over the {}-byte limit on a retrieved document; not placed",
            d.length,
            trace_read::MAX_DOCUMENT_BYTES
        ));
    }
    if d.content.trim().is_empty() {
        return Err("its text is empty".into());
    }
    let mut why_not_metadata = None;
    if source_of(d).is_some() {
        match by_metadata(d, placer) {
            Ok(placed) => return Ok(placed),
            Err(why) => why_not_metadata = Some(why),
        }
    }
    let text = d.content.as_ref();
    let mut exact: Vec<(DocId, Span)> = Vec::new();
    for (i, doc) in corpus.documents.iter().enumerate() {
        for (at, _) in doc.text.match_indices(text).take(2) {
            exact.push((DocId(i as u32), Span::new(at, at + text.len())));
        }
        if exact.len() > 1 {
            break;
        }
    }
    if let [(doc, span)] = exact[..] {
        return Ok(Placed {
            doc,
            span,
            how: PlacedHow::ExactText,
        });
    }
    if exact.len() > 1 {
        return Err(ambiguous(why_not_metadata));
    }
    let mut by_words = Vec::new();
    for (i, doc) in corpus.documents.iter().enumerate() {
        match place_text(doc, text, None) {
            Ok((span, PlacedBy::Words | PlacedBy::Exact)) => by_words.push((DocId(i as u32), span)),
            Err(crate::eval::placement::PlaceFailure::Ambiguous { .. }) => {
                return Err(ambiguous(why_not_metadata));
            }
            Err(_) => {}
        }
    }
    match by_words[..] {
        [(doc, span)] => {
            return Ok(Placed {
                doc,
                span,
                how: PlacedHow::Words,
            });
        }
        [_, _, ..] => return Err(ambiguous(why_not_metadata)),
        [] => {}
    }
    by_fuzzy_match(corpus, text, why_not_metadata)
}

/// Place a document's `text` by fuzzy match, the last resort: the best place when it holds
/// enough of the words and no other place does as well; else why the document is not placed
/// (after `why_not_metadata`, why its metadata did not place it).
fn by_fuzzy_match(
    corpus: &Corpus,
    text: &str,
    why_not_metadata: Option<String>,
) -> Result<Placed, String> {
    let mut fuzzy = Vec::new();
    for (i, doc) in corpus.documents.iter().enumerate() {
        for m in crate::doctor::fuzzy::fuzzy_place(&doc.text, text, 2) {
            fuzzy.push((DocId(i as u32), m));
        }
    }
    fuzzy.sort_by(|a, b| b.1.confidence.total_cmp(&a.1.confidence));
    match fuzzy.as_slice() {
        [(doc, best), rest @ ..]
            if best.confidence >= FUZZY_FLOOR
                && rest.first().is_none_or(|(_, next)| next.confidence < best.confidence) =>
        {
            Ok(Placed {
                doc: *doc,
                span: best.span,
                how: PlacedHow::Fuzzy,
            })
        }
        _ => Err(match why_not_metadata {
            Some(why) => format!("{why}; and its text is not in the corpus, not even closely"),
            None => "its text is not in the corpus, not even closely (is it from another corpus, or another extraction of these files?)".into(),
        }),
    }
}

/// The share of a document's words a fuzzy place must hold.
const FUZZY_FLOOR: f64 = 0.8;

fn ambiguous(why_not_metadata: Option<String>) -> String {
    let base =
        "its text occurs more than once in the corpus, and nothing in its metadata says which";
    match why_not_metadata {
        Some(why) => format!("{base} ({why})"),
        None => base.into(),
    }
}

/// Placed by what its metadata says: the document it names and its offsets, as a splitter's
/// dump is placed (`--cuts`).
fn by_metadata(d: &RetrievedDocument, placer: &mut RecordPlacer<'_>) -> Result<Placed, String> {
    let mut metadata = Map::new();
    for (k, v) in &d.metadata {
        metadata.insert(k.clone(), v.clone());
    }
    let record = serde_json::json!({"page_content": d.content.as_ref(), "metadata": Value::Object(metadata)});
    let cut = crate::cuts::records::read_record(RecordAt::Item(1), record)
        .map_err(|p| format!("its metadata does not place it: {p}"))?;
    let (doc, span) = placer
        .place(&cut)
        .map_err(|p| format!("its metadata does not place it: {p}"))?;
    Ok(Placed {
        doc,
        span,
        how: if cut.start.is_some() {
            PlacedHow::Metadata
        } else {
            PlacedHow::ExactText
        },
    })
}
