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
//! - into a join's inputs: a conjunct reading only the left input's
//!   columns moves into the left input of joins that keep or drop whole left
//!   rows by their matches (INNER, LEFT, SEMI, ANTI, MARK, SINGLE): a left
//!   row fails it whatever it is paired with. Symmetrically into the right
//!   input of INNER and RIGHT joins. Into an INNER join itself: an equality
//!   between a left and a right expression becomes a join key, any other
//!   condition on both sides the join's filter (an inner join's result is
//!   its pairs that pass every condition, in any order of testing). Not
//!   below the NULL-extended side of an outer join (a NULL row would pass
//!   where the pair failed). What moves into an input of an inner join is
//!   led by its keys' `IS NOT NULL` (see [`keys_not_null_first`]).
//!
//! An OR over both inputs of a join also moves, as the weaker conditions
//! it implies on each input (see [`implied_by_or`]), while it stays whole
//! above: adding a condition the predicate implies keeps the same rows.
//!
//! It does not move below a Limit or a DISTINCT ON (which rows are first
//! would change).

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{conjunction, conjuncts, ExprKind, TExpr};
use crate::plan::{split_equi_keys, JoinKind, LogicalPlan};
use crate::value::LType;

/// The rule.
pub struct FilterPushdown;

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
            LogicalPlan::Join {
                kind, left, right, ..
            } => {
                let nl = left.columns().len();
                let nr = right.columns().len();
                if conjuncts(predicate.clone())
                    .iter()
                    .any(|c| join_target(c, kind, nl, nr).is_some())
                {
                    Check::Applies
                } else {
                    Check::no("no conjunct can move into the join")
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
            LogicalPlan::Join {
                kind,
                left,
                right,
                mut keys,
                filter: jf,
            } => {
                let nl = left.columns().len();
                let nr = right.columns().len();
                let (mut to_left, mut to_right, mut into, mut above) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                let mut all = conjuncts(predicate);
                let implied: Vec<TExpr> = all
                    .iter()
                    .flat_map(|c| implied_by_or(c, nl, nr))
                    .filter(|d| !all.contains(d))
                    .filter(|d| {
                        matches!(
                            join_target(d, &kind, nl, nr),
                            Some(Target::Left | Target::Right)
                        )
                    })
                    .collect();
                all.extend(implied);
                for c in all {
                    match join_target(&c, &kind, nl, nr) {
                        Some(Target::Left) => to_left.push(c),
                        Some(Target::Right) => to_right.push(c.map_columns(&|i| i - nl)),
                        Some(Target::Join) => into.push(c),
                        None => above.push(c),
                    }
                }
                let (new_keys, rest) = split_equi_keys(into, nl);
                keys.extend(new_keys);
                let mut jf_all = jf.map(conjuncts).unwrap_or_default();
                jf_all.extend(rest);
                if matches!(kind, JoinKind::Inner | JoinKind::Semi) {
                    to_left = keys_not_null_first(keys.iter().map(|k| &k.0), to_left);
                }
                if matches!(kind, JoinKind::Inner) {
                    to_right = keys_not_null_first(keys.iter().map(|k| &k.1), to_right);
                }
                let mut left = *left;
                if let Some(p) = conjunction(to_left) {
                    left = filter(left, p);
                }
                let mut right = *right;
                if let Some(p) = conjunction(to_right) {
                    right = filter(right, p);
                }
                let join = LogicalPlan::Join {
                    kind,
                    left: left.boxed(),
                    right: right.boxed(),
                    keys,
                    filter: conjunction(jf_all),
                };
                match conjunction(above) {
                    Some(p) => filter(join, p),
                    None => join,
                }
            }
            other => filter(other, predicate),
        })
    }
}

