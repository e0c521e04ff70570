//! Ranking and value functions over one partition: `row_number`, `rank`,
//! `dense_rank`, `percent_rank`, `cume_dist`, `ntile` from the peer
//! groups; `lag` and `lead` by position in the partition (frames do not
//! apply); `first_value`, `last_value`, `nth_value` over the frame.
//! `IGNORE NULLS` counts only the rows whose argument is not NULL.

use super::frame::{Count, FrameData, Part, Pieces};
use crate::error::{EngineError, Result};
use crate::plan::window::WindowFunc;
use crate::value::{Data, Value, Vector};

/// A function's arguments, by sorted position.
pub struct Args {
    /// The value argument (`lag`, `first_value`, ...).
    pub x: Option<Vector>,
    /// `ntile`'s buckets, `lag`/`lead`'s offset, `nth_value`'s `n`.
    pub n: Option<Count>,
    /// `lag`/`lead`'s default (of `x`'s type).
    pub default: Option<Vector>,
    /// `IGNORE NULLS`.
    pub ignore_nulls: bool,
}

impl Args {
    fn x(&self) -> Result<&Vector> {
        self.x
            .as_ref()
            .ok_or_else(|| EngineError::Internal("window function without its argument".into()))
    }

    /// The count argument at sorted position `pos` (`None`: NULL).
    fn n(&self, pos: usize, default: i64) -> Result<Option<i64>> {
        Ok(match &self.n {
            None => Some(default),
            Some(Count::Const(n)) => Some(*n),
            Some(Count::PerRow(v)) => match (&v.data, v.is_null(pos)) {
                (_, true) => None,
                (Data::I64(d), false) => Some(d[pos]),
                _ => return Err(EngineError::Internal("window count argument type".into())),
            },
        })
    }
}

/// Non-NULL rows of a partition's argument: `before[j]` counts those
/// before local row `j` (`before[n]` all of them).
struct NonNull {
    before: Vec<u32>,
    /// Local positions of the non-NULL rows.
    at: Vec<u32>,
}

impl NonNull {
    fn new(x: &Vector, p: &Part<'_>) -> NonNull {
        let mut before = Vec::with_capacity(p.n + 1);
        let mut at = Vec::new();
        for j in 0..p.n {
            before.push(at.len() as u32);
            if !x.is_null(p.base + j) {
                at.push(j as u32);
            }
        }
        before.push(at.len() as u32);
        NonNull { before, at }
    }

    /// The `k`-th (from 0) non-NULL row among `pieces`.
    fn nth(&self, pieces: &Pieces, mut k: usize) -> Option<usize> {
        for &(s, e) in pieces.ranges() {
            let (a, b) = (self.before[s] as usize, self.before[e] as usize);
            if k < b - a {
                return Some(self.at[a + k] as usize);
            }
            k -= b - a;
        }
        None
    }

    fn count(&self, pieces: &Pieces) -> usize {
        pieces
            .ranges()
            .iter()
            .map(|&(s, e)| (self.before[e] - self.before[s]) as usize)
            .sum()
    }
}

