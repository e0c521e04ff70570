//! End-to-end tests of querying CSV, TSV and Parquet files in place
//! (`FROM 'x.csv'`, `read_csv(...)`, `read_parquet(...)`) and of the cache
//! behind it, through the real binary and the library.
//!
//! The expected answers are worked out by hand from the small files written
//! here (and were checked with DuckDB; strata prints the double 4.0 as `4`); `data/people.parquet` was written by
//! DuckDB:
//! `COPY (SELECT * FROM (VALUES (1,'Ann',1.5,'NL'), (2,'Bob',NULL,'DE'),
//! (3,'Cy',0.25,'NL'), (4,'Dee',4.0,'FR'), (5,'Ed',2.25,'NL'))
//! t(id,name,score,country)) TO 'people.parquet'` (score is DECIMAL(3,2)).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// A scratch directory for input files and a cache directory inside it.
struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    fn cache(&self) -> PathBuf {
        self.path("cache")
    }

    /// `strata ARGS...` run in the scratch directory, with the user's cache
    /// folder pointed inside it too.
    fn strata(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
        c.current_dir(self.dir.path())
            .env("RUST_BACKTRACE", "0")
            .env("XDG_CACHE_HOME", self.path("xdg"))
            .env("HOME", self.dir.path());
        c
    }

    /// `strata query --format csv --cache-dir CACHE ARGS... SQL`.
    fn query_with(&self, args: &[&str], sql: &str) -> Output {
        self.strata()
            .args(["query", "--format", "csv", "--cache-dir"])
            .arg(self.cache())
            .args(args)
            .arg(sql)
            .output()
            .unwrap()
    }

    fn query(&self, sql: &str) -> String {
        ok(&self.query_with(&[], sql))
    }

    fn cache_cmd(&self, args: &[&str]) -> String {
        ok(&self
            .strata()
            .arg("cache")
            .args(args)
            .arg("--cache-dir")
            .arg(self.cache())
            .output()
            .unwrap())
    }

    /// The cache's entry directories.
    fn entries(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.cache())
            .map(|rd| {
                rd.map(|e| e.unwrap().path())
                    .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed ({:?}):\n{stderr}", out.status);
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Asserts failure with exit code 1 and returns standard error.
fn fails(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "stderr:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

const PEOPLE: &str = "id,name,score,country\n\
1,Ann,1.5,NL\n\
2,Bob,,DE\n\
3,Cy,0.25,NL\n\
4,Dee,4.0,FR\n\
5,Ed,2.25,NL\n";

#[test]
fn csv_with_header_and_inferred_types() {
    let env = Env::new();
    env.write("people.csv", PEOPLE);
    assert_eq!(
        env.query(
            "SELECT country, count(*) AS n, sum(score) AS s, min(name) AS m \
             FROM 'people.csv' GROUP BY country ORDER BY country"
        ),
        "country,n,s,m\nDE,1,,Bob\nFR,1,4,Dee\nNL,3,4,Ann\n"
    );
    // A path with a directory, and read_csv / read_csv_auto on the same file.
    assert_eq!(
        env.query(&format!(
            "SELECT sum(id) AS s FROM '{}'",
            env.path("people.csv").display()
        )),
        "s\n15\n"
    );
    assert_eq!(
        env.query("SELECT count(*) AS n FROM read_csv('people.csv') WHERE score > 1"),
        "n\n3\n"
    );
    assert_eq!(
        env.query("SELECT max(id) AS m FROM read_csv_auto('people.csv')"),
        "m\n5\n"
    );
    // Only the columns queries name were loaded; all of them now, in one
    // entry that replaced the smaller ones.
    assert!(env.cache_cmd(&["list"]).contains("columns)"));
    assert_eq!(
        env.query("SELECT * FROM 'people.csv' WHERE id = 3"),
        "id,name,score,country\n3,Cy,0.25,NL\n"
    );
    assert_eq!(env.entries().len(), 1);
    assert!(!env.cache_cmd(&["list"]).contains("columns)"));
}

/// Text that a number would lose characters of stays text, as DuckDB
/// sniffs it: leading zeros (zip codes) and leading `+`. Answers from DuckDB.
#[test]
fn leading_zeros_stay_text() {
    let env = Env::new();
    env.write(
        "zips.csv",
        "zip,code,amount,signed\n01234,+7,00.50,-007\n90210,12,1.25,3\n00501,-3,0.5,0\n",
    );
    assert_eq!(
        env.query(
            "SELECT zip, code, amount, signed, typeof(zip) AS tz, typeof(code) AS tc, \
             typeof(amount) AS ta, typeof(signed) AS ts FROM 'zips.csv' ORDER BY zip"
        ),
        "zip,code,amount,signed,tz,tc,ta,ts\n\
         00501,-3,0.5,0,VARCHAR,VARCHAR,VARCHAR,BIGINT\n\
         01234,+7,00.50,-7,VARCHAR,VARCHAR,VARCHAR,BIGINT\n\
         90210,12,1.25,3,VARCHAR,VARCHAR,VARCHAR,BIGINT\n"
    );
}

/// `COUNT(*)` names no column: the records are counted without loading a
/// column. Quoted fields hold delimiters, newlines and doubled quotes; blank
/// lines are no rows unless the file has one column. The counts were checked
/// with DuckDB (`SELECT COUNT(*) FROM 'q.csv'` and so on).
#[test]
fn count_star_counts_records_without_loading_columns() {
    let env = Env::new();
    let count = |from: &str| env.query(&format!("SELECT COUNT(*) AS n FROM {from}"));
    env.write(
        "q.csv",
        "id,text\n1,\"a,b\"\n2,\"line1\nline2\"\n3,\"say \"\"hi\"\",\nand \"\"bye\"\"\"\n4,plain\n",
    );
    assert_eq!(count("'q.csv'"), "n\n4\n");
    assert_eq!(count("read_csv('q.csv', header=false)"), "n\n5\n");
    // The column is loaded when a query names it, and the count stays.
    assert_eq!(env.query("SELECT MAX(id) AS m FROM 'q.csv'"), "m\n4\n");
    assert_eq!(count("'q.csv'"), "n\n4\n");
    env.write("blank.csv", "a,b\n1,2\n\n3,4\n\n");
    assert_eq!(count("'blank.csv'"), "n\n2\n");
    env.write("one.csv", "a\n1\n\n3\n");
    assert_eq!(count("'one.csv'"), "n\n3\n");
    env.write("header_only.csv", "a,b\n");
    assert_eq!(count("'header_only.csv'"), "n\n0\n");
    env.write("empty.csv", "");
    assert_eq!(count("'empty.csv'"), "n\n0\n");
    // A .tsv file is read as CSV with a tab delimiter, quotes and all.
    env.write("t.tsv", "a\tb\n1\t\"x\ty\nz\"\n2\tw\n");
    assert_eq!(count("'t.tsv'"), "n\n2\n");
    // An unterminated quote is an error, not a count.
    env.write("bad.csv", "a,b\n1,\"x\n2,3\n");
    let err = fails(&env.query_with(&[], "SELECT COUNT(*) FROM 'bad.csv'"));
    assert!(err.contains("unterminated"), "{err}");
}

/// A file larger than one counting chunk (8 MiB), with a quoted field full
/// of newlines, quotes and delimiters across the chunk boundary: rows by
/// construction.
#[test]
fn count_star_across_chunks_inside_a_quoted_field() {
    let env = Env::new();
    let chunk = 8usize << 20;
    let mut text = String::from("id,text\n");
    let mut rows = 0;
    while text.len() < chunk - 3000 {
        rows += 1;
        text.push_str(&format!("{rows},\"r,{rows}\"\n"));
    }
    rows += 1;
    text.push_str(&format!("{rows},\""));
    while text.len() < chunk + 3000 {
        text.push_str("a,\n\"\"b\"\"\n\r\n,");
    }
    text.push_str("\"\n");
    for _ in 0..100 {
        rows += 1;
        text.push_str(&format!("{rows},\"\"\n"));
    }
    env.write("big.csv", &text);
    assert_eq!(
        env.query("SELECT COUNT(*) AS n FROM 'big.csv'"),
        format!("n\n{rows}\n")
    );
    assert_eq!(
        env.query("SELECT COUNT(*) AS n, MAX(id) AS m FROM 'big.csv'"),
        format!("n,m\n{rows},{rows}\n")
    );
}

#[test]
fn tsv_by_extension_and_tab_delimiter() {
    let env = Env::new();
    env.write("people.tsv", &PEOPLE.replace(',', "\t"));
    assert_eq!(
        env.query("SELECT sum(score) AS s, count(score) AS c FROM 'people.tsv'"),
        "s,c\n8,4\n"
    );
    assert_eq!(
        env.query("SELECT min(name) AS m FROM read_csv('people.tsv', delim='\\t')"),
        "m\nAnn\n"
    );
    assert_eq!(
        // A literal tab character.
        env.query("SELECT max(name) AS m FROM read_csv('people.tsv', sep='\t')"),
        "m\nEd\n"
    );
}

#[test]
fn parquet_by_extension_and_read_parquet() {
    let env = Env::new();
    let p = data("people.parquet");
    let from = format!("'{}'", p.display());
    assert_eq!(
        env.query(&format!(
            "SELECT country, count(*) AS n, sum(score) AS s FROM {from} \
             GROUP BY country ORDER BY country"
        )),
        "country,n,s\nDE,1,\nFR,1,4.00\nNL,3,4.00\n"
    );
    assert_eq!(
        env.query(&format!(
            "SELECT count(*) AS n, sum(id) AS s FROM read_parquet([{from}, {from}])"
        )),
        "n,s\n10,30\n"
    );
    assert_eq!(
        env.query(&format!(
            "SELECT name FROM parquet_scan({from}) WHERE id = 4"
        )),
        "name\nDee\n"
    );
}

#[test]
fn parquet_loads_the_columns_queries_name() {
    let env = Env::new();
    let from = format!("'{}'", data("people.parquet").display());
    assert_eq!(
        env.query(&format!("SELECT count(*) AS n FROM {from}")),
        "n\n5\n"
    );
    // No column is needed: only the row counts were loaded.
    assert!(env.cache_cmd(&["list"]).contains("(0 columns)"));
    assert_eq!(
        env.query(&format!("SELECT count(*) AS n FROM {from} WHERE 1 = 1")),
        "n\n5\n"
    );
    assert_eq!(env.entries().len(), 1);
    assert_eq!(
        env.query(&format!(
            "SELECT max(\"Name\") AS m FROM {from} WHERE id < 4"
        )),
        "m\nCy\n"
    );
    let list = env.cache_cmd(&["list"]);
    assert!(list.contains("(2 columns)"), "{list}");
    // The smaller entry was replaced by the union.
    assert_eq!(env.entries().len(), 1);
    assert_eq!(
        env.query(&format!("SELECT * FROM {from} WHERE country = 'FR'")),
        "id,name,score,country\n4,Dee,4.00,FR\n"
    );
    assert_eq!(env.entries().len(), 1);
    assert!(!env.cache_cmd(&["list"]).contains("columns)"));
    // Everything is loaded now: no new entry for other columns.
    assert_eq!(
        env.query(&format!("SELECT min(score) AS s FROM {from}")),
        "s\n0.25\n"
    );
    assert_eq!(env.entries().len(), 1);
}

/// `SELECT columns FROM file LIMIT n` (no WHERE, ORDER BY or aggregate)
/// loads only the first rows, into an entry of their own that answers
/// nothing else; a complete entry answers it when there is one.
#[test]
fn a_query_of_the_first_rows_loads_only_them() {
    let env = Env::new();
    let from = format!("'{}'", data("people.parquet").display());
    assert_eq!(
        env.query(&format!("SELECT * FROM {from} LIMIT 2")),
        "id,name,score,country\n1,Ann,1.50,NL\n2,Bob,,DE\n"
    );
    assert!(env.cache_cmd(&["list"]).contains("head=2"));
    assert_eq!(
        env.query(&format!("SELECT name FROM {from} LIMIT 1 OFFSET 3")),
        "name\nDee\n"
    );
    let list = env.cache_cmd(&["list"]);
    assert!(list.contains("head=4 (1 columns)"), "{list}");
    // Other queries read the whole file, not the first rows.
    assert_eq!(
        env.query(&format!("SELECT count(*) AS n, max(id) AS m FROM {from}")),
        "n,m\n5,5\n"
    );
    assert_eq!(
        env.query(&format!("SELECT name FROM {from} ORDER BY id DESC LIMIT 1")),
        "name\nEd\n"
    );
    assert_eq!(
        env.query(&format!("SELECT * FROM {from} WHERE id > 0"))
            .lines()
            .count(),
        6
    );
    // With every column loaded, the complete entry answers.
    let before = env.entries().len();
    assert_eq!(
        env.query(&format!("SELECT id, name FROM {from} LIMIT 3")),
        "id,name\n1,Ann\n2,Bob\n3,Cy\n"
    );
    assert_eq!(env.entries().len(), before);
    // Text inputs too (read a block at a time: types are inferred from the
    // same sample as a whole load).
    let csv = env.write("people.csv", PEOPLE);
    assert_eq!(
        env.query(&format!("SELECT * FROM '{}' LIMIT 2", csv.display())),
        "id,name,score,country\n1,Ann,1.5,NL\n2,Bob,,DE\n"
    );
    assert!(env.cache_cmd(&["list"]).contains("head=2"));
}

/// `... WHERE ... LIMIT n` tries the file's first 2^19 rows: enough matches
/// there are the answer; too few, and the whole file answers.
#[test]
fn filtered_first_rows_try_the_start_of_the_file() {
    let env = Env::new();
    let mut text = String::from("n\n");
    for i in 0..600_000 {
        text.push_str(&format!("{i}\n"));
    }
    let csv = env.write("numbers.csv", &text);
    let from = format!("'{}'", csv.display());
    assert_eq!(
        env.query(&format!(
            "SELECT n FROM {from} WHERE n % 100000 = 0 LIMIT 3"
        )),
        "n\n0\n100000\n200000\n"
    );
    let list = env.cache_cmd(&["list"]);
    assert!(list.contains("head=524288"), "{list}");
    assert_eq!(env.entries().len(), 1);
    // Not enough matches in the first rows: the whole file is loaded.
    assert_eq!(
        env.query(&format!("SELECT n FROM {from} WHERE n >= 599998 LIMIT 5")),
        "n\n599998\n599999\n"
    );
    assert_eq!(env.entries().len(), 2);
    assert_eq!(
        env.query(&format!(
            "SELECT n FROM {from} WHERE n % 100000 = 0 LIMIT 2 OFFSET 5"
        )),
        "n\n500000\n"
    );
}

#[test]
fn read_csv_options() {
    let env = Env::new();
    env.write("semi.txt", "1;a;NA\n2;b;3.5\n3;NA;1.25\n");
    // No header, given columns (with a DECIMAL), a NULL string, ';'.
    assert_eq!(
        env.query(
            "SELECT count(*) AS n, count(v) AS nv, sum(v) AS s, count(k) AS nk, \
             max(id) AS m FROM read_csv('semi.txt', delim=';', header=false, nullstr='NA', \
             columns={'id': 'INTEGER', 'k': 'VARCHAR', 'v': 'DECIMAL(3,1)'})"
        ),
        "n,nv,s,nk,m\n3,2,4.8,2,3\n"
    );
    // 1.25 as DECIMAL(3,1) rounds to 1.3 (as DuckDB does): 3.5 + 1.3.
    // Other spellings: sep, header=0, nullstr as a list, auto_detect=false.
    assert_eq!(
        env.query(
            "SELECT sum(v) AS s, min(k) AS k FROM read_csv('semi.txt', sep=';', header=0, \
             nullstr=['NA'], auto_detect=false, \
             columns={'id': 'BIGINT', 'k': 'TEXT', 'v': 'DECIMAL(3,1)'})"
        ),
        "s,k\n4.8,a\n"
    );
    // header=true with columns: the first line is skipped, names from columns.
    env.write("h.csv", "x,y\n10,20\n30,40\n");
    assert_eq!(
        env.query(
            "SELECT sum(b) AS s FROM read_csv('h.csv', header=true, \
             columns={'a': 'INTEGER', 'b': 'INTEGER'})"
        ),
        "s\n60\n"
    );
    // Without a header every line is data; inferred names are column0...
    env.write("nohead.csv", "10,20\n30,40\n");
    assert_eq!(
        env.query("SELECT count(*) AS n FROM read_csv('nohead.csv', header=false)"),
        "n\n2\n"
    );
    // Globs, in FROM and in read_csv.
    env.write("parts/a.csv", "v\n1\n2\n");
    env.write("parts/b.csv", "v\n30\n");
    assert_eq!(
        env.query("SELECT sum(v) AS s FROM 'parts/*.csv'"),
        "s\n33\n"
    );
    assert_eq!(
        env.query("SELECT count(*) AS n FROM read_csv(['parts/a.csv', 'parts/b.csv'])"),
        "n\n3\n"
    );
}

#[test]
fn bad_arguments_are_named() {
    let env = Env::new();
    env.write("people.csv", PEOPLE);
    let err = fails(&env.query_with(&[], "SELECT 1 FROM read_csv('people.csv', quote='\"')"));
    assert!(err.contains("\"quote\""), "{err}");
    let err = fails(&env.query_with(&[], "SELECT 1 FROM read_csv('people.csv', delim=';;')"));
    assert!(err.contains("delim"), "{err}");
    let err = fails(&env.query_with(
        &[],
        "SELECT 1 FROM read_csv('people.csv', columns={'a': 'WIDGET'})",
    ));
    assert!(err.contains("columns"), "{err}");
    let err = fails(&env.query_with(&[], "SELECT 1 FROM read_parquet('x.parquet', foo=1)"));
    assert!(err.contains("\"foo\""), "{err}");
    let err = fails(&env.query_with(&[], "SELECT 1 FROM read_cvs('people.csv')"));
    assert!(err.contains("read_csv"), "{err}");
    // A value that does not fit the given column type (only the columns
    // a query reads are loaded, and checked).
    let err = fails(&env.query_with(
        &[],
        "SELECT sum(b) FROM read_csv('people.csv', columns={'a': 'INTEGER', 'b': 'INTEGER', \
         'c': 'INTEGER', 'd': 'INTEGER'})",
    ));
    assert!(err.contains("people.csv"), "{err}");
    assert!(env.entries().is_empty(), "a failed load leaves no entry");
}

#[test]
fn a_changed_file_is_loaded_again() {
    let env = Env::new();
    let f = env.write("v.csv", "v\n1\n2\n");
    assert_eq!(env.query("SELECT sum(v) AS s FROM 'v.csv'"), "s\n3\n");
    assert_eq!(env.query("SELECT sum(v) AS s FROM 'v.csv'"), "s\n3\n");
    assert_eq!(env.entries().len(), 1);
    // Same size, new content and modification time.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&f, "v\n5\n7\n").unwrap();
    assert_eq!(env.query("SELECT sum(v) AS s FROM 'v.csv'"), "s\n12\n");
    // Same size and content change with the modification time set back to
    // the old one would not be seen: the key is size and mtime. A new size
    // with the old mtime is seen.
    let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
    std::fs::write(&f, "v\n5\n7\n100\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(env.query("SELECT sum(v) AS s FROM 'v.csv'"), "s\n112\n");
    // The stale entries were dropped.
    assert_eq!(env.entries().len(), 1);
}

#[test]
fn a_deleted_file_is_an_error_not_a_stale_answer() {
    let env = Env::new();
    let f = env.write("gone.csv", "v\n1\n");
    assert_eq!(env.query("SELECT sum(v) AS s FROM 'gone.csv'"), "s\n1\n");
    std::fs::remove_file(&f).unwrap();
    let err = fails(&env.query_with(&[], "SELECT sum(v) AS s FROM 'gone.csv'"));
    assert!(err.contains("gone.csv"), "{err}");
    assert!(err.contains("No such file"), "{err}");
    // And a glob that no longer matches anything.
    let err = fails(&env.query_with(&[], "SELECT 1 FROM 'gon*.csv'"));
    assert!(err.contains("no file matches"), "{err}");
}

#[test]
fn two_processes_load_the_same_new_file_at_once() {
    let env = Env::new();
    let n: u64 = 300_000;
    let mut text = String::from("id,g\n");
    for i in 0..n {
        text.push_str(&format!("{i},{}\n", i % 7));
    }
    env.write("big.csv", &text);
    let sql = "SELECT count(*) AS n, sum(id) AS s, count(DISTINCT g) AS d FROM 'big.csv'";
    let spawn = || {
        env.strata()
            .args(["query", "--format", "csv", "--threads", "2", "--cache-dir"])
            .arg(env.cache())
            .arg(sql)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let expected = format!("n,s,d\n{n},{},7\n", n * (n - 1) / 2);
    assert_eq!(ok(&a), expected);
    assert_eq!(ok(&b), expected);
    // One complete entry, no lock or temporary directory left, and it
    // answers again.
    let entries = env.entries();
    assert_eq!(entries.len(), 1);
    let names: Vec<String> = std::fs::read_dir(&entries[0])
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n == "LOCK" || n.starts_with('.')),
        "{names:?}"
    );
    assert_eq!(env.query(sql), expected);
    let verify = env
        .strata()
        .arg("verify")
        .arg(entries[0].join("table"))
        .output()
        .unwrap();
    ok(&verify);
}

/// Total bytes under `dir`.
fn du(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                du(&e.path())
            } else {
                e.metadata().unwrap().len()
            }
        })
        .sum()
}

