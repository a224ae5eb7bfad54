//! Save and share: a view file (`w`) that `seamscope --open FILE` restores — corpus, settings,
//! question, gold question and presenter step — so a demo can be prepared and replayed; the
//! trace as `query --json` writes it (`e`); the context text on the clipboard (`y`).
//!
//! The screen's state never does I/O: `App::update` queues an [`Effect`], the event loop carries
//! it out with [`perform`] and reports back with an action.

use std::path::{Path, PathBuf};

use anyhow::Context;
use seamscope::chunk::ChunkerKind;
use seamscope::settings::Settings;
use serde::{Deserialize, Serialize};

/// The version of the view file format this build writes and reads.
pub const VIEW_VERSION: u32 = 1;

/// Everything needed to put the screen back as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewFile {
    /// Always [`VIEW_VERSION`].
    pub seamscope_view: u32,
    /// The corpus folder (absolute when written; a relative one is read from the file's folder).
    pub corpus: PathBuf,
    /// The settings in force.
    pub settings: ViewSettings,
    /// The question asked, if any.
    #[serde(default)]
    pub question: Option<String>,
    /// The gold question's id, when it came from the corpus' `questions.jsonl`.
    #[serde(default)]
    pub gold_id: Option<String>,
    /// Presenter mode's step (0-based), when it was on.
    #[serde(default)]
    pub step: Option<usize>,
}

/// The settings a view file restores.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewSettings {
    /// Fire margin.
    pub m: u32,
    /// Budget in chunks.
    pub budget: usize,
    /// Seam half-width.
    pub k: usize,
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// The chunker.
    pub chunker: ChunkerKind,
    /// Heading-path prefixes in search texts.
    pub heading_prefix: bool,
    /// Side drop's threshold, when on.
    #[serde(default)]
    pub side_drop: Option<f32>,
}

impl ViewSettings {
    /// Put these settings over `settings`, checking every value against its range.
    pub fn apply(&self, settings: &mut Settings) -> anyhow::Result<()> {
        settings.m = self.m;
        settings.budget = self.budget;
        settings.k = self.k;
        settings.chunk_tokens = self.chunk_tokens;
        settings.chunker = self.chunker;
        settings.heading_prefix = self.heading_prefix;
        settings.side_drop = self.side_drop;
        settings
            .validate()
            .context("the view file's settings are out of range")
    }
}

impl ViewFile {
    /// Read a view file (a regular file of at most [`seamscope::files::JSON_LIMIT`] bytes, a
    /// leading byte-order mark skipped), resolving a relative corpus path against the file's
    /// folder.
    pub fn read(path: &Path) -> anyhow::Result<ViewFile> {
        let bytes = seamscope::files::read_regular(path, seamscope::files::JSON_LIMIT)
            .with_context(|| format!("cannot read the view file {}", path.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut view: ViewFile = serde_json::from_str(text).with_context(|| {
            format!(
                "{} is not a seamscope view file (written by `w` in the screen)",
                path.display()
            )
        })?;
        anyhow::ensure!(
            view.seamscope_view == VIEW_VERSION,
            "{} is a view file of version {}; this seamscope reads version {VIEW_VERSION}",
            path.display(),
            view.seamscope_view
        );
        if view.corpus.is_relative() {
            let base = path.parent().unwrap_or(Path::new("."));
            view.corpus = base.join(&view.corpus);
        }
        Ok(view)
    }
}

/// Something the screen asks the event loop to do outside its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Write `contents` to `path`; `what` names it in the notice.
    WriteFile {
        /// Where.
        path: PathBuf,
        /// What.
        contents: String,
        /// Its name in the notice (`trace`, `view`).
        what: &'static str,
    },
    /// Put `text` on the terminal's clipboard (OSC 52) and write it to `fallback` as well, since
    /// no terminal says whether it accepted the copy.
    Copy {
        /// The text.
        text: String,
        /// The file that holds it too.
        fallback: PathBuf,
    },
}

/// A file name in the working directory, by the second: `seamscope-trace-1764614400.json`. Two
/// saves in one second name the same file; [`perform`] then writes the second beside the first
/// (`seamscope-trace-1764614400-2.json`), never over it.
pub fn file_name(kind: &str, extension: &str) -> PathBuf {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from(format!("seamscope-{kind}-{seconds}.{extension}"))
}

/// The `n`th name to try for `path`: `path` itself first, then `NAME-2.EXT`, `NAME-3.EXT`, …
pub fn numbered(path: &Path, n: usize) -> PathBuf {
    if n <= 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    path.with_file_name(name)
}

/// How many numbered names a save tries before it gives up.
const MAX_NUMBERED: usize = 1000;

/// Carry out an effect; returns the notice to show (and whether it reports a failure).
pub fn perform<W: std::io::Write>(effect: &Effect, terminal_out: &mut W) -> (String, bool) {
    match effect {
        Effect::WriteFile {
            path,
            contents,
            what,
        } => match write_new(path, contents) {
            Ok(written) => (format!("{what} written to {}", shown(&written)), false),
            Err(e) => (format!("could not write the {what}: {e:#}"), true),
        },
        Effect::Copy { text, fallback } => {
            let copied = crossterm::execute!(
                terminal_out,
                crossterm::clipboard::CopyToClipboard::to_clipboard_from(text.as_bytes())
            );
            let saved = write_new(fallback, text);
            match (copied, saved) {
                (Ok(()), Ok(written)) => (
                    format!(
                        "context copied to the clipboard (OSC 52; if your terminal ignores it, \
                         the text is in {})",
                        shown(&written)
                    ),
                    false,
                ),
                (Err(_), Ok(written)) => (
                    format!(
                        "the terminal refused the copy; the context is in {}",
                        shown(&written)
                    ),
                    false,
                ),
                (_, Err(e)) => (format!("could not save the context: {e:#}"), true),
            }
        }
    }
}

/// Write a file through a temporary one in the same folder, so a reader never sees half of it,
/// and never over an existing file: the temporary file is moved to the first free name of
/// [`numbered`] with an exclusive rename (it fails, rather than replaces, when the name is
/// taken). Returns the path written.
fn write_new(path: &Path, contents: &str) -> anyhow::Result<PathBuf> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(&folder)
        .with_context(|| format!("cannot write in {}", folder.display()))?;
    std::io::Write::write_all(&mut file, contents.as_bytes())?;
    for n in 1..=MAX_NUMBERED {
        let candidate = numbered(path, n);
        match file.persist_noclobber(&candidate) {
            Ok(_) => return Ok(candidate),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => file = e.file,
            Err(e) => {
                return Err(e.error)
                    .with_context(|| format!("cannot write {}", candidate.display()));
            }
        }
    }
    anyhow::bail!(
        "{} and {MAX_NUMBERED} numbered names beside it are taken",
        path.display()
    )
}