/// Appends `func`'s values for partition `p` to `out`.
pub fn partition_values(
    func: &WindowFunc,
    args: &Args,
    frame: Option<&FrameData>,
    p: &Part<'_>,
    out: &mut Vector,
) -> Result<()> {
    let n = p.n;
    match func {
        WindowFunc::RowNumber => ints(out, (0..n).map(|i| i as i64 + 1)),
        WindowFunc::Rank => ints(out, (0..n).map(|i| p.peers(i).0 as i64 + 1)),
        WindowFunc::DenseRank => ints(out, (0..n).map(|i| i64::from(p.group_of[i]) + 1)),
        WindowFunc::PercentRank => {
            for i in 0..n {
                let r = if n <= 1 {
                    0.0
                } else {
                    p.peers(i).0 as f64 / (n - 1) as f64
                };
                out.push(&Value::Float(r));
            }
        }
        WindowFunc::CumeDist => {
            for i in 0..n {
                out.push(&Value::Float(p.peers(i).1 as f64 / n as f64));
            }
        }
        WindowFunc::Ntile => {
            for i in 0..n {
                match args.n(p.base + i, 1)? {
                    None => out.push(&Value::Null),
                    Some(k) if k < 1 => {
                        return Err(EngineError::Runtime(
                            "Argument for ntile must be greater than zero".into(),
                        ))
                    }
                    Some(k) => out.push(&Value::Int(ntile(k, n as i64, i as i64))),
                }
            }
        }
        WindowFunc::Lag | WindowFunc::Lead => shift(func, args, p, out)?,
        WindowFunc::FirstValue | WindowFunc::LastValue | WindowFunc::NthValue => {
            let frame = frame
                .ok_or_else(|| EngineError::Internal("value function without a frame".into()))?;
            let x = args.x()?;
            let nn = frame.non_null(p);
            let nonnull = args.ignore_nulls.then(|| NonNull::new(x, p));
            for i in 0..n {
                let f = frame.frame(p, i, nn)?;
                let pieces = frame.pieces(p, i, f);
                let count = nonnull
                    .as_ref()
                    .map_or(pieces.count(), |m| m.count(&pieces));
                let k = match func {
                    WindowFunc::FirstValue => Some(0),
                    WindowFunc::LastValue => count.checked_sub(1),
                    _ => match args.n(p.base + i, 1)? {
                        Some(k) if k >= 1 => usize::try_from(k - 1).ok(),
                        _ => None,
                    },
                };
                let row = k.and_then(|k| match &nonnull {
                    Some(m) => m.nth(&pieces, k),
                    None => pieces.nth(k),
                });
                match row {
                    Some(j) => out.push(&x.get(p.base + j)),
                    None => out.push(&Value::Null),
                }
            }
        }
        WindowFunc::Aggregate(_) => {
            return Err(EngineError::Internal(
                "aggregate among the value functions".into(),
            ))
        }
    }
    Ok(())
}

/// Appends BIGINTs.
fn ints(out: &mut Vector, values: impl Iterator<Item = i64>) {
    match (&mut out.data, &out.nulls) {
        (Data::I64(d), None) => d.extend(values),
        _ => {
            for v in values {
                out.push(&Value::Int(v));
            }
        }
    }
}

/// `ntile(k)` of row `i` of `n` (SQLite's and DuckDB's formula: the
/// first `n % k` buckets get one row more).
fn ntile(k: i64, n: i64, i: i64) -> i64 {
    let k = k.min(n).max(1);
    let size = n / k;
    let large = n - k * size;
    let small_start = large * (size + 1);
    if i < small_start {
        1 + i / (size + 1)
    } else {
        1 + large + (i - small_start) / size
    }
}

/// `lag` and `lead`: the value `offset` rows before or after (a negative
/// offset looks the other way), else the default.
fn shift(func: &WindowFunc, args: &Args, p: &Part<'_>, out: &mut Vector) -> Result<()> {
    let x = args.x()?;
    let nonnull = args.ignore_nulls.then(|| NonNull::new(x, p));
    let back = matches!(func, WindowFunc::Lag);
    for i in 0..p.n {
        let pos = p.base + i;
        let Some(k) = args.n(pos, 1)? else {
            out.push(&Value::Null);
            continue;
        };
        let k = if back { -i128::from(k) } else { i128::from(k) };
        let target = match &nonnull {
            None => {
                let t = i as i128 + k;
                (0..p.n as i128).contains(&t).then_some(t as usize)
            }
            Some(m) => {
                // The k-th non-NULL row after (or before) row i.
                let t = if k > 0 {
                    i128::from(m.before[i + 1]) + k - 1
                } else if k < 0 {
                    i128::from(m.before[i]) + k
                } else {
                    -1
                };
                if k == 0 {
                    Some(i)
                } else {
                    usize::try_from(t)
                        .ok()
                        .and_then(|t| m.at.get(t))
                        .map(|&j| j as usize)
                }
            }
        };
        match target {
            Some(j) => out.push(&x.get(p.base + j)),
            None => match &args.default {
                Some(d) => out.push(&d.get(pos)),
                None => out.push(&Value::Null),
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntile_matches_duckdb() {
        // 8 rows in 3 buckets: 3, 3, 2.
        let got: Vec<i64> = (0..8).map(|i| ntile(3, 8, i)).collect();
        assert_eq!(got, vec![1, 1, 1, 2, 2, 2, 3, 3]);
        // More buckets than rows: one row each.
        let got: Vec<i64> = (0..3).map(|i| ntile(5, 3, i)).collect();
        assert_eq!(got, vec![1, 2, 3]);
    }
}
