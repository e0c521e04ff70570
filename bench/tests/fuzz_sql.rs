//! The SQL fuzzer on a fixed set of seeds, small tables, answers checked against DuckDB
//! (Python's `duckdb`; the test is skipped, saying so, when it cannot be imported).
//! Failures are minimised (by a fixed number of candidates, so the outcome does not
//! depend on the machine's speed); the test fails on a panic or on a failure whose
//! minimised query has a shape no known case (`tests/fuzz_cases`, `expect-fail`) has.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const SEEDS: [u64; 3] = [1, 2, 3];

fn duckdb_missing() -> Option<String> {
    match Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
    {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Some(e.to_string()),
    }
}

#[test]
fn fuzz_sql_fixed_seeds() {
    if let Some(why) = duckdb_missing() {
        eprintln!("SKIPPED fuzz_sql_fixed_seeds: Python's duckdb is not importable ({why}); pip install duckdb");
        return;
    }
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_cases");
    let dir = tempfile::tempdir().unwrap();
    for seed in SEEDS {
        let out_dir = dir.path().join(format!("seed{seed}"));
        let out = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
            .args(["fuzz-sql", "--seed", &seed.to_string()])
            .args(["--queries", "120", "--max-rows", "1000", "--threads", "1"])
            .args(["--minimise-seconds", "0", "--minimise-attempts", "300"])
            .arg("--known")
            .arg(&cases)
            .arg("--strict")
            .arg("--out")
            .arg(&out_dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        println!("seed {seed}:\n{stdout}");
        assert!(out.status.success(), "seed {seed}:\n{stdout}\n{stderr}");
        // The counts are there, and most queries were compared.
        let count = |label: &str| -> u64 {
            stdout
                .lines()
                .find_map(|l| l.trim().strip_prefix(label))
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no {label:?} in:\n{stdout}"))
        };
        assert_eq!(count("queries:"), 120, "{stdout}");
        assert!(count("matches:") >= 60, "{stdout}");
        assert!(
            count("TLP checks:") > 0 && count("NoREC checks:") > 0,
            "{stdout}"
        );
        assert_eq!(count("panics:"), 0, "{stdout}");
    }
}
