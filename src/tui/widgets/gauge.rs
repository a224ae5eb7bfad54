//! Small gauges: budget slots (`■■■□□ 3/5`) and a progress bar with a label.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

/// Most slots drawn one by one; larger budgets draw as a bar of this many cells.
const MAX_SLOT_CELLS: usize = 20;

/// `■■■□□ 3/5`: slots used out of a budget.
pub fn slots(used: usize, budget: usize, theme: &Theme) -> Vec<Span<'static>> {
    let (filled, cells) = if budget <= MAX_SLOT_CELLS {
        (used.min(budget), budget)
    } else {
        (
            used.min(budget) * MAX_SLOT_CELLS / budget.max(1),
            MAX_SLOT_CELLS,
        )
    };
    vec![
        Span::styled("■".repeat(filled), theme.gauge_filled),
        Span::styled("□".repeat(cells - filled), theme.gauge_empty),
        Span::styled(format!(" {used}/{budget}"), theme.text),
    ]
}

/// `▕██████░░░░▏ 52%` in `width` cells, then `label`.
pub fn progress(
    done: usize,
    total: usize,
    width: usize,
    label: String,
    theme: &Theme,
) -> Line<'static> {
    let width = width.max(4);
    let (filled, pct) = if total == 0 {
        (0, String::from("   "))
    } else {
        let frac = (done as f64 / total as f64).clamp(0.0, 1.0);
        (
            (frac * width as f64).round() as usize,
            format!("{:>3}%", (frac * 100.0).round() as u32),
        )
    };
    let bar: Style = theme.progress;
    Line::from(vec![
        Span::styled("▕", theme.muted),
        Span::styled("█".repeat(filled), bar),
        Span::styled("░".repeat(width - filled), theme.gauge_empty),
        Span::styled("▏", theme.muted),
        Span::styled(format!("{pct} "), theme.text),
        Span::styled(label, theme.text),
    ])
}

/// `12,345`: a count with thousands separators.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauges_count_and_format() {
        let t = Theme::builtin_default();
        let text: String = slots(3, 5, &t).iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "■■■□□ 3/5");
        let text: String = slots(50, 100, &t)
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(text, "■■■■■■■■■■□□□□□□□□□□ 50/100");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
