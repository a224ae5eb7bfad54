//! The doctor: what is wrong with a corpus' cuts before anyone asks a question (DESIGN.md §12),
//! and whether a gold question file says what it claims ([`gold`]).
//!
//! [`diagnose`] gathers the meters that need no gold into one report of [`Finding`]s: cuts inside
//! sentences, fenced blocks, tables and list items, atoms split (seed 001), orphaned chunks
//! (seed 004), near-duplicate chunks and boilerplate, hub chunks and hub seams (in the budget for
//! a large share of sampled questions), seams whose window lost its `k`, a cuts file's uncovered
//! and duplicated text, and the share of evidence of each length a cut splits. Each finding has a
//! count out of a population, a share, its worst examples with positions, and one line on why it
//! matters; [`score`] turns the shares into one number from 0 to 100 with its formula.
//!
//! Everything is computed from the open corpus: its layout, its chunk vectors, and offline
//! questions run through the engine. Nothing here prints.

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, DocId, Span};
use crate::retrieve::QuerySettings;
use crate::session::{Engine, EngineError, OpenCorpus};

pub mod cuts;
pub mod evidence;
pub mod fuzzy;
pub mod gold;
pub mod hubs;
pub mod orphans;
pub mod repeats;
pub mod score;

pub use score::{Regression, Score, compare_reports};

/// Examples kept per finding (the worst first).
pub const EXAMPLES: usize = 3;
/// Locations listed per finding in the report (the count is always exact).
pub const MAX_LOCATIONS: usize = 500;
/// Characters of corpus text an example quotes.
pub const EXCERPT_CHARS: usize = 80;

/// Which finding a [`Finding`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// A cut falls inside a sentence.
    CutInSentence,
    /// A cut falls inside a fenced code block.
    CutInFence,
    /// A cut falls inside a table, below its header row.
    CutInTable,
    /// A cut falls inside a list item.
    CutInListItem,
    /// An atom (fenced block, table, table row, figure sentence) no chunk holds whole.
    AtomSplit,
    /// A chunk holding none of the content words of its heading path or document title.
    OrphanedChunk,
    /// A chunk whose vector is nearly the same as another chunk's.
    NearDuplicate,
    /// The same text in many documents.
    Boilerplate,
    /// A chunk in the budget of many sampled questions whose evidence it does not hold.
    HubChunk,
    /// A seam that fires and fills the budget for many sampled questions whose evidence its
    /// chunks do not hold.
    HubSeam,
    /// A seam whose window holds fewer than `k` tokens on a side.
    SeamLostK,
    /// Text of a document that no given chunk holds.
    UncoveredText,
    /// Text that two given chunks both hold.
    DuplicatedText,
    /// Evidence passages a cut splits.
    EvidenceSplit,
}

impl FindingKind {
    /// Every finding, in report order.
    pub const ALL: [FindingKind; 14] = [
        FindingKind::CutInSentence,
        FindingKind::CutInFence,
        FindingKind::CutInTable,
        FindingKind::CutInListItem,
        FindingKind::AtomSplit,
        FindingKind::OrphanedChunk,
        FindingKind::NearDuplicate,
        FindingKind::Boilerplate,
        FindingKind::HubChunk,
        FindingKind::HubSeam,
        FindingKind::SeamLostK,
        FindingKind::UncoveredText,
        FindingKind::DuplicatedText,
        FindingKind::EvidenceSplit,
    ];

    /// The finding's name in reports.
    pub fn label(self) -> &'static str {
        match self {
            FindingKind::CutInSentence => "cuts inside a sentence",
            FindingKind::CutInFence => "cuts inside a fenced block",
            FindingKind::CutInTable => "cuts inside a table",
            FindingKind::CutInListItem => "cuts inside a list item",
            FindingKind::AtomSplit => "atoms split",
            FindingKind::OrphanedChunk => "orphaned chunks",
            FindingKind::NearDuplicate => "near-duplicate chunks",
            FindingKind::Boilerplate => "boilerplate",
            FindingKind::HubChunk => "hub chunks",
            FindingKind::HubSeam => "hub seams",
            FindingKind::SeamLostK => "seams that lost k",
            FindingKind::UncoveredText => "uncovered text",
            FindingKind::DuplicatedText => "duplicated text",
            FindingKind::EvidenceSplit => "evidence split by a cut",
        }
    }

    /// Why the finding matters, in one line.
    pub fn why(self) -> &'static str {
        match self {
            FindingKind::CutInSentence => {
                "a sentence cut in two is in neither chunk whole: a question about it finds half of it"
            }
            FindingKind::CutInFence => {
                "half a code block is not a smaller block: it is a fragment no reader can run or quote"
            }
            FindingKind::CutInTable => {
                "rows below the cut arrive without the header that names their columns"
            }
            FindingKind::CutInListItem => {
                "a step or clause cut in two loses its condition or its action"
            }
            FindingKind::AtomSplit => {
                "a block, table, row or figure sentence that no chunk holds whole can never be returned whole"
            }
            FindingKind::OrphanedChunk => {
                "a chunk that names neither its document nor its section cannot be found by a question that names them"
            }
            FindingKind::NearDuplicate => {
                "copies compete for the same budget slots and push other evidence out"
            }
            FindingKind::Boilerplate => {
                "text repeated across documents matches every question about it and says nothing new"
            }
            FindingKind::HubChunk => {
                "a chunk that lands in most budgets crowds out the chunks that hold the answers"
            }
            FindingKind::HubSeam => {
                "a seam that fires for most questions spends two budget slots on the same chunks every time"
            }
            FindingKind::SeamLostK => {
                "fewer than k tokens on a side: the seam no longer covers evidence that reaches that far past the cut"
            }
            FindingKind::UncoveredText => "text no chunk holds can never be retrieved",
            FindingKind::DuplicatedText => "text two chunks hold is embedded and sent twice",
            FindingKind::EvidenceSplit => {
                "evidence a cut splits is never in one chunk: chunks-only retrieval must find both halves"
            }
        }
    }
}

