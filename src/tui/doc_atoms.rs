//! Atoms in the document view: the fenced blocks, tables, table rows and figure sentences of
//! every Markdown document (found once: the text does not change when the chunks do), and which
//! of them a cut splits, so the view can say so on the cut's line and mark the atom's text.

use seamscope::chunk::atoms::{Atom, AtomClass, find_atoms};
use seamscope::corpus::{Corpus, DocId, Span};

/// The atoms of every document, by document index (none for documents that are not Markdown).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocAtoms {
    per_doc: Vec<Vec<Atom>>,
}

impl DocAtoms {
    /// Find the atoms of every document of `corpus`; `progress(done, total)` returns whether to
    /// go on (the documents not reached get none).
    #[cfg(test)]
    pub fn find(corpus: &Corpus, progress: &mut dyn FnMut(usize, usize) -> bool) -> DocAtoms {
        DocAtoms::extend(None, corpus, progress)
    }

    /// The atoms of `corpus`, keeping those `done` already holds for its first documents and
    /// finding only the rest.
    pub fn extend(
        done: Option<&DocAtoms>,
        corpus: &Corpus,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> DocAtoms {
        let total = corpus.documents.len();
        let mut per_doc = Vec::with_capacity(total);
        if let Some(done) = done {
            per_doc.extend(done.per_doc.iter().take(total).cloned());
        }
        for doc in &corpus.documents[per_doc.len()..] {
            per_doc.push(find_atoms(doc));
            if !progress(per_doc.len(), total) {
                break;
            }
        }
        DocAtoms { per_doc }
    }

    /// Documents whose atoms were found (the first ones of the corpus).
    pub fn documents(&self) -> usize {
        self.per_doc.len()
    }

    /// The atoms of one document, ordered by start.
    pub fn doc(&self, doc: DocId) -> &[Atom] {
        self.per_doc.get(doc.0 as usize).map_or(&[], Vec::as_slice)
    }
}

/// The classes of the atoms a cut at byte `cut` splits (starts before it and ends after it),
/// outermost first, each once.
pub fn split_classes(atoms: &[Atom], cut: usize) -> Vec<AtomClass> {
    let mut classes: Vec<AtomClass> = atoms
        .iter()
        .take_while(|a| a.span.start < cut)
        .filter(|a| cut < a.span.end)
        .map(|a| a.class)
        .collect();
    classes.sort();
    classes.dedup();
    classes
}

/// What a cut does to the atoms it splits, in words: `splits a table and a table row`.
pub fn split_note(classes: &[AtomClass]) -> Option<String> {
    let names: Vec<String> = classes.iter().map(|c| format!("a {}", c.label())).collect();
    match names.as_slice() {
        [] => None,
        [one] => Some(format!("splits {one}")),
        [init @ .., last] => Some(format!("splits {} and {last}", init.join(", "))),
    }
}

/// The spans of the atoms that any of `cuts` (byte offsets, ascending) splits.
pub fn split_spans(atoms: &[Atom], cuts: &[usize]) -> Vec<Span> {
    atoms
        .iter()
        .filter(|a| {
            let first = cuts.partition_point(|&c| c <= a.span.start);
            cuts.get(first).is_some_and(|&c| c < a.span.end)
        })
        .map(|a| a.span)
        .collect()
}

#[cfg(test)]
mod tests {
    use seamscope::chunk::atoms::markdown_atoms;

    use super::*;

    const DOC: &str = "Intro line.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n| 3 | 4 |\n\nEnd.\n";

    #[test]
    fn a_cut_inside_a_row_splits_the_row_and_its_table() {
        let atoms = markdown_atoms(DOC);
        let row = DOC.find("| 1 |").unwrap_or(0);
        assert_eq!(
            split_classes(&atoms, row + 3),
            [AtomClass::Table, AtomClass::Row]
        );
        assert_eq!(
            split_note(&split_classes(&atoms, row + 3)).as_deref(),
            Some("splits a table and a table row")
        );
        // Between two rows: the table is split, no row is.
        let next = DOC.find("| 3 |").unwrap_or(0);
        assert_eq!(split_classes(&atoms, next), [AtomClass::Table]);
        assert_eq!(split_classes(&atoms, 3), []);
        assert_eq!(split_note(&[]), None);
    }

    #[test]
    fn split_spans_are_the_atoms_a_cut_falls_inside() {
        let atoms = markdown_atoms(DOC);
        let table = DOC.find("| a |").unwrap_or(0);
        let row = DOC.find("| 1 |").unwrap_or(0);
        let spans = split_spans(&atoms, &[table, row + 2]);
        assert_eq!(
            spans.len(),
            2,
            "the table and its first body row: {spans:?}"
        );
        assert!(spans.iter().all(|s| s.start < row + 2 && row + 2 < s.end));
        assert!(
            split_spans(&atoms, &[table]).is_empty(),
            "a cut at an atom's start splits nothing"
        );
    }
}
