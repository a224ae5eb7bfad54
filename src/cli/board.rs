//! `seamscope tune --strategies` (every boundary strategy on one board, with a verdict) and
//! `seamscope tune --map` (the evidence-length map): run through the engine's [`board`] and
//! [`evidence_map`], rendered here as text or JSON.

use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

use seamscope::board::map::{EvidenceMap, MapOptions, evidence_map};
use seamscope::board::{Board, BoardOptions, BoardRow, board};
use seamscope::eval::questions::Question;
use seamscope::eval::run::SearchProgress;
use seamscope::text::safe_name;

use super::GlobalArgs;
use super::common::{BuildBar, start_engine};
use super::tune_args::{TuneArgs, checked_settings};

/// The board's knobs from `tune`'s flags.
fn board_options(args: &TuneArgs, base: BoardOptions) -> BoardOptions {
    BoardOptions {
        families: args
            .strategies
            .clone()
            .unwrap_or_else(|| base.families.clone()),
        ks: if args.ks.is_empty() {
            base.ks.clone()
        } else {
            args.ks.clone()
        },
        ms: args.ms.clone(),
        side_drops: args.side_drops.clone(),
        overlaps: args.overlaps.clone().unwrap_or(base.overlaps),
        windows: args.windows.clone().unwrap_or(base.windows),
        taus: args.taus.clone().unwrap_or(base.taus),
        penalties: args.penalties.clone().unwrap_or(base.penalties),
        resamples: args.resamples.unwrap_or(base.resamples),
        seed: args.seed,
        constraints: args.constraints(),
        per_question: args.per_question,
        ..base
    }
}

fn progress_printer(json: bool) -> impl FnMut(SearchProgress<'_>) -> bool {
    let mut last = Instant::now();
    move |p| {
        if json {
            return true;
        }
        match p {
            SearchProgress::Preparing {
                index,
                count,
                label,
            } => errln!("tune: strategy {}/{count}: {}", index + 1, safe_name(label)),
            SearchProgress::Embedding {
                label,
                part,
                progress,
                ..
            } if last.elapsed().as_millis() >= 2000 => {
                last = Instant::now();
                errln!(
                    "tune: {}: embedding {part}, {} of {} tokens",
                    safe_name(label),
                    progress.done_tokens,
                    progress.total_tokens
                );
            }
            SearchProgress::Searching {
                label, done, total, ..
            } if last.elapsed().as_millis() >= 2000 => {
                last = Instant::now();
                errln!(
                    "tune: {}: searched {done} of {total} questions",
                    safe_name(label)
                );
            }
            _ => {}
        }
        true
    }
}

/// `tune --strategies`: the board on gold questions or sampled passages.
pub fn run_board(
    global: &GlobalArgs,
    corpus: &Path,
    args: &TuneArgs,
    json: bool,
) -> anyhow::Result<()> {
    let settings = checked_settings(global, args)?;
    let mut engine = start_engine(settings.clone())?;
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let (questions, source) = board_questions(&mut engine, &docs, corpus, args, json)?;
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_loaded(docs, &mut |p| json || bar.update(p));
    bar.finish();
    let open = open?;
    let options = board_options(args, BoardOptions::default());
    let under = engine.settings.clone();
    let result = board(
        &mut engine,
        &open,
        &under,
        &questions,
        &source,
        &options,
        &mut progress_printer(json),
    )?
    .ok_or_else(|| anyhow::anyhow!("the board stopped early"))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        out!("{}", render_board(&result, args.top))?;
    }
    Ok(())
}

