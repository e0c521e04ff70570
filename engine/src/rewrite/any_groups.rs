//! `any_groups`: `GROUP BY <columns> LIMIT k` without ORDER BY. Any `k`
//! groups are a correct answer, so only some are aggregated: the first
//! selected rows of the first blocks name `k` key tuples, each key column
//! is restricted to the values those tuples use, and the aggregation runs
//! under that extra filter (if the first blocks hold fewer than `k` groups,
//! it runs unrestricted).
//!
//! Sound: the extra filter tests key values only, so every group it keeps
//! has all of its rows and exact aggregates; it keeps at least the `k`
//! chosen groups; without ORDER BY any `k` groups may be returned. Groups
//! with a NULL key are never chosen (a value set does not match NULL), which
//! is allowed for the same reason.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::table_query::Restriction;
use crate::plan::{LogicalPlan, TableQuery};

/// The rule.
pub struct AnyGroups;

/// At most this many groups are chosen this way (`LIMIT` + `OFFSET`); more
/// would make the value sets as costly as the aggregation they avoid.
pub const MAX_GROUPS: usize = 1024;

/// For an aggregating table query with a LIMIT whose group keys are all
/// stored columns: those columns, and how many groups the LIMIT and OFFSET
/// take (between 1 and [`MAX_GROUPS`]).
pub fn limited_column_keys(q: &TableQuery) -> std::result::Result<(Vec<usize>, usize), String> {
    let agg = q.aggregation.as_ref().ok_or("no aggregation")?;
    let limit = q.limit.ok_or("no LIMIT")?;
    let cols: Vec<usize> = agg
        .keys
        .iter()
        .map(|k| k.as_col())
        .collect::<Option<_>>()
        .ok_or("a group key is an expression, not a stored column")?;
    if cols.is_empty() {
        return Err("no GROUP BY".into());
    }
    let k = usize::try_from(limit.saturating_add(q.offset)).unwrap_or(usize::MAX);
    if !(1..=MAX_GROUPS).contains(&k) {
        return Err(format!("LIMIT + OFFSET is {k}, not 1..={MAX_GROUPS}"));
    }
    Ok((cols, k))
}

impl Rule for AnyGroups {
    fn name(&self) -> &'static str {
        "any_groups"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        if t.aggregation.is_none() || t.strategies.restriction.is_some() || t.limit.is_none() {
            return Check::NotApplicable;
        }
        if !t.order.is_empty() {
            return Check::no("ORDER BY decides which groups are returned");
        }
        if t.having.is_some() {
            return Check::no("HAVING may drop the groups chosen");
        }
        match limited_column_keys(t) {
            Ok(_) => Check::Applies,
            Err(why) => Check::Rejected(why),
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal("any_groups on another node".into()));
        };
        t.strategies.restriction = Some(Restriction::AnyGroups);
        Ok(LogicalPlan::TableQuery(t))
    }
}
