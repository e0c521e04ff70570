//! `round(x[, n])`, `floor(x)` and `ceil(x)` with DuckDB's result types and
//! semantics.
//!
//! - DOUBLE and FLOAT: `round` is half away from zero on `x * 10^n` (or
//!   `x / 10^-n`), giving back `x` when that overflows; `floor`/`ceil` as in C.
//! - Integers: `round` keeps the type (a negative `n` rounds to tens, half
//!   away from zero); `floor`/`ceil` give DOUBLE.
//! - DECIMAL(p, s): exact on the scaled integers; `round(x, n)` gives
//!   DECIMAL(p, max(n, 0)) when `n < s` (else `x` unchanged), `floor`/`ceil`
//!   give DECIMAL(p, 0).

use crate::error::{EngineError, Result};
use crate::value::{Data, LType, Phys, Vector};

/// Which rounding function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// `round(x, digits)`: to `digits` decimals (negative: tens, hundreds...).
    Round(i32),
    /// `floor(x)`.
    Floor,
    /// `ceil(x)` / `ceiling(x)`.
    Ceil,
    /// `trunc(x, digits)`: toward zero, typed as `round`.
    Trunc(i32),
}

impl Rounding {
    /// The SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Round(_) => "round",
            Rounding::Floor => "floor",
            Rounding::Ceil => "ceil",
            Rounding::Trunc(_) => "trunc",
        }
    }

    /// The type the argument of type `x` is cast to first (integers under
    /// `floor`/`ceil` become DOUBLE), and the result type; `None` when the
    /// function does not apply.
    pub fn types(self, x: LType) -> Option<(LType, LType)> {
        Some(match (self, x) {
            (_, LType::Null) => (LType::Null, LType::Null),
            (_, LType::Float | LType::Double) => (x, x),
            (Rounding::Round(_) | Rounding::Trunc(_), t) if t.is_integer() => (t, t),
            (_, t) if t.is_integer() => (LType::Double, LType::Double),
            // Rounding an integral DECIMAL to tens or more may carry into
            // one more digit (999 to 1000): DuckDB widens the type by one.
            (Rounding::Round(n), LType::Decimal(p, 0)) if n < 0 => {
                (x, LType::Decimal((p + 1).min(38), 0))
            }
            (Rounding::Round(n) | Rounding::Trunc(n), LType::Decimal(p, s)) => {
                if n >= i32::from(s) {
                    (x, x)
                } else {
                    (x, LType::Decimal(p, n.max(0) as u8))
                }
            }
            (_, LType::Decimal(p, _)) => (x, LType::Decimal(p, 0)),
            _ => return None,
        })
    }
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn overflow(what: Rounding) -> EngineError {
    EngineError::Runtime(format!("Overflow in {}", what.name()))
}

/// `x / unit` rounded by `mode` (half away from zero for `round`).
fn div_round(x: i128, unit: i128, mode: Rounding) -> i128 {
    let (q, r) = (x / unit, x % unit);
    match mode {
        Rounding::Round(_) => {
            if 2 * r.abs() >= unit {
                q + x.signum()
            } else {
                q
            }
        }
        Rounding::Floor => {
            if r < 0 {
                q - 1
            } else {
                q
            }
        }
        Rounding::Ceil => {
            if r > 0 {
                q + 1
            } else {
                q
            }
        }
        Rounding::Trunc(_) => q,
    }
}

/// Rounds one scaled integer from scale `from` to the result scale `to`;
/// `digits` (for `round`) may be below zero, in which case the result is a
/// multiple of `10^-digits` at scale 0.
fn round_scaled(x: i128, from: u8, to: u8, mode: Rounding) -> Option<i128> {
    let digits = match mode {
        Rounding::Round(n) | Rounding::Trunc(n) => n,
        _ => 0,
    };
    let keep = digits.min(i32::from(to));
    let drop = i32::from(from) - keep;
    if drop <= 0 {
        return Some(x);
    }
    let unit = pow10(drop as u32)?;
    let q = div_round(x, unit, mode);
    if keep < 0 {
        q.checked_mul(pow10((-keep) as u32)?)
    } else {
        Some(q)
    }
}