fn board_questions(
    engine: &mut seamscope::session::Engine,
    docs: &seamscope::corpus::Corpus,
    corpus: &Path,
    args: &TuneArgs,
    json: bool,
) -> anyhow::Result<(Vec<Question>, String)> {
    if let Some(path) = &args.questions {
        let qs = super::common::load_question_file(path, docs)?;
        let source = format!(
            "{} questions of {} with gold spans",
            qs.len(),
            safe_name(&path.display().to_string())
        );
        return Ok((qs, source));
    }
    let layout =
        seamscope::layout::Layout::for_settings(docs, &engine.tokenizer, &engine.settings)?;
    let (qs, source) = seamscope::tune::passage_questions(docs, &layout, args.passages, args.seed);
    let set = seamscope::corpus::questions_path(corpus);
    if !json && set.is_file() {
        errln!(
            "tune: {} has a question set; --questions {} scores on its gold evidence instead",
            safe_name(&corpus.display().to_string()),
            safe_name(&set.display().to_string())
        );
    }
    let questions: Vec<Question> = qs
        .into_iter()
        .enumerate()
        .map(|(i, q)| Question {
            id: format!("passage-{i}"),
            question: q.text,
            doc: q.evidence.doc,
            spans: q.evidence.spans,
            tags: Vec::new(),
        })
        .collect();
    anyhow::ensure!(
        !questions.is_empty(),
        "no question to score (the corpus gave no passages)"
    );
    Ok((questions, source))
}

fn board_line(r: &BoardRow) -> String {
    format!(
        "  {:<40} {:<13} {:>6.1}% [{:>4.1}–{:>4.1}] {:>7.0} {:>5.1}% {:>5.2} {:>5.2}% {:>4} {:>7} {:>5.1}× {:>7.1}s {:>6}  {}",
        safe_name(&r.label),
        r.family.name(),
        r.failure_rate * 100.0,
        r.interval.low * 100.0,
        r.interval.high * 100.0,
        r.tokens,
        r.duplicate_share * 100.0,
        r.passages_twice,
        r.span_iou * 100.0,
        if r.stores_once { "yes" } else { "no" },
        r.vectors,
        r.vectors_vs_chunks,
        r.build_seconds,
        r.p_best
            .map_or_else(String::new, |p| format!("{:.0}%", p * 100.0)),
        match (r.pareto, r.excluded.is_some()) {
            (true, true) => "◆ ⊘",
            (true, false) => "◆",
            (false, true) => "⊘",
            (false, false) => "",
        }
    )
    .trim_end()
    .to_string()
}

/// The board as text: each family's best row, the Pareto rows, the top rows, the verdict and how
/// to deploy the leader.
pub fn render_board(b: &Board, top: usize) -> String {
    let mut out = String::new();
    board_heading(&mut out, b);
    board_tables(&mut out, b, top);
    board_legend(&mut out, b);
    board_verdict(&mut out, b);
    board_strategies(&mut out, b);
    out
}

/// What was measured: the source, the rows, the budget, the chunks, the embedder, constraints.
fn board_heading(out: &mut String, b: &Board) {
    let _ = writeln!(
        out,
        "strategy board on {}: {} rows, budget {} chunks, chunks of {} tokens ({} chunks), in {:.1}s",
        b.source,
        b.rows.len(),
        b.budget,
        b.chunk_tokens,
        b.chunks,
        b.seconds
    );
    let _ = writeln!(out, "embedder: {}", safe_name(&b.embedder));
    if let Some(c) = b.options.constraints.describe() {
        let _ = writeln!(
            out,
            "constraints: {c} (the verdict judges only the rows that satisfy them; ⊘ marks the rest)"
        );
    }
}

