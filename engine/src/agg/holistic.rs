//! Aggregates computed from a group's distinct values in value order with
//! their counts: quantiles (DuckDB's positions and interpolation), mode and
//! entropy. Both engines use these: the hash aggregate sorts a group's
//! values, the sorted-vector engine has them sorted already (a pass grouped
//! by the keys and the argument yields each group's distinct argument
//! values in order with their counts, without touching rows).

use crate::agg::func::{cont_type, AggFunc, Quantile};
use crate::value::{LType, Phys, Value};

/// A group's distinct non-NULL values in ascending order: `counts[i]`
/// copies of `value(i)`.
pub struct Runs<'a> {
    /// The count of each distinct value.
    pub counts: &'a [u64],
    /// The `i`-th distinct value.
    pub value: &'a dyn Fn(usize) -> Value,
}

impl Runs<'_> {
    /// The number of values (with repetitions).
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The value at position `pos` (0-based, ascending, with repetitions).
    fn at(&self, pos: u64) -> Value {
        let mut left = pos;
        for (i, &c) in self.counts.iter().enumerate() {
            if left < c {
                return (self.value)(i);
            }
            left -= c;
        }
        Value::Null
    }
}

/// The discrete quantile's position among `n` values (DuckDB's rule: exact
/// for DECIMAL fractions), counted from the smallest (or, for descending
/// quantiles, the largest) value.
pub fn disc_index(q: &Quantile, n: u64) -> u64 {
    let floored: u64 = match q.exact {
        Some((integral, scaling)) => {
            let n = i128::from(n);
            let scaled_q = n.saturating_mul(integral);
            let scaled_n = n.saturating_mul(scaling);
            u64::try_from((scaled_n - scaled_q) / scaling).unwrap_or(0)
        }
        None => {
            let scaled_q = n as f64 * q.q;
            (n as f64 - scaled_q).floor().max(0.0) as u64
        }
    };
    n.saturating_sub(floored).max(1) - 1
}

/// `func` (a quantile or the median) over the values of `runs` of type
/// `ty`; NULL without values.
pub fn quantile(runs: &Runs, func: AggFunc, ty: LType, q: &Quantile) -> Value {
    let n = runs.total();
    if n == 0 {
        return Value::Null;
    }
    // Positions counted from the smallest value.
    let asc = |p: u64| if q.desc { n - 1 - p } else { p };
    let cont = match func {
        AggFunc::QuantileCont => true,
        AggFunc::Median => cont_type(ty).is_some(),
        _ => false,
    };
    if !cont {
        return runs.at(asc(disc_index(q, n)));
    }
    let rn = (n - 1) as f64 * q.q;
    let (frn, crn) = (rn.floor() as u64, rn.ceil() as u64);
    let lo = runs.at(asc(frn));
    if frn == crn {
        return as_cont(lo, ty);
    }
    let hi = runs.at(asc(crn));
    interpolate(&lo, &hi, rn - frn as f64, ty)
}

/// A value of type `ty` as `quantile_cont`'s result type.
fn as_cont(v: Value, ty: LType) -> Value {
    match (ty, &v) {
        (_, Value::Null) => v,
        (LType::Date, Value::Int(d)) => Value::Int(d.saturating_mul(86_400_000_000)),
        (t, _) if t.is_integer() => Value::Float(to_f64(&v)),
        _ => v,
    }
}

fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Huge(h) => *h as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => f64::NAN,
    }
}

/// DuckDB's linear interpolation `d` of the way from `lo` to `hi`:
/// doubles by `fma(lo, 1 - d, hi * d)`, integers as doubles, FLOAT in
/// double then rounded, DECIMALs truncated towards zero (wide ones add the
/// truncated step), timestamps (and dates, as timestamps) interpolated in
/// doubles and rounded to the microsecond.
pub fn interpolate(lo: &Value, hi: &Value, d: f64, ty: LType) -> Value {
    if matches!(lo, Value::Null) || matches!(hi, Value::Null) {
        return Value::Null;
    }
    match ty {
        LType::Double => Value::Float(to_f64(lo).mul_add(1.0 - d, to_f64(hi) * d)),
        t if t.is_integer() => {
            let (l, h) = (to_f64(lo), to_f64(hi));
            Value::Float(l.mul_add(1.0 - d, h * d))
        }
        // DuckDB's build fuses `lo + delta * d` into one multiply-add.
        LType::Float => {
            let (l, h) = (to_f64(lo), to_f64(hi));
            Value::Float(f64::from((h - l).mul_add(d, l) as f32))
        }
        // Equal ends (or no step) are exact: the value itself, where the
        // double arithmetic below would round a DECIMAL(18,18) to 1.0.
        LType::Decimal(..) if lo == hi || d == 0.0 => lo.clone(),
        LType::Decimal(..) => match (ty.phys(), lo, hi) {
            (Phys::I128, Value::Huge(l), Value::Huge(h)) => {
                let step = (h.wrapping_sub(*l) as f64 * d).trunc() as i128;
                Value::Huge(l.wrapping_add(step))
            }
            (_, Value::Int(l), Value::Int(h)) => {
                let (l, h) = (*l as f64, *h as f64);
                Value::Int((h - l).mul_add(d, l).trunc() as i64)
            }
            _ => Value::Null,
        },
        LType::Timestamp | LType::Date => {
            let micros = |v: &Value| match (ty, v) {
                (LType::Date, Value::Int(x)) => x.saturating_mul(86_400_000_000),
                (_, Value::Int(x)) => *x,
                _ => 0,
            };
            // As DuckDB: the rounded step from `lo`, exact to the
            // microsecond; where the distance between the ends overflows
            // i64 (from year -195905 to 111940), `llround(lo * (1 - d) +
            // hi * d)` in doubles.
            let (l, h) = (micros(lo), micros(hi));
            match h.checked_sub(l) {
                Some(delta) => Value::Int(l.saturating_add((delta as f64 * d).round() as i64)),
                None => {
                    let (l, h) = (l as f64, h as f64);
                    Value::Int(l.mul_add(1.0 - d, h * d).round() as i64)
                }
            }
        }
        _ => lo.clone(),
    }
}

