//! Physical planning: every choice of how a logical node runs, in one
//! place. A [`TableQuery`](crate::plan::TableQuery) runs on the table
//! engine (its strategies chosen by the rules); every other node on the
//! operator for batches: an aggregate as a hash aggregation, DISTINCT and
//! set operations by hashing rows, a Sort under a LIMIT as a top-`k`
//! selection. A CTE referred to more than once is one operator whose rows
//! the references share.

use std::sync::Arc;

use super::aggregate::HashAggregate;
use super::cte::CteScan;
use super::distinct::{Distinct, DistinctOn};
use super::filter::Filter;
use super::join::HashJoin;
use super::limit::Limit;
use super::partials::Partials;
use super::project::Project;
use super::runtime_filter::{key_column, may_reduce, RuntimeFilter, Side};
use super::set_op::SetOp;
use super::sort::Sort;
use super::table_scan::TableScan;
use super::values::Values;
use super::window::WindowOp;
use super::Operator;
use crate::error::Result;
use crate::expr::TExpr;
use crate::plan::stats::{table_estimate, table_rows};
use crate::plan::{JoinKind, LogicalPlan, Query, TableQuery};

/// An executable query.
#[derive(Debug)]
pub struct PhysicalQuery {
    /// The root operator.
    pub root: Box<dyn Operator>,
    /// The CTEs' operators, by CTE id.
    pub ctes: Vec<Arc<dyn Operator>>,
    /// Operators in all (ids are `0..operators`).
    pub operators: usize,
}

/// Plans the physical operators of an optimized query.
pub fn plan(query: &Query) -> Result<PhysicalQuery> {
    let mut next = 0;
    let mut ctes: Vec<Arc<dyn Operator>> = Vec::with_capacity(query.ctes.len());
    for c in &query.ctes {
        ctes.push(Arc::from(node(&c.plan, &mut next, None)?));
    }
    let root = node(&query.root, &mut next, None)?;
    Ok(PhysicalQuery {
        root,
        ctes,
        operators: next,
    })
}

/// The operator of `p`; `keep` is how many of its first rows a LIMIT above
/// takes (a Sort then selects only those).
#[recursive::recursive]
fn node(p: &LogicalPlan, next: &mut usize, keep: Option<usize>) -> Result<Box<dyn Operator>> {
    let id = *next;
    *next += 1;
    Ok(match p {
        LogicalPlan::TableQuery(t) => Box::new(TableScan::new(id, (**t).clone())?),
        LogicalPlan::Filter { input, predicate } => Box::new(Filter {
            id,
            input: node(input, next, None)?,
            predicate: predicate.clone(),
        }),
        LogicalPlan::Project { input, exprs, .. } => Box::new(Project {
            id,
            input: node(input, next, keep)?,
            exprs: exprs.clone(),
        }),
        LogicalPlan::Aggregate {
            input, keys, aggs, ..
        } => Box::new(HashAggregate {
            id,
            input: node(input, next, None)?,
            keys: keys.clone(),
            aggs: aggs.clone(),
        }),
        LogicalPlan::Distinct { input } => Box::new(Distinct {
            id,
            input: node(input, next, None)?,
        }),
        LogicalPlan::DistinctOn { input, on, order } => Box::new(DistinctOn {
            id,
            input: node(input, next, None)?,
            on: on.clone(),
            order: order.clone(),
        }),
        LogicalPlan::Sort { input, keys } => Box::new(Sort {
            id,
            input: node(input, next, None)?,
            keys: keys.clone(),
            keep,
        }),
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let k = limit
                .and_then(|l| l.checked_add(*offset))
                .and_then(|k| usize::try_from(k).ok());
            Box::new(Limit {
                id,
                input: node(input, next, k)?,
                limit: *limit,
                offset: *offset,
                types: input.columns().iter().map(|c| c.ty).collect(),
            })
        }
        LogicalPlan::SetOp {
            kind,
            all,
            left,
            right,
            ..
        } => Box::new(SetOp {
            id,
            kind: *kind,
            all: *all,
            left: node(left, next, None)?,
            right: node(right, next, None)?,
        }),
        LogicalPlan::Values { rows, columns } => Box::new(Values {
            id,
            rows: rows.clone(),
            types: columns.iter().map(|c| c.ty).collect(),
        }),
        LogicalPlan::Join {
            kind,
            left,
            right,
            keys,
            filter,
        } => {
            let reduce = reduction(kind, left, right, keys);
            let scan_filter = |side: Side| {
                reduce
                    .as_ref()
                    .filter(|r| r.0 == side)
                    .map(|(_, _, col, f)| (*col, Arc::clone(f)))
            };
            let left_op = input_with_filter(left, next, scan_filter(Side::Left))?;
            let right_op = input_with_filter(right, next, scan_filter(Side::Right))?;
            Box::new(HashJoin {
                id,
                kind: kind.clone(),
                left: left_op,
                right: right_op,
                keys: keys.clone(),
                filter: filter.clone(),
                right_types: right.types(),
                reduce: reduce.map(|(side, k, _, f)| (side, k, f)),
            })
        }
        LogicalPlan::Partials { rows, columns } => Box::new(Partials {
            id,
            rows: Arc::clone(rows),
            types: columns.iter().map(|c| c.ty).collect(),
        }),
        LogicalPlan::Window { input, calls } => Box::new(WindowOp::new(
            id,
            node(input, next, None)?,
            calls.clone(),
            input.columns().into_iter().map(|c| c.name).collect(),
        )),
        LogicalPlan::CteRef { id: cte, name, .. } => Box::new(CteScan {
            id,
            cte: *cte,
            name: name.clone(),
        }),
    })
}

