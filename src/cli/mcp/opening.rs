//! Opening the corpus on a thread of its own while the server already answers, and the state
//! every tool call waits on: opening (with progress), open, or failed.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use seamscope::corpus::Corpus;
use seamscope::index::{BuildProgress, BuildStage};
use seamscope::session::Engine;

use super::Workbench;
use super::files::AllowedFolders;

/// Index progress as plain lines on stderr (an MCP client logs stderr; it is no terminal): one
/// when a stage starts and one every few seconds within it.
pub(super) struct ProgressLines {
    stage: Option<BuildStage>,
    last: Instant,
}

impl ProgressLines {
    pub(super) fn new() -> Self {
        ProgressLines {
            stage: None,
            last: Instant::now(),
        }
    }

    pub(super) fn update(&mut self, p: BuildProgress) -> bool {
        let new_stage = self.stage != Some(p.stage);
        if new_stage || self.last.elapsed() >= Duration::from_secs(5) {
            errln!(
                "seamscope mcp: {} {}/{}",
                p.stage.describe(),
                p.done,
                p.total
            );
            self.stage = Some(p.stage);
            self.last = Instant::now();
        }
        true
    }
}

/// Where the workbench stands: the corpus opening (with how far it is), open, or failed.
enum BenchState {
    /// Indexing, with the last progress in words.
    Opening {
        /// e.g. `embedding chunks 16256/79433`.
        progress: String,
    },
    /// Open: every call runs on it.
    Ready(Box<Workbench>),
    /// Opening failed; every call says why.
    Failed(String),
}

/// The workbench, shared by the opening thread and the calls.
pub(super) struct Shared {
    state: Mutex<BenchState>,
    /// Signalled when the opening ends.
    changed: Condvar,
}

impl Shared {
    fn set(&self, state: BenchState) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = state;
    }

    /// Run `job` on the workbench once the corpus is open, one call at a time (the lock is held
    /// while it runs), waiting up to `wait` for it, else saying how far opening is; a panic
    /// inside it becomes a tool error, and the server carries on.
    pub(super) fn run_when_open(
        &self,
        wait: Duration,
        job: impl FnOnce(&mut Workbench) -> Result<String, String>,
    ) -> Result<String, String> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (mut state, _) = self
            .changed
            .wait_timeout_while(state, wait, |s| matches!(s, BenchState::Opening { .. }))
            .unwrap_or_else(|p| p.into_inner());
        match &mut *state {
            BenchState::Ready(bench) => std::panic::catch_unwind(AssertUnwindSafe(|| job(bench)))
                .unwrap_or_else(|_| Err("internal error in the engine (see stderr)".to_string())),
            BenchState::Opening { progress } => Err(format!(
                "the corpus is still being opened ({progress}); call again shortly: an indexed corpus opens in seconds, a new one is embedded first (minutes)"
            )),
            BenchState::Failed(message) => Err(message.clone()),
        }
    }
}

/// Index `docs` with `engine` on a new thread; the state the calls wait on, `Opening` until it
/// ends.
pub(super) fn open_in_background(
    mut engine: Engine,
    docs: Corpus,
    corpus_path: PathBuf,
    allowed: AllowedFolders,
) -> Arc<Shared> {
    let shared = Arc::new(Shared {
        state: Mutex::new(BenchState::Opening {
            progress: "cutting the documents into chunks and seams".to_string(),
        }),
        changed: Condvar::new(),
    });
    let opener = Arc::clone(&shared);
    std::thread::spawn(move || {
        let mut lines = ProgressLines::new();
        let opened = engine.open_loaded(docs, &mut |p| {
            lines.update(p);
            opener.set(BenchState::Opening {
                progress: format!("{} {}/{}", p.stage.describe(), p.done, p.total),
            });
            true
        });
        let state = match opened {
            Ok(open) => {
                errln!(
                    "seamscope mcp: {} open ({} documents, {} chunks, {} seams, k = {})",
                    corpus_path.display(),
                    open.corpus.documents.len(),
                    open.layout.chunks.len(),
                    open.layout.seams.len(),
                    open.layout.k
                );
                BenchState::Ready(Box::new(Workbench {
                    engine,
                    open,
                    allowed,
                }))
            }
            Err(e) => {
                let message = format!(
                    "opening {} failed: {e:#}",
                    seamscope::text::safe_name(&corpus_path.display().to_string())
                );
                errln!("seamscope mcp: {message}");
                BenchState::Failed(message)
            }
        };
        opener.set(state);
        opener.changed.notify_all();
    });
    shared
}