/// Where an example lies in the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The document's path in the corpus.
    pub doc: String,
    /// Byte span of what the finding is about (the sentence, block, chunk or passage).
    pub start: usize,
    /// End of that span, exclusive.
    pub end: usize,
    /// The 1-based line of `start`.
    pub line: usize,
    /// The byte the finding points at inside the span (the cut), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<usize>,
    /// The 1-based line of `at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_line: Option<usize>,
}

impl Location {
    /// The location of `span` in `doc`, pointing at `at` when given.
    pub fn of(corpus: &Corpus, doc: DocId, span: Span, at: Option<usize>) -> Location {
        let d = corpus.doc(doc);
        Location {
            doc: d.path.clone(),
            start: span.start,
            end: span.end,
            line: line_of(&d.text, span.start),
            at,
            at_line: at.map(|a| line_of(&d.text, a)),
        }
    }
}

/// One of the worst cases of a finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// Where it is.
    pub location: Location,
    /// What is wrong there, with its figures.
    pub detail: String,
    /// The start of the text there (raw corpus text: a front end makes it safe to show).
    pub excerpt: String,
    /// How bad it is: examples are ordered by this, largest first.
    pub severity: f64,
}

/// One finding of the doctor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Which finding.
    pub kind: FindingKind,
    /// Its name.
    pub label: String,
    /// Cases found.
    pub count: usize,
    /// Out of how many (cuts, atoms, chunks, seams, documents, questions, passages or bytes).
    pub of: usize,
    /// What `count` and `of` count.
    pub unit: String,
    /// `count / of` (0 when `of` is 0), or the finding's own share where it says so.
    pub share: f64,
    /// Whether the finding applies to this layout (the cuts file's findings only with `--cuts`).
    pub applies: bool,
    /// Why it matters, in one line.
    pub why: String,
    /// How it was measured, with its thresholds.
    pub method: String,
    /// The worst cases, worst first (at most [`EXAMPLES`]).
    pub examples: Vec<Example>,
    /// Every case's location (at most [`MAX_LOCATIONS`]), in corpus order.
    pub locations: Vec<Location>,
}

impl Finding {
    /// A finding of `kind` from its cases (each a location, detail, excerpt and severity).
    pub fn new(
        kind: FindingKind,
        of: usize,
        unit: &str,
        method: String,
        cases: Vec<Example>,
    ) -> Self {
        let count = cases.len();
        let mut locations: Vec<Location> = cases.iter().map(|c| c.location.clone()).collect();
        locations.sort_by(|a, b| (&a.doc, a.start, a.at).cmp(&(&b.doc, b.start, b.at)));
        locations.truncate(MAX_LOCATIONS);
        Finding {
            kind,
            label: kind.label().to_string(),
            count,
            of,
            unit: unit.to_string(),
            share: ratio(count, of),
            applies: true,
            why: kind.why().to_string(),
            method,
            examples: worst(cases),
            locations,
        }
    }

    /// A finding that does not apply to this layout (share 0, left out of the score).
    pub fn not_applicable(kind: FindingKind, why: &str) -> Self {
        Finding {
            applies: false,
            method: why.to_string(),
            ..Finding::new(kind, 0, "", String::new(), Vec::new())
        }
    }
}

/// `num / den`, 0 when `den` is 0.
pub fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// The [`EXAMPLES`] most severe cases, worst first (ties in corpus order).
fn worst(mut cases: Vec<Example>) -> Vec<Example> {
    cases.sort_by(|a, b| {
        b.severity
            .total_cmp(&a.severity)
            .then_with(|| a.location.doc.cmp(&b.location.doc))
            .then(a.location.start.cmp(&b.location.start))
    });
    cases.truncate(EXAMPLES);
    cases
}

/// The 1-based line holding byte `at` of `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    1 + text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The first [`EXCERPT_CHARS`] characters of `span` in `doc`, whitespace runs as one space.
pub fn excerpt(corpus: &Corpus, doc: DocId, span: Span) -> String {
    let text = corpus.doc(doc).slice(span);
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() >= EXCERPT_CHARS {
            break;
        }
    }
    if out.chars().count() > EXCERPT_CHARS {
        out = out.chars().take(EXCERPT_CHARS).collect();
        out.push('…');
    }
    out
}

