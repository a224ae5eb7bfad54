//! Where traces come from and the first steps every front end takes with them: the source named
//! (a file, or a Phoenix server's project), read; the app's recovered cuts written where the
//! chunker `given` reads them; a traced query's best suspect said in words. `seamscope traces`,
//! the MCP tool and the screen's traces page all go through here.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::{Prepared, QueryVerdict, TraceRead, TracesError, read_file};
use crate::corpus::Corpus;

/// A traces source as `--traces` (and `--project`) name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TracesSource {
    /// A file of traces (JSONL or one JSON document; the format is detected).
    File(PathBuf),
    /// A live Phoenix server's spans, through its REST API.
    Phoenix {
        /// The server (`http://HOST:PORT`).
        url: String,
        /// The project to read.
        project: Option<String>,
    },
}

impl TracesSource {
    /// The source `--traces SOURCE [--project NAME]` names: `phoenix:URL` is a Phoenix server,
    /// anything else a file. The error says what to write instead.
    pub fn parse(source: &str, project: Option<&str>) -> Result<TracesSource, String> {
        if source.trim().is_empty() {
            return Err("--traces needs a file or phoenix:http://HOST:PORT".into());
        }
        match source.strip_prefix("phoenix:") {
            Some(url) => Ok(TracesSource::Phoenix {
                url: url.to_string(),
                project: project.map(str::to_string),
            }),
            None if project.is_some() => Err(
                "--project names a Phoenix project: give --traces phoenix:http://HOST:PORT with it"
                    .into(),
            ),
            None => Ok(TracesSource::File(PathBuf::from(source))),
        }
    }

    /// The source as messages name it (made safe for a terminal): the file, or
    /// `Phoenix project NAME`.
    pub fn label(&self) -> String {
        match self {
            TracesSource::File(path) => crate::text::safe_name(&path.display().to_string()),
            TracesSource::Phoenix {
                project: Some(project),
                ..
            } => format!("Phoenix project {}", crate::text::safe_name(project)),
            TracesSource::Phoenix { url, .. } => {
                format!("Phoenix at {}", crate::text::safe_name(url))
            }
        }
    }

    /// Read the traces; `progress` hears the spans read so far from a server.
    pub fn read(&self, progress: &mut dyn FnMut(usize)) -> Result<TraceRead, TracesError> {
        match self {
            TracesSource::File(path) => read_file(path),
            TracesSource::Phoenix { url, project } => Ok(super::phoenix::read_project(
                url,
                project.as_deref(),
                progress,
            )?),
        }
    }
}

/// Read `source`, place its documents in `corpus` and write the app's recovered cuts to
/// `cache_dir` ([`Prepared::write_recovered_cuts`]): the cuts a screen opens on to show the
/// layout the app retrieved from. The traces read come back with them, so whoever judges them
/// next need not read a file or a server a second time.
pub fn recover_cuts(
    corpus: &Corpus,
    source: &TracesSource,
    cache_dir: &Path,
) -> Result<(PathBuf, TraceRead), TracesError> {
    let prepared = super::prepare(source.read(&mut |_| {})?, corpus);
    if prepared.recovered.seen() == 0 {
        return Err(TracesError::NothingPlaced {
            traces: source.label(),
        });
    }
    let cuts = prepared.write_recovered_cuts(corpus, cache_dir)?;
    Ok((cuts, prepared.read))
}

impl Prepared {
    /// Write the app's recovered cuts as a cuts file in `cache_dir` (named by their hash, so
    /// the same cuts are the same file) and return its path, for chunker `given` to open.
    pub fn write_recovered_cuts(
        &self,
        corpus: &Corpus,
        cache_dir: &Path,
    ) -> Result<PathBuf, TracesError> {
        let cuts = self.recovered.cuts_path(corpus, cache_dir);
        self.recovered
            .write_cuts(corpus, &cuts)
            .map_err(|e| TracesError::WriteCuts {
                path: crate::text::safe_name(&cuts.display().to_string()),
                why: e.to_string(),
            })?;
        Ok(cuts)
    }
}

impl QueryVerdict {
    /// Its most suspect cut in words: `cut 40|41 · its seam fires · Seams adds chunk 40 · seam
    /// +0.031 on the app's best` (the seam's cosine margin over the best chunk the app sent), or
    /// why no cut is suspect.
    pub fn why(&self) -> String {
        let Some(s) = self.suspects.first().filter(|s| s.tier > 0) else {
            return "no cut beside what the app sent, and no seam the replay reached, points at a missing chunk".into();
        };
        let mut out = format!("cut {}|{}", s.left.0, s.right.0);
        if s.seam_fires {
            out.push_str(" · its seam fires");
        }
        if s.seams_brings_it && !s.sent_by_app {
            let _ = write!(
                out,
                " · the app sent neither side · Seams adds chunks {} and {}",
                s.left.0, s.right.0
            );
        } else if s.seams_brings_it {
            let _ = write!(out, " · Seams adds chunk {}", s.missing.0);
        } else if let Some(r) = s.neighbour_rank {
            let _ = write!(
                out,
                " · chunk {} ranks {r} (budget {})",
                s.missing.0, self.budget
            );
        }
        if let Some(m) = s.margin.filter(|_| s.seam_fires) {
            let _ = write!(out, " · seam {m:+.3} on the app's best");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_is_a_file_or_a_phoenix_project() {
        assert_eq!(
            TracesSource::parse("t.jsonl", None),
            Ok(TracesSource::File("t.jsonl".into()))
        );
        assert_eq!(
            TracesSource::parse("phoenix:http://h:6006", Some("app")),
            Ok(TracesSource::Phoenix {
                url: "http://h:6006".into(),
                project: Some("app".into())
            })
        );
        assert!(
            TracesSource::parse("t.jsonl", Some("app"))
                .unwrap_err()
                .contains("--project names a Phoenix project")
        );
        assert!(TracesSource::parse("  ", None).is_err());
        let label = TracesSource::parse("phoenix:http://h:6006", Some("a\u{1b}[2Jb"))
            .map(|s| s.label())
            .unwrap_or_default();
        assert!(!label.contains('\u{1b}'), "{label}");
    }

    #[test]
    fn a_missing_file_is_an_error_that_names_it() {
        let source = TracesSource::File("/no/such/traces.jsonl".into());
        let e = source.read(&mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("/no/such/traces.jsonl"), "{e}");
    }
}
