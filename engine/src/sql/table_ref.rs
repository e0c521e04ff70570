//! What a query's FROM clause names: a table (or path) by name, or a table
//! function call such as `read_csv('x.csv', delim=';')` with its arguments
//! parsed into typed values. The engine only produces these; a [`Catalog`]
//! (see the crate root) decides what they mean.
//!
//! [`Catalog`]: crate::Catalog

use std::fmt;

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use crate::error::{unsupported, EngineError, Result};

/// The one relation a query reads.
#[derive(Debug, Clone, PartialEq)]
pub enum TableRef {
    /// A table name or a quoted path, as written (parts joined by `.`).
    Named(String),
    /// A table function call: `name(args...)`.
    Function {
        /// The function name, lower-cased.
        name: String,
        /// The arguments in call order.
        args: Vec<TableArg>,
    },
}

/// One argument of a table function.
#[derive(Debug, Clone, PartialEq)]
pub struct TableArg {
    /// The name of a named argument (`delim=';'`, `delim := ';'`), as
    /// written (lower-cased); `None` for a positional one.
    pub name: Option<String>,
    /// The value.
    pub value: ArgValue,
}

/// A constant argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// A string literal (`'x'`; `E'\t'` with its escapes applied).
    Str(String),
    /// An integer literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A list literal: `['a.csv', 'b.csv']`.
    List(Vec<ArgValue>),
    /// A struct literal: `{'a': 'INTEGER', 'b': 'VARCHAR'}`, keys in order.
    Struct(Vec<(String, ArgValue)>),
}

impl ArgValue {
    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            ArgValue::Str(_) => "a string",
            ArgValue::Int(_) => "an integer",
            ArgValue::Bool(_) => "a boolean",
            ArgValue::List(_) => "a list",
            ArgValue::Struct(_) => "a struct",
        }
    }
}

impl fmt::Display for TableRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableRef::Named(n) => write!(f, "{n}"),
            TableRef::Function { name, args } => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    if let Some(n) = &a.name {
                        write!(f, "{n}=")?;
                    }
                    write!(f, "{}", a.value)?;
                }
                write!(f, ")")
            }
        }
    }
}

impl fmt::Display for ArgValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgValue::Str(s) => write!(f, "'{}'", s.replace('\'', "''")),
            ArgValue::Int(i) => write!(f, "{i}"),
            ArgValue::Bool(b) => write!(f, "{b}"),
            ArgValue::List(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            ArgValue::Struct(fields) => {
                write!(f, "{{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "'{}': {v}", k.replace('\'', "''"))?;
                }
                write!(f, "}}")
            }
        }
    }
}

/// A query of a table's first rows, in table order: a `SELECT` of columns or
/// `*` from one table, without GROUP BY, HAVING, DISTINCT, ORDER BY or
/// functions, with a literal LIMIT (plus any OFFSET), and perhaps a WHERE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstRows {
    /// The LIMIT.
    pub limit: u64,
    /// The OFFSET (0 without one).
    pub offset: u64,
    /// Whether a WHERE clause picks the rows.
    pub filtered: bool,
}

/// How many rows from the start of its table answer `q`, when that is all
/// it reads: a [`FirstRows`] query without WHERE. Its answer is then the
/// table's first rows, so a catalog that loads tables on demand may load
/// only those (see [`crate::Catalog::open_head`]). `None` for every other
/// query.
pub fn head_rows(q: &sql::Query) -> Option<u64> {
    first_rows(q)
        .filter(|f| !f.filtered)
        .and_then(|f| f.limit.checked_add(f.offset))
}

