//! `mark_join_to_semi`: `WHERE EXISTS (...)`, `WHERE x IN (...)` and their
//! negations become SEMI and ANTI joins. A MARK join computes a BOOLEAN per
//! left row; when a filter right above it keeps exactly the rows whose mark
//! is true (a conjunct `mark`), or false (`NOT mark`), the join can keep
//! those rows itself and stop at their first match.
//!
//! Sound: a conjunct `mark` keeps the rows with a match: a SEMI join's
//! rows. `NOT mark` of `EXISTS` keeps the rows without one: an ANTI join's.
//! `NOT mark` of `IN` is true only when the mark is false (not NULL): no
//! match, no NULL on either side among the candidates, which is what the
//! NULL-aware ANTI join keeps. The join's output lacks the mark column, so
//! a projection puts back the constant every kept row has there (true or
//! false), for the filter's other conjuncts and the nodes above.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{conjunction, conjuncts, ExprKind, TExpr};
use crate::plan::{Column, JoinKind, LogicalPlan};
use crate::value::{LType, Value};

/// The rule.
pub struct MarkJoinToSemi;

/// Whether `c` is the mark column `m` (`Some(true)`) or its negation
/// (`Some(false)`).
fn tests_mark(c: &TExpr, m: usize) -> Option<bool> {
    match &c.kind {
        ExprKind::Col(i) if *i == m => Some(true),
        ExprKind::Not(x) => matches!(x.kind, ExprKind::Col(i) if i == m).then_some(false),
        _ => None,
    }
}

fn mark_position(node: &LogicalPlan) -> Option<(usize, bool)> {
    let LogicalPlan::Filter { input, .. } = node else {
        return None;
    };
    let LogicalPlan::Join {
        kind: JoinKind::Mark { null_aware },
        left,
        ..
    } = input.as_ref()
    else {
        return None;
    };
    Some((left.columns().len(), *null_aware))
}

impl Rule for MarkJoinToSemi {
    fn name(&self) -> &'static str {
        "mark_join_to_semi"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let Some((m, _)) = mark_position(node) else {
            return Check::NotApplicable;
        };
        let LogicalPlan::Filter { predicate, .. } = node else {
            return Check::NotApplicable;
        };
        if conjuncts(predicate.clone())
            .iter()
            .any(|c| tests_mark(c, m).is_some())
        {
            Check::Applies
        } else {
            Check::no("the mark is used in an expression, not tested as a condition")
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let internal = || EngineError::Internal("mark_join_to_semi on another node".into());
        let (m, null_aware) = mark_position(&node).ok_or_else(internal)?;
        let LogicalPlan::Filter { input, predicate } = node else {
            return Err(internal());
        };
        let LogicalPlan::Join {
            left,
            right,
            keys,
            filter,
            ..
        } = *input
        else {
            return Err(internal());
        };
        let mut positive = None;
        let mut rest = Vec::new();
        for c in conjuncts(predicate) {
            match (positive, tests_mark(&c, m)) {
                (None, Some(p)) => positive = Some(p),
                _ => rest.push(c),
            }
        }
        let positive = positive.ok_or_else(internal)?;
        let kind = match (positive, null_aware) {
            (true, _) => JoinKind::Semi,
            (false, false) => JoinKind::Anti,
            (false, true) => JoinKind::AntiNullAware,
        };
        let left_columns = left.columns();
        let join = LogicalPlan::Join {
            kind,
            left,
            right,
            keys,
            filter,
        };
        // The left columns, then the mark every kept row has.
        let mut exprs: Vec<TExpr> = left_columns
            .iter()
            .enumerate()
            .map(|(i, c)| TExpr {
                kind: ExprKind::Col(i),
                ty: c.ty,
            })
            .collect();
        exprs.push(TExpr::lit(Value::Bool(positive), LType::Bool));
        let mut columns = left_columns;
        columns.push(Column::new("#mark", LType::Bool));
        let projected = LogicalPlan::Project {
            input: join.boxed(),
            exprs,
            columns,
        };
        Ok(match conjunction(rest) {
            Some(p) => LogicalPlan::Filter {
                input: projected.boxed(),
                predicate: p,
            },
            None => projected,
        })
    }
}
