//! Hostile input and a hostile environment: symbolic link loops under
//! globs, other users beside the cache, special files in place of table
//! files, concurrent cache clears, killed and interrupted appends, and
//! leftovers of killed ingests. Each test fails on the behaviour it guards
//! against.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{duckdb_csv, strata};

use std::path::Path;
use std::process::Output;

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed ({:?}):\n{stderr}", out.status);
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `strata query --no-cache --format csv SQL`, run in `dir`.
fn query_in(dir: &Path, sql: &str) -> Output {
    strata()
        .current_dir(dir)
        .args(["query", "--no-cache", "--format", "csv", sql])
        .output()
        .unwrap()
}

/// strata's answer equals DuckDB's, recorded here (`expected`) and checked
/// again when Python's duckdb is installed.
fn same_as_duckdb(dir: &Path, sql: &str, expected: &str) {
    assert_eq!(ok(&query_in(dir, sql)), expected, "{sql}");
    if let Some(duck) = duckdb_csv(dir, sql) {
        assert_eq!(duck, expected, "DuckDB's answer to {sql}");
    }
}

#[test]
fn double_star_globs_do_not_follow_directory_links() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    std::fs::create_dir_all(g.join("d")).unwrap();
    std::fs::write(g.join("x.csv"), "a\n1\n").unwrap();
    // A loop back to the top.
    std::os::unix::fs::symlink("../g", g.join("self")).unwrap();
    let sql = "SELECT COUNT(*) AS n, SUM(a) AS s FROM 'g/**/*.csv'";
    same_as_duckdb(dir.path(), sql, "n,s\n1,1\n");
    // A second link to a directory, and a loop below the top.
    std::fs::write(g.join("d/y.csv"), "a\n2\n").unwrap();
    std::os::unix::fs::symlink("d", g.join("d2")).unwrap();
    std::os::unix::fs::symlink("../../g/d", g.join("d/up")).unwrap();
    same_as_duckdb(dir.path(), sql, "n,s\n2,3\n");
    // One `*` follows links, as in DuckDB.
    same_as_duckdb(
        dir.path(),
        "SELECT COUNT(*) AS n, SUM(a) AS s FROM 'g/*/*.csv'",
        "n,s\n3,5\n",
    );
}