/// `q` as a [`FirstRows`] query, if it is one.
pub fn first_rows(q: &sql::Query) -> Option<FirstRows> {
    let sql::SetExpr::Select(sel) = q.body.as_ref() else {
        return None;
    };
    let plain_column =
        |e: &SqlExpr| matches!(e, SqlExpr::Identifier(_) | SqlExpr::CompoundIdentifier(_));
    let columns_only = sel.projection.iter().all(|item| match item {
        sql::SelectItem::UnnamedExpr(e) | sql::SelectItem::ExprWithAlias { expr: e, .. } => {
            plain_column(e)
        }
        sql::SelectItem::Wildcard(_) | sql::SelectItem::QualifiedWildcard(..) => true,
        _ => false,
    });
    let no_grouping = match &sel.group_by {
        sql::GroupByExpr::Expressions(exprs, modifiers) => exprs.is_empty() && modifiers.is_empty(),
        sql::GroupByExpr::All(_) => false,
    };
    let one_table = sel.from.len() == 1 && sel.from.iter().all(|t| t.joins.is_empty());
    let plain = columns_only
        && no_grouping
        && one_table
        && sel.having.is_none()
        && sel.qualify.is_none()
        && sel.distinct.is_none()
        && sel.top.is_none()
        && sel.named_window.is_empty()
        && sel.sort_by.is_empty()
        && q.with.is_none()
        && q.order_by.is_none()
        && q.fetch.is_none();
    if !plain {
        return None;
    }
    let number = |e: &SqlExpr| match e {
        SqlExpr::Value(v) => match &v.value {
            sql::Value::Number(n, _) => n.parse::<u64>().ok(),
            _ => None,
        },
        _ => None,
    };
    let (limit, offset) = match &q.limit_clause {
        Some(sql::LimitClause::LimitOffset {
            limit: Some(limit),
            offset,
            limit_by,
        }) if limit_by.is_empty() => (
            number(limit)?,
            match offset {
                Some(o) => number(&o.value)?,
                None => 0,
            },
        ),
        Some(sql::LimitClause::OffsetCommaLimit { offset, limit }) => {
            (number(limit)?, number(offset)?)
        }
        _ => return None,
    };
    Some(FirstRows {
        limit,
        offset,
        filtered: sel.selection.is_some(),
    })
}

/// The words of a query that may name columns (see [`column_words`]),
/// computed when a catalog first asks for them: tokenizing the text again
/// is wasted on tables that are not loaded on demand.
#[derive(Debug, Default)]
pub struct ColumnWords<'q> {
    source: Option<(&'q sql::Query, &'q str)>,
    words: std::cell::OnceCell<Option<Vec<String>>>,
}

impl<'q> ColumnWords<'q> {
    /// The words of query `q`, whose text is `text`.
    pub fn of(q: &'q sql::Query, text: &'q str) -> ColumnWords<'q> {
        ColumnWords {
            source: Some((q, text)),
            words: std::cell::OnceCell::new(),
        }
    }

    /// No words known: any column may be read.
    pub fn any() -> ColumnWords<'q> {
        ColumnWords::default()
    }

    /// The words, or `None` when any column may be read.
    pub fn get(&self) -> Option<&[String]> {
        self.words
            .get_or_init(|| self.source.and_then(|(q, text)| column_words(q, text)))
            .as_deref()
    }
}

/// The words of a query that may name columns (every word token: a
/// superset of its column references), or `None` when it selects `*`. A
/// catalog that loads tables on demand may load only the columns named here.
pub fn column_words(q: &sql::Query, text: &str) -> Option<Vec<String>> {
    if let sql::SetExpr::Select(sel) = q.body.as_ref() {
        let wildcard = sel.projection.iter().any(|i| {
            matches!(
                i,
                sql::SelectItem::Wildcard(_) | sql::SelectItem::QualifiedWildcard(..)
            )
        });
        if wildcard {
            return None;
        }
    }
    let tokens = sqlparser::tokenizer::Tokenizer::new(&sqlparser::dialect::DuckDbDialect {}, text)
        .tokenize()
        .ok()?;
    let mut words: Vec<String> = tokens
        .into_iter()
        .filter_map(|t| match t {
            sqlparser::tokenizer::Token::Word(w) => Some(w.value),
            _ => None,
        })
        .collect();
    words.sort();
    words.dedup();
    Some(words)
}

/// The relation a single-table query reads: the one FROM item of its
/// SELECT.
pub fn table_of(q: &sql::Query) -> Result<TableRef> {
    let sql::SetExpr::Select(sel) = q.body.as_ref() else {
        return unsupported("a query that is not one SELECT");
    };
    match sel.from.as_slice() {
        [t] if t.joins.is_empty() => from_factor(&t.relation),
        [] => unsupported("SELECT without FROM"),
        _ => unsupported("joins"),
    }
}

