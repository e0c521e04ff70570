//! Streaming statistics with DuckDB's formulas, so that answers agree to
//! the last digits: Welford's variance (and its parallel combination),
//! Schubert and Gertz's co-moment for covariance, correlation and the
//! `regr_*` family, central moments for kurtosis and skewness, Kahan sums. Each
//! state takes values one at a time (or one value `n` times, which the
//! sorted-vector engine uses per distinct value) and combines with another.

use crate::agg::float_sum::{inf_bits, with_infinities};
use crate::agg::func::AggFunc;
use crate::error::{EngineError, Result};

/// Welford's running count, mean and sum of squared differences.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Welford {
    /// Values seen.
    pub count: u64,
    /// Their mean.
    pub mean: f64,
    /// The sum of squared differences from the mean.
    pub dsquared: f64,
}

impl Welford {
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.count += 1;
        let diff = (x - self.mean) / self.count as f64;
        let mean = self.mean + diff;
        // DuckDB's build fuses this multiply-add.
        self.dsquared = (x - mean).mul_add(x - self.mean, self.dsquared);
        self.mean = mean;
    }

    /// Adds `x` `n` times.
    pub fn add_n(&mut self, x: f64, n: u64) {
        if n <= ONE_BY_ONE {
            for _ in 0..n {
                self.add(x);
            }
        } else {
            // Copies of a non-finite value spread as NaN, as adding them one
            // by one does (`inf - inf`).
            self.combine(&Welford {
                count: n,
                mean: x,
                dsquared: spread_of_copies(x),
            });
        }
    }

    /// Combines another state into this one.
    pub fn combine(&mut self, o: &Welford) {
        if self.count == 0 {
            *self = *o;
        } else if o.count > 0 {
            let count = self.count + o.count;
            let (tc, sc, total) = (self.count as f64, o.count as f64, count as f64);
            let delta = o.mean - self.mean;
            let mean = (sc / total).mul_add(delta, self.mean);
            self.dsquared = o.dsquared + self.dsquared + delta * delta * sc * tc / total;
            self.mean = mean;
            self.count = count;
        }
    }

    /// The population variance (0 for one value).
    fn var_pop(&self) -> f64 {
        if self.count > 1 {
            self.dsquared / self.count as f64
        } else {
            0.0
        }
    }

    /// `var_samp`, `var_pop`, `stddev_samp` or `stddev_pop`.
    pub fn finish(&self, func: AggFunc) -> Option<f64> {
        let n = self.count;
        match func {
            AggFunc::VarSamp | AggFunc::StddevSamp if n <= 1 => None,
            AggFunc::VarPop | AggFunc::StddevPop if n == 0 => None,
            AggFunc::VarSamp => Some(self.dsquared / (n - 1) as f64),
            AggFunc::StddevSamp => Some((self.dsquared / (n - 1) as f64).sqrt()),
            AggFunc::VarPop => Some(self.var_pop()),
            AggFunc::StddevPop => Some(self.var_pop().sqrt()),
            _ => None,
        }
    }
}

/// The running co-moment of pairs `(y, x)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Covar {
    /// Pairs seen.
    pub count: u64,
    /// Mean of x.
    pub meanx: f64,
    /// Mean of y.
    pub meany: f64,
    /// The co-moment.
    pub co_moment: f64,
}

impl Covar {
    /// Adds one pair.
    #[inline]
    pub fn add(&mut self, y: f64, x: f64) {
        self.count += 1;
        let n = self.count as f64;
        let dx = x - self.meanx;
        let meanx = self.meanx + dx / n;
        let dy = y - self.meany;
        let meany = self.meany + dy / n;
        // DuckDB's build fuses this multiply-add.
        self.co_moment = dx.mul_add(y - meany, self.co_moment);
        self.meanx = meanx;
        self.meany = meany;
    }

    /// Combines another state into this one.
    pub fn combine(&mut self, o: &Covar) {
        if self.count == 0 {
            *self = *o;
        } else if o.count > 0 {
            let count = self.count + o.count;
            let (tc, sc, total) = (self.count as f64, o.count as f64, count as f64);
            let meanx = (sc * o.meanx + tc * self.meanx) / total;
            let meany = (sc * o.meany + tc * self.meany) / total;
            let dx = self.meanx - o.meanx;
            let dy = self.meany - o.meany;
            self.co_moment = o.co_moment + self.co_moment + dx * dy * sc * tc / total;
            self.meanx = meanx;
            self.meany = meany;
            self.count = count;
        }
    }

    fn covar_pop(&self) -> f64 {
        self.co_moment / self.count as f64
    }
}

