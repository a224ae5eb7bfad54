//! The evaluation page's two other views: the strategy board (every boundary strategy on the
//! corpus's gold questions, with a verdict: `s`) and the evidence-length map (passages drawn at
//! several lengths, no gold needed: `v`). Both run in the background through the engine's
//! `board` and `evidence_map`, the same calls and defaults as `tune --strategies all` and
//! `tune --map`. `a` applies the board row under the cursor: a Seams row through the sliders,
//! any other row as the settings to use in one's own pipeline.

use std::sync::Arc;

use seamscope::board::map::{DEFAULT_PER_BAND, EvidenceMap, MapOptions};
use seamscope::board::{Board, BoardOptions, BoardRow, Constraints, Family, RowSettings};

use super::{App, ListCursor, Notice};
use crate::tui::action::{BoardConstraint, Slider};
use crate::tui::background::{BoardDone, BoardResult, NEEDS_GOLD};
use crate::tui::gold::GoldQuestions;
use crate::tui::jobs::{BoardJob, BoardJobKind};

/// Rows of the evaluation page's board view that are not table rows (the job line, the
/// verdict, the table's heading, the selected row's deployment line and the key hints).
pub const BOARD_CHROME_ROWS: usize = 13;
/// The same on a compact screen, with a verdict of three lines: the heading, the verdict, the
/// table's heading, the selected row's deployment and a short legend.
pub const COMPACT_BOARD_CHROME_ROWS: usize = 9;

/// Which view of the evaluation page is shown (`Tab` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvalView {
    /// The strategy comparison under the sliders (`r`).
    #[default]
    Comparison,
    /// The strategy board with its verdict (`s`).
    Board,
    /// The evidence-length map (`v`).
    Map,
}

impl EvalView {
    /// Views in `Tab` order.
    pub const ALL: [EvalView; 3] = [EvalView::Comparison, EvalView::Board, EvalView::Map];

    /// The view's name in the page's title.
    pub fn label(self) -> &'static str {
        match self {
            EvalView::Comparison => "strategies under one budget",
            EvalView::Board => "strategy board",
            EvalView::Map => "evidence-length map",
        }
    }
}

/// What the board and map views show.
#[derive(Debug)]
pub struct BoardState {
    /// The view shown.
    pub view: EvalView,
    /// The newest strategy board.
    pub board: Option<Arc<Board>>,
    /// The board's rows in screen order (indices into `board.rows`): each family's best row
    /// first (they carry `p_best`), then every other row, best first.
    pub listed: Vec<usize>,
    /// The board's row cursor (over `listed`).
    pub cursor: ListCursor,
    /// The newest evidence-length map.
    pub map: Option<Arc<EvidenceMap>>,
    /// Why the newest board or map could not be made, for the view of its kind.
    pub problem: Option<(BoardJobKind, String)>,
    /// Passages drawn per band of the map (the engine's default; `seamscope screenshots`
    /// draws fewer to stay quick).
    pub map_per_band: usize,
    /// The constraints the board's verdict is judged under (`o`, `V`, `D`), kept for the next
    /// run.
    pub constraints: Constraints,
}

impl Default for BoardState {
    fn default() -> Self {
        BoardState {
            view: EvalView::default(),
            board: None,
            listed: Vec::new(),
            cursor: ListCursor::default(),
            map: None,
            problem: None,
            map_per_band: DEFAULT_PER_BAND,
            constraints: Constraints::default(),
        }
    }
}

impl BoardState {
    /// The board row under the cursor.
    pub fn selected(&self) -> Option<&BoardRow> {
        let board = self.board.as_ref()?;
        let at = *self.listed.get(self.cursor.selected)?;
        board.rows.get(at)
    }

    /// The problem of the newest job of `kind`, if it could not run.
    pub fn problem_for(&self, kind: BoardJobKind) -> Option<&str> {
        self.problem
            .as_ref()
            .filter(|(k, _)| *k == kind)
            .map(|(_, why)| why.as_str())
    }
}

/// What `V` steps through: no limit, then at most 2× and 1.5× the vectors of the chunks.
const MAX_VECTOR_PRESETS: [Option<f64>; 3] = [None, Some(2.0), Some(1.5)];
/// What `D` steps through: no limit, then nothing, 5% and 10% of the context sent twice.
const DUPLICATE_PRESETS: [Option<f64>; 4] = [None, Some(0.0), Some(0.05), Some(0.10)];

