//! End-to-end tests of `strata ingest`: the real binary on small files of each
//! format and dialect, read back with the format crate's reader.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{hidden_entries, strata};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use strata_format::types::{float_key, signed_from_key};
use strata_format::{RowValues, Table};

/// Runs `strata ingest --no-sync ARGS...`.
fn ingest(args: &[&str]) -> Output {
    strata()
        .arg("ingest")
        .arg("--no-sync")
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: &Output) -> (String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "failed:\n{stderr}");
    (stdout, stderr)
}

fn failed(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "succeeded unexpectedly:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn shared(rel: &str) -> String {
    format!("{}/../../shared/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    format!("{}/../ingest/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().unwrap())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    fn file(&self, name: &str, content: &[u8]) -> String {
        let p = self.path(name);
        std::fs::write(&p, content).unwrap();
        p.to_str().unwrap().to_string()
    }

    fn s(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }
}

/// A column's values in row order across all blocks.
fn column(table: &Path, name: &str) -> RowValues {
    let t = Table::open(table).unwrap();
    let col = t.schema().index_of(name).unwrap();
    let mut keys = Vec::new();
    let mut strings = Vec::new();
    for b in 0..t.num_blocks() {
        match t.chunk(b, col).unwrap().row_values().unwrap() {
            RowValues::Keys(k) => keys.extend(k),
            RowValues::Strings(s) => strings.extend(s),
        }
    }
    if t.schema().fields[col].data_type.is_string() {
        RowValues::Strings(strings)
    } else {
        RowValues::Keys(keys)
    }
}

fn ints(table: &Path, name: &str) -> Vec<Option<i64>> {
    match column(table, name) {
        RowValues::Keys(k) => k.into_iter().map(|k| k.map(signed_from_key)).collect(),
        RowValues::Strings(_) => panic!("{name} is a string column"),
    }
}

fn strs(table: &Path, name: &str) -> Vec<Option<String>> {
    match column(table, name) {
        RowValues::Strings(s) => s
            .into_iter()
            .map(|v| v.map(|b| String::from_utf8_lossy(&b).into_owned()))
            .collect(),
        RowValues::Keys(_) => panic!("{name} is not a string column"),
    }
}

fn rows(table: &Path) -> u64 {
    Table::open(table).unwrap().num_rows()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

#[test]
fn csv_with_header_infers_and_prints_the_schema() {
    let d = Dir::new();
    let csv = d.file(
        "people.csv",
        b"id,name,born,score,seen\n1,Ann,1990-01-02,1.5,2013-07-15 10:00:00\n2,\"Smith, Bob\",,2,2013-07-15T11:00:00\n",
    );
    let table = d.path("people");
    let (stdout, stderr) = ok(&ingest(&["--table", table.to_str().unwrap(), &csv]));
    assert!(stdout.contains("CREATE TABLE people"), "{stdout}");
    assert!(stdout.contains("id BIGINT NOT NULL"), "{stdout}");
    assert!(stdout.contains("born DATE,"), "{stdout}");
    assert!(stdout.contains("score DOUBLE NOT NULL"), "{stdout}");
    assert!(stdout.contains("seen TIMESTAMP NOT NULL"), "{stdout}");
    assert!(stderr.contains("ingested 2 rows"), "{stderr}");
    assert_eq!(rows(&table), 2);
    assert_eq!(strs(&table, "name"), vec![s("Ann"), s("Smith, Bob")]);
    assert_eq!(ints(&table, "born"), vec![Some(7306), None]);
    // The printed schema is a valid --schema.
    let schema = d.file("people.sql", stdout.as_bytes());
    let again = d.path("again");
    ok(&ingest(&[
        "--table",
        again.to_str().unwrap(),
        "--schema",
        &schema,
        &csv,
    ]));
    assert_eq!(rows(&again), 2);
}

#[test]
fn csv_quoting_per_rfc_4180() {
    let d = Dir::new();
    let schema = d.file(
        "s.sql",
        b"CREATE TABLE t (a INTEGER NOT NULL, b TEXT, c TEXT NOT NULL)",
    );
    let csv = d.file(
        "q.csv",
        b"a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\r\n2,\"multi\nline\",\"\"\r\n3,,plain\r\n",
    );
    let table = d.path("t");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        &csv,
    ]));
    assert_eq!(strs(&table, "b"), vec![s("x,y"), s("multi\nline"), None]);
    assert_eq!(strs(&table, "c"), vec![s("say \"hi\""), s(""), s("plain")]);
    assert_eq!(ints(&table, "a"), vec![Some(1), Some(2), Some(3)]);
}