/// Semi-join reduction for a join, if any: the input to filter (the one
/// with more rows, a table query whose key is a stored column), the key
/// pair, the table column, and the filter to share.
fn reduction(
    kind: &JoinKind,
    left: &LogicalPlan,
    right: &LogicalPlan,
    keys: &[(TExpr, TExpr)],
) -> Option<(Side, usize, usize, Arc<RuntimeFilter>)> {
    // Only with the plan's statistics, which need no query context here:
    // table queries' estimates (filters measured on a block, a HAVING
    // assumed to keep some of the groups). A measure costs a block's
    // evaluation: join_reorder has made it for an inner join's inputs
    // (see `EstimateMemo`); for other joins, only where the row bounds are
    // within 2x of each other and cannot tell the inputs apart.
    fn table(p: &LogicalPlan) -> Option<&TableQuery> {
        match p {
            LogicalPlan::TableQuery(t) => Some(t),
            _ => None,
        }
    }
    let (lt, rt) = (table(left), table(right));
    let smaller = |this: &Option<&TableQuery>, other: &Option<&TableQuery>| match (this, other) {
        (Some(this), Some(other)) => {
            let (t, o) = (table_rows(this), table_rows(other));
            if !matches!(kind, JoinKind::Inner) && t.max(o) / 2 > t.min(o) {
                o < t
            } else {
                table_estimate(other) < table_estimate(this)
            }
        }
        _ => true,
    };
    let candidates = [(Side::Right, right, &rt, &lt), (Side::Left, left, &lt, &rt)];
    for (side, input, this, other) in candidates {
        if !may_reduce(kind, side) {
            continue;
        }
        // The other input must be smaller than this one, when both are
        // tables.
        if !smaller(this, other) {
            continue;
        }
        for (k, (lk, rk)) in keys.iter().enumerate() {
            let key = if side == Side::Right { rk } else { lk };
            if let Some(col) = key_column(input, key) {
                return Some((side, k, col, Arc::new(RuntimeFilter::default())));
            }
        }
    }
    None
}

/// The operator of a join's input, its table scan given `filter`.
fn input_with_filter(
    p: &LogicalPlan,
    next: &mut usize,
    filter: Option<(usize, Arc<RuntimeFilter>)>,
) -> Result<Box<dyn Operator>> {
    match (p, filter) {
        (LogicalPlan::TableQuery(t), Some(f)) => {
            let id = *next;
            *next += 1;
            let mut scan = TableScan::new(id, (**t).clone())?;
            scan.runtime = Some(f);
            Ok(Box::new(scan))
        }
        _ => node(p, next, None),
    }
}
