//! The screen at 80 × 24, the default of most terminal programs: one pane at a time below a strip
//! naming the others, Tab and presenter mode's steps moving between them, every page, the help
//! and the picker whole or scrolled. Snapshots beside the views.

use insta::assert_snapshot;

use crate::tui::action::{Action, EvalAction, Page, Pane};
use crate::tui::fixture::Fixture;

fn screen(f: &mut Fixture, width: u16, height: u16) -> String {
    f.draw(width, height).backend().to_string()
}

#[test]
fn tui_snapshot_answered_at_80x24() {
    let mut f = Fixture::answered();
    let terminal = f.draw(80, 24);
    let text = terminal.backend().to_string();
    assert!(
        text.contains("Tab panes:"),
        "the strip names the panes:\n{text}"
    );
    assert!(!text.contains("too small"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_tab_walks_every_pane_one_at_a_time_at_80x24() {
    let mut f = Fixture::answered();
    let mut titles = Vec::new();
    for _ in 0..Pane::ORDER.len() {
        f.app.update(Action::FocusNext);
        let text = screen(&mut f, 80, 24);
        let shown = [
            "Documents",
            "Fused ranking",
            "Fire test",
            "Budget fill",
            "with vs",
        ]
        .into_iter()
        .filter(|t| text.contains(t))
        .collect::<Vec<_>>();
        titles.extend(shown);
    }
    for title in ["Documents", "Fused ranking", "Fire test", "Budget fill"] {
        assert!(
            titles.contains(&title),
            "{title} is reached by Tab: {titles:?}"
        );
    }
}

#[test]
fn tui_presenter_mode_shows_the_pane_of_each_step_at_80x24() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleStepMode);
    let first = screen(&mut f, 80, 24);
    assert!(first.contains("Step 1 of"), "{first}");
    let mut saw_fire = false;
    let mut last = first;
    for _ in 0..60 {
        f.app.update(Action::StepForward);
        last = screen(&mut f, 80, 24);
        saw_fire |= last.contains("fire test") && last.contains("Fire test ·");
        if last.contains("with vs without Seams") {
            break;
        }
    }
    assert!(saw_fire, "the fire test pane shows at its step");
    assert!(last.contains("with vs without Seams"), "{last}");
    let terminal = f.draw(80, 24);
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_help_at_80x24_scrolls_to_every_group() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleHelp);
    let terminal = f.draw(80, 24);
    assert_snapshot!(terminal.backend());
    let mut seen = String::new();
    for _ in 0..20 {
        seen.push_str(&screen(&mut f, 80, 24));
        f.app.update(Action::ScrollHelp(10));
    }
    for (group, _) in crate::tui::views::help::groups() {
        assert!(seen.contains(group), "{group} is reached by scrolling");
    }
}

#[test]
fn tui_snapshot_picker_at_80x24() {
    let mut f = Fixture::answered();
    f.app.update(Action::OpenPicker);
    for _ in 0..20 {
        f.app.update(Action::PickerMove(1));
    }
    let terminal = f.draw(80, 24);
    let text = terminal.backend().to_string();
    assert!(text.contains("Questions ·"), "{text}");
    assert_snapshot!(terminal.backend());
}

#[test]
fn tui_snapshot_measuring_pages_at_80x24() {
    let mut f = Fixture::calibrated();
    let calibration = f.draw(80, 24);
    assert!(calibration.backend().to_string().contains("failure % vs m"));
    assert_snapshot!("calibration_80x24", calibration.backend());
    f.app.update(crate::tui::panes::scroll_page(&f.app, 1000));
    let end = f.draw(80, 24);
    assert_snapshot!("calibration_80x24_scrolled_to_the_end", end.backend());
    let mut f = Fixture::evaluated();
    f.app.update(Action::ShowPage(Page::Evaluation));
    let evaluation = f.draw(80, 24);
    assert_snapshot!("evaluation_80x24", evaluation.backend());
}

