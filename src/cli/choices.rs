//! The command line's spelling of engine choices: `clap` value enums that mirror the engine's
//! own types (which know nothing of argument parsing) and map into them. Each variant's doc
//! comment is the help line `--help` shows for it.

use seamscope::chunk::ChunkerKind;
use seamscope::embed::device::Device;

/// `--chunker`: how documents are cut (the engine's [`ChunkerKind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ChunkerChoice {
    /// Fixed token windows, each cut moved back to a word start (the Seams baseline).
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

impl From<ChunkerChoice> for ChunkerKind {
    fn from(choice: ChunkerChoice) -> ChunkerKind {
        match choice {
            ChunkerChoice::Fixed => ChunkerKind::Fixed,
            ChunkerChoice::Sentence => ChunkerKind::Sentence,
            ChunkerChoice::Recursive => ChunkerKind::Recursive,
            ChunkerChoice::Structure => ChunkerKind::Structure,
            ChunkerChoice::Given => ChunkerKind::Given,
        }
    }
}

/// `--device`: where the model runs (the engine's [`Device`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceChoice {
    /// The GPU when the GPU runtime, a driver and a GPU are all there; otherwise the CPU, with
    /// one line saying why.
    Auto,
    /// The CPU.
    Cpu,
    /// An NVIDIA GPU through ONNX Runtime's CUDA provider: an error when it cannot be used.
    Cuda,
}

impl From<DeviceChoice> for Device {
    fn from(choice: DeviceChoice) -> Device {
        match choice {
            DeviceChoice::Auto => Device::Auto,
            DeviceChoice::Cpu => Device::Cpu,
            DeviceChoice::Cuda => Device::Cuda,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_choice_is_spelled_as_the_engine_spells_its_kind() {
        for choice in ChunkerChoice::value_variants() {
            let name = choice.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(name.as_deref(), Some(ChunkerKind::from(*choice).as_str()));
        }
        for choice in DeviceChoice::value_variants() {
            let name = choice.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(name.as_deref(), Some(Device::from(*choice).as_str()));
        }
    }
}
