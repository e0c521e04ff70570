//! `late_materialization`: `ORDER BY ... LIMIT k` over rows: each block
//! finds its best `k` rows by the order keys alone, the blocks' candidates
//! are merged, and only then are the output columns read, at the rows
//! returned (`SELECT * ... ORDER BY t LIMIT 10` reads ten rows of the wide
//! columns, not a block's worth).
//!
//! Sound: the first `k` rows of the whole are among the first `k` of the
//! block they come from (by the same keys), and reading a row's output
//! columns later gives the same values as reading them first.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::LogicalPlan;

/// The rule.
pub struct LateMaterialization;

impl Rule for LateMaterialization {
    fn name(&self) -> &'static str {
        "late_materialization"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        if t.aggregation.is_some() || t.order.is_empty() || t.strategies.late_materialization {
            return Check::NotApplicable;
        }
        if t.limit.is_none() {
            return Check::no("no LIMIT");
        }
        Check::Applies
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "late_materialization on another node".into(),
            ));
        };
        t.strategies.late_materialization = true;
        Ok(LogicalPlan::TableQuery(t))
    }
}
