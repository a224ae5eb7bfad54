//! Late chunking on the real model: the token states it pools are the model's own (the whole
//! text pooled is its sentence vector), a chunk read in its document leans towards its
//! neighbours, and a document past the window is read in macro windows.

mod common;

use seamscope::corpus::Span;
use seamscope::embed::late::late_vectors;
use seamscope::embed::{Embedder, cosine};

/// The spans of `parts` laid end to end with one space between them, and the text.
fn laid_out(parts: &[&str]) -> (String, Vec<Span>) {
    let mut text = String::new();
    let mut spans = Vec::new();
    for part in parts {
        if !text.is_empty() {
            text.push(' ');
        }
        let start = text.len();
        text.push_str(part);
        spans.push(Span::new(start, text.len()));
    }
    (text, spans)
}

#[test]
fn the_whole_text_pooled_is_the_models_own_vector() {
    let cache = tempfile::tempdir().unwrap();
    let mut engine = common::engine(cache.path());
    let text = "The Nimbus gateway retries a failed upload three times. After the third failure it \
                writes the request to a dead-letter queue that operators drain every morning.";
    let late = late_vectors(
        &mut engine.embedder,
        &engine.tokenizer,
        text,
        &[Span::new(0, text.len())],
    )
    .unwrap();
    let own = engine.embedder.embed(&[text]).unwrap();
    let agreement = cosine(&late.vectors[0], &own[0]);
    eprintln!("whole text pooled vs the model's vector: cosine {agreement:.6}");
    assert_eq!(late.windows, 1);
    assert!(agreement >= 0.999, "cosine {agreement}");
}

#[test]
fn a_chunk_read_in_its_document_leans_towards_its_neighbours() {
    let cache = tempfile::tempdir().unwrap();
    let mut engine = common::engine(cache.path());
    let parts = [
        "The Nimbus gateway keeps a dead-letter queue for uploads that failed three times.",
        "Operators drain it every morning and replay what they can.",
        "It holds at most ten thousand entries before the oldest are dropped.",
    ];
    let (text, spans) = laid_out(&parts);
    let late = late_vectors(&mut engine.embedder, &engine.tokenizer, &text, &spans).unwrap();
    let alone = engine.embedder.embed(&parts).unwrap();
    for (i, v) in late.vectors.iter().enumerate() {
        let norm: f32 = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "chunk {i} has norm {norm}");
        assert!(
            cosine(v, &alone[i]) < 0.9999,
            "chunk {i} is its isolated vector"
        );
    }
    // The third chunk says "It" and means the queue the first one names: read in its document
    // it is nearer that neighbour than it is read alone.
    let (late_third, alone_third, first) = (&late.vectors[2], &alone[2], &alone[0]);
    eprintln!(
        "third chunk vs the first: late {:.4}, alone {:.4}",
        cosine(late_third, first),
        cosine(alone_third, first)
    );
    assert!(
        cosine(late_third, first) > cosine(alone_third, first),
        "late {} vs alone {}",
        cosine(late_third, first),
        cosine(alone_third, first)
    );
}

#[test]
fn a_document_past_the_window_is_read_in_macro_windows() {
    let cache = tempfile::tempdir().unwrap();
    let mut engine = common::engine(cache.path());
    let parts: Vec<String> = (0..40)
        .map(|i| format!("Paragraph {i} says why the team chose a queue for step {i}, and what undoing it would cost."))
        .collect();
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let (text, spans) = laid_out(&refs);
    let tokens = engine.tokenizer.count(&text).unwrap();
    let window = engine.embedder.max_tokens();
    assert!(
        tokens > 2 * window,
        "{tokens} tokens for a window of {window}"
    );
    let late = late_vectors(&mut engine.embedder, &engine.tokenizer, &text, &spans).unwrap();
    assert!(
        late.windows >= tokens.div_ceil(window),
        "{} windows",
        late.windows
    );
    assert_eq!(late.vectors.len(), spans.len());
    let alone = engine.embedder.embed(&refs).unwrap();
    for (i, v) in late.vectors.iter().enumerate() {
        let norm: f32 = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "paragraph {i} has norm {norm}");
        // Each paragraph's late vector still resembles its own text.
        assert!(
            cosine(v, &alone[i]) > 0.5,
            "paragraph {i}: {}",
            cosine(v, &alone[i])
        );
    }
}

/// Late chunking beside chunks only and Seams on the sample's gold questions: every row is
/// scored, the late rows search other vectors than the isolated ones, and a second run embeds
/// nothing (the cache serves every late vector) and searches the same.
#[test]
fn late_rows_on_the_sample_and_a_rerun_reads_nothing() {
    use seamscope::eval::grid::GridSettings;
    use seamscope::eval::run::search_strategies;
    use seamscope::eval::strategy::Strategy;

    let (mut engine, open, questions, vectors) = common::sample_with_questions();
    let grid = GridSettings::from_settings(&engine.settings);
    let window = engine.embedder.max_tokens();
    let k = open.layout.k;
    let strategies = [
        Strategy::NoOverlap,
        Strategy::LateChunks { window },
        Strategy::Seams { k },
        Strategy::LateSeams { window, k },
    ];
    let run = |engine: &mut seamscope::session::Engine| {
        search_strategies(
            engine,
            &open,
            &questions,
            &vectors,
            &strategies,
            &grid,
            &mut |_| true,
        )
        .unwrap()
        .unwrap()
    };
    let first = run(&mut engine);
    let rows: Vec<_> = first
        .iter()
        .map(|s| s.row(&open.layout, &questions, &grid))
        .collect();
    common::print_rows(&rows);
    assert_eq!(rows[1].label, format!("late · window {window}"));
    assert_eq!(
        rows[1].vectors, rows[0].vectors,
        "late chunking stores one vector a chunk"
    );
    assert_eq!(
        rows[3].vectors, rows[2].vectors,
        "late + Seams stores what Seams stores"
    );
    // The late rows searched other vectors: their rankings are not the isolated rows'.
    assert_ne!(first[1].lists, first[0].lists);
    assert_ne!(first[3].lists, first[2].lists);
    let again = run(&mut engine);
    for (once, twice) in first.iter().zip(&again) {
        eprintln!(
            "{}: {} texts embedded, then {}",
            once.label, once.embedded_texts, twice.embedded_texts
        );
        assert_eq!(twice.embedded_texts, 0, "{}: embedded again", twice.label);
        assert_eq!(
            twice.lists, once.lists,
            "{}: searched otherwise",
            twice.label
        );
    }
}
