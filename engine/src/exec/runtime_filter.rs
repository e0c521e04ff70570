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

use std::sync::Mutex;

use crate::expr::{ExprKind, TExpr};
use crate::plan::{JoinKind, LogicalPlan, TableQuery};
use crate::value::{LType, Value, Vector};

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

impl RuntimeFilter {
    /// Sets the values: the distinct non-NULL values of `v`, or none (no
    /// filter) when there are more than [`MAX_VALUES`].
    pub fn set_from(&self, v: &Vector) {
        let mut keyed: Vec<(u128, usize)> = (0..v.len())
            .filter_map(|i| v.key(i).map(|k| (k, i)))
            .collect();
        keyed.sort_unstable_by_key(|x| x.0);
        keyed.dedup_by_key(|x| x.0);
        let values =
            (keyed.len() <= MAX_VALUES).then(|| keyed.iter().map(|&(_, i)| v.get(i)).collect());
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
