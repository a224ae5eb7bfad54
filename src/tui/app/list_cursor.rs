//! A list's cursor and scroll offset, kept apart so the mouse wheel can scroll without moving
//! the cursor, and a click can pick the row under the pointer.

/// The selected row of a list and the first row shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListCursor {
    /// The selected row.
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
}

impl ListCursor {
    /// Select row `index` (clamped to a list of `len` rows) and scroll so it shows in `height` rows.
    pub fn select(&mut self, index: usize, len: usize, height: usize) {
        self.selected = index.min(len.saturating_sub(1));
        let height = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
    }

    /// Move the selection by `delta` rows.
    pub fn move_by(&mut self, delta: i32, len: usize, height: usize) {
        let target = (self.selected as i64 + i64::from(delta)).max(0) as usize;
        self.select(target, len, height);
    }

    /// Scroll by `delta` rows without moving the selection.
    pub fn scroll_by(&mut self, delta: i32, len: usize, height: usize) {
        let last = len.saturating_sub(height.max(1));
        let target = (self.offset as i64 + i64::from(delta)).max(0) as usize;
        self.offset = target.min(last);
    }

    /// Select the row shown `row` rows below the top; returns false when no row is there.
    pub fn click(&mut self, row: u16, len: usize, height: usize) -> bool {
        let index = self.offset + usize::from(row);
        if index >= len {
            return false;
        }
        self.select(index, len, height);
        true
    }

    /// Keep the cursor and offset inside a list that now has `len` rows.
    pub fn clamp(&mut self, len: usize, height: usize) {
        self.offset = self.offset.min(len.saturating_sub(height.max(1)));
        self.select(self.selected, len, height);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_stays_visible_and_wheel_scrolls_alone() {
        let mut c = ListCursor::default();
        c.move_by(7, 20, 5);
        assert_eq!((c.selected, c.offset), (7, 3));
        c.scroll_by(100, 20, 5);
        assert_eq!((c.selected, c.offset), (7, 15));
        assert!(c.click(2, 20, 5));
        assert_eq!(c.selected, 17);
        assert!(!c.click(9, 20, 5));
        c.clamp(4, 5);
        assert_eq!((c.selected, c.offset), (3, 0));
    }
}
