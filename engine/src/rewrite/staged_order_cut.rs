//! `staged_order_cut`: with several ORDER BY keys and a LIMIT over groups,
//! the first key is computed at every group (in parallel parts) and only
//! the groups that can still make the cut by it (the first `k` and every
//! group tied with the `k`-th) get the later keys computed (`ORDER BY c
//! DESC, name LIMIT 10` over a million groups: ten names).
//!
//! Sound: a group outside the first `k` by the first key, and not tied with
//! the `k`-th, has at least `k` groups strictly before it in any order that
//! starts with that key, so it cannot be returned; the candidates of a part
//! include every candidate of the whole that falls in it, so cutting parts
//! first and their union again loses none.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::LogicalPlan;

/// The rule.
pub struct StagedOrderCut;

impl Rule for StagedOrderCut {
    fn name(&self) -> &'static str {
        "staged_order_cut"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        if t.aggregation.is_none() || t.strategies.staged_order_cut || t.order.is_empty() {
            return Check::NotApplicable;
        }
        if t.limit.is_none() {
            return Check::no("no LIMIT");
        }
        if t.order.len() < 2 {
            return Check::no("one ORDER BY key");
        }
        Check::Applies
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "staged_order_cut on another node".into(),
            ));
        };
        t.strategies.staged_order_cut = true;
        Ok(LogicalPlan::TableQuery(t))
    }
}
