//! `semi_join_pushdown`: a SEMI join (`IN` or `EXISTS`, once decorrelated)
//! whose left input is another join moves
//! into the input of that join its left keys and condition read, so that
//! it cuts that input before the join instead of filtering the join's
//! output. `o_orderkey IN (SELECT ...)` over `customer, orders, lineitem`
//! then filters `orders` before it meets `lineitem`, and its few surviving
//! keys reduce the `lineitem` scan (see `exec/runtime_filter.rs`).
//!
//! Sound: a SEMI join (as an ANTI or null-aware ANTI join) keeps or drops each left row
//! by whether right rows match it, which depends only on the left columns
//! its keys and condition read (and on the right input, which does not
//! change). When those columns all come from one input X of the join
//! below, an output row of that join is kept exactly when its X part would
//! be, so filtering X's rows first leaves the same rows: for either input
//! of an INNER join, the left input of LEFT, SEMI, ANTI, MARK and SINGLE
//! joins (which keep or drop whole left rows and append columns after
//! them), and the right input of a RIGHT join. Not into the NULL-extended
//! side of an outer join, where a row the filter drops would come back as
//! NULLs. Through a projection whose columns it reads are plain columns of
//! the projection's input (a renumbering).
//!
//! Worth it where the filtering join's right input is estimated smaller
//! than the input it finally reaches (few keys to build, and a likely
//! cut); otherwise it stays above the joins, which `join_reorder` then
//! orders as one tree and which may cut more.

use super::filter_pushdown::{input_for, Input};
use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::stats::estimate_rows;
use crate::plan::{JoinKind, LogicalPlan};

/// The rule's name.
pub const NAME: &str = "semi_join_pushdown";

/// The rule. It runs as a pass of its own after the other rules' first
/// fixpoint (filters in their places, for the estimates) and before
/// `join_reorder`.
pub struct SemiJoinPushdown;

/// Whether the rule moves a join of `kind`: a SEMI join, which keeps or
/// drops its left rows one by one, as a filter would. ANTI joins would move
/// as soundly, but one whose right input is small keeps nearly every row:
/// moved, it would cost the input the semi-join reduction the join above
/// gives it (TPC-H Q16's `NOT IN` over four suppliers).
fn filters_left(kind: &JoinKind) -> bool {
    matches!(kind, JoinKind::Semi)
}

/// The left columns (below `nl`) the join's keys and condition read.
fn left_columns(keys: &[(TExpr, TExpr)], filter: Option<&TExpr>, nl: usize) -> Vec<usize> {
    let mut cols: Vec<usize> = keys.iter().flat_map(|(l, _)| l.columns()).collect();
    if let Some(f) = filter {
        cols.extend(f.columns().into_iter().filter(|&c| c < nl));
    }
    cols.sort_unstable();
    cols.dedup();
    cols
}

/// Where the filtering join can move within its left input: into an
/// input of the join below, or through a projection.
enum Into {
    JoinLeft,
    JoinRight,
    Project,
}

/// Where a filter on left columns `cols` can move below `left`: the rules
/// of `filter_pushdown` for a join below, a renumbering for a projection.
fn target(left: &LogicalPlan, cols: &[usize]) -> Option<Into> {
    match left {
        LogicalPlan::Join {
            kind,
            left: jl,
            right: jr,
            ..
        } => match input_for(cols, kind, jl.columns().len(), jr.columns().len())? {
            Input::Left => Some(Into::JoinLeft),
            Input::Right => Some(Into::JoinRight),
        },
        LogicalPlan::Project { exprs, .. } => (!cols.is_empty()
            && cols
                .iter()
                .all(|&c| exprs.get(c).and_then(TExpr::as_col).is_some()))
        .then_some(Into::Project),
        _ => None,
    }
}

