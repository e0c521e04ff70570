//! Estimated rows of plan nodes: upper bounds from the tables' exact
//! statistics (rows per block, distinct values per block and column), for
//! EXPLAIN.

use crate::plan::{JoinKind, LogicalPlan, Query, SetOpKind, TableQuery};
use crate::scan::filter::{compile, may_match};

/// An upper bound of the rows `p` produces.
#[recursive::recursive]
pub fn max_rows(p: &LogicalPlan, q: &Query) -> u64 {
    match p {
        LogicalPlan::TableQuery(t) => table_rows(t),
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Project { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Distinct { input }
        | LogicalPlan::DistinctOn { input, .. } => max_rows(input, q),
        LogicalPlan::Aggregate { input, keys, .. } => {
            if keys.is_empty() {
                1
            } else {
                max_rows(input, q)
            }
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let n = max_rows(input, q).saturating_sub(*offset);
            limit.map_or(n, |l| n.min(l))
        }
        LogicalPlan::SetOp {
            kind, left, right, ..
        } => match kind {
            SetOpKind::Union => max_rows(left, q).saturating_add(max_rows(right, q)),
            SetOpKind::Intersect => max_rows(left, q).min(max_rows(right, q)),
            SetOpKind::Except => max_rows(left, q),
        },
        LogicalPlan::Values { rows, .. } => rows.len() as u64,
        LogicalPlan::Join {
            kind, left, right, ..
        } => {
            let (l, r) = (max_rows(left, q), max_rows(right, q));
            match kind {
                JoinKind::Semi
                | JoinKind::Anti
                | JoinKind::AntiNullAware
                | JoinKind::Mark { .. }
                | JoinKind::Single { .. } => l,
                _ => l.saturating_mul(r.max(1)).saturating_add(r),
            }
        }
        LogicalPlan::CteRef { id, .. } => {
            q.ctes.get(*id).map_or(u64::MAX, |c| max_rows(&c.plan, q))
        }
    }
}

/// A table query's rows at most: the rows of the blocks its statistics do
/// not rule out; with GROUP BY, at most the product of the key columns'
/// distinct values (summed over blocks) where every key is a column.
pub fn table_rows(t: &TableQuery) -> u64 {
    let table = &t.table;
    let mut rows = table.num_rows();
    if t.strategies.block_pruning && pruned_blocks(t) > 0 {
        let p = t.filter.as_ref().map(compile);
        rows = (0..table.num_blocks())
            .filter(|&b| p.as_ref().is_none_or(|p| may_match(p, table, b)))
            .map(|b| u64::from(table.block_rows(b)))
            .sum();
    }
    if let Some(a) = &t.aggregation {
        if a.keys.is_empty() {
            rows = 1;
        } else {
            let mut groups: u64 = 1;
            for k in &a.keys {
                let d = match k.as_col() {
                    Some(c) => (0..table.num_blocks())
                        .map(|b| u64::from(table.stats(b, c).distinct) + 1)
                        .sum::<u64>(),
                    None => u64::MAX,
                };
                groups = groups.saturating_mul(d);
            }
            rows = rows.min(groups);
        }
    }
    let rows = rows.saturating_sub(t.offset);
    t.limit.map_or(rows, |l| rows.min(l))
}

/// How many of the table query's blocks its statistics rule out.
pub fn pruned_blocks(t: &TableQuery) -> usize {
    let Some(f) = &t.filter else {
        return 0;
    };
    let p = compile(f);
    (0..t.table.num_blocks())
        .filter(|&b| !may_match(&p, &t.table, b))
        .count()
}
