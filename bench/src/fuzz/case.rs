//! Regression cases: a directory holding `table.txt` (block size, columns with their
//! types, rows) and `case.slt` (queries with DuckDB's answers, or oracle checks), written
//! for each minimised failure and replayed by `strata-bench fuzz-sql --replay DIR`
//! (`bench/tests/fuzz_regressions.rs` replays `bench/tests/fuzz_cases`).
//!
//! `table.txt`:
//!
//! ```text
//! block_rows 3
//! dict_seed 0
//! column c0 DECIMAL(15,2) nullable
//! column c1 VARCHAR not-null
//! row 0.07<TAB>"abc"
//! ```
//!
//! Values are separated by tabs (`<TAB>` above), written as [`Cell::text`] reads them: `NULL`, numbers,
//! dates `YYYY-MM-DD`, strings as JSON strings (`x'ff'` for bytes that are not UTF-8).
//! A column marked `raw` holds such bytes and is left out of DuckDB.
//!
//! `case.slt` holds records separated by blank lines; `#` lines are comments:
//!
//! ```text
//! expect-fail decimal literal arithmetic is computed as DOUBLE
//!
//! query types=BIGINT order=1 limit=2 offset=0
//! SELECT c0, COUNT(*) FROM t GROUP BY c0 ORDER BY c0 LIMIT 2
//! ----
//! 1<TAB>2
//! ---- full
//! 1<TAB>2
//! 5<TAB>1
//!
//! nopanic
//! SELECT ...
//!
//! oracle norec
//! p "(c0 > 3)"
//! ```
//!
//! A `query` passes when strata's answer matches the rows after `----` as the fuzzer
//! compares them (`order`: the 1-based output columns ORDER BY fixes, `?` when it orders
//! by something else; with `limit`/`offset`, any rows of the `full` answer will do). A
//! `nopanic` record passes unless strata panics; an `oracle` record runs a TLP or NoREC
//! check (`tlp-rows`: `item`s, `filter`, `p`; `tlp-agg`: `key`, `agg`s, `filter`, `p`;
//! `norec`: `p`). An `expect-fail` line marks a known, open bug: the case is expected to
//! fail, and passing is reported so that the line gets removed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::ast::Expr;
use super::cell::{parse_json_string, Cell};
use super::compare::{compare, Shape, Verdict};
use super::oracle::{Oracle, OracleOutcome};
use super::strata_side::{StrataAnswer, StrataDb};
use super::table::{Column, TableData};
use crate::suite::json;

/// One record of a `case.slt`.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A query and DuckDB's answer.
    Query {
        /// The SQL.
        sql: String,
        /// DuckDB's result types.
        types: Vec<String>,
        /// How to compare.
        shape: Shape,
        /// DuckDB's answer.
        expected: Vec<Vec<Cell>>,
        /// DuckDB's answer without LIMIT/OFFSET (queries with them).
        full: Option<Vec<Vec<Cell>>>,
    },
    /// A query strata must not panic on.
    NoPanic {
        /// The SQL.
        sql: String,
    },
    /// An oracle check.
    Oracle(Box<Oracle>),
}

/// A regression case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The table.
    pub table: TableData,
    /// The records.
    pub records: Vec<Record>,
    /// `Some(why)` for a known, open bug.
    pub expect_fail: Option<String>,
    /// The shape of the failure the case was written for (see `--known`).
    pub signature: Option<String>,
    /// Comment lines (what failed, how it was found).
    pub notes: Vec<String>,
}

/// Writes `table.txt`'s text.
pub fn table_text(t: &TableData) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "block_rows {}", t.block_rows);
    let _ = writeln!(s, "dict_seed {}", t.dict_seed);
    for c in &t.columns {
        let _ = writeln!(
            s,
            "column {} {} {}{}",
            c.name,
            c.ty.sql_name(),
            if c.nullable { "nullable" } else { "not-null" },
            if c.raw_bytes { " raw" } else { "" }
        );
    }
    for r in 0..t.rows() {
        let cells: Vec<String> = t.columns.iter().map(|c| c.values[r].text()).collect();
        let _ = writeln!(s, "row {}", cells.join("\t"));
    }
    s
}

