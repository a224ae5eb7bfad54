//! The screen for live demos, drawn: presenter mode from the first search list to the closing
//! comparison, the question picker with gold evidence and its verdict, pinned settings side by
//! side, the zoom, the `m` slider's track, and saving a trace and a view.

use insta::assert_snapshot;
use seamscope::retrieve::EntryRef;

use crate::tui::action::{Action, Page, Pane, Slider};
use crate::tui::chrome::wrap_words;
use crate::tui::fixture::{Fixture, QUESTION};
use crate::tui::share::{Effect, ViewFile};
use crate::tui::step::Step;

/// The screen as text, without the status line (its legend names the marks).
fn screen(f: &mut Fixture, width: u16, height: u16) -> String {
    let all = f.draw(width, height).backend().to_string();
    let lines: Vec<&str> = all.lines().collect();
    lines[..lines.len().saturating_sub(1)]
        .iter()
        .map(|l| l.trim_matches('"'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Step presenter mode forward `n` times.
fn forward(f: &mut Fixture, n: usize) {
    for _ in 0..n {
        f.app.update(Action::StepForward);
    }
}

#[test]
fn tui_presenter_mode_walks_from_the_first_search_list_to_the_comparison() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleStepMode);
    let Some((all, _)) = f.app.current_step() else {
        panic!("presenter mode has steps");
    };
    assert_eq!(
        &all[..4],
        &[
            Step::Search(0),
            Step::Search(1),
            Step::Search(2),
            Step::Fuse
        ]
    );
    assert_eq!(all.last(), Some(&Step::Compare));

    // Step 1: the dense list alone; nothing decided yet, nothing in the context.
    let first = screen(&mut f, 160, 48);
    assert!(first.contains("Step 1 of"), "{first}");
    assert!(first.contains("Dense search ·"), "{first}");
    assert!(
        !first.contains("▲ fires"),
        "no verdict before the fire test:\n{first}"
    );
    assert!(!first.contains("● context"), "{first}");
    assert!(first.contains("revealed at the last"), "{first}");
    assert!(
        first.contains("the fire test comes after fusion"),
        "{first}"
    );
    assert!(
        !first.contains("the fill read to"),
        "the fire title waits too:\n{first}"
    );

    // The two keyword lists, then fusion with the RRF arithmetic of the entry under the cursor.
    forward(&mut f, 2);
    let seams_list = screen(&mut f, 160, 48);
    assert!(seams_list.contains("BM25 over seams ·"), "{seams_list}");
    forward(&mut f, 1);
    let fused = screen(&mut f, 160, 48);
    assert!(fused.contains("rank fusion"), "{fused}");
    assert!(fused.contains("Fused ranking ·"), "{fused}");
    assert!(
        fused.contains("= 1/(60+"),
        "the RRF sum written out:\n{fused}"
    );
    f.app.update(Action::MoveSelection(1));
    let moved = screen(&mut f, 160, 48);
    assert!(
        moved.contains("#2 "),
        "the arithmetic follows the cursor:\n{moved}"
    );

    // The first fire test: the text shows that seam's cut, only it has a verdict.
    forward(&mut f, 1);
    let Some(answer) = &f.app.answer else {
        panic!("answered");
    };
    let first_seam = answer.trace.decisions[0].seam;
    assert_eq!(f.app.view.cursor, Some(EntryRef::Seam(first_seam)));
    let fire = screen(&mut f, 160, 48);
    assert!(fire.contains("fire test"), "{fire}");
    assert!(
        fire.matches("▲ fires").count() + fire.matches("dropped").count() >= 1,
        "the first seam's verdict shows:\n{fire}"
    );

    // The last step: the comparison, in the banner and in its pane.
    forward(&mut f, all.len());
    let last = screen(&mut f, 160, 48);
    assert!(last.contains("with vs without Seams"), "{last}");
    assert!(last.contains("With Seams the context is chunks"), "{last}");
    assert!(!last.contains("revealed at the last"), "{last}");
    // ← goes back and hides the comparison again.
    f.app.update(Action::StepBack);
    let back = screen(&mut f, 160, 48);
    assert!(back.contains("revealed at the last"), "{back}");
}

#[test]
fn tui_every_presenter_caption_fits_its_banner_at_the_smallest_size() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleStepMode);
    f.draw(120, 34);
    let Some((all, _)) = f.app.current_step() else {
        panic!("steps");
    };
    let Some(areas) = f.app.areas() else {
        panic!("120x34 fits");
    };
    let Some(banner) = areas.step else {
        panic!("a banner");
    };
    let width = usize::from(banner.width.saturating_sub(2));
    let rows = usize::from(banner.height.saturating_sub(2));
    for (i, step) in all.iter().enumerate() {
        f.app.step = Some(i);
        let (Some(answer), Some(shown)) = (&f.app.answer, &f.app.shown) else {
            panic!("answered");
        };
        let caption = step.describe(&answer.trace, &shown.open);
        let extra = usize::from(matches!(step, Step::Search(_) | Step::Fuse));
        let needed = wrap_words(&caption, width).len() + extra;
        assert!(
            needed <= rows,
            "step {i} ({step:?}) needs {needed} rows: {caption}"
        );
    }
}

