//! Subqueries in expressions: scalar subqueries, `EXISTS` and `IN`,
//! uncorrelated or correlated, planned as joins (never run once per row).
//!
//! A subquery is bound where it appears into a placeholder
//! (`ExprKind::Subquery(i)`) and a plan; [`attach`] then joins each plan to
//! the rows the expression is evaluated over and gives the column that
//! replaces the placeholder:
//! - a scalar subquery: a SINGLE join (more than one row per outer row is
//!   an error, none gives NULL);
//! - `EXISTS`: a MARK join (a BOOLEAN column); `x IN (subquery)`: a MARK
//!   join on `x` with `IN`'s NULL rules. The rule `mark_join_to_semi` turns
//!   a mark tested directly by WHERE into a SEMI or ANTI join.
//!
//! A correlated subquery (one referring to columns of the query around it)
//! is decorrelated: the conditions of its WHERE that compare its own
//! expressions with the outer query's become join keys, its other
//! conditions on outer columns the join's filter; with an aggregate, the
//! subquery is grouped by its side of those keys and the value of an outer
//! row without rows (0 for COUNT, else NULL) is the join's default.

use super::literal::fold;
use crate::error::{unsupported, Result};
use crate::expr::{conjunction, conjuncts, CmpOp, ExprKind, TExpr};
use crate::plan::{Column, JoinKind, LogicalPlan};
use crate::value::{LType, Value};

/// What a subquery computes for its expression.
#[derive(Debug, Clone)]
pub(crate) enum SubqueryKind {
    /// `(SELECT ...)`: one value.
    Scalar,
    /// `EXISTS (SELECT ...)`.
    Exists,
    /// `expr IN (SELECT ...)`, `expr` already cast to the common type.
    In {
        /// The left operand, over the enclosing query's columns.
        expr: TExpr,
    },
}

/// A subquery bound inside an expression.
#[derive(Debug, Clone)]
pub(crate) struct BoundSubquery {
    /// What it computes.
    pub kind: SubqueryKind,
    /// Its plan; outer references are `ExprKind::Outer(k)`.
    pub plan: LogicalPlan,
    /// The enclosing scope's column of each outer reference `k`.
    pub outer: Vec<usize>,
    /// Met after aggregation (in HAVING or the select list of a grouped
    /// query) rather than over its input rows.
    pub post: bool,
}

/// `e` with each subquery placeholder `i` replaced by `by[i]`.
pub(crate) fn replace_placeholders(e: TExpr, by: &[TExpr]) -> TExpr {
    e.transform(&mut |x| match x.kind {
        ExprKind::Subquery(i) if i < by.len() => by[i].clone(),
        _ => x,
    })
}

fn col(i: usize, ty: LType) -> TExpr {
    TExpr {
        kind: ExprKind::Col(i),
        ty,
    }
}

fn has_outer(e: &TExpr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Outer(_)));
    found
}

fn plan_has_outer(p: &LogicalPlan) -> bool {
    let mut found = false;
    crate::rewrite::visit(p, &mut |n| {
        let mut look = |e: &TExpr| found |= has_outer(e);
        match n {
            LogicalPlan::Filter { predicate, .. } => look(predicate),
            LogicalPlan::Project { exprs, .. } => exprs.iter().for_each(&mut look),
            LogicalPlan::Aggregate { keys, aggs, .. } => {
                keys.iter().for_each(&mut look);
                aggs.iter().flat_map(|a| a.exprs()).for_each(&mut look);
            }
            LogicalPlan::Sort { keys, .. } => keys.iter().for_each(|k| look(&k.expr)),
            LogicalPlan::Window { calls, .. } => {
                calls.iter().flat_map(|c| c.exprs()).for_each(&mut look)
            }
            LogicalPlan::DistinctOn { on, order, .. } => {
                on.iter().for_each(&mut look);
                order.iter().for_each(|k| look(&k.expr));
            }
            LogicalPlan::Join { keys, filter, .. } => {
                keys.iter().for_each(|(a, b)| {
                    look(a);
                    look(b)
                });
                if let Some(f) = filter {
                    look(f);
                }
            }
            LogicalPlan::TableQuery(t) => {
                if let Some(f) = &t.filter {
                    look(f);
                }
            }
            _ => {}
        }
    });
    found
}

/// `plan` joined with each subquery in turn; per subquery, the expression
/// (a column of the result) its placeholder becomes. The subqueries' outer
/// references and `IN` operands are over `plan`'s columns.
pub(crate) fn attach(
    mut plan: LogicalPlan,
    subs: Vec<BoundSubquery>,
) -> Result<(LogicalPlan, Vec<TExpr>)> {
    let mut repl: Vec<TExpr> = Vec::with_capacity(subs.len());
    for mut s in subs {
        // An IN operand may use earlier subqueries of the expression.
        if let SubqueryKind::In { expr } = &mut s.kind {
            *expr = replace_placeholders(expr.clone(), &repl);
        }
        let width = plan.columns().len();
        let (p, e) = if s.outer.is_empty() {
            uncorrelated(plan, s, width)?
        } else {
            correlated(plan, s, width)?
        };
        plan = p;
        repl.push(e);
    }
    Ok((plan, repl))
}

