//! The explore page (`1`): one question at a time through every stage. Its own panes (documents,
//! text, ranking, fire test, budget fill, the comparison; [`crate::tui::action::Pane`]) take the
//! focus in turn; their drawing is in `views/` (one file each), their rectangles in `screen.rs`.
//! On a compact screen one of them shows at a time, with a strip naming the others.

mod documents;
mod fire;
mod loading;
mod pinned;
mod ranking;
mod results;
mod step;
mod text;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Pane, PaneCard};
use crate::tui::action::{Action, Pane as Part};
use crate::tui::app::App;
use crate::tui::screen::Areas;

/// The explore page.
pub struct Explore;

/// What the help and the status line say of the explore page.
static CARD: PaneCard = PaneCard {
    name: "explore",
    key: '1',
    about: "explore",
    help: &[
        (
            "Move (explore page)",
            &[
                ("Tab / Shift-Tab", "next / previous pane"),
                ("↑ ↓ PgUp PgDn", "move in a list, scroll the text"),
                ("Home / End", "first / last row"),
                ("n / p", "next / previous chunk"),
                ("] / [", "next / previous cut (its seam)"),
                ("Enter (docs)", "read the document"),
            ],
        ),
        (
            "Presenter and demo",
            &[
                ("s", "presenter mode: one step at a time"),
                ("→ Space / ←", "next / previous step (Esc leaves)"),
                ("l", "pick a gold question: evidence, ✓/✗"),
                ("P", "pin; change settings to compare"),
                ("z", "zoom the pane (z or Esc: back)"),
                ("e / w / y", "save trace / save view / copy context"),
            ],
        ),
    ],
    hints: &[
        ("/", "query"),
        ("?", "help"),
        ("q", "quit"),
        ("s", "present"),
        ("l", "questions"),
        ("P", "pin"),
        ("z", "zoom"),
        ("Tab", "pane"),
        ("n/p", "chunk"),
        ("]/[", "cut"),
    ],
};

impl Pane for Explore {
    fn card(&self) -> &'static PaneCard {
        &CARD
    }

    fn hints(&self, app: &App) -> &'static [(&'static str, &'static str)] {
        if app.step.is_some() {
            return &[
                ("→/Space", "next step"),
                ("←", "back"),
                ("Esc", "leave presenter mode"),
                ("z", "zoom"),
                ("?", "help"),
                ("q", "quit"),
                ("m/M", "margin"),
                ("b/B", "budget"),
            ];
        }
        CARD.hints
    }

    fn handle_key(&self, app: &App, key: &KeyEvent) -> Option<Action> {
        if app.step.is_some() {
            // Presenter mode's keys; the rest fall through to the pane keys below.
            let step = match key.code {
                KeyCode::Right | KeyCode::Char(' ') => Some(Action::StepForward),
                KeyCode::Left | KeyCode::Backspace => Some(Action::StepBack),
                KeyCode::Esc | KeyCode::Char('s') => Some(Action::ToggleStepMode),
                _ => None,
            };
            if step.is_some() {
                return step;
            }
        }
        let page = app.list_height(app.focus).max(2) as i32 - 1;
        Some(match key.code {
            KeyCode::Enter if app.focus == Part::Query => Action::StartTyping,
            KeyCode::Enter if app.focus == Part::Documents => Action::Focus(Part::Text),
            KeyCode::Tab => Action::FocusNext,
            KeyCode::BackTab => Action::FocusPrev,
            KeyCode::Up => Action::MoveSelection(-1),
            KeyCode::Down => Action::MoveSelection(1),
            KeyCode::PageUp => Action::MoveSelection(-page),
            KeyCode::PageDown => Action::MoveSelection(page),
            KeyCode::Home => Action::SelectEdge(false),
            KeyCode::End => Action::SelectEdge(true),
            KeyCode::Char('n') => Action::NextChunk,
            KeyCode::Char('p') => Action::PrevChunk,
            KeyCode::Char(']') => Action::NextCut,
            KeyCode::Char('[') => Action::PrevCut,
            KeyCode::Char('s') => Action::ToggleStepMode,
            KeyCode::Char('z') => Action::ToggleZoom,
            KeyCode::Esc if app.zoom.is_some() => Action::ToggleZoom,
            _ => return None,
        })
    }

    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas) {
        draw_explore(app, frame, areas);
    }
}

/// The explore page: its panes (one on a compact screen, with the strip naming the others), the
/// presenter banner, or the opening progress before the corpus is shown.
fn draw_explore(app: &App, frame: &mut Frame, areas: &Areas) {
    let areas = *areas;
    let Some(shown) = &app.shown else {
        loading::draw(app, frame, areas.main);
        return;
    };
    documents::draw(app, shown, frame, &areas);
    text::draw(app, shown, frame, &areas);
    ranking::draw(app, shown, frame, &areas);
    if areas.is_shown(Part::Fire) {
        fire::draw(app, shown, frame, &areas);
    }
    if areas.is_shown(Part::Budget) {
        results::draw_budget(app, shown, frame, &areas);
    }
    match &app.pinned {
        Some(pinned) if app.arrange().pinned => pinned::draw(app, shown, pinned, frame, &areas),
        _ => results::draw_compare(app, shown, frame, &areas),
    }
    if let Some(rect) = areas.step {
        step::draw(app, shown, frame, rect);
    }
    if let Some(rect) = areas.strip {
        draw_strip(app, &areas, frame, rect);
    }
}

/// A compact screen's strip: every pane of the explore page by name, the one shown marked, and
/// the keys that move between them.
fn draw_strip(app: &App, areas: &Areas, frame: &mut Frame, rect: Rect) {
    let t = &app.theme;
    let mut spans = vec![
        Span::styled(" Tab ", t.key),
        Span::styled("panes: ", t.muted),
    ];
    for (i, pane) in Part::ORDER.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", t.muted));
        }
        let shown = pane != Part::Query && areas.is_shown(pane);
        let style = if shown {
            t.border_focused
        } else if app.focus == pane {
            t.title
        } else {
            t.muted
        };
        let name = pane.label();
        spans.push(Span::styled(
            if shown {
                format!("▸{name}")
            } else {
                name.to_string()
            },
            style,
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), rect);
}
