//! Hash aggregation over in-memory batches: dense group ids for rows by
//! their key values, and each aggregate function's accumulation over them.
//! The operators above the table engine (aggregates over subqueries, set
//! operations, DISTINCT) use it; the table engine has its own sorted-vector
//! states ([`crate::agg::layout`]).
//!
//! Keys compare as SQL's grouping does: NULLs equal each other, `-0.0`
//! equals `0.0`, all NaNs are one value.

use std::collections::{HashMap, HashSet};

use crate::agg::func::{AggCall, AggFunc};
use crate::error::{invalid, EngineError, Result};
use crate::expr::order::cmp_values;
use crate::value::{Data, LType, Value, Vector};

/// A value as a hashable grouping key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Atom<'a> {
    /// NULL.
    Null,
    /// A boolean.
    B(bool),
    /// An `i64`-held value.
    I(i64),
    /// A `u64`.
    U(u64),
    /// An `i128`.
    H(i128),
    /// A float's canonical bits.
    F(u64),
    /// Bytes.
    S(&'a [u8]),
}

/// Row `i` of `v` as an [`Atom`].
#[inline]
pub fn atom(v: &Vector, i: usize) -> Atom<'_> {
    if v.is_null(i) {
        return Atom::Null;
    }
    match &v.data {
        Data::Bool(d) => Atom::B(d[i]),
        Data::I64(d) => Atom::I(d[i]),
        Data::U64(d) => Atom::U(d[i]),
        Data::I128(d) if v.ty == LType::Interval => Atom::H(crate::interval::total(d[i])),
        Data::I128(d) => Atom::H(d[i]),
        Data::F64(d) => {
            let x = d[i];
            Atom::F(if x.is_nan() {
                f64::NAN.to_bits()
            } else if x == 0.0 {
                0
            } else {
                x.to_bits()
            })
        }
        Data::Str(d) => Atom::S(&d[i]),
    }
}

/// Rows grouped by their key values.
#[derive(Debug, Clone, Default)]
pub struct Grouping {
    /// Each row's group.
    pub ids: Vec<u32>,
    /// Each group's first row.
    pub first: Vec<u32>,
}

