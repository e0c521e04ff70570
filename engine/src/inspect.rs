//! Schema inspection statements with DuckDB's syntax and result columns:
//! `DESCRIBE <table | 'file' | query>` (and `SHOW <table>`, `SHOW COLUMNS
//! FROM <table>`), `SHOW [ALL] TABLES` and `SUMMARIZE <table | query>`.
//!
//! They are recognised before sqlparser sees the text (its DuckDB dialect
//! does not know all of them), and answered by binding the relation they
//! name (for its columns) or by running ordinary queries over it
//! (`SUMMARIZE`'s statistics).
//!
//! `SUMMARIZE` differs from DuckDB where DuckDB approximates:
//! `approx_unique` is the exact number of distinct values, and `q25`,
//! `q50`, `q75` are exact quantiles interpolated between neighbouring
//! values (DuckDB's come from a t-digest). `avg`, `std` and the quantiles
//! are given for numbers only (DuckDB also gives them for dates).

use sqlparser::ast as sql;

use crate::catalog::Catalog;
use crate::error::{EngineError, Result};
use crate::result::{QueryResult, ResultColumn};
use crate::sql::parse::Statement;
use crate::value::{format_value, LType, Value, Vector};
use crate::Engine;

/// What an inspection statement asks.
#[derive(Debug, Clone)]
pub enum Inspection {
    /// `DESCRIBE`: the relation's columns (`table`: it names a table or
    /// file, whose nullability is known).
    Describe {
        /// `SELECT * FROM <relation>` or the query described.
        query: Box<sql::Query>,
        /// The query's text.
        text: String,
        /// Whether it names a table or file.
        table: bool,
    },
    /// `SUMMARIZE`: statistics of each column.
    Summarize {
        /// The query's text (`SELECT * FROM <relation>` for a relation).
        text: String,
    },
    /// `SHOW [ALL] TABLES`.
    ShowTables,
}

/// The text after leading white space and `--` / `/* */` comments.
pub fn skip_comments(mut t: &str) -> &str {
    loop {
        t = t.trim_start();
        if let Some(r) = t.strip_prefix("--") {
            t = r.split_once('\n').map_or("", |(_, rest)| rest);
        } else if let Some(r) = t.strip_prefix("/*") {
            t = r.split_once("*/").map_or("", |(_, rest)| rest);
        } else {
            return t;
        }
    }
}

/// Splits off the first word (letters and underscores), lower-cased.
fn first_word(t: &str) -> (String, &str) {
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    (t[..end].to_ascii_lowercase(), &t[end..])
}

/// Recognises an inspection statement; `None` for any other text.
pub fn parse_inspection(text: &str) -> Result<Option<Statement>> {
    let t = skip_comments(text);
    let (w, rest) = first_word(t);
    let rest = rest.trim().trim_end_matches(';').trim();
    let relation = match w.as_str() {
        "describe" | "desc" => rest,
        "summarize" => {
            return Ok(Some(Statement::Inspect(Inspection::Summarize {
                text: relation_query(rest)?.1,
            })))
        }
        "show" => {
            let (w2, rest2) = first_word(rest);
            let (w3, _) = first_word(rest2.trim());
            match (w2.as_str(), w3.as_str()) {
                ("tables", "") | ("all", "tables") => {
                    return Ok(Some(Statement::Inspect(Inspection::ShowTables)))
                }
                ("columns", "from" | "in") => {
                    let (_, r) = first_word(rest2.trim());
                    r.trim()
                }
                _ => rest,
            }
        }
        _ => return Ok(None),
    };
    if relation.is_empty() {
        return Err(EngineError::Syntax(format!("{w} of what?")));
    }
    let (table, text) = relation_query(relation)?;
    let query = crate::sql::parse::parse_query(&text)?;
    Ok(Some(Statement::Inspect(Inspection::Describe {
        query: Box::new(query),
        text,
        table,
    })))
}