/// The index of the most frequent value among `counts` (ties: the first);
/// `None` without values.
pub fn mode_index(counts: &[u64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &c) in counts.iter().enumerate() {
        if c > 0 && best.is_none_or(|b| c > counts[b]) {
            best = Some(i);
        }
    }
    best
}

/// `entropy` (base 2) of a distribution given by its counts, as DuckDB
/// computes it: `log2(n) - sum(c * log2(c)) / n`; 0 without values.
pub fn entropy(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    let s: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let c = c as f64;
            c * c.log2()
        })
        .sum();
    n.log2() - s / n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolating_between_equal_decimals_is_exact() {
        // -0.999999999999999999 as a DECIMAL(18,18): a double rounds it to -1.
        let x = Value::Int(-999_999_999_999_999_999);
        let ty = LType::Decimal(18, 18);
        assert_eq!(interpolate(&x, &x, 0.25, ty), x);
        assert_eq!(interpolate(&x, &Value::Int(0), 0.0, ty), x);
    }

    fn runs_of(vals: &[i64]) -> (Vec<u64>, Vec<i64>) {
        let mut v = vals.to_vec();
        v.sort_unstable();
        let mut counts = Vec::new();
        let mut distinct = Vec::new();
        for x in v {
            if distinct.last() == Some(&x) {
                if let Some(c) = counts.last_mut() {
                    *c += 1;
                }
            } else {
                distinct.push(x);
                counts.push(1);
            }
        }
        (counts, distinct)
    }

    fn q(vals: &[i64], func: AggFunc, ty: LType, frac: Quantile) -> Value {
        let (counts, distinct) = runs_of(vals);
        let value = |i: usize| Value::Int(distinct[i]);
        quantile(
            &Runs {
                counts: &counts,
                value: &value,
            },
            func,
            ty,
            &frac,
        )
    }

    fn frac(x: f64) -> Quantile {
        Quantile::from_value(&Value::Float(x), LType::Double).unwrap_or_else(|_| Quantile::median())
    }

    /// Answers DuckDB gives.
    #[test]
    fn quantiles_as_duckdb() {
        let ten: Vec<i64> = (1..=10).collect();
        assert_eq!(
            q(&ten, AggFunc::QuantileCont, LType::Int32, frac(0.25)),
            Value::Float(3.25)
        );
        assert_eq!(
            q(&ten, AggFunc::QuantileDisc, LType::Int32, frac(0.3)),
            Value::Int(3)
        );
        let five = [1, 2, 3, 4, 5];
        assert_eq!(
            q(&five, AggFunc::QuantileCont, LType::Int32, frac(-0.25)),
            Value::Float(4.0)
        );
        assert_eq!(
            q(
                &[1, 2, 3],
                AggFunc::QuantileDisc,
                LType::Int32,
                frac(-0.0001)
            ),
            Value::Int(3)
        );
        assert_eq!(
            q(
                &[1, 2, 3, 4],
                AggFunc::Median,
                LType::Int32,
                Quantile::median()
            ),
            Value::Float(2.5)
        );
        // DECIMAL(4,1) -7.0 and 2.1 at 0.3: -4.27 truncated to -4.2.
        assert_eq!(
            q(
                &[-70, 21],
                AggFunc::QuantileCont,
                LType::Decimal(4, 1),
                frac(0.3)
            ),
            Value::Int(-42)
        );
        // Microseconds 1 and 4 at 0.5: 2.5 rounds to 3.
        assert_eq!(
            q(&[1, 4], AggFunc::QuantileCont, LType::Timestamp, frac(0.5)),
            Value::Int(3)
        );
        assert_eq!(
            q(&[], AggFunc::Median, LType::Int32, Quantile::median()),
            Value::Null
        );
    }

    #[test]
    fn mode_and_entropy() {
        assert_eq!(mode_index(&[1, 3, 3, 2]), Some(1));
        assert_eq!(mode_index(&[]), None);
        assert!((entropy(&[1, 1, 1]) - 3f64.log2()).abs() < 1e-12);
        assert_eq!(entropy(&[]), 0.0);
    }
}
