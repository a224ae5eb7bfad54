//! Snapshots of the screen drawn into a test terminal; the `.snap` files sit beside the views.

use std::sync::Arc;

use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use seamscope::index::BuildStage;
use tokio::sync::mpsc::unbounded_channel;

use crate::tui::action::{Action, EvalAction, JobProgress, JobStage, Pane};
use crate::tui::app::App;
use crate::tui::fixture::{self, Fixture};
use crate::tui::jobs::{Generations, Jobs};
use crate::tui::screen::{Areas, Arrange};
use crate::tui::theme::Theme;

fn text_of(buffer: &Buffer, area: Rect) -> String {
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        for x in area.left()..area.right() {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn tui_snapshot_indexing_progress() {
    let (tx, _requests) = unbounded_channel();
    let jobs = Jobs::new(tx, Arc::new(Generations::default()));
    let theme = Theme::builtin_default();
    let mut app = App::new("sample-corpus".into(), &fixture::settings(), theme, jobs);
    app.update(Action::Resize(120, 34));
    app.update(Action::Open);
    app.update(Action::Progress(JobProgress {
        generation: 1,
        stage: JobStage::Build(BuildStage::EmbedChunks),
        done: 31_772,
        total: 79_433,
        eta: Some(std::time::Duration::from_secs(42)),
    }));
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 34));
    let Ok(terminal) = terminal.as_mut() else {
        panic!("test terminal");
    };
    let drawn = terminal.draw(|frame| super::draw(&app, frame));
    assert!(drawn.is_ok());
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_query_with_a_fired_seam() {
    let mut f = Fixture::answered();
    let terminal = f.draw(200, 60);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("▲ fires"), "a fired seam is marked");
    assert!(screen.contains("dropped"), "a dropped seam is shown");
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_step_mode_midway() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleStepMode);
    f.app.update(Action::StepForward);
    f.app.update(Action::StepForward);
    f.app.update(Action::StepForward);
    let terminal = f.draw(200, 60);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Step 4 of"), "{screen}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_help_overlay() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleHelp);
    let terminal = f.draw(120, 40);
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_tiny_terminal() {
    let mut f = Fixture::answered();
    let terminal = f.draw(59, 15);
    assert!(terminal.backend().to_string().contains("too small"));
    assert_snapshot!(terminal.backend());
}

