//! A whole query: its WITH clause, its body (a SELECT, a set operation,
//! VALUES or a parenthesized query) and the ORDER BY / LIMIT that apply to
//! the body's result.

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use super::coerce::{cast_to, set_op_type, values_type};
use super::expr::ExprBinder;
use super::literal::fold;
use super::scope::Scope;
use super::{Binder, CteBinding};
use crate::error::{invalid, unsupported, EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::{Column, LogicalPlan, OrderKey, SetOpKind};
use crate::value::{LType, Value};

/// A query's LIMIT and OFFSET.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    /// LIMIT (`None`: no limit).
    pub limit: Option<u64>,
    /// OFFSET.
    pub offset: u64,
}

impl Limits {
    /// `plan` under a Limit node, if there is a limit or an offset.
    pub(crate) fn apply(self, plan: LogicalPlan) -> LogicalPlan {
        if self.limit.is_none() && self.offset == 0 {
            return plan;
        }
        LogicalPlan::Limit {
            input: plan.boxed(),
            limit: self.limit,
            offset: self.offset,
        }
    }
}

/// The ORDER BY of a query, as written.
pub(crate) enum OrderSpec<'q> {
    /// No ORDER BY.
    None,
    /// `ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]`.
    All(&'q sql::OrderByOptions),
    /// `ORDER BY e1, e2, ...`.
    Exprs(&'q [sql::OrderByExpr]),
}

impl<'q> OrderSpec<'q> {
    fn of(q: &'q sql::Query) -> Result<OrderSpec<'q>> {
        Ok(match &q.order_by {
            None => OrderSpec::None,
            Some(o) => {
                if o.interpolate.is_some() {
                    return unsupported("ORDER BY ... INTERPOLATE");
                }
                match &o.kind {
                    sql::OrderByKind::All(opts) => OrderSpec::All(opts),
                    sql::OrderByKind::Expressions(v) => OrderSpec::Exprs(v),
                }
            }
        })
    }
}

/// Direction and NULL placement of one ORDER BY item (DuckDB: ASC, NULLS
/// LAST by default).
pub(crate) fn order_options(o: &sql::OrderByOptions) -> Result<(bool, bool)> {
    let desc = match &o.sort {
        None | Some(sql::OrderBySort::Asc) => false,
        Some(sql::OrderBySort::Desc) => true,
        Some(sql::OrderBySort::Using(_)) => return unsupported("ORDER BY ... USING"),
    };
    Ok((desc, o.nulls_first.unwrap_or(false)))
}

/// An ORDER BY key over `expr`, with `o`'s options.
pub(crate) fn order_key(expr: TExpr, o: &sql::OrderByExpr) -> Result<OrderKey> {
    if o.with_fill.is_some() {
        return unsupported("ORDER BY ... WITH FILL");
    }
    if let LType::List(_) = expr.ty {
        return unsupported(format!("ORDER BY a {}", expr.ty));
    }
    let (desc, nulls_first) = order_options(&o.options)?;
    Ok(OrderKey {
        expr,
        desc,
        nulls_first,
    })
}

/// A 1-based position written as an integer literal (`ORDER BY 2`), checked
/// against `n` items. As in DuckDB, only a literal that is a BIGINT is a
/// position: `GROUP BY 0.5` or `GROUP BY 18446744073709551615` group by a
/// constant.
pub(crate) fn ordinal(e: &SqlExpr, n: usize, what: &str) -> Result<Option<usize>> {
    if let SqlExpr::Value(v) = e {
        if let sql::Value::Number(text, _) = &v.value {
            let Ok(i) = text.parse::<i64>() else {
                return Ok(None);
            };
            if i <= 0 || i as u64 > n as u64 {
                return invalid(format!(
                    "{what} position {i} is not in the select list (1..{n})"
                ));
            }
            return Ok(Some(i as usize - 1));
        }
    }
    Ok(None)
}

fn limits(q: &sql::Query) -> Result<Limits> {
    let num = |e: &SqlExpr, what: &str| -> Result<Option<u64>> {
        let scope = Scope::default();
        let v = fold(ExprBinder::new(&scope).expr(e)?)?;
        match (v.as_lit(), v.ty) {
            (Some(Value::Null), _) => Ok(None),
            (Some(Value::Int(n)), t) if t.is_integer() => u64::try_from(*n)
                .map(Some)
                .map_err(|_| EngineError::Invalid(format!("{what} must not be negative"))),
            (Some(Value::UInt(n)), _) => Ok(Some(*n)),
            (Some(_), t) => invalid(format!("{what} must be an integer, not {t}")),
            (None, _) => unsupported(format!("{what} that is not a constant")),
        }
    };
    match &q.limit_clause {
        None => Ok(Limits::default()),
        Some(sql::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return unsupported("LIMIT BY");
            }
            let limit = match limit {
                None => None,
                Some(e) => num(e, "LIMIT")?,
            };
            let offset = match offset {
                None => 0,
                Some(o) => num(&o.value, "OFFSET")?.unwrap_or(0),
            };
            Ok(Limits { limit, offset })
        }
        Some(sql::LimitClause::OffsetCommaLimit { offset, limit }) => Ok(Limits {
            limit: num(limit, "LIMIT")?,
            offset: num(offset, "OFFSET")?.unwrap_or(0),
        }),
    }
}

impl Binder<'_> {
    /// Binds a query (a top-level one, a subquery or a CTE body).
    pub(crate) fn bind_query(&self, q: &sql::Query) -> Result<LogicalPlan> {
        if q.fetch.is_some() || !q.locks.is_empty() || q.for_clause.is_some() {
            return unsupported("FETCH / FOR UPDATE / FOR XML");
        }
        if q.settings.is_some() || q.format_clause.is_some() || !q.pipe_operators.is_empty() {
            return unsupported("SETTINGS / FORMAT / pipe operators");
        }
        let mark = self.state.borrow().visible.len();
        let r = self.with_clause(q).and_then(|()| self.body_of(q));
        self.state.borrow_mut().visible.truncate(mark);
        r
    }

    /// Binds the WITH clause's CTEs, each visible to the ones after it and
    /// to the query.
    fn with_clause(&self, q: &sql::Query) -> Result<()> {
        let Some(with) = &q.with else {
            return Ok(());
        };
        if with.recursive {
            return unsupported("WITH RECURSIVE");
        }
        let clause_start = self.state.borrow().visible.len();
        for cte in &with.cte_tables {
            let name = cte.alias.name.value.clone();
            if self.state.borrow().visible[clause_start..]
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(&name))
            {
                return invalid(format!("duplicate CTE name {name:?}"));
            }
            let plan = self.nested(|b| b.bind_query(&cte.query))?;
            let mut columns = plan.columns();
            dedup_names(&mut columns);
            rename_columns(&mut columns, &cte.alias.columns, &name)?;
            for c in &mut columns {
                c.qualifier = Some(name.clone());
            }
            let id = self.add_cte(&name, plan);
            self.state
                .borrow_mut()
                .visible
                .push(CteBinding { name, id, columns });
        }
        Ok(())
    }

    /// The query's body with its ORDER BY and LIMIT.
    fn body_of(&self, q: &sql::Query) -> Result<LogicalPlan> {
        let order = OrderSpec::of(q)?;
        let limits = limits(q)?;
        if let sql::SetExpr::Select(s) = q.body.as_ref() {
            return self.bind_select(s, &order, limits);
        }
        let plan = self.set_expr(&q.body)?;
        let plan = self.order_output(plan, &order)?;
        Ok(limits.apply(plan))
    }

    /// A query body as a plan.
    fn set_expr(&self, body: &sql::SetExpr) -> Result<LogicalPlan> {
        match body {
            sql::SetExpr::Select(s) => self.bind_select(s, &OrderSpec::None, Limits::default()),
            sql::SetExpr::Query(q) => self.nested(|b| b.bind_query(q)),
            sql::SetExpr::Values(v) => self.values(v),
            sql::SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } => {
                let kind = match op {
                    sql::SetOperator::Union => SetOpKind::Union,
                    sql::SetOperator::Intersect => SetOpKind::Intersect,
                    sql::SetOperator::Except | sql::SetOperator::Minus => SetOpKind::Except,
                };
                let all = match set_quantifier {
                    sql::SetQuantifier::All => true,
                    sql::SetQuantifier::Distinct | sql::SetQuantifier::None => false,
                    other => return unsupported(format!("{} {other}", kind.keyword())),
                };
                let l = self.set_expr(left)?;
                let r = self.set_expr(right)?;
                set_operation(kind, all, l, r)
            }
            sql::SetExpr::Table(_) => unsupported("TABLE <name> queries"),
            other => unsupported(format!(
                "query body {}",
                other.to_string().split_whitespace().next().unwrap_or("")
            )),
        }
    }

    /// `VALUES (...), (...)`: constant rows, columns named `col0`, `col1`, ...
    /// of each column's common type.
    pub(crate) fn values(&self, v: &sql::Values) -> Result<LogicalPlan> {
        let scope = Scope::default();
        let mut rows: Vec<Vec<TExpr>> = Vec::new();
        for row in &v.rows {
            let mut out = Vec::new();
            for e in row.iter() {
                let b = ExprBinder::new(&scope).expr(e)?;
                if !b.is_constant() {
                    return unsupported("VALUES with non-constant expressions");
                }
                out.push(b);
            }
            if let Some(first) = rows.first() {
                if first.len() != out.len() {
                    return invalid(format!(
                        "VALUES rows have different lengths ({} and {})",
                        first.len(),
                        out.len()
                    ));
                }
            }
            rows.push(out);
        }
        let width = rows.first().map_or(0, |r| r.len());
        let mut types = vec![LType::Null; width];
        for row in &rows {
            for (t, e) in types.iter_mut().zip(row) {
                *t = values_type(*t, e.ty)?;
            }
        }
        let mut cast_rows = Vec::with_capacity(rows.len());
        for row in rows {
            let mut out = Vec::with_capacity(width);
            for (e, &t) in row.into_iter().zip(&types) {
                out.push(cast_to(e, t)?);
            }
            cast_rows.push(out);
        }
        let columns = types
            .iter()
            .enumerate()
            .map(|(i, &t)| Column::new(format!("col{i}"), t))
            .collect();
        Ok(LogicalPlan::Values {
            rows: cast_rows,
            columns,
        })
    }

    /// ORDER BY over a plan's output columns (set operations, VALUES):
    /// by position, by name, or by an expression of the columns.
    fn order_output(&self, plan: LogicalPlan, order: &OrderSpec) -> Result<LogicalPlan> {
        let columns = plan.columns();
        let keys = match order {
            OrderSpec::None => return Ok(plan),
            OrderSpec::All(opts) => {
                let (desc, nulls_first) = order_options(opts)?;
                columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| OrderKey {
                        expr: TExpr {
                            kind: ExprKind::Col(i),
                            ty: c.ty,
                        },
                        desc,
                        nulls_first,
                    })
                    .collect()
            }
            OrderSpec::Exprs(exprs) => {
                let scope = Scope::new(columns.clone());
                let mut keys = Vec::new();
                for o in *exprs {
                    let e = match ordinal(&o.expr, columns.len(), "ORDER BY")? {
                        Some(i) => TExpr {
                            kind: ExprKind::Col(i),
                            ty: columns[i].ty,
                        },
                        None => ExprBinder::new(&scope).expr(&o.expr)?,
                    };
                    keys.push(order_key(e, o)?);
                }
                keys
            }
        };
        Ok(LogicalPlan::Sort {
            input: plan.boxed(),
            keys,
        })
    }

    /// The visible CTE named `name`, innermost first.
    pub(crate) fn cte(&self, name: &str) -> Option<(usize, Vec<Column>)> {
        let st = self.state.borrow();
        st.visible
            .iter()
            .rev()
            .find(|c| c.name == name)
            .or_else(|| {
                st.visible
                    .iter()
                    .rev()
                    .find(|c| c.name.eq_ignore_ascii_case(name))
            })
            .map(|c| (c.id, c.columns.clone()))
    }
}

