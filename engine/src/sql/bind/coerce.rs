//! Types meeting types: DuckDB's implicit casts, the common type of two
//! operands, and DECIMAL arithmetic's result types.

use crate::error::{invalid, EngineError, Result};
use crate::expr::{cast_value, ArithOp, ExprKind, TExpr};
use crate::value::{LType, Value};

/// Casts `e` to `to` (folding constants).
pub fn cast_to(e: TExpr, to: LType) -> Result<TExpr> {
    if e.ty == to {
        return Ok(e);
    }
    if let ExprKind::Lit(v) = &e.kind {
        match cast_value(v, e.ty, to) {
            Ok(v) => return Ok(TExpr::lit(v, to)),
            // A value out of the target's range fails where a row evaluates
            // the cast, not when the query binds (DuckDB answers `SELECT
            // CAST(-5 AS UBIGINT) FROM t WHERE false`); a cast between types
            // that have none is a binding error.
            Err(EngineError::Runtime(_)) => {}
            Err(err) => return Err(err),
        }
    }
    Ok(TExpr {
        kind: ExprKind::Cast(Box::new(e)),
        ty: to,
    })
}

fn int_rank(t: LType) -> Option<(bool, u8)> {
    Some(match t {
        LType::Int8 => (true, 1),
        LType::Int16 => (true, 2),
        LType::Int32 => (true, 3),
        LType::Int64 => (true, 4),
        LType::HugeInt => (true, 5),
        LType::UInt8 => (false, 1),
        LType::UInt16 => (false, 2),
        LType::UInt32 => (false, 3),
        LType::UInt64 => (false, 4),
        _ => return None,
    })
}

fn signed_of_rank(r: u8) -> LType {
    match r {
        1 => LType::Int8,
        2 => LType::Int16,
        3 => LType::Int32,
        4 => LType::Int64,
        _ => LType::HugeInt,
    }
}

fn lit_fits(e: &TExpr, t: LType) -> bool {
    match (e.as_lit(), t.int_range()) {
        (Some(Value::Int(x)), Some((lo, hi))) => (lo..=hi).contains(&i128::from(*x)),
        (Some(Value::Huge(x)), Some((lo, hi))) => (lo..=hi).contains(x),
        _ => false,
    }
}

/// The DECIMAL(precision, scale) an exact numeric type converts to, as
/// DuckDB converts integers meeting a DECIMAL.
fn decimal_shape(t: LType) -> Option<(u8, u8)> {
    Some(match t {
        LType::Decimal(p, s) => (p, s),
        LType::Int8 | LType::UInt8 => (3, 0),
        LType::Int16 | LType::UInt16 => (5, 0),
        LType::Int32 | LType::UInt32 => (10, 0),
        LType::Int64 => (19, 0),
        LType::UInt64 => (20, 0),
        LType::HugeInt => (38, 0),
        _ => return None,
    })
}

/// How `l op r` computes exactly on scaled integers when a DECIMAL meets a
/// DECIMAL or an integer: the operand types and the result type.
pub(crate) struct DecimalArith {
    op: ArithOp,
    left: LType,
    right: LType,
    ty: LType,
}

impl DecimalArith {
    /// The typed expression over `l` and `r`.
    pub(crate) fn with(self, l: TExpr, r: TExpr) -> Result<TExpr> {
        Ok(TExpr {
            kind: ExprKind::Arith(
                self.op,
                Box::new(cast_to(l, self.left)?),
                Box::new(cast_to(r, self.right)?),
            ),
            ty: self.ty,
        })
    }
}

