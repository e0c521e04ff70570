//! Helpers shared by the end-to-end tests: the `strata` binary, a
//! `strata ingest` that must succeed, and what an ingest left behind.
// Each test file uses the helpers it needs.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// The `strata` binary, without backtraces in its error output.
pub fn strata() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
    c.env("RUST_BACKTRACE", "0");
    c
}

/// Ingests `input` into the table `table` (without syncing), with extra
/// `options`; fails the test, showing strata's error output, if that fails.
pub fn ingest(table: &Path, input: &Path, options: &[&dyn AsRef<OsStr>]) {
    let out = strata()
        .args(["ingest", "--no-sync", "--table"])
        .arg(table)
        .args(options.iter().map(|o| o.as_ref()))
        .arg(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "strata ingest failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Entries of `dir` whose names start with a dot: temporary files an ingest
/// left behind.
pub fn hidden_entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// DuckDB's answer to `sql`, run in `dir`, as CSV with a header line
/// (through Python's `duckdb`); `None` where Python or duckdb is missing.
pub fn duckdb_csv(dir: &Path, sql: &str) -> Option<String> {
    // No progress bar: DuckDB draws it on standard output when a query
    // runs for more than two seconds (on a loaded machine).
    const SCRIPT: &str = "import csv, sys, duckdb\n\
        con = duckdb.connect()\n\
        con.execute('SET enable_progress_bar = false')\n\
        r = con.sql(sys.argv[1])\n\
        w = csv.writer(sys.stdout, lineterminator='\\n')\n\
        w.writerow(r.columns)\n\
        w.writerows(r.fetchall())\n";
    let out = Command::new("python3")
        .current_dir(dir)
        .args(["-c", SCRIPT, sql])
        .output()
        .ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("No module named"),
            "duckdb failed on {sql}: {err}"
        );
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

/// Standard output of a command that must have succeeded (else the test
/// fails, showing standard error).
pub fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed ({:?}):\n{stderr}", out.status);
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Writes `rows` rows `i,i%97` with a header to `path`; returns DuckDB's
/// `SELECT COUNT(*) AS n, SUM(a) AS s, SUM(b) AS t` of it where DuckDB is
/// installed, else the same from the numbers written.
pub fn numbers_csv(path: &Path, rows: u64) -> String {
    let mut text = String::from("a,b\n");
    let (mut s, mut t) = (0u64, 0u64);
    for i in 0..rows {
        text.push_str(&format!("{i},{}\n", i % 97));
        s += i;
        t += i % 97;
    }
    std::fs::write(path, text).unwrap();
    let sql = format!(
        "SELECT COUNT(*) AS n, SUM(a) AS s, SUM(b) AS t FROM '{}'",
        path.display()
    );
    duckdb_csv(path.parent().unwrap(), &sql).unwrap_or(format!("n,s,t\n{rows},{s},{t}\n"))
}

/// Rows of CSV file `path` (header included), as DuckDB counts them where
/// it is installed, else as lines after the header.
pub fn csv_rows(path: &Path) -> u64 {
    let sql = format!("SELECT COUNT(*) AS n FROM '{}'", path.display());
    match duckdb_csv(path.parent().unwrap(), &sql) {
        Some(text) => text.trim().trim_start_matches("n\n").parse().unwrap(),
        None => std::fs::read_to_string(path).unwrap().lines().count() as u64 - 1,
    }
}

/// The row count `strata query` gives for table `table`.
pub fn table_rows(table: &Path) -> u64 {
    let sql = format!("SELECT COUNT(*) AS n FROM '{}'", table.display());
    let out = ok(&strata()
        .args(["query", "--format", "csv", &sql])
        .output()
        .unwrap());
    out.trim().trim_start_matches("n\n").parse().unwrap()
}

/// `strata verify` finds no damage (stray files are only noted).
pub fn verifies(table: &Path) {
    ok(&strata().arg("verify").arg(table).output().unwrap());
}

/// Runs `strata ingest ARGS` and kills it (SIGKILL) after `delay_ms`.
pub fn kill_ingest_after(args: &[&dyn AsRef<OsStr>], delay_ms: u64) {
    let mut cmd = strata();
    cmd.arg("ingest").args(args.iter().map(|a| a.as_ref()));
    run_or_kill(&mut cmd, Duration::from_millis(delay_ms));
}

/// Runs `cmd` (output piped) for at most `limit`: its output if it ended by
/// then, else `None` once it is killed (SIGKILL).
pub fn run_or_kill(cmd: &mut Command, limit: Duration) -> Option<Output> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() >= limit {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2).min(limit));
    }
    Some(child.wait_with_output().unwrap())
}