#[test]
fn tui_a_gold_question_from_the_picker_shades_its_evidence_and_gets_its_verdict() {
    let mut f = Fixture::opened();
    f.app.update(Action::OpenPicker);
    let picker = screen(&mut f, 160, 48);
    assert!(
        picker.contains("Questions · questions.jsonl · 2"),
        "{picker}"
    );
    assert!(
        picker.contains("F01") && picker.contains("boundary"),
        "{picker}"
    );
    assert!(picker.contains("evidence: 1 span"), "{picker}");
    f.app.update(Action::PickQuestion);
    assert!(f.app.picker.is_none());
    assert_eq!(f.app.query.text, QUESTION);
    let generation = f.expect_ask();
    f.deliver_answer(generation);
    let Some(line) = f.app.gold_verdict() else {
        panic!("the picked question is judged");
    };
    assert!(
        line.line.starts_with("F01 · answered with Seams "),
        "{}",
        line.line
    );
    let shown = screen(&mut f, 160, 48);
    assert!(
        shown.contains("F01 ✓ with") || shown.contains("F01 ✗ with"),
        "{shown}"
    );
    assert!(
        shown.contains("splits it") || shown.contains("whole in chunk"),
        "{shown}"
    );
    // The text jumps to the cut that splits the evidence (or the chunk that holds it).
    let expected = line
        .verdict
        .splitting_seams
        .first()
        .map(|s| EntryRef::Seam(*s))
        .or(line
            .verdict
            .evidence_chunks
            .first()
            .map(|c| EntryRef::Chunk(*c)));
    assert_eq!(f.app.view.cursor, expected);
    // The evidence is painted in its own style.
    let terminal = f.draw(160, 48);
    let evidence_fg = f.app.theme.evidence.fg;
    let painted = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .filter(|c| c.symbol() != " " && c.fg == evidence_fg.unwrap_or_default())
        .count();
    assert!(painted > 20, "{painted} cells of evidence");
    // A question typed by hand is no longer the gold question.
    f.app.update(Action::StartTyping);
    f.app.update(Action::InsertChar('?'));
    f.app.update(Action::RunQuery);
    assert!(f.app.gold.is_none());
}

#[test]
fn tui_pinned_settings_show_both_contexts_fire_tests_and_settings() {
    let mut f = Fixture::answered();
    f.app.update(Action::TogglePin);
    assert!(f.app.pinned.is_some());
    f.app.update(Action::AdjustSlider(Slider::M, 1));
    f.app.update(Action::AdjustSlider(Slider::Budget, 1));
    let both = screen(&mut f, 160, 48);
    assert!(both.contains("Pinned vs now"), "{both}");
    assert!(both.contains("Pinned · m 2 · budget 4"), "{both}");
    assert!(both.contains("Now · m 3 · budget 5"), "{both}");
    assert_eq!(both.matches("fire tests:").count(), 2, "{both}");
    assert_eq!(both.matches("context:").count(), 2, "{both}");
    assert!(
        !both.contains("Budget fill ·"),
        "the pinned pane takes the bottom row"
    );
    assert_snapshot!("pinned_at_120x34", screen(&mut f, 120, 34));
    f.app.update(Action::TogglePin);
    assert!(screen(&mut f, 160, 48).contains("Budget fill ·"));
}

#[test]
fn tui_z_zooms_the_focused_pane_and_esc_brings_the_rest_back() {
    let mut f = Fixture::answered();
    f.app.update(Action::Focus(Pane::Fire));
    f.app.update(Action::ToggleZoom);
    assert_eq!(f.app.zoom, Some(Pane::Fire));
    let zoomed = screen(&mut f, 120, 34);
    assert!(zoomed.contains("Fire test ·"), "{zoomed}");
    assert!(!zoomed.contains("Fused ranking"), "{zoomed}");
    assert!(!zoomed.contains("Documents ·"), "{zoomed}");
    // Tab moves the zoom to the next pane shown.
    f.app.update(Action::FocusNext);
    assert_eq!(f.app.zoom, Some(Pane::Budget));
    f.app.update(Action::ToggleZoom);
    let all = screen(&mut f, 120, 34);
    assert!(
        all.contains("Fused ranking") && all.contains("Documents ·"),
        "{all}"
    );
}

