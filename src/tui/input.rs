//! Keys and mouse events become actions. Which action depends on the mode (help open, typing,
//! step mode), on the page shown and, for the mouse, on what is drawn under the pointer.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Position;

use super::action::{Action, Page, Pane, Slider};
use super::app::App;
use super::panes::{PagePane, page_for_key, scroll_page};
use super::widgets::slider::{SliderHit, hit};

/// Rows one wheel notch scrolls.
const WHEEL_ROWS: i32 = 3;

/// The action for a terminal event, if it means anything here.
pub fn action_for(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => key_action(app, key),
        Event::Mouse(mouse) => mouse_action(app, mouse),
        Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
        // Back from the editor: the files may have changed.
        Event::FocusGained => Some(Action::CheckCorpus),
        // A paste is text for the query box, never keys: a pasted `q` must not quit.
        Event::Paste(text) if app.help.is_none() && app.areas().is_some() => {
            Some(Action::Paste(text.clone()))
        }
        _ => None,
    }
}

fn key_action(app: &App, key: &KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    // Raw mode keeps the terminal from sending SIGTSTP itself: Ctrl-Z suspends, as in a shell.
    if ctrl && key.code == KeyCode::Char('z') {
        return Some(Action::Suspend);
    }
    if app.help.is_some() {
        return match key.code {
            KeyCode::Char('?' | 'q') | KeyCode::Esc | KeyCode::Enter => Some(Action::ToggleHelp),
            KeyCode::Up => Some(Action::ScrollHelp(-1)),
            KeyCode::Down => Some(Action::ScrollHelp(1)),
            KeyCode::PageUp => Some(Action::ScrollHelp(-10)),
            KeyCode::PageDown | KeyCode::Char(' ') => Some(Action::ScrollHelp(10)),
            KeyCode::Home => Some(Action::ScrollHelp(-1000)),
            _ => None,
        };
    }
    if app.areas().is_none() {
        return match key.code {
            KeyCode::Char('q') => Some(Action::Quit),
            _ => None,
        };
    }
    if app.picker.is_some() {
        return picker_action(key);
    }
    if app.typing {
        return typing_action(key, ctrl);
    }
    // The page shown first, then the keys every page shares.
    if let Some(action) = app.page.pane().handle_key(app, key) {
        return Some(action);
    }
    everywhere_action(key)
}

/// Keys that mean the same on every page: quit, help, typing, pages, sliders, chunking, theme.
fn everywhere_action(key: &KeyEvent) -> Option<Action> {
    Some(match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('/' | 'i') => Action::StartTyping,
        KeyCode::Char(c) if page_for_key(c).is_some() => Action::ShowPage(page_for_key(c)?),
        KeyCode::Char('m') => Action::AdjustSlider(Slider::M, -1),
        KeyCode::Char('M') => Action::AdjustSlider(Slider::M, 1),
        KeyCode::Char('b') => Action::AdjustSlider(Slider::Budget, -1),
        KeyCode::Char('B') => Action::AdjustSlider(Slider::Budget, 1),
        KeyCode::Char('k') => Action::AdjustSlider(Slider::K, -1),
        KeyCode::Char('K') => Action::AdjustSlider(Slider::K, 1),
        KeyCode::Char('c') => Action::AdjustSlider(Slider::ChunkTokens, -1),
        KeyCode::Char('C') => Action::AdjustSlider(Slider::ChunkTokens, 1),
        KeyCode::Char('x') => Action::CycleChunker(1),
        KeyCode::Char('X') => Action::CycleChunker(-1),
        KeyCode::Char('h') => Action::ToggleHeadingPrefix,
        KeyCode::Char('t') => Action::CycleTheme,
        KeyCode::Char('d') => Action::ToggleSideDrop,
        KeyCode::Char('l') => Action::OpenPicker,
        KeyCode::Char('P') => Action::TogglePin,
        KeyCode::Char('e') => Action::SaveTrace,
        KeyCode::Char('w') => Action::SaveView,
        KeyCode::Char('y') => Action::CopyContext,
        KeyCode::Char('R') => Action::Reload,
        _ => return None,
    })
}

fn picker_action(key: &KeyEvent) -> Option<Action> {
    Some(match key.code {
        KeyCode::Up => Action::PickerMove(-1),
        KeyCode::Down => Action::PickerMove(1),
        KeyCode::PageUp => Action::PickerMove(-10),
        KeyCode::PageDown => Action::PickerMove(10),
        KeyCode::Home => Action::PickerEdge(false),
        KeyCode::End => Action::PickerEdge(true),
        KeyCode::Enter => Action::PickQuestion,
        KeyCode::Esc | KeyCode::Char('l' | 'q') => Action::ClosePicker,
        _ => return None,
    })
}

