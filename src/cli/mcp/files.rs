//! Which files a tool call may make the server read. A client names question files by path, and
//! the server must not become a way to read the machine: a named file must lie inside the
//! corpus folder or a folder given with `--allow-dir` (after symlinks are followed; a relative
//! path is read from the corpus folder, since a client cannot know where the server runs), be a
//! regular file (no FIFO that blocks every later call, no `/dev/stdin` that swallows the
//! protocol, no `/dev/zero`), and hold at most [`MAX_QUESTION_FILE_BYTES`].

use std::path::{Path, PathBuf};

/// The largest question file a call may name: 16 MiB (the sample corpus' 130 questions are
/// 150 KB).
pub const MAX_QUESTION_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The folders a call may read question files from, resolved once at start.
#[derive(Debug, Clone)]
pub struct AllowedFolders {
    folders: Vec<PathBuf>,
}

impl AllowedFolders {
    /// The corpus' folder (the corpus itself, or the folder of a one-file corpus) and the
    /// folders given on the command line; each must exist.
    pub fn new(corpus: &Path, extra: &[PathBuf]) -> anyhow::Result<AllowedFolders> {
        let corpus_folder = if corpus.is_dir() {
            corpus.to_path_buf()
        } else {
            match corpus.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        let mut folders = Vec::new();
        for folder in std::iter::once(&corpus_folder).chain(extra) {
            let resolved = folder.canonicalize().map_err(|e| {
                anyhow::anyhow!(
                    "--allow-dir {}: {e}",
                    seamscope::text::safe_name(&folder.display().to_string())
                )
            })?;
            anyhow::ensure!(
                resolved.is_dir(),
                "--allow-dir {}: not a folder",
                seamscope::text::safe_name(&folder.display().to_string())
            );
            folders.push(resolved);
        }
        Ok(AllowedFolders { folders })
    }

    /// Where a call's `named` path points: an absolute path as it is; a relative one inside the
    /// corpus folder (what a client means by it: it does not know where the server runs), or
    /// from the server's own folder when only that one exists.
    fn locate(&self, named: &Path) -> PathBuf {
        if named.is_absolute() {
            return named.to_path_buf();
        }
        let in_corpus = self.folders[0].join(named);
        if in_corpus.exists() || !named.exists() {
            in_corpus
        } else {
            named.to_path_buf()
        }
    }

    /// The file `named` resolves to, if a call may read it; else why not, in words.
    pub fn check(&self, named: &Path) -> Result<PathBuf, String> {
        let shown = seamscope::text::safe_name(&named.display().to_string());
        let inside = |path: &Path| self.folders.iter().any(|f| path.starts_with(f));
        let located = self.locate(named);
        let named = located.as_path();
        let outside = || {
            let at = named.canonicalize().unwrap_or_else(|_| named.to_path_buf());
            let shown = if at.as_os_str() == Path::new(&shown).as_os_str() {
                shown.clone()
            } else {
                format!(
                    "{shown} (at {})",
                    seamscope::text::safe_name(&at.display().to_string())
                )
            };
            format!(
                "question file {shown} is outside the folders this server reads ({}): name a file inside one of them (a relative path is read from the corpus folder), or start the server with --allow-dir FOLDER",
                self.folders
                    .iter()
                    .map(|f| seamscope::text::safe_name(&f.display().to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let resolved = match named.canonicalize() {
            Ok(resolved) => resolved,
            Err(e) => {
                // A file that cannot be resolved outside the folders is "outside", whatever
                // its trouble: a call learns nothing about files it may not read.
                let folder = match named.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                return Err(match folder.canonicalize() {
                    Ok(folder) if !inside(&folder) => outside(),
                    _ => format!("cannot read question file {shown}: {e}"),
                });
            }
        };
        if !inside(&resolved) {
            return Err(outside());
        }
        let meta = std::fs::metadata(&resolved)
            .map_err(|e| format!("cannot read question file {shown}: {e}"))?;
        if !meta.is_file() {
            return Err(format!(
                "question file {shown} is not a regular file (a folder, a FIFO or a device): name a JSONL file"
            ));
        }
        if meta.len() > MAX_QUESTION_FILE_BYTES {
            return Err(format!(
                "question file {shown} is {} bytes, more than the {MAX_QUESTION_FILE_BYTES} (16 MiB) a call may read",
                meta.len()
            ));
        }
        Ok(resolved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_inside_the_allowed_folders() {
        let corpus = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(corpus.path().join("q.jsonl"), "{}\n").unwrap();
        std::fs::write(other.path().join("q.jsonl"), "{}\n").unwrap();
        let allowed = AllowedFolders::new(corpus.path(), &[]).unwrap();
        assert!(allowed.check(&corpus.path().join("q.jsonl")).is_ok());
        let outside = allowed.check(&other.path().join("q.jsonl")).unwrap_err();
        assert!(outside.contains("outside the folders"), "{outside}");
        // A symlink inside the corpus pointing out of it is judged by where it points.
        std::os::unix::fs::symlink(
            other.path().join("q.jsonl"),
            corpus.path().join("link.jsonl"),
        )
        .unwrap();
        assert!(allowed.check(&corpus.path().join("link.jsonl")).is_err());
        assert!(allowed.check(Path::new("/dev/stdin")).is_err());
        assert!(
            allowed
                .check(corpus.path())
                .unwrap_err()
                .contains("not a regular file")
        );
        let with_other = AllowedFolders::new(corpus.path(), &[other.path().to_path_buf()]).unwrap();
        assert!(with_other.check(&other.path().join("q.jsonl")).is_ok());
    }

    #[test]
    fn a_relative_path_is_read_from_the_corpus_folder() {
        // The server runs elsewhere (the test's own folder): a client's relative path names a
        // file of the corpus folder.
        let corpus = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(corpus.path().join("sets")).unwrap();
        std::fs::write(corpus.path().join("sets/gold.jsonl"), "{}\n").unwrap();
        let allowed = AllowedFolders::new(corpus.path(), &[]).unwrap();
        let found = allowed.check(Path::new("sets/gold.jsonl")).unwrap();
        assert_eq!(
            found,
            corpus
                .path()
                .join("sets/gold.jsonl")
                .canonicalize()
                .unwrap()
        );
        assert!(allowed.check(Path::new("./sets/gold.jsonl")).is_ok());
        // Climbing out of it is still outside, and the message says where the path led.
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("q.jsonl"), "{}\n").unwrap();
        let name = other
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let climb = format!("../{name}/q.jsonl");
        let err = allowed.check(Path::new(&climb)).unwrap_err();
        assert!(
            err.contains("outside the folders") && err.contains("(at "),
            "{err}"
        );
        // A relative name of no file reads as missing in the corpus folder, not as outside.
        let missing = allowed.check(Path::new("no/such.jsonl")).unwrap_err();
        assert!(missing.contains("cannot read question file"), "{missing}");
    }
}