/// The preset after `now` (back to the first after the last, or from a value not listed).
fn next_preset(now: Option<f64>, presets: &[Option<f64>]) -> Option<f64> {
    let at = presets.iter().position(|p| *p == now);
    at.map_or(presets[0], |i| presets[(i + 1) % presets.len()])
}

/// The rows of `board` in screen order: each family's best row first (board order), then the
/// rest, best first.
pub fn listed_rows(board: &Board) -> Vec<usize> {
    let mut order: Vec<usize> = Family::ALL
        .iter()
        .filter_map(|f| board.rows.iter().position(|r| r.family == *f))
        .collect();
    order.sort_unstable();
    let best = order.clone();
    order.extend((0..board.rows.len()).filter(|i| !best.contains(i)));
    order
}

impl App {
    /// Rows of board table the evaluation page shows at the current size.
    pub fn board_table_height(&self) -> usize {
        self.areas().map_or(10, |a| {
            // A compact screen's board has less around its table (the drawing keeps the
            // cursor's row shown whatever the verdict's length).
            let (height, chrome) = if self.is_compact() {
                (a.main.height, COMPACT_BOARD_CHROME_ROWS)
            } else {
                (a.documents.union(a.compare).height, BOARD_CHROME_ROWS)
            };
            usize::from(height).saturating_sub(2 + chrome).max(3)
        })
    }

    /// Start the strategy board on the corpus's gold questions (a running board job is
    /// superseded); without gold questions, say so and point at the map.
    pub(super) fn run_board(&mut self) {
        self.board.view = EvalView::Board;
        let Some(shown) = &self.shown else {
            self.notice = Some(Notice {
                text: "the corpus is still opening: run the board once it is shown".into(),
                error: true,
            });
            return;
        };
        let problem = match shown.questions.as_ref() {
            GoldQuestions::Loaded(q) if !q.is_empty() => None,
            GoldQuestions::Bad(why) => Some(format!(
                "questions.jsonl cannot be used ({}); v draws the evidence-length map, which \
                 needs no gold questions",
                seamscope::text::safe(why)
            )),
            _ => Some(NEEDS_GOLD.to_string()),
        };
        if let Some(why) = problem {
            self.board.problem = Some((BoardJobKind::Strategies, why.clone()));
            self.notice = Some(Notice {
                text: why,
                error: true,
            });
            return;
        }
        self.board.problem = None;
        self.jobs.start_board(
            BoardJob::Strategies(BoardOptions {
                constraints: self.board.constraints,
                ..BoardOptions::default()
            }),
            self.sliders.budget,
        );
    }

    /// Start the evidence-length map at the shown seams' `k` (a running board job is
    /// superseded).
    pub(super) fn run_map(&mut self) {
        self.board.view = EvalView::Map;
        if self.shown.is_none() {
            self.notice = Some(Notice {
                text: "the corpus is still opening: draw the map once it is shown".into(),
                error: true,
            });
            return;
        }
        let options = MapOptions {
            per_band: self.board.map_per_band,
            ..MapOptions::default()
        };
        self.board.problem = None;
        self.jobs
            .start_board(BoardJob::Map(options), self.sliders.budget);
    }

    /// A board job ended: keep its board or map if it answers the newest request.
    pub(super) fn board_done(&mut self, done: BoardDone) {
        let Some(kind) = self
            .jobs
            .board
            .in_flight()
            .filter(|j| j.generation == done.generation)
            .map(|j| j.what)
        else {
            return;
        };
        self.jobs.board.finish(done.generation);
        match done.result {
            Ok(BoardResult::Board(board)) => {
                self.board.listed = listed_rows(&board);
                self.board.board = Some(board);
                self.board.cursor = ListCursor::default();
                self.board.problem = None;
            }
            Ok(BoardResult::Map(map)) => {
                self.board.map = Some(map);
                self.board.problem = None;
            }
            Err(why) => self.board.problem = Some((kind, why)),
        }
    }

