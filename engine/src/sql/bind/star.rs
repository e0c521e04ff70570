//! The select list with its stars expanded: `*` and `t.*` with DuckDB's
//! `EXCLUDE (a, b)` and `REPLACE (expr AS a)`, and `COLUMNS('regex')`
//! (also inside an expression: `max(COLUMNS('^price'))` is one item per
//! matching column).

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use super::scope::Scope;
use crate::error::{invalid, unsupported, EngineError, Result};

/// What a select item computes.
#[derive(Debug, Clone)]
pub(crate) enum ItemExpr {
    /// A SQL expression.
    Sql(Box<SqlExpr>),
    /// The FROM clause's column at this position (from a star).
    Column(usize),
}

/// One item of an expanded select list.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// The output column's name.
    pub name: String,
    /// What it computes.
    pub expr: ItemExpr,
    /// Whether the name is an alias the query wrote.
    pub aliased: bool,
}

/// The expression's text as a column name. Printing deeply nested
/// expressions is safe: sqlparser's `Display for Expr` grows the stack as
/// it recurses (its `recursive-protection` feature, on by default).
pub(crate) fn expr_name(e: &SqlExpr) -> String {
    match e {
        SqlExpr::Identifier(i) => i.value.clone(),
        SqlExpr::CompoundIdentifier(parts) => {
            parts.last().map(|p| p.value.clone()).unwrap_or_default()
        }
        _ => e.to_string(),
    }
}

/// The select list of a SELECT over `scope`, stars expanded.
pub(crate) fn expand(projection: &[sql::SelectItem], scope: &Scope) -> Result<Vec<Item>> {
    let mut items = Vec::new();
    for it in projection {
        match it {
            sql::SelectItem::UnnamedExpr(e) => match columns_call(e)? {
                Some(pattern) => {
                    for (i, _) in matching(scope, &pattern)? {
                        items.push(Item {
                            name: scope.columns[i].name.clone(),
                            expr: ItemExpr::Sql(Box::new(with_column(e, &scope.columns[i].name))),
                            aliased: false,
                        });
                    }
                }
                None => items.push(Item {
                    name: expr_name(e),
                    expr: ItemExpr::Sql(Box::new(e.clone())),
                    aliased: false,
                }),
            },
            sql::SelectItem::ExprWithAlias { expr, alias } => {
                if columns_call(expr)?.is_some() {
                    return unsupported("an alias on COLUMNS(...)");
                }
                items.push(Item {
                    name: alias.value.clone(),
                    expr: ItemExpr::Sql(Box::new(expr.clone())),
                    aliased: true,
                });
            }
            sql::SelectItem::ExprWithAliases { .. } => {
                return unsupported("an expression with several aliases")
            }
            sql::SelectItem::Wildcard(opts) => {
                let all: Vec<usize> = scope.star.clone();
                items.extend(star(scope, all, opts)?);
            }
            sql::SelectItem::QualifiedWildcard(kind, opts) => {
                let q = match kind {
                    sql::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                        n.0.last()
                            .map(|p| p.to_string().trim_matches('"').to_string())
                            .unwrap_or_default()
                    }
                    sql::SelectItemQualifiedWildcardKind::Expr(e) => {
                        return unsupported(format!("{e}.*"))
                    }
                };
                let cols: Vec<usize> = scope
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| {
                        c.qualifier
                            .as_deref()
                            .is_some_and(|cq| cq.eq_ignore_ascii_case(&q))
                    })
                    .map(|(i, _)| i)
                    .collect();
                if cols.is_empty() {
                    return Err(scope.not_found(Some(&q), "*"));
                }
                items.extend(star(scope, cols, opts)?);
            }
        }
    }
    if items.is_empty() {
        return invalid("the select list is empty (every column excluded)");
    }
    Ok(items)
}

/// `*` over the columns `cols` with DuckDB's EXCLUDE and REPLACE.
fn star(
    scope: &Scope,
    cols: Vec<usize>,
    opts: &sql::WildcardAdditionalOptions,
) -> Result<Vec<Item>> {
    if opts.opt_ilike.is_some() || opts.opt_rename.is_some() {
        return unsupported(format!("* with {}", opts.to_string().trim()));
    }
    let find = |name: &str, what: &str| -> Result<usize> {
        let pos = |exact: bool| {
            cols.iter().position(|&i| {
                let n = &scope.columns[i].name;
                if exact {
                    n == name
                } else {
                    n.eq_ignore_ascii_case(name)
                }
            })
        };
        pos(true).or_else(|| pos(false)).ok_or_else(|| {
            EngineError::Invalid(format!(
                "column {name:?} in {what} not found in the FROM clause"
            ))
        })
    };
    let mut excluded = vec![false; cols.len()];
    let mut names: Vec<String> = match &opts.opt_exclude {
        None => Vec::new(),
        Some(sql::ExcludeSelectItem::Single(n)) => vec![n.clone()],
        Some(sql::ExcludeSelectItem::Multiple(v)) => v.clone(),
    }
    .into_iter()
    .map(|n| n.0.last().map(|p| p.to_string()).unwrap_or_default())
    .collect();
    // `* EXCEPT (...)`: the same as EXCLUDE.
    if let Some(ex) = &opts.opt_except {
        names.extend(
            std::iter::once(&ex.first_element)
                .chain(&ex.additional_elements)
                .map(|i| i.value.clone()),
        );
    }
    for n in names {
        let name = n.trim_matches('"');
        let i = find(name, "EXCLUDE")?;
        if excluded[i] {
            return invalid(format!("column {name:?} is excluded twice"));
        }
        excluded[i] = true;
    }
    let mut replaced: Vec<Option<SqlExpr>> = vec![None; cols.len()];
    if let Some(rep) = &opts.opt_replace {
        for r in &rep.items {
            let i = find(&r.column_name.value, "REPLACE")?;
            if excluded[i] || replaced[i].is_some() {
                return invalid(format!(
                    "column {:?} is both excluded and replaced, or replaced twice",
                    r.column_name.value
                ));
            }
            replaced[i] = Some(r.expr.clone());
        }
    }
    let mut out = Vec::new();
    for (k, &i) in cols.iter().enumerate() {
        if excluded[k] {
            continue;
        }
        let name = scope.columns[i].name.clone();
        out.push(match replaced[k].take() {
            Some(e) => Item {
                name,
                expr: ItemExpr::Sql(Box::new(e)),
                aliased: true,
            },
            None => Item {
                name,
                expr: ItemExpr::Column(i),
                aliased: false,
            },
        });
    }
    Ok(out)
}

