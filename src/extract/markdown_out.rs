//! The Markdown that HTML and DOCX extraction write: blocks separated by blank lines (list items
//! by one newline), headings as `#` headings, list items as `- ` / `1. `, tables as Markdown
//! tables with a header row, code as fenced blocks. One writer, so both formats give the
//! structure chunker and heading paths the same shapes.

/// A Markdown document built block by block.
#[derive(Debug, Default)]
pub(crate) struct MarkdownOut {
    out: String,
    /// Whether the last block written was a list item (the next item follows on the next line).
    last_was_item: bool,
}

impl MarkdownOut {
    /// The text written so far.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    fn separate(&mut self, tight: bool) {
        if self.out.is_empty() {
            return;
        }
        self.out.push_str(if tight { "\n" } else { "\n\n" });
    }

    /// Write one block of lines, each prefixed (`first` on the first line, `rest` after).
    fn block(&mut self, text: &str, first: &str, rest: &str, item: bool) {
        self.separate(item && self.last_was_item);
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            self.out.push_str(if i == 0 { first } else { rest });
            self.out.push_str(line);
        }
        self.last_was_item = item;
    }

    /// A paragraph (soft lines kept), under `quote` levels of `> ` and `indent` spaces. A line
    /// that Markdown would read as a heading (`# x`, or `---` under a line) is escaped, so a
    /// paragraph never becomes a heading.
    pub(crate) fn paragraph(&mut self, text: &str, quote: usize, indent: usize) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let escaped: Vec<String> = text.lines().map(escape_line).collect();
        let text = escaped.join("\n");
        let prefix = format!("{}{}", "> ".repeat(quote), " ".repeat(indent));
        let continues = indent > 0 && self.last_was_item;
        self.block(&text, &prefix, &prefix, continues);
    }

    /// A thematic break (`---`), under `quote` levels of `> `.
    pub(crate) fn rule(&mut self, quote: usize) {
        let prefix = "> ".repeat(quote);
        self.block("---", &prefix, &prefix, false);
    }

    /// A heading of `level` (1–6); lines inside it are joined.
    pub(crate) fn heading(&mut self, level: usize, text: &str, quote: usize) {
        let title = collapse_lines(text);
        if title.is_empty() {
            return;
        }
        let prefix = format!("{}{} ", "> ".repeat(quote), "#".repeat(level.clamp(1, 6)));
        self.block(&title, &prefix, "", false);
    }

    /// A list item: `marker` (`- ` or `3. `) after `indent` spaces.
    pub(crate) fn item(&mut self, text: &str, marker: &str, indent: usize, quote: usize) {
        let text = text.trim();
        let pad = format!("{}{}", "> ".repeat(quote), " ".repeat(indent));
        let first = format!("{pad}{marker}");
        let rest = format!("{pad}{}", " ".repeat(marker.len()));
        // An empty item still shows its marker, so the list keeps its shape.
        self.block(
            if text.is_empty() { " " } else { text },
            &first,
            &rest,
            true,
        );
        if text.is_empty() {
            let trimmed = self.out.trim_end_matches(' ').len();
            self.out.truncate(trimmed);
        }
    }

    /// The end of a list: what follows is its own block, even another list.
    pub(crate) fn end_list(&mut self) {
        self.last_was_item = false;
    }

    /// A fenced code block, its text kept as it is.
    pub(crate) fn code(&mut self, text: &str, language: &str, quote: usize, indent: usize) {
        let body = text.trim_end_matches(['\n', '\r']);
        let body = body.trim_start_matches(['\n', '\r']);
        if body.trim().is_empty() {
            return;
        }
        let run = longest_run(body, '`');
        let fence = "`".repeat(run.max(2) + 1);
        let language: String = language
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '+' | '_' | '.'))
            .collect();
        let prefix = format!("{}{}", "> ".repeat(quote), " ".repeat(indent));
        let fenced = format!("{fence}{language}\n{body}\n{fence}");
        let continues = indent > 0 && self.last_was_item;
        self.block(&fenced, &prefix, &prefix, continues);
    }

    /// A table: the first row is the header; short rows are padded.
    pub(crate) fn table(&mut self, rows: &[Vec<String>], quote: usize, indent: usize) {
        let rows: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
            .collect();
        let Some(columns) = rows.iter().map(|r| r.len()).max() else {
            return;
        };
        let line = |row: &Vec<String>| {
            let mut s = String::from("|");
            for i in 0..columns {
                let cell = row.get(i).map(|c| table_cell(c)).unwrap_or_default();
                s.push(' ');
                s.push_str(&cell);
                s.push_str(" |");
            }
            s
        };
        let mut text = line(rows[0]);
        text.push('\n');
        text.push('|');
        for _ in 0..columns {
            text.push_str("---|");
        }
        for row in &rows[1..] {
            text.push('\n');
            text.push_str(&line(row));
        }
        let prefix = format!("{}{}", "> ".repeat(quote), " ".repeat(indent));
        let continues = indent > 0 && self.last_was_item;
        self.block(&text, &prefix, &prefix, continues);
    }
}

/// A paragraph line with a backslash before what would make it a heading, a fence or a rule.
fn escape_line(line: &str) -> String {
    let t = line.trim_start();
    let hashes = t.len() - t.trim_start_matches('#').len();
    let heading =
        (1..=6).contains(&hashes) && t[hashes..].chars().next().is_none_or(char::is_whitespace);
    let rule = !t.is_empty()
        && (t.chars().all(|c| c == '-' || c == ' ') || t.chars().all(|c| c == '=' || c == ' '));
    let fence = t.starts_with("```") || t.starts_with("~~~");
    if heading || rule || fence {
        return format!("\\{t}");
    }
    // A line that opens like a list item ("1. Purpose", "- note") stays paragraph text.
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after = &t[digits..];
    if (1..=9).contains(&digits)
        && (after.starts_with(". ") || after.starts_with(") ") || after == "." || after == ")")
    {
        return format!("{}\\{after}", &t[..digits]);
    }
    if ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m)) {
        return format!("\\{t}");
    }
    line.to_string()
}

/// A cell's text on one line, its pipes escaped.
fn table_cell(text: &str) -> String {
    collapse_lines(text).replace('|', "\\|")
}

/// Lines joined by single spaces, whitespace runs collapsed.
pub(crate) fn collapse_lines(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn longest_run(text: &str, ch: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in text.chars() {
        if c == ch {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_items_and_tables_take_markdown_shapes() {
        let mut md = MarkdownOut::default();
        md.heading(2, "Retries\n and  backoff", 0);
        md.paragraph("  First line\nsecond line ", 0, 0);
        md.item("one", "- ", 0, 0);
        md.item("two\nmore", "- ", 0, 0);
        md.item("nested", "1. ", 2, 0);
        md.table(
            &[
                vec!["a".into(), "b|c".into()],
                vec!["1".into()],
                vec![" ".into(), "".into()],
            ],
            0,
            0,
        );
        md.code("let x = 1;\n```\n", "rust", 0, 0);
        md.paragraph("# not a heading\n---\nok\n1. not a list\n- nor this", 0, 0);
        assert_eq!(
            md.finish(),
            "## Retries and backoff\n\nFirst line\nsecond line\n\n- one\n- two\n  more\n  1. nested\n\n\
             | a | b\\|c |\n|---|---|\n| 1 |  |\n\n````rust\nlet x = 1;\n```\n````\n\n\\# not a heading\n\\---\nok\n1\\. not a list\n\\- nor this"
        );
    }
}
