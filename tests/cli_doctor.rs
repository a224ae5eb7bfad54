//! `seamscope doctor` with the real model: on the sample corpus it finds the cuts inside fenced
//! blocks and tables at their exact places; on a crafted corpus it finds a boilerplate footer, a
//! hub chunk and an orphaned chunk; `--fail-under` and `--baseline` exit 1 and 0 on either side
//! of their threshold, and a bad value exits 2.

mod common;

use std::path::{Path, PathBuf};

use common::{json_of, seamscope};
use serde_json::Value;

/// The sample corpus' shared cache (the other sample tests warm it too).
fn sample_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sample-cache")
}

/// Every location of a finding as (document, start, end, line, cut byte).
fn locations(report: &Value, kind: &str) -> Vec<(String, u64, u64, u64, u64)> {
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == kind)
        .unwrap_or_else(|| panic!("no finding {kind}"));
    finding["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["doc"].as_str().unwrap().to_string(),
                l["start"].as_u64().unwrap(),
                l["end"].as_u64().unwrap(),
                l["line"].as_u64().unwrap(),
                l["at"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn finding<'r>(report: &'r Value, kind: &str) -> &'r Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == kind)
        .unwrap()
}

#[test]
fn on_the_sample_corpus_the_cuts_inside_fenced_blocks_and_tables_are_found_where_they_are() {
    let cache = sample_cache();
    let report = json_of(seamscope(&cache).args([
        "doctor",
        "sample-corpus",
        "--questions",
        "40",
        "--passages",
        "60",
        "--json",
    ]));
    // The README's atom table: at 1,024 tokens the fixed chunker splits 2 of 40 fenced blocks
    // and 6 of 38 tables; each is a cut inside the block or table.
    let fences = locations(&report, "cut-in-fence");
    assert_eq!(
        fences,
        vec![
            ("guide-ingest-pipeline.md".into(), 7516, 8015, 101, 7892),
            (
                "runbook-database-failover.md".into(),
                19571,
                19776,
                331,
                19586
            ),
        ]
    );
    let tables = locations(&report, "cut-in-table");
    assert_eq!(
        tables,
        vec![
            ("guide-ingest-pipeline.md".into(), 13689, 16804, 239, 15347),
            ("order-service-design.md".into(), 4730, 5383, 52, 4773),
            (
                "postmortem-2025-11-ledger-outage.md".into(),
                22049,
                24079,
                155,
                23436
            ),
            (
                "research-route-cache-eviction.md".into(),
                8420,
                9000,
                62,
                8909
            ),
            ("runbook-database-failover.md".into(), 6705, 7867, 93, 7691),
            (
                "warehouse-sync-architecture.md".into(),
                4140,
                4826,
                41,
                4452
            ),
        ]
    );
    // Each place is what it says: a fence or a table of the file, with a cut strictly inside.
    for (doc, start, end, line, at) in fences.iter().chain(&tables) {
        let text = std::fs::read_to_string(Path::new("sample-corpus").join(doc)).unwrap();
        let (start, end, at) = (*start as usize, *end as usize, *at as usize);
        let opening = &text[start..];
        assert!(
            opening.trim_start().starts_with("```") || opening.starts_with('|'),
            "{doc}:{start}"
        );
        assert!(
            start < at && at < end,
            "{doc}: cut {at} outside {start}..{end}"
        );
        assert_eq!(
            text[..start].matches('\n').count() + 1,
            *line as usize,
            "{doc}"
        );
    }
    assert_eq!(finding(&report, "cut-in-fence")["of"], 70);
    // The score is computed from the findings with the formula it prints.
    let score = report["score"]["value"].as_f64().unwrap();
    let terms: f64 = report["score"]["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["points"].as_f64().unwrap())
        .sum();
    assert!(
        (score - (100.0 - terms)).abs() <= 0.05,
        "{score} vs {terms}"
    );
    assert!(
        report["score"]["formula"]
            .as_str()
            .unwrap()
            .contains("Σ wᵢ·shareᵢ")
    );

    // --fail-under on both sides of the score, and --baseline.
    let floor = score.floor() as u32;
    let gate = |extra: &[&str]| {
        let mut cmd = seamscope(&cache);
        cmd.args([
            "doctor",
            "sample-corpus",
            "--questions",
            "40",
            "--passages",
            "60",
        ])
        .args(extra);
        cmd.output().unwrap()
    };
    let at = gate(&["--fail-under", &floor.to_string()]);
    assert_eq!(
        at.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&at.stderr)
    );
    let text = String::from_utf8_lossy(&at.stdout);
    assert!(text.contains(&format!("score {score:.1} / 100")), "{text}");
    let above = gate(&["--fail-under", &(floor + 1).to_string()]);
    assert_eq!(above.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&above.stderr).contains("is below --fail-under"),
        "{}",
        String::from_utf8_lossy(&above.stderr)
    );

    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.json");
    std::fs::write(&same, report.to_string()).unwrap();
    let mut better = report.clone();
    for f in better["findings"].as_array_mut().unwrap() {
        if f["kind"] == "cut-in-table" {
            f["share"] = 0.0.into();
            f["count"] = 0.into();
        }
    }
    let better_path = dir.path().join("better.json");
    std::fs::write(&better_path, better.to_string()).unwrap();
    let unchanged = gate(&["--baseline", same.to_str().unwrap()]);
    assert_eq!(unchanged.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&unchanged.stdout).contains("no finding got worse"));
    let worse = gate(&["--baseline", better_path.to_str().unwrap()]);
    assert_eq!(worse.status.code(), Some(1));
    let said = String::from_utf8_lossy(&worse.stdout);
    assert!(
        said.contains("WORSE  cuts inside a table") && said.matches("WORSE").count() == 1,
        "{said}"
    );
    // A baseline of another corpus is said, and fails the gate, however good it looks.
    let mut other = report.clone();
    other["layout"]["corpus"] = "other-corpus".into();
    other["layout"]["documents"] = 3.into();
    other["layout"]["tokens"] = 999.into();
    let other_path = dir.path().join("other.json");
    std::fs::write(&other_path, other.to_string()).unwrap();
    let elsewhere = gate(&["--baseline", other_path.to_str().unwrap()]);
    assert_eq!(elsewhere.status.code(), Some(1));
    let said = String::from_utf8_lossy(&elsewhere.stdout);
    assert!(
        said.contains("the baseline is of another corpus: other-corpus (3 documents, 999 tokens)"),
        "{said}"
    );
    assert!(
        String::from_utf8_lossy(&elsewhere.stderr)
            .contains("the baseline is of another corpus (other-corpus)"),
        "{}",
        String::from_utf8_lossy(&elsewhere.stderr)
    );
}

