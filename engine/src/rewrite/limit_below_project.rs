//! `limit_below_project`: a LIMIT over a projection moves below it, so the
//! projection computes only the rows the query returns (`SELECT x * 2,
//! row_number() OVER (...) + y FROM t LIMIT 5` evaluates `x * 2` five
//! times, not once per row). As in DuckDB, a projection that would fail on
//! a row the LIMIT drops (an overflow, a division by zero) then does not.
//!
//! Sound: a projection maps each input row to one output row in the same
//! order, so the rows `offset..offset + limit` of its output are the
//! projection of the rows `offset..offset + limit` of its input.
//!
//! Declined over a table query, which takes both the projection and the
//! LIMIT itself (`project_into_table`, `limit_into_table`), and over a
//! sort: as in DuckDB, `ORDER BY ... LIMIT` computes the select list
//! before it picks the rows (and so fails where any row fails).

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::LogicalPlan;

/// The rule.
pub struct LimitBelowProject;

impl Rule for LimitBelowProject {
    fn name(&self) -> &'static str {
        "limit_below_project"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::Limit { input, .. } = node else {
            return Check::NotApplicable;
        };
        match &**input {
            LogicalPlan::Project { input, .. } => match &**input {
                LogicalPlan::TableQuery(_) => Check::no("the table query takes the LIMIT"),
                LogicalPlan::Sort { .. } => Check::no("ORDER BY computes the select list first"),
                _ => Check::Applies,
            },
            _ => Check::NotApplicable,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let wrong = || EngineError::Internal("limit_below_project on another node".into());
        let LogicalPlan::Limit {
            input,
            limit,
            offset,
        } = node
        else {
            return Err(wrong());
        };
        let LogicalPlan::Project {
            input,
            exprs,
            columns,
        } = *input
        else {
            return Err(wrong());
        };
        Ok(LogicalPlan::Project {
            input: Box::new(LogicalPlan::Limit {
                input,
                limit,
                offset,
            }),
            exprs,
            columns,
        })
    }
}
