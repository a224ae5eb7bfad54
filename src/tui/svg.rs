//! A drawn screen as an SVG picture: every cell of the buffer the views drew, with its colours
//! and bold / italic / underline, so the README's pictures are the program's own screen.

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// Pixels per cell.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;

/// The colour of a terminal colour, with `default` for `Reset`.
fn hex(color: Color, default: &str) -> String {
    let named = |i: u8| -> &'static str {
        [
            "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
            "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
        ][usize::from(i)]
    };
    match color {
        Color::Reset => default.to_string(),
        Color::Black => named(0).into(),
        Color::Red => named(1).into(),
        Color::Green => named(2).into(),
        Color::Yellow => named(3).into(),
        Color::Blue => named(4).into(),
        Color::Magenta => named(5).into(),
        Color::Cyan => named(6).into(),
        Color::Gray => named(7).into(),
        Color::DarkGray => named(8).into(),
        Color::LightRed => named(9).into(),
        Color::LightGreen => named(10).into(),
        Color::LightYellow => named(11).into(),
        Color::LightBlue => named(12).into(),
        Color::LightMagenta => named(13).into(),
        Color::LightCyan => named(14).into(),
        Color::White => named(15).into(),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) if i < 16 => named(i).into(),
        Color::Indexed(i) if i >= 232 => {
            let v = 8 + 10 * (i - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
        Color::Indexed(i) => {
            let i = i - 16;
            let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level((i / 6) % 6),
                level(i % 6)
            )
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The buffer as an SVG document; `background` and `foreground` stand for the terminal's own
/// colours (cells that set none).
pub fn render(buffer: &Buffer, background: &str, foreground: &str) -> String {
    let area = buffer.area;
    let (width, height) = (
        f64::from(area.width) * CELL_W,
        f64::from(area.height) * CELL_H,
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.1} {height:.1}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="100%" height="100%" fill="{background}"/>"#
    );
    for y in 0..area.height {
        let row_y = f64::from(y) * CELL_H;
        // Backgrounds in runs of one colour.
        let mut x = 0;
        while x < area.width {
            let bg = hex(buffer[(area.x + x, area.y + y)].bg, background);
            let start = x;
            while x < area.width && hex(buffer[(area.x + x, area.y + y)].bg, background) == bg {
                x += 1;
            }
            if bg != background {
                let _ = writeln!(
                    out,
                    r#"<rect x="{:.1}" y="{row_y:.1}" width="{:.1}" height="{CELL_H}" fill="{bg}"/>"#,
                    f64::from(start) * CELL_W,
                    f64::from(x - start) * CELL_W
                );
            }
        }
        // Text, one element per cell that draws something, grouped by style per row.
        let baseline = row_y + CELL_H * 0.78;
        let mut x = 0;
        while x < area.width {
            let cell = &buffer[(area.x + x, area.y + y)];
            let symbol = cell.symbol();
            if symbol.trim().is_empty() {
                x += 1;
                continue;
            }
            let style = (cell.fg, cell.modifier);
            let start = x;
            let mut text = String::new();
            while x < area.width {
                let c = &buffer[(area.x + x, area.y + y)];
                if (c.fg, c.modifier) != style || c.symbol().is_empty() && x > start {
                    break;
                }
                text.push_str(if c.symbol().is_empty() {
                    " "
                } else {
                    c.symbol()
                });
                x += 1;
            }
            let trimmed = text.trim_end();
            let (fg, modifier) = style;
            let mut attrs = format!(r#"fill="{}""#, hex(fg, foreground));
            if modifier.contains(Modifier::BOLD) {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if modifier.contains(Modifier::ITALIC) {
                attrs.push_str(r#" font-style="italic""#);
            }
            if modifier.contains(Modifier::UNDERLINED) {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            if modifier.contains(Modifier::DIM) {
                attrs.push_str(r#" opacity="0.6""#);
            }
            let columns = unicode_width::UnicodeWidthStr::width(trimmed).max(1);
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{baseline:.1}" {attrs} textLength="{:.1}" lengthAdjust="spacingAndGlyphs" xml:space="preserve">{}</text>"#,
                f64::from(start) * CELL_W,
                columns as f64 * CELL_W,
                escape(trimmed)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    use super::*;

    #[test]
    fn cells_become_text_with_their_colours_and_markup_is_escaped() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 20, 2));
        buffer.set_string(
            0,
            0,
            "a<b & c",
            Style::default().fg(Color::Rgb(255, 0, 0)).bold(),
        );
        buffer.set_string(0, 1, "ok", Style::default().bg(Color::Indexed(21)));
        let svg = render(&buffer, "#1c1c1c", "#d0d0d0");
        assert!(svg.starts_with("<svg xmlns="), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("a&lt;b &amp; c"), "{svg}");
        assert!(
            svg.contains(r##"fill="#ff0000" font-weight="bold""##),
            "{svg}"
        );
        assert!(
            svg.contains(r##"fill="#0000ff""##),
            "indexed 21 is blue: {svg}"
        );
        assert!(
            svg.contains(r##"fill="#d0d0d0""##),
            "the default foreground"
        );
        assert_eq!(svg.matches("<text").count(), 2);
    }
}
