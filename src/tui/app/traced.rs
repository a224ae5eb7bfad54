//! A traced query replayed on the explore page (Enter on the traces page): the question asked on
//! the app's cuts at the app's budget, with what the app sent pinned beside seamscope's answer;
//! and a page's measurement that waits for the corpus (`--traces` judges the traces as soon as
//! the vectors are in).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use seamscope::chunk::ChunkerKind;
use seamscope::retrieve::EntryRef;
use seamscope::traces::{TraceRead, TracesSource};

use super::{App, AppSent, Notice, Pinned, PinnedSide};
use crate::tui::action::{Page, Pane, Slider, TracedReplay};

/// The traces the screen was opened with, for the traces page to read.
#[derive(Debug, Clone)]
pub struct TracesGiven {
    /// `--traces` (and `--project`).
    pub source: TracesSource,
    /// `--cuts`: the app's splitter's chunks, replayed on instead of the cuts recovered from
    /// the traces.
    pub cuts: Option<PathBuf>,
    /// The traces as read before the screen opened (to recover the app's cuts), handed to the
    /// page's first judging so a file or a server is read once; `r` reads them again.
    pub first_read: Arc<Mutex<Option<TraceRead>>>,
}

impl TracesGiven {
    /// The traces named by `source` (and `--cuts`), not read yet.
    pub fn new(source: TracesSource, cuts: Option<PathBuf>) -> TracesGiven {
        TracesGiven {
            source,
            cuts,
            first_read: Arc::default(),
        }
    }

    /// Keep `read`, what `source` held a moment ago, for the page's first judging.
    pub fn with_read(self, read: TraceRead) -> TracesGiven {
        *self.first_read.lock().unwrap_or_else(|e| e.into_inner()) = Some(read);
        self
    }

    /// The traces: the read kept from before the screen opened, once, else `source` read now
    /// (`progress` hears the spans read so far from a server).
    pub fn read(
        &self,
        progress: &mut dyn FnMut(usize),
    ) -> Result<TraceRead, seamscope::traces::TracesError> {
        let kept = self
            .first_read
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match kept {
            Some(read) => Ok(read),
            None => self.source.read(progress),
        }
    }
}

impl App {
    /// Ask the traced query on the app's cuts (laying them out again first when the screen
    /// shows another layout) at the app's budget, what the app sent pinned beside the answer.
    pub(super) fn replay_traced(&mut self, replay: TracedReplay) {
        let Some(shown) = &self.shown else {
            self.notice = Some(Notice {
                text: "the corpus is still opening: replay once it is shown".into(),
                error: true,
            });
            return;
        };
        if let Err(e) = seamscope::session::check_question(&replay.verdict.question) {
            self.notice = Some(Notice {
                text: e.to_string(),
                error: true,
            });
            return;
        }
        let mut params = shown.params;
        if replay.relayout {
            if !self.sliders.has_cuts || self.read_only {
                self.notice = Some(Notice {
                    text: "the screen was not opened on the app's cuts: open it with \
                           seamscope <corpus> --traces SOURCE to replay on them"
                        .into(),
                    error: true,
                });
                return;
            }
            self.sliders.chunker = ChunkerKind::Given;
            params = self.sliders.layout();
        }
        let verdict = replay.verdict;
        let question = verdict.question.clone();
        let id = verdict
            .question_id
            .as_deref()
            .map(|id| format!("{} ", seamscope::text::safe_name(id)))
            .unwrap_or_default();
        // Seams gets the app's budget, so both sides fill the same number of places.
        self.sliders.set(Slider::Budget, verdict.budget);
        self.pinned = Some(Pinned {
            label: "your app sent".into(),
            params,
            side: PinnedSide::AppSent(Box::new(AppSent {
                verdict,
                search: replay.search,
            })),
        });
        self.page = Page::Explore;
        self.step = None;
        self.gold = None;
        self.query.clear();
        self.query.insert_str(&question);
        if replay.relayout {
            self.query.remember(&question);
            self.asked = Some(question);
            self.typing = false;
            self.start_layout();
        } else {
            self.run_query();
        }
        if self.is_compact() {
            // One pane at a time: the comparison is what the replay is for.
            self.focus = Pane::Compare;
            self.typing = false;
        }
        self.notice = Some(Notice {
            text: format!(
                "replaying {id}on the app's cuts at its budget ({}): your app sent · with Seams; \
                 P unpins",
                self.sliders.budget
            ),
            error: false,
        });
    }

    /// The pane a new result takes the focus to: the ranking, or on a compact screen (one pane
    /// at a time) the comparison while what a traced app sent is pinned, since comparing is
    /// what the replay is for.
    pub(super) fn result_focus(&self) -> Pane {
        let app_sent = self
            .pinned
            .as_ref()
            .is_some_and(|p| matches!(p.side, PinnedSide::AppSent(_)));
        if app_sent && self.is_compact() {
            Pane::Compare
        } else {
            Pane::Ranking
        }
    }

    /// A traced query answered beside what its app sent: the ranking's cursor on the seam over
    /// the suspect cut and the text on that cut, so the cut that may have made the app miss is
    /// what the explore page shows first.
    pub(super) fn show_suspect(&mut self) {
        let (Some(answer), Some(shown), Some(pinned)) = (&self.answer, &self.shown, &self.pinned)
        else {
            return;
        };
        if !pinned.params.same_chunks(&shown.params) {
            return;
        }
        let Some((left, right)) = pinned.suspect_for(&answer.question) else {
            return;
        };
        let Some(seam) = shown
            .open
            .layout
            .seams
            .iter()
            .find(|s| s.left == left && s.right == right)
            .map(|s| EntryRef::Seam(s.id))
        else {
            return;
        };
        let at = answer.trace.fused.iter().position(|e| e.entry == seam);
        match at {
            Some(i) if self.ranking_list().is_none() => {
                let len = self.list_len(Pane::Ranking);
                let height = self.list_height(Pane::Ranking);
                self.lists.ranking.select(i, len, height);
                self.follow(Pane::Ranking);
            }
            _ => self.with_view(|view, open, geo| view.show(seam, open, geo)),
        }
    }

    /// The corpus is shown with its vectors: start the page measurement that waited for it.
    pub(super) fn start_waiting_work(&mut self) {
        let ready = self
            .shown
            .as_ref()
            .is_some_and(|s| s.open.indexes.dense_ready() && s.coming.is_none());
        if !ready {
            return;
        }
        if let Some((page, work)) = self.waiting_work.take() {
            self.jobs.start_page_work(page, work);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tui_traces_read_before_the_screen_opened_are_judged_once_then_read_again() {
        let missing = std::env::temp_dir().join("seamscope-no-such-traces.jsonl");
        let given = TracesGiven::new(TracesSource::File(missing), None).with_read(TraceRead {
            spans: 7,
            ..TraceRead::default()
        });
        // The first judging takes what was read to recover the cuts: no second read.
        assert_eq!(given.read(&mut |_| {}).expect("the kept read").spans, 7);
        // `r` reads the source itself again: here a file that is not there, which says so.
        let again = given.read(&mut |_| {}).expect_err("the source read again");
        assert!(
            again.to_string().contains("seamscope-no-such-traces"),
            "{again}"
        );
    }
}
