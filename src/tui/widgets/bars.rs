//! Horizontal bars for the charts of the measuring pages, precise to an eighth of a cell.

/// The partial blocks, from one eighth of a cell to seven eighths.
const EIGHTHS: [char; 7] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// A bar of at most `cells` columns for `value` on a scale from 0 to `max`: full blocks, then
/// one partial block. Any value above 0 shows at least one eighth; a value at `max` fills it.
pub fn bar(value: f64, max: f64, cells: usize) -> String {
    if value.is_nan() || max.is_nan() || value <= 0.0 || max <= 0.0 || cells == 0 {
        return String::new();
    }
    let eighths = ((value / max).min(1.0) * (cells * 8) as f64)
        .round()
        .max(1.0) as usize;
    let mut out = "█".repeat(eighths / 8);
    if let Some(&part) = EIGHTHS.get((eighths % 8).wrapping_sub(1)) {
        out.push(part);
    }
    out
}

/// `text` padded with spaces to `width` columns (one column per char: bars and digits).
pub fn pad(text: &str, width: usize) -> String {
    let used = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(used)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_eighths_and_never_hide_a_small_value() {
        assert_eq!(bar(1.0, 1.0, 4), "████");
        assert_eq!(bar(0.5, 1.0, 4), "██");
        assert_eq!(bar(0.3, 1.0, 4), "█▎");
        assert_eq!(bar(0.001, 1.0, 4), "▏");
        assert_eq!(bar(0.0, 1.0, 4), "");
        assert_eq!(bar(2.0, 1.0, 3), "███", "clipped at the scale's end");
        assert_eq!(bar(f64::NAN, 1.0, 3), "");
        assert_eq!(pad("██", 4), "██  ");
    }
}
