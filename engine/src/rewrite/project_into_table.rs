//! `project_into_table`: a projection over a table query becomes its
//! select list, so only the columns (and expressions) the query returns
//! are read, and expressions of one column are evaluated once per distinct
//! value.
//!
//! Sound: the table query's select list is the last thing it computes, row
//! by row (or group by group); projecting its output equals selecting the
//! projection's expressions with the select expressions substituted.

use super::{table_input, take_input, Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::TExpr;
use crate::plan::LogicalPlan;

/// The rule.
pub struct ProjectIntoTable;

impl Rule for ProjectIntoTable {
    fn name(&self) -> &'static str {
        "project_into_table"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        match (node, table_input(node)) {
            (LogicalPlan::Project { .. }, Some(_)) => Check::Applies,
            _ => Check::NotApplicable,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Project { exprs, columns, .. } = &node else {
            return Err(EngineError::Internal(
                "project_into_table on another node".into(),
            ));
        };
        let (exprs, columns) = (exprs.clone(), columns.clone());
        let LogicalPlan::TableQuery(mut t) = take_input(node)? else {
            return Err(EngineError::Internal(
                "project_into_table without a table".into(),
            ));
        };
        let inner: Vec<TExpr> = t.select.iter().map(|(_, e)| e.clone()).collect();
        t.select = exprs
            .into_iter()
            .zip(columns)
            .map(|(e, c)| (c.name, e.substitute(&inner)))
            .collect();
        Ok(LogicalPlan::TableQuery(t))
    }
}
