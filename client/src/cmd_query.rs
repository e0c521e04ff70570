//! `strata query` and `strata explain`: run SQL over tables in a database
//! directory and print the results.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use strata::engine::{Catalog, ColumnWords, EngineError, TableRef};

use crate::cmd_cache::{open_db, CacheArgs};

use crate::output::Format;

/// Arguments of `strata query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// Directory in which table names are resolved.
    #[arg(long, default_value = ".")]
    pub db: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Memory each query's results may hold, e.g. 4GB or 512MiB (default:
    /// 80% of physical memory).
    #[arg(long, value_parser = parse_memory_limit)]
    pub memory_limit: Option<u64>,
    /// Report each statement's wall time, and the rows and block-file bytes
    /// of the table it read, on standard error.
    #[arg(long)]
    pub timing: bool,
    /// Write results to this file instead of standard output. The file is
    /// replaced only once every statement has succeeded (the results are
    /// written to a temporary file beside it first); a FIFO or device is
    /// written directly.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Where files queried in place are cached.
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Read `;`-separated statements from this file.
    #[arg(long, short = 'f', conflicts_with = "sql")]
    pub file: Option<PathBuf>,
    /// The SQL to run; read from standard input when absent. It may start
    /// with a `--` comment.
    #[arg(allow_hyphen_values = true)]
    pub sql: Option<String>,
}

/// Parses `--memory-limit`.
pub fn parse_memory_limit(text: &str) -> std::result::Result<u64, String> {
    strata::engine::budget::parse_bytes(text)
}

/// The rules `--disable-rules` leaves on (all when not given).
static RULES: std::sync::OnceLock<strata::engine::RuleOptions> = std::sync::OnceLock::new();

/// Sets the rules every database of this process uses (`--disable-rules`).
pub fn set_rules(rules: strata::engine::RuleOptions) {
    let _ = RULES.set(rules);
}

/// Database options from the common flags.
pub fn options(threads: usize, memory_limit: Option<u64>) -> strata::Options {
    let mut options = strata::Options::new().threads(threads);
    if let Some(r) = RULES.get() {
        options = options.rules(r.clone());
    }
    match memory_limit {
        Some(bytes) => options.memory_limit(bytes),
        None => options,
    }
}

impl QueryArgs {
    /// `strata` with no arguments and standard input not a terminal.
    pub fn from_stdin() -> QueryArgs {
        QueryArgs {
            db: PathBuf::from("."),
            format: Format::Table,
            threads: 0,
            memory_limit: None,
            timing: false,
            output: None,
            cache: CacheArgs::default(),
            file: None,
            sql: None,
        }
    }
}

/// Runs every statement; stops at the first error.
pub fn run(args: &QueryArgs) -> Result<()> {
    let text = match (&args.sql, &args.file) {
        (Some(sql), _) => sql.clone(),
        (None, Some(f)) => {
            std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?
        }
        (None, None) => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading SQL from standard input")?;
            s
        }
    };
    let db = open_db(&args.db, args.threads, args.memory_limit, &args.cache)?;
    let (mut out, pending): (Box<dyn Write>, _) = match &args.output {
        Some(p) => {
            let (file, pending) =
                PendingOutput::create(p).with_context(|| format!("creating {}", p.display()))?;
            (Box::new(std::io::BufWriter::new(file)), pending)
        }
        None => (
            Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
            None,
        ),
    };
    for stmt in split_statements(&text) {
        let catalog = Recording::new(db.catalog());
        let start = Instant::now();
        let running = crate::sigint::Running::start(db.interrupter());
        let result = db.query_in(&catalog, &stmt).map_err(|e| match e {
            strata::Error::Interrupted => anyhow::Error::new(crate::sigint::Interrupted("query")),
            e => anyhow!(e.render(&stmt)),
        })?;
        drop(running);
        let elapsed = start.elapsed();
        match result
            .write(args.format, &mut out)
            .and_then(|()| out.flush())
        {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            other => other.context("writing the result")?,
        }
        if args.timing {
            eprintln!("{}", catalog.timing(elapsed, result.num_rows()));
        }
    }
    drop(out);
    if let Some(pending) = pending {
        pending.commit()?;
    }
    Ok(())
}

