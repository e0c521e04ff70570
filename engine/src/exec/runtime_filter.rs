//! Semi-join reduction: a join runs one input first and hands the distinct
//! values of its key to the table scan of the other input, which then reads
//! only the rows whose key is among them (an `IN` filter the table engine
//! answers on the column's sorted distinct values, before any row is
//! materialised).
//!
//! Sound where the join drops the other input's rows that match no row of
//! the first: an inner join (either input), a LEFT join's right input, a
//! RIGHT join's left input, the right input of SEMI, ANTI, MARK and SINGLE
//! joins (whose left rows only ask whether a match exists), and a SEMI
//! join's left input. A row whose key is NULL matches nothing, and the
//! filter drops it too. Not for null-aware joins (`NOT IN`), where a NULL
//! key on the right changes every answer.

use std::sync::{Arc, Mutex};

use rayon::slice::ParallelSliceMut;

use crate::expr::{ExprKind, TExpr};
use crate::plan::{JoinKind, LogicalPlan, TableQuery};
use crate::value::{Data, LType, Value, Vector};

/// Distinct key values past which no filter is handed over (the filter
/// would cost its own memory, about 40 bytes a value at its largest). A
/// scan meets only the keys within each block's range, so a large set over
/// a table clustered by the key still costs a slice per block (TPC-H Q3 at
/// SF10 hands 1.46 million order keys to lineitem's scan).
pub const MAX_VALUES: usize = 1 << 23;

/// The values a join hands to a scan; empty until the join sets them.
#[derive(Debug, Default)]
pub struct RuntimeFilter {
    values: Mutex<Option<Vec<Value>>>,
}

/// The distinct non-NULL values of `v`, or `None` when there are more than
/// [`MAX_VALUES`].
pub fn distinct_values(v: &Vector) -> Option<Vec<Value>> {
    if let Data::I64(d) = &v.data {
        // Integer keys sort as themselves (every type held as `I64` orders
        // its keys as the integers): 8 bytes a row to sort, not 32.
        let mut xs: Vec<i64> = match &v.nulls {
            None => d.clone(),
            Some(null) => d
                .iter()
                .zip(null)
                .filter(|(_, &n)| !n)
                .map(|(&x, _)| x)
                .collect(),
        };
        xs.par_sort_unstable();
        xs.dedup();
        return (xs.len() <= MAX_VALUES).then(|| xs.into_iter().map(Value::Int).collect());
    }
    let mut keyed: Vec<(u128, usize)> = (0..v.len())
        .filter_map(|i| v.key(i).map(|k| (k, i)))
        .collect();
    keyed.sort_unstable_by_key(|x| x.0);
    keyed.dedup_by_key(|x| x.0);
    (keyed.len() <= MAX_VALUES).then(|| keyed.iter().map(|&(_, i)| v.get(i)).collect())
}

impl RuntimeFilter {
    /// Sets the values (`None`: no filter).
    pub fn set(&self, values: Option<Vec<Value>>) {
        if let Ok(mut slot) = self.values.lock() {
            *slot = values;
        }
    }

    /// The filter over table column `col` (of type `ty`), once set.
    pub fn predicate(&self, col: usize, ty: LType) -> Option<TExpr> {
        let values = self.values.lock().ok()?.clone()?;
        let column = TExpr {
            kind: ExprKind::Col(col),
            ty,
        };
        Some(TExpr {
            kind: ExprKind::InList(Box::new(column), values, false),
            ty: LType::Bool,
        })
    }
}

/// A join key whose values may filter a scan of the other input: the key's
/// number in the join, the distinct values of the column it filters (from
/// the table's statistics), and the filter handed to that scan.
#[derive(Debug, Clone)]
pub struct KeyFilter {
    /// The key pair's index.
    pub key: usize,
    /// Estimated distinct values of the filtered column in its table.
    pub column_distinct: f64,
    /// The filter the scan reads.
    pub filter: Arc<RuntimeFilter>,
}

