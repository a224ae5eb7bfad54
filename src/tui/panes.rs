//! The pages of the screen as components (ratatui's component template, gitui's
//! `src/components/`): each page owns, in one module here, its keys, its drawing, its help and its
//! status-line hints, and [`Page`] is the list of them. `App` keeps what the pages share (the
//! corpus, the answer, the sliders, the jobs) and the router reads the list: `input.rs` asks the
//! page shown for its keys ([`Pane::handle_key`]) before the keys every page shares (sliders,
//! chunking, the page keys themselves, built from [`Pane::key`]); `views.rs` draws the shared
//! parts (header, query box, sliders, status line, overlays) and the page's [`Pane::draw`] in the
//! main area; the help overlay lists every page's [`Pane::help`] and the status line its
//! [`Pane::hints`].
//!
//! A page maps keys to [`Action`]s from `&App` rather than changing itself: `App::update` stays
//! the one place state changes (so scripted actions test a page without a terminal), and drawing
//! reads `&App` and never mutates it.
//!
//! # Adding a page (as the doctor's `4 diagnose` was added)
//!
//! 1. `panes/<page>.rs`: a unit struct implementing [`Pane`]: its [`PaneCard`] (name, key, help
//!    group, hints), its keys and its `draw` (its view code in `panes/<page>/` when it grows). A
//!    page that measures something in the background has a [`PageWork`]: its `r` key sends it in
//!    [`Action::RunPageWork`], the worker runs it on the corpus shown with the engine, and `App`
//!    keeps its result, the page's cursor and its progress
//!    ([`PageState`](crate::tui::app::page_state::PageState)). The result is the page's own
//!    variant of [`PageOutput`] (add one in `page_work.rs`, with its `PageResult`), read back
//!    typed with [`App::page_result`]. Its other keys use the shared page actions
//!    ([`list_key`]: [`Action::PageCursor`] and cancel; [`Action::GoTo`], a place in the text on
//!    the explore page). `App` never asks the pages
//!    anything: what it needs comes in the action, so the pages sit above it.
//! 2. A variant of [`Page`] in `action.rs`, in [`Page::ALL`]; here `mod <page>;` and its arm in
//!    [`PagePane::pane`]. The page key, the status line's page list and the help follow.
//!
//! That is all for a page like the doctor's (four files: two new, two lines changed in each of
//! two). A page whose state outgrows a result and a cursor keeps it in `App` as the older
//! measuring pages do (a field in `app.rs`, its own actions and worker request).
//!
//! The explore page's own panes (documents, text, ranking, fire test, budget fill, comparison)
//! are [`super::action::Pane`]s inside it: the explore page routes keys and the mouse to the
//! focused one and, on a compact screen, shows one at a time.

pub mod calibration;
pub mod diagnose;
pub mod evaluation;
pub mod explore;
pub mod traces;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;

use super::action::{Action, Page};
use super::app::App;
use super::screen::Areas;

pub use super::page_work::{PageOutput, PageWork, TracesPage};

/// The page job's progress as a gauge line (`LABEL: what done/total`), `waiting` until the
/// worker reports; `None` when no page job is in flight. The measuring pages' status line.
pub fn page_job_progress(
    app: &App,
    waiting: &str,
    label: &str,
) -> Option<ratatui::text::Line<'static>> {
    let job = app.jobs.page.in_flight()?;
    let (done, total, what) = job
        .progress
        .as_ref()
        .map_or((0, 0, waiting), |p| (p.done, p.total, p.what.as_str()));
    Some(super::widgets::gauge::progress(
        done,
        total,
        24,
        format!("{label}: {what} {done}/{total}"),
        &app.theme,
    ))
}

/// The keys a page listing rows shares: the arrows and page keys move its cursor over the
/// `rows` it lists (counted only when one is pressed), Esc cancels its job.
pub fn list_key(key: &KeyEvent, rows: impl FnOnce() -> usize) -> Option<Action> {
    let delta = match key.code {
        KeyCode::Up => -1,
        KeyCode::Down => 1,
        KeyCode::PageUp => -10,
        KeyCode::PageDown => 10,
        KeyCode::Esc => return Some(Action::CancelJob),
        _ => return None,
    };
    Some(Action::PageCursor {
        delta,
        rows: rows(),
    })
}

/// One group of the help overlay: its title and its (keys, what they do) rows.
pub type HelpGroup = (&'static str, &'static [(&'static str, &'static str)]);

