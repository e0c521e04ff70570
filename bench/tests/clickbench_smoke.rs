//! Smoke test: `strata-bench clickbench` on a tiny generated data set, strata alone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[test]
fn clickbench_runs_all_43_queries_on_a_tiny_data_set() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("result.json");
    let out = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
        .args([
            "clickbench",
            "--rows",
            "20000",
            "--runs",
            "3",
            "--threads",
            "2",
        ])
        .args(["--engines", "strata"])
        .arg("--workdir")
        .arg(dir.path().join("work"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed:\n{stdout}\n{stderr}");
    // One progress line per query on stderr, one table row per query on stdout.
    for q in 1..=43 {
        assert!(
            stderr.contains(&format!("[strata] Q{q:<2} ")),
            "no progress line for Q{q}:\n{stderr}"
        );
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("Q{q} "))),
            "no table row for Q{q}:\n{stdout}"
        );
    }
    assert!(stdout.contains("of 43 queries"), "{stdout}");
    let errors: usize = stdout
        .split("strata errors: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("an error count");
    eprintln!("strata errors on the tiny data set: {errors} of 43");

    // ClickBench's result format: 43 arrays of the runs.
    let text = std::fs::read_to_string(&json).unwrap();
    for key in [
        "\"system\": \"strata\"",
        "\"date\"",
        "\"machine\"",
        "\"cluster_size\": 1",
        "\"tags\"",
        "\"load_time\"",
        "\"data_size\"",
        "\"result\"",
    ] {
        assert!(text.contains(key), "{key} missing from {text}");
    }
    let result = text.split("\"result\": [").nth(1).unwrap();
    let rows: Vec<&str> = result
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('['))
        .collect();
    assert_eq!(rows.len(), 43, "{text}");
    for r in &rows {
        let cells = r
            .trim_end_matches(',')
            .trim_matches(['[', ']'])
            .split(", ")
            .count();
        assert_eq!(cells, 3, "{r} in {text}");
    }

    // The generated data is cached: a second run reuses it.
    let again = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
        .args([
            "clickbench",
            "--rows",
            "20000",
            "--runs",
            "1",
            "--queries",
            "1,2",
        ])
        .args(["--engines", "strata"])
        .arg("--workdir")
        .arg(dir.path().join("work"))
        .output()
        .unwrap();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("using the cached"));
}