/// The table reference of one FROM item.
pub(crate) fn from_factor(factor: &sql::TableFactor) -> Result<TableRef> {
    match factor {
        sql::TableFactor::Table {
            name, args: None, ..
        } => Ok(TableRef::Named(object_name(name))),
        sql::TableFactor::Table {
            name,
            args: Some(args),
            ..
        } => {
            if args.settings.is_some() {
                return unsupported("SETTINGS in a table function call");
            }
            function(&object_name(name), &args.args)
        }
        sql::TableFactor::TableFunction { expr, .. } => match expr {
            SqlExpr::Function(f) => match &f.args {
                sql::FunctionArguments::List(l) => function(&f.name.to_string(), &l.args),
                sql::FunctionArguments::None => function(&f.name.to_string(), &[]),
                sql::FunctionArguments::Subquery(_) => unsupported("subqueries in FROM"),
            },
            other => unsupported(format!("FROM TABLE({other})")),
        },
        sql::TableFactor::Derived { .. } => unsupported("subqueries in FROM"),
        other => unsupported(format!("FROM {other}")),
    }
}

fn object_name(name: &sql::ObjectName) -> String {
    name.0
        .iter()
        .map(|p| match p {
            sql::ObjectNamePart::Identifier(i) => i.value.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn function(name: &str, args: &[sql::FunctionArg]) -> Result<TableRef> {
    let name = name.to_lowercase();
    let args = args
        .iter()
        .map(|a| {
            let (arg_name, expr) = match a {
                sql::FunctionArg::Unnamed(e) => (None, e),
                sql::FunctionArg::Named { name, arg, .. } => (Some(name.value.to_lowercase()), arg),
                sql::FunctionArg::ExprNamed { name, arg, .. } => {
                    (Some(name.to_string().to_lowercase()), arg)
                }
            };
            let value = match expr {
                sql::FunctionArgExpr::Expr(e) => value(e).map_err(|e| match e {
                    EngineError::Invalid(msg) => EngineError::Invalid(format!(
                        "{name}: argument {}: {msg}",
                        arg_name.as_deref().unwrap_or("(positional)")
                    )),
                    other => other,
                })?,
                other => return unsupported(format!("{other} as a table function argument")),
            };
            Ok(TableArg {
                name: arg_name,
                value,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TableRef::Function { name, args })
}

/// A constant expression as an argument value.
fn value(e: &SqlExpr) -> Result<ArgValue> {
    match e {
        SqlExpr::Value(v) => match &v.value {
            sql::Value::SingleQuotedString(s)
            | sql::Value::DoubleQuotedString(s)
            | sql::Value::EscapedStringLiteral(s) => Ok(ArgValue::Str(s.clone())),
            sql::Value::Boolean(b) => Ok(ArgValue::Bool(*b)),
            sql::Value::Number(n, _) => n
                .parse()
                .map(ArgValue::Int)
                .map_err(|_| EngineError::Invalid(format!("expected an integer, found {n}"))),
            other => Err(EngineError::Invalid(format!(
                "expected a constant string, number or boolean, found {other}"
            ))),
        },
        SqlExpr::UnaryOp {
            op: sql::UnaryOperator::Minus,
            expr,
        } => match value(expr)? {
            ArgValue::Int(i) => Ok(ArgValue::Int(-i)),
            _ => Err(EngineError::Invalid(format!(
                "expected a constant, found {e}"
            ))),
        },
        SqlExpr::Nested(inner) => value(inner),
        SqlExpr::Array(a) => Ok(ArgValue::List(
            a.elem.iter().map(value).collect::<Result<_>>()?,
        )),
        SqlExpr::Dictionary(fields) => Ok(ArgValue::Struct(
            fields
                .iter()
                .map(|f| Ok((f.key.value.clone(), value(&f.value)?)))
                .collect::<Result<_>>()?,
        )),
        // Unquoted words (`header=true` is a literal; `x=csv` is not).
        SqlExpr::Identifier(i) if i.quote_style.is_none() => {
            match i.value.to_lowercase().as_str() {
                "true" => Ok(ArgValue::Bool(true)),
                "false" => Ok(ArgValue::Bool(false)),
                _ => Err(EngineError::Invalid(format!(
                    "expected a constant, found {i}"
                ))),
            }
        }
        other => Err(EngineError::Invalid(format!(
            "expected a constant, found {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse::parse_query as parse;

    fn tref(sql: &str) -> Result<TableRef> {
        table_of(&parse(sql)?)
    }

    #[test]
    fn queries_answered_by_the_first_rows() {
        let head = |sql: &str| head_rows(&parse(sql).unwrap());
        assert_eq!(head("SELECT * FROM t LIMIT 10"), Some(10));
        assert_eq!(
            head("SELECT a, \"B\" AS b, t.c FROM t LIMIT 5 OFFSET 20"),
            Some(25)
        );
        assert_eq!(head("SELECT * FROM t LIMIT 0"), Some(0));
        assert_eq!(
            first_rows(&parse("SELECT a FROM t WHERE b = 1 LIMIT 3 OFFSET 2").unwrap()),
            Some(FirstRows {
                limit: 3,
                offset: 2,
                filtered: true
            })
        );
        for sql in [
            "SELECT * FROM t",
            "SELECT * FROM t WHERE a > 1 LIMIT 10",
            "SELECT * FROM t ORDER BY a LIMIT 10",
            "SELECT a FROM t GROUP BY a LIMIT 10",
            "SELECT DISTINCT a FROM t LIMIT 10",
            "SELECT count(*) FROM t LIMIT 10",
            "SELECT a + 1 FROM t LIMIT 10",
            "SELECT 1 FROM t LIMIT 10",
            "SELECT a FROM t LIMIT NULL",
            "WITH u AS (SELECT * FROM t) SELECT * FROM u LIMIT 3",
        ] {
            assert_eq!(head(sql), None, "{sql}");
        }
    }

    #[test]
    fn words_that_may_be_columns() {
        let sql = "SELECT \"RegionID\", count(*) FROM 'x.parquet' WHERE a > 1 GROUP BY 1";
        let words = column_words(&parse(sql).unwrap(), sql).unwrap();
        for w in ["RegionID", "a", "count"] {
            assert!(words.iter().any(|x| x == w), "{w}: {words:?}");
        }
        let sql = "SELECT *, a FROM t";
        assert_eq!(column_words(&parse(sql).unwrap(), sql), None);
    }

    #[test]
    fn names_and_functions() {
        assert_eq!(
            tref("SELECT 1 FROM hits").unwrap(),
            TableRef::Named("hits".into())
        );
        assert_eq!(
            tref("SELECT 1 FROM 'data/x.csv'").unwrap(),
            TableRef::Named("data/x.csv".into())
        );
        let t = tref(
            "SELECT 1 FROM read_csv('x.csv', delim=';', header=false, \
             columns={'a': 'INTEGER', 'b': 'DECIMAL(3,1)'}, skip := 2, names=['p', 'q'])",
        )
        .unwrap();
        let TableRef::Function { name, args } = &t else {
            panic!("{t:?}")
        };
        assert_eq!(name, "read_csv");
        assert_eq!(args[0].name, None);
        assert_eq!(args[0].value, ArgValue::Str("x.csv".into()));
        assert_eq!(args[1].name.as_deref(), Some("delim"));
        assert_eq!(args[2].value, ArgValue::Bool(false));
        assert_eq!(
            args[3].value,
            ArgValue::Struct(vec![
                ("a".into(), ArgValue::Str("INTEGER".into())),
                ("b".into(), ArgValue::Str("DECIMAL(3,1)".into())),
            ])
        );
        assert_eq!(args[4].value, ArgValue::Int(2));
        assert_eq!(
            t.to_string(),
            "read_csv('x.csv', delim=';', header=false, \
             columns={'a': 'INTEGER', 'b': 'DECIMAL(3,1)'}, skip=2, names=['p', 'q'])"
        );
        assert!(matches!(
            tref("SELECT 1 FROM read_csv('x.csv', delim=1+1)"),
            Err(EngineError::Invalid(m)) if m.contains("delim")
        ));
    }
}
