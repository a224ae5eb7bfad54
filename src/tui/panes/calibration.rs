//! The calibration page (`2`): calibrating `m` in the background, its report drawn as the
//! failure-vs-m curve and the head-start histograms (`calibration/view.rs`).

mod view;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;

use super::{Pane, PaneCard, scroll_page};
use crate::tui::action::{Action, CalibrationAction};
use crate::tui::app::App;
use crate::tui::screen::Areas;

/// The calibration page.
pub struct Calibration;

/// What the help and the status line say of the calibration page.
static CARD: PaneCard = PaneCard {
    name: "calibrate",
    key: '2',
    about: "calibrate m",
    help: &[(
        "Measuring pages",
        &[
            ("r / Esc", "run in the background / cancel"),
            ("a", "calibrate: apply the best k and m"),
            ("g", "calibrate: gold set / passages"),
        ],
    )],
    hints: &[
        ("r", "run"),
        ("a", "apply k, m"),
        ("g", "gold/passages"),
        ("Esc", "cancel"),
        ("?", "help"),
        ("q", "quit"),
        ("m/M", "margin"),
        ("k/K", "seam k"),
        ("x", "chunker"),
    ],
};

impl Pane for Calibration {
    fn card(&self) -> &'static PaneCard {
        &CARD
    }

    fn handle_key(&self, app: &App, key: &KeyEvent) -> Option<Action> {
        Some(match key.code {
            KeyCode::Char('r') => Action::Calibration(CalibrationAction::Run),
            KeyCode::Char('a') => Action::Calibration(CalibrationAction::ApplyRecommended),
            KeyCode::Char('g') => Action::Calibration(CalibrationAction::ToggleQuestions),
            KeyCode::Esc => Action::CancelJob,
            KeyCode::Up => scroll_page(app, -1),
            KeyCode::Down => scroll_page(app, 1),
            KeyCode::PageUp => scroll_page(app, -10),
            KeyCode::PageDown => scroll_page(app, 10),
            KeyCode::Home => scroll_page(app, -1000),
            KeyCode::End => scroll_page(app, 1000),
            _ => return None,
        })
    }

    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas) {
        view::draw(app, frame, areas.main);
    }

    fn rows_below(&self, app: &App) -> u16 {
        app.areas()
            .filter(|_| app.is_compact())
            .map_or(0, |areas| view::rows_below(app, areas.main))
    }
}