/// One letter per cell for the syntax class its colour shows (`.` for none).
fn classes(buffer: &Buffer, area: Rect, theme: &Theme) -> String {
    let known = [
        ('k', theme.syntax_keyword.fg),
        ('s', theme.syntax_string.fg),
        ('c', theme.syntax_comment.fg),
        ('n', theme.syntax_number.fg),
        ('f', theme.syntax_function.fg),
        ('t', theme.syntax_type.fg),
        ('h', theme.syntax_heading.fg),
        ('r', theme.syntax_code.fg),
    ];
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        for x in area.left()..area.right() {
            let cell = &buffer[(x, y)];
            let class = known
                .iter()
                .find(|(_, fg)| fg.is_some() && cell.fg == fg.unwrap_or_default())
                .map_or('.', |(c, _)| *c);
            line.push(if cell.symbol() == " " { ' ' } else { class });
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn tui_snapshot_document_with_a_code_fence_highlighted() {
    let mut f = Fixture::opened();
    f.app.update(Action::Focus(Pane::Documents));
    f.app.update(Action::SelectEdge(false));
    let terminal = f.draw(160, 50);
    let Some(areas) = Areas::compute(Rect::new(0, 0, 160, 50), &Arrange::default()) else {
        panic!("160x50 fits");
    };
    let body = areas.body(Pane::Text);
    let buffer = terminal.backend().buffer();
    let text = text_of(buffer, body);
    assert!(text.contains("def warm(cache, log):"), "{text}");
    let map = classes(buffer, body, &f.app.theme);
    assert!(
        map.contains('k') && map.contains('c') && map.contains('h'),
        "{map}"
    );
    assert_snapshot!(format!("{text}\n{map}"));
}

#[test]
fn tui_snapshot_calibration_page() {
    let mut f = Fixture::calibrated();
    let terminal = f.draw(200, 60);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Recommended m = 4"), "{screen}");
    assert!(screen.contains("failure % vs m · budget 5"), "{screen}");
    assert!(
        screen.contains("Seams helps here against chunks only"),
        "{screen}"
    );
    // The alternative beside it: the quick board's overlap does as well, at its cost.
    assert!(
        screen.contains("Other strategies on the same 40 questions: overlap 25% does as well"),
        "{screen}"
    );
    assert!(screen.contains("Paper's rule: m = 4"), "{screen}");
    assert!(screen.contains("Working range: m = 4 to 6"), "{screen}");
    assert!(
        screen.contains("keyword queries made from the text, no language model"),
        "{screen}"
    );
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_calibration_page_at_the_smallest_size() {
    let mut f = Fixture::calibrated();
    f.app
        .update(Action::SetSlider(crate::tui::action::Slider::M, 4));
    let terminal = f.draw(120, 34);
    assert!(
        terminal
            .backend()
            .to_string()
            .contains("the recommendation ✓")
    );
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_evaluation_page() {
    let mut f = Fixture::evaluated();
    let terminal = f.draw(200, 60);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("boundary ("), "a column per tag: {screen}");
    assert!(
        screen.contains("★ ") || screen.contains("☆ "),
        "the best row is marked: {screen}"
    );
    assert!(
        screen.contains("tied among") || screen.contains("winner: "),
        "the verdict says whether the best row is beyond noise: {screen}"
    );
    assert!(screen.contains("vectors"), "{screen}");
    assert!(screen.contains("Seams k=8 at m = 2"), "{screen}");
    assert_snapshot!(terminal.backend());
}

/// A screen on the evaluation page showing the fixture's board (or map, with `map`).
pub(super) fn board_shown(map: bool) -> Fixture {
    use crate::tui::background::{BoardDone, BoardResult};
    let mut f = Fixture::answered();
    f.app
        .update(Action::ShowPage(crate::tui::action::Page::Evaluation));
    f.app.update(if map {
        Action::Evaluation(EvalAction::RunMap)
    } else {
        Action::Evaluation(EvalAction::RunBoard)
    });
    let generation = f.app.jobs.board.in_flight().map_or(0, |j| j.generation);
    let result = if map {
        BoardResult::Map(Arc::new(fixture::boards::map()))
    } else {
        BoardResult::Board(Arc::new(fixture::boards::board()))
    };
    f.app
        .update(Action::Evaluation(EvalAction::BoardDone(Box::new(
            BoardDone {
                generation,
                result: Ok(result),
            },
        ))));
    f
}

#[test]
fn tui_snapshot_strategy_board() {
    let mut f = board_shown(false);
    f.app.update(Action::Evaluation(EvalAction::BoardMove(1)));
    let terminal = f.draw(160, 48);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("▶ Seams k 30 m 3"), "{screen}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_evidence_length_map() {
    let mut f = board_shown(true);
    let terminal = f.draw(160, 48);
    let screen = terminal.backend().to_string();
    assert!(screen.contains("map verdict:"), "{screen}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_the_query_cursor_sits_after_wide_characters() {
    let mut f = Fixture::opened();
    f.app.update(Action::Paste("日本語の質問".into()));
    let mut terminal = f.draw(200, 60);
    let Some(areas) = f.app.areas() else {
        panic!("200x60 fits");
    };
    let body = areas.body(Pane::Query);
    let cursor = match terminal.get_cursor_position() {
        Ok(p) => p,
        Err(e) => panic!("cursor: {e}"),
    };
    // Six wide characters take twelve columns; the cursor follows them, not six columns in.
    assert_eq!((cursor.x, cursor.y), (body.x + 12, body.y));
}

#[test]
fn tui_at_the_smallest_size_fill_actions_and_compared_chunks_keep_their_ids() {
    let mut f = Fixture::answered();
    let screen = f.draw(120, 34).backend().to_string();
    // The budget fill names every chunk a fired seam added, in full or as `fired +1 +2`.
    let full = screen.contains("fired: added chunk") && screen.contains(" and chunk ");
    let short =
        screen.contains("fired +") || screen.contains(" +1 +2") || screen.contains(" +2 +3");
    assert!(full || short, "{screen}");
    // The comparison never cuts a chunk's name before its id, and its title keeps the counts.
    let compare_rows: Vec<&str> = screen.lines().filter(|l| l.contains('✓')).collect();
    assert!(!compare_rows.is_empty(), "{screen}");
    for row in compare_rows {
        let cell = row.rsplit("││").next().unwrap_or(row);
        assert!(!cell.contains('…'), "a chunk name cut in {row}");
    }
    assert!(
        screen.contains("Seams +") || screen.contains("without"),
        "{screen}"
    );
}

#[test]
fn tui_coloured_themes_paint_their_own_background_under_every_pane() {
    for name in ["light", "dark"] {
        let mut f = Fixture::answered();
        f.app.theme = crate::tui::theme::Theme::builtin(name).unwrap();
        let bg = f.app.theme.background.bg;
        assert!(bg.is_some(), "{name} sets a background");
        let terminal = f.draw(160, 48);
        let buffer = terminal.backend().buffer();
        // Blank cells inside panes and between them carry the theme's background, not the
        // terminal's own.
        let blank = buffer
            .content()
            .iter()
            .filter(|c| c.symbol() == " ")
            .collect::<Vec<_>>();
        let painted = blank.iter().filter(|c| Some(c.bg) == bg).count();
        assert!(
            painted * 10 >= blank.len() * 8,
            "{name}: {painted} of {} blank cells carry the background",
            blank.len()
        );
    }
}

#[test]
fn tui_the_status_line_explains_the_marks_when_there_is_room() {
    let mut f = Fixture::answered();
    let wide = f.draw(220, 60).backend().to_string();
    let status = wide.lines().last().unwrap_or_default();
    assert!(
        status.contains("▲ fires") && status.contains("− displaced"),
        "{status}"
    );
    // Too narrow for all of it: left out whole, never cut.
    let narrow = f.draw(120, 34).backend().to_string();
    let status = narrow.lines().last().unwrap_or_default();
    assert!(
        !status.contains("in context") || status.contains("− displaced"),
        "{status}"
    );
    // The help explains every mark.
    f.app.update(Action::ToggleHelp);
    let help = f.draw(160, 48).backend().to_string();
    assert!(
        help.contains("▲ fires*") || help.contains("only because a linked chunk"),
        "{help}"
    );
}

#[test]
fn tui_the_header_says_when_dense_search_runs_in_chroma() {
    let mut f = Fixture::answered();
    let top = |f: &mut Fixture| {
        let screen = f.draw(200, 60).backend().to_string();
        screen.lines().next().unwrap_or_default().to_string()
    };
    assert!(
        top(&mut f).contains("exact dense search"),
        "{}",
        top(&mut f)
    );
    let shown = f.app.shown.as_mut().expect("a corpus is shown");
    let open = Arc::get_mut(&mut shown.open).expect("the fixture holds the only copy");
    open.indexes.store = seamscope::index::DenseStore::Server {
        kind: seamscope::spec::store::StoreKind::Chroma,
        url: "http://127.0.0.1:8000".into(),
        collections: vec!["s-x-chunks".into(), "s-x-seams".into()],
    };
    let line = top(&mut f);
    assert!(line.contains("dense search in Chroma (HNSW)"), "{line}");
    let shown = f.app.shown.as_mut().expect("a corpus is shown");
    let open = Arc::get_mut(&mut shown.open).expect("the fixture holds the only copy");
    open.indexes.store = seamscope::index::DenseStore::Server {
        kind: seamscope::spec::store::StoreKind::Pgvector,
        url: "postgresql://u@127.0.0.1:5432/db".into(),
        collections: vec!["seamscope-x".into()],
    };
    let line = top(&mut f);
    assert!(
        line.contains("approximate dense search in Postgres (pgvector HNSW)"),
        "{line}"
    );
}

#[test]
fn tui_the_header_says_how_many_files_were_skipped_and_why() {
    use seamscope::corpus::{SkipReason, SkippedFile};
    let mut f = Fixture::answered();
    let top = |f: &mut Fixture| {
        let screen = f.draw(240, 60).backend().to_string();
        screen.lines().next().unwrap_or_default().to_string()
    };
    assert!(!top(&mut f).contains("skipped"), "{}", top(&mut f));
    let shown = f.app.shown.as_mut().expect("a corpus is shown");
    let open = Arc::get_mut(&mut shown.open).expect("the fixture holds the only copy");
    open.corpus.skipped = vec![
        SkippedFile {
            path: "scan.pdf".into(),
            reason: SkipReason::NoTextLayer { pages: 4 },
        },
        SkippedFile {
            path: "export.docx".into(),
            reason: SkipReason::Damaged {
                format: "docx".into(),
                error: "a ZIP but not a Word document".into(),
            },
        },
        SkippedFile {
            path: "questions.jsonl".into(),
            reason: SkipReason::Excluded,
        },
    ];
    let line = top(&mut f);
    assert!(
        line.contains(
            "documents (2 skipped: 1 PDF without a text layer (scanned), 1 damaged or misnamed DOCX file; ? lists each) ·"
        ),
        "{line}"
    );
    // At 80 columns the count stays, with the key that lists them.
    let narrow = f.draw(80, 24).backend().to_string();
    let narrow_top = narrow.lines().next().unwrap_or_default().to_string();
    assert!(narrow_top.contains("skipped: ?"), "{narrow_top}");
    // `?` lists each file with its reason and its fix, before the keys.
    f.app.update(Action::ToggleHelp);
    let help = f.draw(80, 24).backend().to_string();
    assert!(help.contains("Files skipped, and why"), "{help}");
    assert!(
        help.contains("scan.pdf: no text layer in its 4 page(s)"),
        "{help}"
    );
    assert!(help.contains("export.docx: not a readable docx"), "{help}");
    assert!(
        !help.contains("questions.jsonl"),
        "a file excluded by name is not a skipped document: {help}"
    );
    // Only the excluded question set: nothing is said skipped, at any width.
    let shown = f.app.shown.as_mut().expect("a corpus is shown");
    let open = Arc::get_mut(&mut shown.open).expect("the fixture holds the only copy");
    open.corpus
        .skipped
        .retain(|s| s.reason == SkipReason::Excluded);
    f.app.update(Action::ToggleHelp);
    for (w, h) in [(80, 24), (240, 60)] {
        let screen = f.draw(w, h).backend().to_string();
        let top = screen.lines().next().unwrap_or_default().to_string();
        assert!(!top.contains("skipped"), "{top}");
    }
}

#[test]
fn tui_the_header_names_an_embedder_other_than_the_default_without_credentials() {
    let mut f = Fixture::answered();
    let top = |f: &mut Fixture| {
        let screen = f.draw(200, 60).backend().to_string();
        screen.lines().next().unwrap_or_default().to_string()
    };
    assert!(!top(&mut f).contains("openai:"), "the default is not named");
    let settings = seamscope::settings::Settings {
        embedder: Some("openai:https://user:secret@api.example.com/v1".into()),
        embed_model: Some("text-embedding-3-small".into()),
        ..Default::default()
    };
    f.app.embedder_label = crate::tui::app::embedder_label(&settings);
    let line = top(&mut f);
    assert!(
        line.contains("│ openai:text-embedding-3-small @ api.example.com "),
        "{line}"
    );
    assert!(!line.contains("secret"), "{line}");
}
