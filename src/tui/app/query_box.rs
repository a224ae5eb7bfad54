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

    /// The text broken at spaces into lines of at most `width` columns (a longer word is cut
    /// where the line ends), as drawn (through `text::safe`), with the cursor's (column, line).
    /// At most `lines` lines are returned: those around the cursor when there are more.
    pub fn view_lines(&self, width: usize, lines: usize) -> (Vec<String>, (usize, usize)) {
        let width = width.max(2);
        let cells: Vec<(String, usize)> = self
            .text
            .chars()
            .map(|c| {
                let shown = seamscope::text::safe(c.encode_utf8(&mut [0; 4]));
                let w = shown.width();
                (shown, w)
            })
            .collect();
        // Each line is a range of characters; a line breaks after the last space that fits.
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let mut start = 0;
        while start < cells.len() {
            let mut used = 0;
            let mut end = start;
            let mut last_space = None;
            while end < cells.len() && used + cells[end].1 < width {
                if cells[end].0 == " " {
                    last_space = Some(end);
                }
                used += cells[end].1;
                end += 1;
            }
            if end < cells.len()
                && let Some(space) = last_space.filter(|s| *s > start)
            {
                end = space + 1;
            }
            ranges.push((start, end.max(start + 1)));
            start = end.max(start + 1);
        }
        if ranges.is_empty() {
            ranges.push((0, 0));
        }
        let cursor = self.cursor.min(cells.len());
        let row = ranges
            .iter()
            .position(|(a, b)| cursor >= *a && cursor < *b)
            .unwrap_or(ranges.len() - 1);
        let (a, _) = ranges[row];
        let column: usize = cells[a..cursor].iter().map(|(_, w)| w).sum();
        let lines = lines.max(1);
        let first = (row + 1).saturating_sub(lines);
        let shown = ranges
            .iter()
            .skip(first)
            .take(lines)
            .map(|(a, b)| cells[*a..*b].iter().map(|(s, _)| s.as_str()).collect())
            .collect();
        (shown, (column, row - first))
    }

    /// Lines the text takes at `width` columns (see [`QueryBox::view_lines`]).
    pub fn line_count(&self, width: usize) -> usize {
        self.view_lines(width, usize::MAX).0.len()
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
    fn a_long_question_wraps_at_spaces_with_the_cursor_on_its_line() {
        let mut q = QueryBox::default();
        q.insert_str("why does the order service accept stale reads at all");
        let (lines, (col, row)) = q.view_lines(21, 9);
        assert_eq!(
            lines,
            vec![
                "why does the order ",
                "service accept ",
                "stale reads at all"
            ]
        );
        assert_eq!((col, row), (18, 2), "the cursor after the last word");
        assert_eq!(q.line_count(21), 3);
        q.move_to_edge(false);
        let (lines, (col, row)) = q.view_lines(21, 2);
        assert_eq!(lines.len(), 2);
        assert_eq!((col, row), (0, 0), "the lines around the cursor");
        assert_eq!(lines.concat(), "why does the order service accept ");
    }

    #[test]
    fn the_cursor_counts_columns_not_characters() {
        let mut q = QueryBox::default();
        q.insert_str("日本語 ok");
        // 3 wide characters (6 columns), a space and two letters: the cursor sits at column 9.
        assert_eq!(q.view_lines(40, 1), (vec!["日本語 ok".to_string()], (9, 0)));
        q.move_to_edge(false);
        q.move_cursor(2);
        assert_eq!(q.view_lines(40, 1).1, (4, 0));
        // Too narrow: the text wraps and the cursor stays inside the box, on the last line.
        q.move_to_edge(true);
        let (shown, (col, row)) = q.view_lines(6, 1);
        assert!(col <= 5, "{shown:?} {col}");
        assert_eq!(row, 0, "one line shown: the cursor's");
        assert_eq!(shown, vec!["語 ok".to_string()], "{shown:?}");
    }
}
