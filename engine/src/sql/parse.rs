//! Parsing: SQL text to one statement, once per query (sqlparser with
//! DuckDB's dialect, see [`super::dialect`]; window frames' EXCLUDE
//! clauses through [`super::exclude`]).

use sqlparser::ast as sql;
use sqlparser::parser::{Parser, ParserError};

use crate::error::{internal, invalid, unsupported, EngineError, Result};

/// How deeply the parser lets expressions and queries nest. sqlparser
/// grows its stack as it recurses, so this bounds the work, not the
/// stack; past it the error says the query is too deeply nested.
pub const MAX_PARSE_DEPTH: usize = 2000;

/// A statement strata runs.
#[derive(Debug, Clone)]
pub enum Statement {
    /// A query.
    Query(Box<sql::Query>),
    /// `EXPLAIN [ANALYZE] <query>`.
    Explain {
        /// `EXPLAIN ANALYZE`: run the query and report each operator's rows
        /// and time.
        analyze: bool,
        /// The query explained.
        query: Box<sql::Query>,
    },
    /// `DESCRIBE`, `SHOW`, `SHOW TABLES` or `SUMMARIZE` (see
    /// [`crate::inspect`]).
    Inspect(crate::inspect::Inspection),
}

/// Parses SQL text into one statement.
pub fn parse(text: &str) -> Result<Statement> {
    if let Some(s) = crate::inspect::parse_inspection(text)? {
        return Ok(s);
    }
    let dialect = super::dialect::StrataDialect;
    let parser = Parser::new(&dialect).with_recursion_limit(MAX_PARSE_DEPTH);
    let parser = match super::exclude::rewrite(&dialect, text) {
        Some(tokens) => Ok(parser.with_tokens_with_locations(tokens)),
        None => parser.try_with_sql(text),
    };
    let mut stmts = parser
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| match e {
            ParserError::RecursionLimitExceeded => EngineError::Invalid(format!(
                "query too deeply nested (more than {MAX_PARSE_DEPTH} levels)"
            )),
            e => EngineError::Syntax(e.to_string()),
        })?;
    if stmts.len() != 1 {
        return invalid(format!("expected one statement, found {}", stmts.len()));
    }
    match stmts.pop() {
        Some(sql::Statement::Query(q)) => Ok(Statement::Query(q)),
        Some(sql::Statement::Explain {
            analyze,
            statement,
            format,
            ..
        }) => {
            if format.is_some() {
                return unsupported("EXPLAIN (FORMAT ...)");
            }
            match *statement {
                sql::Statement::Query(q) => Ok(Statement::Explain { analyze, query: q }),
                other => unsupported(format!("EXPLAIN of {}", first_words(&other.to_string()))),
            }
        }
        Some(other) => unsupported(format!("statement {}", first_words(&other.to_string()))),
        None => internal("no statement"),
    }
}

/// Parses SQL text that must be a query (not EXPLAIN).
pub fn parse_query(text: &str) -> Result<sql::Query> {
    match parse(text)? {
        Statement::Query(q) => Ok(*q),
        Statement::Explain { .. } => invalid("expected a query, found EXPLAIN"),
        Statement::Inspect(_) => invalid("expected a query, found DESCRIBE, SHOW or SUMMARIZE"),
    }
}

fn first_words(s: &str) -> String {
    s.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explain_and_depth() {
        assert!(matches!(
            parse("EXPLAIN ANALYZE SELECT 1"),
            Ok(Statement::Explain { analyze: true, .. })
        ));
        assert!(matches!(parse("SELEC 1"), Err(EngineError::Syntax(_))));
        let nots = format!("SELECT {}true", "NOT ".repeat(60));
        assert!(parse(&nots).is_ok());
        let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        match parse(&deep) {
            Err(EngineError::Invalid(m)) => assert!(m.contains("too deeply nested"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse("SELECT 1; SELECT 2"),
            Err(EngineError::Invalid(_))
        ));
    }
}