/// Results on their way to an `--output` file: written to a temporary file
/// beside it, renamed over it by [`PendingOutput::commit`], removed if
/// dropped before (a failed or interrupted query leaves the file as it was).
struct PendingOutput {
    tmp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl PendingOutput {
    /// The file to write the results of `target` to, and what to commit:
    /// nothing for a FIFO or a device, which is written directly.
    fn create(target: &Path) -> std::io::Result<(std::fs::File, Option<PendingOutput>)> {
        use std::os::unix::fs::PermissionsExt;
        let existing = std::fs::metadata(target).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new().write(true).open(target)?;
            return Ok((file, None));
        }
        // Through a symbolic link, the file it names is replaced.
        let target = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = target.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let pending = PendingOutput {
            tmp,
            target,
            committed: false,
        };
        if let Some(m) = existing {
            // The replaced file's permissions, not the umask's.
            let mode = m.permissions().mode();
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        Ok((file, Some(pending)))
    }

    /// Puts the results in place.
    fn commit(mut self) -> Result<()> {
        std::fs::rename(&self.tmp, &self.target)
            .with_context(|| format!("writing {}", self.target.display()))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PendingOutput {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// A catalog that remembers the tables a statement opened, for `--timing`.
pub struct Recording<'a> {
    inner: &'a dyn Catalog,
    opened: Mutex<Vec<strata::format::Table>>,
}

impl<'a> Recording<'a> {
    /// Wraps `inner`.
    pub fn new(inner: &'a dyn Catalog) -> Recording<'a> {
        Recording {
            inner,
            opened: Mutex::new(Vec::new()),
        }
    }

    /// The `--timing` line: wall time, result rows, and the rows and
    /// block-file bytes of the tables touched (the engine prunes blocks and
    /// reads only the sections it needs, so these bound what was scanned).
    pub fn timing(&self, elapsed: Duration, result_rows: usize) -> String {
        let (mut rows, mut bytes) = (0u64, 0u64);
        if let Ok(tables) = self.opened.lock() {
            for t in tables.iter() {
                rows += t.num_rows();
                bytes += block_bytes(t.path());
            }
        }
        format!(
            "time: {:.3} s, {result_rows} result row{}; table touched: {rows} rows, {bytes} bytes in block files",
            elapsed.as_secs_f64(),
            if result_rows == 1 { "" } else { "s" },
        )
    }
}

impl Catalog for Recording<'_> {
    fn open(&self, table: &TableRef) -> Result<strata::format::Table, EngineError> {
        self.open_for(table, &ColumnWords::any())
    }

    fn table_names(&self) -> Result<Vec<String>, EngineError> {
        self.inner.table_names()
    }

    fn open_for(
        &self,
        table: &TableRef,
        words: &ColumnWords<'_>,
    ) -> Result<strata::format::Table, EngineError> {
        let t = self.inner.open_for(table, words)?;
        self.record(&t);
        Ok(t)
    }

    fn open_head(
        &self,
        table: &TableRef,
        words: &ColumnWords<'_>,
        rows: u64,
    ) -> Result<Option<strata::format::Table>, EngineError> {
        let t = self.inner.open_head(table, words, rows)?;
        if let Some(t) = &t {
            self.record(t);
        }
        Ok(t)
    }
}

impl Recording<'_> {
    fn record(&self, t: &strata::format::Table) {
        if let Ok(mut tables) = self.opened.lock() {
            tables.push(t.clone());
        }
    }
}

/// Total size of a table directory's block files.
fn block_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".blk"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Arguments of `strata explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Directory in which table names are resolved.
    #[arg(long, default_value = ".")]
    pub db: PathBuf,
    /// Where files queried in place are cached.
    #[command(flatten)]
    pub cache: CacheArgs,
    /// The query to explain (it may start with a `--` comment).
    #[arg(allow_hyphen_values = true)]
    pub sql: String,
}

/// Prints the plan and each block's strategy.
pub fn explain(args: &ExplainArgs) -> Result<()> {
    let db = open_db(&args.db, 0, None, &args.cache)?;
    let mut text = db
        .explain(&args.sql)
        .map_err(|e| anyhow!(e.render(&args.sql)))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    crate::output::print_stdout(&text)
}

/// Splits `text` at `;` outside quotes and comments; drops empty statements.
pub fn split_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '-' if chars.peek() == Some(&'-') => {
                    for c in chars.by_ref() {
                        if c == '\n' {
                            cur.push('\n');
                            break;
                        }
                    }
                }
                ';' => {
                    if !cur.trim().is_empty() {
                        out.push(cur.trim().to_string());
                    }
                    cur.clear();
                }
                _ => cur.push(c),
            },
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split_statements;

    #[test]
    fn splits_outside_quotes_and_comments() {
        assert_eq!(
            split_statements("SELECT ';' FROM t; -- a; b\nSELECT 2;;"),
            vec!["SELECT ';' FROM t", "SELECT 2"]
        );
        assert!(split_statements(" ; ").is_empty());
    }
}