#[test]
fn tui_the_m_slider_moves_with_every_step_at_the_smallest_size() {
    let mut f = Fixture::answered();
    let mut tracks = Vec::new();
    for m in 0..=30 {
        f.app.update(Action::SetSlider(Slider::M, m));
        f.draw(120, 34);
        let Some(areas) = f.app.areas() else {
            panic!("fits");
        };
        let rect = areas.slider(Slider::M);
        let terminal = f.draw(120, 34);
        let buffer = terminal.backend().buffer();
        let track: String = (rect.left()..rect.right())
            .map(|x| buffer[(x, rect.y)].symbol().to_string())
            .collect();
        tracks.push(track);
    }
    for pair in tracks.windows(2) {
        assert_ne!(pair[0], pair[1], "the m track did not move");
    }
}

#[test]
fn tui_a_long_question_shows_whole_across_the_width() {
    let mut f = Fixture::opened();
    let long = "If an order is placed while that region cannot reach the billing writer, when \
                does the shipper actually get charged, and why not let each region invoice?";
    f.app.update(Action::Paste(long.into()));
    let shown = screen(&mut f, 120, 34);
    let joined: String = shown
        .lines()
        .filter(|l| l.starts_with('│'))
        .take(3)
        .map(|l| l.trim_matches(|c| c == '│' || c == ' ').to_string())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(joined.contains("when does the shipper"), "{shown}");
    assert!(joined.contains("region invoice?"), "{shown}");
}

#[test]
fn tui_e_w_and_y_queue_the_trace_the_view_and_the_context() {
    let mut f = Fixture::answered();
    f.app.corpus_path = std::env::temp_dir();
    f.app.update(Action::SaveTrace);
    f.app.update(Action::SaveView);
    f.app.update(Action::CopyContext);
    let effects = std::mem::take(&mut f.app.effects);
    let [trace, view, copy] = effects.as_slice() else {
        panic!("three effects: {effects:?}");
    };
    let Effect::WriteFile { contents, .. } = trace else {
        panic!("{trace:?}");
    };
    let json: serde_json::Value = serde_json::from_str(contents).unwrap_or_default();
    assert!(json["trace"]["fill"]["chunks"].is_array(), "{contents}");
    assert!(json["chunks"].is_array() && json["seams"].is_array());
    let Effect::WriteFile { contents, .. } = view else {
        panic!("{view:?}");
    };
    let saved: ViewFile = serde_json::from_str(contents).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(saved.question.as_deref(), Some(QUESTION));
    assert_eq!(saved.settings.m, 2);
    let Effect::Copy { text, .. } = copy else {
        panic!("{copy:?}");
    };
    assert!(text.contains("cache"), "the context's own text: {text}");
}

#[test]
fn tui_a_saved_view_comes_back_with_its_question_gold_and_step() {
    let mut f = Fixture::answered();
    f.app.update(Action::OpenPicker);
    f.app.update(Action::PickQuestion);
    let generation = f.expect_ask();
    f.deliver_answer(generation);
    f.app.update(Action::ToggleStepMode);
    forward(&mut f, 4);
    let view = f.app.view_file();
    assert_eq!(view.step, Some(4));

    // A fresh screen restoring it: the question is asked once the corpus opens, then presenter
    // mode lands on the saved step.
    let mut g = Fixture::restoring(view);
    let generation = g.expect_ask();
    g.deliver_answer(generation);
    assert_eq!(g.app.step, Some(4));
    assert_eq!(g.app.gold.as_ref().map(|q| q.id.as_str()), Some("F01"));
    assert_eq!(g.app.page, Page::Explore);
    assert!(g.app.restoring.is_none(), "restored once");
    assert!(
        g.requests.try_recv().is_err(),
        "nothing more is asked after the restore"
    );
}

#[test]
fn tui_the_help_shows_every_group_whole_at_the_smallest_size() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleHelp);
    let help = f.draw(120, 34).backend().to_string();
    for key in [
        "presenter mode: one step at a time",
        "pick a gold question",
        "save trace / save view / copy context",
        "quit",
        "run in the background / cancel",
        "evaluate: strategy board / length map",
        "board: next view / row / apply row",
    ] {
        assert!(help.contains(key), "{key} is missing:\n{help}");
    }
}

