//! `block_pruning`: blocks whose statistics (each column's min, max,
//! distinct and NULL counts in the manifest) show that no row can pass the
//! filter are not read at all.
//!
//! Sound: a block is skipped only when every row's value lies in
//! `[min, max]` (or is NULL) and the filter's value tests exclude that
//! whole range (see [`crate::scan::filter::may_match`]); such a block
//! contributes no row.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::LogicalPlan;
use crate::scan::filter::{compile, Pred};

/// The rule.
pub struct BlockPruning;

impl Rule for BlockPruning {
    fn name(&self) -> &'static str {
        "block_pruning"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        match &t.filter {
            _ if t.strategies.block_pruning => Check::NotApplicable,
            None => Check::NotApplicable,
            Some(f) if compile(f) == Pred::True => Check::no("the filter tests no stored values"),
            Some(_) => Check::Applies,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "block_pruning on another node".into(),
            ));
        };
        t.strategies.block_pruning = true;
        Ok(LogicalPlan::TableQuery(t))
    }
}