#[test]
fn tui_the_calibration_page_scrolls_to_every_part_at_80x24() {
    let mut f = Fixture::calibrated();
    let first = screen(&mut f, 80, 24);
    assert!(
        first.contains("more rows"),
        "the border says more is below:\n{first}"
    );
    let mut seen = first;
    for _ in 0..20 {
        f.app.update(crate::tui::panes::scroll_page(&f.app, 3));
        seen.push_str(&screen(&mut f, 80, 24));
    }
    for part in [
        "calibrated on fixed-40",
        "failure % vs m",
        "Recommended m = 4",
        "Seams off (chunks only)",
        "now: k 8, m 2",
        "head start",
        "Paper's rule",
        "Working range",
        "absent, counted last",
        "Questions (offline-keywords)",
        "asks a language model",
    ] {
        assert!(
            seen.contains(part),
            "{part} is reached by scrolling:\n{seen}"
        );
    }
    let last = screen(&mut f, 80, 24);
    assert!(last.contains("scroll back"), "{last}");
    f.app.update(crate::tui::panes::scroll_page(&f.app, -1000));
    assert!(screen(&mut f, 80, 24).contains("m is chosen by what it does"));
}

#[test]
fn tui_the_smallest_screen_is_drawn_and_one_column_less_is_too_small() {
    let mut f = Fixture::answered();
    let smallest = screen(&mut f, 60, 16);
    assert!(!smallest.contains("too small"), "{smallest}");
    let less = screen(&mut f, 59, 16);
    assert!(less.contains("It is 59 × 16"), "{less}");
}

#[test]
fn tui_snapshot_board_and_map_at_80x24() {
    let mut f = super::tests::board_shown(false);
    let board = f.draw(80, 24);
    let text = board.backend().to_string();
    for column in ["fail", "tokens", "dup", "once", "×chk", "best", "55% ◆"] {
        assert!(
            text.contains(column),
            "{column} on the narrow board:\n{text}"
        );
    }
    assert_snapshot!("board_80x24", board.backend());
    // The cursor's row shows wherever it goes, whatever rows the verdict leaves the table.
    for _ in 0..20 {
        f.app.update(Action::Evaluation(EvalAction::BoardMove(1)));
        let text = screen(&mut f, 80, 24);
        assert!(text.contains("▶ "), "the cursor's row:\n{text}");
    }
    let mut f = super::tests::board_shown(true);
    let map = f.draw(80, 24);
    assert!(map.backend().to_string().contains("more rows"));
    assert_snapshot!("map_80x24", map.backend());
    // The map is one column taller than the screen: the arrows scroll to its verdict.
    f.app.update(crate::tui::panes::scroll_page(&f.app, 1000));
    let end = f.draw(80, 24);
    let text = end.backend().to_string();
    for part in [
        "family",
        "seams",
        "★ the band's leader",
        "map verdict:",
        "v draw again",
    ] {
        assert!(text.contains(part), "{part} at the map's end:\n{text}");
    }
    assert_snapshot!("map_80x24_scrolled_to_the_end", end.backend());
}

#[test]
fn tui_the_evaluation_comparison_scrolls_on_a_short_screen() {
    let mut f = Fixture::evaluated();
    f.app.update(Action::ShowPage(Page::Evaluation));
    let first = screen(&mut f, 80, 18);
    assert!(first.contains("more rows"), "{first}");
    f.app.update(crate::tui::panes::scroll_page(&f.app, 1000));
    let end = screen(&mut f, 80, 18);
    assert!(end.contains("prepares Seams again"), "{end}");
    assert!(end.contains("scroll back"), "{end}");
}

#[test]
fn tui_a_long_notice_rises_above_the_status_line_whole_at_80x24() {
    let mut f = Fixture::answered();
    let text = "applied Seams k 30 m 3: k = 30, m = 3, side drop off (the seams are rebuilt for \
                the new k in the background)";
    f.app.notice = Some(crate::tui::app::Notice {
        text: text.into(),
        error: false,
    });
    let shown = screen(&mut f, 80, 24);
    let bottom: String = shown
        .lines()
        .rev()
        .take(2)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|l| l.trim_matches('"').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(bottom, text, "{shown}");
}
