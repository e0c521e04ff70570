//! Runs the `.slt` files under tests/slt (expected results produced by
//! DuckDB, see gen_slt.py) against strata tables built from tests/data at
//! block sizes 3, 1000 and 2^19, with all rules on (1 and 4 threads) and
//! all rules off. `explain` records assert lines of a query's EXPLAIN (with
//! the rules on), so a rule that stops firing fails. At block size 3 every
//! query that can be split also runs split into 3 tasks (every third block
//! each), merged, and must give the same answer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use strata_engine::{Database, Engine, EngineError, LType, QueryResult, RuleOptions, Value};
use strata_format::types::{bool_key, float_key, signed_key};
use strata_format::{ColumnData, DataType, Field, Schema, Table, TableWriter, WriteOptions};

/// The directory holding `data/` and `slt/`: tests/, or `$SLT_DIR` (to run
/// other tables and records, e.g. ClickBench's over a sample of hits).
fn base_dir() -> PathBuf {
    match std::env::var_os("SLT_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
    }
}

fn data_dir() -> PathBuf {
    base_dir().join("data")
}

fn parse_type(s: &str) -> DataType {
    match s {
        "BOOLEAN" => DataType::Bool,
        "TINYINT" => DataType::Int8,
        "SMALLINT" => DataType::Int16,
        "INTEGER" => DataType::Int32,
        "BIGINT" => DataType::Int64,
        "UTINYINT" => DataType::UInt8,
        "USMALLINT" => DataType::UInt16,
        "UINTEGER" => DataType::UInt32,
        "UBIGINT" => DataType::UInt64,
        "FLOAT" => DataType::Float32,
        "DOUBLE" => DataType::Float64,
        "DATE" => DataType::Date,
        "TIMESTAMP" => DataType::Timestamp,
        "VARCHAR" => DataType::String,
        other => {
            let inner = other
                .strip_prefix("DECIMAL(")
                .and_then(|r| r.strip_suffix(')'))
                .unwrap_or_else(|| panic!("type {other}"));
            let (p, s) = inner.split_once(',').unwrap();
            DataType::Decimal {
                precision: p.trim().parse().unwrap(),
                scale: s.trim().parse().unwrap(),
            }
        }
    }
}

fn days(s: &str) -> i64 {
    let p: Vec<i64> = s.split('-').map(|x| x.parse().unwrap()).collect();
    let (y, m, d) = (p[0], p[1], p[2]);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn key_of(t: DataType, s: &str) -> u64 {
    match t {
        DataType::Bool => bool_key(s == "true"),
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            signed_key(s.parse().unwrap())
        }
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            s.parse().unwrap()
        }
        DataType::Float32 | DataType::Float64 => float_key(s.parse().unwrap()),
        DataType::Date => signed_key(days(s)),
        DataType::Decimal { scale, .. } => {
            let (int, frac) = s.split_once('.').unwrap_or((s, ""));
            assert!(
                frac.len() <= scale as usize,
                "{s} has more than {scale} places"
            );
            let digits = format!("{int}{frac:0<width$}", width = scale as usize);
            signed_key(digits.parse().unwrap())
        }
        // Microseconds: `YYYY-MM-DD HH:MM:SS[.ffffff]`.
        DataType::Timestamp => {
            let (d, t) = s.split_once(' ').unwrap();
            let (t, frac) = t.split_once('.').unwrap_or((t, ""));
            let hms: Vec<i64> = t.split(':').map(|x| x.parse().unwrap()).collect();
            let secs = days(d) * 86400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
            let micros: i64 = format!("{frac:0<6}").parse().unwrap();
            signed_key(secs * 1_000_000 + micros)
        }
        other => panic!("type {other:?}"),
    }
}

/// The tables under tests/data: each `NAME.schema` with its `NAME.tsv`.
fn table_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "schema").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