/// Reads `table.txt`'s text.
pub fn parse_table(text: &str) -> Result<TableData> {
    let mut t = TableData {
        columns: Vec::new(),
        block_rows: 1 << 19,
        dict_seed: 0,
    };
    for (n, line) in text.lines().enumerate() {
        let at = || format!("table.txt line {}", n + 1);
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "" | "#" => {}
            "block_rows" => t.block_rows = rest.trim().parse().with_context(at)?,
            "dict_seed" => t.dict_seed = rest.trim().parse().with_context(at)?,
            "column" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                let (Some(name), Some(ty)) = (parts.first(), parts.get(1)) else {
                    bail!("{}: column needs a name and a type", at());
                };
                let ty =
                    super::cell::parse_type(ty).with_context(|| format!("{}: type {ty}", at()))?;
                t.columns.push(Column {
                    name: (*name).to_string(),
                    ty,
                    nullable: parts.get(2) != Some(&"not-null"),
                    raw_bytes: parts.contains(&"raw"),
                    values: Vec::new(),
                });
            }
            "row" => {
                let cells: Vec<&str> = rest.split('\t').collect();
                if cells.len() != t.columns.len() {
                    bail!(
                        "{}: {} values for {} columns",
                        at(),
                        cells.len(),
                        t.columns.len()
                    );
                }
                for (c, text) in t.columns.iter_mut().zip(cells) {
                    let v = Cell::parse(&c.ty.sql_name(), text)
                        .with_context(|| format!("{}: {text} is no {}", at(), c.ty.sql_name()))?;
                    c.values.push(v);
                }
            }
            w if w.starts_with('#') => {}
            other => bail!("{}: unknown line {other:?}", at()),
        }
    }
    Ok(t)
}

fn rows_text(rows: &[Vec<Cell>]) -> String {
    let mut s = String::new();
    for r in rows {
        let cells: Vec<String> = r.iter().map(Cell::text).collect();
        let _ = writeln!(s, "{}", cells.join("\t"));
    }
    s
}

/// Writes `case.slt`'s text.
pub fn slt_text(case: &Case) -> String {
    let mut s = String::new();
    for n in &case.notes {
        for line in n.lines() {
            let _ = writeln!(s, "# {line}");
        }
    }
    if let Some(why) = &case.expect_fail {
        let _ = writeln!(s, "expect-fail {why}");
    }
    if let Some(sig) = &case.signature {
        let _ = writeln!(s, "signature {sig}");
    }
    for r in &case.records {
        s.push('\n');
        match r {
            Record::Query {
                sql,
                types,
                shape,
                expected,
                full,
            } => {
                let _ = write!(s, "query types={}", types.join(";"));
                if shape.ordered {
                    let keys = match &shape.keys {
                        Some(k) => k
                            .iter()
                            .map(|i| (i + 1).to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                        None => "?".into(),
                    };
                    let _ = write!(s, " order={keys}");
                }
                if let Some(l) = shape.limit {
                    let _ = write!(s, " limit={l}");
                }
                if shape.offset > 0 {
                    let _ = write!(s, " offset={}", shape.offset);
                }
                let _ = writeln!(s, "\n{sql}\n----");
                s.push_str(&rows_text(expected));
                if let Some(full) = full {
                    s.push_str("---- full\n");
                    s.push_str(&rows_text(full));
                }
            }
            Record::NoPanic { sql } => {
                let _ = writeln!(s, "nopanic\n{sql}");
            }
            Record::Oracle(o) => {
                let field = |s: &mut String, k: &str, e: &Expr| {
                    let _ = writeln!(s, "{k} {}", json::quote(&e.sql()));
                };
                match &**o {
                    Oracle::TlpRows { items, filter, p } => {
                        s.push_str("oracle tlp-rows\n");
                        items.iter().for_each(|e| field(&mut s, "item", e));
                        filter.iter().for_each(|e| field(&mut s, "filter", e));
                        field(&mut s, "p", p);
                    }
                    Oracle::TlpAgg {
                        key,
                        aggs,
                        filter,
                        p,
                    } => {
                        s.push_str("oracle tlp-agg\n");
                        key.iter().for_each(|e| field(&mut s, "key", e));
                        aggs.iter().for_each(|e| field(&mut s, "agg", e));
                        filter.iter().for_each(|e| field(&mut s, "filter", e));
                        field(&mut s, "p", p);
                    }
                    Oracle::NoRec { p } => {
                        s.push_str("oracle norec\n");
                        field(&mut s, "p", p);
                    }
                }
            }
        }
    }
    s
}

fn parse_rows(lines: &[&str], types: &[String], at: usize) -> Result<Vec<Vec<Cell>>> {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let cells: Vec<&str> = l.split('\t').collect();
            if cells.len() != types.len() {
                bail!(
                    "case.slt line {}: {} values for {} columns",
                    at + i + 1,
                    cells.len(),
                    types.len()
                );
            }
            cells
                .iter()
                .zip(types)
                .map(|(c, t)| {
                    Cell::parse(t, c)
                        .with_context(|| format!("case.slt line {}: {c} as {t}", at + i + 1))
                })
                .collect()
        })
        .collect()
}