#[test]
fn a_full_cache_evicts_the_least_recently_used_entry() {
    let env = Env::new();
    for name in ["a", "b", "c"] {
        env.write(&format!("{name}.csv"), "v\n1\n2\n3\n");
    }
    env.query("SELECT sum(v) FROM 'a.csv'");
    let one = du(&env.cache());
    // Room for two entries, not three.
    let limit = (one * 5 / 2).to_string();
    let q = |f: &str| {
        ok(&env.query_with(
            &["--cache-size", &limit],
            &format!("SELECT sum(v) AS s FROM '{f}'"),
        ))
    };
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(q("b.csv"), "s\n6\n");
    std::thread::sleep(Duration::from_millis(20));
    // a is used again: b is now the least recently used.
    assert_eq!(q("a.csv"), "s\n6\n");
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(q("c.csv"), "s\n6\n");
    let list = env.cache_cmd(&["list"]);
    assert!(list.contains("a.csv"), "{list}");
    assert!(!list.contains("b.csv"), "{list}");
    assert!(list.contains("c.csv"), "{list}");
    assert_eq!(env.entries().len(), 2);
}

#[test]
fn cache_list_and_clear() {
    let env = Env::new();
    env.write("a.csv", "v\n1\n");
    env.write("b.csv", "v\n2\n");
    env.query("SELECT sum(v) FROM 'a.csv'");
    env.query("SELECT count(*) FROM read_csv('a.csv', header=false, columns={'x': 'VARCHAR'})");
    env.query("SELECT sum(v) FROM 'b.csv'");
    let list = env.cache_cmd(&["list"]);
    let a = std::fs::canonicalize(env.path("a.csv")).unwrap();
    assert_eq!(list.lines().count(), 4, "{list}");
    assert!(list.contains(&a.display().to_string()), "{list}");
    assert!(list.contains("csv delim=',' header=auto"), "{list}");
    assert!(list.contains("columns={'x': 'VARCHAR'}"), "{list}");
    assert!(list.contains("s ago"), "{list}");
    // Clear one file's entries (by a relative path), then all.
    let out = env
        .strata()
        .args(["cache", "clear", "a.csv", "--cache-dir"])
        .arg(env.cache())
        .output()
        .unwrap();
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed 2 entries"));
    let list = env.cache_cmd(&["list"]);
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(list.contains("b.csv"), "{list}");
    env.cache_cmd(&["clear"]);
    assert!(env.entries().is_empty());
    assert_eq!(env.cache_cmd(&["list"]), "");
}

