//! Aggregate calls and grouping: collecting the aggregates of a SELECT,
//! and rewriting its expressions over the aggregation's output (group keys
//! and aggregates) as slot references.

use sqlparser::ast::{self as sql, Expr as SqlExpr};
use std::ops::ControlFlow;

use super::expr::ExprBinder;
use super::function::func_name;
use crate::agg::func::{AggCall, AggFunc};
use crate::error::{invalid, unsupported, Result};
use crate::expr::{ExprKind, TExpr};
use crate::value::{LType, Value};

/// The aggregates found while binding a SELECT's expressions.
#[derive(Debug, Default)]
pub(crate) struct AggCtx {
    /// Distinct aggregate calls in order of appearance.
    pub aggs: Vec<AggCall>,
    /// The number of group keys (aggregate `i` is slot `nkeys + i`).
    pub nkeys: usize,
    /// Every group holds a row (a GROUP BY with keys and no grouping sets:
    /// no group is made of no rows).
    pub groups_have_rows: bool,
}

impl ExprBinder<'_> {
    /// `f`, a call of aggregate function `func` named `name` (bound by
    /// [`ExprBinder::bind_agg_call`]): its call joins the context's
    /// aggregates; the expression is a reference to its slot.
    pub(crate) fn aggregate_call(
        &mut self,
        name: &str,
        func: AggFunc,
        f: &sql::Function,
    ) -> Result<TExpr> {
        if self.aggs.is_none() {
            return invalid(format!("aggregate {name}() is not allowed here"));
        }
        if let Some((at, fractions)) = fraction_list(func, f) {
            return self.quantile_list(name, func, f, at, fractions);
        }
        let call = self.bind_agg_call(name, func, f)?;
        let ty = call.ty;
        let ctx = self
            .aggs
            .as_mut()
            .ok_or_else(|| crate::error::EngineError::Internal("aggregate context lost".into()))?;
        let known_null = null_over_null_constant(&call);
        let known = ctx
            .groups_have_rows
            .then(|| extreme_of_constant(&call))
            .flatten();
        let i = match ctx.aggs.iter().position(|a| *a == call) {
            Some(i) => i,
            None => {
                ctx.aggs.push(call);
                ctx.aggs.len() - 1
            }
        };
        if known_null {
            // The call stays (the SELECT aggregates all the same); the
            // expression is its value, a NULL constant, which then meets
            // other types as any NULL constant does (DuckDB's binder folds
            // such calls: `min(CAST(NULL AS INTEGER)) = DATE '2023-01-03'`
            // is NULL, not a type error).
            return Ok(TExpr::lit(Value::Null, ty));
        }
        if let Some(v) = known {
            // The same for the minimum or maximum of a constant over a
            // group's rows: the constant itself, its float sign too (`-0.0`,
            // which the sorted-vector states keep as order keys, canonical).
            return Ok(TExpr::lit(v, ty));
        }
        Ok(TExpr {
            kind: ExprKind::Ref(ctx.nkeys + i),
            ty,
        })
    }
}

impl ExprBinder<'_> {
    /// `quantile_cont(x, [a, b, ...])` (or `_disc`, `percentile_*`): one
    /// call per fraction, their values as a list (NULL over no values, as
    /// each quantile is). `at` is the fraction's argument position.
    fn quantile_list(
        &mut self,
        name: &str,
        func: AggFunc,
        f: &sql::Function,
        at: usize,
        fractions: &[SqlExpr],
    ) -> Result<TExpr> {
        if fractions.is_empty() {
            return unsupported(format!("{name}() with an empty list of fractions"));
        }
        let mut signs = Vec::new();
        let mut calls = Vec::new();
        for q in fractions {
            if let Some(v) = self.expr(q)?.as_lit() {
                signs.push(
                    matches!(v, Value::Int(x) if *x < 0)
                        || matches!(v, Value::Huge(x) if *x < 0)
                        || matches!(v, Value::Float(x) if x.is_sign_negative()),
                );
            }
            let mut one = f.clone();
            if let sql::FunctionArguments::List(l) = &mut one.args {
                if let Some(arg) = l.args.get_mut(at) {
                    *arg = sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(q.clone()));
                }
            }
            calls.push(self.aggregate_call(name, func, &one)?);
        }
        if signs.iter().any(|&s| s) && signs.iter().any(|&s| !s) {
            return invalid("QUANTILE parameters must have consistent signs");
        }
        super::function::list_of_values(calls, true)
    }
}

