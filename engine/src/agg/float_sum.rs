//! `SUM` / `AVG` of floats with infinities kept apart from the finite
//! values.
//!
//! Adding in whatever order the rows arrive makes an infinite input and a
//! finite sum that overflows meet in an order-dependent way: `+inf` then
//! `-1.5e308` twice stays `+inf`, but the same values sorted (the order the
//! value-sorted blocks give) overflow to `-inf` first and end as NaN. Here
//! the finite inputs are summed on their own and an infinite input decides
//! the result: `+inf` with `-inf` is NaN (as IEEE adds them), one sign
//! alone is that infinity, and without infinite inputs the result is the
//! finite sum, which may itself overflow to an infinity. NaN inputs make a
//! NaN result. The answer is the same in every order and every strategy.

/// An infinite input of the sum: bit 0 `+inf`, bit 1 `-inf`.
#[inline]
pub(crate) fn inf_bits(x: f64) -> u64 {
    if x == f64::INFINITY {
        1
    } else if x == f64::NEG_INFINITY {
        2
    } else {
        0
    }
}

/// `sum + x * n` for a finite `x`, or, where `x * n` overflows, `x` added
/// `n` times as the rows would add it.
#[inline]
fn add_times(sum: f64, x: f64, n: u64) -> f64 {
    let whole = x * n as f64;
    if n == 1 || whole.is_finite() {
        return sum + whole;
    }
    let mut s = sum;
    for _ in 0..n {
        s += x;
        if !s.is_finite() {
            break;
        }
    }
    s
}

/// The sum of finite inputs totalling `finite` and the infinite inputs
/// `infs` ([`inf_bits`] of each, or-ed): a NaN total stays NaN, one
/// infinity's sign decides, both give NaN.
#[inline]
pub(crate) fn with_infinities(finite: f64, infs: u64) -> f64 {
    match infs {
        _ if finite.is_nan() => finite,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        // What `inf + -inf` gives on x86, where DuckDB adds: the default
        // NaN, its sign bit set ('-nan' as text).
        3 => -f64::NAN,
        _ => finite,
    }
}

/// A float sum: the finite inputs' total and which infinities were seen.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FloatSum {
    /// The sum of the finite (and NaN) inputs.
    pub finite: f64,
    /// Infinite inputs seen: bit 0 `+inf`, bit 1 `-inf`.
    pub infs: u64,
}

impl FloatSum {
    /// Adds `x` once.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let inf = inf_bits(x);
        if inf == 0 {
            self.finite += x;
        } else {
            self.infs |= inf;
        }
    }

    /// Adds `x` `n` times.
    #[inline]
    pub fn add_n(&mut self, x: f64, n: u64) {
        let inf = inf_bits(x);
        if inf == 0 {
            self.finite = add_times(self.finite, x, n);
        } else {
            self.infs |= inf;
        }
    }

    /// Combines another sum into this one.
    #[inline]
    pub fn merge(&mut self, o: &FloatSum) {
        self.finite += o.finite;
        self.infs |= o.infs;
    }

    /// The sum.
    #[inline]
    pub fn total(&self) -> f64 {
        with_infinities(self.finite, self.infs)
    }
}

/// AVG of exact numbers (integers, DECIMALs as scaled integers) as DuckDB
/// computes it: the exact sum divided once by `count * scale` (`scale` is
/// 10 to the decimal places), so that 5370.7 averaged over any count is
/// 5370.7, where dividing by the scale and the count apart rounds twice.
/// A sum past 2^53 divides as integer quotient plus remainder, within an
/// ulp of the exact quotient (DuckDB divides it in extended precision).
pub fn exact_avg(sum: i128, count: u64, scale: f64) -> f64 {
    let d = count as f64 * scale;
    const EXACT: f64 = (1u64 << 53) as f64;
    if sum.unsigned_abs() < 1 << 53 || !(1.0..EXACT).contains(&d) {
        return sum as f64 / d;
    }
    let di = d as i128;
    (sum / di) as f64 + (sum % di) as f64 / d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(xs: &[f64]) -> f64 {
        let mut s = FloatSum::default();
        for &x in xs {
            s.add(x);
        }
        s.total()
    }

    #[test]
    fn an_infinity_wins_over_a_finite_overflow_in_any_order() {
        assert_eq!(sum(&[f64::INFINITY, -1.5e308, -1.5e308]), f64::INFINITY);
        assert_eq!(sum(&[-1.5e308, -1.5e308, f64::INFINITY]), f64::INFINITY);
        let mut s = FloatSum::default();
        s.add_n(-1.5e308, 2);
        s.add(f64::INFINITY);
        assert_eq!(s.total(), f64::INFINITY);
    }

    #[test]
    fn exact_averages_divide_once() {
        for n in 1..200u64 {
            assert_eq!(exact_avg(53707 * i128::from(n), n, 10.0), 5370.7);
        }
        assert_eq!(exact_avg(i128::from(u64::MAX) * 3, 3, 1.0), u64::MAX as f64);
        assert_eq!(exact_avg(-7, 2, 1.0), -3.5);
    }

    #[test]
    fn opposite_infinities_and_nan_give_nan() {
        assert!(sum(&[f64::INFINITY, 1.0, f64::NEG_INFINITY]).is_nan());
        assert!(sum(&[f64::NAN, f64::INFINITY]).is_nan());
        let both = sum(&[f64::NEG_INFINITY, f64::INFINITY]);
        assert!(both.is_nan() && both.is_sign_negative());
    }

    #[test]
    fn finite_sums_overflow_as_ieee_adds() {
        assert_eq!(sum(&[1.5e308, 1.5e308]), f64::INFINITY);
        let mut s = FloatSum::default();
        s.add_n(1.5e308, 3);
        assert_eq!(s.total(), f64::INFINITY);
        let mut a = FloatSum::default();
        a.add(2.5);
        let mut b = FloatSum::default();
        b.add_n(0.5, 3);
        a.merge(&b);
        assert_eq!(a.total(), 4.0);
    }
}