#[test]
fn tsv_clickhouse_style_with_escapes_and_nulls() {
    let d = Dir::new();
    let schema = d.file(
        "s.sql",
        b"CREATE TABLE hits (WatchID Int64, EventTime DateTime, EventDate Date, URL String,
          Referer Nullable(String), Price Nullable(Decimal(10, 2)), Flag UInt8)
          ENGINE = MergeTree ORDER BY (EventDate) SETTINGS index_granularity = 8192",
    );
    let tsv = d.file(
        "hits.tsv",
        b"1\t2013-07-15 10:00:00\t2013-07-15\thttp://a/\\tb\\nc\t\\N\t12.34\t1\n\
          -2\t2013-07-14 20:38:47\t2013-07-15\tback\\\\slash\tref\t\\N\t255\n",
    );
    let table = d.path("hits");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        &tsv,
    ]));
    assert_eq!(ints(&table, "WatchID"), vec![Some(1), Some(-2)]);
    assert_eq!(
        ints(&table, "EventTime"),
        vec![Some(1_373_882_400_000_000), Some(1_373_834_327_000_000)]
    );
    assert_eq!(
        strs(&table, "URL"),
        vec![s("http://a/\tb\nc"), s("back\\slash")]
    );
    assert_eq!(strs(&table, "Referer"), vec![None, s("ref")]);
    assert_eq!(ints(&table, "Price"), vec![Some(1234), None]);
    match column(&table, "Flag") {
        RowValues::Keys(k) => assert_eq!(k, vec![Some(1), Some(255)]),
        RowValues::Strings(_) => panic!(),
    }
}

#[test]
fn compressed_globbed_and_stdin_inputs() {
    let d = Dir::new();
    let schema = d.file(
        "s.sql",
        b"CREATE TABLE t (n BIGINT NOT NULL, s TEXT NOT NULL)",
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"1\tone\n2\ttwo\n").unwrap();
    d.file("part1.tsv.gz", &gz.finish().unwrap());
    d.file(
        "part2.tsv.zst",
        &zstd::encode_all(&b"3\tthree\n"[..], 3).unwrap(),
    );
    d.file("part3.tsv", b"4\tfour\n");
    let table = d.path("t");
    let glob = d.s("part*");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        "--format",
        "tsv",
        &glob,
    ]));
    assert_eq!(ints(&table, "n"), vec![Some(1), Some(2), Some(3), Some(4)]);

    // Standard input, compressed, with an explicit format.
    let table2 = d.path("t2");
    let mut child = strata()
        .args([
            "ingest",
            "--no-sync",
            "--format",
            "tsv",
            "--schema",
            &schema,
        ])
        .arg("--table")
        .arg(&table2)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let data = zstd::encode_all(&b"5\tfive\n6\tsix\n"[..], 3).unwrap();
    child.stdin.take().unwrap().write_all(&data).unwrap();
    ok(&child.wait_with_output().unwrap());
    assert_eq!(strs(&table2, "s"), vec![s("five"), s("six")]);
}

#[test]
fn delimiter_null_string_and_header_flags() {
    let d = Dir::new();
    let schema = d.file("s.sql", b"CREATE TABLE t (a INT, b VARCHAR)");
    let psv = d.file("x.txt", b"1|NULL\nNULL|\"a|b\"\n");
    let table = d.path("t");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        "--format",
        "csv",
        "--delimiter",
        "|",
        "--null",
        "NULL",
        "--no-header",
        &psv,
    ]));
    assert_eq!(ints(&table, "a"), vec![Some(1), None]);
    assert_eq!(strs(&table, "b"), vec![None, s("a|b")]);
}