fn round_f64(x: f64, mode: Rounding) -> f64 {
    // Infinities and NaN round to themselves (the scaled forms below would
    // turn them into NaN or 0).
    if !x.is_finite() {
        return x;
    }
    match mode {
        Rounding::Floor => x.floor(),
        Rounding::Ceil => x.ceil(),
        Rounding::Trunc(0) => x.trunc(),
        Rounding::Trunc(n) => {
            let m = 10f64.powi(n);
            let r = (x * m).trunc() / m;
            if r.is_finite() {
                r
            } else {
                x
            }
        }
        Rounding::Round(0) => x.round(),
        Rounding::Round(n) if n > 0 => {
            let m = 10f64.powi(n);
            let y = x * m;
            // `x * m` is rounded: near a half it may land on the wrong side
            // of it (2.675 is 2.67499.. but 2.675 * 100 is 267.5), so the
            // double's exact value decides there, as in DuckDB.
            let r = if near_half(y) {
                round_exact(x, n)
            } else {
                y.round() / m
            };
            if r.is_finite() {
                r
            } else {
                x
            }
        }
        Rounding::Round(n) => {
            let m = 10f64.powi(-n);
            let r = (x / m).round() * m;
            if r.is_finite() {
                r
            } else {
                0.0
            }
        }
    }
}

/// Whether `y` (a product rounded to a double) may lie on either side of
/// the half between two integers. From 2^52 on a double has no fraction
/// finer than a half, so no product there is near one by rounding.
fn near_half(y: f64) -> bool {
    const NO_FRACTION: f64 = (1u64 << 52) as f64;
    let a = y.abs();
    let f = a - a.trunc();
    a < NO_FRACTION && (f - 0.5).abs() <= 4.0 * f64::EPSILON * a.max(1.0)
}

/// `x` rounded half away from zero at `n > 0` decimal places by its exact
/// binary value (the nearest double to that decimal).
fn round_exact(x: f64, n: i32) -> f64 {
    // Rust prints a double's exact expansion when asked for enough digits
    // (1074 is the most a double has after the point).
    let text = format!("{:.1074}", x.abs());
    let Some((int, frac)) = text.split_once('.') else {
        return x;
    };
    let n = n as usize;
    if frac.len() <= n {
        return x;
    }
    let digits = format!("{int}{}", &frac[..n]);
    let Ok(mut k) = digits.parse::<u128>() else {
        return x;
    };
    if frac.as_bytes()[n] >= b'5' {
        k += 1;
    }
    let r: f64 = format!("{k}e-{n}").parse().unwrap_or(x.abs());
    r.copysign(x)
}

