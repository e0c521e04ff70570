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
use super::runtime_filter::{key_source, may_reduce, KeyFilter, RuntimeFilter, Side};
use super::set_op::SetOp;
use super::sort::Sort;
use super::table_scan::TableScan;
use super::values::Values;
use super::window::WindowOp;
use super::Operator;
use crate::error::Result;
use crate::expr::TExpr;
use crate::plan::stats::{column_distinct, estimate_rows, table_estimate, table_rows};
use crate::plan::{Cte, JoinKind, LogicalPlan, Query, TableQuery};

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
    let mut b = Build {
        next: 0,
        ctes: &query.ctes,
        pending: Vec::new(),
    };
    let mut ctes: Vec<Arc<dyn Operator>> = Vec::with_capacity(query.ctes.len());
    for c in &query.ctes {
        ctes.push(Arc::from(node(&c.plan, &mut b, None)?));
    }
    let root = node(&query.root, &mut b, None)?;
    Ok(PhysicalQuery {
        root,
        ctes,
        operators: b.next,
    })
}

/// The state of building a query's operators.
struct Build<'q> {
    /// The next operator's number.
    next: usize,
    /// The query's CTEs (for estimates).
    ctes: &'q [Cte],
    /// Filters a join hands to a table scan below it, not yet built: the
    /// table query (by address), the column and the filter.
    pending: Vec<(*const TableQuery, usize, Arc<RuntimeFilter>)>,
}

impl Build<'_> {
    fn id(&mut self) -> usize {
        self.next += 1;
        self.next - 1
    }
}

