//! Aggregate calls and grouping: collecting the aggregates of a SELECT,
//! and rewriting its expressions over the aggregation's output (group keys
//! and aggregates) as slot references.

use sqlparser::ast::{self as sql, Expr as SqlExpr};

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
}

impl ExprBinder<'_> {
    /// `name(args)` of aggregate function `func`: its call joins the
    /// context's aggregates; the expression is a reference to its slot.
    pub(crate) fn aggregate_call(
        &mut self,
        name: &str,
        func: AggFunc,
        args: &[Option<SqlExpr>],
        distinct: bool,
    ) -> Result<TExpr> {
        if self.aggs.is_none() {
            return invalid(format!("aggregate {name}() is not allowed here"));
        }
        let (func, arg) = match (func, args) {
            (AggFunc::Count, [None] | []) if !distinct => (AggFunc::CountStar, None),
            (func, [Some(e)]) => {
                if contains_agg(e) {
                    return invalid("aggregate functions cannot be nested");
                }
                // The argument is bound where aggregates are not allowed.
                let outer = self.aggs.take();
                let arg = self.expr(e);
                self.aggs = outer;
                (func, Some(arg?))
            }
            _ => return invalid(format!("{name}() takes one argument")),
        };
        if distinct && func != AggFunc::Count {
            return unsupported(format!("{name}(DISTINCT ...)"));
        }
        let ty = func.result_type(arg.as_ref().map_or(LType::Null, |a| a.ty))?;
        let call = AggCall {
            func,
            arg,
            distinct,
            ty,
        };
        let ctx = self
            .aggs
            .as_mut()
            .ok_or_else(|| crate::error::EngineError::Internal("aggregate context lost".into()))?;
        let i = match ctx.aggs.iter().position(|a| *a == call) {
            Some(i) => i,
            None => {
                ctx.aggs.push(call);
                ctx.aggs.len() - 1
            }
        };
        Ok(TExpr {
            kind: ExprKind::Ref(ctx.nkeys + i),
            ty,
        })
    }
}

/// Whether a SQL expression calls an aggregate function (not counting
/// window functions, which are not aggregates of the SELECT).
#[recursive::recursive]
pub(crate) fn contains_agg(e: &SqlExpr) -> bool {
    let any = |v: &[&SqlExpr]| v.iter().any(|x| contains_agg(x));
    match e {
        SqlExpr::Function(f) => {
            if f.over.is_none() && AggFunc::is_aggregate(&func_name(f)) {
                return true;
            }
            match &f.args {
                sql::FunctionArguments::List(l) => l.args.iter().any(|a| match a {
                    sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => contains_agg(x),
                    _ => false,
                }),
                _ => false,
            }
        }
        SqlExpr::BinaryOp { left, right, .. } => any(&[left, right]),
        SqlExpr::UnaryOp { expr, .. }
        | SqlExpr::Nested(expr)
        | SqlExpr::Cast { expr, .. }
        | SqlExpr::IsNull(expr)
        | SqlExpr::IsNotNull(expr)
        | SqlExpr::Extract { expr, .. }
        | SqlExpr::Floor { expr, .. }
        | SqlExpr::Ceil { expr, .. } => contains_agg(expr),
        SqlExpr::Between {
            expr, low, high, ..
        } => any(&[expr, low, high]),
        SqlExpr::InList { expr, list, .. } => contains_agg(expr) || list.iter().any(contains_agg),
        SqlExpr::Like { expr, pattern, .. } | SqlExpr::ILike { expr, pattern, .. } => {
            any(&[expr, pattern])
        }
        SqlExpr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().is_some_and(contains_agg)
                || else_result.as_deref().is_some_and(contains_agg)
                || conditions
                    .iter()
                    .any(|c| contains_agg(&c.condition) || contains_agg(&c.result))
        }
        _ => false,
    }
}

/// Replaces every subtree equal to a group key by a reference to it.
pub(crate) fn replace_keys(mut e: TExpr, keys: &[TExpr]) -> TExpr {
    if !matches!(e.kind, ExprKind::Lit(_) | ExprKind::Ref(_)) {
        if let Some(k) = keys.iter().position(|k| *k == e) {
            return TExpr {
                kind: ExprKind::Ref(k),
                ty: e.ty,
            };
        }
    }
    e.for_each_child_mut(&mut |c| {
        let taken = std::mem::replace(c, TExpr::lit(Value::Null, LType::Null));
        *c = replace_keys(taken, keys);
    });
    e
}

/// Whether a SQL expression calls a window function (`f(...) OVER`).
#[recursive::recursive]
pub(crate) fn contains_window(e: &SqlExpr) -> bool {
    match e {
        SqlExpr::Function(f) => {
            f.over.is_some()
                || match &f.args {
                    sql::FunctionArguments::List(l) => l.args.iter().any(|a| match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => {
                            contains_window(x)
                        }
                        _ => false,
                    }),
                    _ => false,
                }
        }
        SqlExpr::BinaryOp { left, right, .. } => contains_window(left) || contains_window(right),
        SqlExpr::UnaryOp { expr, .. }
        | SqlExpr::Nested(expr)
        | SqlExpr::Cast { expr, .. }
        | SqlExpr::IsNull(expr)
        | SqlExpr::IsNotNull(expr) => contains_window(expr),
        SqlExpr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().is_some_and(contains_window)
                || else_result.as_deref().is_some_and(contains_window)
                || conditions
                    .iter()
                    .any(|c| contains_window(&c.condition) || contains_window(&c.result))
        }
        _ => false,
    }
}