fn shown(path: &Path) -> String {
    seamscope::text::safe(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ViewFile {
        ViewFile {
            seamscope_view: VIEW_VERSION,
            corpus: PathBuf::from("corpus"),
            settings: ViewSettings {
                m: 1,
                budget: 5,
                k: 150,
                chunk_tokens: 1024,
                chunker: ChunkerKind::Fixed,
                heading_prefix: false,
                side_drop: None,
            },
            question: Some("why?".into()),
            gold_id: Some("A01".into()),
            step: Some(3),
        }
    }

    #[test]
    fn a_view_file_round_trips_and_its_corpus_is_read_beside_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("demo.view.json");
        let text = serde_json::to_string_pretty(&view()).unwrap_or_default();
        let effect = Effect::WriteFile {
            path: path.clone(),
            contents: text,
            what: "view",
        };
        let (notice, error) = perform(&effect, &mut Vec::new());
        assert!(!error, "{notice}");
        let back = ViewFile::read(&path).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(back.corpus, dir.path().join("corpus"));
        assert_eq!(
            ViewFile {
                corpus: PathBuf::from("corpus"),
                ..back
            },
            view()
        );
    }

    #[test]
    fn a_bad_view_file_says_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("v.json");
        std::fs::write(&path, "{\"seamscope_view\": 9}").unwrap_or_else(|e| panic!("{e}"));
        let err = ViewFile::read(&path).map(|_| ()).unwrap_err();
        assert!(
            format!("{err:#}").contains("not a seamscope view file"),
            "{err:#}"
        );
        let mut future = view();
        future.seamscope_view = 9;
        let text = serde_json::to_string(&future).unwrap_or_default();
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        let err = ViewFile::read(&path).map(|_| ()).unwrap_err();
        assert!(format!("{err:#}").contains("version 9"), "{err:#}");
        let mut wild = Settings::default();
        let mut settings = view().settings;
        settings.m = 100_000;
        assert!(
            settings.apply(&mut wild).is_err(),
            "m = 100000 is out of range"
        );
        assert!(ViewFile::read(&dir.path().join("missing.json")).is_err());
    }

    #[test]
    fn two_saves_in_the_same_second_keep_both_files() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // Every save within one second is handed this one name.
        let first = dir.path().join(file_name("trace", "json"));
        let save = |contents: &str| {
            perform(
                &Effect::WriteFile {
                    path: first.clone(),
                    contents: contents.into(),
                    what: "trace",
                },
                &mut Vec::new(),
            )
        };
        let (notice_one, error_one) = save("one");
        let (notice_two, error_two) = save("two");
        let (notice_three, _) = save("three");
        assert!(!error_one && !error_two, "{notice_one} / {notice_two}");
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        assert_eq!(read(&first), "one", "the first save is kept");
        let numbered_two = numbered(&first, 2);
        assert_eq!(read(&numbered_two), "two");
        assert_eq!(read(&numbered(&first, 3)), "three");
        assert!(notice_two.contains(&shown(&numbered_two)), "{notice_two}");
        assert!(notice_three.ends_with("-3.json"), "{notice_three}");
        assert_eq!(
            numbered(Path::new("seamscope-trace-17.json"), 2),
            PathBuf::from("seamscope-trace-17-2.json")
        );
        assert_eq!(
            numbered(Path::new("dir/seamscope-view-17.json"), 1),
            PathBuf::from("dir/seamscope-view-17.json")
        );
    }

    #[test]
    fn a_copy_goes_to_the_terminal_as_osc_52_and_to_the_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fallback = dir.path().join("context.txt");
        let mut out = Vec::new();
        let effect = Effect::Copy {
            text: "chunk text".into(),
            fallback: fallback.clone(),
        };
        let (notice, error) = perform(&effect, &mut out);
        assert!(!error, "{notice}");
        let sent = String::from_utf8_lossy(&out);
        assert!(sent.starts_with("\u{1b}]52;c;"), "{sent:?}");
        assert!(
            sent.contains("Y2h1bmsgdGV4dA=="),
            "base64 of the text: {sent:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&fallback).ok().as_deref(),
            Some("chunk text")
        );
        let unwritable = Effect::WriteFile {
            path: dir.path().join("no/such/folder/t.json"),
            contents: String::new(),
            what: "trace",
        };
        let (notice, error) = perform(&unwritable, &mut Vec::new());
        assert!(
            error && notice.contains("could not write the trace"),
            "{notice}"
        );
    }
}