/// The pattern of the one `COLUMNS(...)` call in `e`, if there is one
/// (`COLUMNS(*)` matches every column).
fn columns_call(e: &SqlExpr) -> Result<Option<String>> {
    let mut found: Vec<String> = Vec::new();
    find_columns_calls(e, &mut found)?;
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => unsupported("several COLUMNS(...) in one expression"),
    }
}

fn is_columns(f: &sql::Function) -> bool {
    f.name.to_string().eq_ignore_ascii_case("columns")
}

#[recursive::recursive]
fn find_columns_calls(e: &SqlExpr, out: &mut Vec<String>) -> Result<()> {
    match e {
        SqlExpr::Function(f) if is_columns(f) => {
            let sql::FunctionArguments::List(l) = &f.args else {
                return invalid("COLUMNS() needs a regular expression or *");
            };
            match l.args.as_slice() {
                [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard)] => {
                    out.push(".*".into())
                }
                [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(SqlExpr::Value(v)))] => {
                    match &v.value {
                        sql::Value::SingleQuotedString(s) => out.push(s.clone()),
                        _ => return invalid("COLUMNS() needs a string regular expression"),
                    }
                }
                _ => return unsupported("COLUMNS() with anything but a regular expression or *"),
            }
        }
        SqlExpr::Function(f) => {
            if let sql::FunctionArguments::List(l) = &f.args {
                for a in &l.args {
                    if let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) = a {
                        find_columns_calls(x, out)?;
                    }
                }
            }
        }
        SqlExpr::BinaryOp { left, right, .. } => {
            find_columns_calls(left, out)?;
            find_columns_calls(right, out)?;
        }
        SqlExpr::UnaryOp { expr, .. }
        | SqlExpr::Nested(expr)
        | SqlExpr::Cast { expr, .. }
        | SqlExpr::IsNull(expr)
        | SqlExpr::IsNotNull(expr) => find_columns_calls(expr, out)?,
        _ => {}
    }
    Ok(())
}

/// The columns whose names match `pattern` (a regular expression searched
/// in the name, as DuckDB's COLUMNS does).
fn matching<'s>(scope: &'s Scope, pattern: &str) -> Result<Vec<(usize, &'s str)>> {
    let re = regex::Regex::new(pattern)
        .map_err(|e| EngineError::Invalid(format!("bad regular expression in COLUMNS(): {e}")))?;
    let out: Vec<(usize, &str)> = scope
        .star
        .iter()
        .map(|&i| (i, scope.columns[i].name.as_str()))
        .filter(|(_, n)| re.is_match(n))
        .collect();
    if out.is_empty() {
        return invalid(format!("COLUMNS({pattern:?}) matches no column"));
    }
    Ok(out)
}

/// `e` with its `COLUMNS(...)` call replaced by the column `name`.
#[recursive::recursive]
fn with_column(e: &SqlExpr, name: &str) -> SqlExpr {
    let col = || SqlExpr::Identifier(sql::Ident::with_quote('"', name));
    let sub = |x: &SqlExpr| Box::new(with_column(x, name));
    match e {
        SqlExpr::Function(f) if is_columns(f) => col(),
        SqlExpr::Function(f) => {
            let mut f = f.clone();
            if let sql::FunctionArguments::List(l) = &mut f.args {
                for a in &mut l.args {
                    if let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) = a {
                        *x = with_column(x, name);
                    }
                }
            }
            SqlExpr::Function(f)
        }
        SqlExpr::BinaryOp { left, op, right } => SqlExpr::BinaryOp {
            left: sub(left),
            op: op.clone(),
            right: sub(right),
        },
        SqlExpr::UnaryOp { op, expr } => SqlExpr::UnaryOp {
            op: *op,
            expr: sub(expr),
        },
        SqlExpr::Nested(x) => SqlExpr::Nested(sub(x)),
        SqlExpr::IsNull(x) => SqlExpr::IsNull(sub(x)),
        SqlExpr::IsNotNull(x) => SqlExpr::IsNotNull(sub(x)),
        SqlExpr::Cast {
            kind,
            expr,
            data_type,
            format,
        } => SqlExpr::Cast {
            kind: kind.clone(),
            expr: sub(expr),
            data_type: data_type.clone(),
            format: format.clone(),
        },
        other => other.clone(),
    }
}