/// DuckDB's DECIMAL arithmetic: `+`/`-` in the larger scale with one more
/// integer digit, `%` in the larger scale and integer part, `*` adding
/// precisions and scales (at most 38 digits; 18 for two 64-bit operands);
/// `/`, `//` and anything with a float stay DOUBLE (`None`).
pub(crate) fn decimal_arith(op: ArithOp, l: &TExpr, r: &TExpr) -> Result<Option<DecimalArith>> {
    if !matches!(l.ty, LType::Decimal(..)) && !matches!(r.ty, LType::Decimal(..)) {
        return Ok(None);
    }
    let (Some((p1, s1)), Some((p2, s2))) = (decimal_shape(l.ty), decimal_shape(r.ty)) else {
        return Ok(None);
    };
    Ok(match op {
        ArithOp::Add | ArithOp::Sub => {
            let s = s1.max(s2);
            let p = ((p1 - s1).max(p2 - s2) + s + 1).min(38);
            let t = LType::Decimal(p, s);
            Some(DecimalArith {
                op,
                left: t,
                right: t,
                ty: t,
            })
        }
        ArithOp::Mod => {
            // The remainder is no larger than either operand.
            let s = s1.max(s2);
            let p = ((p1 - s1).max(p2 - s2) + s).min(38);
            let t = LType::Decimal(p, s);
            Some(DecimalArith {
                op,
                left: t,
                right: t,
                ty: t,
            })
        }
        ArithOp::Mul => {
            let s = s1 + s2;
            if s > 38 {
                return invalid(format!(
                    "the product of {} and {} needs more than 38 decimal places",
                    l.ty, r.ty
                ));
            }
            // Both operands in the result's width, each keeping its scale:
            // the product of the scaled integers has scale s1 + s2. Like
            // DuckDB, a product of two 64-bit decimals stays a 64-bit
            // DECIMAL(18) when its scale fits (an overflow is an error).
            let mut p = (p1 + p2).min(38);
            if p > 18 && p1.max(p2) <= 18 && s < 18 {
                p = 18;
            }
            Some(DecimalArith {
                op,
                left: LType::Decimal(p, s1),
                right: LType::Decimal(p, s2),
                ty: LType::Decimal(p, s),
            })
        }
        _ => None,
    })
}

/// The type a DECIMAL meets another DECIMAL or an integer in (DuckDB's
/// rule): as many integer digits as the wider, as many decimal places as
/// the finer. `None` when neither is a DECIMAL, or the other is not exact,
/// or the result would need more than 38 digits.
fn decimal_common(x: LType, y: LType) -> Option<LType> {
    if !matches!(x, LType::Decimal(..)) && !matches!(y, LType::Decimal(..)) {
        return None;
    }
    let ((p1, s1), (p2, s2)) = (decimal_shape(x)?, decimal_shape(y)?);
    let s = s1.max(s2);
    let p = (p1 - s1).max(p2 - s2) + s;
    (p <= 38).then_some(LType::Decimal(p, s))
}

/// The DECIMAL two values are combined into when their union needs more
/// than 38 digits (DuckDB's rule for CASE branches, COALESCE arguments and
/// set operations): DECIMAL(38) with the integer digits of the wider and
/// the decimal places that leave (two DECIMALs), or the DECIMAL's own
/// places (an integer meets a DECIMAL; a value that does not fit is an
/// error when cast). `None` when [`decimal_common`] applies or neither is
/// a DECIMAL.
fn decimal_capped(x: LType, y: LType) -> Option<LType> {
    if decimal_common(x, y).is_some() {
        return None;
    }
    let ((p1, s1), (p2, s2)) = (decimal_shape(x)?, decimal_shape(y)?);
    match (x, y) {
        (LType::Decimal(..), LType::Decimal(..)) => {
            let int_digits = (p1 - s1).max(p2 - s2);
            Some(LType::Decimal(38, 38 - int_digits))
        }
        (LType::Decimal(..), _) => Some(LType::Decimal(38, s1)),
        (_, LType::Decimal(..)) => Some(LType::Decimal(38, s2)),
        _ => None,
    }
}

/// The type the values of CASE branches, COALESCE-like arguments and set
/// operation columns are combined into: [`common_type`], except that
/// DECIMALs needing more than 38 digits together keep the integer digits
/// ([`decimal_capped`]) where a comparison keeps the decimal places.
pub(crate) fn combined_type(a: &TExpr, b: &TExpr) -> Result<LType> {
    match decimal_capped(a.ty, b.ty) {
        Some(t) => Ok(t),
        None => common_type(a, b),
    }
}

