//! `seamscope --open FILE`: the screen as a saved view left it. A view file names its corpus
//! folder itself, and a file from someone else can name any folder (`/etc`), so before anything
//! is embedded the folder must exist and be a folder, a line says which folder and how many
//! tokens it will embed, and past [`CONFIRM_TOKENS`] the user says yes (or passes `--yes`).

use std::io::IsTerminal;
use std::path::Path;

use rayon::prelude::*;
use seamscope::corpus::Corpus;
use seamscope::session::Engine;
use seamscope::settings::Settings;
use seamscope::text::safe_name;

use super::{GlobalArgs, UsageError};

/// Past this many tokens a view file's corpus is embedded only when the user says yes.
pub const CONFIRM_TOKENS: usize = 200_000;

/// Open the view file `file` on the screen, once its corpus is checked and confirmed.
pub fn open(
    global: &GlobalArgs,
    file: Option<&Path>,
    theme: Option<String>,
    yes: bool,
) -> anyhow::Result<()> {
    let file = file.ok_or_else(|| UsageError("--open needs a view file".into()))?;
    let view = crate::tui::share::ViewFile::read(file).map_err(|e| UsageError(format!("{e:#}")))?;
    let mut settings = global.settings()?;
    view.settings
        .apply(&mut settings)
        .map_err(|e| UsageError(format!("{}: {e:#}", file.display())))?;
    if !confirm_corpus(file, &view.corpus, &settings, yes)? {
        return Ok(());
    }
    crate::tui::run(crate::tui::Options {
        corpus: view.corpus.clone(),
        settings,
        theme,
        view: Some(view),
        bundle: false,
        traces: None,
    })
}

/// Check the view's corpus folder, say what it will embed and, past [`CONFIRM_TOKENS`] without
/// `--yes`, ask; returns whether to go on (a refusal in a run nobody can answer is an error).
fn confirm_corpus(
    file: &Path,
    corpus: &Path,
    settings: &Settings,
    yes: bool,
) -> anyhow::Result<bool> {
    let named = || safe_name(&corpus.display().to_string());
    match std::fs::metadata(corpus) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(UsageError(format!(
                "the view file {} names the corpus {}, which is not a folder",
                safe_name(&file.display().to_string()),
                named()
            ))
            .into());
        }
        Err(e) => {
            return Err(UsageError(format!(
                "the view file {} names the corpus folder {}, which cannot be opened: {e}",
                safe_name(&file.display().to_string()),
                named()
            ))
            .into());
        }
    }
    let docs = Corpus::load(corpus, &seamscope::places::load_options(settings))?;
    let (tokens, exact) = corpus_tokens(&docs, settings);
    errln!(
        "the view opens the corpus folder {}: {} documents, {}{} tokens to embed (fewer if already cached)",
        named(),
        docs.documents.len(),
        if exact { "" } else { "about " },
        tokens
    );
    if tokens <= CONFIRM_TOKENS || yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(UsageError(format!(
            "{tokens} tokens is more than the {CONFIRM_TOKENS} a view file opens without asking, and there is no terminal to ask on: pass --yes to embed {} anyway",
            named()
        ))
        .into());
    }
    err!("embed {tokens} tokens of {}? [y/N] ", named());
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    let go = matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    if !go {
        errln!("not opened: nothing was embedded");
    }
    Ok(go)
}

/// The corpus' tokens under the model's tokenizer, or (when it is not installed yet) an
/// estimate of four bytes a token; and whether the count is exact.
fn corpus_tokens(docs: &Corpus, settings: &Settings) -> (usize, bool) {
    let estimate = || {
        docs.documents
            .iter()
            .map(|d| d.text.len().div_ceil(4))
            .sum()
    };
    let Ok(tokenizer) = Engine::load_tokenizer(settings) else {
        return (estimate(), false);
    };
    let counted: Result<Vec<usize>, _> = docs
        .documents
        .par_iter()
        .map(|d| tokenizer.count(&d.text))
        .collect();
    match counted {
        Ok(counts) => (counts.iter().sum(), true),
        Err(_) => (estimate(), false),
    }
}
