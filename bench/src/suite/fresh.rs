//! `--fresh`: every query in a new process per run, as a shell script would run it.
//!
//! strata: the `strata query` CLI on the suite's database directory (mapping the tables,
//! answering, printing CSV to /dev/null). DuckDB: a new Python process that imports duckdb,
//! opens the database file the hot runs loaded (read-only) and fetches the answer
//! (`peers.py once`). Times are wall-clock times of the whole process, median of `--runs`;
//! the time of `python3 -c "import duckdb"` alone is reported beside them, as part of
//! DuckDB's times that is not DuckDB's work.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Result};

use super::{fmt_ms, geomean, SuiteArgs};

/// What the fresh runs need.
pub struct FreshCtx<'a> {
    /// The suite's options (runs, threads, Python, strata binary).
    pub args: &'a SuiteArgs,
    /// Where the query files go.
    pub files: &'a Path,
    /// strata's database directory, when strata ran.
    pub strata_db: Option<PathBuf>,
    /// DuckDB's database file, when DuckDB ran.
    pub duckdb_file: Option<PathBuf>,
    /// All queries.
    pub queries: &'a [String],
    /// The ones to run (indexes).
    pub selected: &'a [usize],
    /// Threads per engine (0: all cores).
    pub threads: usize,
}

/// One engine's fresh runs of one query.
#[derive(Debug, Clone, Default)]
pub struct FreshQuery {
    /// Wall-clock seconds per successful run.
    pub times: Vec<f64>,
    /// The error of a failed run (the process's first line of stderr).
    pub error: Option<String>,
}

impl FreshQuery {
    /// The median time, when every run succeeded.
    pub fn median(&self) -> Option<f64> {
        if self.error.is_some() || self.times.is_empty() {
            return None;
        }
        let mut t = self.times.clone();
        t.sort_by(f64::total_cmp);
        Some(t[t.len() / 2])
    }
}

/// Both engines' fresh runs.
#[derive(Debug, Clone, Default)]
pub struct FreshRuns {
    /// strata's, per query (empty when strata did not run).
    pub strata: Vec<FreshQuery>,
    /// DuckDB's, per query (empty when DuckDB did not run).
    pub duckdb: Vec<FreshQuery>,
    /// Median seconds of `python -c "import duckdb"`.
    pub python_import: Option<f64>,
    /// Runs per query.
    pub runs: u32,
}

/// Runs `cmd` once; its wall time, or the first line of its stderr.
fn timed(cmd: &mut Command) -> std::result::Result<f64, String> {
    let t0 = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| e.to_string())?;
    let secs = t0.elapsed().as_secs_f64();
    if out.status.success() {
        Ok(secs)
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("failed")
            .trim()
            .to_string())
    }
}

fn repeat(runs: u32, mut make: impl FnMut() -> Command) -> FreshQuery {
    let mut q = FreshQuery::default();
    for _ in 0..runs {
        match timed(&mut make()) {
            Ok(t) => q.times.push(t),
            Err(e) => {
                q.error = Some(e);
                break;
            }
        }
    }
    q
}

/// The `strata` binary: `--strata-bin`, or `strata` beside this program.
fn strata_bin(args: &SuiteArgs) -> Result<PathBuf> {
    let bin = match &args.strata_bin {
        Some(b) => b.clone(),
        None => std::env::current_exe()?.with_file_name("strata"),
    };
    if !bin.is_file() {
        bail!(
            "--fresh needs the strata CLI at {} (cargo build --release -p strata, or --strata-bin PATH)",
            bin.display()
        );
    }
    Ok(bin)
}

