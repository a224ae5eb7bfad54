//! The diagnose page (`4`): the doctor's findings on the layout shown, before any question
//! (`seamscope doctor` on the screen). `r` diagnoses in the background; the arrows move over
//! the worst examples of each finding and Enter shows one in the text, on the explore page.
//! Built on the pane model alone: this file and its view, and the page's entry in the list.

mod view;

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use seamscope::doctor::{DoctorOptions, DoctorProgress, DoctorReport, Example, diagnose};
use seamscope::retrieve::QuerySettings;
use seamscope::session::{Engine, OpenCorpus};

use super::{PageOutput, PageWork, Pane, PaneCard, list_key};
use crate::tui::action::{Action, Page};
use crate::tui::app::App;
use crate::tui::screen::Areas;

/// The diagnose page.
pub struct Diagnose;

/// The doctor with its default options on the corpus shown, its sampled questions asked at the
/// screen's budget and margin (the sliders', not the settings file's).
#[derive(Debug)]
struct DoctorWork {
    options: DoctorOptions,
    budget: usize,
    m: seamscope::settings::Margin,
}

impl PageWork for DoctorWork {
    fn run(
        &self,
        engine: &mut Engine,
        open: &OpenCorpus,
        progress: &mut dyn FnMut(&str, usize, usize) -> bool,
    ) -> Result<Option<PageOutput>, String> {
        let settings = QuerySettings {
            budget: self.budget,
            m: self.m,
            ..engine.settings.query_settings()
        };
        let report = diagnose(engine, open, &settings, &self.options, &mut |p| match p {
            DoctorProgress::Layout => progress("reading the cuts", 0, 0),
            DoctorProgress::Asking { done, total } => {
                progress("asking sampled questions", done, total)
            }
        });
        Ok(report.map_err(|e| e.to_string())?.map(PageOutput::from))
    }
}

/// The report the page shows, if the doctor has run.
fn report(app: &App) -> Option<&DoctorReport> {
    app.page_result(Page::Diagnose)
}

/// The examples the cursor moves over, in the page's order: each finding that applies and found
/// something, its worst examples first.
fn examples(report: &DoctorReport) -> Vec<(usize, &Example)> {
    report
        .findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.applies)
        .flat_map(|(i, f)| f.examples.iter().map(move |e| (i, e)))
        .collect()
}

/// Where Enter goes: the example under the cursor, in the corpus shown.
fn go_to(app: &App) -> Option<Action> {
    let report = report(app)?;
    let all = examples(report);
    let (_, example) = all.get(app.page_row(Page::Diagnose, all.len()))?;
    let shown = app.shown.as_ref()?;
    let place = &example.location;
    let doc = shown
        .open
        .corpus
        .documents
        .iter()
        .find(|d| d.path == place.doc)?
        .id;
    Some(Action::GoTo {
        doc,
        byte: place.at.unwrap_or(place.start),
    })
}

/// What the help and the status line say of the diagnose page.
static CARD: PaneCard = PaneCard {
    name: "diagnose",
    key: '4',
    about: "diagnose",
    // `r` and Esc run and cancel as on the other measuring pages (their shared group).
    help: &[(
        "Measuring pages",
        &[("↑↓ / Enter", "diagnose: example / show it in the text")],
    )],
    hints: &[
        ("r", "diagnose"),
        ("↑↓", "example"),
        ("Enter", "show in text"),
        ("Esc", "cancel"),
        ("?", "help"),
        ("q", "quit"),
    ],
};

impl Pane for Diagnose {
    fn card(&self) -> &'static PaneCard {
        &CARD
    }

    fn handle_key(&self, app: &App, key: &KeyEvent) -> Option<Action> {
        Some(match key.code {
            KeyCode::Char('r') => Action::RunPageWork(Arc::new(DoctorWork {
                options: DoctorOptions::default(),
                budget: app.sliders.budget,
                m: app.sliders.m,
            })),
            KeyCode::Enter => return go_to(app),
            _ => return list_key(key, || report(app).map_or(0, |r| examples(r).len())),
        })
    }

    fn draw(&self, app: &App, frame: &mut Frame, areas: &Areas) {
        view::draw(app, frame, areas.main);
    }
}

#[cfg(test)]
mod tests;
