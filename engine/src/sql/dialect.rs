//! The SQL dialect strata parses: DuckDB's as sqlparser knows it, plus the
//! null treatment DuckDB writes inside a window function's arguments
//! (`lag(x, 1 IGNORE NULLS)`), which sqlparser's DuckDB dialect lacks.
//!
//! The wrapper answers every question DuckDB's dialect overrides as it
//! does and reports DuckDB's type, so the parser's `dialect_of!` checks
//! treat it as DuckDB's; the test below compares the two on queries that
//! exercise their differences from sqlparser's defaults.

use std::any::TypeId;

use sqlparser::dialect::{Dialect, DuckDbDialect};

/// DuckDB's dialect, with null treatment in function arguments.
#[derive(Debug, Default, Clone, Copy)]
pub struct StrataDialect;

const DUCK: DuckDbDialect = DuckDbDialect {};

impl Dialect for StrataDialect {
    fn dialect(&self) -> TypeId {
        DUCK.dialect()
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
}