/// The position and elements of a quantile call's list of fractions
/// (`quantile_cont(x, [0.25, 0.5])`, `percentile_disc([0.1, 0.9]) WITHIN
/// GROUP (ORDER BY x)`), if it has one.
fn fraction_list(func: AggFunc, f: &sql::Function) -> Option<(usize, &[SqlExpr])> {
    if !matches!(func, AggFunc::QuantileCont | AggFunc::QuantileDisc) {
        return None;
    }
    let sql::FunctionArguments::List(l) = &f.args else {
        return None;
    };
    let at = if f.within_group.is_empty() { 1 } else { 0 };
    match l.args.get(at) {
        Some(sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(SqlExpr::Array(a)))) => {
            Some((at, &a.elem))
        }
        _ => None,
    }
}

/// The value of `min(c)` / `max(c)` of a constant `c` over rows, where no
/// FILTER may leave none.
fn extreme_of_constant(call: &AggCall) -> Option<Value> {
    if !matches!(call.func, AggFunc::Min | AggFunc::Max) || call.filter.is_some() {
        return None;
    }
    match call.args.as_slice() {
        [a] if a.ty == call.ty => a.as_lit().cloned(),
        _ => None,
    }
}

/// Whether `call` is NULL whatever the rows: an argument is a NULL constant
/// and the function skips NULL arguments and is NULL over no values (not
/// the counts, entropy, or GROUPING).
fn null_over_null_constant(call: &AggCall) -> bool {
    use AggFunc::*;
    let counts = matches!(
        call.func,
        CountStar | Count | ApproxCountDistinct | RegrCount | Entropy | Grouping
    );
    !counts
        && call
            .args
            .iter()
            .any(|a| matches!(a.as_lit(), Some(Value::Null)))
}

/// Whether a SQL expression calls an aggregate function (not counting
/// window functions, which are not aggregates of the SELECT, nor calls
/// inside subqueries, which aggregate their own rows).
pub(crate) fn contains_agg(e: &SqlExpr) -> bool {
    any_call(e, |f| {
        f.over.is_none() && AggFunc::is_aggregate(&func_name(f))
    })
}

/// Replaces every subtree equal to a group key by a reference to it.
///
/// Constants are left alone: DuckDB matches a constant key by how it is
/// written, so under ROLLUP(1 + 1) the key `1 + 1` is NULL where its set
/// leaves it out but a `2` stays 2. The binder finds such keys before they
/// fold (`ExprBinder::written_keys`).
pub(crate) fn replace_keys(mut e: TExpr, keys: &[TExpr]) -> TExpr {
    if !matches!(e.kind, ExprKind::Ref(_) | ExprKind::Lit(_)) {
        if let Some(k) = keys.iter().position(|k| *k == e) {
            return TExpr {
                kind: ExprKind::Ref(k),
                ty: e.ty,
            };
        }
    }
    // A key that is a BETWEEN (bound as an AND) within a longer AND chain,
    // which binding flattens: `(x BETWEEN a AND b) AND p` holds the key's
    // operands as a run of its own. (DuckDB, whose BETWEEN is a node of its
    // own, finds it; it does not find an OR key within a longer OR.)
    if let ExprKind::And(xs) = &mut e.kind {
        for (i, k) in keys.iter().enumerate() {
            let ExprKind::And(run) = &k.kind else {
                continue;
            };
            if run.len() < 2 || run.len() >= xs.len() {
                continue;
            }
            if let Some(at) = xs.windows(run.len()).position(|w| w == run.as_slice()) {
                let slot = TExpr {
                    kind: ExprKind::Ref(i),
                    ty: k.ty,
                };
                xs.splice(at..at + run.len(), [slot]);
            }
        }
    }
    e.for_each_child_mut(&mut |c| {
        let taken = std::mem::replace(c, TExpr::lit(Value::Null, LType::Null));
        *c = replace_keys(taken, keys);
    });
    e
}

/// Whether a SQL expression calls a window function (`f(...) OVER`),
/// outside subqueries.
pub(crate) fn contains_window(e: &SqlExpr) -> bool {
    any_call(e, |f| f.over.is_some())
}

/// Whether some function call in `e`, outside subqueries, satisfies `test`.
fn any_call(e: &SqlExpr, test: impl Fn(&sql::Function) -> bool) -> bool {
    struct Finder<F> {
        test: F,
        /// Subqueries entered and not yet left.
        depth: usize,
    }
    impl<F: Fn(&sql::Function) -> bool> sql::Visitor for Finder<F> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &sql::Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &sql::Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &SqlExpr) -> ControlFlow<()> {
            match e {
                SqlExpr::Function(f) if self.depth == 0 && (self.test)(f) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    let mut finder = Finder { test, depth: 0 };
    sql::Visit::visit(e, &mut finder).is_break()
}
