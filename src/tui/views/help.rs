//! The help overlay: every key, grouped by what it is for, in two columns.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::tui::action::Page;
use crate::tui::app::App;
use crate::tui::chrome::wrap_words;
use crate::tui::panes::PagePane;
use crate::tui::panes::{HelpGroup, help_groups};

/// The keys every page shares, by group; each page's own keys come from its pane
/// ([`crate::tui::panes::Pane::help`]) and the page keys from the page list. The README's key
/// table says the same.
const QUERY: HelpGroup = (
    "Query",
    &[
        ("/  or  i", "type a question"),
        ("Enter", "run it through every stage"),
        ("Esc", "stop typing (the text stays)"),
        ("Ctrl-U", "clear the query box"),
        ("↑ / ↓", "typing: earlier / later question"),
    ],
);

/// Shared groups after the first page's.
const SHARED: &[HelpGroup] = &[
    (
        "Everywhere",
        &[
            ("mouse", "click a pane, row or slider; wheel"),
            ("t", "next theme (dark, light, mono)"),
            ("R", "read the files again (after edits)"),
            ("?", "this help (Esc closes it)"),
            // One row for both, so the help still fits the smallest screen whole.
            ("q  or  Ctrl-C", "quit; Ctrl-Z suspends (fg resumes)"),
        ],
    ),
    ("Pages", &[]),
    (
        "Sliders (every page)",
        &[
            ("m / M", "fire margin m (replans at once)"),
            ("b / B", "budget (replans at once)"),
            ("k / K", "seam half-width ±10 (new seams)"),
            ("c / C", "chunk size ±128 (rebuilds all)"),
        ],
    ),
    (
        "Chunking (every page)",
        &[
            ("x / X", "next / previous chunker"),
            ("h", "heading-path prefixes on / off"),
            ("d", "side drop on / off"),
        ],
    ),
];

/// One group of keys as the overlay lists it.
pub type Group = (&'static str, Vec<(String, String)>);

/// Every group of keys, in the order drawn: the query box, the first page's groups (the left
/// column), the shared ones with the page keys, then the other pages' groups.
pub fn groups() -> Vec<Group> {
    let owned = |rows: &[(&str, &str)]| -> Vec<(String, String)> {
        rows.iter()
            .map(|(k, w)| (k.to_string(), w.to_string()))
            .collect()
    };
    let pages = help_groups();
    let first = Page::ALL[0].pane().help().len();
    let mut out: Vec<Group> = vec![(QUERY.0, owned(QUERY.1))];
    out.extend(pages[..first].iter().map(|(t, rows)| (*t, owned(rows))));
    for (title, rows) in SHARED {
        if *title == "Pages" {
            let keys: Vec<String> = Page::ALL
                .iter()
                .map(|p| p.pane().key().to_string())
                .collect();
            let about: Vec<&str> = Page::ALL.iter().map(|p| p.pane().about()).collect();
            out.push((title, vec![(keys.join("/"), about.join(" / "))]));
        } else {
            out.push((title, owned(rows)));
        }
    }
    out.extend(pages[first..].iter().map(|(t, rows)| (*t, owned(rows))));
    out
}

/// What the marks on screen mean, above the keys.
const INTRO: &str = "Marks: ✂ a cut · shading its seam window · ┊ an atom (fence, table, row, \
     figure sentence) a cut splits · ▎ ● in the context · ▶ a chunk's first line · ▲ fires (▲ fires* \
     only because a linked chunk is absent) · + added / − displaced by Seams · bold green text: the \
     picked gold question's evidence · ░ uncovered ≡ shared (--cuts)";

/// Groups in the left column: the query box and the first page's.
fn left_groups() -> usize {
    1 + Page::ALL[0].pane().help().len()
}

/// One column of groups, descriptions wrapped to `width`.
fn column(app: &App, groups: &[Group], width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let key_width = groups
        .iter()
        .flat_map(|(_, keys)| keys.iter())
        .map(|(key, _)| Span::raw(key.as_str()).width())
        .max()
        .unwrap_or(0)
        + 2;
    let mut lines = Vec::new();
    for (group, keys) in groups {
        lines.push(Line::styled(*group, t.title));
        for (key, what) in keys {
            let wrapped = wrap_words(what, width.saturating_sub(key_width + 2));
            for (i, part) in wrapped.into_iter().enumerate() {
                let key = if i == 0 { key.as_str() } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {key:<key_width$}"), t.key),
                    Span::styled(part, t.text),
                ]));
            }
        }
        lines.push(Line::from(""));
    }
    lines
}

