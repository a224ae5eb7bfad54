//! Secrets out of messages: every response body, header and address a service client puts in an
//! error or a label passes [`Secrets::scrub`] first, so a key never reaches a terminal, a `--json`
//! document, the screen or an MCP answer.
//!
//! What counts as a secret: every value the set was given (a key read from its environment
//! variable, the user and password of an address, the values of its query parameters named like
//! keys), in full and percent-encoded, wherever it appears; and, whoever's they are, what follows
//! `Bearer ` or `Basic `, the value of a header, JSON field or query parameter named like a key
//! (`api-key`, `api_key`, `key`, `token`, `secret`, `password`, `sig`, …), and `sk-…` tokens.
//!
//! Every set made is also remembered for the whole process ([`scrub`]), so a message built
//! somewhere that does not hold the set (a front end's last line) can be scrubbed too.

use std::sync::RwLock;

/// What a scrubbed secret is shown as.
pub const MASK: &str = "***";

/// Values shorter than this are not searched for (a one-letter "key" would garble every
/// message); the patterns still catch them after `Bearer`, `api-key:` and `key=`.
const SHORTEST: usize = 4;

/// The secrets one client knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    values: Vec<String>,
}

static KNOWN: RwLock<Secrets> = RwLock::new(Secrets { values: Vec::new() });

/// [`Secrets::scrub`] with every secret any client of this process was given.
pub fn scrub(text: &str) -> String {
    match KNOWN.read() {
        Ok(known) => known.scrub(text),
        Err(poisoned) => poisoned.into_inner().scrub(text),
    }
}

/// Every secret value any client of this process was given masked, and nothing else: safe
/// inside JSON text, where a credential-shaped pattern could take a field's value with it.
pub fn scrub_values(text: &str) -> String {
    let known = match KNOWN.read() {
        Ok(k) => k,
        Err(poisoned) => poisoned.into_inner(),
    };
    known.scrub_values(text)
}

/// `url` with its own credentials masked: `user:password@` replaced and the values of query
/// parameters named like keys (`?key=…`) hidden, so an address can be printed.
pub fn shown_url(url: &str) -> String {
    let mut secrets = Secrets::new();
    secrets.add_url(url);
    secrets.shown_url(url)
}

impl Secrets {
    /// Every value of the set masked (no patterns).
    pub fn scrub_values(&self, text: &str) -> String {
        let mut out = text.to_string();
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), MASK);
            }
        }
        out
    }

    /// An empty set (the patterns still apply).
    pub fn new() -> Secrets {
        Secrets::default()
    }

    /// Add a secret value (a key), trimmed; too short or empty values are not searched for.
    pub fn add(&mut self, value: &str) {
        let value = value.trim();
        if value.chars().count() < SHORTEST {
            return;
        }
        let mut forms = vec![value.to_string(), percent_encode(value)];
        if let Some(decoded) = percent_decode(value) {
            forms.push(decoded);
        }
        for form in forms {
            if !self.values.contains(&form) {
                self.values.push(form);
            }
        }
        // Longest first, so a value holding another is masked whole.
        self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }

    /// Add the secrets an address carries: `user:password@` and the values of query parameters
    /// named like keys (`?key=…`, `?api-key=…`, `?token=…`).
    pub fn add_url(&mut self, url: &str) {
        // An address without a scheme (`u:hunter2@host:5432/db`) carries its secrets the same.
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if let Some(at) = rest[..authority_end].rfind('@') {
            let userinfo = &rest[..at];
            match userinfo.split_once(':') {
                Some((user, password)) => {
                    self.add(user);
                    self.add(password);
                }
                None => self.add(userinfo),
            }
        }
        if let Some((_, query)) = rest.split_once('?') {
            let query = query.split('#').next().unwrap_or("");
            for pair in query.split('&') {
                if let Some((name, value)) = pair.split_once('=')
                    && key_like(name)
                {
                    self.add(value);
                }
            }
        }
    }

    /// Remember this set for the whole process, so [`scrub`] masks its values too.
    pub fn remember(&self) {
        let mut known = match KNOWN.write() {
            Ok(k) => k,
            Err(poisoned) => poisoned.into_inner(),
        };
        for v in &self.values {
            if !known.values.contains(v) {
                known.values.push(v.clone());
            }
        }
        known.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }

    /// `text` with every secret of the set and every credential-shaped value masked.
    pub fn scrub(&self, text: &str) -> String {
        mask_patterns(&self.scrub_values(text))
    }

    /// An address as messages show it: the user and password masked (`***@`), the values of
    /// query parameters named like keys masked, and any other secret of the set masked.
    pub fn shown_url(&self, url: &str) -> String {
        let masked = mask_userinfo(url);
        let (before, query) = match masked.split_once('?') {
            Some((b, q)) => (b.to_string(), Some(q.to_string())),
            None => (masked.clone(), None),
        };
        let Some(query) = query else {
            return self.scrub(&masked);
        };
        let (query, fragment) = match query.split_once('#') {
            Some((q, f)) => (q.to_string(), format!("#{f}")),
            None => (query, String::new()),
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if key_like(name) => format!("{name}={MASK}"),
                _ => pair.to_string(),
            })
            .collect();
        self.scrub(&format!("{before}?{}{fragment}", pairs.join("&")))
    }
}

