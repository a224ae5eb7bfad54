//! The evidence-length map as an SVG line chart for the README (`assets/evidence-map.svg`): one
//! polyline per strategy family, x the evidence-length band, y the failure rate of the family's
//! best setting in that band, with a legend, axis labels and the map's verdict as the caption.

use std::fmt::Write;

use seamscope::board::Family;
use seamscope::board::map::EvidenceMap;

use super::panes::evaluation::family_points;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 620.0;
/// The plot's left, right, top and bottom edges.
const LEFT: f64 = 70.0;
const RIGHT: f64 = 700.0;
const TOP: f64 = 95.0;
const BOTTOM: f64 = 420.0;
/// Characters per caption and subtitle line (about 7 px each at 13 px).
const CAPTION_CHARS: usize = 110;

fn escape(text: &str) -> String {
    seamscope::text::safe(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The map as an SVG picture; `corpus` names what it was measured on (for the subtitle).
pub fn render(map: &EvidenceMap, corpus: &str) -> String {
    let series = family_points(map);
    let worst = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|x| x.1))
        .fold(1.0, f64::max);
    let chart = Chart {
        top: ((worst / 10.0).ceil() * 10.0).max(10.0),
        bands: map.bands.len().max(1) as f64,
    };
    let mut s = String::new();
    heading(&mut s, map, corpus);
    axes(&mut s, &chart, map);
    family_lines(&mut s, &chart, &series);
    verdict_caption(&mut s, map);
    s.push_str("</svg>\n");
    s
}

/// The chart's scale: failure rates up to `top` percent, `bands` bands across.
struct Chart {
    top: f64,
    bands: f64,
}

impl Chart {
    /// The x of band `i`'s middle.
    fn x(&self, i: f64) -> f64 {
        LEFT + (i + 0.5) * (RIGHT - LEFT) / self.bands
    }

    /// The y of a failure rate in percent.
    fn y(&self, pct: f64) -> f64 {
        BOTTOM - pct / self.top * (BOTTOM - TOP)
    }
}

/// The picture's opening tag, background, title and subtitle.
fn heading(s: &mut String, map: &EvidenceMap, corpus: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="{LEFT}" y="28" font-size="17" font-weight="bold" fill="#222222">Evidence-length map: which strategy fails least, by how long the evidence is</text>"##
    );
    let subtitle = format!(
        "{corpus}: {} passages per band drawn over the corpus, each asked with {}; budget {} chunks of {} tokens; each family at its best setting in each band",
        map.options.per_band,
        map.options
            .kinds
            .first()
            .map_or("its content words", |k| k.describe()),
        map.budget,
        map.chunk_tokens
    );
    for (i, line) in crate::tui::chrome::wrap_words(&subtitle, CAPTION_CHARS)
        .iter()
        .take(2)
        .enumerate()
    {
        let _ = writeln!(
            s,
            r##"<text x="{LEFT}" y="{}" fill="#555555">{}</text>"##,
            52 + 17 * i,
            escape(line)
        );
    }
}

/// The grid, the axes and their labels, the bands with their passage counts.
fn axes(s: &mut String, chart: &Chart, map: &EvidenceMap) {
    // Grid and y axis: five steps up to the top.
    for step in 0..=5 {
        let pct = chart.top * f64::from(step) / 5.0;
        let at = chart.y(pct);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{at:.1}" x2="{RIGHT}" y2="{at:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#555555">{pct:.0}%</text>"##,
            LEFT - 8.0,
            at + 4.0
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{BOTTOM}" stroke="#444444"/><line x1="{LEFT}" y1="{BOTTOM}" x2="{RIGHT}" y2="{BOTTOM}" stroke="#444444"/>"##
    );
    let _ = writeln!(
        s,
        r##"<text x="18" y="{:.1}" transform="rotate(-90 18 {:.1})" text-anchor="middle" fill="#333333">failure rate (context missed part of the passage)</text>"##,
        (TOP + BOTTOM) / 2.0,
        (TOP + BOTTOM) / 2.0
    );
    // Bands on the x axis, with their passage counts.
    for (i, b) in map.bands.iter().enumerate() {
        let at = chart.x(i as f64);
        let _ = writeln!(
            s,
            r##"<text x="{at:.1}" y="{:.1}" text-anchor="middle" fill="#333333">{}–{}</text><text x="{at:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#777777">{} passages, {} split</text>"##,
            BOTTOM + 18.0,
            b.min_tokens,
            b.max_tokens,
            BOTTOM + 33.0,
            b.questions,
            b.split_questions
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#333333">evidence length (tokens)</text>"##,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 54.0
    );
}

/// One polyline per family, with its points marked; the legend on the right.
fn family_lines(s: &mut String, chart: &Chart, series: &[(Family, Vec<(f64, f64)>)]) {
    for (n, (family, points)) in series.iter().enumerate() {
        let look = super::family::look_of(*family);
        let (c, width) = (look.svg, look.svg_width);
        let path: Vec<String> = points
            .iter()
            .map(|&(i, pct)| format!("{:.1},{:.1}", chart.x(i), chart.y(pct)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{c}" stroke-width="{width}" points="{}"><title>{}</title></polyline>"#,
            path.join(" "),
            family.name()
        );
        for &(i, pct) in points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{c}"><title>{}: {pct:.1}%</title></circle>"#,
                chart.x(i),
                chart.y(pct),
                family.name()
            );
        }
        let ly = TOP + 10.0 + n as f64 * 24.0;
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{c}" stroke-width="{width}"/><text x="{:.1}" y="{:.1}" fill="#222222">{}</text>"##,
            RIGHT + 25.0,
            RIGHT + 55.0,
            RIGHT + 63.0,
            ly + 4.0,
            escape(family.name())
        );
    }
}

/// The verdict as the caption (and another question kind's when it disagrees).
fn verdict_caption(s: &mut String, map: &EvidenceMap) {
    let mut caption =
        crate::tui::chrome::wrap_words(&format!("Verdict: {}", map.verdict), CAPTION_CHARS);
    if let Some(other) = map.disagreeing() {
        caption.extend(crate::tui::chrome::wrap_words(
            &format!(
                "Asked as {} questions instead: {}",
                other.kind.name(),
                other.verdict
            ),
            CAPTION_CHARS,
        ));
    }
    for (i, line) in caption.iter().take(6).enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="{LEFT}" y="{:.1}" fill="{}">{}</text>"##,
            BOTTOM + 84.0 + i as f64 * 18.0,
            if i == 0 { "#111111" } else { "#444444" },
            escape(line)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_picture_has_a_line_per_family_axes_legend_and_the_verdict() {
        let mut map = crate::tui::fixture::boards::map();
        map.verdict.push_str(" <&>");
        let svg = render(&map, "fixture");
        assert_eq!(svg.matches("<polyline").count(), 3, "{svg}");
        assert!(svg.contains(">10–20<") && svg.contains(">40–80<"), "{svg}");
        assert!(svg.contains("evidence length (tokens)"));
        assert!(svg.contains(">overlap</text>") && svg.contains(">seams</text>"));
        assert!(svg.contains("Verdict: overlap 15% leads"), "{svg}");
        assert!(svg.contains("&lt;&amp;&gt;"), "escaped: {svg}");
        assert!(svg.ends_with("</svg>\n"));
    }
}