/// Reads `case.slt`'s text into a case without table rows (the table comes separately).
pub fn parse_slt(text: &str) -> Result<Case> {
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::new();
    let mut expect_fail = None;
    let mut signature = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let start = i;
        i += 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(why) = line.strip_prefix("expect-fail") {
            expect_fail = Some(why.trim().to_string());
            continue;
        }
        if let Some(sig) = line.strip_prefix("signature ") {
            signature = Some(sig.trim().to_string());
            continue;
        }
        // The record's body: lines up to a blank line.
        let end = (i..lines.len())
            .find(|&j| lines[j].trim().is_empty())
            .unwrap_or(lines.len());
        let body = &lines[i..end];
        i = end;
        if let Some(head) = line.strip_prefix("query") {
            let mut types = Vec::new();
            let mut shape = Shape {
                ordered: false,
                keys: Some(Vec::new()),
                limit: None,
                offset: 0,
            };
            for tok in head.split_whitespace() {
                let (k, v) = tok.split_once('=').unwrap_or((tok, ""));
                match k {
                    "types" => {
                        types = v
                            .split(';')
                            .filter(|t| !t.is_empty())
                            .map(str::to_string)
                            .collect()
                    }
                    "order" => {
                        shape.ordered = true;
                        shape.keys = if v == "?" {
                            None
                        } else {
                            Some(
                                v.split(',')
                                    .map(|n| n.parse::<usize>().map(|n| n.saturating_sub(1)))
                                    .collect::<Result<_, _>>()
                                    .with_context(|| {
                                        format!("case.slt line {}: order", start + 1)
                                    })?,
                            )
                        };
                    }
                    "limit" => {
                        shape.limit = Some(
                            v.parse()
                                .with_context(|| format!("case.slt line {}", start + 1))?,
                        )
                    }
                    "offset" => {
                        shape.offset = v
                            .parse()
                            .with_context(|| format!("case.slt line {}", start + 1))?
                    }
                    other => bail!("case.slt line {}: unknown {other:?}", start + 1),
                }
            }
            let sep = body.iter().position(|l| *l == "----");
            let Some(sep) = sep else {
                bail!("case.slt line {}: query without ----", start + 1);
            };
            let full_at = body.iter().position(|l| *l == "---- full");
            let sql = body[..sep].join("\n");
            let exp_end = full_at.unwrap_or(body.len());
            let expected = parse_rows(&body[sep + 1..exp_end], &types, start + 2 + sep)?;
            let full = match full_at {
                Some(f) => Some(parse_rows(&body[f + 1..], &types, start + 2 + f)?),
                None => None,
            };
            records.push(Record::Query {
                sql,
                types,
                shape,
                expected,
                full,
            });
        } else if line.trim() == "nopanic" {
            records.push(Record::NoPanic {
                sql: body.join("\n"),
            });
        } else if let Some(kind) = line.strip_prefix("oracle ") {
            let mut fields: Vec<(&str, Expr)> = Vec::new();
            for l in body {
                let (k, v) = l.split_once(' ').unwrap_or((l, ""));
                let sql = parse_json_string(v).with_context(|| {
                    format!("case.slt line {}: {k} needs a JSON string", start + 1)
                })?;
                fields.push((k, Expr::Lit(sql)));
            }
            let all = |k: &str| -> Vec<Expr> {
                fields
                    .iter()
                    .filter(|(n, _)| *n == k)
                    .map(|(_, e)| e.clone())
                    .collect()
            };
            let one = |k: &str| all(k).into_iter().next();
            let Some(p) = one("p") else {
                bail!("case.slt line {}: oracle without p", start + 1);
            };
            records.push(Record::Oracle(Box::new(match kind.trim() {
                "tlp-rows" => Oracle::TlpRows {
                    items: all("item"),
                    filter: one("filter"),
                    p,
                },
                "tlp-agg" => Oracle::TlpAgg {
                    key: one("key"),
                    aggs: all("agg"),
                    filter: one("filter"),
                    p,
                },
                "norec" => Oracle::NoRec { p },
                other => bail!("case.slt line {}: unknown oracle {other}", start + 1),
            })));
        } else {
            bail!("case.slt line {}: unknown record {line:?}", start + 1);
        }
    }
    Ok(Case {
        table: TableData {
            columns: Vec::new(),
            block_rows: 1,
            dict_seed: 0,
        },
        records,
        expect_fail,
        signature,
        notes: Vec::new(),
    })
}