#[test]
fn clickbench_sample_parquet_with_both_ddls_and_without() {
    let sample = shared("clickbench/sample/clickbench_hits_10.parquet");
    let d = Dir::new();
    for ddl in ["create-clickhouse.sql", "create-duckdb.sql"] {
        let table = d.path(ddl);
        let schema = shared(&format!("clickbench/{ddl}"));
        ok(&ingest(&[
            "--table",
            table.to_str().unwrap(),
            "--schema",
            &schema,
            &sample,
        ]));
        assert_eq!(rows(&table), 10);
        assert!(ints(&table, "EventDate").iter().all(|&d| d == Some(15901)));
        let t = ints(&table, "EventTime");
        assert!(t.iter().all(
            |t| t.is_some_and(|t| (1_373_832_000_000_000..1_373_918_400_000_000).contains(&t))
        ));
        let counters = ints(&table, "CounterID");
        assert_eq!(counters.iter().filter(|&&c| c == Some(17)).count(), 9);
    }
    let table = d.path("natural");
    let (stdout, _) = ok(&ingest(&["--table", table.to_str().unwrap(), &sample]));
    assert!(stdout.contains("EventDate USMALLINT"), "{stdout}");
    assert_eq!(rows(&table), 10);
}

#[test]
fn parquet_from_pyarrow_and_duckdb_writers() {
    let d = Dir::new();
    for (i, f) in [
        "types_snappy.parquet",
        "types_zstd.parquet",
        "types_lz4.parquet",
        "types_gzip.parquet",
        "types_none.parquet",
        "types_plain_v2.parquet",
    ]
    .iter()
    .enumerate()
    {
        let table = d.path(&format!("t{i}"));
        ok(&ingest(&[
            "--table",
            table.to_str().unwrap(),
            "--block-rows",
            "3",
            &fixture(f),
        ]));
        assert_eq!(rows(&table), 10, "{f}");
        // Microseconds: the file's milliseconds kept.
        assert_eq!(ints(&table, "ts_ms")[0], Some(1_373_834_327_123_000), "{f}");
        assert_eq!(
            ints(&table, "dec9")[..3],
            [Some(12345), Some(-1), None],
            "{f}"
        );
        assert_eq!(strs(&table, "s")[..3], [s("hello"), s(""), None], "{f}");
        match column(&table, "f64") {
            RowValues::Keys(k) => assert_eq!(k[0], Some(float_key(1.5))),
            RowValues::Strings(_) => panic!(),
        }
    }
    let table = d.path("duck");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        &fixture("duckdb.parquet"),
    ]));
    assert_eq!(rows(&table), 2100);
    let names = strs(&table, "name");
    assert_eq!(names.iter().filter(|n| n.is_none()).count(), 700);
}

#[test]
fn nested_parquet_is_refused() {
    let d = Dir::new();
    let table = d.path("t");
    let err = failed(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        &fixture("nested.parquet"),
    ]));
    assert!(err.contains("tags") && err.contains("nested"), "{err}");
    assert!(!table.exists());
}

/// Each malformed case fails, names file, line, column and value, and leaves
/// no table.
#[test]
fn malformed_rows_fail_cleanly() {
    let d = Dir::new();
    let schema = d.file(
        "s.sql",
        b"CREATE TABLE t (id SMALLINT NOT NULL, day DATE, name TEXT NOT NULL)",
    );
    let cases: [(&str, &[u8], &[&str]); 6] = [
        (
            "fields.csv",
            b"id,day,name\n1,2013-07-15,a\n2,2013-07-15\n",
            &["fields.csv", "line 3", "expected 3 fields, found 2"],
        ),
        (
            "number.csv",
            b"id,day,name\n1,,a\n12x,,b\n",
            &["line 3", "column id", "not a valid SMALLINT", "12x"],
        ),
        (
            "range.csv",
            b"id,day,name\n40000,,a\n",
            &["line 2", "column id", "out of range", "40000"],
        ),
        (
            "date.csv",
            b"id,day,name\n1,2013-02-30,a\n",
            &["line 2", "column day", "not a valid DATE", "2013-02-30"],
        ),
        (
            "quote.csv",
            b"id,day,name\n1,,\"abc\"def\n",
            &["line 2", "closing quote"],
        ),
        (
            "null.tsv",
            b"1\t\\N\t\\N\n",
            &[
                "null.tsv",
                "line 1",
                "column name",
                "NULL in a NOT NULL column",
            ],
        ),
    ];
    for (name, content, expected) in cases {
        let input = d.file(name, content);
        let table = d.path(&format!("table-{name}"));
        let err = failed(&ingest(&[
            "--table",
            table.to_str().unwrap(),
            "--schema",
            &schema,
            &input,
        ]));
        for e in expected {
            assert!(err.contains(e), "{name}: {e:?} not in:\n{err}");
        }
        assert!(err.contains("no table was created"), "{err}");
        assert!(!table.exists(), "{name}");
        let leftovers: Vec<_> = std::fs::read_dir(d.0.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "{name}: {leftovers:?}");
    }
    // Unterminated quote at the end of the input.
    let input = d.file("open.csv", b"id,day,name\n1,,\"abc\n2,,x\n");
    let err = failed(&ingest(&[
        "--table",
        &d.s("open"),
        "--schema",
        &schema,
        &input,
    ]));
    assert!(err.contains("unterminated quoted field"), "{err}");
}