fn typing_action(key: &KeyEvent, ctrl: bool) -> Option<Action> {
    Some(match key.code {
        KeyCode::Enter => Action::RunQuery,
        KeyCode::Esc => Action::StopTyping,
        KeyCode::Tab => Action::FocusNext,
        KeyCode::BackTab => Action::FocusPrev,
        KeyCode::Backspace => Action::DeleteBack,
        KeyCode::Delete => Action::DeleteForward,
        KeyCode::Up => Action::RecallQuery(-1),
        KeyCode::Down => Action::RecallQuery(1),
        KeyCode::Left => Action::MoveQueryCursor(-1),
        KeyCode::Right => Action::MoveQueryCursor(1),
        KeyCode::Home => Action::QueryCursorEdge(false),
        KeyCode::End => Action::QueryCursorEdge(true),
        KeyCode::Char('u') if ctrl => Action::ClearQuery,
        KeyCode::Char(c) if !ctrl => Action::InsertChar(c),
        _ => return None,
    })
}

fn mouse_action(app: &App, mouse: &MouseEvent) -> Option<Action> {
    let at = Position::new(mouse.column, mouse.row);
    let areas = app.areas()?;
    if app.help.is_some() {
        return match mouse.kind {
            MouseEventKind::ScrollUp => Some(Action::ScrollHelp(-WHEEL_ROWS)),
            MouseEventKind::ScrollDown => Some(Action::ScrollHelp(WHEEL_ROWS)),
            MouseEventKind::Down(_) => Some(Action::ToggleHelp),
            _ => None,
        };
    }
    if app.picker.is_some() {
        return match mouse.kind {
            MouseEventKind::ScrollUp => Some(Action::PickerMove(-1)),
            MouseEventKind::ScrollDown => Some(Action::PickerMove(1)),
            _ => None,
        };
    }
    if let Some(slider) = areas.slider_at(at) {
        return match mouse.kind {
            MouseEventKind::ScrollUp => Some(Action::AdjustSlider(slider, 1)),
            MouseEventKind::ScrollDown => Some(Action::AdjustSlider(slider, -1)),
            MouseEventKind::Down(MouseButton::Left) => {
                match hit(slider, areas.slider(slider), mouse.column)? {
                    SliderHit::Down => Some(Action::AdjustSlider(slider, -1)),
                    SliderHit::Up => Some(Action::AdjustSlider(slider, 1)),
                    SliderHit::Track(along) => {
                        Some(Action::SetSlider(slider, slider.spec().value_at(along)))
                    }
                }
            }
            _ => None,
        };
    }
    // The other pages scroll where a compact screen draws them taller than the screen.
    if app.page != Page::Explore {
        return match mouse.kind {
            MouseEventKind::ScrollUp => Some(scroll_page(app, -WHEEL_ROWS)),
            MouseEventKind::ScrollDown => Some(scroll_page(app, WHEEL_ROWS)),
            _ => None,
        };
    }
    let pane = areas.pane_at(at)?;
    match mouse.kind {
        MouseEventKind::ScrollUp => Some(Action::Scroll(pane, -WHEEL_ROWS)),
        MouseEventKind::ScrollDown => Some(Action::Scroll(pane, WHEEL_ROWS)),
        MouseEventKind::Down(MouseButton::Left) => {
            let body = areas.body(pane);
            if pane == Pane::Query {
                Some(Action::StartTyping)
            } else if body.contains(at) {
                Some(Action::ClickRow(pane, at.y - body.y))
            } else {
                Some(Action::Focus(pane))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyEventState, MouseEvent};

    use super::*;
    use crate::tui::action::{CalibrationAction, EvalAction};
    use crate::tui::fixture::Fixture;
    use crate::tui::widgets::slider::parts;

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        })
    }

    fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Event {
        Event::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    }

    #[test]
    fn tui_keys_depend_on_the_mode() {
        let mut f = Fixture::answered();
        let app = &mut f.app;
        // Ctrl-Z suspends in every mode (z alone zooms); the event loop takes the flag.
        let ctrl_z = Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
        assert!(matches!(action_for(app, &ctrl_z), Some(Action::Suspend)));
        app.update(Action::StartTyping);
        assert!(matches!(action_for(app, &ctrl_z), Some(Action::Suspend)));
        app.update(Action::StopTyping);
        app.update(Action::Suspend);
        assert!(std::mem::take(&mut app.suspend) && !app.quit);
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('M'))),
            Some(Action::AdjustSlider(Slider::M, 1))
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('s'))),
            Some(Action::ToggleStepMode)
        ));
        app.update(Action::StartTyping);
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('M'))),
            Some(Action::InsertChar('M'))
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Enter)),
            Some(Action::RunQuery)
        ));
        app.update(Action::StopTyping);
        app.update(Action::ToggleStepMode);
        assert!(matches!(
            action_for(app, &key(KeyCode::Right)),
            Some(Action::StepForward)
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('q'))),
            Some(Action::Quit)
        ));
        app.update(Action::ToggleHelp);
        assert!(action_for(app, &key(KeyCode::Char('x'))).is_none());
        assert!(matches!(
            action_for(app, &key(KeyCode::Esc)),
            Some(Action::ToggleHelp)
        ));
        app.update(Action::Resize(59, 20));
        app.update(Action::ToggleHelp);
        assert!(
            action_for(app, &key(KeyCode::Char('M'))).is_none(),
            "too small: only quit works"
        );
    }

    #[test]
    fn tui_a_paste_is_typed_text_never_commands() {
        let mut f = Fixture::answered();
        let paste = Event::Paste("q\nwhy stale reads?\n".into());
        let Some(action) = action_for(&f.app, &paste) else {
            panic!("a paste is an action");
        };
        assert!(matches!(action, Action::Paste(_)));
        f.app.update(Action::ClearQuery);
        f.app.update(Action::ShowPage(Page::Evaluation));
        f.app.update(action);
        assert!(!f.app.quit, "a pasted q does not quit");
        assert!(f.app.typing && f.app.page == Page::Explore);
        assert_eq!(f.app.query.text, "q why stale reads? ");
        assert!(
            f.requests.try_recv().is_err(),
            "a pasted newline runs nothing"
        );
        f.app.update(Action::ToggleHelp);
        assert!(action_for(&f.app, &paste).is_none(), "not under the help");
    }

    #[test]
    fn tui_each_page_has_its_keys_and_shares_the_sliders() {
        let mut f = Fixture::answered();
        let app = &mut f.app;
        app.update(Action::ShowPage(Page::Calibration));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('a'))),
            Some(Action::Calibration(CalibrationAction::ApplyRecommended))
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('M'))),
            Some(Action::AdjustSlider(Slider::M, 1))
        ));
        assert!(
            action_for(app, &key(KeyCode::Char('n'))).is_none(),
            "explore keys wait for the explore page"
        );
        app.update(Action::ShowPage(Page::Evaluation));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('r'))),
            Some(Action::Evaluation(EvalAction::RunComparison))
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Esc)),
            Some(Action::CancelJob)
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('x'))),
            Some(Action::CycleChunker(1))
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('1'))),
            Some(Action::ShowPage(Page::Explore))
        ));
        assert!(matches!(
            action_for(app, &key(KeyCode::Char('/'))),
            Some(Action::StartTyping)
        ));
    }

    #[test]
    fn tui_the_mouse_selects_rows_scrolls_and_moves_sliders() {
        let mut f = Fixture::answered();
        let Some(areas) = f.app.areas() else {
            panic!("200x60 fits");
        };
        let body = areas.body(Pane::Ranking);
        let click = mouse(
            MouseEventKind::Down(MouseButton::Left),
            body.x + 3,
            body.y + 2,
        );
        let Some(action) = action_for(&f.app, &click) else {
            panic!("a click on a ranking row is an action");
        };
        assert!(matches!(action, Action::ClickRow(Pane::Ranking, 2)));
        f.app.update(action);
        assert_eq!(f.app.lists.ranking.selected, 2);
        let third = f.app.answer.as_ref().map(|a| a.trace.fused[2].entry);
        assert_eq!(f.app.view.cursor, third, "the text shows the entry clicked");

        let text = areas.body(Pane::Text);
        let wheel = mouse(MouseEventKind::ScrollDown, text.x + 1, text.y + 1);
        assert!(matches!(
            action_for(&f.app, &wheel),
            Some(Action::Scroll(Pane::Text, 3))
        ));

        let k = areas.slider(Slider::K);
        let p = parts(Slider::K, k);
        let up = mouse(MouseEventKind::ScrollUp, k.x + 1, k.y);
        assert!(matches!(
            action_for(&f.app, &up),
            Some(Action::AdjustSlider(Slider::K, 1))
        ));
        let plus = mouse(MouseEventKind::Down(MouseButton::Left), p.inc, k.y);
        assert!(matches!(
            action_for(&f.app, &plus),
            Some(Action::AdjustSlider(Slider::K, 1))
        ));
        let start = mouse(MouseEventKind::Down(MouseButton::Left), p.track, k.y);
        let min = Slider::K.spec().min;
        assert!(
            matches!(action_for(&f.app, &start), Some(Action::SetSlider(Slider::K, v)) if v == min)
        );
    }
}
