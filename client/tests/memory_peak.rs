//! Peak memory of a query that fits under `--memory-limit`: the limit plus
//! a constant, not a multiple of the answer. A file of its own because the
//! peak is read from the rusage of this process's children, which tests
//! running beside it would share.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{duckdb_csv, ok, run_or_kill, strata};

use std::time::Duration;

/// A running string_agg over 2,000 rows makes about 200 MB of strings.
/// Copying them between the window's pieces, the gathered frames and the
/// projection had used about three times that.
#[test]
fn a_large_window_result_is_held_once() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (0..2000).map(|i| format!("{i},x{i:099}\n")).collect();
    std::fs::write(dir.path().join("w.csv"), format!("i,s\n{rows}")).unwrap();
    let sql = "SELECT count(*) AS n, max(length(w)) AS m, sum(length(w)) AS s FROM \
               (SELECT string_agg(s, ',' ORDER BY i DESC) OVER (ORDER BY i) AS w FROM 'w.csv') x";
    // Answer from DuckDB.
    let expected = "n,m,s\n2000,201999,202099000\n";
    let out = run_or_kill(
        strata().current_dir(dir.path()).args([
            "query",
            "--no-cache",
            "--format",
            "csv",
            "--memory-limit",
            "300MB",
            sql,
        ]),
        Duration::from_secs(120),
    )
    .expect("the query finishes");
    assert_eq!(ok(&out), expected);
    let peak_kib = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .unwrap()
        .max_rss();
    // The limit (300 MB) plus the process's working set and one batch of
    // gathered frames (64 MiB of strings).
    assert!(peak_kib < 450_000, "the query peaked at {peak_kib} KiB");
    if let Some(duck) = duckdb_csv(dir.path(), sql) {
        assert_eq!(duck, expected, "DuckDB's answer");
    }
}
