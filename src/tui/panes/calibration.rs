//! The calibration page (`2`): calibrating `m` in the background, its report drawn as the
//! failure-vs-m curve and the head-start histograms (`calibration/view.rs`).

mod view;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;

use super::{HelpGroup, Pane};
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::screen::Areas;

/// The calibration page.
pub struct Calibration;

impl Pane for Calibration {
    fn name(&self) -> &'static str {
        "calibrate"
    }

    fn key(&self) -> char {
        '2'
    }

    fn about(&self) -> &'static str {
        "calibrate m"
    }

    fn help(&self) -> &'static [HelpGroup] {
        &[(
            "Calibrate and evaluate pages",
            &[
                ("r / Esc", "run in the background / cancel"),
                ("a", "calibrate: apply the best k and m"),
                ("g", "calibrate: gold set / passages"),
            ],
        )]
    }

    fn hints(&self, _app: &App) -> &'static [(&'static str, &'static str)] {
        &[
            ("r", "run"),
            ("a", "apply k, m"),
            ("g", "gold/passages"),
            ("Esc", "cancel"),
            ("?", "help"),
            ("q", "quit"),
            ("m/M", "margin"),
            ("k/K", "seam k"),
            ("x", "chunker"),
        ]
    }

    fn handle_key(&self, _app: &App, key: &KeyEvent) -> Option<Action> {
        Some(match key.code {
            KeyCode::Char('r') => Action::RunCalibration,
            KeyCode::Char('a') => Action::ApplyRecommendedM,
            KeyCode::Char('g') => Action::ToggleCalibrationQuestions,
            KeyCode::Esc => Action::CancelJob,
            KeyCode::Up => Action::ScrollCalibration(-1),
            KeyCode::Down => Action::ScrollCalibration(1),
            KeyCode::PageUp => Action::ScrollCalibration(-10),
            KeyCode::PageDown => Action::ScrollCalibration(10),
            KeyCode::Home => Action::ScrollCalibration(-1000),
            KeyCode::End => Action::ScrollCalibration(1000),
            _ => return None,
        })
    }

    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas) {
        view::draw(app, frame, areas.main);
    }
}

/// Rows of the page below the screen when it is scrolled to the top: 0 unless a compact screen
/// shows it as one column taller than the main area.
pub fn rows_below(app: &App) -> u16 {
    app.areas()
        .filter(|_| Areas::is_compact(app.size))
        .map_or(0, |areas| view::rows_below(app, areas.main))
}
