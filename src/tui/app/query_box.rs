//! The query box: a one-line editor with a cursor, counted in characters and shown in terminal
//! columns (a wide character takes two).

use unicode_width::UnicodeWidthStr;

/// Questions the history keeps, oldest dropped first.
pub const HISTORY: usize = 100;

/// The text being typed, where the cursor is, and the questions asked before.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryBox {
    /// The text.
    pub text: String,
    /// Cursor position in characters (0 = before the first).
    pub cursor: usize,
    /// Questions asked, oldest first (a repeat of the last one is kept once).
    pub history: Vec<String>,
    /// Which history entry is shown while `↑`/`↓` browse it; `None` when editing.
    browsing: Option<usize>,
    /// The text being typed when browsing began, given back past the newest entry.
    draft: String,
}

impl QueryBox {
    fn byte_at(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }

    fn len(&self) -> usize {
        self.text.chars().count()
    }

    /// Type one character at the cursor; control characters are ignored.
    pub fn insert(&mut self, c: char) {
        if c.is_control() {
            return;
        }
        let at = self.byte_at(self.cursor);
        self.text.insert(at, c);
        self.cursor += 1;
    }

    /// Insert pasted text at the cursor as one edit: line breaks and tabs become spaces (a
    /// pasted newline must not run the question), other control characters are dropped.
    pub fn insert_str(&mut self, pasted: &str) {
        let mut clean = String::with_capacity(pasted.len());
        let mut chars = pasted.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' if chars.peek() == Some(&'\n') => {}
                '\r' | '\n' | '\t' => clean.push(' '),
                c if c.is_control() => {}
                c => clean.push(c),
            }
        }
        let at = self.byte_at(self.cursor);
        self.text.insert_str(at, &clean);
        self.cursor += clean.chars().count();
    }

    /// What a box `width` columns wide shows, and the cursor's column in it: the end of a long
    /// question with the cursor in view, one column kept free for the cursor at the end. Widths
    /// are terminal columns of the text as drawn (through `text::safe`), so wide characters keep
    /// the cursor where the text is.
    pub fn view(&self, width: usize) -> (String, usize) {
        let cells: Vec<(String, usize)> = self
            .text
            .chars()
            .map(|c| {
                let shown = seamscope::text::safe(c.encode_utf8(&mut [0; 4]));
                let w = shown.width();
                (shown, w)
            })
            .collect();
        let cursor = self.cursor.min(cells.len());
        let room = width.saturating_sub(1);
        // Drop characters from the front until the text before the cursor fits.
        let mut skip = 0;
        let mut before: usize = cells[..cursor].iter().map(|(_, w)| w).sum();
        while before > room && skip < cursor {
            before -= cells[skip].1;
            skip += 1;
        }
        let shown: String = cells[skip..].iter().map(|(s, _)| s.as_str()).collect();
        (shown, before)
    }

    /// Delete the character before the cursor.
    pub fn delete_back(&mut self) {
        if self.cursor == 0 {
            return;
        }
        self.cursor -= 1;
        let at = self.byte_at(self.cursor);
        self.text.remove(at);
    }

    /// Delete the character at the cursor.
    pub fn delete_forward(&mut self) {
        if self.cursor < self.len() {
            let at = self.byte_at(self.cursor);
            self.text.remove(at);
        }
    }

    /// Move the cursor by `delta` characters, staying inside the text.
    pub fn move_cursor(&mut self, delta: i32) {
        let target = self.cursor as i64 + i64::from(delta);
        self.cursor = target.clamp(0, self.len() as i64) as usize;
    }

    /// Move the cursor to the start or the end.
    pub fn move_to_edge(&mut self, end: bool) {
        self.cursor = if end { self.len() } else { 0 };
    }

    /// Empty the box.
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    /// Remember a question that was run.
    pub fn remember(&mut self, question: &str) {
        if self.history.last().map(String::as_str) != Some(question) {
            self.history.push(question.to_string());
        }
        if self.history.len() > HISTORY {
            self.history.remove(0);
        }
        self.browsing = None;
    }

    /// Show an older (`delta < 0`) or newer (`delta > 0`) question from the history; past the
    /// newest, the text typed before browsing comes back.
    pub fn recall(&mut self, delta: i32) {
        if self.history.is_empty() {
            return;
        }
        let newest = self.history.len() - 1;
        let next = match (self.browsing, delta < 0) {
            (None, true) => {
                self.draft = self.text.clone();
                Some(newest)
            }
            (None, false) => None,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if i < newest => Some(i + 1),
            (Some(_), false) => None,
        };
        self.text = match next {
            Some(i) => self.history[i].clone(),
            None => std::mem::take(&mut self.draft),
        };
        self.browsing = next;
        self.cursor = self.len();
    }

    /// The question to run: the text without surrounding whitespace, if any is left.
    pub fn question(&self) -> Option<String> {
        let q = self.text.trim();
        (!q.is_empty()).then(|| q.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_and_down_walk_the_history_and_give_the_draft_back() {
        let mut q = QueryBox::default();
        q.recall(-1);
        assert_eq!(q.text, "", "no history: nothing happens");
        q.remember("first question");
        q.remember("second question");
        q.remember("second question");
        assert_eq!(q.history.len(), 2, "a repeat is kept once");
        q.insert_str("half typ");
        q.recall(-1);
        assert_eq!((q.text.as_str(), q.cursor), ("second question", 15));
        q.recall(-1);
        assert_eq!(q.text, "first question");
        q.recall(-1);
        assert_eq!(q.text, "first question", "the oldest stays");
        q.recall(1);
        assert_eq!(q.text, "second question");
        q.recall(1);
        assert_eq!(q.text, "half typ", "past the newest: the draft");
    }

    #[test]
    fn edits_by_characters_not_bytes() {
        let mut q = QueryBox::default();
        for c in "héllo".chars() {
            q.insert(c);
        }
        q.move_cursor(-3);
        q.delete_back();
        assert_eq!(q.text, "hllo");
        q.insert('\u{1b}');
        q.delete_forward();
        assert_eq!(q.text, "hlo");
        q.move_to_edge(true);
        q.insert('!');
        assert_eq!((q.text.as_str(), q.cursor), ("hlo!", 4));
        assert_eq!(QueryBox::default().question(), None);
    }

    #[test]
    fn a_paste_is_one_line_and_keeps_every_character() {
        let mut q = QueryBox::default();
        q.insert_str("why\r\nstale\nreads?\t\u{1b}[31m");
        assert_eq!((q.text.as_str(), q.cursor), ("why stale reads? [31m", 21));
        let long = "a".repeat(5_000);
        q.clear();
        q.insert_str(&long);
        assert_eq!((q.text.len(), q.cursor), (5_000, 5_000));
    }

    #[test]
    fn the_cursor_counts_columns_not_characters() {
        let mut q = QueryBox::default();
        q.insert_str("日本語 ok");
        // 3 wide characters (6 columns), a space and two letters: the cursor sits at column 9.
        assert_eq!(q.view(40), ("日本語 ok".to_string(), 9));
        q.move_to_edge(false);
        q.move_cursor(2);
        assert_eq!(q.view(40).1, 4);
        // Too narrow: the front scrolls away and the cursor stays inside the box.
        q.move_to_edge(true);
        let (shown, col) = q.view(6);
        assert!(col <= 5, "{shown:?} {col}");
        assert!(shown.ends_with(" ok"), "{shown:?}");
    }
}
