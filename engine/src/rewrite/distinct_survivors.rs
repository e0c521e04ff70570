//! `distinct_survivors`: `COUNT(DISTINCT x)` (and every call computed from
//! each group's distinct values: other DISTINCT calls, `median`, quantiles,
//! `mode`, ...) computed only for the groups a LIMIT returns. Such a call
//! keys the aggregation by (group, x), many times the work of the other
//! aggregates. When ORDER BY and HAVING do not use them, the query first
//! runs without those aggregates to find
//! the groups that make the cut; then it runs whole with each key column
//! restricted to those groups' values.
//!
//! Sound: the restriction tests key values only, so every group kept is
//! whole: its aggregates, and its place in the order, are exact; the order
//! and HAVING do not depend on the distinct counts, so the groups that make
//! the cut in the first run make it in the full one, and they are kept.

use super::any_groups::limited_column_keys;
use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::table_query::Restriction;
use crate::plan::LogicalPlan;

/// The rule.
pub struct DistinctSurvivors;

impl Rule for DistinctSurvivors {
    fn name(&self) -> &'static str {
        "distinct_survivors"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        let Some(agg) = &t.aggregation else {
            return Check::NotApplicable;
        };
        if t.strategies.restriction.is_some()
            || t.strategies.count_distinct_union
            || !agg.aggs.iter().any(|a| a.from_values())
            || t.limit.is_none()
        {
            return Check::NotApplicable;
        }
        if t.order.is_empty() {
            return Check::no("no ORDER BY");
        }
        if let Err(why) = limited_column_keys(t) {
            return Check::Rejected(why);
        }
        let nk = agg.keys.len();
        let mut needs_distinct = false;
        let mut check = |e: &TExpr| {
            e.walk(&mut |x| {
                if let ExprKind::Ref(r) = x.kind {
                    needs_distinct |=
                        r >= nk && agg.aggs.get(r - nk).is_some_and(|a| a.from_values());
                }
            })
        };
        t.order.iter().for_each(|o| check(&o.expr));
        if let Some(h) = &t.having {
            check(h);
        }
        if needs_distinct {
            return Check::no("ORDER BY or HAVING uses an aggregate of distinct values");
        }
        Check::Applies
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "distinct_survivors on another node".into(),
            ));
        };
        t.strategies.restriction = Some(Restriction::Survivors);
        Ok(LogicalPlan::TableQuery(t))
    }
}
