//! Loading a folder: bad files are skipped with a reason each, good ones keep exact offsets.

use std::fs;

use seamscope::corpus::{Corpus, CorpusError, LoadOptions, SkipReason};

fn reason_of<'a>(corpus: &'a Corpus, path: &str) -> Option<&'a SkipReason> {
    corpus
        .skipped
        .iter()
        .find(|s| s.path == path)
        .map(|s| &s.reason)
}

#[test]
fn bad_files_are_skipped_with_specific_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(
        root.join("good.md"),
        "# Title\r\n\r\nLine one.\r\nLine two.\r\n",
    )
    .unwrap();
    fs::write(
        root.join("binary.bin"),
        [0x89, b'P', b'N', b'G', 0, 0, 1, 2],
    )
    .unwrap();
    fs::write(root.join("latin1.txt"), b"caf\xe9 au lait").unwrap();
    fs::write(root.join("empty.txt"), "").unwrap();
    fs::write(root.join("blank.txt"), " \n\t\r\n").unwrap();
    fs::write(root.join("big.txt"), "x".repeat(5000)).unwrap();
    fs::write(root.join("questions.jsonl"), "{}\n").unwrap();
    fs::create_dir(root.join("sub")).unwrap();
    fs::write(root.join("sub/deep.txt"), "nested text").unwrap();
    fs::write(root.join(".hidden.md"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root, root.join("sub/loop")).unwrap();

    let corpus = Corpus::load(
        root,
        &LoadOptions {
            max_file_bytes: 4096,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let paths: Vec<&str> = corpus.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, vec!["good.md", "sub/deep.txt"]);
    // CRLF is kept, so byte offsets match the file exactly.
    assert_eq!(
        corpus.documents[0].text,
        "# Title\r\n\r\nLine one.\r\nLine two.\r\n"
    );
    assert_eq!(reason_of(&corpus, "binary.bin"), Some(&SkipReason::Binary));
    assert_eq!(
        reason_of(&corpus, "latin1.txt"),
        Some(&SkipReason::InvalidUtf8 { at_byte: 3 })
    );
    assert_eq!(reason_of(&corpus, "empty.txt"), Some(&SkipReason::Empty));
    assert_eq!(reason_of(&corpus, "blank.txt"), Some(&SkipReason::Empty));
    assert_eq!(
        reason_of(&corpus, "big.txt"),
        Some(&SkipReason::TooLarge {
            bytes: 5000,
            limit: 4096
        })
    );
    assert_eq!(
        reason_of(&corpus, "questions.jsonl"),
        Some(&SkipReason::Excluded)
    );
    #[cfg(unix)]
    assert_eq!(
        reason_of(&corpus, "sub/loop"),
        Some(&SkipReason::SymlinkLoop)
    );
    // Every reason reads as something a user can act on.
    for s in &corpus.skipped {
        assert!(!s.reason.to_string().is_empty());
    }
    assert!(
        SkipReason::InvalidUtf8 { at_byte: 3 }
            .to_string()
            .contains("offset 3")
    );
}

#[test]
fn a_single_file_is_a_corpus_and_nothing_usable_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.txt");
    fs::write(&file, "just one file").unwrap();
    let corpus = Corpus::load(&file, &LoadOptions::default()).unwrap();
    assert_eq!(corpus.documents.len(), 1);
    assert_eq!(corpus.documents[0].path, "one.txt");

    let empty = tempfile::tempdir().unwrap();
    fs::write(empty.path().join("x.bin"), [0u8; 10]).unwrap();
    let err = Corpus::load(empty.path(), &LoadOptions::default()).unwrap_err();
    assert!(matches!(&err, CorpusError::NoDocuments { skipped, .. } if skipped.len() == 1));
    // The message lists what was skipped and why; there is no --verbose to send anyone to.
    let msg = err.to_string();
    assert!(
        msg.contains("1 skipped") && msg.contains("x.bin: binary file"),
        "{msg}"
    );
    assert!(!msg.contains("--verbose"), "{msg}");
    let missing = Corpus::load(&dir.path().join("nope"), &LoadOptions::default()).unwrap_err();
    assert!(missing.to_string().contains("nope"));
}

#[test]
fn fingerprint_changes_with_any_text_change() {
    let a = Corpus::from_texts([("a.md", "one two")]);
    let b = Corpus::from_texts([("a.md", "one two.")]);
    let c = Corpus::from_texts([("b.md", "one two")]);
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_ne!(a.fingerprint(), c.fingerprint());
    assert_eq!(
        a.fingerprint(),
        Corpus::from_texts([("a.md", "one two")]).fingerprint()
    );
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_corpus_are_skipped_unless_allowed() {
    let corpus = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(corpus.path().join("good.md"), "inside text").unwrap();
    fs::write(elsewhere.path().join("secret.md"), "outside text").unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join("secret.md"),
        corpus.path().join("ext.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), corpus.path().join("extdir")).unwrap();
    std::os::unix::fs::symlink(
        corpus.path().join("good.md"),
        corpus.path().join("alias.md"),
    )
    .unwrap();

    let loaded = Corpus::load(corpus.path(), &LoadOptions::default()).unwrap();
    let paths: Vec<&str> = loaded.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        vec!["alias.md", "good.md"],
        "a link inside is followed"
    );
    for link in ["ext.md", "extdir"] {
        let reason = reason_of(&loaded, link).map(ToString::to_string);
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.contains("symlink leads outside the corpus folder")),
            "{link}: {reason:?}"
        );
    }

    let allowed = Corpus::load(
        corpus.path(),
        &LoadOptions {
            follow_outside_symlinks: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let paths: Vec<&str> = allowed.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        vec!["alias.md", "ext.md", "extdir/secret.md", "good.md"]
    );
}

/// Whether this process can read a folder with no permissions (root can): then an unreadable
/// folder cannot be made here and the permission tests have nothing to check.
#[cfg(unix)]
fn permissions_bind(dir: &std::path::Path) -> bool {
    fs::read_dir(dir).is_err()
}

#[cfg(unix)]
#[test]
fn an_unreadable_folder_is_named_with_its_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("good.md"), "readable text").unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("inside.md"), "hidden by permissions").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let restore = || fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    if !permissions_bind(&locked) {
        restore();
        eprintln!("skipped: this process reads folders without permission (root)");
        return;
    }
    let loaded = Corpus::load(dir.path(), &LoadOptions::default());
    let whole = Corpus::load(&locked, &LoadOptions::default());
    restore();
    let loaded = loaded.unwrap();
    let reason = reason_of(&loaded, "locked").map(ToString::to_string);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.contains("folder unreadable") && r.contains("ermission denied")),
        "{reason:?}"
    );
    // The corpus folder itself unreadable: the reason, not "1 file(s) skipped".
    let msg = whole.unwrap_err().to_string();
    assert!(msg.contains("ermission denied"), "{msg}");
}
