//! Finding and opening inputs: files, globs, `-` for standard input, and
//! transparent gzip/zstd decompression (recognised by magic bytes, so it also
//! works for standard input and for files without a `.gz`/`.zst` suffix).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{IngestError, Result};
use crate::InputFormat;

/// The name standard input is given on the command line.
pub const STDIN: &str = "-";

/// Read-buffer size for text inputs.
const BUF_SIZE: usize = 1 << 20;

/// Expands the command-line inputs: `-` stays as is, arguments with glob
/// characters (`*`, `?`, `[`) expand to the sorted list of matching files (an
/// error if none match; see [`glob_files`]), other paths are kept (and
/// checked when opened).
pub fn expand_inputs(args: &[String]) -> Result<Vec<PathBuf>> {
    if args.is_empty() {
        return Err(IngestError::Usage("no input files given".into()));
    }
    let mut out = Vec::new();
    for a in args {
        if a != STDIN && a.contains(['*', '?', '[']) && !Path::new(a).exists() {
            let matched = glob_files(a)?;
            if matched.is_empty() {
                return Err(IngestError::Usage(format!("no file matches {a:?}")));
            }
            out.extend(matched);
        } else {
            out.push(PathBuf::from(a));
        }
    }
    if out.iter().filter(|p| p.as_os_str() == STDIN).count() > 1 {
        return Err(IngestError::Usage("standard input (-) given twice".into()));
    }
    Ok(out)
}

/// The files `pattern` matches, sorted, as DuckDB's globs match them: `*`,
/// `?` and `[...]` match within one path component (names starting with a
/// dot included) and follow symbolic links; `**`, a whole component, matches
/// any number of directories, but only real ones: it does not descend into
/// symbolic links to directories, so a link loop or a second link to the
/// same directory never reads the same files again. (A trailing `**`
/// matches the regular files below, not links.)
pub fn glob_files(pattern: &str) -> Result<Vec<PathBuf>> {
    // Checks the syntax (`[` closed, `**` alone in its component).
    glob::Pattern::new(pattern)
        .map_err(|e| IngestError::Usage(format!("bad glob pattern {pattern:?}: {e}")))?;
    let parts: Vec<Part> = Path::new(pattern)
        .components()
        .map(|c| {
            let text = c.as_os_str().to_str().unwrap_or_default();
            if text == "**" {
                Ok(Part::AnyDirs)
            } else if matches!(c, Component::Normal(_)) && text.contains(['*', '?', '[']) {
                glob::Pattern::new(text)
                    .map(Part::Match)
                    .map_err(|e| IngestError::Usage(format!("bad glob pattern {pattern:?}: {e}")))
            } else {
                Ok(Part::Literal(c.as_os_str().to_os_string()))
            }
        })
        .collect::<Result<_>>()?;
    let mut out = Vec::new();
    walk(&PathBuf::new(), &parts, &mut out)?;
    out.sort();
    out.dedup();
    Ok(out)
}

/// One component of a glob pattern.
enum Part {
    /// A name (or `/`, `.`, `..`) taken as written.
    Literal(std::ffi::OsString),
    /// A name with wildcards.
    Match(glob::Pattern),
    /// `**`.
    AnyDirs,
}

/// How glob components match names: case-sensitively, a leading dot matched
/// by wildcards.
const MATCH: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// Adds to `out` the files below `base` (as written so far; empty for the
/// current directory) that `parts` match.
fn walk(base: &Path, parts: &[Part], out: &mut Vec<PathBuf>) -> Result<()> {
    let Some((part, rest)) = parts.split_first() else {
        if std::fs::metadata(base).is_ok_and(|m| m.is_file()) {
            out.push(base.to_path_buf());
        }
        return Ok(());
    };
    match part {
        Part::Literal(name) => walk(&base.join(name), rest, out),
        Part::Match(pattern) => {
            for (name, _) in list(base)? {
                if name
                    .to_str()
                    .is_some_and(|n| pattern.matches_with(n, MATCH))
                {
                    walk(&base.join(name), rest, out)?;
                }
            }
            Ok(())
        }
        Part::AnyDirs => {
            if rest.is_empty() {
                // A trailing `**`: the regular files at any depth.
                return real_files(base, out);
            }
            walk(base, rest, out)?;
            for (name, kind) in list(base)? {
                if kind.is_dir() {
                    walk(&base.join(name), parts, out)?;
                }
            }
            Ok(())
        }
    }
}