#[test]
fn max_errors_skips_and_reports_bad_rows() {
    let d = Dir::new();
    let schema = d.file("s.sql", b"CREATE TABLE t (id INT NOT NULL)");
    let input = d.file("x.csv", b"id\n1\nbad\n3\nworse\n5\n");
    let table = d.path("t");
    let (_, stderr) = ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        "--max-errors",
        "2",
        "--block-rows",
        "2",
        &input,
    ]));
    assert!(stderr.contains("skipped 2 bad rows"), "{stderr}");
    assert!(
        stderr.contains("line 3") && stderr.contains("line 5"),
        "{stderr}"
    );
    assert_eq!(ints(&table, "id"), vec![Some(1), Some(3), Some(5)]);

    let err = failed(&ingest(&[
        "--table",
        d.s("t2").as_str(),
        "--schema",
        &schema,
        "--max-errors",
        "1",
        &input,
    ]));
    assert!(
        err.contains("2 bad rows, more than --max-errors 1"),
        "{err}"
    );
    assert!(!d.path("t2").exists());
}

#[test]
fn append_adds_rows_atomically() {
    let d = Dir::new();
    let schema = d.file("s.sql", b"CREATE TABLE t (id INT NOT NULL, s TEXT)");
    let a = d.file("a.csv", b"id,s\n1,x\n2,y\n");
    let b = d.file("b.csv", b"id,s\n3,z\n");
    let bad = d.file("bad.csv", b"id,s\n4,ok\nnope,z\n");
    let table = d.path("t");
    let t = table.to_str().unwrap();
    ok(&ingest(&["--table", t, "--schema", &schema, &a]));
    // Creating over an existing table is refused.
    let err = failed(&ingest(&["--table", t, &b]));
    assert!(err.contains("already exists"), "{err}");
    let (_, stderr) = ok(&ingest(&["--table", t, "--append", &b]));
    assert!(stderr.contains("the table now has 3 rows"), "{stderr}");
    assert_eq!(ints(&table, "id"), vec![Some(1), Some(2), Some(3)]);
    // A failed append leaves the table as it was.
    let err = failed(&ingest(&[
        "--table",
        t,
        "--append",
        "--block-rows",
        "1",
        &bad,
    ]));
    assert!(err.contains("the table is unchanged"), "{err}");
    assert_eq!(ints(&table, "id"), vec![Some(1), Some(2), Some(3)]);
    // Appending to a table that does not exist fails.
    failed(&ingest(&["--table", d.s("none").as_str(), "--append", &b]));
}

#[test]
fn block_boundaries() {
    let d = Dir::new();
    let schema = d.file("s.sql", b"CREATE TABLE t (n BIGINT NOT NULL)");
    let block = 1usize << 19;
    for total in [block - 1, block, block + 1] {
        let mut text = Vec::with_capacity(total * 8);
        for i in 0..total {
            writeln!(text, "{i}").unwrap();
        }
        let input = d.file(&format!("n{total}.tsv"), &text);
        let table = d.path(&format!("t{total}"));
        ok(&ingest(&[
            "--table",
            table.to_str().unwrap(),
            "--schema",
            &schema,
            &input,
        ]));
        let t = Table::open(&table).unwrap();
        assert_eq!(t.num_rows(), total as u64);
        assert_eq!(t.num_blocks(), total.div_ceil(block));
        let n = ints(&table, "n");
        assert_eq!(n.first(), Some(&Some(0)));
        assert_eq!(n.last(), Some(&Some(total as i64 - 1)));
    }
    // Tiny blocks: 9 rows in blocks of 4.
    let input = d.file("nine.tsv", b"1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let table = d.path("nine");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        "--block-rows",
        "4",
        &input,
    ]));
    assert_eq!(Table::open(&table).unwrap().num_blocks(), 3);
    assert_eq!(ints(&table, "n"), (1..=9).map(Some).collect::<Vec<_>>());
}

