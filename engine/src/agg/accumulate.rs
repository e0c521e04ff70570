//! Hash aggregation over in-memory batches: dense group ids for rows by
//! their key values, the rows each aggregate call takes ([`feed`]), and its
//! accumulation over them ([`crate::agg::fold`]).
//! The operators above the table engine (aggregates over subqueries, set
//! operations, DISTINCT) use it; the table engine has its own sorted-vector
//! states ([`crate::agg::layout`]).
//!
//! Keys compare as SQL's grouping does: NULLs equal each other, `-0.0`
//! equals `0.0`, all NaNs are one value.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;

use crate::agg::fold::{fold, Feed};
use crate::agg::func::AggCall;
use crate::error::{invalid, Result};
use crate::expr::order::{sort_indices, SortKey};
use crate::scan::filter::truth_of;
use crate::value::{Data, LType, Vector};

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

/// Bytes [`group_rows`] holds per input row (its group id and hash table
/// slot), as charged to a query's memory budget.
pub const GROUP_BYTES_PER_ROW: u64 = 16;

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
        let mut codes: HashMap<Atom, u32, FixedState> = HashMap::default();
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
            let mut pairs: HashMap<(u32, u32), u32, FixedState> = HashMap::default();
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

/// An aggregate call's evaluated inputs over the rows.
#[derive(Debug, Clone, Default)]
pub struct CallInputs<'a> {
    /// The arguments (an input column borrowed, a computed one owned).
    pub args: Vec<Cow<'a, Vector>>,
    /// The FILTER's values.
    pub filter: Option<Cow<'a, Vector>>,
    /// The ORDER BY keys' values.
    pub order: Vec<Cow<'a, Vector>>,
}

/// The rows `call` takes and the order it takes them in, each with its
/// group from `ids`: rows passing the FILTER, sorted by the call's ORDER BY
/// (stably), and with DISTINCT the first row of each distinct argument
/// tuple within its group.
pub fn feed(call: &AggCall, inputs: &CallInputs, ids: &[u32]) -> Feed {
    let mut rows: Vec<u32> = match &inputs.filter {
        None => (0..ids.len() as u32).collect(),
        Some(f) => truth_of(f)
            .into_iter()
            .enumerate()
            .filter_map(|(i, t)| t.then_some(i as u32))
            .collect(),
    };
    if !call.order.is_empty() {
        let keys: Vec<SortKey> = call
            .order
            .iter()
            .zip(&inputs.order)
            .map(|(o, v)| SortKey {
                values: v,
                desc: o.desc,
                nulls_first: o.nulls_first,
            })
            .collect();
        let idx = sort_indices(&keys, rows.iter().map(|&r| r as usize).collect(), None);
        rows = idx.into_iter().map(|r| r as u32).collect();
    }
    if call.distinct {
        if let [a] = inputs.args.as_slice() {
            let mut seen: HashSet<(u32, Atom), FixedState> = HashSet::default();
            rows.retain(|&r| seen.insert((ids[r as usize], atom(a, r as usize))));
        } else {
            let mut seen: HashSet<(u32, Vec<Atom>), FixedState> = HashSet::default();
            rows.retain(|&r| {
                let key: Vec<Atom> = inputs.args.iter().map(|a| atom(a, r as usize)).collect();
                seen.insert((ids[r as usize], key))
            });
        }
    }
    let groups = rows.iter().map(|&r| ids[r as usize]).collect();
    Feed { rows, groups }
}

/// Aggregate `call` over the rows of each group of `g`.
pub fn aggregate(call: &AggCall, inputs: &CallInputs, g: &Grouping) -> Result<Vector> {
    let f = feed(call, inputs, &g.ids);
    let args: Vec<&Vector> = inputs.args.iter().map(|a| &**a).collect();
    fold(call, &args, &f, g.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agg::func::AggFunc;
    use crate::value::{LType, Value};

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
        let call = AggCall::new(
            AggFunc::Sum,
            vec![crate::expr::TExpr::lit(Value::Null, x.ty)],
            LType::Decimal(38, 2),
        );
        let inputs = CallInputs {
            args: vec![Cow::Owned(x)],
            ..Default::default()
        };
        let s = aggregate(&call, &inputs, &g).unwrap_or_else(|_| Vector::empty(LType::Null, 0));
        assert_eq!(s.get(0), Value::Huge(12));
        assert_eq!(s.get(1), Value::Null);
    }
}