impl Grouping {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

/// Groups `rows` rows by the values of `keys`. With no keys all rows form
/// one group (none when there are no rows).
pub fn group_rows(keys: &[&Vector], rows: usize) -> Result<Grouping> {
    if rows > u32::MAX as usize {
        return invalid(format!("{rows} rows are too many to group in memory"));
    }
    // Per key column, dense codes; then codes combined column by column.
    let mut ids: Vec<u32> = vec![0; rows];
    let mut count: u32 = u32::from(rows > 0);
    for (k, v) in keys.iter().enumerate() {
        let mut codes: HashMap<Atom, u32> = HashMap::new();
        let col: Vec<u32> = (0..rows)
            .map(|i| {
                let n = codes.len() as u32;
                *codes.entry(atom(v, i)).or_insert(n)
            })
            .collect();
        if k == 0 {
            count = codes.len() as u32;
            ids = col;
        } else {
            let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
            for (id, c) in ids.iter_mut().zip(col) {
                let n = pairs.len() as u32;
                *id = *pairs.entry((*id, c)).or_insert(n);
            }
            count = pairs.len() as u32;
        }
    }
    let mut first = vec![u32::MAX; count as usize];
    for (i, &g) in ids.iter().enumerate() {
        let f = &mut first[g as usize];
        if *f == u32::MAX {
            *f = i as u32;
        }
    }
    Ok(Grouping { ids, first })
}

/// Aggregate `call` over the rows of each group; `arg` is its argument's
/// values (`None` for `COUNT(*)`).
pub fn aggregate(call: &AggCall, arg: Option<&Vector>, g: &Grouping) -> Result<Vector> {
    let n = g.len();
    let ids = &g.ids;
    let Some(arg) = arg else {
        let mut counts = vec![0i64; n];
        for &id in ids {
            counts[id as usize] += 1;
        }
        return Ok(ints(call.ty, counts));
    };
    if call.distinct {
        return distinct(call, arg, g);
    }
    match call.func {
        AggFunc::CountStar => {
            let mut counts = vec![0i64; n];
            for &id in ids {
                counts[id as usize] += 1;
            }
            Ok(ints(call.ty, counts))
        }
        AggFunc::Count => {
            let mut counts = vec![0i64; n];
            for (i, &id) in ids.iter().enumerate() {
                if !arg.is_null(i) {
                    counts[id as usize] += 1;
                }
            }
            Ok(ints(call.ty, counts))
        }
        AggFunc::Sum | AggFunc::Avg => sum_or_avg(call, arg, ids, n),
        AggFunc::Min | AggFunc::Max => {
            let max = call.func == AggFunc::Max;
            let mut best: Vec<Option<usize>> = vec![None; n];
            for (i, &id) in ids.iter().enumerate() {
                if arg.is_null(i) {
                    continue;
                }
                let b = &mut best[id as usize];
                let better = match *b {
                    None => true,
                    Some(j) => {
                        let o = cmp_values(arg, i, j);
                        if max {
                            o.is_gt()
                        } else {
                            o.is_lt()
                        }
                    }
                };
                if better {
                    *b = Some(i);
                }
            }
            let mut out = Vector::empty(call.ty, n);
            for b in best {
                match b {
                    Some(i) => out.push(&arg.get(i)),
                    None => out.push(&Value::Null),
                }
            }
            Ok(out)
        }
    }
}

fn ints(ty: LType, v: Vec<i64>) -> Vector {
    Vector {
        ty,
        data: Data::I64(v),
        nulls: None,
    }
}

/// SUM and AVG: exact on integers and decimals (scaled `i128`), `f64` on
/// floats; NULL for a group without non-NULL values.
fn sum_or_avg(call: &AggCall, arg: &Vector, ids: &[u32], n: usize) -> Result<Vector> {
    let mut seen = vec![0u64; n];
    let mut out = Vector::empty(call.ty, n);
    let scale = match arg.ty {
        LType::Decimal(_, s) => 10f64.powi(i32::from(s)),
        _ => 1.0,
    };
    let exact = |i: usize| -> Option<i128> {
        match &arg.data {
            Data::I64(d) => Some(i128::from(d[i])),
            Data::U64(d) => Some(i128::from(d[i])),
            Data::I128(d) => Some(d[i]),
            Data::Bool(d) => Some(i128::from(d[i])),
            _ => None,
        }
    };
    if let Data::F64(d) = &arg.data {
        let mut sums = vec![0f64; n];
        for (i, &id) in ids.iter().enumerate() {
            if !arg.is_null(i) {
                sums[id as usize] += d[i];
                seen[id as usize] += 1;
            }
        }
        for (s, c) in sums.into_iter().zip(seen) {
            out.push(&match (c, call.func) {
                (0, _) => Value::Null,
                (_, AggFunc::Avg) => Value::Float(s / c as f64),
                _ => Value::Float(s),
            });
        }
        return Ok(out);
    }
    let mut sums = vec![0i128; n];
    for (i, &id) in ids.iter().enumerate() {
        if arg.is_null(i) {
            continue;
        }
        let x = exact(i).ok_or_else(|| {
            EngineError::Internal(format!("{}() of {}", call.func.name(), arg.ty))
        })?;
        let s = &mut sums[id as usize];
        *s = s.checked_add(x).ok_or_else(|| {
            EngineError::Runtime(format!("Overflow in {}() of {}", call.func.name(), arg.ty))
        })?;
        seen[id as usize] += 1;
    }
    for (s, c) in sums.into_iter().zip(seen) {
        out.push(&match (c, call.func) {
            (0, _) => Value::Null,
            (_, AggFunc::Avg) => Value::Float(s as f64 / scale / c as f64),
            _ => Value::Huge(s),
        });
    }
    Ok(out)
}

/// `COUNT(DISTINCT x)`: the distinct non-NULL values per group.
fn distinct(call: &AggCall, arg: &Vector, g: &Grouping) -> Result<Vector> {
    if call.func != AggFunc::Count {
        return Err(EngineError::Unsupported(format!(
            "{}(DISTINCT ...)",
            call.func.name()
        )));
    }
    let mut seen: HashSet<(u32, Atom)> = HashSet::new();
    let mut counts = vec![0i64; g.len()];
    for (i, &id) in g.ids.iter().enumerate() {
        let a = atom(arg, i);
        if a != Atom::Null && seen.insert((id, a)) {
            counts[id as usize] += 1;
        }
    }
    Ok(ints(call.ty, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(ty: LType, vals: &[Value]) -> Vector {
        let mut out = Vector::empty(ty, vals.len());
        for x in vals {
            out.push(x);
        }
        out
    }

    #[test]
    fn groups_nulls_and_signed_zeros_together() {
        let a = v(
            LType::Double,
            &[
                Value::Float(0.0),
                Value::Float(-0.0),
                Value::Null,
                Value::Float(f64::NAN),
                Value::Null,
                Value::Float(-f64::NAN),
            ],
        );
        let g = group_rows(&[&a], 6).unwrap_or_default();
        assert_eq!(g.ids, vec![0, 0, 1, 2, 1, 2]);
        assert_eq!(g.first, vec![0, 2, 3]);
    }

    #[test]
    fn sums_are_exact_and_null_for_empty_groups() {
        let keys = v(LType::Int32, &[Value::Int(1), Value::Int(2), Value::Int(1)]);
        let x = v(
            LType::Decimal(4, 2),
            &[Value::Int(5), Value::Null, Value::Int(7)],
        );
        let g = group_rows(&[&keys], 3).unwrap_or_default();
        let call = AggCall {
            func: AggFunc::Sum,
            arg: None,
            distinct: false,
            ty: LType::Decimal(38, 2),
        };
        let s = aggregate(&call, Some(&x), &g).unwrap_or_else(|_| Vector::empty(LType::Null, 0));
        assert_eq!(s.get(0), Value::Huge(12));
        assert_eq!(s.get(1), Value::Null);
    }
}