/// The query over a relation as written after DESCRIBE or SUMMARIZE: the
/// query itself, or `SELECT * FROM <relation>` (then `true`).
fn relation_query(rel: &str) -> Result<(bool, String)> {
    let (w, _) = first_word(rel);
    if matches!(w.as_str(), "select" | "with" | "from" | "values") || rel.starts_with('(') {
        return Ok((false, rel.to_string()));
    }
    if rel.is_empty() {
        return Err(EngineError::Syntax("SUMMARIZE of what?".into()));
    }
    Ok((true, format!("SELECT * FROM {rel}")))
}

fn strings(values: impl IntoIterator<Item = Option<String>>) -> Vector {
    let mut v = Vector::empty(LType::Varchar, 0);
    for s in values {
        v.push(&s.map_or(Value::Null, |s| Value::Str(s.into_bytes())));
    }
    v
}

fn column(name: &str, ty: LType, values: Vector) -> ResultColumn {
    ResultColumn {
        name: name.into(),
        ty,
        values,
    }
}

/// Runs an inspection statement.
pub fn run(engine: &Engine, catalog: &dyn Catalog, i: &Inspection) -> Result<QueryResult> {
    match i {
        Inspection::ShowTables => {
            let names = catalog.table_names()?;
            Ok(QueryResult {
                columns: vec![column(
                    "name",
                    LType::Varchar,
                    strings(names.into_iter().map(Some)),
                )],
            })
        }
        Inspection::Describe { query, text, table } => {
            let cols = engine.compile_columns(catalog, query, text)?;
            // A stored table knows which columns hold no NULLs (a file
            // read in place, like DuckDB's, does not say).
            let stored = |t: &crate::TableRef| match t {
                crate::TableRef::Named(n) => catalog
                    .table_names()
                    .map(|names| names.contains(n))
                    .unwrap_or(false),
                crate::TableRef::Function { .. } => false,
            };
            let nullable: Vec<bool> = match (table, crate::sql::table_ref::table_of(query)) {
                (true, Ok(tref)) if stored(&tref) => match catalog.open(&tref) {
                    Ok(t) if t.schema().fields.len() == cols.len() => {
                        t.schema().fields.iter().map(|f| f.nullable).collect()
                    }
                    _ => vec![true; cols.len()],
                },
                _ => vec![true; cols.len()],
            };
            let n = cols.len();
            Ok(QueryResult {
                columns: vec![
                    column(
                        "column_name",
                        LType::Varchar,
                        strings(cols.iter().map(|c| Some(c.name.clone()))),
                    ),
                    column(
                        "column_type",
                        LType::Varchar,
                        strings(cols.iter().map(|c| Some(c.ty.name()))),
                    ),
                    column(
                        "null",
                        LType::Varchar,
                        strings(
                            nullable
                                .iter()
                                .map(|&b| Some(if b { "YES" } else { "NO" }.to_string())),
                        ),
                    ),
                    column("key", LType::Varchar, Vector::nulls(LType::Varchar, n)),
                    column("default", LType::Varchar, Vector::nulls(LType::Varchar, n)),
                    column("extra", LType::Varchar, Vector::nulls(LType::Varchar, n)),
                ],
            })
        }
        Inspection::Summarize { text } => summarize(engine, catalog, text),
    }
}

/// A quoted identifier.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The one value of a one-row result's column `c`.
fn cell(r: &QueryResult, c: usize) -> Value {
    if r.num_rows() == 0 {
        return Value::Null;
    }
    r.value(0, c)
}

/// The text of a value (NULL stays NULL).
fn text_of(r: &QueryResult, c: usize) -> Option<String> {
    match cell(r, c) {
        Value::Null => None,
        v => Some(format_value(r.columns[c].ty, &v)),
    }
}