/// Evaluates `mode` over `x` (already of the argument type of
/// [`Rounding::types`]), giving a vector of type `ty`.
pub fn eval(mode: Rounding, x: &Vector, ty: LType) -> Result<Vector> {
    let (from, to) = match (x.ty, ty) {
        (LType::Decimal(_, s), LType::Decimal(_, t)) => (s, t),
        _ => (0, 0),
    };
    let in_range = |v: i128| match ty.int_range() {
        Some((lo, hi)) => lo <= v && v <= hi,
        None => true,
    };
    let one = |v: i128| -> Result<i128> {
        round_scaled(v, from, to, mode)
            .filter(|&r| in_range(r))
            .ok_or_else(|| overflow(mode))
    };
    let data = match &x.data {
        Data::F64(v) => {
            let single = ty == LType::Float;
            Data::F64(
                v.iter()
                    .map(|&f| {
                        let r = round_f64(f, mode);
                        if single {
                            f64::from(r as f32)
                        } else {
                            r
                        }
                    })
                    .collect(),
            )
        }
        Data::I64(v) => {
            let rounded = v.iter().enumerate().map(|(i, &a)| {
                if x.is_null(i) {
                    Ok(0)
                } else {
                    one(i128::from(a))
                }
            });
            // DECIMAL(18, 0) rounded to tens is DECIMAL(19, 0): 128-bit.
            if ty.phys() == Phys::I128 {
                Data::I128(rounded.collect::<Result<_>>()?)
            } else {
                Data::I64(
                    rounded
                        .map(|r| i64::try_from(r?).map_err(|_| overflow(mode)))
                        .collect::<Result<_>>()?,
                )
            }
        }
        Data::I128(v) => {
            let mut out = Vec::with_capacity(v.len());
            for (i, &a) in v.iter().enumerate() {
                out.push(if x.is_null(i) { 0 } else { one(a)? });
            }
            Data::I128(out)
        }
        Data::U64(v) if matches!(mode, Rounding::Round(n) | Rounding::Trunc(n) if n >= 0) => {
            Data::U64(v.clone())
        }
        other => {
            return Err(EngineError::Unsupported(format!(
                "{}() of {} values ({:?})",
                mode.name(),
                x.ty,
                std::mem::discriminant(other)
            )))
        }
    };
    Ok(Vector {
        ty,
        data,
        nulls: x.nulls.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_round_half_away_from_zero() {
        let r = |x: f64, n: i32| round_f64(x, Rounding::Round(n));
        assert_eq!(r(2.5, 0), 3.0);
        assert_eq!(r(-2.5, 0), -3.0);
        assert_eq!(r(0.285, 2), 0.28);
        // By the double's exact value, halves away from zero.
        assert_eq!(r(2.675, 2), 2.67);
        assert_eq!(r(-2.675, 2), -2.67);
        assert_eq!(r(0.125, 2), 0.13);
        assert_eq!(r(-0.125, 2), -0.13);
        assert_eq!(r(4262.68, 12), 4262.68);
        assert_eq!(r(0.1 + 0.2, 16), 0.3);
        assert_eq!(r(1.005, 2), 1.0);
        assert_eq!(r(15.0, -1), 20.0);
        assert_eq!(r(1e300, 10), 1e300);
        assert_eq!(round_f64(-2.5, Rounding::Floor), -3.0);
        assert_eq!(round_f64(-2.5, Rounding::Ceil), -2.0);
    }

    #[test]
    fn decimals_round_exactly() {
        // -2.45 at scale 2 to one decimal: -2.5; 123.45 to tens: 120 at scale 0.
        assert_eq!(round_scaled(-245, 2, 1, Rounding::Round(1)), Some(-25));
        assert_eq!(round_scaled(12345, 2, 0, Rounding::Round(-1)), Some(120));
        assert_eq!(round_scaled(-25, 1, 0, Rounding::Round(0)), Some(-3));
        assert_eq!(round_scaled(-25, 1, 0, Rounding::Floor), Some(-3));
        assert_eq!(round_scaled(-25, 1, 0, Rounding::Ceil), Some(-2));
        assert_eq!(round_scaled(25, 1, 0, Rounding::Ceil), Some(3));
        assert_eq!(round_scaled(15, 0, 0, Rounding::Round(-1)), Some(20));
        assert_eq!(round_scaled(-15, 0, 0, Rounding::Round(-1)), Some(-20));
    }

    #[test]
    fn types_follow_duckdb() {
        use LType::*;
        assert_eq!(Rounding::Floor.types(Int32), Some((Double, Double)));
        assert_eq!(Rounding::Round(2).types(Int32), Some((Int32, Int32)));
        assert_eq!(
            Rounding::Round(1).types(Decimal(4, 2)),
            Some((Decimal(4, 2), Decimal(4, 1)))
        );
        assert_eq!(
            Rounding::Round(5).types(Decimal(3, 2)),
            Some((Decimal(3, 2), Decimal(3, 2)))
        );
        assert_eq!(
            Rounding::Ceil.types(Decimal(3, 1)),
            Some((Decimal(3, 1), Decimal(3, 0)))
        );
        assert_eq!(
            Rounding::Round(-1).types(Decimal(9, 0)),
            Some((Decimal(9, 0), Decimal(10, 0)))
        );
        assert_eq!(
            Rounding::Round(-1).types(Decimal(9, 2)),
            Some((Decimal(9, 2), Decimal(9, 0)))
        );
        assert_eq!(Rounding::Round(0).types(Varchar), None);
    }
}
