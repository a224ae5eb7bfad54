//! Files that attack the reader through the file system or their format rather than their
//! text: a bundle whose files are symbolic links (to `/dev/zero` once filled memory), FIFOs (once
//! hung `import`), folders or larger than their limit; `.npy` headers numpy refuses but a
//! substring check accepted; vectors of NaN, infinity or zeros; settings out of range; a view
//! file naming a large folder; question and cuts files that begin with a byte-order mark. The
//! hostile files are kept in `tests/fixtures/hostile/` (links and FIFOs are made here).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use seamscope::export::read::read_bundle;

use common::hostile::{FIXTURES, bundle};

/// Make a FIFO at `path`.
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Why the bundle in `dir` does not open, read on another thread so a reader that blocks (on a
/// FIFO) fails the test instead of hanging it.
fn refusal(dir: &Path) -> String {
    let dir = dir.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_bundle(&dir).map(|_| ()).map_err(|e| e.to_string()));
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(Ok(())) => panic!("the bundle opened"),
        Ok(Err(e)) => e,
        Err(_) => panic!("reading the bundle hung"),
    }
}

/// What puts a hostile thing at a bundle file's path.
type MakeFile = dyn Fn(&Path);

#[test]
fn bundle_files_that_are_links_fifos_folders_or_too_large_are_refused_by_name() {
    assert!(read_bundle(bundle("bundle-base").path()).is_ok());
    let cases: [(&str, &str, &MakeFile); 5] = [
        ("settings.json", "symbolic link", &|p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
        ("chunks.jsonl", "symbolic link", &|p| {
            // A link to a copy of the very file: still a link, never followed.
            let copy = p.with_file_name("elsewhere.jsonl");
            std::fs::write(
                &copy,
                std::fs::read(Path::new(FIXTURES).join("bundle-base/chunks.jsonl")).unwrap(),
            )
            .unwrap();
            std::os::unix::fs::symlink(&copy, p).unwrap()
        }),
        ("chunk_vectors.npy", "a FIFO", &|p| fifo(p)),
        ("manifest.json", "a FIFO", &|p| fifo(p)),
        ("documents.jsonl", "a folder", &|p| {
            std::fs::create_dir(p).unwrap()
        }),
    ];
    for (name, said, make) in cases {
        let dir = bundle("bundle-base");
        let path = dir.path().join(name);
        std::fs::remove_file(&path).unwrap();
        make(&path);
        let e = refusal(dir.path());
        assert!(
            e.contains(&format!("bundle {}", dir.path().display()))
                && e.contains(&format!("cannot read {name}"))
                && e.contains(said),
            "{name}: {e}"
        );
    }
}

#[test]
fn a_vector_file_past_its_limit_is_not_read() {
    // The manifest agrees with the file, but 1 row of 384 floats cannot take 2 MB.
    let dir = bundle("bundle-base");
    let path = dir.path().join("chunk_vectors.npy");
    let mut npy = std::fs::read(&path).unwrap();
    npy.resize(2 * 1024 * 1024, 0);
    std::fs::write(&path, &npy).unwrap();
    let manifest_path = dir.path().join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    for f in manifest["files"].as_array_mut().unwrap() {
        if f["name"] == "chunk_vectors.npy" {
            f["bytes"] = npy.len().into();
            f["blake3"] = blake3::hash(&npy).to_hex().to_string().into();
        }
    }
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let e = refusal(dir.path());
    assert!(
        e.contains("cannot read chunk_vectors.npy") && e.contains("2097152 bytes, more than the"),
        "{e}"
    );
}

#[test]
fn npy_headers_numpy_refuses_and_unusable_vectors_are_refused() {
    for (variant, said) in [
        ("bundle-npy-spoof", "unexpected key \"note\""),
        ("bundle-nan", "row 0 holds NaN (column 5)"),
        ("bundle-zero", "row 0 is all zeros"),
    ] {
        let dir = bundle(variant);
        let e = refusal(dir.path());
        assert!(
            e.contains("chunk_vectors.npy is damaged") && e.contains(said),
            "{variant}: {e}"
        );
    }
}

#[test]
fn import_refuses_a_fifo_instead_of_waiting_on_it() {
    let cache = tempfile::tempdir().unwrap();
    let dir = bundle("bundle-base");
    let settings = dir.path().join("settings.json");
    std::fs::remove_file(&settings).unwrap();
    fifo(&settings);
    let out = common::seamscope(cache.path())
        .arg("import")
        .arg(dir.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "bundle {}: cannot read settings.json: it is a FIFO",
            dir.path().display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_bundle_setting_out_of_range_names_the_bundle() {
    let cache = tempfile::tempdir().unwrap();
    let dir = bundle("bundle-range");
    let said = format!(
        "bundle {}: settings.json: setting `m` = 100000 is out of range",
        dir.path().display()
    );
    let import = common::seamscope(cache.path())
        .arg("import")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&import.stderr);
    assert_eq!(import.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&said), "import: {stderr}");
    // The screen on the bundle checks its settings before it starts.
    let screen = common::seamscope(cache.path())
        .arg("--bundle")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&screen.stderr);
    assert!(stderr.contains(&said), "--bundle: {stderr}");
}

