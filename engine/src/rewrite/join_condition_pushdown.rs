//! `join_condition_pushdown`: a join's own condition (ON's conjuncts that
//! are not keys) is split: equalities between a left and a right
//! expression become keys, and conditions on one side only move into that
//! input where that keeps the result.
//!
//! Sound: a pair matches when every conjunct holds; an equality key is
//! tested as SQL's `=` (NULL matches nothing), as the condition would be,
//! for every join kind. A conjunct on the right side alone can be tested on
//! the right input first for INNER, LEFT, SEMI, ANTI and MARK joins (a
//! right row failing it matches no left row); on the left side alone only
//! for INNER and RIGHT joins (an outer join keeps its preserved side's
//! rows whether or not they match, so their conditions cannot drop them).

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{conjunction, conjuncts, TExpr};
use crate::plan::{split_equi_keys, JoinKind, LogicalPlan};

/// The rule.
pub struct JoinConditionPushdown;

/// Where one conjunct of a join's condition goes.
enum Place {
    Key,
    Left,
    Right,
    Stay,
}

fn place(c: &TExpr, kind: &JoinKind, nl: usize) -> Place {
    if !split_equi_keys(vec![c.clone()], nl).0.is_empty() {
        return Place::Key;
    }
    let cols = c.columns();
    if cols.is_empty() {
        return Place::Stay;
    }
    let left_only = cols.iter().all(|&i| i < nl);
    let right_only = cols.iter().all(|&i| i >= nl);
    match kind {
        JoinKind::Inner | JoinKind::Right if left_only => Place::Left,
        JoinKind::Inner
        | JoinKind::Left
        | JoinKind::Semi
        | JoinKind::Anti
        | JoinKind::Mark { null_aware: false }
            if right_only =>
        {
            Place::Right
        }
        _ => Place::Stay,
    }
}

impl Rule for JoinConditionPushdown {
    fn name(&self) -> &'static str {
        "join_condition_pushdown"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::Join {
            kind,
            left,
            filter: Some(f),
            ..
        } = node
        else {
            return Check::NotApplicable;
        };
        let nl = left.columns().len();
        if conjuncts(f.clone())
            .iter()
            .any(|c| !matches!(place(c, kind, nl), Place::Stay))
        {
            Check::Applies
        } else {
            Check::NotApplicable
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Join {
            kind,
            left,
            right,
            mut keys,
            filter: Some(f),
        } = node
        else {
            return Err(EngineError::Internal(
                "join_condition_pushdown on another node".into(),
            ));
        };
        let nl = left.columns().len();
        let (mut to_left, mut to_right, mut stay) = (Vec::new(), Vec::new(), Vec::new());
        for c in conjuncts(f) {
            match place(&c, &kind, nl) {
                Place::Key => keys.extend(split_equi_keys(vec![c], nl).0),
                Place::Left => to_left.push(c),
                Place::Right => to_right.push(c.map_columns(&|i| i - nl)),
                Place::Stay => stay.push(c),
            }
        }
        let wrap = |input: LogicalPlan, p: Option<TExpr>| match p {
            Some(predicate) => LogicalPlan::Filter {
                input: input.boxed(),
                predicate,
            },
            None => input,
        };
        Ok(LogicalPlan::Join {
            kind,
            left: wrap(*left, conjunction(to_left)).boxed(),
            right: wrap(*right, conjunction(to_right)).boxed(),
            keys,
            filter: conjunction(stay),
        })
    }
}