/// Writes `case` into directory `dir` (created).
pub fn write_case(dir: &Path, case: &Case) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(dir.join("table.txt"), table_text(&case.table))?;
    std::fs::write(dir.join("case.slt"), slt_text(case))?;
    Ok(())
}

/// Reads the case in directory `dir`.
pub fn read_case(dir: &Path) -> Result<Case> {
    let table = parse_table(
        &std::fs::read_to_string(dir.join("table.txt"))
            .with_context(|| format!("reading {}", dir.display()))?,
    )?;
    let case = parse_slt(&std::fs::read_to_string(dir.join("case.slt"))?)
        .with_context(|| format!("in {}", dir.display()))?;
    Ok(Case { table, ..case })
}

/// Runs one record on `db`: `Ok` when strata passes it, else why not.
pub fn run_record(db: &StrataDb, r: &Record) -> Result<(), String> {
    match r {
        Record::Query {
            sql,
            shape,
            expected,
            full,
            ..
        } => match db.query(sql) {
            StrataAnswer::Rows { rows, .. } => {
                match compare(shape, &rows, expected, full.as_deref()) {
                    Verdict::Match | Verdict::MatchTies => Ok(()),
                    Verdict::Mismatch(why) => Err(format!("{sql}: wrong answer: {why}")),
                }
            }
            other => Err(format!("{sql}: {}", other.describe())),
        },
        Record::NoPanic { sql } => match db.query(sql) {
            StrataAnswer::Panic(m) => Err(format!("{sql}: panic: {m}")),
            _ => Ok(()),
        },
        Record::Oracle(o) => match o.check(db) {
            OracleOutcome::Pass | OracleOutcome::Skip(_) => Ok(()),
            OracleOutcome::Fail(why) => Err(format!("{} check failed: {why}", o.family())),
            OracleOutcome::Panic(m) => Err(format!("{} check: panic: {m}", o.family())),
        },
    }
}