/// Everything the two-argument statistics (`corr`, `covar_*`, `regr_*`)
/// need, each part updated as DuckDB updates its own state for that
/// function.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bivariate {
    /// The pairs' co-moment.
    pub cov: Covar,
    /// Welford over x.
    pub x: Welford,
    /// Welford over y.
    pub y: Welford,
    /// Plain sum of x (`regr_avgx`, `regr_intercept`).
    pub sum_x: f64,
    /// Plain sum of y.
    pub sum_y: f64,
}

impl Bivariate {
    /// Adds the pair `(y, x)` (both non-NULL).
    #[inline]
    pub fn add(&mut self, y: f64, x: f64) {
        self.cov.add(y, x);
        self.x.add(x);
        self.y.add(y);
        self.sum_x += x;
        self.sum_y += y;
    }

    /// The value of `func` (NULL as `None`).
    pub fn finish(&self, func: AggFunc) -> Option<f64> {
        let n = self.cov.count;
        let slope = || -> Option<f64> {
            if n == 0 {
                return None;
            }
            let var = self.x.var_pop();
            Some(if var != 0.0 {
                self.cov.covar_pop() / var
            } else {
                f64::NAN
            })
        };
        match func {
            AggFunc::CovarPop => (n > 0).then(|| self.cov.covar_pop()),
            AggFunc::CovarSamp => (n >= 2).then(|| self.cov.co_moment / (n - 1) as f64),
            AggFunc::Corr => {
                if n == 0 {
                    return None;
                }
                let sx = self.x.var_pop().sqrt();
                let sy = self.y.var_pop().sqrt();
                Some(if sx * sy != 0.0 {
                    self.cov.covar_pop() / (sx * sy)
                } else {
                    f64::NAN
                })
            }
            AggFunc::RegrSlope => slope(),
            AggFunc::RegrIntercept => {
                let s = slope()?;
                if s.is_nan() {
                    return None;
                }
                let c = n as f64;
                Some(self.sum_y / c - s * (self.sum_x / c))
            }
            AggFunc::RegrR2 => {
                let vx = self.x.var_pop();
                if vx == 0.0 {
                    return None;
                }
                if self.y.var_pop() == 0.0 {
                    return Some(1.0);
                }
                self.finish(AggFunc::Corr).map(|c| c.powi(2))
            }
            AggFunc::RegrAvgX => (n > 0).then(|| self.sum_x / n as f64),
            AggFunc::RegrAvgY => (n > 0).then(|| self.sum_y / n as f64),
            AggFunc::RegrSxx => (n > 0).then(|| n as f64 * self.x.var_pop()),
            AggFunc::RegrSyy => (n > 0).then(|| n as f64 * self.y.var_pop()),
            AggFunc::RegrSxy => (n > 0).then(|| self.cov.covar_pop() * n as f64),
            _ => None,
        }
    }
}

/// Central moments for kurtosis and skewness, updated one value at a time
/// as DuckDB does (Welford's method extended to the third and fourth
/// moments) and combined with Pébay's formulas.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    /// Values seen.
    pub n: u64,
    /// The mean.
    pub m1: f64,
    /// Sum of squared differences from the mean.
    pub m2: f64,
    /// Sum of cubed differences.
    pub m3: f64,
    /// Sum of fourth powers of the differences.
    pub m4: f64,
}