/// The operator of `p`; `keep` is how many of its first rows a LIMIT above
/// takes (a Sort then selects only those).
#[recursive::recursive]
fn node(p: &LogicalPlan, b: &mut Build, keep: Option<usize>) -> Result<Box<dyn Operator>> {
    let id = b.id();
    Ok(match p {
        LogicalPlan::TableQuery(t) => {
            let mut scan = TableScan::new(id, (**t).clone())?;
            let me: *const TableQuery = &**t;
            scan.runtime = b
                .pending
                .iter()
                .filter(|(at, _, _)| std::ptr::eq(*at, me))
                .map(|(_, col, f)| (*col, Arc::clone(f)))
                .collect();
            Box::new(scan)
        }
        LogicalPlan::Filter { input, predicate } => Box::new(Filter {
            id,
            input: node(input, b, None)?,
            predicate: predicate.clone(),
        }),
        LogicalPlan::Project { input, exprs, .. } => Box::new(Project {
            id,
            input: node(input, b, keep)?,
            exprs: exprs.clone(),
        }),
        LogicalPlan::Aggregate {
            input, keys, aggs, ..
        } => Box::new(HashAggregate {
            id,
            input: node(input, b, None)?,
            keys: keys.clone(),
            aggs: aggs.clone(),
        }),
        LogicalPlan::Distinct { input } => Box::new(Distinct {
            id,
            input: node(input, b, None)?,
        }),
        LogicalPlan::DistinctOn { input, on, order } => Box::new(DistinctOn {
            id,
            input: node(input, b, None)?,
            on: on.clone(),
            order: order.clone(),
        }),
        LogicalPlan::Sort { input, keys } => Box::new(Sort {
            id,
            input: node(input, b, None)?,
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
                input: node(input, b, k)?,
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
            left: node(left, b, None)?,
            right: node(right, b, None)?,
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
            let reduce = reduction(kind, left, right, keys, b.ctes);
            let reduce = reduce.map(|(side, targets)| {
                let filters = targets
                    .into_iter()
                    .map(|(key, target, col, column_distinct)| {
                        let filter = Arc::new(RuntimeFilter::default());
                        b.pending.push((target, col, Arc::clone(&filter)));
                        KeyFilter {
                            key,
                            column_distinct,
                            filter,
                        }
                    })
                    .collect();
                (side, filters)
            });
            // Inputs that do not wait for each other run at once (a table of
            // one block is read by one thread), unless one reads a CTE: its
            // rows are computed under a lock, which a thread waiting for
            // the other input could take again.
            let parallel_inputs = reduce.is_none() && !reads_cte(left) && !reads_cte(right);
            let left_op = node(left, b, None)?;
            let right_op = node(right, b, None)?;
            Box::new(HashJoin {
                id,
                kind: kind.clone(),
                left: left_op,
                right: right_op,
                keys: keys.clone(),
                filter: filter.clone(),
                right_types: right.types(),
                reduce,
                parallel_inputs,
            })
        }
        LogicalPlan::Partials { rows, columns } => Box::new(Partials {
            id,
            rows: Arc::clone(rows),
            types: columns.iter().map(|c| c.ty).collect(),
        }),
        LogicalPlan::Window { input, calls } => Box::new(WindowOp::new(
            id,
            node(input, b, None)?,
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

/// Whether `p` reads a CTE.
fn reads_cte(p: &LogicalPlan) -> bool {
    let mut found = false;
    crate::rewrite::visit(p, &mut |n| found |= matches!(n, LogicalPlan::CteRef { .. }));
    found
}

/// Semi-join reduction for a join, if any: the input to filter (the one
/// estimated larger) and each key pair whose key on that side comes from a
/// stored column of a table query in it (see [`key_source`]), with that
/// table query, column and the column's estimated distinct values.
#[allow(clippy::type_complexity)]
fn reduction(
    kind: &JoinKind,
    left: &LogicalPlan,
    right: &LogicalPlan,
    keys: &[(TExpr, TExpr)],
    ctes: &[Cte],
) -> Option<(Side, Vec<(usize, *const TableQuery, usize, f64)>)> {
    // Only with the plan's statistics, which need no query context here:
    // table queries' estimates (filters measured on a block, a HAVING
    // assumed to keep some of the groups). A measure costs a block's
    // evaluation: join_reorder has made it for an inner join's inputs
    // (see `EstimateMemo`); for other joins, only where the row bounds are
    // within 2x of each other and cannot tell the inputs apart. An input
    // that is not a table query is reduced only where the other is
    // estimated smaller.
    fn table(p: &LogicalPlan) -> Option<&TableQuery> {
        match p {
            LogicalPlan::TableQuery(t) => Some(t),
            _ => None,
        }
    }
    let smaller = |this: &LogicalPlan, other: &LogicalPlan| match (table(this), table(other)) {
        (Some(this), Some(other)) => {
            let (t, o) = (table_rows(this), table_rows(other));
            if !matches!(kind, JoinKind::Inner) && t.max(o) / 2 > t.min(o) {
                o < t
            } else {
                table_estimate(other) < table_estimate(this)
            }
        }
        // A table query against something else: reduced (the other input
        // runs first whatever its size).
        (Some(_), None) => true,
        // A scan deeper in this input: only where the other is estimated
        // smaller.
        (None, _) => estimate_rows(other, ctes) < estimate_rows(this, ctes),
    };
    let candidates = [(Side::Right, right, left), (Side::Left, left, right)];
    for (side, input, other) in candidates {
        if !may_reduce(kind, side) {
            continue;
        }
        // The other input must be smaller than this one.
        if !smaller(input, other) {
            continue;
        }
        let sources: Vec<(usize, &TableQuery, usize)> = keys
            .iter()
            .enumerate()
            .filter_map(|(k, (lk, rk))| {
                let key = if side == Side::Right { rk } else { lk };
                let (t, col) = key_source(input, key)?;
                Some((k, t, col))
            })
            .collect();
        // The column statistics (a pass over the table's block headers)
        // only where there is a choice.
        let choice = sources.len() > 1;
        let targets: Vec<(usize, *const TableQuery, usize, f64)> = sources
            .into_iter()
            .map(|(k, t, col)| {
                let distinct = if choice {
                    column_distinct(&t.table, col)
                } else {
                    1.0
                };
                (k, t as *const TableQuery, col, distinct)
            })
            .collect();
        if !targets.is_empty() {
            return Some((side, targets));
        }
    }
    None
}
