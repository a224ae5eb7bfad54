//! The evaluation page (`3`): the strategy comparison on the corpus' question set
//! (`evaluation/view.rs`), the strategy board and the evidence-length map
//! (`evaluation/board.rs`).

mod board;
mod compact;
pub(crate) mod view;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;

pub use board::family_points;

use super::{Pane, PaneCard, scroll_page};
use crate::tui::action::{Action, BoardConstraint, EvalAction};
use crate::tui::app::{App, EvalView};
use crate::tui::screen::{Areas, inside};

/// The evaluation page.
pub struct Evaluation;

/// What the help and the status line say of the evaluation page.
static CARD: PaneCard = PaneCard {
    name: "evaluate",
    key: '3',
    about: "evaluate",
    help: &[(
        "Measuring pages",
        &[
            ("s / v", "evaluate: strategy board / length map"),
            ("Tab ↑↓ a", "board: next view / row / apply row"),
            ("o V D", "board: constrain: once / vectors / dup"),
        ],
    )],
    hints: &[
        ("r", "run"),
        ("s", "board"),
        ("v", "map"),
        ("Tab", "view"),
        ("a", "apply row"),
        ("Esc", "cancel"),
        ("?", "help"),
        ("q", "quit"),
        ("m/M", "margin"),
        ("b/B", "budget"),
        ("k/K", "seam k"),
    ],
};

impl Pane for Evaluation {
    fn card(&self) -> &'static PaneCard {
        &CARD
    }

    fn handle_key(&self, app: &App, key: &KeyEvent) -> Option<Action> {
        let board = app.board.view == EvalView::Board;
        // A compact screen draws the comparison and the map as one column, taller than the
        // screen: the arrows scroll them.
        if app.board.view != EvalView::Board && app.is_compact() {
            let rows = match key.code {
                KeyCode::Up => Some(-1),
                KeyCode::Down => Some(1),
                KeyCode::PageUp => Some(-10),
                KeyCode::PageDown => Some(10),
                KeyCode::Home => Some(-1000),
                KeyCode::End => Some(1000),
                _ => None,
            };
            if let Some(rows) = rows {
                return Some(scroll_page(app, rows));
            }
        }
        Some(match key.code {
            KeyCode::Char('o') if board => {
                Action::Evaluation(EvalAction::CycleConstraint(BoardConstraint::Once))
            }
            KeyCode::Char('V') if board => {
                Action::Evaluation(EvalAction::CycleConstraint(BoardConstraint::MaxVectors))
            }
            KeyCode::Char('D') if board => Action::Evaluation(EvalAction::CycleConstraint(
                BoardConstraint::MaxDuplicateShare,
            )),
            KeyCode::Char('r') => Action::Evaluation(EvalAction::RunComparison),
            KeyCode::Char('s') => Action::Evaluation(EvalAction::RunBoard),
            KeyCode::Char('v') => Action::Evaluation(EvalAction::RunMap),
            KeyCode::Char('a') => Action::Evaluation(EvalAction::ApplyBoardRow),
            KeyCode::Tab => Action::Evaluation(EvalAction::CycleView(1)),
            KeyCode::BackTab => Action::Evaluation(EvalAction::CycleView(-1)),
            KeyCode::Up => Action::Evaluation(EvalAction::BoardMove(-1)),
            KeyCode::Down => Action::Evaluation(EvalAction::BoardMove(1)),
            KeyCode::PageUp => Action::Evaluation(EvalAction::BoardMove(-10)),
            KeyCode::PageDown => Action::Evaluation(EvalAction::BoardMove(10)),
            KeyCode::Esc => Action::CancelJob,
            _ => return None,
        })
    }

    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas) {
        view::draw(app, frame, areas.main);
    }

    fn rows_below(&self, app: &App) -> u16 {
        let Some(areas) = app.areas().filter(|_| app.is_compact()) else {
            return 0;
        };
        let inner = inside(areas.main);
        match app.board.view {
            EvalView::Comparison => view::comparison_rows_below(app, inner),
            EvalView::Board => 0,
            EvalView::Map => compact::map_rows_below(app, inner),
        }
    }
}
