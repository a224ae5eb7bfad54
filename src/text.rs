//! Showing corpus text safely: control characters and escape sequences are neutralised.

pub mod redact;
mod span;

pub use span::Span;

/// Replace control characters (escape sequences included) with visible stand-ins, keeping
/// newlines and tabs. Corpus text passes through this before reaching a terminal; file names and
/// other one-line labels go through [`safe_name`].
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

/// [`safe`] for one line: file names, paths and labels. Newlines, tabs and carriage returns are
/// shown as pictures too (`␊`, `␉`, `␍`), so a name cannot break a listing into fake lines.
pub fn safe_name(name: &str) -> String {
    safe(&name.replace('\r', "\u{240D}"))
        .replace('\n', "\u{240A}")
        .replace('\t', "\u{2409}")
}

/// A server address with its password hidden, for every message and report that shows it:
/// `http://user:pass@host:8000` becomes `http://user:***@host:8000`, and a bare token before the
/// `@` (`http://token@host`) becomes `***`. Addresses without credentials come back unchanged.
pub fn mask_credentials(url: &str) -> String {
    let scheme_end = url.find("://").map(|i| i + 3);
    let rest = &url[scheme_end.unwrap_or(0)..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_string();
    };
    let masked = match rest[..at].split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        // Without a scheme, `name@host` is as likely an address with a user as a token.
        None if scheme_end.is_none() => return url.to_string(),
        None => "***".to_string(),
    };
    format!("{}{masked}{}", &url[..scheme_end.unwrap_or(0)], &rest[at..])
}

/// Where an address's authority (`user:password@host:port`) begins: after `scheme://`, or at
/// the start of an address written without a scheme (`u:hunter2@127.0.0.1:55431/db`, which a
/// driver may take as given).
fn authority_start(url: &str) -> usize {
    url.find("://").map_or(0, |i| i + 3)
}

/// An address as messages show it (a database URL, where a lone user name is no secret): a password in the user part or in a `password=` parameter
/// replaced by `***` (the user name stays: it is not a secret).
pub fn mask_password(url: &str) -> String {
    let given = url;
    let shown = {
        let rest = &given[authority_start(given)..];
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        match rest[..authority_end].rfind('@') {
            Some(at) if rest[..at].contains(':') => mask_credentials(given),
            _ => given.to_string(),
        }
    };
    // `?password=…` / `&password=…`, up to the next parameter.
    let mut out = String::with_capacity(shown.len());
    let mut rest = shown.as_str();
    while let Some(at) = rest.find("password=") {
        let starts_parameter = at > 0 && matches!(rest.as_bytes()[at - 1], b'?' | b'&' | b' ');
        let value_start = at + "password=".len();
        out.push_str(&rest[..value_start]);
        let after = &rest[value_start..];
        if starts_parameter {
            let end = after.find(['&', '#', ' ']).unwrap_or(after.len());
            out.push_str("***");
            rest = &after[end..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    safe_name(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_addresses_are_masked() {
        for (given, shown) in [
            ("http://user:pass@host:8000", "http://user:***@host:8000"),
            ("https://u:p%40ss@h/api?q=1", "https://u:***@h/api?q=1"),
            ("http://token@127.0.0.1:9", "http://***@127.0.0.1:9"),
            ("http://a:b:c@h", "http://a:***@h"),
            ("http://host:8000", "http://host:8000"),
            ("http://host/path@x", "http://host/path@x"),
            ("not a url", "not a url"),
            // Without a scheme too: a driver may take the address as given.
            ("u:hunter2@127.0.0.1:55431/db", "u:***@127.0.0.1:55431/db"),
            ("user@127.0.0.1:5432/db", "user@127.0.0.1:5432/db"),
        ] {
            assert_eq!(mask_credentials(given), shown, "{given}");
        }
        for (given, shown) in [
            ("u:hunter2@127.0.0.1:55431/db", "u:***@127.0.0.1:55431/db"),
            ("pgvectr:u:hunter2@h:1/db", "pgvectr:***@h:1/db"),
            ("postgresql://u:hunter2@h/db", "postgresql://u:***@h/db"),
            (
                "postgresql://u@h/db?password=hunter2",
                "postgresql://u@h/db?password=***",
            ),
            ("u@h:5432/db", "u@h:5432/db"),
        ] {
            assert_eq!(mask_password(given), shown, "{given}");
        }
    }

    #[test]
    fn names_stay_on_one_line() {
        assert_eq!(safe_name("bad\nname\t.md\r\u{1b}"), "bad␊name␉.md␍␛");
        assert_eq!(safe_name("guide/intro.md"), "guide/intro.md");
    }

    #[test]
    fn escapes_are_neutralised() {
        let s = safe("red \u{1b}[31mtext\u{7}\r\nnext\tcol \u{9b}2J \u{202E}abc");
        assert!(!s.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert!(s.contains("␛[31mtext␇"));
        assert!(s.contains("\nnext\tcol"));
    }
}