/// Each family's best row, then the top rows and the Pareto rows further down.
fn board_tables(out: &mut String, b: &Board, top: usize) {
    let header = format!(
        "  {:<40} {:<13} {:>7} {:<11} {:>7} {:>6} {:>5} {:>6} {:>4} {:>7} {:>6} {:>8} {:>6}",
        "row",
        "family",
        "fail",
        "95% int.",
        "tokens",
        "dup",
        "twice",
        "IoU",
        "once",
        "vectors",
        "×chunk",
        "build",
        "p_best"
    );
    let _ = writeln!(
        out,
        "\neach family at its best setting (p_best: share of resamples its family won, tuning included)"
    );
    let _ = writeln!(out, "{header}");
    for r in b.family_best() {
        let _ = writeln!(out, "{}", board_line(r));
    }
    let settings: usize = b.rows.iter().map(|r| r.members.len().max(1)).sum();
    let _ = writeln!(
        out,
        "\nthe {} best rows of {}{}",
        top.min(b.rows.len()),
        b.rows.len(),
        if settings > b.rows.len() {
            format!(
                " ({settings} settings: those with the same outcome on every question share a row)"
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "{header}");
    for r in b.rows.iter().take(top) {
        let _ = writeln!(out, "{}", board_line(r));
    }
    let more: Vec<&BoardRow> = b.rows.iter().skip(top).filter(|r| r.pareto).collect();
    if !more.is_empty() {
        let _ = writeln!(out, "  … Pareto rows further down:");
        for r in more {
            let _ = writeln!(out, "{}", board_line(r));
        }
    }
}

/// What the marks and columns mean, and the rows the constraints leave out.
fn board_legend(out: &mut String, b: &Board) {
    let _ = writeln!(
        out,
        "◆ Pareto: no other row is as good on failures, tokens and vectors and better on one"
    );
    let _ = writeln!(
        out,
        "dup: share of the tokens sent that were sent twice; twice: passages returned twice per answer; IoU: Chroma's token IoU over the gold spans (duplicates count against it); once: each passage stored once"
    );
    if let Some(left_out) =
        seamscope::board::constraint::excluded_words(&b.rows, &b.options.constraints)
    {
        let _ = writeln!(
            out,
            "⊘ left out by the constraints: {}",
            safe_name(&left_out)
        );
    }
}

/// The verdict (with and without constraints) and how to deploy the leader.
fn board_verdict(out: &mut String, b: &Board) {
    if let Some(v) = &b.verdict {
        let among = if b.options.constraints.any() {
            " (among the rows that satisfy the constraints)"
        } else {
            ""
        };
        let _ = writeln!(out, "\nverdict{among}: {}", safe_name(&v.sentence()));
        if let Some(u) = &b.unconstrained {
            let _ = writeln!(out, "without the constraints: {}", safe_name(&u.sentence()));
        }
        // A verdict that concludes nothing names no row to deploy.
        let lead = v
            .winner
            .as_deref()
            .or_else(|| v.contenders.first().map(|c| c.label.as_str()))
            .filter(|_| v.inconclusive.is_none());
        if let Some(row) = lead.and_then(|l| b.row(l)) {
            let _ = writeln!(
                out,
                "to deploy {}: {}",
                safe_name(&row.label),
                row.settings.deploy_hint(b.chunk_tokens)
            );
        }
    }
}

/// Each strategy as prepared: its vectors, texts embedded and times.
fn board_strategies(out: &mut String, b: &Board) {
    let _ = writeln!(
        out,
        "\nstrategies (each prepared once; every setting scored from its kept searches)"
    );
    for s in &b.strategies {
        let _ = writeln!(
            out,
            "  {:<40} {:>7} vectors, {:>6} texts embedded, build {:.1}s, search {:.1}s",
            safe_name(&s.label),
            s.vectors,
            s.embedded_texts,
            s.build_seconds,
            s.search_seconds
        );
    }
}

/// `tune --map`: the evidence-length map (with the gold set's lengths beside it when given).
pub fn run_map(
    global: &GlobalArgs,
    corpus: &Path,
    args: &TuneArgs,
    json: bool,
) -> anyhow::Result<()> {
    let settings = checked_settings(global, args)?;
    let mut engine = start_engine(settings.clone())?;
    let docs = engine.load_corpus(corpus)?;
    super::common::report_skips(&docs);
    let gold = match &args.questions {
        Some(path) => Some(super::common::load_question_file(path, &docs)?),
        None => None,
    };
    let mut bar = BuildBar::for_engine(&engine);
    let open = engine.open_loaded(docs, &mut |p| json || bar.update(p));
    bar.finish();
    let open = open?;
    let base = MapOptions::default();
    // With gold questions every offline kind is asked, so each is checked against them.
    let kinds = match (&args.kinds, &gold) {
        (Some(kinds), _) => kinds.clone(),
        (None, Some(_)) => seamscope::board::map::OFFLINE_KINDS.to_vec(),
        (None, None) => base.kinds.clone(),
    };
    let mut options = MapOptions {
        bands: args.bands.clone().unwrap_or(base.bands),
        per_band: args.per_band,
        seed: args.seed,
        kinds,
        board: board_options(args, base.board.clone()),
    };
    if args.resamples.is_none() {
        options.board.resamples = base.board.resamples;
    }
    let under = engine.settings.clone();
    let map = evidence_map(
        &mut engine,
        &open,
        &under,
        &options,
        gold.as_deref(),
        None,
        &mut progress_printer(json),
    )?
    .ok_or_else(|| anyhow::anyhow!("the map stopped early"))?;
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "map": map }))?
        )?;
    } else {
        out!("{}", render_map(&map))?;
    }
    Ok(())
}

