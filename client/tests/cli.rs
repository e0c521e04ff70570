//! End-to-end tests of `strata query`, `explain`, `info`, `verify` and the
//! exit codes: the real binary over a small table made with `strata ingest`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{ingest, strata};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary database directory holding table `people`.
struct Db {
    dir: tempfile::TempDir,
}

const SCHEMA: &str =
    "CREATE TABLE people (id INTEGER NOT NULL, name TEXT, score DOUBLE, born DATE)";
const CSV: &str = "id,name,score,born\n\
1,Ann,1.5,1990-01-02\n\
2,\"Smith, Bob\",2,\n\
3,,0.25,2000-12-31\n";

impl Db {
    fn new() -> Db {
        let dir = tempfile::tempdir().unwrap();
        let schema = dir.path().join("people.sql");
        std::fs::write(&schema, SCHEMA).unwrap();
        let csv = dir.path().join("people.csv");
        std::fs::write(&csv, CSV).unwrap();
        ingest(&dir.path().join("people"), &csv, &[&"--schema", &schema]);
        Db { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn table(&self) -> PathBuf {
        self.dir.path().join("people")
    }

    /// `strata query --db DIR ARGS...`.
    fn query(&self, args: &[&str]) -> Output {
        strata()
            .arg("query")
            .arg("--db")
            .arg(self.path())
            .args(args)
            .output()
            .unwrap()
    }
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed ({:?}):\n{stderr}", out.status);
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Asserts exit code `code` and returns standard error.
fn fails(out: &Output, code: i32) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stderr:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn with_stdin(mut cmd: Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

const ALL: &str = "SELECT id, name, score, born FROM people ORDER BY id";

#[test]
fn csv_output_is_exact() {
    let db = Db::new();
    let out = ok(&db.query(&["--format", "csv", ALL]));
    assert_eq!(
        out,
        "id,name,score,born\n1,Ann,1.5,1990-01-02\n2,\"Smith, Bob\",2,\n3,,0.25,2000-12-31\n"
    );
}

#[test]
fn tsv_output_is_exact() {
    let db = Db::new();
    let out = ok(&db.query(&["--format", "tsv", ALL]));
    assert_eq!(
        out,
        "id\tname\tscore\tborn\n1\tAnn\t1.5\t1990-01-02\n2\tSmith, Bob\t2\t\\N\n3\t\\N\t0.25\t2000-12-31\n"
    );
}

#[test]
fn json_and_jsonl_output_are_exact() {
    let db = Db::new();
    let rows = [
        r#"{"id":1,"name":"Ann","score":1.5,"born":"1990-01-02"}"#,
        r#"{"id":2,"name":"Smith, Bob","score":2,"born":null}"#,
        r#"{"id":3,"name":null,"score":0.25,"born":"2000-12-31"}"#,
    ];
    let out = ok(&db.query(&["--format", "json", ALL]));
    assert_eq!(out, format!("[\n{}\n]\n", rows.join(",\n")));
    let out = ok(&db.query(&["--format", "jsonl", ALL]));
    assert_eq!(out, format!("{}\n", rows.join("\n")));
}

#[test]
fn table_output_is_aligned_with_types_and_a_row_count() {
    let db = Db::new();
    let out = ok(&db.query(&[ALL]));
    for needle in [
        "id",
        "INTEGER",
        "VARCHAR",
        "DATE",
        "Smith, Bob",
        "1990-01-02",
        "3 rows",
    ] {
        assert!(out.contains(needle), "{needle} missing:\n{out}");
    }
    let widths: Vec<usize> = out
        .lines()
        .filter(|l| !l.ends_with("rows"))
        .map(|l| l.chars().count())
        .collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{out}");
}

#[test]
fn sql_from_argument_file_and_stdin() {
    let db = Db::new();
    let sql = db.path().join("q.sql");
    std::fs::write(
        &sql,
        "SELECT count(*) AS n FROM people;\n-- a comment; with a semicolon\nSELECT max(id) AS m FROM people;\n",
    )
    .unwrap();
    let out = ok(&db.query(&["--format", "csv", "-f", sql.to_str().unwrap()]));
    assert_eq!(out, "n\n3\nm\n3\n");

    let mut cmd = strata();
    cmd.args(["query", "--format", "csv", "--db"])
        .arg(db.path());
    let out = ok(&with_stdin(cmd, "SELECT name FROM people WHERE id = 1;"));
    assert_eq!(out, "name\nAnn\n");

    // `strata` with no arguments and a pipe on standard input: like `query`.
    let mut cmd = strata();
    cmd.current_dir(db.path());
    let out = ok(&with_stdin(cmd, "SELECT count(*) AS n FROM people"));
    assert!(out.contains("3") && out.contains("1 row"), "{out}");

    // A quoted path works without --db.
    let quoted = format!("SELECT count(*) AS n FROM '{}'", db.table().display());
    let out = ok(&strata()
        .args(["query", "--format", "csv", &quoted])
        .output()
        .unwrap());
    assert_eq!(out, "n\n3\n");
}

#[test]
fn output_file_and_timing() {
    let db = Db::new();
    let file = db.path().join("out.csv");
    let out = db.query(&[
        "--format",
        "csv",
        "--timing",
        "--threads",
        "2",
        "--output",
        file.to_str().unwrap(),
        "SELECT id FROM people WHERE score > 1 ORDER BY id",
    ]);
    assert!(ok(&out).is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "id\n1\n2\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("time: "), "{stderr}");
    assert!(stderr.contains("2 result rows"), "{stderr}");
    assert!(stderr.contains("table touched: 3 rows"), "{stderr}");
    assert!(stderr.contains("bytes in block files"), "{stderr}");
}

#[test]
fn explain_prints_the_plan() {
    let db = Db::new();
    let out = strata()
        .arg("explain")
        .arg("--db")
        .arg(db.path())
        .arg("SELECT name, count(*) FROM people WHERE id > 1 GROUP BY name")
        .output()
        .unwrap();
    let text = ok(&out);
    assert!(text.lines().count() >= 2, "{text}");
    assert!(text.to_lowercase().contains("block"), "{text}");
    let out = strata()
        .arg("explain")
        .arg("--db")
        .arg(db.path())
        .arg("SELECT nosuch FROM people")
        .output()
        .unwrap();
    assert!(fails(&out, 1).contains("nosuch"));
}

#[test]
fn info_and_verify_an_intact_table() {
    let db = Db::new();
    let info = ok(&strata().arg("info").arg(db.table()).output().unwrap());
    assert!(info.contains("rows      3"), "{info}");
    for col in ["id", "name", "score", "born"] {
        assert!(info.contains(col), "{info}");
    }
    let verify = ok(&strata().arg("verify").arg(db.table()).output().unwrap());
    assert!(verify.starts_with("ok: "), "{verify}");
}

#[test]
fn verify_names_a_damaged_file_and_exits_1() {
    let db = Db::new();
    let blk = std::fs::read_dir(db.table())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "blk"))
        .unwrap();
    let mut bytes = std::fs::read(&blk).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&blk, bytes).unwrap();
    let out = strata().arg("verify").arg(db.table()).output().unwrap();
    let stderr = fails(&out, 1);
    let name = blk.file_name().unwrap().to_str().unwrap();
    assert!(stderr.contains(name), "{stderr}");
    assert!(stderr.contains("damaged"), "{stderr}");
}

#[test]
fn query_errors_exit_1_with_a_message() {
    let db = Db::new();
    let e = fails(&db.query(&["SELECT * FROM nope"]), 1);
    assert!(e.contains("table \"nope\" not found"), "{e}");
    let e = fails(&db.query(&["SELECT nme FROM people"]), 1);
    assert!(
        e.contains("column \"nme\" not found (did you mean \"name\"?)"),
        "{e}"
    );
    let e = fails(&db.query(&["INSERT INTO people VALUES (1, 'x')"]), 1);
    assert!(e.contains("not supported"), "{e}");
    // A missing database directory is an error too, not a crash.
    let out = strata()
        .args(["query", "--db", "/nonexistent/strata-db", "SELECT 1 FROM t"])
        .output()
        .unwrap();
    assert!(fails(&out, 1).contains("/nonexistent/strata-db"));
}

#[test]
fn a_result_over_the_memory_limit_is_an_error() {
    let db = Db::new();
    let sql = "SELECT name, COUNT(*) FROM people GROUP BY name";
    let e = fails(&db.query(&["--memory-limit", "1KB", sql]), 1);
    assert!(e.contains("result too large"), "{e}");
    assert!(e.contains("memory limit of 1000 B"), "{e}");
    let e = fails(
        &db.query(&["--memory-limit", "10", "SELECT * FROM people"]),
        1,
    );
    assert!(e.contains("the result rows need more than"), "{e}");
    // A generous limit changes nothing.
    let out = ok(&db.query(&["--memory-limit", "1GiB", "--format", "csv", sql]));
    assert_eq!(out.lines().count(), 4, "{out}");
    // A malformed size is a usage error.
    let e = fails(&db.query(&["--memory-limit", "lots", sql]), 2);
    assert!(e.contains("invalid size"), "{e}");
}

#[test]
fn sorts_and_groups_above_the_table_count_against_the_memory_limit() {
    let db = Db::new();
    let csv = db.path().join("n.csv");
    let rows: String = (0..20_000)
        .map(|i| format!("{}\n", (i * 7919) % 20_000))
        .collect();
    std::fs::write(&csv, format!("a\n{rows}")).unwrap();
    let from = format!("(SELECT a FROM '{}' LIMIT 20000)", csv.display());
    let sort = format!("SELECT * FROM {from} ORDER BY a + 1 LIMIT 2");
    let group = format!("SELECT a % 7 AS k, count(*) FROM {from} GROUP BY k ORDER BY k");
    // The input rows fit; the sort keys and the grouping's ids do not.
    let e = fails(
        &db.query(&["--no-cache", "--memory-limit", "600KB", &sort]),
        1,
    );
    assert!(e.contains("an ORDER BY's"), "{e}");
    let e = fails(
        &db.query(&["--no-cache", "--memory-limit", "600KB", &group]),
        1,
    );
    assert!(e.contains("a GROUP BY's"), "{e}");
    for sql in [&sort, &group] {
        ok(&db.query(&["--no-cache", "--memory-limit", "4MB", sql]));
    }
}

#[test]
fn the_memory_cache_size_changes_nothing_but_memory() {
    let db = Db::new();
    // Each statement twice, so the second run may use what the first decoded.
    let sql = "SELECT name, COUNT(*) AS c FROM people GROUP BY name ORDER BY name;\n\
               SELECT name, COUNT(*) AS c FROM people GROUP BY name ORDER BY name;\n\
               SELECT id FROM people WHERE score > 1 AND name = 'Smith, Bob' ORDER BY id;\n\
               SELECT id FROM people WHERE score > 1 AND name = 'Smith, Bob' ORDER BY id";
    let mut outs = Vec::new();
    for size in ["0", "1KB", "1GiB"] {
        let out = ok(&db.query(&["--memory-cache", size, "--format", "csv", sql]));
        outs.push(out);
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]), "{outs:?}");
    let want = "name,c\nAnn,1\n\"Smith, Bob\",1\n,1\n";
    assert_eq!(outs[0].matches(want).count(), 2, "{}", outs[0]);
    assert_eq!(outs[0].matches("id\n2\n").count(), 2, "{}", outs[0]);
    let e = fails(&db.query(&["--memory-cache", "plenty", sql]), 2);
    assert!(e.contains("invalid size"), "{e}");
}

#[test]
fn syntax_errors_point_at_the_position() {
    let db = Db::new();
    let e = fails(&db.query(&["SELECT id\nFROM people\nWHERE id = = 1"]), 1);
    assert!(e.contains("syntax error"), "{e}");
    let lines: Vec<&str> = e.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("line 3: WHERE id = = 1"))
        .unwrap_or_else(|| panic!("no source line:\n{e}"));
    let source = lines[at];
    let caret = lines[at + 1];
    assert_eq!(caret.trim(), "^", "{e}");
    // The caret sits under the second `=`.
    let col = caret.find('^').unwrap();
    assert_eq!(&source[col..col + 3], "= 1", "{e}");
}

#[test]
fn usage_errors_exit_2() {
    let out = strata()
        .args(["query", "--format", "xml", "SELECT 1"])
        .output()
        .unwrap();
    fails(&out, 2);
    let out = strata().arg("frobnicate").output().unwrap();
    fails(&out, 2);
    let out = strata().args(["verify"]).output().unwrap();
    fails(&out, 2);
    let out = strata().arg("--help").output().unwrap();
    assert!(ok(&out).contains("query"));
}
