//! The question picker: the corpus' gold questions, one of which is asked with its evidence
//! shaded in the text and judged with and without Seams.

use seamscope::retrieve::EntryRef;

use super::{App, Notice};
use crate::tui::gold::{GoldLine, GoldQuestions, gold_line};

/// Rows the picker's list shows on a screen tall enough (the view draws [`App::picker_rows`]).
pub const PICKER_ROWS: usize = 16;

impl App {
    /// Rows the picker's list shows at the current size: [`PICKER_ROWS`], fewer on a short
    /// screen (its border, the question in full and a margin take ten).
    pub fn picker_rows(&self) -> usize {
        PICKER_ROWS.min(usize::from(self.size.height.saturating_sub(10)).max(3))
    }

    /// The picked gold question's verdict on the current result, when the result is its answer.
    pub fn gold_verdict(&self) -> Option<GoldLine> {
        let (gold, answer, shown) = (
            self.gold.as_ref()?,
            self.answer.as_ref()?,
            self.shown.as_ref()?,
        );
        (answer.question.trim() == gold.question.trim())
            .then(|| gold_line(gold, &answer.trace, &shown.open))
    }

    /// The corpus' question set, once the corpus is shown.
    pub fn gold_questions(&self) -> Option<&GoldQuestions> {
        self.shown.as_ref().map(|s| s.questions.as_ref())
    }

    pub(super) fn open_picker(&mut self) {
        let problem = match self.gold_questions() {
            None => Some("the corpus is still opening: pick a question once it is shown".into()),
            Some(GoldQuestions::Missing) => Some(
                "no questions.jsonl in the corpus folder: the picker lists a gold question set \
                 (see the manual's question file format, docs/src/introduction.md)"
                    .to_string(),
            ),
            Some(GoldQuestions::Bad(why)) => Some(format!("questions.jsonl: {why}")),
            Some(GoldQuestions::Loaded(q)) if q.is_empty() => {
                Some("questions.jsonl holds no questions".into())
            }
            Some(GoldQuestions::Loaded(_)) => None,
        };
        if let Some(text) = problem {
            self.notice = Some(Notice { text, error: true });
            return;
        }
        let len = self.gold_questions().map_or(0, |g| g.list().len());
        let at = self
            .gold
            .as_ref()
            .and_then(|g| {
                let list = self.gold_questions()?.list();
                list.iter().position(|q| q.id == g.id)
            })
            .unwrap_or(0);
        let mut cursor = super::ListCursor::default();
        cursor.select(at, len, self.picker_rows());
        self.picker = Some(cursor);
        self.typing = false;
    }

    pub(super) fn picker_move(&mut self, delta: i32) {
        let len = self.gold_questions().map_or(0, |g| g.list().len());
        let rows = self.picker_rows();
        if let Some(cursor) = &mut self.picker {
            cursor.move_by(delta, len, rows);
        }
    }

    pub(super) fn picker_edge(&mut self, end: bool) {
        let len = self.gold_questions().map_or(0, |g| g.list().len());
        let rows = self.picker_rows();
        if let Some(cursor) = &mut self.picker {
            cursor.select(if end { len.saturating_sub(1) } else { 0 }, len, rows);
        }
    }

    /// Ask the question under the picker's cursor.
    pub(super) fn pick_question(&mut self) {
        let Some(cursor) = self.picker.take() else {
            return;
        };
        let Some(question) = self
            .gold_questions()
            .and_then(|g| g.list().get(cursor.selected))
            .cloned()
        else {
            return;
        };
        self.query.clear();
        self.query.insert_str(&question.question);
        self.gold = Some(question);
        self.page = crate::tui::action::Page::Explore;
        self.run_query();
    }

    /// After a gold question's answer arrives: the text shows the cut that splits its evidence,
    /// or the chunk that holds it.
    pub(super) fn show_gold_evidence(&mut self) {
        let Some(line) = self.gold_verdict() else {
            return;
        };
        let Some(entry) = evidence_entry(&line) else {
            return;
        };
        self.with_view(|v, open, geo| v.show(entry, open, geo));
        self.notice = Some(Notice {
            text: format!(
                "{} · with Seams {} · without {} · {}",
                line.id,
                crate::tui::gold::mark(line.verdict.with_seams),
                crate::tui::gold::mark(line.verdict.without_seams),
                line.short
            ),
            error: false,
        });
    }

    /// The cut (or chunk) that matters for the picked gold question, when there is one.
    pub(super) fn gold_entry(&self) -> Option<EntryRef> {
        let line = self.gold_verdict()?;
        match line.verdict.splitting_seams.first() {
            Some(seam) => Some(EntryRef::Seam(*seam)),
            None => line
                .verdict
                .evidence_chunks
                .first()
                .map(|c| EntryRef::Chunk(*c)),
        }
    }
}

/// The cut that splits a verdict's evidence, else the chunk that holds it.
fn evidence_entry(line: &crate::tui::gold::GoldLine) -> Option<EntryRef> {
    match line.verdict.splitting_seams.first() {
        Some(seam) => Some(EntryRef::Seam(*seam)),
        None => line
            .verdict
            .evidence_chunks
            .first()
            .map(|c| EntryRef::Chunk(*c)),
    }
}
