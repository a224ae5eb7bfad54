//! The document view: the text with a marker row at every cut, each seam window highlighted on
//! both sides of its cut, code and Markdown highlighted, and the entry under the cursor described.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use seamscope::chunk::atoms::Atom;
use seamscope::chunk::{Chunk, ChunkId};
use seamscope::corpus::{DocKind, Document, Span as ByteSpan};
use seamscope::retrieve::{EntryRef, Trace};
use seamscope::seam::Seam;
use seamscope::session::OpenCorpus;

use crate::tui::action::Pane;
use crate::tui::app::{App, Shown};
use crate::tui::chrome::{empty_hint, fit, pane_block};
use crate::tui::doc_atoms::{split_classes, split_note, split_spans};
use crate::tui::doc_rows::{GUTTER, Row, display_text, doc_chunks, doc_seams};
use crate::tui::highlight::{SyntaxClass, Token};
use crate::tui::screen::{Areas, inside};
use crate::tui::step::Reveal;
use crate::tui::theme::Theme;
use crate::tui::widgets::gauge::thousands;

/// What the rows of one document are painted with.
struct Paint<'a> {
    theme: &'a Theme,
    text: &'a str,
    tokens: &'a [Token],
    seams: &'a [Seam],
    atoms: &'a [Atom],
    /// The atoms of this document that a cut splits.
    split: Vec<ByteSpan>,
    selected_chunk: Option<ByteSpan>,
    selected_seam: Option<&'a Seam>,
    context: Vec<ChunkId>,
    trace: Option<&'a Trace>,
    /// How much of the trace presenter mode has shown.
    reveal: Option<&'a Reveal>,
    /// The picked gold question's evidence in this document.
    evidence: Vec<ByteSpan>,
    /// Text two neighbouring chunks share (given cuts that overlap).
    overlaps: Vec<ByteSpan>,
    open: &'a OpenCorpus,
    /// Byte offset → page, for a paged document (a PDF): each cut names its page.
    pages: &'a seamscope::extract::PageMap,
    width: usize,
}

