//! The query box: a one-line editor with a cursor, counted in characters.

/// The text being typed and where the cursor is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryBox {
    /// The text.
    pub text: String,
    /// Cursor position in characters (0 = before the first).
    pub cursor: usize,
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
}