impl Moments {
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let n1 = self.n as f64;
        self.n += 1;
        let n = self.n as f64;
        let delta = x - self.m1;
        let dn = delta / n;
        let dn2 = dn * dn;
        let term1 = delta * dn * n1;
        let poly = if self.n <= u64::from(u32::MAX) {
            // n² - 3n + 3 in integers (exact; it wraps below 0 and back).
            (self.n * self.n).wrapping_sub(3 * self.n).wrapping_add(3) as f64
        } else {
            n * n - 3.0 * n + 3.0
        };
        self.m1 += dn;
        self.m4 += term1 * dn2 * poly + 6.0 * dn2 * self.m2 - 4.0 * dn * self.m3;
        self.m3 += term1 * dn * (n - 2.0) - 3.0 * dn * self.m2;
        self.m2 += term1;
    }

    /// Adds `x` `n` times.
    pub fn add_n(&mut self, x: f64, n: u64) {
        if n <= ONE_BY_ONE {
            for _ in 0..n {
                self.add(x);
            }
        } else {
            let spread = spread_of_copies(x);
            self.combine(&Moments {
                n,
                m1: x,
                m2: spread,
                m3: spread,
                m4: spread,
            });
        }
    }

    /// Combines another state into this one.
    pub fn combine(&mut self, o: &Moments) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *o;
            return;
        }
        let (na, nb) = (self.n as f64, o.n as f64);
        let n = na + nb;
        let d = o.m1 - self.m1;
        let (d2, d3, d4) = (d * d, d * d * d, d * d * d * d);
        let m2 = self.m2 + o.m2 + d2 * na * nb / n;
        let m3 = self.m3
            + o.m3
            + d3 * na * nb * (na - nb) / (n * n)
            + 3.0 * d * (na * o.m2 - nb * self.m2) / n;
        let m4 = self.m4
            + o.m4
            + d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n)
            + 6.0 * d2 * (na * na * o.m2 + nb * nb * self.m2) / (n * n)
            + 4.0 * d * (na * o.m3 - nb * self.m3) / n;
        self.m1 += d * nb / n;
        self.m2 = m2;
        self.m3 = m3;
        self.m4 = m4;
        self.n += o.n;
    }

    /// `kurtosis`, `kurtosis_pop` or `skewness`: NULL for too few values or
    /// no spread; an error where DuckDB's is out of range.
    pub fn finish(&self, func: AggFunc) -> Result<Option<f64>> {
        let n = self.n as f64;
        let m2 = self.m2;
        let out = match func {
            AggFunc::Skewness => {
                if self.n <= 2 || m2 == 0.0 {
                    return Ok(None);
                }
                let g1 = n.sqrt() * self.m3 / m2.powf(1.5);
                (n * (n - 1.0)).sqrt() / (n - 2.0) * g1
            }
            AggFunc::KurtosisPop => {
                if self.n <= 1 || m2 == 0.0 {
                    return Ok(None);
                }
                n * self.m4 / (m2 * m2) - 3.0
            }
            _ => {
                if self.n <= 3 || m2 == 0.0 {
                    return Ok(None);
                }
                let g2 = n * self.m4 / (m2 * m2);
                let ratio = (n - 1.0) / ((n - 2.0) * (n - 3.0));
                ratio * ((n + 1.0) * g2 - 3.0 * (n - 1.0))
            }
        };
        if !out.is_finite() {
            let what = if func == AggFunc::Skewness {
                "SKEW"
            } else {
                "Kurtosis"
            };
            return Err(EngineError::Runtime(format!("{what} is out of range!")));
        }
        Ok(Some(out))
    }
}

/// Copies of a value up to this many are added one at a time, as DuckDB adds
/// rows, so that a group's few rows give DuckDB's last digits (a merged state
/// of copies is as exact but rounds differently: `kurtosis_pop` of {0, 0,
/// -7.25} is -1.5 one by one, -1.4999999999999998 merged); more are merged.
const ONE_BY_ONE: u64 = 16;

/// The spread (sum of squared differences, or a higher moment) of copies
/// of one value: 0, or NaN for a non-finite value, as adding the copies
/// one by one gives.
fn spread_of_copies(x: f64) -> f64 {
    if x.is_finite() {
        0.0
    } else {
        f64::NAN
    }
}

/// A compensated double sum (DuckDB's `fsum`, `favg`): Kahan and Babuška's
/// (Neumaier's) variant, which keeps the lost low-order part even when a
/// value is larger than the running sum. Infinite inputs are kept apart
/// from the finite ones, as in [`crate::agg::float_sum`], so that the
/// answer does not depend on the order rows arrive in.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Kahan {
    /// Values seen.
    pub count: u64,
    /// The sum.
    pub sum: f64,
    /// The compensation.
    pub err: f64,
    /// Infinite inputs seen: bit 0 `+inf`, bit 1 `-inf`.
    pub infs: u64,
}

