//! Repeated text: near-duplicate chunks, from the chunk vectors, and boilerplate, the same
//! run of words in many documents, from word shingles.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use unicode_segmentation::UnicodeSegmentation;

use super::{Example, Finding, FindingKind, Location, excerpt, ratio};
use crate::corpus::{Corpus, DocId, Span};
use crate::session::{EngineError, OpenCorpus};

/// Cosine at or above which two chunks are near-duplicates. all-MiniLM-L6-v2 gives the same
/// text 1.0, and a copy with a few words changed stays above 0.98; on the sample corpus, whose 13
/// documents share one fictional company and its vocabulary, the closest two distinct chunks
/// reach 0.923 at 1,024 tokens (measured when this was chosen; every report's method line
/// gives its corpus' closest pair).
pub const DEFAULT_DUPLICATE_COSINE: f64 = 0.95;
/// Words per shingle: runs this long repeated across documents are boilerplate, shorter ones
/// (a phrase, a name) are vocabulary.
pub const SHINGLE_WORDS: usize = 8;
/// Fewest documents a shingle must appear in to be boilerplate.
pub const MIN_DOCUMENTS: usize = 3;
/// And the least share of the corpus' documents it must appear in.
pub const MIN_DOCUMENT_SHARE: f64 = 0.10;

/// Chunks whose vector lies within `threshold` cosine of another chunk's.
pub fn near_duplicates(open: &OpenCorpus, threshold: f64) -> Result<Finding, EngineError> {
    let (corpus, layout) = (&open.corpus, &open.layout);
    let n = layout.chunks.len();
    let method = |nearest: Option<f64>| {
        format!(
            "two chunks whose vectors have cosine ≥ {threshold:.2} (each chunk's 3 nearest neighbours searched); the closest pair of distinct chunks has cosine {}; worst: the highest cosine",
            nearest.map_or("-".to_string(), |c| format!("{c:.3}"))
        )
    };
    if !open.indexes.dense_ready() || n < 2 {
        return Ok(Finding::new(
            FindingKind::NearDuplicate,
            n,
            "chunks",
            method(None),
            Vec::new(),
        ));
    }
    let vectors = open.indexes.chunk_vectors.vectors(0..n as u32)?;
    let mut pairs: Vec<(u32, u32, f64)> = Vec::new();
    let mut nearest: Option<f64> = None;
    for (i, v) in vectors.iter().enumerate() {
        let hits = open
            .indexes
            .chunk_vectors
            .search(v, 4, open.indexes.search_mode)?;
        for (j, cos) in hits.into_iter().filter(|(j, _)| *j as usize != i) {
            let cos = f64::from(cos);
            nearest = Some(nearest.map_or(cos, |b: f64| b.max(cos)));
            if cos >= threshold {
                let (a, b) = (i.min(j as usize) as u32, i.max(j as usize) as u32);
                if !pairs.iter().any(|p| (p.0, p.1) == (a, b)) {
                    pairs.push((a, b, cos));
                }
            }
        }
    }
    let chunk = |id: u32| &layout.chunks[id as usize];
    let label = |id: u32| {
        let c = chunk(id);
        format!("chunk {id} ({})", c.stable_key(&corpus.doc(c.doc).path))
    };
    let case = |a: u32, b: u32, cos: f64| {
        let c = chunk(a);
        Example {
            location: Location::of(corpus, c.doc, c.span, None),
            detail: format!("{} and {}: cosine {cos:.3}", label(a), label(b)),
            excerpt: excerpt(corpus, c.doc, c.span),
            severity: cos,
        }
    };
    let mut involved: HashMap<u32, (u32, f64)> = HashMap::new();
    for &(a, b, cos) in &pairs {
        for (x, y) in [(a, b), (b, a)] {
            let e = involved.entry(x).or_insert((y, cos));
            if cos > e.1 {
                *e = (y, cos);
            }
        }
    }
    let mut ids: Vec<u32> = involved.keys().copied().collect();
    ids.sort_unstable();
    let cases = ids
        .iter()
        .map(|&x| case(x, involved[&x].0, involved[&x].1))
        .collect();
    let mut finding = Finding::new(
        FindingKind::NearDuplicate,
        n,
        "chunks",
        method(nearest),
        cases,
    );
    let pair_cases: Vec<Example> = pairs.iter().map(|&(a, b, c)| case(a, b, c)).collect();
    finding.examples = super::worst(pair_cases);
    Ok(finding)
}

/// One word of a document: where it is and its lowercased text.
struct Word {
    span: Span,
    text: String,
}

fn words(text: &str) -> Vec<Word> {
    text.unicode_word_indices()
        .map(|(at, w)| Word {
            span: Span::new(at, at + w.len()),
            text: w.to_lowercase(),
        })
        .collect()
}

fn shingle_hash(words: &[Word]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for w in words {
        w.text.hash(&mut h);
    }
    h.finish()
}