#[test]
fn default_and_temporary_caches() {
    let env = Env::new();
    env.write("a.csv", "v\n4\n");
    // Without --cache-dir: $XDG_CACHE_HOME/strata.
    let out = env
        .strata()
        .args([
            "query",
            "--format",
            "csv",
            "SELECT sum(v) AS s FROM 'a.csv'",
        ])
        .output()
        .unwrap();
    assert_eq!(ok(&out), "s\n4\n");
    assert!(env.path("xdg/strata").read_dir().unwrap().count() >= 1);
    // --no-cache leaves nothing behind.
    std::fs::create_dir_all(env.path("tmp")).unwrap();
    let out = env
        .strata()
        .args([
            "query",
            "--no-cache",
            "--format",
            "csv",
            "SELECT sum(v) AS s FROM 'a.csv'",
        ])
        .env("TMPDIR", env.path("tmp"))
        .output()
        .unwrap();
    assert_eq!(ok(&out), "s\n4\n");
    assert_eq!(env.path("tmp").read_dir().unwrap().count(), 0);
    assert!(!env.cache().exists());
}

#[test]
fn strata_tables_by_quoted_path_still_work() {
    let env = Env::new();
    env.write("p.csv", PEOPLE);
    let out = env
        .strata()
        .args(["ingest", "--no-sync", "--table", "people.csv", "p.csv"])
        .output()
        .unwrap();
    ok(&out);
    // A table directory named like a file is a table, not a file to load.
    assert_eq!(
        env.query("SELECT count(*) AS n FROM 'people.csv'"),
        "n\n5\n"
    );
    assert!(env.entries().is_empty());
}

