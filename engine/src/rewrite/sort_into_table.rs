//! `sort_into_table`: ORDER BY over a table query becomes its own, so the
//! engine can sort only what a LIMIT keeps (see `late_materialization`,
//! `topk_sorted_values`, `staged_order_cut`).
//!
//! Sound: the keys over the table query's output, with its select
//! expressions substituted, order its rows (or groups) the same way. It
//! must not order or limit yet: a sort after a LIMIT sorts only the rows
//! the LIMIT kept.

use super::{table_input, take_input, Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::TExpr;
use crate::plan::{LogicalPlan, OrderKey};

/// The rule.
pub struct SortIntoTable;

impl Rule for SortIntoTable {
    fn name(&self) -> &'static str {
        "sort_into_table"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        if !matches!(node, LogicalPlan::Sort { .. }) {
            return Check::NotApplicable;
        }
        match table_input(node) {
            None => Check::NotApplicable,
            Some(t) if t.order.is_empty() && t.limit.is_none() && t.offset == 0 => Check::Applies,
            Some(_) => Check::no("the table query already orders or limits"),
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Sort { keys, .. } = &node else {
            return Err(EngineError::Internal(
                "sort_into_table on another node".into(),
            ));
        };
        let keys = keys.clone();
        let LogicalPlan::TableQuery(mut t) = take_input(node)? else {
            return Err(EngineError::Internal(
                "sort_into_table without a table".into(),
            ));
        };
        let exprs: Vec<TExpr> = t.select.iter().map(|(_, e)| e.clone()).collect();
        t.order = keys
            .into_iter()
            .map(|k| OrderKey {
                expr: k.expr.substitute(&exprs),
                ..k
            })
            .collect();
        Ok(LogicalPlan::TableQuery(t))
    }
}
