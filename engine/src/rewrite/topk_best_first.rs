//! `topk_best_first`: `ORDER BY <fixed-width column> LIMIT k`: blocks are
//! visited from the one whose statistics promise the best value, a wave of
//! one block per thread at a time, and a block whose best value sorts after
//! the `k` rows already found (or, without WHERE, known from the
//! statistics to exist) is skipped. On nearly sorted data that reads one
//! block.
//!
//! Sound: a block's rows all lie within its `[min, max]`; when its best
//! possible value sorts after a value that at least `k` already found rows
//! reach, none of its rows can be among the first `k` (ties are kept:
//! only strictly worse blocks are skipped). NULLS FIRST would put rows no
//! statistic bounds first, so the rule does not apply there.

use super::topk_sorted_values::leading_column;
use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::LogicalPlan;

/// The rule.
pub struct TopkBestFirst;

impl Rule for TopkBestFirst {
    fn name(&self) -> &'static str {
        "topk_best_first"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        if t.aggregation.is_some() || t.order.is_empty() || t.strategies.topk_best_first {
            return Check::NotApplicable;
        }
        if !t.strategies.late_materialization {
            return Check::no("rows are not ordered by keys first (late_materialization)");
        }
        match leading_column(t) {
            None => Check::no("the first ORDER BY key is not a stored column"),
            Some(l) if l.string => Check::no("string statistics are hashes"),
            Some(l) if l.nulls_first => Check::no("NULLS FIRST"),
            Some(_) => Check::Applies,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "topk_best_first on another node".into(),
            ));
        };
        t.strategies.topk_best_first = true;
        Ok(LogicalPlan::TableQuery(t))
    }
}