/// Draw the document view.
pub fn draw(app: &App, shown: &Shown, frame: &mut Frame, areas: &Areas) {
    let t = &app.theme;
    let open = &shown.open;
    let Some(doc) = open.corpus.documents.get(app.view.doc.0 as usize) else {
        frame.render_widget(pane_block(app, Pane::Text, " Text "), areas.text);
        return;
    };
    let chunks = doc_chunks(&open.layout, doc.id);
    let seams = &open.layout.seams[doc_seams(&open.layout, doc.id)];
    let title = title(doc, chunks.len(), seams.len(), areas.text.width);
    frame.render_widget(pane_block(app, Pane::Text, title), areas.text);
    let inner = inside(areas.text);
    let info_area = Rect { height: 1, ..inner };
    let trace = app.answer.as_ref().map(|a| &a.trace);
    let reveal = app.reveal();
    frame.render_widget(
        Paragraph::new(info_line(
            app,
            open,
            trace,
            reveal.as_ref(),
            usize::from(info_area.width),
        )),
        info_area,
    );

    let body = areas.body(Pane::Text);
    let width = usize::from(body.width).saturating_sub(GUTTER);
    let rows = app.doc_rows(doc.id, width);
    let cursor = app.view.cursor;
    let atoms = shown.atoms.doc(doc.id);
    // Where each seam cuts: a chunk's start, or the middle of what given chunks share.
    let cuts: Vec<usize> = seams.iter().map(|s| s.cut).collect();
    let overlaps = shared_text(&open.layout.chunks[chunks.clone()]);
    let paint = Paint {
        theme: t,
        text: &doc.text,
        pages: &doc.source.pages,
        tokens: shown.highlights.doc(doc.id),
        seams,
        atoms,
        split: split_spans(atoms, &cuts),
        selected_chunk: match cursor {
            Some(EntryRef::Chunk(c)) => open.layout.chunks.get(c.0 as usize).map(|c| c.span),
            _ => None,
        },
        selected_seam: match cursor {
            Some(EntryRef::Seam(s)) => open.layout.seams.get(s.0 as usize),
            _ => None,
        },
        context: reveal
            .as_ref()
            .map(|r| r.context.clone())
            .unwrap_or_default(),
        trace,
        reveal: reveal.as_ref(),
        evidence: app
            .gold
            .as_ref()
            .filter(|g| g.doc == doc.id)
            .map(|g| g.spans.clone())
            .unwrap_or_default(),
        overlaps,
        open,
        width,
    };
    if rows.rows.is_empty() {
        frame.render_widget(empty_hint(t, "this document has no chunks"), body);
        return;
    }
    let lines: Vec<Line> = rows
        .rows
        .iter()
        .skip(app.view.scroll)
        .take(usize::from(body.height))
        .map(|row| paint.row(*row))
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

/// The pane's title: the document's name, kind and counts, the widest wording that fits
/// `width` (the name stays whole as long as it can).
fn title(doc: &Document, chunks: usize, seams: usize, width: u16) -> String {
    let kind = match doc.kind {
        DocKind::Markdown => "markdown",
        DocKind::Code => "code",
        DocKind::Text => "text",
    };
    // An extracted document says its format, and its pages when it has them.
    let kind = match doc.source.pages.len() {
        _ if doc.source.is_plain() => kind.to_string(),
        0 => seamscope::text::safe_name(&doc.source.extractor),
        n => format!(
            "{} · {n} pages",
            seamscope::text::safe_name(&doc.source.extractor)
        ),
    };
    let name = seamscope::text::safe_name(&doc.path);
    let room = usize::from(width).saturating_sub(2);
    [
        format!(" {name} · {kind} · {chunks} chunks · {seams} seams "),
        format!(" {name} · {chunks} chunks "),
        format!(" {name} "),
    ]
    .into_iter()
    .find(|t| Span::raw(t.as_str()).width() <= room)
    .unwrap_or_else(|| fit(&format!(" {name} "), room))
}

/// Text two neighbouring chunks both hold (given cuts that overlap), one span per pair.
fn shared_text(chunks: &[Chunk]) -> Vec<ByteSpan> {
    chunks
        .windows(2)
        .filter(|w| w[1].span.start < w[0].span.end)
        .map(|w| ByteSpan::new(w[1].span.start, w[0].span.end))
        .collect()
}

/// A chunk's size, bytes and fused position, in the widest wording that fits `room`.
fn chunk_details(chunk: &Chunk, ranked: &str, short: &str, room: usize) -> String {
    let (tokens, start, end) = (
        thousands(chunk.tokens as usize),
        thousands(chunk.span.start),
        thousands(chunk.span.end),
    );
    widest(
        &[
            format!(" · {tokens} tokens · bytes {start}–{end}{ranked}"),
            format!(" · {tokens} tok · {start}–{end}{ranked}"),
            format!(" · {tokens} tok{ranked}"),
            format!(" · {tokens} tok{short}"),
            format!(" · {tokens} tok"),
        ],
        room,
    )
}

/// A seam window's tokens either side of its cut, bytes and fused position, in the widest
/// wording that fits `room`.
fn seam_details(seam: &Seam, ranked: &str, short: &str, room: usize) -> String {
    let (l, r, start, end) = (
        seam.left_tokens,
        seam.right_tokens,
        thousands(seam.span.start),
        thousands(seam.span.end),
    );
    widest(
        &[
            format!(" · {l} + {r} tokens around the cut · bytes {start}–{end}{ranked}"),
            format!(" · {l}+{r} tok · {start}–{end}{ranked}"),
            format!(" · {l}+{r} tok{ranked}"),
            format!(" · {l}+{r} tok{short}"),
            format!(" · {l}+{r} tok"),
        ],
        room,
    )
}

/// The line describing the chunk or seam under the cursor.
fn info_line<'a>(
    app: &App,
    open: &OpenCorpus,
    trace: Option<&Trace>,
    reveal: Option<&Reveal>,
    width: usize,
) -> Line<'a> {
    let t = &app.theme;
    let Some(entry) = app.view.cursor else {
        return Line::styled(
            "n/p next/previous chunk · ]/[ next/previous cut · click the text to select",
            t.muted,
        );
    };
    let position = trace.and_then(|tr| tr.fused.iter().position(|e| e.entry == entry));
    let ranked = position.map_or_else(
        || " · not in the ranking".to_string(),
        |p| format!(" · fused #{}", p + 1),
    );
    let short = position.map_or_else(|| " · unranked".to_string(), |p| format!(" · #{}", p + 1));
    // The full name when there is room for the details too, else the id alone.
    let label = open.entry_label(entry);
    let label = if Span::raw(label.as_str()).width() + 24 <= width {
        label
    } else {
        crate::tui::step::short_name(open, entry)
    };
    let mut spans = vec![Span::styled(label, t.title)];
    match entry {
        EntryRef::Chunk(c) => {
            if let Some(chunk) = open.layout.chunks.get(c.0 as usize) {
                let room = width.saturating_sub(used(&spans));
                spans.push(Span::styled(
                    chunk_details(chunk, &ranked, &short, room),
                    t.text,
                ));
                if reveal.is_some_and(|r| r.context.contains(&c)) {
                    spans.push(Span::styled(" · in the context", t.in_context));
                }
            }
        }
        EntryRef::Seam(s) => {
            if let Some(seam) = open.layout.seams.get(s.0 as usize) {
                // Room is kept for the verdict that follows.
                let room = width.saturating_sub(used(&spans) + 10);
                spans.push(Span::styled(
                    seam_details(seam, &ranked, &short, room),
                    t.text,
                ));
                let decided = trace.and_then(|tr| {
                    let i = tr.decisions.iter().position(|d| d.seam == s)?;
                    reveal
                        .is_some_and(|r| r.decided(i))
                        .then(|| &tr.decisions[i])
                });
                match decided {
                    Some(d) if d.fires => spans.push(Span::styled(" · fires", t.fired)),
                    Some(_) => spans.push(Span::styled(" · dropped", t.dropped)),
                    None => {}
                }
            }
        }
    }
    Line::from(spans)
}

