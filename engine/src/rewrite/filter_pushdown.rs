//! `filter_pushdown`: a filter moves below the operators it commutes with,
//! toward the table it reads, where the table engine can answer it from
//! the sorted values (`filter_into_table`).
//!
//! Sound, case by case (a filter keeps the rows for which its predicate is
//! true, and every expression is deterministic):
//! - below a Project: a projection is computed row by row, so testing the
//!   predicate on a projected row equals testing it, with the projection's
//!   expressions substituted for its columns, on the input row;
//! - below a Sort or a Distinct, or merged with another Filter: filtering
//!   commutes with ordering and with removing duplicates (equal rows pass or
//!   fail together), and two filters are their conjunction;
//! - into both inputs of UNION, INTERSECT and EXCEPT (with or without ALL):
//!   a row of the result passes exactly when the equal rows of the inputs
//!   do, so `(L op R) WHERE p` = `(L WHERE p) op (R WHERE p)`;
//! - below an Aggregate, the conjuncts that read group keys only: all rows
//!   of a group share its key, so keeping a group by its key equals keeping
//!   the key's rows before grouping. Only with at least one key: a global
//!   aggregate returns a row even when no input row is left.
//!
//! It does not move below a Limit or a DISTINCT ON (which rows are first
//! would change).

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::LogicalPlan;
use crate::value::LType;

/// The rule.
pub struct FilterPushdown;

/// The conjuncts of a predicate.
pub(crate) fn conjuncts(p: TExpr) -> Vec<TExpr> {
    match p.kind {
        ExprKind::And(v) => v.into_iter().flat_map(conjuncts).collect(),
        _ => vec![p],
    }
}

/// The conjunction of predicates (`None` for none).
pub(crate) fn conjunction(mut v: Vec<TExpr>) -> Option<TExpr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(TExpr {
            kind: ExprKind::And(v),
            ty: LType::Bool,
        }),
    }
}

/// Whether `e` reads only columns below `n`.
fn reads_only_first(e: &TExpr, n: usize) -> bool {
    let mut ok = true;
    e.walk(&mut |x| {
        if let ExprKind::Col(c) = x.kind {
            ok &= c < n;
        }
    });
    ok
}

impl Rule for FilterPushdown {
    fn name(&self) -> &'static str {
        "filter_pushdown"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::Filter { input, predicate } = node else {
            return Check::NotApplicable;
        };
        match input.as_ref() {
            LogicalPlan::Project { .. }
            | LogicalPlan::Sort { .. }
            | LogicalPlan::Filter { .. }
            | LogicalPlan::Distinct { .. }
            | LogicalPlan::SetOp { .. } => Check::Applies,
            LogicalPlan::Aggregate { keys, .. } => {
                if keys.is_empty() {
                    return Check::no("a global aggregate returns a row even without input");
                }
                let n = keys.len();
                if conjuncts(predicate.clone())
                    .iter()
                    .any(|c| reads_only_first(c, n))
                {
                    Check::Applies
                } else {
                    Check::no("the predicate reads aggregates")
                }
            }
            LogicalPlan::Limit { .. } | LogicalPlan::DistinctOn { .. } => {
                Check::no("it does not commute with LIMIT or DISTINCT ON")
            }
            _ => Check::NotApplicable,
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Filter { input, predicate } = node else {
            return Err(EngineError::Internal(
                "filter_pushdown on another node".into(),
            ));
        };
        let filter = |input: LogicalPlan, predicate: TExpr| LogicalPlan::Filter {
            input: input.boxed(),
            predicate,
        };
        Ok(match *input {
            LogicalPlan::Project {
                input,
                exprs,
                columns,
            } => {
                let p = predicate.substitute(&exprs);
                LogicalPlan::Project {
                    input: filter(*input, p).boxed(),
                    exprs,
                    columns,
                }
            }
            LogicalPlan::Sort { input, keys } => LogicalPlan::Sort {
                input: filter(*input, predicate).boxed(),
                keys,
            },
            LogicalPlan::Distinct { input } => LogicalPlan::Distinct {
                input: filter(*input, predicate).boxed(),
            },
            LogicalPlan::Filter {
                input,
                predicate: inner,
            } => {
                let mut all = conjuncts(inner);
                all.extend(conjuncts(predicate));
                match conjunction(all) {
                    Some(p) => filter(*input, p),
                    None => *input,
                }
            }
            LogicalPlan::SetOp {
                kind,
                all,
                left,
                right,
                columns,
            } => LogicalPlan::SetOp {
                kind,
                all,
                left: filter(*left, predicate.clone()).boxed(),
                right: filter(*right, predicate).boxed(),
                columns,
            },
            LogicalPlan::Aggregate {
                input,
                keys,
                aggs,
                columns,
            } => {
                let n = keys.len();
                let (below, above): (Vec<TExpr>, Vec<TExpr>) = conjuncts(predicate)
                    .into_iter()
                    .partition(|c| reads_only_first(c, n));
                let below: Vec<TExpr> = below.into_iter().map(|c| c.substitute(&keys)).collect();
                let mut input = *input;
                if let Some(p) = conjunction(below) {
                    input = filter(input, p);
                }
                let agg = LogicalPlan::Aggregate {
                    input: input.boxed(),
                    keys,
                    aggs,
                    columns,
                };
                match conjunction(above) {
                    Some(p) => filter(agg, p),
                    None => agg,
                }
            }
            other => filter(other, predicate),
        })
    }
}