/// A view file in `dir` whose corpus is `corpus`.
fn view_file(dir: &Path, corpus: &Path) -> PathBuf {
    let view = serde_json::json!({
        "seamscope_view": 1,
        "corpus": corpus,
        "settings": {"m": 1, "budget": 5, "k": 150, "chunk_tokens": 1024,
                     "chunker": "fixed", "heading_prefix": false, "side_drop": null},
    });
    let path = dir.join("demo.view.json");
    std::fs::write(&path, view.to_string()).unwrap();
    path
}

#[test]
fn a_view_file_says_which_folder_it_embeds_and_asks_past_the_threshold() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let open = |view: &Path, yes: bool| {
        let mut cmd = common::seamscope(cache.path());
        cmd.arg("--open").arg(view);
        if yes {
            cmd.arg("--yes");
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };

    // Not a folder: refused before anything is read.
    let file = work.path().join("notes.md");
    std::fs::write(&file, "Some notes.\n").unwrap();
    let (code, stderr) = open(&view_file(work.path(), &file), false);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("which is not a folder"), "{stderr}");

    // A small corpus: the line names it and its tokens, then the screen (no terminal here).
    let sample = std::fs::canonicalize("sample-corpus").unwrap();
    let (code, stderr) = open(&view_file(work.path(), &sample), false);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the view opens the corpus folder {}: 13 documents,",
            sample.display()
        )) && stderr.contains("tokens to embed")
            && stderr.contains("needs a terminal"),
        "{stderr}"
    );

    // A large one: past the threshold a run with no terminal to ask on is refused, unless --yes.
    let large = work.path().join("large");
    std::fs::create_dir(&large).unwrap();
    let prose = "The quick brown fox jumps over the lazy dog near the river bank. ";
    for i in 0..6 {
        std::fs::write(large.join(format!("part-{i}.md")), prose.repeat(4000)).unwrap();
    }
    let view = view_file(work.path(), &large);
    let (code, stderr) = open(&view, false);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the view opens the corpus folder {}: 6 documents,",
            large.display()
        )) && stderr.contains("is more than the 200000 a view file opens without asking")
            && stderr.contains("pass --yes"),
        "{stderr}"
    );
    assert!(!stderr.contains("needs a terminal"), "{stderr}");
    let (code, stderr) = open(&view, true);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("needs a terminal"),
        "--yes goes on: {stderr}"
    );
}

#[test]
fn question_and_cuts_files_with_a_byte_order_mark_load() {
    let options = seamscope::places::load_options(&seamscope::settings::Settings::default());
    let corpus = seamscope::corpus::Corpus::load(Path::new("sample-corpus"), &options).unwrap();
    let questions = seamscope::eval::questions::load_questions(
        &Path::new(FIXTURES).join("questions-bom.jsonl"),
        &corpus,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(questions.len(), 2);
    assert_eq!(questions[0].id, "A01");
    let cuts = seamscope::chunk::given::GivenCuts::load(
        &Path::new(FIXTURES).join("cuts-bom.jsonl"),
        &corpus,
    );
    assert!(cuts.is_ok(), "{:?}", cuts.err().map(|e| e.to_string()));
}

/// What `seamscope ARGS` says, run on a private cache without the model (the output checks come
/// before any model is needed), killed after a minute rather than hanging on a FIFO.
fn refused_output(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let cache = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("seamscope")
        .unwrap()
        .env("SEAMSCOPE_CACHE_DIR", cache.path())
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_output_that_is_a_fifo_or_a_link_to_a_device_is_refused_and_left_as_it_was() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("pipe.jsonl");
    fifo(&pipe);
    let null = dir.path().join("null.jsonl");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let questions = Path::new("sample-corpus/questions.jsonl");
    for (out, said) in [
        (&pipe, "is a FIFO (named pipe), not a regular file"),
        (
            &null,
            "is a symbolic link to a device, not to a regular file",
        ),
    ] {
        for args in [
            vec![
                "questions".as_ref(),
                "check".as_ref(),
                "sample-corpus".as_ref(),
                questions.as_os_str(),
                "--fix".as_ref(),
                out.as_os_str(),
            ],
            vec![
                "eval".as_ref(),
                "sample-corpus".as_ref(),
                "--csv".as_ref(),
                out.as_os_str(),
            ],
            vec![
                "eval".as_ref(),
                "sample-corpus".as_ref(),
                "--save-baseline".as_ref(),
                out.as_os_str(),
            ],
        ] {
            let (code, stderr) = refused_output(&args);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains(&format!("{} {said}", out.display())),
                "{args:?}: {stderr}"
            );
        }
    }
    assert!(std::fs::symlink_metadata(&pipe).is_ok_and(|m| m.file_type().is_fifo()));
    assert!(std::fs::symlink_metadata(&null).is_ok_and(|m| m.file_type().is_symlink()));
    assert!(std::fs::metadata(&null).is_ok_and(|m| m.file_type().is_char_device()));
}