/// The regular files in `dir` and its real subdirectories, at any depth.
fn real_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for (name, kind) in list(dir)? {
        if kind.is_dir() {
            real_files(&dir.join(&name), out)?;
        } else if kind.is_file() {
            out.push(dir.join(name));
        }
    }
    Ok(())
}

/// The names in directory `dir` (empty: the current directory) and their
/// types, not following symbolic links; nothing when `dir` does not exist or
/// is not a directory.
fn list(dir: &Path) -> Result<Vec<(std::ffi::OsString, std::fs::FileType)>> {
    let at = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let entries = match std::fs::read_dir(at) {
        Ok(rd) => rd,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Vec::new())
        }
        Err(e) => return Err(IngestError::io(at, e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| IngestError::io(at, e))?;
        let kind = entry
            .file_type()
            .map_err(|e| IngestError::io(entry.path(), e))?;
        names.push((entry.file_name(), kind));
    }
    Ok(names)
}

/// How an input is named in messages.
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == STDIN {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// The format implied by a file name: `.csv`, `.tsv`/`.tab`, `.parquet`/`.pq`,
/// looking through a `.gz` or `.zst` suffix.
pub fn format_from_path(path: &Path) -> Option<InputFormat> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .or_else(|| name.strip_suffix(".zstd"))
        .unwrap_or(&name);
    let ext = name.rsplit_once('.')?.1;
    match ext {
        "csv" => Some(InputFormat::Csv),
        "tsv" | "tab" => Some(InputFormat::Tsv),
        "parquet" | "pq" => Some(InputFormat::Parquet),
        _ => None,
    }
}

/// Total size in bytes of the inputs as stored (compressed), if all are
/// regular files.
pub fn total_size(paths: &[PathBuf]) -> Option<u64> {
    let mut total = 0;
    for p in paths {
        if p.as_os_str() == STDIN {
            return None;
        }
        total += std::fs::metadata(p).ok()?.len();
    }
    Some(total)
}