fn join(
    kind: JoinKind,
    left: LogicalPlan,
    right: LogicalPlan,
    keys: Vec<(TExpr, TExpr)>,
    filter: Option<TExpr>,
) -> LogicalPlan {
    LogicalPlan::Join {
        kind,
        left: left.boxed(),
        right: right.boxed(),
        keys,
        filter,
    }
}

fn uncorrelated(plan: LogicalPlan, s: BoundSubquery, width: usize) -> Result<(LogicalPlan, TExpr)> {
    let sub_ty = s.plan.columns().first().map_or(LType::Null, |c| c.ty);
    Ok(match s.kind {
        SubqueryKind::Scalar => (
            join(
                JoinKind::Single { default: None },
                plan,
                s.plan,
                Vec::new(),
                None,
            ),
            col(width, sub_ty),
        ),
        SubqueryKind::Exists => (
            join(
                JoinKind::Mark { null_aware: false },
                plan,
                s.plan,
                Vec::new(),
                None,
            ),
            col(width, LType::Bool),
        ),
        SubqueryKind::In { expr } => (
            join(
                JoinKind::Mark { null_aware: true },
                plan,
                s.plan,
                vec![(expr, col(0, sub_ty))],
                None,
            ),
            col(width, LType::Bool),
        ),
    })
}

/// The outer reference `k` as a column of the enclosing plan.
fn outer_to_plan(e: TExpr, outer: &[usize]) -> TExpr {
    e.transform(&mut |x| match x.kind {
        ExprKind::Outer(k) => col(outer[k], x.ty),
        _ => x,
    })
}

/// A correlated condition `inner = outer` (either way round) as a key
/// pair (outer side, inner side).
fn equi_key(c: &TExpr) -> Option<(TExpr, TExpr)> {
    let ExprKind::Cmp(CmpOp::Eq, a, b) = &c.kind else {
        return None;
    };
    let pure_outer = |e: &TExpr| has_outer(e) && e.columns().is_empty();
    let pure_inner = |e: &TExpr| !has_outer(e) && !e.columns().is_empty();
    if pure_outer(a) && pure_inner(b) {
        Some(((**a).clone(), (**b).clone()))
    } else if pure_outer(b) && pure_inner(a) {
        Some(((**b).clone(), (**a).clone()))
    } else {
        None
    }
}

fn correlated(plan: LogicalPlan, s: BoundSubquery, width: usize) -> Result<(LogicalPlan, TExpr)> {
    let shape_error = || {
        unsupported("this correlated subquery (outer references only in a WHERE of SELECT ... FROM ... WHERE [aggregate])")
    };
    let LogicalPlan::Project {
        input,
        exprs,
        columns,
    } = s.plan
    else {
        return shape_error();
    };
    if exprs.iter().any(has_outer) {
        return unsupported("a correlated subquery using outer columns in its select list");
    }
    match *input {
        LogicalPlan::Filter {
            input: from,
            predicate,
        } => {
            if plan_has_outer(&from) {
                return shape_error();
            }
            correlated_rows(plan, s.kind, &s.outer, *from, predicate, exprs, width)
        }
        LogicalPlan::Aggregate {
            input: filtered,
            keys,
            aggs,
            columns: agg_columns,
        } if keys.is_empty() => {
            let LogicalPlan::Filter {
                input: from,
                predicate,
            } = *filtered
            else {
                return shape_error();
            };
            if plan_has_outer(&from) || aggs.iter().flat_map(|a| a.exprs()).any(has_outer) {
                return shape_error();
            }
            let _ = columns;
            correlated_aggregate(
                plan,
                s.kind,
                &s.outer,
                *from,
                predicate,
                (aggs, agg_columns),
                exprs,
                width,
            )
        }
        _ => shape_error(),
    }
}