#[test]
fn interrupted_ingest_leaves_no_table() {
    let d = Dir::new();
    let schema = d.file("s.sql", b"CREATE TABLE t (n BIGINT NOT NULL)");
    let table = d.path("t");
    let mut child = strata()
        .args([
            "ingest",
            "--no-sync",
            "--format",
            "tsv",
            "--block-rows",
            "1000",
        ])
        .args(["--schema", &schema])
        .arg("--table")
        .arg(&table)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut chunk = Vec::new();
    for i in 0..10_000 {
        writeln!(chunk, "{i}").unwrap();
    }
    stdin.write_all(&chunk).unwrap();
    stdin.flush().unwrap();
    // Wait until blocks are being written, then kill it mid-ingest.
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(20) {
        let writing = std::fs::read_dir(d.0.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| {
                e.file_name().to_string_lossy().contains(".tmp-")
                    && std::fs::read_dir(e.path()).is_ok_and(|mut r| r.next().is_some())
            });
        if writing {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    assert!(!table.exists());
    assert!(Table::open(&table).is_err());
}

#[test]
fn usage_errors() {
    let d = Dir::new();
    let table = d.s("t");
    let err = failed(&ingest(&["--table", &table, &d.s("missing.csv")]));
    assert!(err.contains("missing.csv"), "{err}");
    let x = d.file("x.dat", b"1\n");
    let err = failed(&ingest(&["--table", &table, &x]));
    assert!(err.contains("--format"), "{err}");
    let err = failed(&ingest(&["--table", &table, &d.s("*.nothing")]));
    assert!(err.contains("no file matches"), "{err}");
    let bad_schema = d.file("bad.sql", b"CREATE TABLE t (x HUGEINT)");
    let csv = d.file("y.csv", b"x\n1\n");
    let err = failed(&ingest(&["--table", &table, "--schema", &bad_schema, &csv]));
    assert!(err.contains("bad.sql") && err.contains("column x"), "{err}");
}

/// A CSV of `n` rows `a,b,id`: `a` a few integers with NULLs, `b` a few
/// strings, `id` the row number; and the rows as parsed values.
#[allow(clippy::type_complexity)]
fn sortable_csv(n: usize) -> (String, Vec<(Option<i64>, String, i64)>) {
    let mut csv = String::from("a,b,id\n");
    let mut rows = Vec::new();
    let mut x: u64 = 12345;
    for id in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = match (x >> 33) % 9 {
            0 => None,
            v => Some(v as i64 * 1000 - 4000),
        };
        let b = ["pear", "apple", "", "fig", "apple pie"][((x >> 40) % 5) as usize].to_string();
        csv.push_str(&format!(
            "{},\"{b}\",{id}\n",
            a.map_or(String::new(), |a| a.to_string())
        ));
        rows.push((a, b, id as i64));
    }
    (csv, rows)
}

#[test]
fn sort_by_orders_rows_stably_across_blocks_with_nulls_last() {
    let d = Dir::new();
    let (csv, mut want) = sortable_csv(5000);
    let input = d.file("in.csv", csv.as_bytes());
    let table = d.path("t");
    let out = ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--block-rows",
        "700",
        "--sort-by",
        "a,B",
        &input,
    ]);
    let (_, stderr) = ok(&out);
    assert!(stderr.contains("rows sorted by a, b"), "{stderr}");
    // A stable sort by (a NULLS LAST, b): ties keep input order.
    want.sort_by(|x, y| (x.0.is_none(), x.0, &x.1).cmp(&(y.0.is_none(), y.0, &y.1)));
    assert_eq!(rows(&table), 5000);
    assert_eq!(
        ints(&table, "a"),
        want.iter().map(|r| r.0).collect::<Vec<_>>()
    );
    assert_eq!(
        strs(&table, "b"),
        want.iter().map(|r| s(&r.1)).collect::<Vec<_>>()
    );
    assert_eq!(
        ints(&table, "id"),
        want.iter().map(|r| Some(r.2)).collect::<Vec<_>>()
    );
    assert_eq!(hidden_entries(d.0.path()), Vec::<String>::new());
}