/// Of the keys' distinct values (in `filters` order), the one that keeps
/// the smallest share of its column's values: the filter that cuts most.
/// A key with too many values to hand over (`None`) is never chosen.
pub fn most_selective(filters: &[KeyFilter], values: &[Option<Vec<Value>>]) -> Option<usize> {
    (0..filters.len())
        .filter_map(|i| {
            let n = values[i].as_ref()?.len() as f64;
            Some((i, n / filters[i].column_distinct.max(1.0)))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// Which input of a join a filter reduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The left input (the right runs first).
    Left,
    /// The right input (the left runs first).
    Right,
}

/// Whether a filter from the other input's keys may reduce `side` of a
/// join of `kind`.
pub fn may_reduce(kind: &JoinKind, side: Side) -> bool {
    match side {
        Side::Right => matches!(
            kind,
            JoinKind::Inner
                | JoinKind::Left
                | JoinKind::Semi
                | JoinKind::Anti
                | JoinKind::Single { .. }
                | JoinKind::Mark { null_aware: false }
        ),
        Side::Left => matches!(kind, JoinKind::Inner | JoinKind::Right | JoinKind::Semi),
    }
}

/// The table query, among `input` and the inputs it passes rows through,
/// whose rows a join key comes from, and the table column the key is there.
/// Dropping that scan's rows whose key a join's other input lacks drops only
/// rows the join would drop: each node traced keeps the key of the rows it
/// is given and drops or passes them whole (a projection, a filter,
/// DISTINCT, a grouping by the key, the preserved side of an outer join,
/// either side of an inner join, the left side of a semi, anti, mark or
/// single join).
pub fn key_source<'a>(input: &'a LogicalPlan, key: &TExpr) -> Option<(&'a TableQuery, usize)> {
    match input {
        LogicalPlan::TableQuery(t) => key_column(input, key).map(|c| (&**t, c)),
        LogicalPlan::Project { input, exprs, .. } => {
            let e = exprs.get(key.as_col()?)?;
            e.as_col()?;
            key_source(input, e)
        }
        LogicalPlan::Filter { input, .. } | LogicalPlan::Distinct { input } => {
            key_source(input, key)
        }
        LogicalPlan::Aggregate { input, keys, .. } => {
            let k = keys.get(key.as_col()?)?;
            k.as_col()?;
            key_source(input, k)
        }
        LogicalPlan::Join {
            kind, left, right, ..
        } => {
            let c = key.as_col()?;
            let nl = left.columns().len();
            if c < nl {
                // Every join but RIGHT and FULL passes its left rows on whole
                // or drops them (NOT IN's null-aware anti join aside, whose
                // answer a NULL key on the right changes).
                match kind {
                    JoinKind::Right | JoinKind::Full | JoinKind::AntiNullAware => None,
                    _ => key_source(left, key),
                }
            } else if matches!(kind, JoinKind::Inner | JoinKind::Right) {
                let k = TExpr {
                    kind: ExprKind::Col(c - nl),
                    ty: key.ty,
                };
                key_source(right, &k)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The table column a join key reads when `input` is a table query whose
/// rows are uncut (no LIMIT) and `key` one of its output columns that is a
/// stored column or, where the query aggregates, a group key that is one.
/// Filtering an aggregation's input rows by a group key drops whole groups
/// (every row of a group has its key), so the groups left are unchanged.
pub fn key_column(input: &LogicalPlan, key: &TExpr) -> Option<usize> {
    let LogicalPlan::TableQuery(t) = input else {
        return None;
    };
    if t.limit.is_some() || t.offset > 0 {
        return None;
    }
    // Float keys equal across -0.0 and 0.0, which the value filter's keys
    // tell apart.
    if matches!(key.ty, LType::Float | LType::Double) {
        return None;
    }
    let out = &t.select.get(key.as_col()?)?.1;
    match &t.aggregation {
        None => out.as_col(),
        Some(a) => match out.kind {
            ExprKind::Ref(k) => a.keys.get(k)?.as_col(),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(key: usize, column_distinct: f64) -> KeyFilter {
        KeyFilter {
            key,
            column_distinct,
            filter: Arc::default(),
        }
    }

    fn ints(n: i64) -> Option<Vec<Value>> {
        Some((0..n).map(Value::Int).collect())
    }

    #[test]
    fn distinct_values_are_sorted_without_nulls_or_repeats() {
        let v = Vector {
            ty: LType::Int64,
            data: Data::I64(vec![5, -3, 5, 0, 9, -3, 7]),
            nulls: Some(vec![false, false, false, true, false, false, true]),
        };
        let want: Vec<Value> = [-3, 5, 9].into_iter().map(Value::Int).collect();
        assert_eq!(distinct_values(&v), Some(want));
        // Through the general path (keys of another type), the same set.
        let s = Vector {
            ty: LType::Varchar,
            data: Data::Str(["b", "a", "b"].iter().map(|x| x.as_bytes()).collect()),
            nulls: None,
        };
        let got = distinct_values(&s).unwrap_or_default();
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn the_key_keeping_the_smallest_share_of_its_column_is_chosen() {
        // 10,000 of 10,000 suppliers against 10,000 of 200,000 parts.
        let filters = [filter(0, 10_000.0), filter(1, 200_000.0)];
        assert_eq!(
            most_selective(&filters, &[ints(10_000), ints(10_000)]),
            Some(1)
        );
        // A key with too many values to hand over is never chosen.
        assert_eq!(most_selective(&filters, &[ints(3), None]), Some(0));
        assert_eq!(most_selective(&filters, &[None, None]), None);
    }
}
