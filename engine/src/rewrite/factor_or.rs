//! `factor_or`: conditions shared by every branch of an OR move out of it:
//! `(c AND x) OR (c AND y)` becomes `c AND (x OR y)`. A join condition
//! repeated in each branch (TPC-H Q19 writes `p_partkey = l_partkey` in
//! all three) then becomes a join key instead of a condition on every pair.
//!
//! Sound: AND distributes over OR in SQL's three-valued logic as in
//! two-valued logic: for each value of `c` (true, false, NULL) both sides
//! are equal (false AND anything is false; true AND z is z; NULL AND z is
//! NULL unless z is false, on both sides).

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{conjunction, conjuncts, ExprKind, TExpr};
use crate::plan::LogicalPlan;
use crate::value::LType;

/// The rule.
pub struct FactorOr;

/// The conjuncts every branch of the OR `e` shares, if any.
fn shared(e: &TExpr) -> Vec<TExpr> {
    let ExprKind::Or(branches) = &e.kind else {
        return Vec::new();
    };
    let lists: Vec<Vec<TExpr>> = branches.iter().map(|b| conjuncts(b.clone())).collect();
    let Some(first) = lists.first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter(|c| lists[1..].iter().all(|l| l.contains(c)))
        .cloned()
        .collect()
}

/// `p` with the shared conjuncts of each of its OR conjuncts factored out.
fn factor(p: TExpr) -> TExpr {
    let mut out = Vec::new();
    for c in conjuncts(p) {
        let common = shared(&c);
        if common.is_empty() {
            out.push(c);
            continue;
        }
        let ExprKind::Or(branches) = c.kind else {
            out.push(c);
            continue;
        };
        let mut rest_branches = Vec::new();
        let mut always = false;
        for b in branches {
            let rest: Vec<TExpr> = conjuncts(b)
                .into_iter()
                .filter(|x| !common.contains(x))
                .collect();
            match conjunction(rest) {
                Some(r) => rest_branches.push(r),
                // A branch that is only the shared part: the OR is true
                // whenever the shared part is.
                None => always = true,
            }
        }
        out.extend(common);
        if !always && !rest_branches.is_empty() {
            out.push(if rest_branches.len() == 1 {
                rest_branches.remove(0)
            } else {
                TExpr {
                    kind: ExprKind::Or(rest_branches),
                    ty: LType::Bool,
                }
            });
        }
    }
    conjunction(out).unwrap_or_else(|| TExpr::lit(crate::value::Value::Bool(true), LType::Bool))
}

impl Rule for FactorOr {
    fn name(&self) -> &'static str {
        "factor_or"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let p = match node {
            LogicalPlan::Filter { predicate, .. } => predicate,
            LogicalPlan::Join {
                filter: Some(f), ..
            } => f,
            _ => return Check::NotApplicable,
        };
        if conjuncts(p.clone()).iter().any(|c| !shared(c).is_empty()) {
            Check::Applies
        } else {
            Check::NotApplicable
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        Ok(match node {
            LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
                input,
                predicate: factor(predicate),
            },
            LogicalPlan::Join {
                kind,
                left,
                right,
                keys,
                filter: Some(f),
            } => LogicalPlan::Join {
                kind,
                left,
                right,
                keys,
                filter: Some(factor(f)),
            },
            _ => return Err(EngineError::Internal("factor_or on another node".into())),
        })
    }
}
