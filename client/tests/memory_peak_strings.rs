//! Peak memory of queries that carry a large string column through the
//! table engine (ORDER BY, GROUP BY, DISTINCT) under `--memory-limit`: the
//! limit plus a constant. Each block's rows had been copied into the merged
//! result and the merged result copied again into the sorted one, and a
//! grouped key that was selected was copied out of the groups twice. A file
//! of its own because the peak is read from the rusage of this process's
//! children, which tests running beside it would share.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{duckdb_csv, ok, run_or_kill, strata};

use std::time::Duration;

#[test]
fn large_string_columns_are_held_once() {
    let dir = tempfile::tempdir().unwrap();
    // 100,000 distinct strings of about 490 bytes: 47 MiB.
    let rows: String = (0..100_000u64)
        .map(|i| format!("{i},{:0>480}-{i}\n", (i * 7919) % 100_003))
        .collect();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, format!("i,s\n{rows}")).unwrap();
    common::ingest(&dir.path().join("t"), &csv, &[]);
    // The largest string: 480 digits of 100002 zero-padded, then "-52685"
    // (answers from DuckDB, also checked below when it is installed).
    let largest = format!("{:0>480}-52685", 100_002);
    let cases = [
        (
            "SELECT count(*) AS n, max(s) AS s FROM (SELECT s FROM t ORDER BY s) x",
            format!("n,s\n100000,{largest}\n"),
        ),
        (
            "SELECT count(*) AS n, max(c) AS c, max(s) AS s FROM \
             (SELECT s, count(*) AS c FROM t GROUP BY s) x",
            format!("n,c,s\n100000,1,{largest}\n"),
        ),
        (
            "SELECT count(*) AS n, max(s) AS s FROM (SELECT DISTINCT s FROM t) x",
            format!("n,s\n100000,{largest}\n"),
        ),
    ];
    for (sql, expected) in &cases {
        let out = run_or_kill(
            strata().current_dir(dir.path()).args([
                "query",
                "--format",
                "csv",
                "--memory-limit",
                "200MB",
                sql,
            ]),
            Duration::from_secs(120),
        )
        .expect("the query finishes");
        assert_eq!(&ok(&out), expected, "{sql}");
        let over_csv = sql
            .replace("FROM t ", "FROM 't.csv' ")
            .replace("FROM t)", "FROM 't.csv')");
        if let Some(duck) = duckdb_csv(dir.path(), &over_csv) {
            assert_eq!(&duck, expected, "DuckDB's answer to {sql}");
        }
    }
    let peak_kib = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .unwrap()
        .max_rss();
    // The limit (200 MB) plus the process's working set: the ORDER BY had
    // peaked at 295 MB, the ingest before it takes about 200 MB.
    assert!(peak_kib < 250_000, "a query peaked at {peak_kib} KiB");
}
