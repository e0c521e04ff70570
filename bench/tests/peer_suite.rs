//! `strata-bench peer-suite` end to end: every query of bench/peer_suite/queries.sql runs on
//! strata and DuckDB and ends with one verdict, and strata gives no wrong answer beyond the
//! known ones (bench/peer_suite/known_mismatches.txt). Skipped when Python's duckdb is
//! missing (the reference answers come from it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

fn duckdb_available() -> bool {
    Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The integer after `"key": ` in `doc`.
fn field(doc: &str, key: &str) -> usize {
    let pat = format!("\"{key}\": ");
    let at = doc
        .find(&pat)
        .unwrap_or_else(|| panic!("no {key} in the report"))
        + pat.len();
    doc[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn every_query_gets_a_verdict_and_no_unknown_mismatch() {
    if !duckdb_available() {
        eprintln!("skipped: Python's duckdb package is not installed (pip install duckdb)");
        return;
    }
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("peer_suite");
    let listed = std::fs::read_to_string(suite.join("queries.sql"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("-- @query "))
        .count();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_strata-bench"))
        .args(["peer-suite", "--json", "--threads", "2"])
        .arg("--workdir")
        .arg(dir.path())
        .output()
        .unwrap();
    let doc = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "failed:\n{doc}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let total = field(&doc, "total");
    assert_eq!(total, listed, "every listed query runs");
    let parts = ["match", "mismatch", "refused", "duckdb_refused"];
    let sum: usize = parts.iter().map(|k| field(&doc, k)).sum();
    assert_eq!(sum, total, "each query has exactly one verdict:\n{doc}");
    assert_eq!(doc.matches("\"verdict\": ").count(), total);
    assert!(field(&doc, "match") > 0, "strata matched nothing:\n{doc}");

    let known: Vec<String> = std::fs::read_to_string(suite.join("known_mismatches.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let mut unknown = Vec::new();
    for line in doc
        .lines()
        .filter(|l| l.contains("\"verdict\": \"mismatch\""))
    {
        let source = line
            .split("\"source\": \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap();
        if !known.iter().any(|k| k == source) {
            unknown.push(line.to_string());
        }
    }
    assert!(
        unknown.is_empty(),
        "strata answered these differently from DuckDB (not in known_mismatches.txt):\n{}",
        unknown.join("\n")
    );
}
