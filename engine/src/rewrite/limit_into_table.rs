//! `limit_into_table`: LIMIT and OFFSET over a table query become its own,
//! so it stops reading once it has the rows it returns (first blocks only
//! without ORDER BY; only the leading rows per block with it).
//!
//! Sound: taking `limit` rows after skipping `offset` of a result that
//! already took `l0` after skipping `o0` is taking `min(l0 - offset,
//! limit)` after skipping `o0 + offset` of the original.

use super::{table_input, Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::LogicalPlan;

/// The rule.
pub struct LimitIntoTable;

impl Rule for LimitIntoTable {
    fn name(&self) -> &'static str {
        "limit_into_table"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        match (node, table_input(node)) {
            (LogicalPlan::Limit { .. }, Some(_)) => Check::Applies,
            _ => Check::NotApplicable,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Limit {
            input,
            limit,
            offset,
        } = node
        else {
            return Err(EngineError::Internal(
                "limit_into_table on another node".into(),
            ));
        };
        let LogicalPlan::TableQuery(mut t) = *input else {
            return Err(EngineError::Internal(
                "limit_into_table without a table".into(),
            ));
        };
        let inner_left = t.limit.map(|l| l.saturating_sub(offset));
        t.offset = t.offset.saturating_add(offset);
        t.limit = match (inner_left, limit) {
            (None, l) => l,
            (Some(a), None) => Some(a),
            (Some(a), Some(b)) => Some(a.min(b)),
        };
        Ok(LogicalPlan::TableQuery(t))
    }
}