/// What the doctor measures, and with what thresholds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoctorOptions {
    /// Offline questions drawn for the hub findings (0 skips them).
    pub questions: usize,
    /// Seed of every draw.
    pub seed: u64,
    /// Cosine at or above which two chunks are near-duplicates.
    pub duplicate_cosine: f64,
    /// Share of sampled questions above which a chunk or seam is a hub (it is also required to
    /// be at least [`hubs::FAIR_SHARE_FACTOR`] times its fair share, budget ÷ chunks).
    pub hub_share: f64,
    /// Passages drawn per evidence length.
    pub passages: usize,
    /// The evidence lengths measured, in tokens.
    pub lengths: Vec<usize>,
}

impl Default for DoctorOptions {
    fn default() -> Self {
        DoctorOptions {
            questions: hubs::DEFAULT_QUESTIONS,
            seed: 0,
            duplicate_cosine: repeats::DEFAULT_DUPLICATE_COSINE,
            hub_share: hubs::DEFAULT_HUB_SHARE,
            passages: evidence::DEFAULT_PASSAGES,
            lengths: evidence::DEFAULT_LENGTHS.to_vec(),
        }
    }
}

/// The layout a report describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoctorLayout {
    /// The corpus folder or file.
    pub corpus: String,
    /// Documents.
    pub documents: usize,
    /// Tokens over all documents.
    pub tokens: usize,
    /// The chunker's name.
    pub chunker: String,
    /// Chunks.
    pub chunks: usize,
    /// Seams.
    pub seams: usize,
    /// Seam half-width.
    pub k: usize,
    /// Budget, in chunks, the hub questions were asked at.
    pub budget: usize,
    /// The embedder's identity.
    pub embedder: String,
}

/// The whole diagnosis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoctorReport {
    /// What was diagnosed.
    pub layout: DoctorLayout,
    /// The options measured with.
    pub options: DoctorOptions,
    /// Every finding, in [`FindingKind::ALL`] order.
    pub findings: Vec<Finding>,
    /// The evidence-length table (the paper's L ÷ C beside the measured share).
    pub evidence: evidence::EvidenceRisk,
    /// The score and its formula.
    pub score: Score,
    /// Seconds the diagnosis took (the corpus already open).
    pub seconds: f64,
}

impl DoctorReport {
    /// The finding of `kind`.
    pub fn finding(&self, kind: FindingKind) -> Option<&Finding> {
        self.findings.iter().find(|f| f.kind == kind)
    }
}

/// How far a diagnosis has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoctorProgress {
    /// Reading the layout's cuts, atoms, headings and repeated text.
    Layout,
    /// Asking sampled question `done` of `total`.
    Asking {
        /// Questions asked.
        done: usize,
        /// Questions to ask.
        total: usize,
    },
}

/// Diagnose an open corpus, its sampled questions asked under `settings` (the caller's: the
/// engine's, or a screen's sliders, passed by value so nothing is swapped into the engine);
/// `progress` returning false stops the diagnosis early (`Ok(None)`).
pub fn diagnose(
    engine: &mut Engine,
    open: &OpenCorpus,
    settings: &QuerySettings,
    options: &DoctorOptions,
    progress: &mut dyn FnMut(DoctorProgress) -> bool,
) -> Result<Option<DoctorReport>, EngineError> {
    let started = std::time::Instant::now();
    if !progress(DoctorProgress::Layout) {
        return Ok(None);
    }
    let (corpus, layout) = (&open.corpus, &open.layout);
    let mut findings = cuts::cut_findings(corpus, layout);
    findings.push(cuts::atoms_split(corpus, layout));
    findings.push(orphans::orphaned_chunks(corpus, layout));
    findings.push(repeats::near_duplicates(open, options.duplicate_cosine)?);
    findings.push(repeats::boilerplate(corpus));
    let Some([chunk_hubs, seam_hubs]) = hubs::hubs(engine, open, settings, options, progress)?
    else {
        return Ok(None);
    };
    findings.push(chunk_hubs);
    findings.push(seam_hubs);
    findings.push(cuts::seams_lost_k(corpus, layout));
    findings.extend(cuts::given_findings(corpus, layout));
    let (risk, evidence_finding) = evidence::measured_finding(corpus, layout, options);
    findings.push(evidence_finding);
    findings.sort_by_key(|f| FindingKind::ALL.iter().position(|k| *k == f.kind));
    let score = Score::of(&findings);
    Ok(Some(DoctorReport {
        layout: DoctorLayout {
            corpus: corpus.root.display().to_string(),
            documents: corpus.documents.len(),
            tokens: layout.total_tokens(),
            chunker: layout.chunker_label(),
            chunks: layout.chunks.len(),
            seams: layout.seams.len(),
            k: layout.k,
            budget: settings.budget,
            embedder: engine.embedder.identity().to_string(),
        },
        options: options.clone(),
        findings,
        evidence: risk,
        score,
        seconds: started.elapsed().as_secs_f64(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 4), 3);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