    /// Show the next or previous view of the evaluation page.
    pub(super) fn cycle_eval_view(&mut self, step: i32) {
        let all = EvalView::ALL;
        let at = all.iter().position(|v| *v == self.board.view).unwrap_or(0) as i32;
        let next = (at + step).rem_euclid(all.len() as i32) as usize;
        self.board.view = all[next];
        self.scroll = 0;
    }

    /// Move the board's row cursor.
    pub(super) fn board_move(&mut self, delta: i32) {
        let len = self.board.listed.len();
        let height = self.board_table_height();
        self.board.cursor.move_by(delta, len, height);
    }

    /// Change one constraint and judge the shown board again under them (its rows stay; the
    /// verdict and which rows are left out change).
    pub(super) fn cycle_constraint(&mut self, which: BoardConstraint) {
        let c = &mut self.board.constraints;
        match which {
            BoardConstraint::Once => c.once = !c.once,
            BoardConstraint::MaxVectors => {
                c.max_vectors = next_preset(c.max_vectors, &MAX_VECTOR_PRESETS);
            }
            BoardConstraint::MaxDuplicateShare => {
                c.max_duplicate_share = next_preset(c.max_duplicate_share, &DUPLICATE_PRESETS);
            }
        }
        let constraints = *c;
        let words = constraints
            .describe()
            .unwrap_or_else(|| "none: every row is judged".to_string());
        let Some(shown) = self.board.board.as_mut() else {
            self.notice = Some(Notice {
                text: format!("constraints: {words} (they apply when s runs the board)"),
                error: false,
            });
            return;
        };
        let board = Arc::make_mut(shown);
        seamscope::board::constrain(board, constraints);
        let judged = board.rows.iter().filter(|r| r.excluded.is_none()).count();
        self.notice = Some(Notice {
            text: format!(
                "constraints: {words}: the verdict judges {judged} of {} rows",
                board.rows.len()
            ),
            error: false,
        });
    }

    /// Apply the board row under the cursor: a Seams row's `k`, `m` and side drop go to the
    /// sliders (the same path as moving them: `m` replans at once, a new `k` rebuilds the
    /// seams in the background); any other row's deployment settings go to the status line.
    pub(super) fn apply_board_row(&mut self) {
        if self.board.view != EvalView::Board {
            self.notice = Some(Notice {
                text: "a applies the strategy board's row under the cursor: Tab shows the board"
                    .into(),
                error: true,
            });
            return;
        }
        let Some(row) = self.board.selected().cloned() else {
            self.notice = Some(Notice {
                text: "no board row to apply: press s to run the strategy board".into(),
                error: true,
            });
            return;
        };
        let label = seamscope::text::safe(&row.label);
        let chunk_tokens = self.board.board.as_ref().map_or(0, |b| b.chunk_tokens);
        let RowSettings::Seams { k, m, side_drop } = row.settings else {
            self.notice = Some(Notice {
                text: format!(
                    "to deploy {label} in your own pipeline: {}",
                    row.settings.deploy_hint(chunk_tokens)
                ),
                error: false,
            });
            return;
        };
        let k_before = self.sliders.k;
        self.set_slider(Slider::K, k);
        let k_refused = self.sliders.k != k;
        self.set_slider(Slider::M, m as usize);
        self.set_side_drop(side_drop);
        let side = side_drop.map_or_else(|| "off".to_string(), |t| format!("{t:.2}"));
        let mut text = format!("applied {label}: k = {k}, m = {m}, side drop {side}");
        if k_refused {
            text.push_str(&format!(
                " — but k stays {} (a bundle is read-only)",
                self.sliders.k
            ));
        } else if k != k_before {
            text.push_str(" (the seams are rebuilt for the new k in the background)");
        }
        self.notice = Some(Notice { text, error: false });
    }

    /// Side drop on at threshold `t`, or off: the `d` key's path when it has to switch, else
    /// the new threshold replans.
    fn set_side_drop(&mut self, want: Option<f32>) {
        if let Some(t) = want {
            self.side_drop_threshold = t;
        }
        if self.base_query.side_drop.is_some() != want.is_some() {
            self.toggle_side_drop();
        } else if want.is_some() && self.base_query.side_drop != want {
            self.base_query.side_drop = want;
            self.replan();
        }
    }
}