impl Paint<'_> {
    fn row(&self, row: Row) -> Line<'static> {
        match row {
            Row::Marker { chunk, seam } => self.marker(chunk, seam.map(|s| s.0 as usize)),
            Row::Text { chunk, start, end } => self.text_row(Some(chunk), start, end),
            Row::UncoveredMarker { bytes } => self.uncovered_marker(bytes),
            Row::Uncovered { start, end } => self.text_row(None, start, end),
        }
    }

    /// The row above text no chunk holds.
    fn uncovered_marker(&self, bytes: usize) -> Line<'static> {
        let t = self.theme;
        let full = self.width + GUTTER;
        let head = widest(
            &[
                format!("░ uncovered · {} bytes no chunk holds ", thousands(bytes)),
                "░ uncovered ".to_string(),
            ],
            full,
        );
        let used = Span::raw(head.as_str()).width();
        Line::from(vec![
            Span::styled(head, t.uncovered),
            Span::styled("─".repeat(full.saturating_sub(used)), t.uncovered),
        ])
    }

    /// The fire test's verdict on `seam`, once presenter mode has reached its decision.
    fn verdict(&self, seam: &Seam) -> Option<(String, Style)> {
        let t = self.theme;
        let trace = self.trace?;
        let i = trace.decisions.iter().position(|d| d.seam == seam.id)?;
        if !self.reveal.is_some_and(|r| r.decided(i)) {
            return None;
        }
        let d = &trace.decisions[i];
        Some(if d.fires {
            (format!("fires at #{} ", d.seam_position), t.fired)
        } else {
            (format!("dropped at #{} ", d.seam_position), t.dropped)
        })
    }

    /// The line where `chunk` starts: its cut, with the seam window there, its verdict and any
    /// block the cut splits; or, where no seam leads into it, the chunk's name and size.
    fn marker(&self, chunk: ChunkId, seam: Option<usize>) -> Line<'static> {
        let t = self.theme;
        let open = self.open;
        let tokens = open
            .layout
            .chunks
            .get(chunk.0 as usize)
            .map_or(0, |c| c.tokens as usize);
        let chunk_span = open.layout.chunks.get(chunk.0 as usize).map(|c| c.span);
        let mut style = t.cut;
        if chunk_span.is_some() && self.selected_chunk == chunk_span {
            style = style.patch(t.chunk_selected);
        }
        let window = seam.and_then(|s| open.layout.seams.get(s));
        // The page the cut (or the chunk's start) is on, for a paged document.
        let at = window.map_or_else(|| chunk_span.map_or(0, |c| c.start), |s| s.cut);
        let page = self
            .pages
            .page_at(at)
            .map(|p| format!("p. {p} · "))
            .unwrap_or_default();
        let (head, rest) = match window {
            Some(s) => (
                format!("✂ cut {}|{} · {page}", s.left.0, s.right.0),
                format!(
                    "chunk {} · {} tokens · seam window {} + {} tokens ",
                    chunk.0,
                    thousands(tokens),
                    s.left_tokens,
                    s.right_tokens
                ),
            ),
            None => (
                format!("▶ {page}"),
                format!(
                    "{} · {} tokens ",
                    open.chunk_label(chunk),
                    thousands(tokens)
                ),
            ),
        };
        // The verdict comes first, so a narrow pane cuts the details rather than the verdict.
        let verdict = window.and_then(|s| self.verdict(s));
        let full = self.width + GUTTER;
        let mut spans = vec![Span::styled(head, style)];
        if let Some((v, s)) = verdict {
            spans.push(Span::styled(v, s));
            spans.push(Span::styled("· ", style));
        }
        let splits = window.and_then(|s| split_note(&split_classes(self.atoms, s.cut)));
        if let Some(note) = splits {
            spans.push(Span::styled(format!("✂ {note} "), t.atom_split));
            spans.push(Span::styled("· ", style));
        }
        let used: usize = spans.iter().map(Span::width).sum();
        let room = full.saturating_sub(used + 2);
        // Shorter forms before cutting: the ids and counts stay whole.
        let rest = match window {
            Some(s) => widest(
                &[
                    rest,
                    format!(
                        "chunk {} · {} tok · window {}+{} ",
                        chunk.0,
                        thousands(tokens),
                        s.left_tokens,
                        s.right_tokens
                    ),
                    format!("chunk {} · {} tok ", chunk.0, thousands(tokens)),
                    format!("chunk {} ", chunk.0),
                ],
                room,
            ),
            None => widest(
                &[
                    rest,
                    format!("chunk {} · {} tok ", chunk.0, thousands(tokens)),
                ],
                room,
            ),
        };
        let used = used + Span::raw(rest.as_str()).width();
        spans.push(Span::styled(rest, style));
        spans.push(Span::styled("─".repeat(full.saturating_sub(used)), t.cut));
        Line::from(spans)
    }

    /// A row of text in `chunk`, or of text no chunk holds (`None`).
    fn text_row(&self, chunk: Option<ChunkId>, start: usize, end: usize) -> Line<'static> {
        let t = self.theme;
        let in_split = self.split.iter().any(|s| s.start < end && start < s.end);
        let in_overlap = self.overlaps.iter().any(|s| s.start < end && start < s.end);
        let mut spans = vec![
            if chunk.is_some_and(|c| self.context.contains(&c)) {
                Span::styled("▎", t.in_context)
            } else {
                Span::raw(" ")
            },
            if chunk.is_none() {
                Span::styled("░", t.uncovered)
            } else if in_split {
                Span::styled("┊", t.atom_split)
            } else if in_overlap {
                Span::styled("≡", t.overlap)
            } else {
                Span::raw(" ")
            },
        ];
        let mut points = vec![start, end];
        let first_token = self.tokens.partition_point(|tk| tk.end <= start);
        for tk in self.tokens[first_token..]
            .iter()
            .take_while(|tk| tk.start < end)
        {
            points.extend([tk.start, tk.end]);
        }
        for s in self
            .seams
            .iter()
            .filter(|s| s.span.start < end && s.span.end > start)
        {
            points.extend([s.span.start, s.cut, s.span.end]);
        }
        if let Some(span) = self.selected_chunk {
            points.extend([span.start, span.end]);
        }
        for span in self
            .split
            .iter()
            .chain(&self.evidence)
            .chain(&self.overlaps)
        {
            points.extend([span.start, span.end]);
        }
        points.retain(|p| (start..=end).contains(p));
        points.sort_unstable();
        points.dedup();
        for pair in points.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let shown = display_text(&self.text[a..b]);
            if !shown.is_empty() {
                let style = self.style_at(a);
                let style = if chunk.is_none() {
                    style.patch(t.uncovered)
                } else {
                    style
                };
                spans.push(Span::styled(shown, style));
            }
        }
        Line::from(spans)
    }

    /// The style of the text at byte `at`: syntax, then the selected chunk, then seam windows.
    fn style_at(&self, at: usize) -> Style {
        let t = self.theme;
        let mut style = t.text;
        let i = self.tokens.partition_point(|tk| tk.end <= at);
        if let Some(tk) = self.tokens.get(i).filter(|tk| tk.start <= at) {
            style = style.patch(syntax_style(t, tk.class));
        }
        if self.split.iter().any(|s| s.start <= at && at < s.end) {
            style = style.patch(t.atom_split_text);
        }
        if self.overlaps.iter().any(|s| s.start <= at && at < s.end) {
            style = style.patch(t.overlap);
        }
        if self.evidence.iter().any(|s| s.start <= at && at < s.end) {
            style = style.patch(t.evidence);
        }
        if self
            .selected_chunk
            .is_some_and(|s| s.start <= at && at < s.end)
        {
            style = style.patch(t.chunk_selected);
        }
        let inside = |s: &&Seam| s.span.start <= at && at < s.span.end;
        if self.selected_seam.filter(inside).is_some() {
            style = style.patch(t.seam_selected);
        } else if let Some(seam) = self.seams.iter().rfind(inside) {
            style = style.patch(if at < seam.cut {
                t.seam_left
            } else {
                t.seam_right
            });
        }
        style
    }
}

/// The first of `forms` (longest first) that fits in `width` columns, else the last one cut.
fn widest(forms: &[String], width: usize) -> String {
    forms
        .iter()
        .find(|f| Span::raw(f.as_str()).width() <= width)
        .cloned()
        .unwrap_or_else(|| fit(forms.last().map_or("", String::as_str), width))
}

/// Columns taken by `spans`.
fn used(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// The theme's style for a syntax class.
pub fn syntax_style(t: &Theme, class: SyntaxClass) -> Style {
    match class {
        SyntaxClass::Keyword => t.syntax_keyword,
        SyntaxClass::String => t.syntax_string,
        SyntaxClass::Comment => t.syntax_comment,
        SyntaxClass::Number => t.syntax_number,
        SyntaxClass::Function => t.syntax_function,
        SyntaxClass::Type => t.syntax_type,
        SyntaxClass::Heading => t.syntax_heading,
        SyntaxClass::Code => t.syntax_code,
        SyntaxClass::Emphasis => t.syntax_emphasis,
        SyntaxClass::Link => t.syntax_link,
    }
}