#[test]
fn schema_order_by_sorts_unless_no_sort() {
    let d = Dir::new();
    let (csv, rows_in) = sortable_csv(3000);
    let input = d.file("in.csv", csv.as_bytes());
    // ClickHouse sorts by ORDER BY; strata by its leading plain columns.
    let schema = d.file(
        "s.sql",
        b"CREATE TABLE t (a Nullable(Int64), b String, id Int64)\n\
          ENGINE = MergeTree ORDER BY (id, intHash32(b), a) SETTINGS allow_nullable_key = 1;",
    );
    let table = d.path("t");
    let mut reversed: Vec<&str> = csv.lines().skip(1).collect();
    reversed.reverse();
    let input_rev = d.file(
        "rev.csv",
        format!("a,b,id\n{}\n", reversed.join("\n")).as_bytes(),
    );
    let (_, stderr) = ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &schema,
        "--block-rows",
        "1000",
        &input_rev,
    ]));
    assert!(stderr.contains("rows sorted by id\n"), "{stderr}");
    assert_eq!(ints(&table, "id"), (0..3000).map(Some).collect::<Vec<_>>());
    let kept = d.path("kept");
    let (_, stderr) = ok(&ingest(&[
        "--table",
        kept.to_str().unwrap(),
        "--schema",
        &schema,
        "--no-sort",
        &input,
    ]));
    assert!(!stderr.contains("sorted"), "{stderr}");
    assert_eq!(
        ints(&kept, "id"),
        rows_in.iter().map(|r| Some(r.2)).collect::<Vec<_>>()
    );
}

#[test]
fn sort_errors_leave_no_table_and_no_runs() {
    let d = Dir::new();
    let (mut csv, _) = sortable_csv(2500);
    let table = d.path("t");
    let input = d.file("in.csv", csv.as_bytes());
    let e = failed(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--sort-by",
        "a,nope",
        &input,
    ]));
    assert!(e.contains("cannot sort by nope"), "{e}");
    assert!(!table.exists());
    // A bad row in the last block fails the ingest after runs were spilled.
    csv.push_str("1,x,not-a-number\n");
    let bad = d.file("bad.csv", csv.as_bytes());
    let e = failed(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--schema",
        &d.file("s.sql", b"CREATE TABLE t (a BIGINT, b TEXT, id BIGINT)"),
        "--block-rows",
        "500",
        "--sort-by",
        "b",
        &bad,
    ]));
    assert!(e.contains("not-a-number"), "{e}");
    assert!(!table.exists());
    assert_eq!(hidden_entries(d.0.path()), Vec::<String>::new());
}

#[test]
fn append_sorts_the_new_rows_among_themselves() {
    let d = Dir::new();
    let table = d.path("t");
    let first = d.file("a.csv", b"k,v\n5,x\n1,y\n3,z\n");
    let second = d.file("b.csv", b"k,v\n4,p\n0,q\n2,r\n");
    ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--sort-by",
        "k",
        &first,
    ]));
    let (_, stderr) = ok(&ingest(&[
        "--table",
        table.to_str().unwrap(),
        "--append",
        "--sort-by",
        "k",
        &second,
    ]));
    assert!(stderr.contains("rows sorted by k"), "{stderr}");
    // Each ingest's rows are sorted; the table keeps them in ingest order.
    assert_eq!(ints(&table, "k"), [1, 3, 5, 0, 2, 4].map(Some).to_vec());
    assert_eq!(
        strs(&table, "v"),
        ["y", "z", "x", "q", "r", "p"].map(s).to_vec()
    );
    assert_eq!(hidden_entries(d.0.path()), Vec::<String>::new());
}