/// `user:password@` (or `token@`) in an address replaced by `***@`.
fn mask_userinfo(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (format!("{scheme}://"), rest),
        None => (String::new(), url),
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..host_end].rfind('@') {
        // Without a scheme only `user:password@` is taken for credentials.
        Some(at) if !scheme.is_empty() || rest[..at].contains(':') => {
            format!("{scheme}{MASK}@{}", &rest[at + 1..])
        }
        _ => url.to_string(),
    }
}

/// Whether a header, field or parameter name is one that holds a credential.
pub fn key_like(name: &str) -> bool {
    let name = name.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
    let name = percent_decode(&name).unwrap_or(name);
    let bare = name.trim_start_matches("x-");
    if bare.is_empty()
        || !bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return false;
    }
    matches!(
        bare,
        "key" | "sig" | "auth" | "authorization" | "credential" | "credentials"
    ) || [
        "-key",
        "_key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "signature",
    ]
    .iter()
    .any(|end| bare.ends_with(end))
}

/// Credential-shaped values masked: after `Bearer `/`Basic `, after a key-like name and `=`,
/// `:` or `": "`, and `sk-…` tokens.
fn mask_patterns(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        // A scheme word: Bearer / Basic, then a space, then the token.
        if let Some(end) = after_scheme(&chars, i) {
            let (token_end, masked) = token_at(&chars, end);
            out.extend(&chars[i..end]);
            if masked {
                out.push_str(MASK);
            }
            i = token_end;
            continue;
        }
        // A key-like name, a separator, the value.
        if (i == 0 || !is_name_char(chars[i - 1]))
            && is_name_char(chars[i])
            && let Some((name_end, value_start)) = name_and_separator(&chars, i)
        {
            let name: String = chars[i..name_end].iter().collect();
            let (value_end, masked) = token_at(&chars, value_start);
            // `Authorization: Bearer …`: the scheme stays, its token goes (the branch above).
            if key_like(&name) && masked && after_scheme(&chars, value_start).is_none() {
                out.extend(&chars[i..value_start]);
                out.push_str(MASK);
                i = value_end;
                continue;
            }
        }
        // sk-… tokens (OpenAI, Anthropic, DeepSeek keys), whoever's.
        if chars[i] == 's'
            && (i == 0 || !is_token_char(chars[i - 1]))
            && chars.get(i + 1) == Some(&'k')
            && chars.get(i + 2) == Some(&'-')
        {
            let (end, _) = token_at(&chars, i + 3);
            if end - (i + 3) >= 8 {
                out.push_str("sk-");
                out.push_str(MASK);
                i = end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// A character that can belong to a token: anything but whitespace, quotes and the separators
/// that end a value in a URL, a header list or JSON.
fn is_token_char(c: char) -> bool {
    !(c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '&' | '#' | ',' | ';' | '}' | ']' | ')' | '<' | '>'
        ))
}

/// The token starting at `start`: its end and whether there is one (not already the mask).
fn token_at(chars: &[char], start: usize) -> (usize, bool) {
    let mut end = start;
    while end < chars.len() && is_token_char(chars[end]) {
        end += 1;
    }
    let token: String = chars[start..end].iter().collect();
    if token.is_empty() || token == MASK {
        return (end, false);
    }
    // A token ending in a sentence's full stop keeps it.
    if token.ends_with(['.', ':']) && end - start > 1 {
        return (end - 1, true);
    }
    (end, true)
}

/// `Bearer ` or `Basic ` (any case) starting at `i`, not inside a word: where the token begins.
fn after_scheme(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && chars[i - 1].is_alphanumeric() {
        return None;
    }
    for word in ["bearer", "basic"] {
        let n = word.len();
        if i + n < chars.len()
            && chars[i..i + n]
                .iter()
                .zip(word.chars())
                .all(|(a, b)| a.to_ascii_lowercase() == b)
            && chars[i + n] == ' '
        {
            let mut j = i + n;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            return Some(j);
        }
    }
    None
}

/// A name at `i` followed by `=`, `:`, `": "` or `=\"`: the name's end and where the value
/// begins.
fn name_and_separator(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut end = i;
    while end < chars.len() && is_name_char(chars[end]) {
        end += 1;
    }
    let mut j = end;
    // A JSON field name: "api_key": "…"
    if chars.get(j) == Some(&'"') || chars.get(j) == Some(&'\'') {
        j += 1;
    }
    while chars.get(j) == Some(&' ') {
        j += 1;
    }
    match chars.get(j) {
        Some('=') | Some(':') => j += 1,
        _ => return None,
    }
    while chars.get(j) == Some(&' ') {
        j += 1;
    }
    if chars.get(j) == Some(&'"') || chars.get(j) == Some(&'\'') {
        j += 1;
    }
    Some((end, j))
}

fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `%XX` sequences decoded, when there are any and they decode to UTF-8.
fn percent_decode(value: &str) -> Option<String> {
    if !value.contains('%') {
        return None;
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bodies real services answer a bad key with, each echoing what it was sent
    /// (tests/fixtures/hostile/service-401-*.json, with `{KEY}` where the key goes).
    const ECHOES: [&str; 3] = [
        include_str!("../../tests/fixtures/hostile/service-401-openai.json"),
        include_str!("../../tests/fixtures/hostile/service-401-header.json"),
        include_str!("../../tests/fixtures/hostile/service-400-json-field.json"),
    ];

    #[test]
    fn a_configured_key_is_masked_wherever_it_appears() {
        let key = "sk-test-4f1c9e2a77d0b3";
        let mut s = Secrets::new();
        s.add(key);
        for body in ECHOES {
            let body = body.replace("{KEY}", key);
            let shown = s.scrub(&body);
            assert!(!shown.contains(key), "{shown}");
            assert!(!shown.contains("4f1c9e2a77d0b3"), "{shown}");
            assert!(shown.contains(MASK), "{shown}");
        }
        // Percent-encoded too (a key echoed inside a URL).
        let mut s = Secrets::new();
        s.add("a+b/c=d");
        assert_eq!(s.scrub("x?k=a%2Bb%2Fc%3Dd y"), "x?k=*** y");
    }

    #[test]
    fn credential_shapes_are_masked_without_knowing_the_key() {
        let s = Secrets::new();
        for (given, shown) in [
            (
                "Incorrect API key provided: Bearer abc123XYZ.",
                "Incorrect API key provided: Bearer ***.",
            ),
            (
                "authorization: basic dXNlcjpwdw==",
                "authorization: basic ***",
            ),
            ("{\"api_key\": \"zzz-1\"}", "{\"api_key\": \"***\"}"),
            ("api-key: qwerty9", "api-key: ***"),
            ("GET /v1?key=AIzaSy123&alt=json", "GET /v1?key=***&alt=json"),
            ("token=abc; path=/", "token=***; path=/"),
            (
                "the key sk-proj-ABCDEFGH12345 is wrong",
                "the key sk-*** is wrong",
            ),
            // Prose without credentials stays as it is.
            (
                "check the key (the variable embed_key_env names): it may use this model",
                "check the key (the variable embed_key_env names): it may use this model",
            ),
            ("monkey: 3 bananas", "monkey: 3 bananas"),
            ("HTTP 401: invalid", "HTTP 401: invalid"),
        ] {
            assert_eq!(s.scrub(given), shown, "{given}");
        }
    }

    #[test]
    fn addresses_hide_userinfo_and_key_parameters() {
        let mut s = Secrets::new();
        let url = "https://user:pw12345@host:8080/v1?api-version=2024-02-01&key=AIzaSyXYZ#frag";
        s.add_url(url);
        let shown = s.shown_url(url);
        assert_eq!(
            shown,
            "https://***@host:8080/v1?api-version=2024-02-01&key=***#frag"
        );
        // The values are secrets now, wherever else they appear.
        assert_eq!(s.scrub("echo AIzaSyXYZ and pw12345"), "echo *** and ***");
        assert_eq!(
            Secrets::new().shown_url("http://127.0.0.1:80/v1"),
            "http://127.0.0.1:80/v1"
        );
        assert_eq!(
            Secrets::new().shown_url("http://host/path@x"),
            "http://host/path@x"
        );
    }

    #[test]
    fn a_remembered_set_is_scrubbed_process_wide() {
        let mut s = Secrets::new();
        s.add("remembered-secret-77");
        assert!(scrub("x remembered-secret-77 y").contains("remembered-secret-77"));
        s.remember();
        assert_eq!(scrub("x remembered-secret-77 y"), "x *** y");
    }
}
