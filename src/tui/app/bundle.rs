//! A bundle on screen (`seamscope --bundle DIR`): exactly what was deployed, so its chunks, seams
//! and vectors stay as they are. `m` and the budget still replan (they are the bundle's starting
//! values, not part of its layout); `k`, the chunk size, the chunker, heading prefixes and reload
//! are refused with a notice and the sliders put back.

use super::{App, Notice};

impl App {
    /// Show the corpus as a read-only bundle: the header says so and layout changes are refused.
    pub fn set_read_only(&mut self, read_only: bool) {
        self.read_only = read_only;
        if read_only && !self.corpus_name.ends_with("(bundle, read-only)") {
            self.corpus_name = format!("{} (bundle, read-only)", self.corpus_name);
        }
    }

    /// When the corpus is a bundle, put the layout sliders back to the bundle's and say why;
    /// returns whether the change was refused.
    pub(super) fn refuse_layout_change(&mut self) -> bool {
        if !self.read_only {
            return false;
        }
        if let Some(shown) = &self.shown {
            let p = shown.params;
            self.sliders.k = p.k;
            self.sliders.chunk_tokens = p.chunk_tokens;
            self.sliders.chunker = p.chunker;
            self.sliders.heading_prefix = p.heading_prefix;
        }
        self.notice = Some(Notice {
            text: "a bundle is read-only: its chunks, seams and vectors are what was deployed \
                   (m and the budget still replan; export again to change the layout)"
                .to_string(),
            error: true,
        });
        true
    }
}
