//! Numeric functions with DuckDB's types and edge cases: the DOUBLE
//! functions (`sqrt`, `ln`, trigonometry, ...) give NaN or infinities
//! where C's math library does, never an error; `abs`, `gcd`, `lcm` and
//! `factorial` are exact and fail on overflow as DuckDB does.

use crate::error::{EngineError, Result};
use crate::value::{Data, LType, Phys, Value, Vector};

/// A numeric function of [`crate::expr::scalar::Func::Math`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathFn {
    /// A DOUBLE function of one DOUBLE.
    Unary(Unary),
    /// `pow(x, y)` / `power`.
    Pow,
    /// `atan2(y, x)`.
    Atan2,
    /// `log(b, x)`: the logarithm of `x` to base `b`.
    LogBase,
    /// `abs(x)` keeping the type.
    Abs,
    /// `sign(x)`: -1, 0 or 1 (TINYINT; NaN gives 0).
    Sign,
    /// `gcd(a, b)` of integers.
    Gcd,
    /// `lcm(a, b)` of integers.
    Lcm,
    /// `factorial(n)` as HUGEINT.
    Factorial,
    /// `isnan(x)`.
    IsNan,
    /// `isinf(x)`.
    IsInf,
    /// `isfinite(x)`.
    IsFinite,
    /// A bitwise operator on integers of one type.
    Bit(BitOp),
}

/// The bitwise operators (`&`, `|`, `xor`, `<<`, `>>`, `~`), on integers of
/// the result's type, with DuckDB's range rules for shifts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `xor(a, b)`.
    Xor,
    /// `a << b`.
    Shl,
    /// `a >> b`.
    Shr,
    /// `~a`.
    Not,
}

/// The DOUBLE functions of one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    /// `sqrt`.
    Sqrt,
    /// `cbrt`.
    Cbrt,
    /// `exp`.
    Exp,
    /// `ln`.
    Ln,
    /// `log2`.
    Log2,
    /// `log10` and `log(x)`.
    Log10,
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
    /// `tan`.
    Tan,
    /// `asin`.
    Asin,
    /// `acos`.
    Acos,
    /// `atan`.
    Atan,
    /// `cot`.
    Cot,
    /// `sinh`.
    Sinh,
    /// `cosh`.
    Cosh,
    /// `tanh`.
    Tanh,
    /// `asinh`.
    Asinh,
    /// `acosh`.
    Acosh,
    /// `atanh`.
    Atanh,
    /// `degrees`.
    Degrees,
    /// `radians`.
    Radians,
    /// `even`: away from zero to the next even integer.
    Even,
}

impl Unary {
    /// The function of this name.
    pub fn from_name(name: &str) -> Option<Unary> {
        Some(match name {
            "sqrt" => Unary::Sqrt,
            "cbrt" => Unary::Cbrt,
            "exp" => Unary::Exp,
            "ln" => Unary::Ln,
            "log2" => Unary::Log2,
            "log10" | "log" => Unary::Log10,
            "sin" => Unary::Sin,
            "cos" => Unary::Cos,
            "tan" => Unary::Tan,
            "asin" => Unary::Asin,
            "acos" => Unary::Acos,
            "atan" => Unary::Atan,
            "cot" => Unary::Cot,
            "sinh" => Unary::Sinh,
            "cosh" => Unary::Cosh,
            "tanh" => Unary::Tanh,
            "asinh" => Unary::Asinh,
            "acosh" => Unary::Acosh,
            "atanh" => Unary::Atanh,
            "degrees" => Unary::Degrees,
            "radians" => Unary::Radians,
            "even" => Unary::Even,
            _ => return None,
        })
    }

