//! Helpers shared by the end-to-end tests: the `strata` binary, a
//! `strata ingest` that must succeed, and what an ingest left behind.
// Each test file uses the helpers it needs.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

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
    const SCRIPT: &str = "import csv, sys, duckdb\n\
        r = duckdb.sql(sys.argv[1])\n\
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