/// The map as text: per band, each family's best row over all passages and over split ones,
/// then the verdict, the other kinds' verdicts and, with a gold set, how each kind agreed.
pub fn render_map(m: &EvidenceMap) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "evidence-length map: {} passages per band drawn uniformly over the corpus (seed {}), each asked as a {} question ({}); {} settings of {} strategies, budget {} chunks, chunks of {} tokens, in {:.1}s",
        m.options.per_band,
        m.options.seed,
        m.kind.name(),
        m.kind.describe(),
        m.settings_scored,
        m.strategies.len(),
        m.budget,
        m.chunk_tokens,
        m.seconds
    );
    let _ = writeln!(out, "question kind: {}", safe_name(&m.kind_checked));
    let _ = writeln!(out, "embedder: {}", safe_name(&m.embedder));
    if let Some(c) = m.options.board.constraints.describe() {
        let _ = writeln!(
            out,
            "constraints: {c} (each band's leaders are judged among the rows that satisfy them)"
        );
    }
    for b in &m.bands {
        render_band(&mut out, b);
    }
    map_verdicts(&mut out, m);
    if !m.agreement.is_empty() {
        map_agreement(&mut out, m);
    }
    let _ = writeln!(
        out,
        "split: failure rate over the passages a cut splits (strategies differ only there); dup: share of the tokens sent twice; once: each passage stored once"
    );
    out
}

/// The map's verdict (and without the constraints), the other kinds' and the gold set's.
fn map_verdicts(out: &mut String, m: &EvidenceMap) {
    let _ = writeln!(out, "\nmap verdict: {}", safe_name(&m.verdict));
    if let Some(u) = &m.unconstrained_verdict {
        let _ = writeln!(out, "without the constraints: {}", safe_name(u));
    }
    for v in &m.other_verdicts {
        let _ = writeln!(
            out,
            "asked as {} questions ({}): {}{}",
            v.kind.name(),
            v.kind.describe(),
            if v.disagrees {
                ""
            } else {
                "the same leaders; "
            },
            safe_name(&v.verdict)
        );
    }
    if let Some(g) = &m.gold_verdict {
        let _ = writeln!(out, "{}", safe_name(g));
    }
}