/// What the help and the status line say of a page, fixed: how it is called and reached, and
/// its keys.
pub struct PaneCard {
    /// Its name on the status line's page list (`explore`).
    pub name: &'static str,
    /// The key that shows it from any page (`1`).
    pub key: char,
    /// What it is for, in the help's list of pages (`calibrate m`).
    pub about: &'static str,
    /// Its groups in the help overlay (a group named like another page's is merged with it).
    pub help: &'static [HelpGroup],
    /// The keys worth showing on the status line (typing aside), as (key, what) pairs.
    pub hints: &'static [(&'static str, &'static str)],
}

/// A page of the screen: what it is called, how it is reached, its keys and its drawing.
pub trait Pane: Sync {
    /// Its name, key, purpose, help and usual hints.
    fn card(&self) -> &'static PaneCard;
    /// Its name on the status line's page list (`explore`).
    fn name(&self) -> &'static str {
        self.card().name
    }
    /// The key that shows it from any page (`1`).
    fn key(&self) -> char {
        self.card().key
    }
    /// What it is for, in the help's list of pages (`calibrate m`).
    fn about(&self) -> &'static str {
        self.card().about
    }
    /// Its groups in the help overlay (a group named like another page's is merged with it).
    fn help(&self) -> &'static [HelpGroup] {
        self.card().help
    }
    /// The keys worth showing on the status line now (typing aside), as (key, what) pairs: the
    /// card's, unless the page's state changes them.
    fn hints(&self, _app: &App) -> &'static [(&'static str, &'static str)] {
        self.card().hints
    }
    /// The action a key means on this page, before the keys every page shares; `None` leaves
    /// the key to them.
    fn handle_key(&self, app: &App, key: &KeyEvent) -> Option<Action>;
    /// Draw the page into the main area (`areas.main`; the explore page uses its panes' areas).
    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas);
    /// Rows of the page below the main area when scrolled to the top, where a compact screen
    /// draws it as one tall column ([`App::scroll`] scrolls it); 0 when it fits.
    fn rows_below(&self, _app: &App) -> u16 {
        0
    }
}

/// The page list's components: `page.pane()` is the page's [`Pane`]. ([`Page`], the list
/// itself, is plain data in `action.rs`, where the actions that show a page name it.)
pub trait PagePane {
    /// The page's component.
    fn pane(self) -> &'static dyn Pane;
    /// The page's name on screen.
    fn label(self) -> &'static str;
}

impl PagePane for Page {
    fn pane(self) -> &'static dyn Pane {
        match self {
            Page::Explore => &explore::Explore,
            Page::Calibration => &calibration::Calibration,
            Page::Evaluation => &evaluation::Evaluation,
            Page::Diagnose => &diagnose::Diagnose,
            Page::Traces => &traces::Traces,
        }
    }

    fn label(self) -> &'static str {
        self.pane().name()
    }
}

/// Scroll the page shown by `rows` (negative: up), within its rows below the screen.
pub fn scroll_page(app: &App, rows: i32) -> Action {
    let limit = i32::from(app.page.pane().rows_below(app));
    Action::ScrollPage((i32::from(app.scroll) + rows).clamp(0, limit) as u16)
}

/// The page a key shows, if it is a page key.
pub fn page_for_key(key: char) -> Option<Page> {
    Page::ALL.into_iter().find(|p| p.pane().key() == key)
}

/// Every page's help groups in page order, groups of the same name merged (rows in page order):
/// the first page's groups, then the other pages'.
pub fn help_groups() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let mut groups: Vec<(&'static str, Vec<(&'static str, &'static str)>)> = Vec::new();
    for page in Page::ALL {
        for (title, rows) in page.pane().help() {
            match groups.iter_mut().find(|(t, _)| t == title) {
                Some((_, kept)) => kept.extend(rows.iter().copied()),
                None => groups.push((title, rows.to_vec())),
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tui_every_page_has_its_own_key_and_name() {
        let keys: std::collections::BTreeSet<char> =
            Page::ALL.iter().map(|p| p.pane().key()).collect();
        assert_eq!(keys.len(), Page::ALL.len());
        for page in Page::ALL {
            assert_eq!(page_for_key(page.pane().key()), Some(page));
            assert!(!page.pane().help().is_empty(), "{page:?} has help");
        }
    }
}
