//! The SQL dialect strata parses: DuckDB's as sqlparser knows it, plus the
//! null treatment DuckDB writes inside a window function's arguments
//! (`lag(x, 1 IGNORE NULLS)`), which sqlparser's DuckDB dialect lacks, and
//! DuckDB's (PostgreSQL's) precedence of the bitwise operators: `&`, `|`,
//! `<<`, `>>` and a prefix `~` are all one level, below `+` and above
//! comparisons, left to right (`4 | 1 & 2` is `(4 | 1) & 2`, `~1 + 1` is
//! `~(1 + 1)`), where sqlparser ranks `&` above `|` and `~` with `-`.
//!
//! The wrapper answers every question DuckDB's dialect overrides as it
//! does and reports DuckDB's type, so the parser's `dialect_of!` checks
//! treat it as DuckDB's; the test below compares the two on queries that
//! exercise their differences from sqlparser's defaults.

use std::any::TypeId;

use sqlparser::ast::{Expr, UnaryOperator};
use sqlparser::dialect::{Dialect, DuckDbDialect, Precedence};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// DuckDB's dialect, with null treatment in function arguments.
#[derive(Debug, Default, Clone, Copy)]
pub struct StrataDialect;

const DUCK: DuckDbDialect = DuckDbDialect {};

impl Dialect for StrataDialect {
    fn dialect(&self) -> TypeId {
        DUCK.dialect()
    }
    /// The bitwise operators share the level of `<<` and `>>`.
    fn prec_value(&self, prec: Precedence) -> u8 {
        match prec {
            Precedence::Ampersand | Precedence::Pipe => DUCK.prec_value(Precedence::Caret),
            other => DUCK.prec_value(other),
        }
    }
    /// A prefix `~` takes everything above the bitwise level as its operand.
    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        if parser.peek_token().token != Token::Tilde {
            return None;
        }
        parser.next_token();
        let operand = parser.parse_subexpr(self.prec_value(Precedence::Caret));
        Some(operand.map(|e| Expr::UnaryOp {
            op: UnaryOperator::BitwiseNot,
            expr: Box::new(e),
        }))
    }
    fn supports_window_function_null_treatment_arg(&self) -> bool {
        true
    }
    fn supports_trailing_commas(&self) -> bool {
        DUCK.supports_trailing_commas()
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        DUCK.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        DUCK.is_identifier_part(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        DUCK.identifier_quote_style(identifier)
    }
    fn supports_filter_during_aggregation(&self) -> bool {
        DUCK.supports_filter_during_aggregation()
    }
    fn supports_group_by_expr(&self) -> bool {
        DUCK.supports_group_by_expr()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        DUCK.supports_bitwise_shift_operators()
    }
    /// `* EXCEPT (a, b)`, DuckDB's other spelling of `* EXCLUDE (a, b)`.
    fn supports_select_wildcard_except(&self) -> bool {
        true
    }
    fn supports_named_fn_args_with_eq_operator(&self) -> bool {
        DUCK.supports_named_fn_args_with_eq_operator()
    }
    fn supports_named_fn_args_with_assignment_operator(&self) -> bool {
        DUCK.supports_named_fn_args_with_assignment_operator()
    }
    fn supports_dictionary_syntax(&self) -> bool {
        DUCK.supports_dictionary_syntax()
    }
    fn support_map_literal_syntax(&self) -> bool {
        DUCK.support_map_literal_syntax()
    }
    fn supports_lambda_functions(&self) -> bool {
        DUCK.supports_lambda_functions()
    }
    fn allow_extract_single_quotes(&self) -> bool {
        DUCK.allow_extract_single_quotes()
    }
    fn supports_explain_with_utility_options(&self) -> bool {
        DUCK.supports_explain_with_utility_options()
    }
    fn supports_load_extension(&self) -> bool {
        DUCK.supports_load_extension()
    }
    fn supports_array_typedef_with_brackets(&self) -> bool {
        DUCK.supports_array_typedef_with_brackets()
    }
    fn supports_from_first_select(&self) -> bool {
        DUCK.supports_from_first_select()
    }
    fn supports_order_by_all(&self) -> bool {
        DUCK.supports_order_by_all()
    }
    fn supports_select_wildcard_exclude(&self) -> bool {
        DUCK.supports_select_wildcard_exclude()
    }
    fn supports_notnull_operator(&self) -> bool {
        DUCK.supports_notnull_operator()
    }
    fn supports_install(&self) -> bool {
        DUCK.supports_install()
    }
    fn supports_detach(&self) -> bool {
        DUCK.supports_detach()
    }
    fn supports_select_wildcard_replace(&self) -> bool {
        DUCK.supports_select_wildcard_replace()
    }
    fn supports_comma_separated_trim(&self) -> bool {
        DUCK.supports_comma_separated_trim()
    }
    fn supports_numeric_literal_underscores(&self) -> bool {
        DUCK.supports_numeric_literal_underscores()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::parser::Parser;

    fn parse(d: &dyn Dialect, sql: &str) -> String {
        Parser::parse_sql(d, sql).map_or_else(|e| format!("error: {e}"), |s| format!("{s:?}"))
    }

    #[test]
    fn parses_as_duckdb_does() {
        for sql in [
            "SELECT a // 2, x -> x + 1, {'a': 1}, MAP {1: 2}, 1_000 FROM t",
            "FROM t SELECT * EXCLUDE (a) REPLACE (b AS c) ORDER BY ALL",
            "SELECT count(*) FILTER (WHERE a > 1), trim(a, 'x'), a NOTNULL, f(a := 1) FROM t",
            "SELECT \"a\"\"b\", 1 << 2, $x FROM t GROUP BY ALL",
            "SELECT a, FROM t",
        ] {
            assert_eq!(parse(&StrataDialect, sql), parse(&DUCK, sql), "{sql}");
        }
        assert!(!parse(
            &StrataDialect,
            "SELECT lag(x, 1 IGNORE NULLS) OVER () FROM t"
        )
        .starts_with("error"));
    }

    /// The tree of the first select item, every operation in parentheses
    /// and the source's own parentheses dropped.
    fn shape(sql: &str) -> String {
        fn render(e: &Expr) -> String {
            match e {
                Expr::BinaryOp { left, op, right } => {
                    format!("({} {op} {})", render(left), render(right))
                }
                Expr::UnaryOp { op, expr } => format!("({op}{})", render(expr)),
                Expr::Nested(inner) => render(inner),
                other => other.to_string(),
            }
        }
        let stmts = Parser::parse_sql(&StrataDialect, sql).expect("parses");
        let sqlparser::ast::Statement::Query(q) = &stmts[0] else {
            panic!("not a query: {sql}")
        };
        let sqlparser::ast::SetExpr::Select(select) = q.body.as_ref() else {
            panic!("not a select: {sql}")
        };
        match &select.projection[0] {
            sqlparser::ast::SelectItem::UnnamedExpr(e) => render(e),
            other => panic!("unexpected item {other}"),
        }
    }

    #[test]
    fn bitwise_operators_share_one_level() {
        let same = |a: &str, b: &str| assert_eq!(shape(a), shape(b), "{a}");
        same("SELECT 4 | 1 & 2", "SELECT (4 | 1) & 2");
        same("SELECT 6 & 3 << 1", "SELECT (6 & 3) << 1");
        same("SELECT 1 << 2 + 1", "SELECT 1 << (2 + 1)");
        same("SELECT ~1 + 1", "SELECT ~(1 + 1)");
        same("SELECT ~1 = -2", "SELECT (~1) = -2");
        same("SELECT a | b = 5", "SELECT (a | b) = 5");
    }
}
