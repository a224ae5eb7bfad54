//! Themes: every style on screen is named by what it means (`seam_left`, `fired`, `cut`), and
//! themes map those meanings to colours. They load from `themes/*.toml`; `dark`, `light` and
//! `mono` are built in, and `NO_COLOR` selects `mono`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// Themes compiled into the binary, so they work wherever it is installed.
const BUILT_IN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
];

macro_rules! theme_styles {
    ($($(#[doc = $doc:literal])* $key:ident),* $(,)?) => {
        /// The styles of one theme, by meaning.
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct Theme {
            /// The theme's name.
            pub name: String,
            $($(#[doc = $doc])* pub $key: Style,)*
        }

        impl Theme {
            /// Every style key a theme file may set.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($key)),*];

            fn slot(&mut self, key: &str) -> Option<&mut Style> {
                match key {
                    $(stringify!($key) => Some(&mut self.$key),)*
                    _ => None,
                }
            }
        }
    };
}

theme_styles! {
    /// The whole screen under every pane: a theme that picks its own text colours sets its own
    /// background too, so it reads the same on a dark or a light terminal.
    background,
    /// Body text.
    text,
    /// Secondary labels and hints.
    muted,
    /// Pane titles.
    title,
    /// Pane borders.
    border,
    /// The border of the pane with the keyboard focus.
    border_focused,
    /// The top line.
    header,
    /// The bottom status line.
    status,
    /// A key name in hints and help.
    key,
    /// Text typed in the query box.
    input,
    /// The query box's hint when empty.
    placeholder,
    /// The row under the cursor in a list.
    row_selected,
    /// The entry under test in step mode.
    step_current,
    /// The body of the chunk under the cursor.
    chunk_selected,
    /// A cut marker in the document.
    cut,
    /// The part of a seam window before its cut.
    seam_left,
    /// The part of a seam window after its cut.
    seam_right,
    /// The seam window under the cursor.
    seam_selected,
    /// A seam that fired.
    fired,
    /// A seam that fired only because a linked chunk was absent.
    fired_on_absence,
    /// A seam that did not fire.
    dropped,
    /// A chunk that is in the final context.
    in_context,
    /// The gold evidence of the question picked from the corpus' question set.
    evidence,
    /// A chunk Seams brought in that the baseline lacks.
    added,
    /// A baseline chunk that Seams pushed out.
    displaced,
    /// Used slots of a gauge.
    gauge_filled,
    /// Free slots of a gauge.
    gauge_empty,
    /// A progress bar.
    progress,
    /// Bars of sentences inside one chunk (calibration).
    sample_unsplit,
    /// Bars of sentences across a cut (calibration).
    sample_crossing,
    /// Bars of a chart (evaluation).
    chart_bar,
    /// The note on a cut line that says which atom the cut splits.
    atom_split,
    /// The text of an atom (fence, table, row, figure sentence) that a cut splits.
    atom_split_text,
    /// Text that no chunk holds (given cuts that leave gaps), and its mark `░`.
    uncovered,
    /// Text two neighbouring chunks share (given cuts that overlap), and its mark `≡`.
    overlap,
    /// Error messages.
    error,
    /// Notices.
    notice,
    /// Keywords in code.
    syntax_keyword,
    /// String literals.
    syntax_string,
    /// Comments.
    syntax_comment,
    /// Numbers and constants.
    syntax_number,
    /// Function names.
    syntax_function,
    /// Type names.
    syntax_type,
    /// Markdown headings.
    syntax_heading,
    /// Inline code and fenced blocks without a known language.
    syntax_code,
    /// Emphasis.
    syntax_emphasis,
    /// Links.
    syntax_link,
}

/// A theme that cannot be used, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// No file or built-in theme has this name.
    #[error(
        "no theme named `{0}`: give a built-in name (dark, light, mono), a file in themes/, or a path to a .toml file"
    )]
    NotFound(String),
    /// The file could not be read or parsed.
    #[error("theme file {path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// One style as written in a theme file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    bold: bool,
    #[serde(default)]
    italic: bool,
    #[serde(default)]
    underlined: bool,
    #[serde(default)]
    dim: bool,
    #[serde(default)]
    reversed: bool,
}

/// A theme file: a name, an optional base theme and styles by key.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    base: Option<String>,
    #[serde(default)]
    styles: BTreeMap<String, StyleSpec>,
}

fn color(value: &str, key: &str) -> Result<Color, String> {
    value
        .parse::<Color>()
        .map_err(|_| format!("`{key}` has colour `{value}`, which is not a name, #rrggbb or 0-255"))
}

impl StyleSpec {
    fn style(&self, key: &str) -> Result<Style, String> {
        let mut style = Style::default();
        if let Some(fg) = &self.fg {
            style = style.fg(color(fg, key)?);
        }
        if let Some(bg) = &self.bg {
            style = style.bg(color(bg, key)?);
        }
        for (on, modifier) in [
            (self.bold, Modifier::BOLD),
            (self.italic, Modifier::ITALIC),
            (self.underlined, Modifier::UNDERLINED),
            (self.dim, Modifier::DIM),
            (self.reversed, Modifier::REVERSED),
        ] {
            if on {
                style = style.add_modifier(modifier);
            }
        }
        Ok(style)
    }
}

impl Theme {
    /// The built-in default theme (`dark`).
    pub fn builtin_default() -> Theme {
        Theme::builtin("dark").unwrap_or_default()
    }