/// Loads tests/data/NAME.{schema,tsv} into the strata table `dir/NAME`
/// with `block_rows`.
fn load(dir: &Path, name: &str, block_rows: usize) -> Table {
    let schema_text = std::fs::read_to_string(data_dir().join(format!("{name}.schema"))).unwrap();
    let fields: Vec<Field> = schema_text
        .lines()
        .map(|l| {
            let p: Vec<&str> = l.split('\t').collect();
            Field::new(p[0], parse_type(p[1]), p[2] == "null")
        })
        .collect();
    let schema = Schema::new(fields.clone()).unwrap();
    let text = std::fs::read_to_string(data_dir().join(format!("{name}.tsv"))).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    let path = dir.join(name);
    let mut w = TableWriter::create(
        &path,
        schema,
        WriteOptions {
            block_rows,
            sync: false,
        },
    )
    .unwrap();
    for chunk in rows.chunks(block_rows) {
        let mut cols: Vec<ColumnData> = fields
            .iter()
            .map(|f| ColumnData::new_for(f.data_type))
            .collect();
        for r in chunk {
            for (c, f) in fields.iter().enumerate() {
                let v = r[c];
                if v == "\\N" {
                    cols[c].push_null();
                } else if f.data_type == DataType::String {
                    cols[c].push_str(v.replace("\\n", "\n").as_bytes()).unwrap();
                } else {
                    cols[c].push_key(key_of(f.data_type, v)).unwrap();
                }
            }
        }
        w.write_block(cols).unwrap();
    }
    w.finish().unwrap();
    Table::open(&path).unwrap()
}

/// Formats like gen_slt.py: doubles as C's `%.10g`.
fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{v:.9e}");
    let (mant, exp) = e.split_once('e').unwrap();
    let x: i32 = exp.parse().unwrap();
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..10).contains(&x) {
        strip(&format!("{:.*}", (9 - x) as usize, v))
    } else {
        format!(
            "{}e{}{:02}",
            strip(mant),
            if x < 0 { '-' } else { '+' },
            x.abs()
        )
    }
}

fn fmt_value(ty: LType, v: &Value) -> String {
    match (ty, v) {
        (_, Value::Null) => "NULL".into(),
        (_, Value::Float(f)) => fmt_g(*f),
        (_, Value::Str(s)) if s.is_empty() => "(empty)".into(),
        _ => strata_engine::value::format_value(ty, v).replace('\n', "\\n"),
    }
}