#[test]
fn library_queries_files_in_place() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let env = Env::new();
    let csv = env.write("people.csv", PEOPLE);
    let loads = Arc::new(AtomicUsize::new(0));
    let counter = loads.clone();
    let db = strata::Database::open_with(
        env.dir.path(),
        strata::Options::new().threads(2).cache_dir(env.cache()),
    )
    .unwrap()
    .on_load(move |e| {
        if let strata::LoadEvent::Finished { rows, .. } = e {
            assert_eq!(*rows, Some(5));
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    let sql = format!(
        "SELECT count(*) AS n, sum(id) AS s FROM read_csv('{}', delim=',')",
        csv.display()
    );
    for _ in 0..2 {
        let r = db.query(&sql).unwrap();
        let rows: Vec<Vec<String>> = r.rows().map(|row| row.strings()).collect();
        assert_eq!(rows, vec![vec!["5".to_string(), "15".to_string()]]);
    }
    assert_eq!(
        loads.load(Ordering::SeqCst),
        1,
        "the second query used the cache"
    );
    assert_eq!(db.cache().entries().unwrap().len(), 1);
    let t = db.table(&csv.display().to_string()).unwrap();
    assert_eq!(t.num_rows(), 5);
    std::fs::remove_file(&csv).unwrap();
    match db.query(&sql) {
        Err(strata::Error::Source(e)) => assert!(e.to_string().contains("people.csv"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(db.cache().clear(None).unwrap(), 1);

    // A temporary cache disappears with the database.
    let t = env.write("t.csv", "v\n1\n");
    let db = strata::Database::open_with(env.dir.path(), strata::Options::new().temporary_cache())
        .unwrap();
    let r = db
        .query(&format!("SELECT sum(v) FROM '{}'", t.display()))
        .unwrap();
    assert_eq!(r.rows().next().unwrap().strings(), vec!["1".to_string()]);
    let dir = db.cache().dir().to_path_buf();
    assert!(dir.exists());
    drop(db);
    assert!(!dir.exists());
}
