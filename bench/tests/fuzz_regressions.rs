//! Replays the regression cases the SQL fuzzer wrote (`tests/fuzz_cases/*/`: a table and
//! queries with DuckDB's answers, or TLP/NoREC checks) against strata. A case holding an
//! `expect-fail` line is a known, open bug: it must still fail, and the test says so
//! when it passes (then the line goes). No Python needed: DuckDB's answers are stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

#[test]
fn fuzz_regression_cases_replay() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_cases");
    let out = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
        .args(["fuzz-sql", "--replay"])
        .arg(&cases)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "fuzz regression cases:\n{stdout}\n{stderr}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(summary.contains(" cases: "), "{stdout}");
    // Every case directory was replayed.
    let dirs = std::fs::read_dir(&cases)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("case.slt").is_file())
        .count();
    assert!(dirs > 0, "no cases in {}", cases.display());
    assert!(summary.starts_with(&format!("{dirs} cases:")), "{summary}");
}