/// The input the filtering join ends up filtering when moved step by step:
/// the first node below `left` it cannot pass, or `None` when it cannot
/// pass `left` itself. Judged there, the move is all or nothing: stopping
/// partway through a tree of inner joins would split it in two for
/// `join_reorder`.
fn destination(left: &LogicalPlan, mut cols: Vec<usize>) -> Option<&LogicalPlan> {
    let mut node = left;
    let mut moved = false;
    loop {
        node = match (target(node, &cols), node) {
            (Some(Into::JoinLeft), LogicalPlan::Join { left, .. }) => left,
            (Some(Into::JoinRight), LogicalPlan::Join { left, right, .. }) => {
                let off = left.columns().len();
                cols.iter_mut().for_each(|c| *c -= off);
                right
            }
            (Some(Into::Project), LogicalPlan::Project { input, exprs, .. }) => {
                for c in cols.iter_mut() {
                    *c = exprs.get(*c).and_then(TExpr::as_col)?;
                }
                input
            }
            _ => return moved.then_some(node),
        };
        moved = true;
    }
}

impl Rule for SemiJoinPushdown {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check(&self, node: &LogicalPlan, ctx: &RuleCtx) -> Check {
        let LogicalPlan::Join {
            kind,
            left,
            right,
            keys,
            filter,
        } = node
        else {
            return Check::NotApplicable;
        };
        if !filters_left(kind)
            || !matches!(
                **left,
                LogicalPlan::Join { .. } | LogicalPlan::Project { .. }
            )
        {
            return Check::NotApplicable;
        }
        let nl = left.columns().len();
        let Some(input) = destination(left, left_columns(keys, filter.as_ref(), nl)) else {
            return Check::no(
                "its keys read columns of more than one input, or an outer join's NULL-extended side",
            );
        };
        if estimate_rows(right, ctx.ctes) < estimate_rows(input, ctx.ctes) {
            Check::Applies
        } else {
            Check::no("its right input is estimated no smaller than the input it would filter")
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Join {
            kind,
            left,
            right,
            keys,
            filter,
        } = node
        else {
            return Err(EngineError::Internal(
                "semi_join_pushdown on another node".into(),
            ));
        };
        let nl = left.columns().len();
        let cols = left_columns(&keys, filter.as_ref(), nl);
        let Some(into) = target(&left, &cols) else {
            return Err(EngineError::Internal(
                "semi_join_pushdown where it does not apply".into(),
            ));
        };
        // The filtering join rebuilt over `x`, whose columns are the old
        // left's through `map` (old left column to x's column).
        let rebuild = |x: LogicalPlan, map: &dyn Fn(usize) -> usize| {
            let nx = x.columns().len();
            let keys = keys
                .iter()
                .map(|(l, r)| (l.clone().map_columns(map), r.clone()))
                .collect();
            let filter = filter.as_ref().map(|f| {
                f.clone()
                    .map_columns(&|c| if c < nl { map(c) } else { c - nl + nx })
            });
            LogicalPlan::Join {
                kind: kind.clone(),
                left: x.boxed(),
                right: right.clone(),
                keys,
                filter,
            }
        };
        Ok(match (*left, into) {
            (
                LogicalPlan::Join {
                    kind: jk,
                    left: jl,
                    right: jr,
                    keys: jkeys,
                    filter: jf,
                },
                side,
            ) => {
                let (jl, jr) = match side {
                    Into::JoinLeft => (rebuild(*jl, &|c| c).boxed(), jr),
                    _ => {
                        let off = jl.columns().len();
                        (jl, rebuild(*jr, &|c| c - off).boxed())
                    }
                };
                LogicalPlan::Join {
                    kind: jk,
                    left: jl,
                    right: jr,
                    keys: jkeys,
                    filter: jf,
                }
            }
            (
                LogicalPlan::Project {
                    input,
                    exprs,
                    columns,
                },
                _,
            ) => {
                let to_input = |c: usize| match exprs.get(c).map(|e| &e.kind) {
                    Some(ExprKind::Col(i)) => *i,
                    _ => c,
                };
                LogicalPlan::Project {
                    input: rebuild(*input, &to_input).boxed(),
                    exprs,
                    columns,
                }
            }
            _ => {
                return Err(EngineError::Internal(
                    "semi_join_pushdown below a node it cannot pass".into(),
                ))
            }
        })
    }
}
