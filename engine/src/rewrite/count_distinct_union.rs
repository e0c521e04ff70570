//! `count_distinct_union`: `SELECT COUNT(DISTINCT c) FROM t [WHERE ...]`
//! as the size of the union of each block's sorted distinct values of `c`
//! (those with a selected row), merged by key range in parallel.
//!
//! Sound: each block stores `c`'s distinct values once, sorted, as storage
//! keys (fixed-width values) or 128-bit hashes (strings); two values are
//! equal exactly when their keys are (floats are canonicalised: -0.0 and
//! 0.0 share a key, as do all NaNs), so the union's size is the number of
//! distinct non-NULL values. NULLs have no key and are not counted.

use super::{Check, Rule, RuleCtx};
use crate::agg::func::AggFunc;
use crate::error::{EngineError, Result};
use crate::plan::{LogicalPlan, TableQuery};

/// The rule.
pub struct CountDistinctUnion;

/// The stored column whose distinct values the table query counts, if it
/// is just that: no GROUP BY, one aggregate `COUNT(DISTINCT <column>)`,
/// one result row.
pub fn counted_column(q: &TableQuery) -> std::result::Result<usize, &'static str> {
    let agg = q.aggregation.as_ref().ok_or("no aggregation")?;
    let [call] = agg.aggs.as_slice() else {
        return Err("not exactly one aggregate");
    };
    if !agg.keys.is_empty() {
        return Err("GROUP BY");
    }
    if !call.distinct || call.func != AggFunc::Count {
        return Err("the aggregate is not COUNT(DISTINCT ...)");
    }
    if q.having.is_some() || q.offset > 0 || q.limit == Some(0) {
        return Err("HAVING, OFFSET or LIMIT 0");
    }
    let col = call
        .arg()
        .and_then(|a| a.as_col())
        .ok_or("the argument is not a stored column")?;
    q.table
        .schema()
        .fields
        .get(col)
        .map(|_| col)
        .ok_or("no such column")
}

impl Rule for CountDistinctUnion {
    fn name(&self) -> &'static str {
        "count_distinct_union"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        let Some(agg) = &t.aggregation else {
            return Check::NotApplicable;
        };
        if t.strategies.count_distinct_union || !agg.aggs.iter().any(|a| a.distinct) {
            return Check::NotApplicable;
        }
        match counted_column(t) {
            Ok(_) => Check::Applies,
            Err(why) => Check::no(why),
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "count_distinct_union on another node".into(),
            ));
        };
        t.strategies.count_distinct_union = true;
        Ok(LogicalPlan::TableQuery(t))
    }
}