/// Gives repeated column names of a subquery's output DuckDB's suffixes:
/// the second `a` becomes `a_1`, the third `a_2` (names compare ignoring
/// case).
pub(crate) fn dedup_names(columns: &mut [Column]) {
    let mut seen: Vec<String> = Vec::with_capacity(columns.len());
    for c in columns.iter_mut() {
        let base = c.name.clone();
        let mut n = 0;
        while seen.iter().any(|s| s.eq_ignore_ascii_case(&c.name)) {
            n += 1;
            c.name = format!("{base}_{n}");
        }
        seen.push(c.name.clone());
    }
}

/// Renames `columns` by a relation alias's column list (`AS t(a, b)`):
/// the first names are replaced, the rest kept.
pub(crate) fn rename_columns(
    columns: &mut [Column],
    names: &[sql::TableAliasColumnDef],
    relation: &str,
) -> Result<()> {
    if names.len() > columns.len() {
        return invalid(format!(
            "{relation} has {} columns but {} column names were given",
            columns.len(),
            names.len()
        ));
    }
    for (c, n) in columns.iter_mut().zip(names) {
        if n.data_type.is_some() {
            return unsupported("column types in a table alias");
        }
        c.name = n.name.value.clone();
    }
    Ok(())
}

/// `l op r` with the column types unified (DuckDB's rules for set
/// operations) and the left side's names.
fn set_operation(
    kind: SetOpKind,
    all: bool,
    l: LogicalPlan,
    r: LogicalPlan,
) -> Result<LogicalPlan> {
    let (lc, rc) = (l.columns(), r.columns());
    if lc.len() != rc.len() {
        return invalid(format!(
            "each {} query must have the same number of columns ({} and {})",
            kind.keyword(),
            lc.len(),
            rc.len()
        ));
    }
    let mut types = Vec::with_capacity(lc.len());
    for (a, b) in lc.iter().zip(&rc) {
        types.push(set_op_type(a.ty, b.ty)?);
    }
    let l = cast_columns(l, &types)?;
    let r = cast_columns(r, &types)?;
    let columns = lc
        .iter()
        .zip(&types)
        .map(|(c, &t)| Column::new(c.name.clone(), t))
        .collect();
    Ok(LogicalPlan::SetOp {
        kind,
        all,
        left: l.boxed(),
        right: r.boxed(),
        columns,
    })
}

/// `plan` with its columns cast to `types` (a Project where any differs).
pub(crate) fn cast_columns(plan: LogicalPlan, types: &[LType]) -> Result<LogicalPlan> {
    let columns = plan.columns();
    if columns.iter().zip(types).all(|(c, t)| c.ty == *t) {
        return Ok(plan);
    }
    let mut exprs = Vec::with_capacity(columns.len());
    let mut out = Vec::with_capacity(columns.len());
    for (i, (c, &t)) in columns.iter().zip(types).enumerate() {
        exprs.push(cast_to(
            TExpr {
                kind: ExprKind::Col(i),
                ty: c.ty,
            },
            t,
        )?);
        out.push(Column {
            qualifier: c.qualifier.clone(),
            name: c.name.clone(),
            ty: t,
        });
    }
    Ok(LogicalPlan::Project {
        input: plan.boxed(),
        exprs,
        columns: out,
    })
}
