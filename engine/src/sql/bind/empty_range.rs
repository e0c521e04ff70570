//! A WHERE clause whose comparisons of one expression with constants admit
//! no value: `x BETWEEN 7 AND 0`, `x > 5 AND x < 3`, `x = 1 AND x = 2`.
//!
//! Such a filter keeps no row whatever the data (a NULL `x` fails it too),
//! so it is FALSE before any row is read. DuckDB folds it the same way, and
//! so never evaluates the rest of the filter: a part that would fail on the
//! rows (a cast out of range, a division by zero) raises no error there,
//! and must raise none here.

use std::cmp::Ordering;

use crate::expr::{CmpOp, ExprKind, TExpr};
use crate::value::{cmp_f64, LType, Value, Vector};

/// Whether the conjunction `predicate` holds for no row: some expression
/// is bounded by constants from below and above with nothing in between.
pub(crate) fn unsatisfiable(predicate: &TExpr) -> bool {
    let mut conjuncts = Vec::new();
    flatten_and(predicate, &mut conjuncts);
    let mut ranges: Vec<Range> = Vec::new();
    for c in conjuncts {
        let ExprKind::Cmp(op, a, b) = &c.kind else {
            continue;
        };
        let (x, op, v) = match (a.as_lit(), b.as_lit()) {
            (None, Some(v)) => (&**a, *op, v),
            (Some(v), None) => (&**b, op.flip(), v),
            _ => continue,
        };
        if matches!(v, Value::Null) || op == CmpOp::Ne {
            continue;
        }
        let at = match ranges.iter().position(|r| r.expr == x) {
            Some(i) => i,
            None => {
                ranges.push(Range {
                    expr: x,
                    lower: None,
                    upper: None,
                });
                ranges.len() - 1
            }
        };
        let r = &mut ranges[at];
        let ty = x.ty;
        if matches!(op, CmpOp::Eq | CmpOp::Ge | CmpOp::Gt) {
            r.lower = tighter(ty, r.lower.take(), (v, op != CmpOp::Gt), Ordering::Greater);
        }
        if matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Lt) {
            r.upper = tighter(ty, r.upper.take(), (v, op != CmpOp::Lt), Ordering::Less);
        }
        if r.is_empty() {
            return true;
        }
    }
    false
}

/// Bounds on one expression: a value and whether it is included.
struct Range<'a> {
    expr: &'a TExpr,
    lower: Option<(&'a Value, bool)>,
    upper: Option<(&'a Value, bool)>,
}

impl Range<'_> {
    fn is_empty(&self) -> bool {
        let (Some((lo, lo_in)), Some((hi, hi_in))) = (self.lower, self.upper) else {
            return false;
        };
        match cmp_values(self.expr.ty, lo, hi) {
            Some(Ordering::Greater) => true,
            Some(Ordering::Equal) => !(lo_in && hi_in),
            _ => false,
        }
    }
}

/// Of bound `old` and bound `new`, the one further in direction `want`
/// (a larger lower bound, a smaller upper bound); `old` where the values
/// do not compare.
fn tighter<'a>(
    ty: LType,
    old: Option<(&'a Value, bool)>,
    new: (&'a Value, bool),
    want: Ordering,
) -> Option<(&'a Value, bool)> {
    let Some(old) = old else {
        return Some(new);
    };
    match cmp_values(ty, new.0, old.0) {
        Some(o) if o == want => Some(new),
        Some(Ordering::Equal) => Some((old.0, old.1 && new.1)),
        _ => Some(old),
    }
}

/// Two constants of type `ty` in SQL's order (`-0.0` equals `0.0`; NaN
/// after every number); `None` where strata has no order for them.
fn cmp_values(ty: LType, a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => Some(cmp_f64(*x, *y)),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Str(_), _) | (_, Value::Str(_)) => None,
        _ => {
            let ka = Vector::constant(ty, a, 1).key(0)?;
            let kb = Vector::constant(ty, b, 1).key(0)?;
            Some(ka.cmp(&kb))
        }
    }
}

fn flatten_and<'a>(e: &'a TExpr, out: &mut Vec<&'a TExpr>) {
    match &e.kind {
        ExprKind::And(xs) => xs.iter().for_each(|x| flatten_and(x, out)),
        _ => out.push(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col() -> TExpr {
        TExpr {
            kind: ExprKind::Col(0),
            ty: LType::Int32,
        }
    }

    fn cmp(op: CmpOp, v: i64) -> TExpr {
        TExpr {
            kind: ExprKind::Cmp(
                op,
                Box::new(col()),
                Box::new(TExpr::lit(Value::Int(v), LType::Int32)),
            ),
            ty: LType::Bool,
        }
    }

    fn and(xs: Vec<TExpr>) -> TExpr {
        TExpr {
            kind: ExprKind::And(xs),
            ty: LType::Bool,
        }
    }

    #[test]
    fn empty_ranges_are_found() {
        assert!(unsatisfiable(&and(vec![
            cmp(CmpOp::Ge, 7),
            cmp(CmpOp::Le, 0)
        ])));
        assert!(unsatisfiable(&and(vec![
            cmp(CmpOp::Gt, 3),
            cmp(CmpOp::Lt, 3)
        ])));
        assert!(unsatisfiable(&and(vec![
            cmp(CmpOp::Eq, 1),
            cmp(CmpOp::Eq, 2)
        ])));
        assert!(unsatisfiable(&and(vec![
            cmp(CmpOp::Ge, 3),
            and(vec![cmp(CmpOp::Lt, 3), cmp(CmpOp::Gt, -5)])
        ])));
    }

    #[test]
    fn ranges_holding_a_value_are_kept() {
        assert!(!unsatisfiable(&and(vec![
            cmp(CmpOp::Ge, 3),
            cmp(CmpOp::Le, 3)
        ])));
        assert!(!unsatisfiable(&and(vec![
            cmp(CmpOp::Gt, -1),
            cmp(CmpOp::Lt, 1)
        ])));
        assert!(!unsatisfiable(&and(vec![
            cmp(CmpOp::Ne, 1),
            cmp(CmpOp::Eq, 2)
        ])));
        assert!(!unsatisfiable(&cmp(CmpOp::Eq, 2)));
    }

    #[test]
    fn signed_zeros_are_equal() {
        let f = TExpr {
            kind: ExprKind::Col(0),
            ty: LType::Double,
        };
        let c = |op, v: f64| TExpr {
            kind: ExprKind::Cmp(
                op,
                Box::new(f.clone()),
                Box::new(TExpr::lit(Value::Float(v), LType::Double)),
            ),
            ty: LType::Bool,
        };
        assert!(!unsatisfiable(&and(vec![
            c(CmpOp::Ge, 0.0),
            c(CmpOp::Le, -0.0)
        ])));
    }
}
