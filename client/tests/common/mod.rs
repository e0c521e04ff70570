//! Helpers shared by the end-to-end tests: the `strata` binary, and a
//! `strata ingest` that must succeed.
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