impl Kahan {
    #[inline]
    fn add_internal(&mut self, x: f64) {
        let t = self.sum + x;
        self.err += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    /// Adds `x` `n` times.
    #[inline]
    pub fn add_n(&mut self, x: f64, n: u64) {
        self.count += n;
        if x.is_infinite() {
            self.infs |= inf_bits(x);
            return;
        }
        let whole = x * n as f64;
        if n == 1 || (whole.is_finite() && self.sum.is_finite()) || !x.is_finite() {
            self.add_internal(if n == 1 { x } else { whole });
        } else {
            // One at a time until the sum overflows, as the rows would add
            // (`1.5e308` twice after `-1.5e308` is `1.5e308`, not `inf`).
            for _ in 0..n {
                self.add_internal(x);
                if !self.sum.is_finite() {
                    break;
                }
            }
        }
    }

    /// Combines another state into this one.
    pub fn combine(&mut self, o: &Kahan) {
        self.count += o.count;
        self.add_internal(o.sum);
        self.err += o.err;
        self.infs |= o.infs;
    }

    /// `fsum` or `favg` (the compensation is dropped once it is not finite,
    /// as DuckDB drops it).
    pub fn finish(&self, func: AggFunc) -> Option<f64> {
        let finite = if self.err.is_finite() {
            self.sum + self.err
        } else {
            self.sum
        };
        let total = with_infinities(finite, self.infs);
        match (self.count, func) {
            (0, _) => None,
            (n, AggFunc::FAvg) => Some(total / n as f64),
            _ => Some(total),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fsum` of `xs` added in order.
    fn fsum(xs: &[f64]) -> Option<f64> {
        let mut k = Kahan::default();
        for &x in xs {
            k.add_n(x, 1);
        }
        k.finish(AggFunc::FSum)
    }

    #[test]
    fn compensated_sums_keep_infinities_apart() {
        let big = -1.5e308;
        assert_eq!(fsum(&[big, big, f64::INFINITY]), Some(f64::INFINITY));
        assert_eq!(fsum(&[f64::INFINITY, big, big]), Some(f64::INFINITY));
        assert_eq!(fsum(&[big, big]), Some(f64::NEG_INFINITY));
        assert!(fsum(&[f64::INFINITY, f64::NEG_INFINITY, 1.0]).is_some_and(f64::is_nan));
        assert!(fsum(&[f64::NAN, f64::INFINITY]).is_some_and(f64::is_nan));
    }

    /// Values DuckDB gives for the same inputs.
    #[test]
    fn statistics_as_duckdb() {
        let mut w = Welford::default();
        for x in [10.0, 20.0, 7.0] {
            w.add(x);
        }
        assert_eq!(w.finish(AggFunc::VarSamp), Some(46.333333333333336));
        assert_eq!(w.finish(AggFunc::VarPop), Some(30.88888888888889));
        let mut one = Welford::default();
        one.add(7.0);
        assert_eq!(one.finish(AggFunc::VarSamp), None);
        assert_eq!(one.finish(AggFunc::VarPop), Some(0.0));
        let mut b = Bivariate::default();
        for (y, x) in [(10.0, 1.5), (20.0, 2.5), (7.0, 7.0)] {
            b.add(y, x);
        }
        assert_eq!(b.finish(AggFunc::Corr), Some(-0.5432345007885317));
        assert_eq!(b.finish(AggFunc::CovarSamp), Some(-10.833333333333336));
        assert_eq!(b.finish(AggFunc::RegrSlope), Some(-1.2621359223300976));
    }

    #[test]
    fn compensated_sums_as_duckdb() {
        assert_eq!(fsum(&[1e100, 1.0, -1e100]), Some(1.0));
        assert_eq!(fsum(&[1.0, 1e100, 1.0, -1e100]), Some(2.0));
        assert_eq!(fsum(&[f64::INFINITY, -354748.5]), Some(f64::INFINITY));
        // A repeated value whose multiple overflows adds as its rows would.
        let mut k = Kahan::default();
        k.add_n(f64::NEG_INFINITY, 1);
        k.add_n(1.5e308, 2);
        assert_eq!(k.finish(AggFunc::FSum), Some(f64::NEG_INFINITY));
    }

    #[test]
    fn moments_as_duckdb() {
        let mut m = Moments::default();
        for x in [1.5, 2.5, 7.0, 3.0, -1.0] {
            m.add(x);
        }
        let k = m.finish(AggFunc::Kurtosis).ok().flatten();
        let mut c = Moments::default();
        c.add_n(1.5, 1);
        let mut d = Moments::default();
        for x in [2.5, 7.0, 3.0, -1.0] {
            d.add(x);
        }
        c.combine(&d);
        let k2 = c.finish(AggFunc::Kurtosis).ok().flatten();
        assert!(k.zip(k2).is_some_and(|(a, b)| (a - b).abs() < 1e-12));
        let mut same = Moments::default();
        same.add_n(0.1, 7);
        assert_eq!(same.finish(AggFunc::Skewness).ok(), Some(None));
        // A few copies of a value give DuckDB's row-by-row digits.
        let mut few = Moments::default();
        few.add_n(-5e-324, 2);
        few.add_n(-7.25, 1);
        assert_eq!(few.finish(AggFunc::KurtosisPop).ok(), Some(Some(-1.5)));
    }

    #[test]
    fn repeated_values_combine_as_added_one_by_one() {
        let mut a = Welford::default();
        let mut b = Welford::default();
        for x in [3.0, 3.0, 3.0, 8.0] {
            a.add(x);
        }
        b.add_n(3.0, 3);
        b.add_n(8.0, 1);
        assert!((a.dsquared - b.dsquared).abs() < 1e-12);
        assert_eq!(a.count, b.count);
    }
}