/// Counts the bytes read from the underlying input (before decompression).
struct Counting<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Opens a text input for buffered reading, decompressing gzip and zstd;
/// `counter` receives the number of raw bytes read.
pub fn open_text(path: &Path, counter: Arc<AtomicU64>) -> Result<Box<dyn BufRead + Send>> {
    let raw: Box<dyn Read + Send> = if path.as_os_str() == STDIN {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| IngestError::io(path, e))?)
    };
    let mut reader = BufReader::with_capacity(
        BUF_SIZE,
        Counting {
            inner: raw,
            counter,
        },
    );
    let head = reader.fill_buf().map_err(|e| IngestError::io(path, e))?;
    Ok(if head.starts_with(&GZIP_MAGIC) {
        Box::new(BufReader::with_capacity(
            BUF_SIZE,
            flate2::bufread::MultiGzDecoder::new(reader),
        ))
    } else if head.starts_with(&ZSTD_MAGIC) {
        let decoder = zstd::stream::read::Decoder::with_buffer(reader)
            .map_err(|e| IngestError::io(path, e))?;
        Box::new(BufReader::with_capacity(BUF_SIZE, decoder))
    } else {
        Box::new(reader)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(path: &Path) -> Vec<u8> {
        let counter = Arc::new(AtomicU64::new(0));
        let mut r = open_text(path, counter.clone()).unwrap();
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(
            counter.load(Ordering::Relaxed),
            std::fs::metadata(path).unwrap().len()
        );
        out
    }

    #[test]
    fn compressed_inputs_are_transparent() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"a,b\n1,2\n".repeat(1000);
        let plain = dir.path().join("x.csv");
        std::fs::write(&plain, &text).unwrap();
        let gz = dir.path().join("x.csv.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let zst = dir.path().join("x.csv.zst");
        std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
        for p in [&plain, &gz, &zst] {
            assert_eq!(read_all(p), text, "{}", p.display());
        }
    }

    #[test]
    fn globs_expand_sorted_and_must_match() {
        let dir = tempfile::tempdir().unwrap();
        for n in ["b.tsv", "a.tsv", "c.csv"] {
            std::fs::write(dir.path().join(n), "1\n").unwrap();
        }
        let pat = format!("{}/*.tsv", dir.path().display());
        let got = expand_inputs(&[pat]).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["a.tsv", "b.tsv"]);
        let none = format!("{}/*.json", dir.path().display());
        assert!(matches!(expand_inputs(&[none]), Err(IngestError::Usage(_))));
        assert!(expand_inputs(&[]).is_err());
        assert!(expand_inputs(&["-".into(), "-".into()]).is_err());
    }

    /// The answers are DuckDB's (`SELECT list(filename) FROM
    /// read_csv(PATTERN, filename=true)` over the same tree).
    #[test]
    fn globs_do_not_follow_directory_links_under_double_star() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("g");
        std::fs::create_dir_all(g.join("sub")).unwrap();
        std::fs::create_dir_all(g.join(".hid")).unwrap();
        std::fs::create_dir_all(dir.path().join("h")).unwrap();
        for f in [
            "g/x.csv",
            "g/.dot.csv",
            "g/sub/y.csv",
            "g/.hid/w.csv",
            "h/z.csv",
        ] {
            std::fs::write(dir.path().join(f), "a\n1\n").unwrap();
        }
        let link = |to: &str, at: &str| std::os::unix::fs::symlink(to, g.join(at)).unwrap();
        link("../g", "self");
        link("sub", "alias");
        link("../h", "hl");
        link("x.csv", "xl.csv");
        let names = |pattern: &str| -> Vec<String> {
            let full = format!("{}/{pattern}", dir.path().display());
            let prefix = format!("{}/", dir.path().display());
            let mut v: Vec<String> = glob_files(&full)
                .unwrap()
                .iter()
                .map(|p| p.display().to_string().replace(&prefix, ""))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            names("g/**/*.csv"),
            [
                "g/.dot.csv",
                "g/.hid/w.csv",
                "g/sub/y.csv",
                "g/x.csv",
                "g/xl.csv"
            ]
        );
        assert_eq!(
            names("g/*/*.csv"),
            [
                "g/.hid/w.csv",
                "g/alias/y.csv",
                "g/hl/z.csv",
                "g/self/.dot.csv",
                "g/self/x.csv",
                "g/self/xl.csv",
                "g/sub/y.csv"
            ]
        );
        assert_eq!(
            names("g/**"),
            ["g/.dot.csv", "g/.hid/w.csv", "g/sub/y.csv", "g/x.csv"]
        );
        assert_eq!(names("g/**/y.csv"), ["g/sub/y.csv"]);
        assert_eq!(
            names("g/self/*.csv"),
            ["g/self/.dot.csv", "g/self/x.csv", "g/self/xl.csv"]
        );
        assert!(names("g/nope/**/*.csv").is_empty());
        assert!(matches!(glob_files("g/a**/x"), Err(IngestError::Usage(_))));
    }

    #[test]
    fn formats_from_names() {
        let f = |s: &str| format_from_path(Path::new(s));
        assert_eq!(f("hits.tsv.gz"), Some(InputFormat::Tsv));
        assert_eq!(f("a/b.CSV"), Some(InputFormat::Csv));
        assert_eq!(f("x.parquet"), Some(InputFormat::Parquet));
        assert_eq!(f("x.csv.zst"), Some(InputFormat::Csv));
        assert_eq!(f("x.txt"), None);
        assert_eq!(f("-"), None);
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let e = open_text(Path::new("/nonexistent/x.csv"), Arc::default()).err();
        assert!(matches!(e, Some(IngestError::Io { .. })));
    }
}
