//! Flags and settings given hostile or careless values, fed to the real binary before any model
//! or corpus work: each is refused with a message that says what is wrong in the value's own
//! terms (a huge number as typed, not as 309 digits; a negative margin as negative; the budget's
//! real range), and a password in a Postgres address written without a scheme never shows.
//! None of these needs the model: every check comes before it.

use std::process::Output;

/// `seamscope ARGS` on a private cache and data folder (no model there), its exit and stderr.
fn run(args: &[&str]) -> (Option<i32>, String, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let out: Output = assert_cmd::Command::cargo_bin("seamscope")
        .unwrap()
        .env("SEAMSCOPE_CACHE_DIR", home.path().join("cache"))
        .env("SEAMSCOPE_DATA_DIR", home.path().join("data"))
        .env_remove("SEAMSCOPE_MODEL_DIR")
        .env_remove("SEAMSCOPE_STORE")
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr, home)
}

#[test]
fn board_constraints_are_refused_in_their_own_terms() {
    let tune = ["tune", "sample-corpus", "--strategies", "all"];
    for (flag, value, said) in [
        (
            "--max-vectors",
            "1e308",
            "--max-vectors 1e308: no strategy stores more than a few times the vectors of the chunks alone; give 1 to 1000",
        ),
        (
            "--max-vectors",
            "inf",
            "--max-vectors inf: give a number of vectors per chunk from 1 to 1000",
        ),
        (
            "--max-duplicate-share",
            "5%%",
            "\"5%%\" is not a percentage, e.g. 5 or 5%",
        ),
    ] {
        let (code, stderr, _home) = run(&[&tune[..], &[flag, value]].concat());
        assert_eq!(code, Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(said), "{flag} {value}: {stderr}");
        assert!(!stderr.contains(&"0".repeat(100)), "{stderr}");
    }
    let (code, stderr, _home) = run(&["tune", "sample-corpus", "--m=-1"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("margin -1 is below 0: a margin is a whole number from 0 to 1000"),
        "{stderr}"
    );
    let (code, stderr, _home) = run(&["tune", "sample-corpus", "--strategies", ""]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("name the strategy families to compare: all, or some of"),
        "{stderr}"
    );
}

#[test]
fn a_measured_budget_of_0_names_the_real_range() {
    for args in [
        &["tune", "sample-corpus", "--budget", "0"][..],
        &[
            "tune",
            "sample-corpus",
            "--strategies",
            "all",
            "--budget",
            "0",
        ],
    ] {
        let (code, stderr, _home) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("between 1 and 10000") || stderr.contains("(up to 10000)"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_password_in_a_postgres_address_without_a_scheme_is_masked() {
    let (code, stderr, _home) = run(&[
        "chunks",
        "sample-corpus",
        "--store",
        "pgvector:u:hunter2@127.0.0.1:55431/db",
    ]);
    assert!(matches!(code, Some(1 | 2)), "{stderr}");
    assert!(!stderr.contains("hunter2"), "the password shows: {stderr}");
    assert!(stderr.contains("u:***@127.0.0.1:55431/db"), "{stderr}");
}

#[test]
fn chunks_without_the_model_says_to_run_setup_and_installs_nothing() {
    let (code, stderr, home) = run(&["chunks", "sample-corpus"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("this command embeds nothing, but counts tokens with the embedding model's tokenizer, which is not installed in")
            && stderr.contains("run `seamscope setup` once"),
        "{stderr}"
    );
    assert!(!stderr.contains("running setup"), "{stderr}");
    let data = home.path().join("data");
    let installed: Vec<_> = std::fs::read_dir(&data)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(installed.is_empty(), "nothing installed: {installed:?}");
}