    fn apply(self, x: f64) -> f64 {
        match self {
            Unary::Sqrt => x.sqrt(),
            Unary::Cbrt => x.cbrt(),
            Unary::Exp => x.exp(),
            Unary::Ln => x.ln(),
            Unary::Log2 => x.log2(),
            Unary::Log10 => x.log10(),
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Asin => x.asin(),
            Unary::Acos => x.acos(),
            Unary::Atan => x.atan(),
            Unary::Cot => 1.0 / x.tan(),
            Unary::Sinh => x.sinh(),
            Unary::Cosh => x.cosh(),
            Unary::Tanh => x.tanh(),
            Unary::Asinh => x.asinh(),
            Unary::Acosh => x.acosh(),
            Unary::Atanh => x.atanh(),
            Unary::Degrees => x.to_degrees(),
            Unary::Radians => x.to_radians(),
            Unary::Even => {
                let v = if x >= 0.0 { x.ceil() } else { x.floor() };
                if v % 2.0 == 0.0 {
                    v
                } else if x >= 0.0 {
                    v + 1.0
                } else {
                    v - 1.0
                }
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Unary::Sqrt => "sqrt",
            Unary::Cbrt => "cbrt",
            Unary::Exp => "exp",
            Unary::Ln => "ln",
            Unary::Log2 => "log2",
            Unary::Log10 => "log10",
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tan => "tan",
            Unary::Asin => "asin",
            Unary::Acos => "acos",
            Unary::Atan => "atan",
            Unary::Cot => "cot",
            Unary::Sinh => "sinh",
            Unary::Cosh => "cosh",
            Unary::Tanh => "tanh",
            Unary::Asinh => "asinh",
            Unary::Acosh => "acosh",
            Unary::Atanh => "atanh",
            Unary::Degrees => "degrees",
            Unary::Radians => "radians",
            Unary::Even => "even",
        }
    }
}

impl MathFn {
    /// The SQL name.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Unary(u) => u.name(),
            MathFn::Pow => "pow",
            MathFn::Atan2 => "atan2",
            MathFn::LogBase => "log",
            MathFn::Abs => "abs",
            MathFn::Sign => "sign",
            MathFn::Gcd => "gcd",
            MathFn::Lcm => "lcm",
            MathFn::Factorial => "factorial",
            MathFn::IsNan => "isnan",
            MathFn::IsInf => "isinf",
            MathFn::IsFinite => "isfinite",
            MathFn::Bit(b) => match b {
                BitOp::And => "&",
                BitOp::Or => "|",
                BitOp::Xor => "xor",
                BitOp::Shl => "<<",
                BitOp::Shr => ">>",
                BitOp::Not => "~",
            },
        }
    }
}

fn f64s<'a>(v: &'a Vector, what: &str) -> Result<&'a [f64]> {
    match &v.data {
        Data::F64(d) => Ok(d),
        _ => Err(EngineError::Internal(format!("{what} of a non-DOUBLE"))),
    }
}

/// A value of an exact vector (integers and decimals) as `i128`.
fn exact(v: &Vector, i: usize) -> i128 {
    match &v.data {
        Data::I64(d) => i128::from(d[i]),
        Data::U64(d) => i128::from(d[i]),
        Data::I128(d) => d[i],
        Data::Bool(d) => i128::from(d[i]),
        Data::F64(d) => d[i] as i128,
        Data::Str(_) => 0,
    }
}

fn nulls_of(args: &[&Vector], len: usize) -> Option<Vec<bool>> {
    if args.iter().all(|a| a.nulls.is_none()) {
        return None;
    }
    Some(
        (0..len)
            .map(|i| args.iter().any(|a| a.is_null(i)))
            .collect(),
    )
}