/// The outcome of replaying one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// All records pass.
    Pass,
    /// A record fails (why), and the case does not expect it.
    Fail(String),
    /// A record fails, as the case's `expect-fail` line says.
    ExpectedFail(String),
    /// Every record passes although the case expects a failure: the bug is fixed.
    UnexpectedPass,
}

/// Replays the case in `dir` with strata on 1 and on 3 threads.
pub fn replay_case(dir: &Path, work: &Path, timeout: Duration) -> Result<Replay> {
    let case = read_case(dir)?;
    let db_dir = work.join(format!(
        "replay-{}",
        dir.file_name()
            .map_or("case".into(), |n| n.to_string_lossy().to_string())
    ));
    let _ = std::fs::remove_dir_all(&db_dir);
    std::fs::create_dir_all(&db_dir)?;
    case.table.write_strata(&db_dir.join("t"))?;
    let mut failure = None;
    'threads: for threads in [1, 3] {
        let db = StrataDb::open(&db_dir, threads, timeout)?;
        for r in &case.records {
            if let Err(why) = run_record(&db, r) {
                failure = Some(format!("{why} ({threads} threads)"));
                break 'threads;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&db_dir);
    Ok(match (failure, &case.expect_fail) {
        (None, None) => Replay::Pass,
        (None, Some(_)) => Replay::UnexpectedPass,
        (Some(why), None) => Replay::Fail(why),
        (Some(why), Some(_)) => Replay::ExpectedFail(why),
    })
}

/// The case directories at `path`: itself if it holds a `case.slt`, else its
/// subdirectories that do, sorted.
pub fn case_dirs(path: &Path) -> Result<Vec<PathBuf>> {
    if path.join("case.slt").is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("listing {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.slt").is_file())
        .collect();
    v.sort();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::cell::ColType;

    #[test]
    fn cases_round_trip() {
        let table = TableData {
            columns: vec![
                Column {
                    name: "c0".into(),
                    ty: ColType::Decimal {
                        precision: 15,
                        scale: 2,
                    },
                    nullable: true,
                    raw_bytes: false,
                    values: vec![Cell::Dec(7, 2), Cell::Null],
                },
                Column {
                    name: "c1".into(),
                    ty: ColType::String,
                    nullable: false,
                    raw_bytes: true,
                    values: vec![Cell::Str(b"a\tb".to_vec()), Cell::Str(vec![0xff])],
                },
            ],
            block_rows: 1,
            dict_seed: 5,
        };
        assert_eq!(parse_table(&table_text(&table)).ok(), Some(table.clone()));
        let case = Case {
            table,
            records: vec![
                Record::Query {
                    sql: "SELECT c0 FROM t ORDER BY 1 LIMIT 1".into(),
                    types: vec!["DECIMAL(15,2)".into()],
                    shape: Shape {
                        ordered: true,
                        keys: Some(vec![0]),
                        limit: Some(1),
                        offset: 0,
                    },
                    expected: vec![vec![Cell::Dec(7, 2)]],
                    full: Some(vec![vec![Cell::Dec(7, 2)], vec![Cell::Null]]),
                },
                Record::NoPanic {
                    sql: "SELECT 1 FROM t".into(),
                },
                Record::Oracle(Box::new(Oracle::NoRec {
                    p: Expr::Lit("(c0 > 0.05)".into()),
                })),
            ],
            expect_fail: Some("decimal literals".into()),
            signature: Some("wrong answer|SELECT ?".into()),
            notes: vec!["found by a test".into()],
        };
        let back = parse_slt(&slt_text(&case)).map(|c| Case {
            table: case.table.clone(),
            notes: case.notes.clone(),
            ..c
        });
        assert_eq!(back.ok(), Some(case));
    }
}
