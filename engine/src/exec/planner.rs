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
use super::project::Project;
use super::set_op::SetOp;
use super::sort::Sort;
use super::table_scan::TableScan;
use super::values::Values;
use super::Operator;
use crate::error::Result;
use crate::plan::{LogicalPlan, Query};

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
        } => Box::new(HashJoin {
            id,
            kind: kind.clone(),
            left: node(left, next, None)?,
            right: node(right, next, None)?,
            keys: keys.clone(),
            filter: filter.clone(),
            right_types: right.types(),
        }),
        LogicalPlan::CteRef { id: cte, name, .. } => Box::new(CteScan {
            id,
            cte: *cte,
            name: name.clone(),
        }),
    })
}