/// Whether every `…` of `line` shortens a document name after a whole chunk id
/// (`chunk 40 (order-service-des…`); any other `…` is text cut off.
fn only_names_shortened(line: &str) -> bool {
    line.match_indices('…').all(|(at, _)| {
        let before = &line[..at];
        let Some(open) = before.rfind('(') else {
            return false;
        };
        let id = before[..open].trim_end();
        let digits = id.trim_end_matches(|c: char| c.is_ascii_digit());
        digits.len() < id.len() && digits.ends_with("chunk ")
    })
}

#[test]
fn tui_no_page_cuts_what_carries_meaning_at_120x34_or_160x48() {
    for (width, height) in [(120, 34), (160, 48)] {
        // Explore: an answered gold question, then presenter mode at every step.
        let mut f = Fixture::opened();
        f.app.update(Action::OpenPicker);
        f.app.update(Action::PickQuestion);
        let generation = f.expect_ask();
        f.deliver_answer(generation);
        let mut screens = vec![("explore".to_string(), screen(&mut f, width, height))];
        f.app.update(Action::ToggleStepMode);
        let steps = f.app.current_step().map_or(0, |(all, _)| all.len());
        for i in 0..steps {
            screens.push((format!("step {}", i + 1), screen(&mut f, width, height)));
            f.app.update(Action::StepForward);
        }
        f.app.update(Action::ToggleStepMode);
        f.app.update(Action::TogglePin);
        f.app.update(Action::AdjustSlider(Slider::M, 1));
        screens.push(("pinned".into(), screen(&mut f, width, height)));
        let mut c = Fixture::calibrated();
        screens.push(("calibration".into(), screen(&mut c, width, height)));
        let mut e = Fixture::evaluated();
        screens.push(("evaluation".into(), screen(&mut e, width, height)));
        for (name, shown) in &screens {
            for line in shown.lines().skip(1) {
                // The text pane wraps the document itself; the columns right of it carry the story.
                let right: String = line.chars().skip(usize::from(width) / 2).collect();
                assert!(
                    only_names_shortened(&right),
                    "{name} at {width}x{height}: a cut line: {line}\n{shown}"
                );
            }
        }
        let explore = &screens[0].1;
        assert!(explore.contains("F01 "), "the verdict: {explore}");
        assert!(
            explore.contains("fired: added chunk") || explore.contains("fired +"),
            "the fill names the chunks a seam added: {explore}"
        );
    }
}

#[test]
fn tui_pinned_evaluation_rows_stay_beside_the_live_ones() {
    let mut f = Fixture::evaluated();
    f.app.update(Action::TogglePin);
    assert!(f.app.evaluation.pinned.is_some());
    f.app.update(Action::AdjustSlider(Slider::Budget, -1));
    let shown = screen(&mut f, 200, 60);
    assert!(shown.contains("pinned (k "), "{shown}");
    assert!(
        shown.contains("budget 4)"),
        "the pinned rows' settings: {shown}"
    );
    let rows = shown.matches("Seams k=8").count();
    assert!(rows >= 2, "the live and the pinned Seams rows: {shown}");
}

#[test]
fn tui_snapshot_presenter_fusion_and_the_picker_at_120x34() {
    let mut f = Fixture::answered();
    f.app.update(Action::ToggleStepMode);
    forward(&mut f, 3);
    assert_snapshot!("presenter_fusion_120x34", screen(&mut f, 120, 34));
    f.app.update(Action::ToggleStepMode);
    f.app.update(Action::OpenPicker);
    assert_snapshot!("picker_120x34", screen(&mut f, 120, 34));
}

#[test]
fn tui_the_screen_as_svg_holds_every_row_and_its_colours() {
    let mut f = Fixture::answered();
    let terminal = f.draw(160, 48);
    let background = "#1c1c1c";
    let svg = crate::tui::svg::render(terminal.backend().buffer(), background, "#d0d0d0");
    // Every row of the screen that draws something has text in the picture.
    let rows = terminal
        .backend()
        .buffer()
        .content()
        .chunks(160)
        .filter(|row| row.iter().any(|c| !c.symbol().trim().is_empty()))
        .count();
    let text_rows: std::collections::BTreeSet<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<text"))
        .filter_map(|l| l.split("y=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(text_rows.len(), rows, "one text row per drawn row");
    assert!(
        svg.contains("Fused ranking"),
        "the screen's words are in it"
    );
    assert!(svg.contains("fill=\"#87d75f\""), "the theme's fired colour");
    let path = std::env::temp_dir().join("seamscope-fixture-screen.svg");
    std::fs::write(&path, &svg).unwrap_or_else(|e| panic!("{e}"));
}
