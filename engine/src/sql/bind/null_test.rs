//! `x IS [NOT] NULL` where `x` is NULL exactly when one of its operands is
//! (`a * b`, `-a`, `a + 1`, a cast between fixed-width types): the test is
//! made on the operands, and `x` itself is never computed. `(a * 1000) IS
//! NOT NULL` becomes `a IS NOT NULL`, which the table engine answers from
//! the column's NULL runs without reading a value, and which cannot fail on
//! an overflow the product would raise. DuckDB reaches the same answer where
//! its statistics show the operands hold no NULL (it then drops the test).

use crate::expr::{ArithOp, ExprKind, TExpr};
use crate::value::{LType, Value};

/// `x IS NULL` (`x IS NOT NULL` with `not`), tested on the operands of `x`
/// where `x` is NULL exactly when one of them is.
pub(crate) fn is_null(x: TExpr, not: bool) -> TExpr {
    let mut operands = Vec::new();
    strict_operands(x, &mut operands);
    let mut tests: Vec<TExpr> = Vec::with_capacity(operands.len());
    for o in operands {
        match o.as_lit() {
            // A non-NULL constant operand decides nothing.
            Some(v) if !matches!(v, Value::Null) => {}
            _ => tests.push(TExpr {
                kind: ExprKind::IsNull(Box::new(o), not),
                ty: LType::Bool,
            }),
        }
    }
    match tests.len() {
        // Only non-NULL constants: never NULL.
        0 => TExpr::lit(Value::Bool(not), LType::Bool),
        1 => tests
            .pop()
            .unwrap_or_else(|| TExpr::lit(Value::Bool(not), LType::Bool)),
        // NULL when any operand is; not NULL when every one is not.
        _ => TExpr {
            kind: if not {
                ExprKind::And(tests)
            } else {
                ExprKind::Or(tests)
            },
            ty: LType::Bool,
        },
    }
}

/// Pushes the operands of `x` whose NULLs are exactly its NULLs, looking
/// through such operands in turn; `x` itself where it is not such an
/// expression.
fn strict_operands(x: TExpr, out: &mut Vec<TExpr>) {
    if !is_strict(&x) {
        out.push(x);
        return;
    }
    let ty = x.ty;
    match x.kind {
        ExprKind::Arith(_, a, b) => {
            strict_operands(*a, out);
            strict_operands(*b, out);
        }
        ExprKind::Neg(a) | ExprKind::Cast(a) => strict_operands(*a, out),
        kind => out.push(TExpr { kind, ty }),
    }
}

/// Whether `x` is NULL exactly when one of its operands is: it either fails
/// or gives a value otherwise. Addition, subtraction and multiplication
/// (division and modulo give NULL for a zero divisor), negation, and casts
/// between types other than strings (a string cast is of text to parse).
fn is_strict(x: &TExpr) -> bool {
    match &x.kind {
        ExprKind::Arith(op, a, b) => {
            matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul)
                && ![a.ty, b.ty].contains(&LType::Null)
        }
        ExprKind::Neg(a) => a.ty != LType::Null,
        ExprKind::Cast(a) => {
            let text = |t: LType| matches!(t, LType::Varchar | LType::Null);
            !text(a.ty) && !text(x.ty)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(i: usize, ty: LType) -> TExpr {
        TExpr {
            kind: ExprKind::Col(i),
            ty,
        }
    }

    fn arith(op: ArithOp, a: TExpr, b: TExpr) -> TExpr {
        let ty = a.ty;
        TExpr {
            kind: ExprKind::Arith(op, Box::new(a), Box::new(b)),
            ty,
        }
    }

    #[test]
    fn products_and_sums_are_tested_on_their_operands() {
        let (a, b) = (col(0, LType::Int64), col(1, LType::Int64));
        let k = TExpr::lit(Value::Int(-81485), LType::Int64);
        let e = arith(ArithOp::Mul, a.clone(), k.clone());
        assert_eq!(
            is_null(e, true),
            TExpr {
                kind: ExprKind::IsNull(Box::new(a.clone()), true),
                ty: LType::Bool
            }
        );
        let sum = arith(ArithOp::Add, arith(ArithOp::Mul, a, k), b);
        match is_null(sum, false).kind {
            ExprKind::Or(tests) => assert_eq!(tests.len(), 2),
            other => panic!("expected an OR of two tests, got {other:?}"),
        }
    }

    #[test]
    fn division_and_constants_are_kept_or_decided() {
        let a = col(0, LType::Double);
        let div = arith(ArithOp::Div, a.clone(), a);
        assert!(matches!(
            is_null(div, false).kind,
            ExprKind::IsNull(ref x, false) if matches!(x.kind, ExprKind::Arith(ArithOp::Div, ..))
        ));
        let two = arith(
            ArithOp::Add,
            TExpr::lit(Value::Int(1), LType::Int64),
            TExpr::lit(Value::Int(1), LType::Int64),
        );
        assert_eq!(is_null(two, false).as_lit(), Some(&Value::Bool(false)));
    }
}
