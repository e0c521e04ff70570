//! The DuckDB side: one long-lived Python process (`bench/scripts/fuzz_duckdb.py`)
//! answering one JSON request per line on stdin with one JSON line on stdout.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use super::cell::Cell;
use crate::suite::json::{self, Json};

/// DuckDB's answer to a query.
#[derive(Debug, Clone, PartialEq)]
pub enum DuckAnswer {
    /// Rows, with the result's column names and types.
    Rows {
        /// Column names.
        columns: Vec<String>,
        /// DuckDB's type names (`DECIMAL(4,2)`, `BIGINT`, ...).
        types: Vec<String>,
        /// The rows.
        rows: Vec<Vec<Cell>>,
    },
    /// DuckDB rejected the query: its exception class and message.
    Error {
        /// The Python exception class (`BinderException`, ...).
        class: String,
        /// The message.
        message: String,
    },
    /// No answer in time (the process was restarted).
    Timeout,
}

/// The bridge's script, next to this crate's sources.
pub fn script_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fuzz_duckdb.py")
}

/// Whether `python3` can import `duckdb` (`None`), or why not.
pub fn unavailable() -> Option<String> {
    match Command::new("python3")
        .args(["-c", "import duckdb"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("import duckdb failed")
                .to_string(),
        ),
        Err(e) => Some(format!("python3 could not run: {e}")),
    }
}

/// A loaded table: the CSV file, its columns (name, type) and rows.
type Loaded = (PathBuf, Vec<(String, String)>, usize);

/// A running bridge process.
pub struct Duck {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    threads: usize,
    timeout: Duration,
    /// The table it holds: CSV file, columns and rows (reloaded after a restart).
    loaded: Option<Loaded>,
}

impl Drop for Duck {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Duck {
    /// Starts the bridge with DuckDB on `threads` threads (0: DuckDB's default); answers
    /// slower than `timeout` restart it.
    pub fn start(threads: usize, timeout: Duration) -> Result<Duck> {
        let script = script_path();
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(threads.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting python3 {}", script.display()))?;
        let stdin = child.stdin.take().context("bridge stdin")?;
        let stdout = child.stdout.take().context("bridge stdout")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut d = Duck {
            child,
            stdin,
            lines: rx,
            threads,
            timeout,
            loaded: None,
        };
        let v = d.request("{\"op\": \"version\"}")?;
        if v.get("ok") != &Json::Bool(true) {
            bail!(
                "DuckDB bridge: {}",
                v.get("error").str().unwrap_or("no version")
            );
        }
        Ok(d)
    }

    /// DuckDB's version.
    pub fn version(&mut self) -> Result<String> {
        let v = self.request("{\"op\": \"version\"}")?;
        Ok(v.get("version").str().unwrap_or("?").to_string())
    }

    fn request(&mut self, line: &str) -> Result<Json> {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush())
            .context("writing to the DuckDB bridge")?;
        match self.lines.recv_timeout(self.timeout) {
            Ok(reply) => json::parse(&reply).context("the DuckDB bridge's reply"),
            Err(RecvTimeoutError::Timeout) => Err(anyhow!(TimedOut)),
            Err(RecvTimeoutError::Disconnected) => bail!("the DuckDB bridge exited"),
        }
    }

    fn restart(&mut self) -> Result<()> {
        let fresh = Duck::start(self.threads, self.timeout)?;
        let loaded = self.loaded.take();
        *self = fresh;
        if let Some((csv, cols, rows)) = loaded {
            self.load(&csv, &cols, rows)?;
        }
        Ok(())
    }