/// The groups in two columns of `half` columns each: the query box's and the first page's groups
/// on the left, and the next groups too while moving one there makes the taller column shorter.
fn two_columns(app: &App, all: &[Group], half: usize) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let mut split = left_groups().min(all.len());
    let height = |at: usize| {
        column(app, &all[..at], half)
            .len()
            .max(column(app, &all[at..], half).len())
    };
    while split < all.len() && height(split + 1) < height(split) {
        split += 1;
    }
    let (left_groups, right_groups) = all.split_at(split);
    (
        column(app, left_groups, half),
        column(app, right_groups, half),
    )
}

/// Skipped files listed at most, before "and N more".
const SKIPPED_LISTED: usize = 100;

/// The files the corpus shown left out, each with its reason and fix, first in the overlay:
/// the header counts them and points here.
fn skipped_group(app: &App) -> Option<Group> {
    let skipped: Vec<&seamscope::corpus::SkippedFile> = app
        .shown
        .as_ref()?
        .open
        .corpus
        .skipped
        .iter()
        .filter(|s| s.reason != seamscope::corpus::SkipReason::Excluded)
        .collect();
    if skipped.is_empty() {
        return None;
    }
    let mut rows: Vec<(String, String)> = skipped
        .iter()
        .take(SKIPPED_LISTED)
        .map(|file| {
            (
                "·".to_string(),
                format!(
                    "{}: {}",
                    seamscope::text::safe_name(&file.path),
                    file.reason
                ),
            )
        })
        .collect();
    if skipped.len() > SKIPPED_LISTED {
        rows.push((
            "·".to_string(),
            format!(
                "and {} more (`seamscope chunks CORPUS --json` lists every file and why)",
                skipped.len() - SKIPPED_LISTED
            ),
        ));
    }
    Some(("Files skipped, and why", rows))
}

/// Draw the help overlay in the middle of `area`: two columns of keys on a wide screen, one on
/// a narrow one; scrolled by [`App::help`]'s row when taller than the screen.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let one_column = area.width < 120;
    let width = 150.min(area.width.saturating_sub(if one_column { 2 } else { 4 }));
    let half = usize::from(width.saturating_sub(3) / 2);
    let all: Vec<Group> = skipped_group(app).into_iter().chain(groups()).collect();
    let (left, right) = if one_column {
        let mut lines = vec![];
        for part in wrap_words(INTRO, usize::from(width.saturating_sub(2))) {
            lines.push(Line::styled(part, t.muted));
        }
        lines.push(Line::from(""));
        lines.extend(column(app, &all, usize::from(width.saturating_sub(2))));
        (lines, Vec::new())
    } else {
        two_columns(app, &all, half)
    };
    let intro_rows = if one_column {
        0
    } else {
        // Rows the intro wraps to (word breaks may take a few columns more than the characters).
        (INTRO.chars().count() as u16 + 12).div_ceil(width.saturating_sub(2).max(1))
    };
    // Two columns: the intro's rows besides the keys' (as the help has always been sized).
    let rows = left.len().max(right.len()) as u16 + if one_column { 0 } else { 2 };
    let height = (rows + 2).min(area.height.saturating_sub(2));
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    };
    let scroll = app
        .help
        .unwrap_or(0)
        .min(rows.saturating_sub(height.saturating_sub(2)));
    let closes = if rows + 2 > height {
        " ↑↓ PgUp PgDn scroll · ? or Esc closes "
    } else {
        " ? or Esc closes "
    };
    let block = Block::bordered()
        .border_style(t.border_focused)
        .title(Line::styled(" Help · seamscope keys ", t.title))
        .title_bottom(Line::styled(closes, t.muted));
    frame.render_widget(Clear, rect);
    let inner = block.inner(rect);
    frame.render_widget(block.style(t.text), rect);
    if one_column {
        frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), inner);
        return;
    }
    let [intro, body] =
        Layout::vertical([Constraint::Length(intro_rows), Constraint::Fill(1)]).areas(inner);
    frame.render_widget(
        Paragraph::new(Line::styled(INTRO, t.muted)).wrap(ratatui::widgets::Wrap { trim: true }),
        intro,
    );
    let [left_area, _, right_area] = Layout::horizontal([
        Constraint::Length(half as u16),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(body);
    frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), left_area);
    frame.render_widget(Paragraph::new(right).scroll((scroll, 0)), right_area);
}
