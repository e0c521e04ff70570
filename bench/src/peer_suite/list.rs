//! The suite's query list (`queries.sql`) and small tables (`tables.sql`), as `extract.py`
//! writes them: entries that start with a `-- @query` or `-- @table` header line.

use anyhow::{bail, Context, Result};

/// One query of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteQuery {
    /// Its number in the list (1-based).
    pub n: usize,
    /// Where it comes from: `file.slt:line` (the record's header line).
    pub source: String,
    /// The id of the table it reads (`aggregate_test_100` or a `-- @table` id).
    pub table: String,
    /// Whether DataFusion's own test expects an error from it.
    pub df_error: bool,
    /// The query, without a trailing `;`.
    pub sql: String,
}

/// One small table: DuckDB statements that create and fill it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSetup {
    /// Its id (`name@file.slt:line`).
    pub id: String,
    /// The table's name in the queries.
    pub name: String,
    /// The statements, in order, without trailing `;`.
    pub statements: Vec<String>,
}

/// Splits `text` into (header, body) pairs at lines starting with `marker`.
fn entries<'a>(text: &'a str, marker: &str) -> Vec<(&'a str, String)> {
    let mut out: Vec<(&str, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(marker) {
            out.push((rest.trim(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// Parses `queries.sql`.
pub fn parse_queries(text: &str) -> Result<Vec<SuiteQuery>> {
    let mut out = Vec::new();
    for (header, body) in entries(text, "-- @query ") {
        let words: Vec<&str> = header.split_whitespace().collect();
        let (Some(n), Some(source), Some(table)) = (
            words.first().and_then(|n| n.parse::<usize>().ok()),
            words.get(1),
            words.get(2).and_then(|t| t.strip_prefix("table=")),
        ) else {
            bail!("queries.sql: bad header `-- @query {header}`");
        };
        let sql = body.trim().trim_end_matches(';').trim_end().to_string();
        if sql.is_empty() {
            bail!("queries.sql: query {n} ({source}) is empty");
        }
        out.push(SuiteQuery {
            n,
            source: source.to_string(),
            table: table.to_string(),
            df_error: words.contains(&"df-error"),
            sql,
        });
    }
    Ok(out)
}

/// Parses `tables.sql`; statements end at a line ending with `;`.
pub fn parse_tables(text: &str) -> Result<Vec<TableSetup>> {
    let mut out = Vec::new();
    for (header, body) in entries(text, "-- @table ") {
        let mut words = header.split_whitespace();
        let id = words.next().context("tables.sql: a header without an id")?;
        let name = words
            .find_map(|w| w.strip_prefix("name="))
            .with_context(|| format!("tables.sql: table {id} has no name="))?;
        let mut statements = Vec::new();
        let mut cur = String::new();
        for line in body.lines() {
            cur.push_str(line);
            cur.push('\n');
            if line.trim_end().ends_with(';') {
                statements.push(cur.trim().trim_end_matches(';').to_string());
                cur.clear();
            }
        }
        if !cur.trim().is_empty() {
            statements.push(cur.trim().to_string());
        }
        if statements.is_empty() {
            bail!("tables.sql: table {id} has no statements");
        }
        out.push(TableSetup {
            id: id.to_string(),
            name: name.to_string(),
            statements,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_tables() {
        let q = parse_queries(
            "-- comment\n\n-- @query 1 a.slt:10 table=aggregate_test_100\nSELECT 1\nFROM t;\n\n\
             -- @query 2 a.slt:20 table=t@a.slt:5 df-error\nselect x from t;\n",
        )
        .unwrap();
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].sql, "SELECT 1\nFROM t");
        assert_eq!(q[0].table, "aggregate_test_100");
        assert!(!q[0].df_error && q[1].df_error);
        assert_eq!(q[1].source, "a.slt:20");
        let t = parse_tables(
            "-- x\n-- @table t@a.slt:5 name=t\nCREATE TABLE t (c int);\nINSERT INTO t VALUES\n(1),\n(2);\n",
        )
        .unwrap();
        assert_eq!(t[0].name, "t");
        assert_eq!(
            t[0].statements,
            vec!["CREATE TABLE t (c int)", "INSERT INTO t VALUES\n(1),\n(2)"]
        );
        assert!(parse_queries("-- @query x\nselect 1;").is_err());
        assert!(parse_queries("-- @query 1 a:1 table=t\n;").is_err());
    }

    #[test]
    fn the_shipped_lists_parse() {
        let q = parse_queries(super::super::QUERIES).unwrap();
        let t = parse_tables(super::super::TABLES).unwrap();
        assert!(q.len() > 100);
        for (i, query) in q.iter().enumerate() {
            assert_eq!(query.n, i + 1);
            assert!(
                query.table == super::super::AGG100 || t.iter().any(|t| t.id == query.table),
                "query {} reads an unknown table {}",
                query.n,
                query.table
            );
        }
    }
}