/// How each kind of question agreed with the gold set on split evidence, family by family.
fn map_agreement(out: &mut String, m: &EvidenceMap) {
    let _ = writeln!(
        out,
        "\neach kind of question against the gold set, on evidence a cut splits (best agreement first):"
    );
    for a in &m.agreement {
        let _ = writeln!(out, "  {}", safe_name(&a.words()));
    }
    if let Some(first) = m.agreement.first() {
        let _ = writeln!(
            out,
            "  {:<14} {}",
            "split failure",
            first
                .families
                .iter()
                .map(|f| format!("{:>12}", f.family.name()))
                .collect::<String>()
        );
        let _ = writeln!(
            out,
            "  {:<14} {}",
            "gold",
            first
                .families
                .iter()
                .map(|f| format!("{:>11.1}%", f.gold * 100.0))
                .collect::<String>()
        );
        for a in &m.agreement {
            let _ = writeln!(
                out,
                "  {:<14} {}",
                a.kind.name(),
                a.families
                    .iter()
                    .map(|f| format!("{:>11.1}%", f.map * 100.0))
                    .collect::<String>()
            );
        }
    }
}

/// A band with no passage measured: why, and the gold questions' rows when it has some.
fn render_empty_band(
    out: &mut String,
    b: &seamscope::board::map::MapBand,
    why: &str,
    gold_note: &str,
) {
    let what = if b.gold_only {
        "gold questions only"
    } else {
        "no passage of this length, not measured"
    };
    let _ = writeln!(
        out,
        "\n{}–{} tokens: {what}: {why}{gold_note}",
        b.min_tokens, b.max_tokens,
    );
    if let Some(g) = &b.gold {
        for r in &g.rows {
            let _ = writeln!(
                out,
                "  gold  {:<34} {:<13} {:>6.1}%",
                safe_name(&r.label),
                r.family.name(),
                r.failure_rate * 100.0
            );
        }
    }
}

/// One band of the map as text.
fn render_band(out: &mut String, b: &seamscope::board::map::MapBand) {
    let gold_note = if b.gold_questions > 0 {
        format!(
            "; {} gold questions ({} split)",
            b.gold_questions, b.gold_split
        )
    } else {
        String::new()
    };
    if let Some(why) = b.why_empty() {
        render_empty_band(out, b, &why, &gold_note);
        return;
    }
    let _ = writeln!(
        out,
        "\n{}–{} tokens: {} passages (mean {:.0} tokens), {} split by a cut{gold_note}",
        b.min_tokens, b.max_tokens, b.questions, b.mean_evidence_tokens, b.split_questions,
    );
    if let Some(why) = &b.short_because {
        let _ = writeln!(out, "  ({})", safe_name(why));
    }
    let _ = writeln!(
        out,
        "  {:<34} {:<13} {:>7} {:>7} {:>7} {:>5} {:>4} {:>6} {:>7}{}",
        "best row of each family",
        "family",
        "fail",
        "split",
        "tokens",
        "dup",
        "once",
        "×chunk",
        "p_best",
        if b.gold.is_some() { "    gold" } else { "" }
    );
    for r in &b.result.rows {
        let gold = b
            .gold
            .as_ref()
            .and_then(|g| g.rows.iter().find(|x| x.family == r.family))
            .map_or_else(String::new, |g| {
                format!(" {:>6.1}%", g.failure_rate * 100.0)
            });
        let _ = writeln!(
            out,
            "  {:<34} {:<13} {:>6.1}% {:>7} {:>7.0} {:>4.1}% {:>4} {:>5.1}× {:>6.0}%{gold}",
            safe_name(&r.label),
            r.family.name(),
            r.failure_rate * 100.0,
            r.split_failure_rate
                .map_or_else(|| "-".to_string(), |s| format!("{:.1}%", s * 100.0)),
            r.tokens,
            r.duplicate_share * 100.0,
            if r.stores_once { "yes" } else { "no" },
            r.vectors_vs_chunks,
            r.p_best * 100.0
        );
    }
    let _ = writeln!(
        out,
        "  verdict: {}",
        safe_name(&b.result.verdict.sentence())
    );
    if let Some(u) = &b.unconstrained {
        let _ = writeln!(
            out,
            "  without the constraints: {}",
            safe_name(&u.verdict.sentence())
        );
    }
}