/// A correlated subquery without aggregation: joined row by row.
fn correlated_rows(
    plan: LogicalPlan,
    kind: SubqueryKind,
    outer: &[usize],
    from: LogicalPlan,
    predicate: TExpr,
    exprs: Vec<TExpr>,
    width: usize,
) -> Result<(LogicalPlan, TExpr)> {
    let from_cols = from.columns();
    let nf = from_cols.len();
    let mut keys = Vec::new();
    let mut local = Vec::new();
    let mut residual = Vec::new();
    for c in conjuncts(predicate) {
        if !has_outer(&c) {
            local.push(c);
        } else if let Some((o, i)) = equi_key(&c) {
            keys.push((outer_to_plan(o, outer), i));
        } else {
            // Over the enclosing plan's columns, then the subquery's.
            let r = c.map_columns(&|i| i + width);
            residual.push(outer_to_plan(r, outer));
        }
    }
    let filtered = match conjunction(local) {
        Some(p) => LogicalPlan::Filter {
            input: from.boxed(),
            predicate: p,
        },
        None => from,
    };
    // The subquery's columns, then its select expression.
    let mut sexprs: Vec<TExpr> = from_cols
        .iter()
        .enumerate()
        .map(|(i, c)| col(i, c.ty))
        .collect();
    let mut scols = from_cols.clone();
    let value = exprs.into_iter().next();
    if let Some(v) = &value {
        scols.push(Column::new("#value", v.ty));
        sexprs.push(v.clone());
    }
    let right = LogicalPlan::Project {
        input: filtered.boxed(),
        exprs: sexprs,
        columns: scols,
    };
    let filter = conjunction(residual);
    Ok(match kind {
        SubqueryKind::Exists => (
            join(
                JoinKind::Mark { null_aware: false },
                plan,
                right,
                keys,
                filter,
            ),
            col(width, LType::Bool),
        ),
        SubqueryKind::In { expr } => {
            let ty = value.as_ref().map_or(LType::Null, |v| v.ty);
            keys.push((expr, col(nf, ty)));
            (
                join(
                    JoinKind::Mark { null_aware: true },
                    plan,
                    right,
                    keys,
                    filter,
                ),
                col(width, LType::Bool),
            )
        }
        SubqueryKind::Scalar => {
            let ty = value.as_ref().map_or(LType::Null, |v| v.ty);
            (
                join(
                    JoinKind::Single { default: None },
                    plan,
                    right,
                    keys,
                    filter,
                ),
                col(width + nf, ty),
            )
        }
    })
}

/// A correlated subquery with a global aggregate: grouped by its side of
/// the correlation's equalities, joined on them; an outer row without
/// rows gets the aggregate's value over no rows.
#[allow(clippy::too_many_arguments)]
fn correlated_aggregate(
    plan: LogicalPlan,
    kind: SubqueryKind,
    outer: &[usize],
    from: LogicalPlan,
    predicate: TExpr,
    (aggs, agg_columns): (Vec<crate::agg::func::AggCall>, Vec<Column>),
    exprs: Vec<TExpr>,
    width: usize,
) -> Result<(LogicalPlan, TExpr)> {
    let mut outer_keys = Vec::new();
    let mut inner_keys = Vec::new();
    let mut local = Vec::new();
    for c in conjuncts(predicate) {
        if !has_outer(&c) {
            local.push(c);
        } else if let Some((o, i)) = equi_key(&c) {
            outer_keys.push(outer_to_plan(o, outer));
            inner_keys.push(i);
        } else {
            return unsupported(
                "a correlated subquery with an aggregate and a condition on outer columns that is not an equality",
            );
        }
    }
    let Some(value) = exprs.into_iter().next() else {
        return unsupported("a subquery without a select list");
    };
    let filtered = match conjunction(local) {
        Some(p) => LogicalPlan::Filter {
            input: from.boxed(),
            predicate: p,
        },
        None => from,
    };
    let nk = inner_keys.len();
    // The value over no rows: COUNT is 0, every other aggregate NULL.
    let empty: Vec<TExpr> = aggs
        .iter()
        .map(|a| TExpr::lit(a.func.empty_value(), a.ty))
        .collect();
    let default = fold(value.clone().substitute(&empty))?;
    let default = default.as_lit().cloned().unwrap_or(Value::Null);
    let mut columns: Vec<Column> = inner_keys
        .iter()
        .map(|k| Column::new("#key", k.ty))
        .collect();
    columns.extend(agg_columns);
    let grouped = LogicalPlan::Aggregate {
        input: filtered.boxed(),
        keys: inner_keys.clone(),
        aggs,
        columns,
    };
    // The value first, then the keys to join on.
    let mut sexprs = vec![value.map_columns(&|i| i + nk)];
    let mut scols = vec![Column::new("#value", sexprs[0].ty)];
    for (i, k) in inner_keys.iter().enumerate() {
        sexprs.push(col(i, k.ty));
        scols.push(Column::new("#key", k.ty));
    }
    let ty = sexprs[0].ty;
    let right = LogicalPlan::Project {
        input: grouped.boxed(),
        exprs: sexprs,
        columns: scols,
    };
    let keys: Vec<(TExpr, TExpr)> = outer_keys
        .into_iter()
        .zip(&inner_keys)
        .enumerate()
        .map(|(i, (o, k))| (o, col(1 + i, k.ty)))
        .collect();
    let mut defaults = vec![default];
    defaults.extend(std::iter::repeat_n(Value::Null, nk));
    let joined = join(
        JoinKind::Single {
            default: Some(defaults),
        },
        plan,
        right,
        keys,
        None,
    );
    let v = col(width, ty);
    Ok(match kind {
        SubqueryKind::Scalar => (joined, v),
        SubqueryKind::In { expr } => (
            joined,
            TExpr {
                kind: ExprKind::Cmp(CmpOp::Eq, Box::new(expr), Box::new(v)),
                ty: LType::Bool,
            },
        ),
        SubqueryKind::Exists => (joined, TExpr::lit(Value::Bool(true), LType::Bool)),
    })
}
