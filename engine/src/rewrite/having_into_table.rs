//! `having_into_table`: a filter over an aggregating table query becomes
//! its HAVING, evaluated over the merged groups.
//!
//! Sound: the table query's output rows are its groups through its select
//! list; the predicate with the select expressions (over group slots)
//! substituted keeps the same groups. The table query must not order or
//! limit yet (a filter after a LIMIT is not a HAVING).

use super::{table_input, take_input, Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{conjunction, conjuncts};
use crate::plan::LogicalPlan;

/// The rule.
pub struct HavingIntoTable;

impl Rule for HavingIntoTable {
    fn name(&self) -> &'static str {
        "having_into_table"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        if !matches!(node, LogicalPlan::Filter { .. }) {
            return Check::NotApplicable;
        }
        match table_input(node) {
            Some(t) if t.aggregation.is_some() => {
                if t.order.is_empty() && t.limit.is_none() && t.offset == 0 {
                    Check::Applies
                } else {
                    Check::no("the table query already orders or limits its groups")
                }
            }
            _ => Check::NotApplicable,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Filter { predicate, .. } = &node else {
            return Err(EngineError::Internal(
                "having_into_table on another node".into(),
            ));
        };
        let predicate = predicate.clone();
        let LogicalPlan::TableQuery(mut t) = take_input(node)? else {
            return Err(EngineError::Internal(
                "having_into_table without a table".into(),
            ));
        };
        let exprs: Vec<_> = t.select.iter().map(|(_, e)| e.clone()).collect();
        let mut all = t.having.take().map(conjuncts).unwrap_or_default();
        all.extend(conjuncts(predicate.substitute(&exprs)));
        t.having = conjunction(all);
        Ok(LogicalPlan::TableQuery(t))
    }
}
