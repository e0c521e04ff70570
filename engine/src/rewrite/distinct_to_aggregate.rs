//! `distinct_to_aggregate`: `SELECT DISTINCT` as a GROUP BY of every
//! column with no aggregates.
//!
//! Sound: both keep one row per distinct combination of the columns' values
//! and treat NULLs as equal to each other; neither promises an order. As an
//! aggregation, the table engine can answer it from the sorted values
//! (`aggregate_into_table`).

use super::{take_input, Check, Rule, RuleCtx};
use crate::error::Result;
use crate::expr::{ExprKind, TExpr};
use crate::plan::LogicalPlan;

/// The rule.
pub struct DistinctToAggregate;

impl Rule for DistinctToAggregate {
    fn name(&self) -> &'static str {
        "distinct_to_aggregate"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        match node {
            LogicalPlan::Distinct { .. } => Check::Applies,
            _ => Check::NotApplicable,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let input = take_input(node)?;
        let columns = input.columns();
        let keys = columns
            .iter()
            .enumerate()
            .map(|(i, c)| TExpr {
                kind: ExprKind::Col(i),
                ty: c.ty,
            })
            .collect();
        Ok(LogicalPlan::Aggregate {
            input: input.boxed(),
            keys,
            aggs: Vec::new(),
            columns,
        })
    }
}
