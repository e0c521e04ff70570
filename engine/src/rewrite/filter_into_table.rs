//! `filter_into_table`: a filter directly over a table scan becomes the
//! table engine's WHERE, answered from each block's sorted values and row
//! lists (and, with `block_pruning`, its statistics).
//!
//! Sound: the scan returns the table's rows through its select list, so
//! the predicate over the scan's output, with the select expressions
//! substituted for its columns, is a predicate over the table's rows that
//! keeps the same ones. The scan must not aggregate, order or limit yet:
//! a filter after those is not a WHERE.

use super::{table_input, take_input, Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{conjunction, conjuncts};
use crate::plan::LogicalPlan;

/// The rule.
pub struct FilterIntoTable;

impl Rule for FilterIntoTable {
    fn name(&self) -> &'static str {
        "filter_into_table"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        if !matches!(node, LogicalPlan::Filter { .. }) {
            return Check::NotApplicable;
        }
        match table_input(node) {
            None => Check::NotApplicable,
            Some(t) if t.is_row_scan() => Check::Applies,
            Some(t) if t.aggregation.is_some() && t.order.is_empty() && t.limit.is_none() => {
                Check::NotApplicable
            }
            Some(_) => Check::no("the table query already orders or limits its rows"),
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Filter { predicate, .. } = &node else {
            return Err(EngineError::Internal(
                "filter_into_table on another node".into(),
            ));
        };
        let predicate = predicate.clone();
        let LogicalPlan::TableQuery(mut t) = take_input(node)? else {
            return Err(EngineError::Internal(
                "filter_into_table without a table".into(),
            ));
        };
        let exprs: Vec<_> = t.select.iter().map(|(_, e)| e.clone()).collect();
        let mut all = t.filter.take().map(conjuncts).unwrap_or_default();
        all.extend(conjuncts(predicate.substitute(&exprs)));
        t.filter = conjunction(all);
        Ok(LogicalPlan::TableQuery(t))
    }
}
