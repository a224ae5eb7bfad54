//! Showing corpus text safely: control characters and escape sequences are neutralised.

/// Replace control characters (escape sequences included) with visible stand-ins, keeping
/// newlines and tabs. Corpus text and file names pass through this before reaching a terminal.
pub fn safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {}
            c if c.is_control() => {
                // U+2400 block: a visible picture of the control character.
                let code = c as u32;
                if code < 0x20 {
                    out.push(char::from_u32(0x2400 + code).unwrap_or('\u{FFFD}'));
                } else if code == 0x7f {
                    out.push('\u{2421}');
                } else {
                    out.push('\u{FFFD}');
                }
            }
            // Bidirectional overrides can reorder what a reader sees.
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_neutralised() {
        let s = safe("red \u{1b}[31mtext\u{7}\r\nnext\tcol \u{9b}2J \u{202E}abc");
        assert!(!s.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert!(s.contains("␛[31mtext␇"));
        assert!(s.contains("\nnext\tcol"));
    }
}