/// The common type of two operands (DuckDB's implicit casts): integers
/// widen (a literal takes the other side's type when it fits), DECIMALs
/// meet exact numbers as DECIMAL, FLOAT stays FLOAT unless a DOUBLE is
/// involved, a DATE meets a TIMESTAMP as TIMESTAMP, and a string literal
/// takes the other side's type.
pub(crate) fn common_type(a: &TExpr, b: &TExpr) -> Result<LType> {
    let (x, y) = (a.ty, b.ty);
    if x == y {
        return Ok(x);
    }
    if x == LType::Null {
        return Ok(y);
    }
    if y == LType::Null {
        return Ok(x);
    }
    if let (Some((sx, rx)), Some((sy, ry))) = (int_rank(x), int_rank(y)) {
        // A literal takes the other side's type when it fits; two literals
        // meet as their types do (`-2147483648 - 1` is a BIGINT).
        let one_literal = a.as_lit().is_some() != b.as_lit().is_some();
        if one_literal && a.as_lit().is_some() && lit_fits(a, y) {
            return Ok(y);
        }
        if one_literal && b.as_lit().is_some() && lit_fits(b, x) {
            return Ok(x);
        }
        return Ok(match (sx, sy) {
            (true, true) | (false, false) => {
                if rx >= ry {
                    x
                } else {
                    y
                }
            }
            (true, false) => signed_of_rank(rx.max(ry + 1)),
            (false, true) => signed_of_rank(ry.max(rx + 1)),
        });
    }
    if let Some(t) = decimal_common(x, y) {
        return Ok(t);
    }
    // Exact numbers whose union needs more than 38 digits compare as
    // DECIMAL(38) with the finer scale, as DuckDB compares them: exactly,
    // and a value too wide for it is an error when cast (not a DOUBLE,
    // which rounds -0.999999999999999999 to -1).
    if let (LType::Decimal(..), _) | (_, LType::Decimal(..)) = (x, y) {
        if let (Some((_, s1)), Some((_, s2))) = (decimal_shape(x), decimal_shape(y)) {
            return Ok(LType::Decimal(38, s1.max(s2)));
        }
    }
    if x.is_numeric() && y.is_numeric() {
        // A float meets anything else as itself (FLOAT stays FLOAT with a
        // DECIMAL or an integer, as in DuckDB); everything else as DOUBLE.
        if (x == LType::Float && y != LType::Double) || (y == LType::Float && x != LType::Double) {
            return Ok(LType::Float);
        }
        return Ok(LType::Double);
    }
    match (x, y) {
        (LType::Date, LType::Timestamp) | (LType::Timestamp, LType::Date) => Ok(LType::Timestamp),
        (LType::Varchar, t) if a.as_lit().is_some() => Ok(t),
        (t, LType::Varchar) if b.as_lit().is_some() => Ok(t),
        _ => invalid(format!("cannot compare or combine {x} and {y}")),
    }
}

/// The type two columns meet in for a set operation: as in a VALUES
/// column ([`values_type`]), and where those rules find none, a DATE or
/// TIMESTAMP meets a number or BOOLEAN as the DATE or TIMESTAMP, as
/// DuckDB forces it: NULLs pass the cast, any other value fails it when
/// the query runs.
pub(crate) fn set_op_type(x: LType, y: LType) -> Result<LType> {
    let temporal = |t: LType| matches!(t, LType::Date | LType::Timestamp);
    let number = |t: LType| t.is_numeric() || t == LType::Bool;
    match (x, y) {
        (t, n) | (n, t) if temporal(t) && number(n) => Ok(t),
        _ => values_type(x, y),
    }
}

/// The type two values meet in for a VALUES column (DuckDB's rules: no
/// literal is special): integers widen, DECIMALs meet exact numbers as
/// DECIMAL, a FLOAT stays FLOAT unless a DOUBLE is involved, BOOLEAN meets
/// a number as the number, DATE meets TIMESTAMP as TIMESTAMP, and anything
/// meets a VARCHAR as VARCHAR.
pub(crate) fn values_type(x: LType, y: LType) -> Result<LType> {
    if x == y || y == LType::Null {
        return Ok(x);
    }
    if x == LType::Null {
        return Ok(y);
    }
    if x == LType::Varchar || y == LType::Varchar {
        return Ok(LType::Varchar);
    }
    if x == LType::Bool && y.is_numeric() {
        return Ok(y);
    }
    if y == LType::Bool && x.is_numeric() {
        return Ok(x);
    }
    if x.is_numeric() && y.is_numeric() {
        let probe = |t| TExpr {
            kind: ExprKind::Col(0),
            ty: t,
        };
        return combined_type(&probe(x), &probe(y));
    }
    match (x, y) {
        (LType::Date, LType::Timestamp) | (LType::Timestamp, LType::Date) => Ok(LType::Timestamp),
        _ => invalid(format!("cannot combine {x} and {y} in one column")),
    }
}
