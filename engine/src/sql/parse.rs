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
    if let Some(stmt) = stmts.first_mut() {
        equals_args_to_comparisons(stmt);
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

/// DuckDB's dialect parses `f(a = b)` as a named argument `a` of `f`. No
/// scalar, aggregate or window function strata knows takes named arguments,
/// so inside an expression it is the comparison `a = b`, as DuckDB reads it
/// (`bool_and(x = 0)`). Table functions in FROM (`read_csv(f, header =
/// true)`) are not expressions and keep their named arguments.
fn equals_args_to_comparisons(stmt: &mut sql::Statement) {
    let _ = sql::visit_expressions_mut(stmt, |e| {
        if let sql::Expr::Function(f) = e {
            if let sql::FunctionArguments::List(list) = &mut f.args {
                for a in &mut list.args {
                    let name = match a {
                        sql::FunctionArg::Named {
                            name,
                            arg: sql::FunctionArgExpr::Expr(_),
                            operator: sql::FunctionArgOperator::Equals,
                        } => sql::Expr::Identifier(name.clone()),
                        sql::FunctionArg::ExprNamed {
                            name,
                            arg: sql::FunctionArgExpr::Expr(_),
                            operator: sql::FunctionArgOperator::Equals,
                        } => name.clone(),
                        _ => continue,
                    };
                    if let sql::FunctionArg::Named {
                        arg: sql::FunctionArgExpr::Expr(value),
                        ..
                    }
                    | sql::FunctionArg::ExprNamed {
                        arg: sql::FunctionArgExpr::Expr(value),
                        ..
                    } = a
                    {
                        let cmp = sql::Expr::BinaryOp {
                            left: Box::new(name),
                            op: sql::BinaryOperator::Eq,
                            right: Box::new(value.clone()),
                        };
                        *a = sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(cmp));
                    }
                }
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
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

    #[test]
    fn equals_in_function_arguments_compares() {
        let Ok(Statement::Query(q)) = parse("SELECT bool_and(x = 0), f(g(a = b)) FROM t") else {
            panic!("not a query");
        };
        assert_eq!(q.to_string(), "SELECT bool_and(x = 0), f(g(a = b)) FROM t");
        let sql::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("not a select");
        };
        let sql::SelectItem::UnnamedExpr(sql::Expr::Function(f)) = &s.projection[0] else {
            panic!("not a call");
        };
        let sql::FunctionArguments::List(l) = &f.args else {
            panic!("no arguments");
        };
        assert!(matches!(
            &l.args[0],
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::BinaryOp {
                op: sql::BinaryOperator::Eq,
                ..
            }))
        ));
        // Table functions keep their named arguments.
        let Ok(Statement::Query(q)) = parse("SELECT * FROM read_csv('x.csv', header = true)")
        else {
            panic!("not a query");
        };
        assert!(q.to_string().contains("header = true"));
    }
}