/// Runs the fresh processes.
pub fn run(ctx: &FreshCtx<'_>) -> Result<FreshRuns> {
    let args = ctx.args;
    let mut out = FreshRuns {
        runs: args.runs,
        ..Default::default()
    };
    let threads = ctx.threads.to_string();
    let strata = match &ctx.strata_db {
        Some(db) => Some((strata_bin(args)?, db)),
        None => None,
    };
    if strata.is_some() {
        out.strata = vec![FreshQuery::default(); ctx.queries.len()];
    }
    if ctx.duckdb_file.is_some() {
        out.duckdb = vec![FreshQuery::default(); ctx.queries.len()];
        out.python_import = repeat(args.runs, || {
            let mut c = Command::new(&args.python);
            c.args(["-c", "import duckdb"]);
            c
        })
        .median();
    }
    for &i in ctx.selected {
        let file = ctx.files.join(format!("fresh-q{:02}.sql", i + 1));
        std::fs::write(&file, &ctx.queries[i])?;
        if let Some((bin, db)) = &strata {
            let q = repeat(args.runs, || {
                let mut c = Command::new(bin);
                c.arg("query")
                    .arg("--db")
                    .arg(db)
                    .arg("-f")
                    .arg(&file)
                    .args(["--format", "csv"]);
                if ctx.threads > 0 {
                    c.args(["--threads", &threads]);
                }
                c
            });
            eprintln!(
                "[strata fresh] Q{:<2} {}",
                i + 1,
                q.error
                    .clone()
                    .unwrap_or_else(|| format!("{} ms", fmt_ms(q.median())))
            );
            out.strata[i] = q;
        }
        if let Some(duck) = &ctx.duckdb_file {
            let q = repeat(args.runs, || {
                let mut c = Command::new(&args.python);
                c.arg(ctx.files.join("peers.py"))
                    .arg("once")
                    .arg("--db")
                    .arg(duck)
                    .arg("--sql")
                    .arg(&file)
                    .args(["--threads", &threads]);
                c
            });
            eprintln!(
                "[duckdb fresh] Q{:<2} {}",
                i + 1,
                q.error
                    .clone()
                    .unwrap_or_else(|| format!("{} ms", fmt_ms(q.median())))
            );
            out.duckdb[i] = q;
        }
    }
    Ok(out)
}

/// The fresh runs' table.
pub fn render(f: &FreshRuns, selected: &[usize]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\nFresh processes, ms (median of {} runs, each a new process): strata = `strata query` \
         CLI, duckdb = Python importing duckdb and opening its database file",
        f.runs
    );
    let _ = writeln!(
        o,
        "{:<4} {:>11} {:>11} {:>8}",
        "Q", "strata", "duckdb", "ratio"
    );
    let mut ratios = Vec::new();
    for &i in selected {
        let s = f.strata.get(i).and_then(FreshQuery::median);
        let d = f.duckdb.get(i).and_then(FreshQuery::median);
        let ratio = match (s, d) {
            (Some(s), Some(d)) if d > 0.0 => {
                ratios.push(s / d);
                format!("{:.2}x", s / d)
            }
            _ => "-".into(),
        };
        let refused = f
            .strata
            .get(i)
            .and_then(|q| q.error.as_deref())
            .map(|e| format!("  strata: {}", e.chars().take(70).collect::<String>()))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "{:<4} {:>11} {:>11} {ratio:>8}{refused}",
            format!("Q{}", i + 1),
            fmt_ms(s),
            fmt_ms(d)
        );
    }
    if let Some(g) = geomean(&ratios) {
        let _ = writeln!(
            o,
            "geometric mean of ratios, strata / duckdb: {g:.3} over {} queries",
            ratios.len()
        );
    }
    if let Some(p) = f.python_import {
        let _ = writeln!(
            o,
            "`python3 -c \"import duckdb\"` alone: {} ms (part of every DuckDB time)",
            fmt_ms(Some(p))
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_needs_every_run() {
        let q = FreshQuery {
            times: vec![0.3, 0.1, 0.2],
            error: None,
        };
        assert_eq!(q.median(), Some(0.2));
        let failed = FreshQuery {
            times: vec![0.1],
            error: Some("x".into()),
        };
        assert_eq!(failed.median(), None);
        assert_eq!(FreshQuery::default().median(), None);
    }
}
