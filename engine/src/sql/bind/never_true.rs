//! Filters that no row can pass, found while binding: a constant FALSE or
//! NULL conjunct, or conjuncts bounding one expression by constants that
//! leave no value between them (`x BETWEEN 1 AND 0`, `x > 5 AND x < 2`,
//! `x = 1 AND x = 2`). As in DuckDB, such a filter makes the query's input
//! empty, so the expressions it guards are never evaluated and cannot fail
//! (an overflow in `-x` of `WHERE -x BETWEEN 1 AND 0`).

use super::literal::fold;
use crate::expr::{CmpOp, ExprKind, TExpr};
use crate::value::{LType, Value};

/// Whether `predicate` is never TRUE, whatever the row.
pub(crate) fn never_true(predicate: &TExpr) -> bool {
    let mut conjuncts = Vec::new();
    collect_conjuncts(predicate, &mut conjuncts);
    if conjuncts
        .iter()
        .any(|c| matches!(c.as_lit(), Some(Value::Null | Value::Bool(false))))
    {
        return true;
    }
    let bounds: Vec<Bound> = conjuncts.iter().filter_map(|c| bound(c)).collect();
    bounds.iter().enumerate().any(|(i, a)| {
        bounds[i + 1..]
            .iter()
            .any(|b| a.expr == b.expr && (disjoint(a, b) || disjoint(b, a)))
    })
}

/// The conjuncts of `e`, through nested ANDs.
fn collect_conjuncts<'e>(e: &'e TExpr, out: &mut Vec<&'e TExpr>) {
    match &e.kind {
        ExprKind::And(v) => v.iter().for_each(|c| collect_conjuncts(c, out)),
        _ => out.push(e),
    }
}

/// `expr op value` with a constant `value`.
struct Bound<'e> {
    expr: &'e TExpr,
    op: CmpOp,
    value: &'e TExpr,
}

/// A comparison of an expression with a constant, constant on the right.
fn bound(c: &TExpr) -> Option<Bound<'_>> {
    let ExprKind::Cmp(op, l, r) = &c.kind else {
        return None;
    };
    let constant = |e: &TExpr| e.as_lit().is_some_and(|v| !matches!(v, Value::Null));
    if constant(r) && !constant(l) {
        Some(Bound {
            expr: l,
            op: *op,
            value: r,
        })
    } else if constant(l) && !constant(r) {
        let flipped = match op {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => *o,
        };
        Some(Bound {
            expr: r,
            op: flipped,
            value: l,
        })
    } else {
        None
    }
}

/// Whether `lo` as a lower bound (or an equality) and `hi` as an upper
/// bound (or an equality) admit no value.
fn disjoint(lo: &Bound, hi: &Bound) -> bool {
    use CmpOp::{Eq, Ge, Gt, Le, Lt};
    let strict = match (lo.op, hi.op) {
        (Ge | Eq, Le | Eq) => false,
        (Gt, Le | Lt | Eq) | (Ge | Eq, Lt) => true,
        _ => return false,
    };
    if lo.op == Eq && hi.op == Eq {
        return holds(CmpOp::Ne, lo.value, hi.value);
    }
    holds(if strict { Ge } else { Gt }, lo.value, hi.value)
}

/// Whether the comparison of two constants of one type is TRUE.
fn holds(op: CmpOp, a: &TExpr, b: &TExpr) -> bool {
    if a.ty != b.ty {
        return false;
    }
    let cmp = TExpr {
        kind: ExprKind::Cmp(op, Box::new(a.clone()), Box::new(b.clone())),
        ty: LType::Bool,
    };
    matches!(
        fold(cmp).as_ref().ok().and_then(|e| e.as_lit()),
        Some(Value::Bool(true))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> TExpr {
        TExpr::lit(Value::Int(v), LType::Int64)
    }

    fn cmp(op: CmpOp, l: TExpr, r: TExpr) -> TExpr {
        TExpr {
            kind: ExprKind::Cmp(op, Box::new(l), Box::new(r)),
            ty: LType::Bool,
        }
    }

    fn and(v: Vec<TExpr>) -> TExpr {
        TExpr {
            kind: ExprKind::And(v),
            ty: LType::Bool,
        }
    }

    #[test]
    fn empty_ranges_and_constants() {
        let x = TExpr {
            kind: ExprKind::Col(0),
            ty: LType::Int64,
        };
        let between = |lo, hi| {
            and(vec![
                cmp(CmpOp::Ge, x.clone(), int(lo)),
                cmp(CmpOp::Le, x.clone(), int(hi)),
            ])
        };
        assert!(never_true(&between(1, 0)));
        assert!(!never_true(&between(0, 0)));
        assert!(!never_true(&between(0, 1)));
        let open = and(vec![
            cmp(CmpOp::Lt, int(3), x.clone()),
            cmp(CmpOp::Lt, x.clone(), int(3)),
        ]);
        assert!(never_true(&open));
        let eqs = and(vec![
            cmp(CmpOp::Eq, x.clone(), int(1)),
            cmp(CmpOp::Eq, x.clone(), int(2)),
        ]);
        assert!(never_true(&eqs));
        assert!(!never_true(&cmp(CmpOp::Eq, x.clone(), int(1))));
        assert!(never_true(&TExpr::lit(Value::Null, LType::Bool)));
        assert!(never_true(&and(vec![
            cmp(CmpOp::Eq, x, int(1)),
            TExpr::lit(Value::Bool(false), LType::Bool),
        ])));
    }
}