#[test]
fn usage_errors_exit_2_before_any_work() {
    let cache = tempfile::tempdir().unwrap();
    for bad in [
        vec!["--fail-under", "101"],
        vec!["--fail-under", "ten"],
        vec!["--hub-share", "0"],
        vec!["--baseline", "/nonexistent/doctor.json"],
    ] {
        let out = seamscope(cache.path())
            .args(["doctor", "sample-corpus"])
            .args(&bad)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

const FOOTER: &str =
    "This page is maintained by the documentation team; report errors through the usual channel.";

const WORDS: [&str; 108] = [
    "granite", "beacon", "eagle", "feather", "wagon", "ginger", "falcon", "lemon", "pigeon",
    "banjo", "timber", "rabbit", "spider", "river", "dagger", "garlic", "mortar", "pepper",
    "comet", "blossom", "jacket", "mantle", "harvest", "velvet", "quartz", "cradle", "ladder",
    "magnet", "parrot", "pillow", "rocket", "saddle", "salmon", "shadow", "shovel", "silver",
    "socket", "spoon", "stable", "statue", "summit", "tablet", "thimble", "thunder", "tomato",
    "tunnel", "turtle", "violin", "walnut", "willow", "window", "wizard", "zebra", "acorn",
    "amber", "arrow", "bucket", "butter", "cactus", "camel", "canoe", "cliff", "clover", "coral",
    "crown", "dune", "apple", "anchor", "badge", "basket", "cable", "candle", "canyon", "carpet",
    "cellar", "cherry", "chimney", "cobalt", "copper", "cotton", "crystal", "desert", "dolphin",
    "dragon", "ember", "fiddle", "forest", "fossil", "garden", "glacier", "goblet", "harbor",
    "helmet", "hermit", "hollow", "island", "ivory", "jasmine", "jungle", "kettle", "kitten",
    "lantern", "lizard", "marble", "meadow", "mirror", "monkey", "needle",
];

/// Six handbooks whose every 14 sentences draw on six words of their own; a glossary that
/// names every handbook's words in one sentence each (a chunk every question reaches); an
/// investor letter that names its subject only in its title; the same footer in every file.
fn crafted() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let topics = [
        "billing",
        "dispatch",
        "security",
        "warehouse",
        "finance",
        "payroll",
    ];
    let mut glossary = Vec::new();
    for (t, topic) in topics.iter().enumerate() {
        let words = &WORDS[t * 18..(t + 1) * 18];
        let sentences: Vec<String> = (0..42)
            .map(|i| {
                let block = &words[(i / 14) * 6..(i / 14) * 6 + 6];
                format!(
                    "In the {topic} handbook, the {} needs the {} and the {} before step {}.",
                    block[i % 6],
                    block[(i + 1) % 6],
                    block[(i + 3) % 6],
                    i + 1
                )
            })
            .collect();
        let title = format!("{}{}", topic[..1].to_uppercase(), &topic[1..]);
        std::fs::write(
            dir.path().join(format!("{topic}.md")),
            format!(
                "# {title} handbook\n\n{}\n\n{FOOTER}\n",
                sentences.join(" ")
            ),
        )
        .unwrap();
        glossary.push(format!(
            "In the {topic} handbook, the {} are needed before each step.",
            words.join(", the ")
        ));
    }
    std::fs::write(
        dir.path().join("glossary.md"),
        format!("# Glossary\n\n{}\n\n{FOOTER}\n", glossary.join(" ")),
    )
    .unwrap();
    let letter: Vec<String> = (0..30)
        .map(|i| match i % 4 {
            0 => format!(
                "Revenue grew {} percent that season as port congestion eased.",
                i + 2
            ),
            1 => format!(
                "Volumes recovered by {} thousand units across the summer.",
                i + 3
            ),
            2 => format!(
                "Operating costs fell {} percent while fuel prices held.",
                i + 1
            ),
            _ => format!(
                "Headcount stayed flat at {} hundred people through the period.",
                i + 4
            ),
        })
        .collect();
    std::fs::write(
        dir.path().join("northwind-letter.md"),
        format!(
            "# Northwind Logistics investor letter\n\n{}\n\n{FOOTER}\n",
            letter.join(" ")
        ),
    )
    .unwrap();
    dir
}

#[test]
fn a_crafted_corpus_shows_its_footer_its_hub_and_its_orphan() {
    let corpus = crafted();
    let cache = tempfile::tempdir().unwrap();
    let report = json_of(seamscope(cache.path()).args([
        "doctor",
        corpus.path().to_str().unwrap(),
        "--chunk-tokens",
        "256",
        "--k",
        "32",
        "--budget",
        "3",
        "--json",
    ]));
    // The footer: every one of the 8 files carries it, found where it is in each.
    let boiler = finding(&report, "boilerplate");
    assert_eq!(
        (boiler["count"].as_u64(), boiler["of"].as_u64()),
        (Some(8), Some(8))
    );
    let footers: Vec<(String, u64)> = locations(&report, "boilerplate")
        .into_iter()
        .map(|(doc, start, ..)| (doc, start))
        .collect();
    for entry in std::fs::read_dir(corpus.path()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let at = text.find("maintained by the documentation team").unwrap() as u64;
        assert!(
            footers.iter().any(|(d, s)| *d == name && *s <= at),
            "{name}: {footers:?}"
        );
    }
    // The hub: the glossary's chunk is in the budget of most questions about other passages.
    let hubs = locations(&report, "hub-chunk");
    assert!(
        hubs.iter().any(|(doc, ..)| doc == "glossary.md"),
        "{}",
        finding(&report, "hub-chunk")
    );
    // The orphan: the letter's second chunk never names Northwind, logistics or investors.
    let orphans = locations(&report, "orphaned-chunk");
    assert!(
        orphans
            .iter()
            .any(|(doc, start, ..)| doc == "northwind-letter.md" && *start > 0),
        "{orphans:?}"
    );
    let examples = &finding(&report, "orphaned-chunk")["examples"];
    assert!(
        examples.as_array().unwrap().iter().any(|e| e["detail"]
            .as_str()
            .unwrap()
            .contains("holds none of northwind, logistics, investor, letter")),
        "{examples}"
    );
}
