//! `inline_cte`: a CTE referred to once is planned in place of its
//! reference.
//!
//! Sound: a (non-recursive) CTE is a named subquery over the same tables in
//! the same query, and every expression is deterministic, so computing it
//! where it is referred to gives the same rows as computing it first. Once
//! inline, the rules below can push into its plan (its filter into the
//! table engine, say). A CTE referred to several times is left alone: the
//! executor computes it once and shares its rows.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::requalify;
use crate::plan::LogicalPlan;

/// The rule.
pub struct InlineCte;

impl Rule for InlineCte {
    fn name(&self) -> &'static str {
        "inline_cte"
    }

    fn check(&self, node: &LogicalPlan, ctx: &RuleCtx) -> Check {
        let LogicalPlan::CteRef { id, .. } = node else {
            return Check::NotApplicable;
        };
        match ctx.cte_uses.get(*id) {
            Some(1) => Check::Applies,
            Some(n) => Check::no(format!("referred to {n} times: computed once and shared")),
            None => Check::no("unknown CTE"),
        }
    }

    fn apply(&self, node: LogicalPlan, ctx: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::CteRef { id, columns, .. } = node else {
            return Err(EngineError::Internal("inline_cte on another node".into()));
        };
        let cte = ctx
            .ctes
            .get(id)
            .ok_or_else(|| EngineError::Internal(format!("no CTE {id}")))?;
        let qualifier = columns.first().and_then(|c| c.qualifier.clone());
        Ok(requalify(cte.plan.clone(), columns, qualifier))
    }
}
