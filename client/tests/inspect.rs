//! End-to-end tests of schema inspection (`DESCRIBE`, `SHOW`, `SHOW
//! TABLES`, `SUMMARIZE`, `information_schema`) and of DuckDB's defaults
//! for files read in place (header sniffing, quoted empty fields as NULL,
//! files of any extension), through the real binary. Expected answers come
//! from DuckDB where Python's `duckdb` is installed (and were written down
//! from it otherwise).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::{duckdb_csv, ok, strata};

/// `strata query --format csv --db DIR SQL`, run in `dir`.
fn query(dir: &Path, sql: &str) -> String {
    ok(&strata()
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("xdg"))
        .args(["query", "--format", "csv", "--db"])
        .arg(dir)
        .arg(sql)
        .output()
        .unwrap())
}

fn lines(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

/// The data lines of a CSV answer (without its header line).
fn rows(s: &str) -> Vec<String> {
    s.lines().skip(1).map(str::to_string).collect()
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    w("nums.csv", "i,s,f\n1,a,2.5\n2,,\n3,c,4.0\n");
    w("plain.csv", "1,2\n3,4\n");
    w("named.csv", "x,y\n3,4\n");
    w("words.csv", "a,b\nc,d\n");
    w("mixed.csv", "1.5,2020-01-01\n2,2020-01-02\n");
    w("first.csv", "name,1\nb,2\n");
    w("quoted.csv", "\"\",1\n\"x\",2\n,3\n");
    // A column whose only empty fields are quoted.
    w("quoted_only.csv", "a,b\n\"\",x\n\"q\",y\n");
    w("notes.txt", "a|b\n1|x\n2|y\n");
    dir
}

#[test]
fn describe_files_queries_and_tables() {
    let dir = scratch();
    let d = dir.path();
    let got = query(d, "DESCRIBE 'nums.csv'");
    assert_eq!(
        lines(&got),
        [
            "column_name,column_type,null,key,default,extra",
            "i,BIGINT,YES,,,",
            "s,VARCHAR,YES,,,",
            "f,DOUBLE,YES,,,",
        ]
    );
    if let Some(want) = duckdb_csv(d, "DESCRIBE 'nums.csv'") {
        assert_eq!(rows(&got), rows(&want));
    }
    let got = query(
        d,
        "-- a comment first\nDESCRIBE SELECT i + 1 AS j, s FROM 'nums.csv'",
    );
    assert_eq!(rows(&got), ["j,BIGINT,YES,,,", "s,VARCHAR,YES,,,"]);
    // Tables of the database directory.
    common::ingest(&d.join("nums"), &d.join("nums.csv"), &[]);
    common::ingest(&d.join("named"), &d.join("named.csv"), &[]);
    assert_eq!(rows(&query(d, "SHOW TABLES")), ["named", "nums"]);
    assert_eq!(rows(&query(d, "SHOW ALL TABLES")), ["named", "nums"]);
    let desc = query(d, "DESCRIBE nums");
    assert_eq!(
        rows(&desc),
        ["i,BIGINT,NO,,,", "s,VARCHAR,YES,,,", "f,DOUBLE,YES,,,"]
    );
    assert_eq!(query(d, "SHOW nums"), desc);
    assert_eq!(query(d, "SHOW COLUMNS FROM nums"), desc);
    assert_eq!(
        rows(&query(
            d,
            "SELECT table_schema, table_name, table_type FROM information_schema.tables ORDER BY 2"
        )),
        ["main,named,BASE TABLE", "main,nums,BASE TABLE"]
    );
    assert_eq!(
        rows(&query(
            d,
            "SELECT column_name, ordinal_position, is_nullable, data_type FROM information_schema.columns \
             WHERE table_name = 'nums' AND column_name <> 'f' ORDER BY ordinal_position"
        )),
        ["i,1,NO,BIGINT", "s,2,YES,VARCHAR"]
    );
}

#[test]
fn summarize_matches_duckdb_where_duckdb_is_exact() {
    let dir = scratch();
    let d = dir.path();
    let got = query(d, "SUMMARIZE 'nums.csv'");
    let head =
        "column_name,column_type,min,max,approx_unique,avg,std,q25,q50,q75,count,null_percentage";
    assert_eq!(got.lines().next(), Some(head));
    // Every column but DuckDB's approximations (approx_unique, q25..q75).
    let pick = |line: &str| {
        let f: Vec<&str> = line.split(',').collect();
        [0, 1, 2, 3, 5, 6, 10, 11]
            .map(|k| f[k].to_string())
            .join(",")
    };
    let ours: Vec<String> = rows(&got).iter().map(|l| pick(l)).collect();
    assert_eq!(
        ours,
        [
            "i,BIGINT,1,3,2.0,1.0,3,0.00",
            "s,VARCHAR,a,c,,,3,33.33",
            "f,DOUBLE,2.5,4.0,3.25,1.0606601717798212,3,33.33",
        ]
    );
    if let Some(want) = duckdb_csv(d, "SUMMARIZE 'nums.csv'") {
        let theirs: Vec<String> = rows(&want).iter().map(|l| pick(l)).collect();
        assert_eq!(ours, theirs);
    }
    // The exact distinct counts and quantiles.
    assert_eq!(rows(&got)[0].split(',').nth(4), Some("3"));
    assert_eq!(rows(&got)[2].split(',').nth(8), Some("3.25"));
    let q = query(d, "SUMMARIZE SELECT i FROM 'nums.csv' WHERE i > 1");
    assert_eq!(rows(&q).len(), 1);
}

#[test]
fn headers_are_sniffed_as_duckdb_does() {
    let dir = scratch();
    let d = dir.path();
    // (file, DuckDB's rows)
    let cases = [
        ("plain.csv", vec!["1,2", "3,4"]),
        ("named.csv", vec!["3,4"]),
        ("words.csv", vec!["c,d"]),
        ("mixed.csv", vec!["2,2020-01-02"]),
        ("first.csv", vec!["name,1", "b,2"]),
    ];
    for (file, want) in cases {
        let sql = format!("SELECT * FROM '{file}'");
        let got = query(d, &sql);
        assert_eq!(rows(&got), want, "{file}");
        if let Some(duck) = duckdb_csv(d, &sql) {
            assert_eq!(rows(&got), rows(&duck), "{file}");
        }
    }
    assert_eq!(lines(&query(d, "SELECT * FROM 'named.csv'"))[0], "x,y");
    // An explicit header= wins.
    assert_eq!(
        rows(&query(
            d,
            "SELECT * FROM read_csv('named.csv', header=false)"
        )),
        ["x,y", "3,4"]
    );
}

#[test]
fn quoted_empty_fields_are_null_unless_asked() {
    let dir = scratch();
    let d = dir.path();
    for (sql, want) in [
        ("SELECT count(*), count(column0) FROM 'quoted.csv'", "3,1"),
        (
            "SELECT count(*), count(column0) FROM read_csv('quoted.csv', allow_quoted_nulls=false)",
            "3,2",
        ),
        ("SELECT count(*), count(a) FROM 'quoted_only.csv'", "2,1"),
        (
            "SELECT count(*), count(a) FROM read_csv('quoted_only.csv', allow_quoted_nulls=false)",
            "2,2",
        ),
    ] {
        assert_eq!(rows(&query(d, sql)), [want], "{sql}");
        if let Some(duck) = duckdb_csv(d, sql) {
            assert_eq!(rows(&duck), [want], "{sql}");
        }
    }
}

#[test]
fn files_of_other_extensions_are_sniffed() {
    let dir = scratch();
    let d = dir.path();
    assert_eq!(
        lines(&query(d, "SELECT b, a FROM 'notes.txt' ORDER BY a DESC")),
        ["b,a", "y,2", "x,1"]
    );
    // A name that is neither a table nor a file is still "not found".
    let out = strata()
        .current_dir(d)
        .args(["query", "--db"])
        .arg(d)
        .arg("SELECT * FROM 'missing.txt'")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not found"));
}
