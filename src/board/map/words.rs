//! The map in words: which family leads where, runs of adjacent bands joined, the bands that
//! say nothing named, and where a gold set's evidence lies against the map's own leaders.

use super::{BandResult, MapBand, MapRow};

/// Which family leads a band: the verdict's first contender, with whether it is a clear winner.
pub(super) fn leader(result: &BandResult) -> Option<(&MapRow, bool)> {
    let first = result.verdict.contenders.first()?;
    let row = result
        .rows
        .iter()
        .find(|r| r.family.name() == first.family)?;
    Some((row, result.verdict.winner.is_some()))
}

/// The map's verdict in words: runs of adjacent bands with the same leading family, each named
/// by the lengths it was measured at; then the bands that say nothing (no passage of their
/// length, or a verdict that concludes nothing), so no claim reaches past what was measured.
/// Gold-only bands are not the map's and are left out.
pub(super) fn sentence<'a>(
    bands: &'a [MapBand],
    pick: impl Fn(&'a MapBand) -> Option<&'a BandResult>,
) -> String {
    let bands: Vec<&'a MapBand> = bands.iter().filter(|b| !b.gold_only).collect();
    let lead = |b: &'a MapBand| pick(b).and_then(leader);
    let mut parts: Vec<String> = Vec::new();
    let mut silent: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bands.len() {
        let band = bands[i];
        let Some((row, clear)) = lead(band) else {
            let why = match band.why_empty() {
                Some(why) => format!(
                    "no passage of {}–{} tokens ({why})",
                    band.min_tokens, band.max_tokens
                ),
                None => format!(
                    "{}–{} tokens: {}",
                    band.min_tokens,
                    band.max_tokens,
                    pick(band).map_or_else(|| "not asked".to_string(), |r| r.verdict.sentence())
                ),
            };
            silent.push(why);
            i += 1;
            continue;
        };
        let fam = row.family;
        let mut j = i;
        let mut all_clear = clear;
        while j + 1 < bands.len()
            && bands[j].max_tokens == bands[j + 1].min_tokens
            && lead(bands[j + 1]).is_some_and(|(r, _)| r.family == fam)
        {
            j += 1;
            all_clear &= lead(bands[j]).is_some_and(|(_, c)| c);
        }
        let verb = if all_clear {
            "wins"
        } else {
            "leads (not beyond noise)"
        };
        let cost = if row.vectors_vs_chunks > 1.05 {
            format!(" at {:.1}× the vectors", row.vectors_vs_chunks)
        } else {
            String::new()
        };
        let dup = if row.duplicate_share >= 0.005 {
            format!(
                ", {:.0}% of its tokens sent twice",
                row.duplicate_share * 100.0
            )
        } else {
            String::new()
        };
        parts.push(format!(
            "{} {verb} for evidence of ~{}–{} tokens{cost}{dup}",
            row.label, bands[i].min_tokens, bands[j].max_tokens
        ));
        i = j + 1;
    }
    if parts.is_empty() {
        let what = if bands.iter().any(|b| b.measured()) {
            "no band's verdict concludes anything"
        } else {
            "no band had passages of its length"
        };
        return format!("no verdict: {what}; {}", silent.join("; "));
    }
    let mut s = parts.join("; ");
    if !silent.is_empty() {
        s.push_str(&format!("; not measured: {}", silent.join("; ")));
    }
    s
}

/// Where a gold question's evidence lies against the map's bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GoldPlace {
    /// In the map's band of this index.
    Band(usize),
    /// Shorter than the first band.
    Below,
    /// Longer than the last band.
    Above,
    /// Between two bands the user left a gap between.
    Gap,
}

/// Where the gold set's evidence lies on the map, and whether the map's leader there matches the
/// gold questions' own.
pub(super) fn gold_words(bands: &[MapBand], total: usize, place: &[GoldPlace]) -> String {
    let mut parts = Vec::new();
    for b in bands {
        let m = &b.result;
        let Some(g) = &b.gold else { continue };
        if b.gold_only {
            parts.push(format!(
                "{}–{} tokens: {} gold questions, gold leader {} (no map passages of this length)",
                b.min_tokens,
                b.max_tokens,
                b.gold_questions,
                leader(g).map_or("-".into(), |(r, _)| r.label.clone()),
            ));
            continue;
        }
        let map_leader = leader(m).map(|(r, _)| r.family);
        let gold_leader = leader(g).map(|(r, _)| r.family);
        let agree = if map_leader == gold_leader {
            "agree"
        } else {
            "differ"
        };
        parts.push(format!(
            "{}–{} tokens: {} gold questions, gold leader {} ({:.0}%), map leader {} — {agree}",
            b.min_tokens,
            b.max_tokens,
            b.gold_questions,
            leader(g).map_or("-".into(), |(r, _)| r.label.clone()),
            g.verdict.contenders.first().map_or(0.0, |c| c.p_best) * 100.0,
            leader(m).map_or("-".into(), |(r, _)| r.label.clone()),
        ));
    }
    let count = |p: GoldPlace| place.iter().filter(|x| **x == p).count();
    for (p, words) in [
        (
            GoldPlace::Below,
            "shorter than the map's first band (in a band of their own below it)",
        ),
        (
            GoldPlace::Above,
            "longer than the map's last band (in a band of their own above it)",
        ),
        (GoldPlace::Gap, "between two of the map's bands (in none)"),
    ] {
        let c = count(p);
        if c > 0 {
            parts.push(format!("{c} gold questions have evidence {words}"));
        }
    }
    format!(
        "gold set ({total} questions) by evidence length: {}",
        parts.join("; ")
    )
}