/// The conditions pushed into a join's input, led by `k IS NOT NULL` for
/// each key `k` that is a plain column: a row whose key is NULL matches
/// nothing in an inner (or, on its left, a semi) join, and is dropped
/// before the other conditions are tested, so that one failing on such a
/// row (an overflow) fails no more than it does above the join, where DuckDB
/// tests it. Nothing is added when nothing else is pushed.
fn keys_not_null_first<'a>(
    keys: impl Iterator<Item = &'a TExpr>,
    pushed: Vec<TExpr>,
) -> Vec<TExpr> {
    if pushed.is_empty() {
        return pushed;
    }
    let mut out: Vec<TExpr> = Vec::with_capacity(pushed.len() + 1);
    for k in keys.filter(|k| k.as_col().is_some()) {
        let not_null = TExpr {
            kind: ExprKind::IsNull(Box::new(k.clone()), true),
            ty: LType::Bool,
        };
        if !out.contains(&not_null) && !pushed.contains(&not_null) {
            out.push(not_null);
        }
    }
    out.extend(pushed);
    out
}

/// Conditions on one input that an OR over a join's output implies: when
/// every branch has conjuncts reading only the left input's columns (or
/// only the right's), the OR of those parts holds wherever the OR does.
/// `(l1 AND r1) OR (l2 AND r2)` implies `l1 OR l2` and `r1 OR r2`; each can
/// move into its input while the OR itself stays.
fn implied_by_or(c: &TExpr, nl: usize, nr: usize) -> Vec<TExpr> {
    let ExprKind::Or(branches) = &c.kind else {
        return Vec::new();
    };
    let side = |range: std::ops::Range<usize>| -> Option<TExpr> {
        let mut parts = Vec::with_capacity(branches.len());
        for b in branches {
            let own: Vec<TExpr> = conjuncts(b.clone())
                .into_iter()
                .filter(|x| {
                    let cols = x.columns();
                    !cols.is_empty() && cols.iter().all(|i| range.contains(i))
                })
                .collect();
            parts.push(conjunction(own)?);
        }
        Some(TExpr {
            kind: ExprKind::Or(parts),
            ty: c.ty,
        })
    };
    [side(0..nl), side(nl..nl + nr)]
        .into_iter()
        .flatten()
        .filter(|d| d != c)
        .collect()
}

/// Where a conjunct over a join's output can go.
enum Target {
    /// Into the left input.
    Left,
    /// Into the right input.
    Right,
    /// Into an inner join's keys or filter.
    Join,
}

fn join_target(c: &TExpr, kind: &JoinKind, nl: usize, nr: usize) -> Option<Target> {
    let cols = c.columns();
    match input_for(&cols, kind, nl, nr) {
        Some(Input::Left) => Some(Target::Left),
        Some(Input::Right) => Some(Target::Right),
        None if matches!(kind, JoinKind::Inner) && !cols.is_empty() => Some(Target::Join),
        None => None,
    }
}

/// An input of a join.
pub(super) enum Input {
    /// The left one.
    Left,
    /// The right one.
    Right,
}

/// The input of a join of `kind` (inputs `nl` and `nr` columns wide) on
/// which a condition reading only output columns `cols` can be tested
/// instead, keeping the join's result (see the module doc): one whose rows
/// it keeps or drops whole, and not the NULL-extended side of an outer
/// join. `None` for no columns or columns of both inputs.
pub(super) fn input_for(cols: &[usize], kind: &JoinKind, nl: usize, nr: usize) -> Option<Input> {
    if cols.is_empty() {
        return None;
    }
    let left_only = cols.iter().all(|&i| i < nl);
    let right_only = kind.has_right_columns() && cols.iter().all(|&i| i >= nl && i < nl + nr);
    match kind {
        JoinKind::Inner if left_only => Some(Input::Left),
        JoinKind::Inner | JoinKind::Right if right_only => Some(Input::Right),
        JoinKind::Left
        | JoinKind::Semi
        | JoinKind::Anti
        | JoinKind::AntiNullAware
        | JoinKind::Mark { .. }
        | JoinKind::Single { .. }
            if left_only =>
        {
            Some(Input::Left)
        }
        _ => None,
    }
}