fn gcd(a: i128, b: i128) -> u128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Evaluates `f` over its arguments (cast by the binder: DOUBLE for the
/// DOUBLE functions, the result type for `abs`/`gcd`/`lcm`, BIGINT for
/// `factorial`) giving type `ty`.
pub fn eval(f: MathFn, args: &[&Vector], ty: LType, len: usize) -> Result<Vector> {
    let nulls = nulls_of(args, len);
    let live = |i: usize| nulls.as_ref().is_none_or(|n| !n[i]);
    let data = match (f, args) {
        (MathFn::Unary(u), [x]) => {
            Data::F64(f64s(x, u.name())?.iter().map(|&x| u.apply(x)).collect())
        }
        (MathFn::Pow | MathFn::Atan2 | MathFn::LogBase, [a, b]) => {
            let (a, b) = (f64s(a, f.name())?, f64s(b, f.name())?);
            Data::F64(
                a.iter()
                    .zip(b)
                    .map(|(&a, &b)| match f {
                        MathFn::Pow => a.powf(b),
                        MathFn::Atan2 => a.atan2(b),
                        // As DuckDB computes it (a ratio of natural
                        // logarithms differs in the last bit for half of
                        // all inputs).
                        _ => b.log10() / a.log10(),
                    })
                    .collect(),
            )
        }
        (MathFn::IsNan | MathFn::IsInf | MathFn::IsFinite, [x]) => Data::Bool(
            f64s(x, f.name())?
                .iter()
                .map(|&x| match f {
                    MathFn::IsNan => x.is_nan(),
                    MathFn::IsInf => x.is_infinite(),
                    _ => x.is_finite(),
                })
                .collect(),
        ),
        (MathFn::Sign, [x]) => Data::I64(
            (0..len)
                .map(|i| match &x.data {
                    Data::F64(d) if d[i].is_nan() || d[i] == 0.0 => 0,
                    Data::F64(d) => d[i].signum() as i64,
                    _ => exact(x, i).signum() as i64,
                })
                .collect(),
        ),
        (MathFn::Abs, [x]) => match &x.data {
            Data::F64(d) => Data::F64(d.iter().map(|x| x.abs()).collect()),
            Data::U64(d) => Data::U64(d.clone()),
            Data::I64(d) => {
                let mut out = Vec::with_capacity(len);
                for (i, &v) in d.iter().enumerate() {
                    let a = i128::from(v).abs();
                    if live(i) && ty.int_range().is_some_and(|(_, hi)| a > hi) {
                        return Err(abs_overflow(v));
                    }
                    out.push(v.unsigned_abs() as i64);
                }
                Data::I64(out)
            }
            Data::I128(d) => {
                let mut out = Vec::with_capacity(len);
                for (i, &v) in d.iter().enumerate() {
                    match v.checked_abs() {
                        Some(a) => out.push(a),
                        None if !live(i) => out.push(0),
                        None => return Err(abs_overflow(v)),
                    }
                }
                Data::I128(out)
            }
            _ => return Err(EngineError::Internal("abs of a non-number".into())),
        },
        (MathFn::Gcd | MathFn::Lcm, [a, b]) => {
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                if !live(i) {
                    out.push(0i128);
                    continue;
                }
                let (x, y) = (exact(a, i), exact(b, i));
                // DuckDB takes absolute values in the operands' type: gcd's
                // result, which overflows only for the type's minimum (with
                // 0 or itself), and lcm's operands unless one is zero.
                let (lo, hi) = ty.int_range().unwrap_or((i128::MIN, i128::MAX));
                let some_zero = x == 0 || y == 0;
                let g = gcd(x, y);
                let overflows = if f == MathFn::Lcm {
                    !some_zero && (x == lo || y == lo)
                } else {
                    g > hi.unsigned_abs()
                };
                if overflows {
                    return Err(abs_overflow(lo));
                }
                // Both fit now: the gcd is at most the type's maximum, and
                // lcm's operands are neither zero nor the minimum.
                let r = if f == MathFn::Gcd {
                    g as i128
                } else if some_zero {
                    0
                } else {
                    (x / g as i128)
                        .checked_mul(y)
                        .and_then(i128::checked_abs)
                        .filter(|r| ty.int_range().is_none_or(|(_, hi)| *r <= hi))
                        .ok_or_else(|| {
                            EngineError::Runtime(
                                "Out of Range Error: lcm value is out of range".into(),
                            )
                        })?
                };
                out.push(r);
            }
            match ty {
                LType::HugeInt => Data::I128(out),
                _ => Data::I64(out.into_iter().map(|x| x as i64).collect()),
            }
        }
        (MathFn::Factorial, [n]) => {
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                if !live(i) {
                    out.push(0);
                    continue;
                }
                let n = exact(n, i);
                if n < 0 {
                    return Err(EngineError::Runtime(
                        "Out of Range Error: factorial of a negative number is undefined".into(),
                    ));
                }
                let mut r: i128 = 1;
                for k in 2..=n {
                    r = r.checked_mul(k).ok_or_else(|| {
                        EngineError::Runtime("Out of Range Error: Value out of range".into())
                    })?;
                }
                out.push(r);
            }
            Data::I128(out)
        }
        (MathFn::Bit(op), args) => {
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                let v = if live(i) {
                    let (x, y) = (exact(args[0], i), args.get(1).map_or(0, |b| exact(b, i)));
                    bitwise(op, ty, x, y)?
                } else {
                    0
                };
                out.push(v);
            }
            match ty.phys() {
                Phys::I128 => Data::I128(out),
                Phys::U64 => Data::U64(out.into_iter().map(|x| x as u64).collect()),
                _ => Data::I64(out.into_iter().map(|x| x as i64).collect()),
            }
        }
        _ => {
            return Err(EngineError::Internal(format!(
                "{}() with {} arguments",
                f.name(),
                args.len()
            )))
        }
    };
    Ok(Vector { ty, data, nulls })
}

