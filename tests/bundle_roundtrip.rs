//! Export, then open the bundle again: with the real model on the sample corpus, every question of
//! its question set gets the same fused ranking, the same fire decisions and the same budget fill
//! (with and without Seams) from the bundle as from the live index; a damaged, foreign or
//! re-cut bundle is refused with the file and the reason named.

mod common;

use std::path::{Path, PathBuf};

use seamscope::embed::Embedder;
use seamscope::eval::questions::load_questions;
use seamscope::export::{BundleLayout, write_bundle};
use seamscope::retrieve::Trace;
use seamscope::session::{Engine, OpenCorpus};

fn sample() -> (Engine, OpenCorpus) {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache");
    let mut engine = common::engine(&cache);
    let open = engine
        .open_corpus(Path::new("sample-corpus"), &mut |_| true)
        .unwrap();
    (engine, open)
}

fn export(engine: &Engine, open: &OpenCorpus, out: &Path) {
    let (cache, _) = engine.vector_cache();
    let s = &engine.settings;
    let cut = BundleLayout {
        prefixes: Default::default(),
        chunker: s.chunker,
        chunk_tokens: s.chunk_tokens,
        heading_prefix: s.heading_prefix,
        m_source: seamscope::export::provenance::MarginSource::Settings,
        calibration: None,
        tune: None,
    };
    let laid = seamscope::export::Laid {
        corpus: &open.corpus,
        layout: &open.layout,
    };
    write_bundle(
        laid,
        cut,
        &s.query_settings(),
        &cache,
        engine.embedder.identity(),
        engine.embedder.dim(),
        out,
    )
    .unwrap();
}

/// What a deployed Seams stage decides for one question: the fused entries with their scores,
/// each fire test, the fill with Seams and the fill without.
type Decided = (Vec<String>, Vec<(u32, bool)>, Vec<u32>, Vec<u32>);

fn decisions(t: &Trace) -> Decided {
    (
        t.fused
            .iter()
            .map(|e| format!("{:?} {:.6}", e.entry, e.score))
            .collect(),
        t.decisions.iter().map(|d| (d.seam.0, d.fires)).collect(),
        t.fill.chunks.iter().map(|c| c.0).collect(),
        t.without_seams
            .shown()
            .without_seams
            .iter()
            .map(|c| c.0)
            .collect(),
    )
}

#[test]
fn a_bundle_answers_every_sample_question_as_the_live_index_does() {
    let (mut engine, open) = sample();
    let dir = tempfile::tempdir().unwrap();
    let bundle_dir = dir.path().join("bundle");
    export(&engine, &open, &bundle_dir);
    let bundle = engine.open_bundle(&bundle_dir).unwrap();
    assert_eq!(bundle.corpus.documents, open.corpus.documents);
    assert_eq!(bundle.layout.chunks, open.layout.chunks);
    assert_eq!(bundle.layout.seams, open.layout.seams);

    let questions =
        load_questions(Path::new("sample-corpus/questions.jsonl"), &open.corpus).unwrap();
    assert_eq!(questions.len(), 130);
    let settings = engine.settings.query_settings();
    let mut fired = 0;
    for q in &questions {
        let (live, _) = engine.ask(&open, &q.question, &settings).unwrap();
        let (bundled, _) = engine.ask(&bundle, &q.question, &settings).unwrap();
        assert_eq!(
            decisions(&bundled),
            decisions(&live),
            "{}: the bundle answers differently",
            q.id
        );
        fired += live.decisions.iter().filter(|d| d.fires).count();
    }
    assert!(fired > 0, "some seam fires on the sample questions");
}

#[test]
fn a_damaged_or_foreign_bundle_is_refused_with_the_file_named() {
    let (mut engine, open) = sample();
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    export(&engine, &open, &bundle);

    // One byte changed in the vectors: the manifest's hash catches it.
    let npy = bundle.join("seam_vectors.npy");
    let mut bytes = std::fs::read(&npy).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&npy, &bytes).unwrap();
    let msg = refusal(&mut engine, &bundle);
    assert!(
        msg.contains("seam_vectors.npy is damaged") && msg.contains("blake3"),
        "{msg}"
    );
    bytes[last] ^= 0x40;
    std::fs::write(&npy, &bytes).unwrap();
    assert!(engine.open_bundle(&bundle).is_ok(), "restored, it opens");

    // Another model's vectors: refused before any question is embedded with the wrong model.
    let settings_path = bundle.join("settings.json");
    let original = std::fs::read_to_string(&settings_path).unwrap();
    let mut settings: serde_json::Value = serde_json::from_str(&original).unwrap();
    settings["model"] = "some-other-model".into();
    let edited = serde_json::to_vec_pretty(&settings).unwrap();
    std::fs::write(&settings_path, &edited).unwrap();
    rehash(&bundle, "settings.json", &edited);
    let msg = refusal(&mut engine, &bundle);
    assert!(
        msg.contains("some-other-model") && msg.contains("another model"),
        "{msg}"
    );

    // A chunk size the records were not cut with: the layout check names the difference.
    settings["model"] = engine.embedder.identity().into();
    settings["chunk_tokens"] = 512.into();
    let edited = serde_json::to_vec_pretty(&settings).unwrap();
    std::fs::write(&settings_path, &edited).unwrap();
    rehash(&bundle, "settings.json", &edited);
    let msg = refusal(&mut engine, &bundle);
    assert!(msg.contains("cut by another chunker version"), "{msg}");

    // No manifest: named.
    std::fs::remove_file(bundle.join("manifest.json")).unwrap();
    let msg = refusal(&mut engine, &bundle);
    assert!(msg.contains("cannot read manifest.json"), "{msg}");
}

/// Record `bytes` as the new content of `name` in the bundle's manifest.
fn rehash(bundle: &Path, name: &str, bytes: &[u8]) {
    let path = bundle.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for f in manifest["files"].as_array_mut().unwrap() {
        if f["name"] == name {
            f["bytes"] = bytes.len().into();
            f["blake3"] = blake3::hash(bytes).to_hex().to_string().into();
        }
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

/// Why `bundle` does not open.
fn refusal(engine: &mut Engine, bundle: &Path) -> String {
    match engine.open_bundle(bundle) {
        Ok(_) => panic!("{} opened", bundle.display()),
        Err(e) => e.to_string(),
    }
}