    /// Loads table `t` from the bridge's CSV (see `TableData::write_duckdb_csv`).
    pub fn load(&mut self, csv: &Path, columns: &[(String, String)], rows: usize) -> Result<()> {
        let cols: Vec<String> = columns
            .iter()
            .map(|(n, t)| format!("[{}, {}]", json::quote(n), json::quote(t)))
            .collect();
        let req = format!(
            "{{\"op\": \"load\", \"csv\": {}, \"rows\": {rows}, \"columns\": [{}]}}",
            json::quote(&csv.to_string_lossy()),
            cols.join(", ")
        );
        let reply = match self.request(&req) {
            Err(e) if e.is::<TimedOut>() => {
                self.restart()?;
                self.request(&req)?
            }
            other => other?,
        };
        if reply.get("ok") != &Json::Bool(true) {
            bail!(
                "DuckDB could not load the table: {}",
                reply.get("error").str().unwrap_or("?")
            );
        }
        let got = reply.get("rows").num().unwrap_or(-1.0);
        if got != rows as f64 {
            bail!("DuckDB loaded {got} rows, not {rows}");
        }
        self.loaded = Some((csv.to_path_buf(), columns.to_vec(), rows));
        Ok(())
    }

    /// Runs `sql`.
    pub fn query(&mut self, sql: &str) -> Result<DuckAnswer> {
        let req = format!("{{\"op\": \"query\", \"sql\": {}}}", json::quote(sql));
        self.run(&req)
    }

    /// Runs `sql` with DuckDB's optimizer off.
    pub fn query_unoptimized(&mut self, sql: &str) -> Result<DuckAnswer> {
        let req = format!(
            "{{\"op\": \"query\", \"unoptimized\": true, \"sql\": {}}}",
            json::quote(sql)
        );
        self.run(&req)
    }

    /// Runs `sql` on one DuckDB thread.
    pub fn query_one_thread(&mut self, sql: &str) -> Result<DuckAnswer> {
        let req = format!(
            "{{\"op\": \"query\", \"threads\": 1, \"sql\": {}}}",
            json::quote(sql)
        );
        self.run(&req)
    }

    /// Whether `sql` fails with DuckDB's optimizer off, i.e. when every
    /// expression is evaluated (`None`: no answer in time).
    pub fn fails_unoptimized(&mut self, sql: &str) -> Result<Option<bool>> {
        Ok(match self.query_unoptimized(sql)? {
            DuckAnswer::Timeout => None,
            DuckAnswer::Error { .. } => Some(true),
            DuckAnswer::Rows { .. } => Some(false),
        })
    }

    fn run(&mut self, req: &str) -> Result<DuckAnswer> {
        let reply = match self.request(req) {
            Err(e) if e.is::<TimedOut>() => {
                self.restart()?;
                return Ok(DuckAnswer::Timeout);
            }
            other => other?,
        };
        if reply.get("ok") != &Json::Bool(true) {
            let message = reply.get("error").str().unwrap_or("?").to_string();
            // A FATAL error invalidates DuckDB's database (seen with a cast
            // DuckDB raised from a function not marked fallible): a new
            // process, with the table loaded again, answers what follows.
            if message.starts_with("FATAL Error") || message.contains("has been invalidated") {
                self.restart()?;
            }
            return Ok(DuckAnswer::Error {
                class: reply.get("class").str().unwrap_or("?").to_string(),
                message,
            });
        }
        let strs = |j: &Json| -> Vec<String> {
            j.items()
                .iter()
                .map(|x| x.str().unwrap_or("").to_string())
                .collect()
        };
        let columns = strs(reply.get("columns"));
        // DuckDB writes some type names quoted (`"NULL"` for min(NULL)).
        let types: Vec<String> = strs(reply.get("types"))
            .into_iter()
            .map(|t| t.trim_matches('"').to_string())
            .collect();
        let rows = reply
            .get("rows")
            .items()
            .iter()
            .map(|r| {
                r.items()
                    .iter()
                    .zip(&types)
                    .map(|(v, t)| match v {
                        Json::Null => Cell::Null,
                        Json::Bool(b) => Cell::Bool(*b),
                        Json::Str(s) => Cell::from_duckdb(t, s),
                        Json::Num(n) => Cell::Float(*n),
                        other => Cell::Other(format!("{other:?}")),
                    })
                    .collect()
            })
            .collect();
        Ok(DuckAnswer::Rows {
            columns,
            types,
            rows,
        })
    }
}

/// A request that got no answer in time.
#[derive(Debug)]
struct TimedOut;

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the DuckDB bridge did not answer in time")
    }
}

impl std::error::Error for TimedOut {}