/// `x op y` for integers of type `ty` (both in its range), as DuckDB
/// computes it: a left shift of a negative number, by a negative amount or
/// out of the type's width, or past its range, is an error; a right shift
/// by a negative amount or the width or more is 0.
fn bitwise(op: BitOp, ty: LType, x: i128, y: i128) -> Result<i128> {
    let (lo, hi) = ty.int_range().unwrap_or((i128::MIN, i128::MAX));
    let bits = if hi == i128::MAX {
        128
    } else {
        i128::from(128 - hi.leading_zeros() + u32::from(lo < 0))
    };
    let range = |what: String| EngineError::Runtime(format!("Out of Range Error: {what}"));
    Ok(match op {
        BitOp::And => x & y,
        BitOp::Or => x | y,
        BitOp::Xor => x ^ y,
        BitOp::Not if lo < 0 => !x,
        BitOp::Not => hi ^ x,
        BitOp::Shr if y < 0 || y >= bits => 0,
        BitOp::Shr => x >> y,
        BitOp::Shl => {
            if x < 0 {
                return Err(range(format!("Cannot left-shift negative number {x}")));
            }
            if y < 0 {
                return Err(range(format!("Cannot left-shift by negative number {y}")));
            }
            if y >= bits {
                if x == 0 {
                    return Ok(0);
                }
                return Err(range(format!("Left-shift value {y} is out of range")));
            }
            if y == 0 {
                return Ok(x);
            }
            if x >= 1i128 << (bits - y - 1) {
                return Err(range(format!("Overflow in left shift ({x} << {y})")));
            }
            x << y
        }
    })
}

fn abs_overflow(v: impl std::fmt::Display) -> EngineError {
    EngineError::Runtime(format!("Out of Range Error: Overflow on abs({v})"))
}

/// `pi()`.
pub fn pi() -> Value {
    Value::Float(std::f64::consts::PI)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_and_gcd() {
        assert_eq!(Unary::Even.apply(1.5), 2.0);
        assert_eq!(Unary::Even.apply(-1.5), -2.0);
        assert_eq!(Unary::Even.apply(2.0), 2.0);
        assert_eq!(Unary::Even.apply(3.5), 4.0);
        assert_eq!(Unary::Even.apply(0.0), 0.0);
        assert_eq!(Unary::Even.apply(-0.5), -2.0);
        assert_eq!(gcd(-12, 18), 6);
        assert_eq!(gcd(i128::MIN, 0), 1 << 127);
        assert_eq!(gcd(0, 0), 0);
    }
}