/// Per shingle (run of [`SHINGLE_WORDS`] words), the number of documents it occurs in.
fn documents_per_shingle(doc_words: &[Vec<Word>]) -> HashMap<u64, usize> {
    let mut seen_in: HashMap<u64, usize> = HashMap::new();
    for ws in doc_words {
        let distinct: HashSet<u64> = ws.windows(SHINGLE_WORDS).map(shingle_hash).collect();
        for h in distinct {
            *seen_in.entry(h).or_default() += 1;
        }
    }
    seen_in
}

/// Each document's runs of shingles seen in at least `need` documents, merged into spans, with
/// their words as the key that finds the same text elsewhere.
fn repeated_runs(
    corpus: &Corpus,
    doc_words: &[Vec<Word>],
    seen_in: &HashMap<u64, usize>,
    need: usize,
) -> Vec<(DocId, Span, String)> {
    let mut occurrences: Vec<(DocId, Span, String)> = Vec::new();
    for (d, ws) in doc_words.iter().enumerate() {
        let mut covered = vec![false; ws.len()];
        for (i, window) in ws.windows(SHINGLE_WORDS).enumerate() {
            if seen_in.get(&shingle_hash(window)).copied().unwrap_or(0) >= need {
                covered[i..i + SHINGLE_WORDS]
                    .iter_mut()
                    .for_each(|c| *c = true);
            }
        }
        let mut i = 0;
        while i < ws.len() {
            if !covered[i] {
                i += 1;
                continue;
            }
            let from = i;
            while i < ws.len() && covered[i] {
                i += 1;
            }
            let key: Vec<&str> = ws[from..i].iter().map(|w| w.text.as_str()).collect();
            occurrences.push((
                corpus.documents[d].id,
                Span::new(ws[from].span.start, ws[i - 1].span.end),
                key.join(" "),
            ));
        }
    }
    occurrences
}

/// Runs of at least [`SHINGLE_WORDS`] words that occur in at least [`MIN_DOCUMENTS`] documents
/// and [`MIN_DOCUMENT_SHARE`] of them.
pub fn boilerplate(corpus: &Corpus) -> Finding {
    let docs = corpus.documents.len();
    let need = MIN_DOCUMENTS.max((docs as f64 * MIN_DOCUMENT_SHARE).ceil() as usize);
    let doc_words: Vec<Vec<Word>> = corpus.documents.iter().map(|d| words(&d.text)).collect();
    let seen_in = documents_per_shingle(&doc_words);
    let occurrences = repeated_runs(corpus, &doc_words, &seen_in, need);
    let mut passages: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (_, _, key)) in occurrences.iter().enumerate() {
        passages.entry(key.as_str()).or_default().push(i);
    }
    let case = |i: usize, detail: String, severity: f64| {
        let (doc, span, _) = &occurrences[i];
        Example {
            location: Location::of(corpus, *doc, *span, None),
            detail,
            excerpt: excerpt(corpus, *doc, *span),
            severity,
        }
    };
    let cases: Vec<Example> = (0..occurrences.len())
        .map(|i| {
            let key = occurrences[i].2.as_str();
            let n = passages[key].len();
            case(
                i,
                format!(
                    "repeated text of {} words, in {n} places",
                    key.split(' ').count()
                ),
                n as f64,
            )
        })
        .collect();
    let carrying: HashSet<DocId> = occurrences.iter().map(|(d, _, _)| *d).collect();
    let mut finding = Finding::new(
        FindingKind::Boilerplate,
        docs,
        "documents",
        format!(
            "runs of {SHINGLE_WORDS}+ words (lowercased) found in at least {need} documents (3 or more, and at least {:.0}% of them); counted: documents carrying such text; worst: the most places × words",
            MIN_DOCUMENT_SHARE * 100.0
        ),
        cases,
    );
    finding.count = carrying.len();
    finding.share = ratio(carrying.len(), docs);
    let mut by_passage: Vec<Example> = passages
        .values()
        .map(|at| {
            let words = occurrences[at[0]].2.split(' ').count();
            let docs: HashSet<DocId> = at.iter().map(|&i| occurrences[i].0).collect();
            case(
                at[0],
                format!(
                    "{words} words repeated in {} documents ({} places); first here",
                    docs.len(),
                    at.len()
                ),
                (at.len() * words) as f64,
            )
        })
        .collect();
    by_passage.sort_by_key(|a| a.location.start);
    finding.examples = super::worst(by_passage);
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_footer_in_every_file_is_boilerplate_and_a_shared_phrase_is_not() {
        let footer = "Confidential: property of Example Corp, do not forward this page outside.";
        let texts: Vec<(String, String)> = (0..4)
            .map(|i| {
                (
                    format!("d{i}.md"),
                    format!("Document {i} talks about topic {i} and the shared phrase number {i}.\n\n{footer}\n"),
                )
            })
            .collect();
        let corpus = Corpus::from_texts(texts.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let f = boilerplate(&corpus);
        assert_eq!((f.count, f.of), (4, 4), "{f:?}");
        assert_eq!(f.examples.len(), 1);
        assert!(
            f.examples[0]
                .detail
                .starts_with("11 words repeated in 4 documents"),
            "{}",
            f.examples[0].detail
        );
        let at = texts[0].1.find("Confidential").unwrap();
        assert_eq!(f.locations[0].start, at);
    }
}
