//! Peak memory under `--memory-limit` where the input is wide: a CSV file
//! queried in place (its load into a table had 4 blocks of 2^19 rows in
//! flight whatever the limit: 1.2 GB for a 420 MB file under a 50 MB limit),
//! and a DISTINCT of more strings than the limit allows (which had fetched
//! every string before it was refused). A file of its own because the peak
//! is read from the rusage of this process's children, which tests running
//! beside it would share.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{duckdb_csv, ok, run_or_kill, strata};

use std::time::Duration;

#[test]
fn wide_loads_and_refused_results_keep_to_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    // 300,000 distinct strings of about 520 bytes: 157 MB of text.
    let n = 300_000u64;
    let text = |i: u64| format!("{:0>512}-{i}", (i * 7919) % 300_007);
    let mut rows = String::with_capacity(160 << 20);
    rows.push_str("i,s\n");
    for i in 0..n {
        rows.push_str(&format!("{i},{}\n", text(i)));
    }
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, rows).unwrap();
    let largest = (0..n).map(text).max().unwrap();
    let sql = "SELECT count(*) AS n, sum(i) AS total, max(s) AS s FROM 't.csv'";
    let expected = format!("n,total,s\n{n},{},{largest}\n", n * (n - 1) / 2);
    let query = |sql: &str| {
        run_or_kill(
            strata().current_dir(dir.path()).args([
                "query",
                "--no-cache",
                "--format",
                "csv",
                "--memory-limit",
                "50MB",
                sql,
            ]),
            Duration::from_secs(120),
        )
        .expect("the query finishes")
    };
    assert_eq!(ok(&query(sql)), expected);
    if let Some(duck) = duckdb_csv(dir.path(), sql) {
        assert_eq!(duck, expected, "DuckDB's answer");
    }
    // 157 MB of distinct strings cannot be returned under 50 MB.
    let refused = query("SELECT DISTINCT s FROM 't.csv'");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("need more than the memory limit"), "{err}");
    let peak_kib = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .unwrap()
        .max_rss();
    // The limit (50 MB) plus the process's working set and the loaded
    // table's mapped pages. Before blocks were sized to the limit, the
    // load alone peaked at about 600 MB (measured: 177 MB now).
    assert!(peak_kib < 250_000, "a query peaked at {peak_kib} KiB");
}