fn result_lines(r: &QueryResult) -> Vec<String> {
    (0..r.num_rows())
        .map(|i| {
            r.columns
                .iter()
                .map(|c| fmt_value(c.ty, &c.values.get(i)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Whether `got` is as many distinct rows of the full answer `expected` as
/// the LIMIT and OFFSET ending `sql` ask for.
fn is_any_limit_of(got: &[String], expected: &[String], sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let after = |kw: &str| {
        words
            .iter()
            .rposition(|w| w == kw)
            .and_then(|i| words.get(i + 1))
            .and_then(|n| n.parse::<usize>().ok())
    };
    let (limit, offset) = (
        after("LIMIT").unwrap_or(usize::MAX),
        after("OFFSET").unwrap_or(0),
    );
    let mut left: Vec<&String> = expected.iter().collect();
    for g in got {
        match left.iter().position(|e| *e == g) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => return false,
        }
    }
    got.len() == limit.min(expected.len().saturating_sub(offset))
}

/// `sql` split into 3 tasks (every third block of the split table each),
/// their partial results merged; `None` when it cannot be split.
fn split_answer(
    engine: &Engine,
    db: &Database,
    sql: &str,
) -> Result<Option<QueryResult>, EngineError> {
    let split = match engine.split(db, sql, &[]) {
        Ok(s) => s,
        Err(EngineError::NotSplittable(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let n = split.table.num_blocks();
    let mut parts = Vec::new();
    for task in 0..3 {
        let blocks: Vec<usize> = (task..n).step_by(3).collect();
        let r = engine.partial(&split, &blocks)?;
        parts.push(r.columns.into_iter().map(|c| c.values).collect());
    }
    engine.merge(&split, parts).map(Some)
}

enum Record {
    Query {
        line: usize,
        sql: String,
        rowsort: bool,
        /// Any LIMIT rows of the full answer will do (`query ... anyof`):
        /// `expected` is the answer without the LIMIT, sorted.
        anyof: bool,
        expected: Vec<String>,
    },
    Error {
        line: usize,
        sql: String,
        needle: String,
    },
    /// `explain`: each expected line must occur in some line of the
    /// query's EXPLAIN (with the rules on): a rule that stops firing
    /// fails the test.
    Explain {
        line: usize,
        sql: String,
        expected: Vec<String>,
    },
}

fn parse_slt(text: &str) -> Vec<Record> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with("query") {
            let rowsort = l.split_whitespace().any(|w| w == "rowsort");
            let anyof = l.split_whitespace().any(|w| w == "anyof");
            let start = i + 1;
            i += 1;
            let mut sql = Vec::new();
            while i < lines.len() && lines[i] != "----" && !lines[i].trim().is_empty() {
                sql.push(lines[i]);
                i += 1;
            }
            let mut expected = Vec::new();
            if i < lines.len() && lines[i] == "----" {
                i += 1;
                while i < lines.len() && !lines[i].trim().is_empty() {
                    expected.push(lines[i].to_string());
                    i += 1;
                }
            }
            out.push(Record::Query {
                line: start,
                sql: sql.join("\n"),
                rowsort,
                anyof,
                expected,
            });
        } else if l == "explain" {
            let start = i + 1;
            i += 1;
            let mut sql = Vec::new();
            while i < lines.len() && lines[i] != "----" && !lines[i].trim().is_empty() {
                sql.push(lines[i]);
                i += 1;
            }
            let mut expected = Vec::new();
            if i < lines.len() && lines[i] == "----" {
                i += 1;
                while i < lines.len() && !lines[i].trim().is_empty() {
                    expected.push(lines[i].trim().to_string());
                    i += 1;
                }
            }
            out.push(Record::Explain {
                line: start,
                sql: sql.join("\n"),
                expected,
            });
        } else if let Some(rest) = l.strip_prefix("statement error") {
            let start = i + 1;
            i += 1;
            let mut sql = Vec::new();
            while i < lines.len() && !lines[i].trim().is_empty() {
                sql.push(lines[i]);
                i += 1;
            }
            out.push(Record::Error {
                line: start,
                sql: sql.join("\n"),
                needle: rest.trim().to_string(),
            });
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn slt_suite() {
    let dir = tempfile::tempdir().unwrap();
    let filter = std::env::var("SLT_FILTER").unwrap_or_default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(base_dir().join("slt"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    files.sort();
    // Every record runs with all rules on (1 and 4 threads) and with all
    // rules off: the plan as bound, on the general operators.
    let engines = [
        Engine::new(1).unwrap(),
        Engine::new(4).unwrap(),
        Engine::new(2).unwrap().with_rules(RuleOptions::none()),
    ];
    let (mut passed, mut failed) = (0usize, 0usize);
    let (mut split_passed, mut split_refused) = (0usize, 0usize);
    let mut failures = Vec::new();
    for block_rows in [3usize, 1000, 1 << 19] {
        let db_dir = dir.path().join(format!("b{block_rows}"));
        std::fs::create_dir_all(&db_dir).unwrap();
        for name in table_names() {
            load(&db_dir, &name, block_rows);
        }
        let db = Database::new(&db_dir);
        let table = Table::open(db_dir.join("t")).unwrap();
        // The larger blocks store some columns as row codes (format version
        // 3), so the queries run through both forms of row lists.
        let coded = (0..table.num_blocks())
            .flat_map(|b| (0..table.schema().len()).map(move |c| (b, c)))
            .filter(|&(b, c)| table.chunk(b, c).unwrap().stores_row_codes())
            .map(|(_, c)| table.schema().fields[c].name.clone())
            .collect::<std::collections::BTreeSet<_>>();
        eprintln!("block {block_rows}: row codes in {coded:?}");
        assert_eq!(coded.is_empty(), block_rows < 1000, "{coded:?}");
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            for rec in parse_slt(&text) {
                if let (
                    3,
                    Record::Query {
                        sql,
                        rowsort,
                        anyof,
                        expected,
                        line,
                    },
                ) = (block_rows, &rec)
                {
                    let ctx = format!("{name}:{line} (block 3, split into 3 tasks)");
                    match split_answer(&engines[1], &db, sql) {
                        Ok(None) => split_refused += 1,
                        Ok(Some(r)) => {
                            let mut got = result_lines(&r);
                            if *rowsort {
                                got.sort();
                            }
                            let ok = if *anyof {
                                is_any_limit_of(&got, expected, sql)
                            } else {
                                got == *expected
                            };
                            if ok {
                                split_passed += 1;
                            } else {
                                failed += 1;
                                failures.push(format!(
                                    "{ctx}\n  {sql}\n  expected: {expected:?}\n  got:      {got:?}"
                                ));
                            }
                        }
                        Err(e) => {
                            failed += 1;
                            failures.push(format!("{ctx}\n  {sql}\n  error: {e}"));
                        }
                    }
                }
                for engine in &engines {
                    let ctx = format!(
                        "{name}:{} (block {block_rows}, {} threads, rules {})",
                        match &rec {
                            Record::Query { line, .. }
                            | Record::Error { line, .. }
                            | Record::Explain { line, .. } => line,
                        },
                        engine.threads(),
                        if *engine.rules() == RuleOptions::none() {
                            "off"
                        } else {
                            "on"
                        }
                    );
                    match &rec {
                        Record::Query {
                            sql,
                            rowsort,
                            anyof,
                            expected,
                            ..
                        } => match engine.query_in(&db, sql) {
                            Ok(r) => {
                                let mut got = result_lines(&r);
                                if *rowsort {
                                    got.sort();
                                }
                                let ok = if *anyof {
                                    is_any_limit_of(&got, expected, sql)
                                } else {
                                    got == *expected
                                };
                                if ok {
                                    passed += 1;
                                } else {
                                    failed += 1;
                                    failures.push(format!(
                                            "{ctx}\n  {sql}\n  expected: {expected:?}\n  got:      {got:?}"
                                        ));
                                }
                            }
                            Err(e) => {
                                failed += 1;
                                failures.push(format!("{ctx}\n  {sql}\n  error: {e}"));
                            }
                        },
                        Record::Explain { .. } if *engine.rules() == RuleOptions::none() => {}
                        Record::Explain { sql, expected, .. } => {
                            match engine.explain_in(&db, sql) {
                                Ok(text) => {
                                    let missing: Vec<&String> = expected
                                        .iter()
                                        .filter(|e| !text.lines().any(|l| l.contains(e.as_str())))
                                        .collect();
                                    if missing.is_empty() {
                                        passed += 1;
                                    } else {
                                        failed += 1;
                                        failures.push(format!(
                                            "{ctx}\n  {sql}\n  missing from EXPLAIN: {missing:?}\n{text}"
                                        ));
                                    }
                                }
                                Err(e) => {
                                    failed += 1;
                                    failures.push(format!("{ctx}\n  EXPLAIN {sql}\n  error: {e}"));
                                }
                            }
                        }
                        Record::Error { sql, needle, .. } => match engine.query_in(&db, sql) {
                            Err(e) if e.to_string().contains(needle.as_str()) => passed += 1,
                            other => {
                                failed += 1;
                                failures.push(format!(
                                    "{ctx}\n  {sql}\n  expected an error containing {needle:?}, got {other:?}"
                                ));
                            }
                        },
                    }
                }
            }
        }
    }
    for f in failures.iter().take(40) {
        eprintln!("FAILED {f}");
    }
    println!(
        "slt: {passed} passed, {failed} failed; split into tasks: {split_passed} passed, \
         {split_refused} cannot be split"
    );
    assert_eq!(failed, 0, "{failed} slt records failed");
}
