//! What a user chooses, as plain data: the chunker kind, the device, a document format, the
//! embedder and reranker names ([`model`]) and the vector store ([`store`]). Settings hold these;
//! the stages that act on a choice (the chunkers, the embedders, the extractors) sit above and read them, so settings
//! stay plain data below every stage.

use serde::{Deserialize, Serialize};

pub mod model;
pub mod store;

/// The chunking strategies on offer, wherever a chunker is chosen (CLI `--chunker`, settings, TUI).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkerKind {
    /// Fixed token windows, each cut moved back to a word start (the Seams baseline).
    #[default]
    Fixed,
    /// Whole sentences packed up to the budget.
    Sentence,
    /// Paragraph, then line, then sentence, then word splits, packed up to the budget.
    Recursive,
    /// Fences and tables kept whole while they fit; the gaps packed at sentence boundaries.
    Structure,
    /// The user's own chunks, read from a cuts file (`--cuts FILE`, setting `cuts_file`); they
    /// may overlap and leave gaps. Not in [`ChunkerKind::ALL`]: it needs a file, not a size.
    Given,
}

impl ChunkerKind {
    /// Every built-in kind (all but [`ChunkerKind::Given`]), in report order.
    pub const ALL: [ChunkerKind; 4] = [
        ChunkerKind::Fixed,
        ChunkerKind::Sentence,
        ChunkerKind::Recursive,
        ChunkerKind::Structure,
    ];

    /// The kind's name as typed on the command line and written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkerKind::Fixed => "fixed",
            ChunkerKind::Sentence => "sentence",
            ChunkerKind::Recursive => "recursive",
            ChunkerKind::Structure => "structure",
            ChunkerKind::Given => "given",
        }
    }
}

impl std::fmt::Display for ChunkerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the embedding model runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// The GPU when the GPU runtime, a driver and a GPU are all there; otherwise the CPU, with
    /// one line saying why.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// An NVIDIA GPU through ONNX Runtime's CUDA provider: an error when it cannot be used.
    Cuda,
}

impl Device {
    /// The name as typed on the command line and written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            Device::Auto => "auto",
            Device::Cpu => "cpu",
            Device::Cuda => "cuda",
        }
    }
}

/// A document format seamscope can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// UTF-8 text, Markdown or source code, read as it is.
    Text,
    /// PDF, text in reading order with a page map.
    Pdf,
    /// HTML, the main text with headings as Markdown headings.
    Html,
    /// Word (`.docx`), paragraphs, headings and tables as Markdown.
    Docx,
}

impl Format {
    /// Every format, in the order help texts list them.
    pub const ALL: [Format; 4] = [Format::Text, Format::Pdf, Format::Html, Format::Docx];

    /// The format's name as settings and `--format` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Pdf => "pdf",
            Format::Html => "html",
            Format::Docx => "docx",
        }
    }

    /// The format a name spells, if any.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// The format a file's extension names by default (`None`: read as text).
    pub fn from_extension(ext: &str) -> Option<Format> {
        match ext.to_ascii_lowercase().as_str() {
            "pdf" => Some(Format::Pdf),
            "html" | "htm" | "xhtml" => Some(Format::Html),
            "docx" => Some(Format::Docx),
            _ => None,
        }
    }
}