/// `q` (between 0 and 1) of sorted values, interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn summarize(engine: &Engine, catalog: &dyn Catalog, text: &str) -> Result<QueryResult> {
    let q = crate::sql::parse::parse_query(text)?;
    let cols = engine.compile_columns(catalog, &q, text)?;
    let mut out: Vec<Vec<Option<String>>> = vec![Vec::new(); 10];
    let (mut uniques, mut counts, mut nulls) = (
        Vector::empty(LType::Int64, 0),
        Vector::empty(LType::Int64, 0),
        Vector::empty(LType::Decimal(9, 2), 0),
    );
    for c in &cols {
        let name = quote(&c.name);
        let numeric = c.ty.is_numeric();
        let avg = if numeric {
            format!("CAST(avg({name}) AS VARCHAR)")
        } else {
            "NULL".into()
        };
        let sql = format!(
            "SELECT CAST(min({name}) AS VARCHAR), CAST(max({name}) AS VARCHAR), count(DISTINCT {name}), {avg}, count(*), count({name}) FROM ({text}) AS __summarized"
        );
        let r = engine.query_in(catalog, &sql)?;
        let (total, live) = match (cell(&r, 4), cell(&r, 5)) {
            (Value::Int(t), Value::Int(l)) => (t, l),
            _ => (0, 0),
        };
        let (mut std, mut qs) = (None, [None, None, None]);
        if numeric && live > 0 {
            let vals = engine.query_in(
                catalog,
                &format!("SELECT CAST({name} AS DOUBLE) FROM ({text}) AS __summarized WHERE {name} IS NOT NULL ORDER BY 1"),
            )?;
            let xs: Vec<f64> = (0..vals.num_rows())
                .filter_map(|i| match vals.value(i, 0) {
                    Value::Float(f) => Some(f),
                    _ => None,
                })
                .collect();
            if !xs.is_empty() {
                let n = xs.len() as f64;
                let mean = xs.iter().sum::<f64>() / n;
                if xs.len() > 1 {
                    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
                    std = Some(crate::value::format_float_text(var.sqrt(), false));
                }
                for (k, p) in [0.25, 0.5, 0.75].into_iter().enumerate() {
                    let v = quantile(&xs, p);
                    qs[k] = Some(if c.ty.is_integer() {
                        format!("{}", v.round() as i128)
                    } else {
                        crate::value::format_float_text(v, false)
                    });
                }
            }
        }
        out[0].push(Some(c.name.clone()));
        out[1].push(Some(c.ty.name()));
        out[2].push(text_of(&r, 0));
        out[3].push(text_of(&r, 1));
        uniques.push(&cell(&r, 2));
        out[4].push(text_of(&r, 3));
        out[5].push(std);
        for (k, v) in qs.into_iter().enumerate() {
            out[6 + k].push(v);
        }
        counts.push(&Value::Int(total));
        let pct = if total == 0 {
            0
        } else {
            // Percent with two decimals, rounded half away from zero.
            let x = i128::from(total - live) * 10_000;
            let t = i128::from(total);
            ((x + t / 2) / t) as i64
        };
        nulls.push(&Value::Int(pct));
    }
    let mut it = out.into_iter().map(strings);
    let mut next = || {
        it.next()
            .unwrap_or_else(|| Vector::empty(LType::Varchar, 0))
    };
    let (name, ty, min, max, avg, std, q25, q50, q75) = (
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
    );
    Ok(QueryResult {
        columns: vec![
            column("column_name", LType::Varchar, name),
            column("column_type", LType::Varchar, ty),
            column("min", LType::Varchar, min),
            column("max", LType::Varchar, max),
            column("approx_unique", LType::Int64, uniques),
            column("avg", LType::Varchar, avg),
            column("std", LType::Varchar, std),
            column("q25", LType::Varchar, q25),
            column("q50", LType::Varchar, q50),
            column("q75", LType::Varchar, q75),
            column("count", LType::Int64, counts),
            column("null_percentage", LType::Decimal(9, 2), nulls),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_statements() {
        let is = |t: &str| matches!(parse_inspection(t), Ok(Some(_)));
        assert!(is("DESCRIBE t"));
        assert!(is("-- c\n describe SELECT 1"));
        assert!(is("SHOW TABLES"));
        assert!(is("show all tables;"));
        assert!(is("SHOW COLUMNS FROM t"));
        assert!(is("SUMMARIZE t"));
        assert!(!is("SELECT 1"));
        assert!(!is("-- describe\nSELECT 1"));
        assert_eq!(skip_comments("/* x */ -- y\n  SELECT"), "SELECT");
    }
}