    /// A theme compiled into the binary, by name.
    pub fn builtin(name: &str) -> Option<Theme> {
        let (_, text) = BUILT_IN.iter().find(|(n, _)| *n == name)?;
        Theme::parse(text, None, Path::new(name)).ok()
    }

    /// Names of the built-in themes.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(n, _)| *n)
    }

    /// The theme to use: `mono` when `no_color`; else `requested` (a path, a name found in one of
    /// `dirs`, or a built-in name); else the built-in default.
    pub fn resolve(
        requested: Option<&str>,
        dirs: &[PathBuf],
        no_color: bool,
    ) -> Result<Theme, ThemeError> {
        if no_color {
            return Ok(Theme::builtin("mono").unwrap_or_default());
        }
        let Some(requested) = requested else {
            return Ok(Theme::builtin_default());
        };
        let as_path = Path::new(requested);
        if as_path.extension().is_some_and(|e| e == "toml") || as_path.is_file() {
            return Theme::load(as_path);
        }
        for dir in dirs {
            let file = dir.join(format!("{requested}.toml"));
            if file.is_file() {
                return Theme::load(&file);
            }
        }
        Theme::builtin(requested).ok_or_else(|| ThemeError::NotFound(requested.to_string()))
    }

    /// Load a theme file; keys it leaves out come from its `base` (default `dark`).
    pub fn load(path: &Path) -> Result<Theme, ThemeError> {
        let text =
            seamscope::files::read_named_text(path, seamscope::files::TOML_LIMIT).map_err(|e| {
                ThemeError::File {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                }
            })?;
        let fallback = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("custom");
        Theme::parse(&text, Some(fallback), path)
    }

    fn parse(text: &str, fallback_name: Option<&str>, path: &Path) -> Result<Theme, ThemeError> {
        let err = |message: String| ThemeError::File {
            path: path.to_path_buf(),
            message,
        };
        let file: ThemeFile = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let mut theme = match file.base.as_deref() {
            Some(base) => Theme::builtin(base)
                .ok_or_else(|| err(format!("base theme `{base}` is not built in")))?,
            None if fallback_name.is_some() => Theme::builtin_default(),
            None => Theme::default(),
        };
        theme.name = file
            .name
            .or(fallback_name.map(str::to_string))
            .unwrap_or_default();
        for (key, spec) in &file.styles {
            let style = spec.style(key).map_err(&err)?;
            let slot = theme.slot(key).ok_or_else(|| {
                err(format!(
                    "unknown style `{key}`; known styles: {}",
                    Theme::KEYS.join(", ")
                ))
            })?;
            *slot = style;
        }
        Ok(theme)
    }

    /// The next built-in theme after this one (for cycling on screen).
    pub fn next_builtin(&self) -> Theme {
        let names: Vec<&str> = Theme::builtin_names().collect();
        let at = names.iter().position(|n| *n == self.name);
        let next = at.map_or(0, |i| (i + 1) % names.len());
        Theme::builtin(names[next]).unwrap_or_default()
    }
}

/// Folders searched for `--theme NAME`: the config folder's `themes/`, then `./themes/`.
pub fn theme_dirs(config_dir: &Path) -> Vec<PathBuf> {
    vec![config_dir.join("themes"), PathBuf::from("themes")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_set_every_key() {
        for name in Theme::builtin_names() {
            let (_, text) = BUILT_IN
                .iter()
                .find(|(n, _)| *n == name)
                .copied()
                .unwrap_or_default();
            let file: Result<ThemeFile, _> = toml::from_str(text);
            let keys: Vec<String> = file
                .map(|f| f.styles.into_keys().collect())
                .unwrap_or_default();
            for key in Theme::KEYS {
                assert!(keys.iter().any(|k| k == key), "{name} lacks `{key}`");
            }
            assert!(Theme::builtin(name).is_some(), "{name} parses");
        }
    }

    #[test]
    fn no_color_selects_mono_without_colours() {
        let theme = Theme::resolve(Some("light"), &[], true).ok();
        let theme = theme.unwrap_or_default();
        assert_eq!(theme.name, "mono");
        assert_eq!(theme.seam_left.bg, None);
        assert_eq!(theme.fired.fg, None);
        assert_ne!(
            theme.seam_left, theme.text,
            "seams stay distinct without colour"
        );
    }

    #[test]
    fn partial_file_takes_the_rest_from_its_base_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().ok();
        let dir = dir
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .unwrap_or_default();
        let file = dir.join("mine.toml");
        let _ = std::fs::write(
            &file,
            "base = \"light\"\n[styles]\nfired = { fg = \"red\" }\n",
        );
        let theme = Theme::resolve(Some("mine"), std::slice::from_ref(&dir), false);
        let theme = theme.unwrap_or_default();
        assert_eq!(theme.name, "mine");
        assert_eq!(theme.fired.fg, Some(Color::Red));
        assert_eq!(theme.cut, Theme::builtin("light").unwrap_or_default().cut);
        let _ = std::fs::write(&file, "[styles]\nfird = { fg = \"red\" }\n");
        let err = Theme::resolve(Some("mine"), &[dir], false).err();
        assert!(err.is_some_and(|e| e.to_string().contains("unknown style `fird`")));
        assert!(matches!(
            Theme::resolve(Some("nope"), &[], false),
            Err(ThemeError::NotFound(_))
        ));
    }
}
