//! `aggregate_below_join`: an aggregation over an INNER or LEFT join whose
//! group keys read only the left input and whose aggregates read only the
//! right one aggregates the right input first, grouped by its join keys,
//! and merges those partial states after the join (eager aggregation).
//! TPC-H Q13's `count(o_orderkey)` per customer over `customer LEFT JOIN
//! orders` then joins 150,000 customers with one count per ordering
//! customer instead of with 1.5 million orders.
//!
//! Sound: the right rows a left row `l` meets are exactly those whose join
//! keys equal `l`'s (the join has no other condition), the same set `R_k`
//! for every left row with keys `k`. Grouping the right input by its keys
//! gives each `R_k` one row of states (`plan/split/aggregate.rs`: counts,
//! sums, minimums, maximums, and the sum and count of an average), and `l`
//! meets that one row instead of the rows of `R_k`. A group of the query is
//! a set of left rows, each with its `R_k`; the states of those sets merge
//! into the group's aggregate as the split plans' partial results do,
//! since each state distributes over a union of row sets (a bag union: a
//! right row met by two left rows counts twice either way). A right row
//! with a NULL key meets no left row, in its group as alone. A left row of
//! a LEFT join without a match meets NULL states, which add nothing: its
//! right columns are NULL, so no count, sum, minimum or maximum over them
//! would have counted it. `COUNT(*)` counts that row, so under a LEFT join
//! the rule declines it.
//!
//! The states are computed over every right row, also those whose keys no
//! left row has, which the join would drop first: so the aggregates' arguments
//! must be plain right columns (no expression that could fail on such a row,
//! and none such as `SUM(1)` that is not NULL in a row without a match),
//! and sums only of types whose sums cannot overflow (at most 64 bits).
//!
//! Worth it where the right input's rows are several times its distinct
//! join keys (estimated from the tables' statistics): the join and the
//! aggregation above it then see that many times fewer rows, for an
//! aggregation of the right input the table engine answers from its sorted
//! values.

use super::{Check, Rule, RuleCtx};
use crate::agg::func::{AggFunc, AggParam};
use crate::error::{EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::split::aggregate::AggSplit;
use crate::plan::stats::{estimate_rows, key_distinct};
use crate::plan::{JoinKind, LogicalPlan};
use crate::value::LType;

/// The rule.
pub struct AggregateBelowJoin;

/// How many right rows per distinct right key, at least, make the rule
/// pay: below it, aggregating the right input costs about what it saves.
const MIN_ROWS_PER_KEY: f64 = 2.0;

/// Whether sums of `ty` cannot overflow: values of at most 64 bits, summed
/// in 128 (or floats, which do not fail). A state sums every right row of a
/// key, also those of keys no left row has, which the join would drop
/// before the sum could fail on them.
fn narrow_sum(ty: LType) -> bool {
    match ty {
        LType::HugeInt => false,
        LType::Decimal(p, _) => p <= 18,
        _ => true,
    }
}

impl Rule for AggregateBelowJoin {
    fn name(&self) -> &'static str {
        "aggregate_below_join"
    }

    fn check(&self, node: &LogicalPlan, ctx: &RuleCtx) -> Check {
        let LogicalPlan::Aggregate {
            input, keys, aggs, ..
        } = node
        else {
            return Check::NotApplicable;
        };
        let LogicalPlan::Join {
            kind,
            left,
            right,
            keys: join_keys,
            filter,
        } = input.as_ref()
        else {
            return Check::NotApplicable;
        };
        if !matches!(kind, JoinKind::Inner | JoinKind::Left) {
            return Check::no("not an INNER or LEFT join");
        }
        if filter.is_some() {
            return Check::no("the join has a condition besides its keys");
        }
        if join_keys.is_empty() || aggs.is_empty() {
            return Check::no("no join keys or no aggregates");
        }
        let nl = left.columns().len();
        if !keys.iter().all(|k| k.columns().iter().all(|&c| c < nl)) {
            return Check::no("a group key reads the right input");
        }
        for a in aggs {
            if a.func == AggFunc::CountStar && *kind == JoinKind::Left {
                return Check::no("count(*) counts the left rows without a match");
            }
            let mergeable = matches!(
                a.func,
                AggFunc::CountStar
                    | AggFunc::Count
                    | AggFunc::Sum
                    | AggFunc::Min
                    | AggFunc::Max
                    | AggFunc::Avg
            );
            if !mergeable || a.distinct || !a.is_plain() || !matches!(a.param, AggParam::None) {
                return Check::no(format!("{a} has no state that merges after the join"));
            }
            if a.args.iter().any(|e| e.columns().iter().any(|&c| c < nl)) {
                return Check::no(format!("{a} reads the left input"));
            }
            if !a.args.iter().all(|e| e.as_col().is_some()) {
                return Check::no(format!("{a} evaluates an expression"));
            }
            if matches!(a.func, AggFunc::Sum | AggFunc::Avg)
                && a.args.iter().any(|e| !narrow_sum(e.ty))
            {
                return Check::no(format!("{a} could overflow over rows the join drops"));
            }
        }
        let rows = estimate_rows(right, ctx.ctes);
        let distinct = join_keys
            .iter()
            .map(|(_, r)| key_distinct(r, right, ctx.ctes))
            .product::<f64>()
            .min(rows);
        if rows < MIN_ROWS_PER_KEY * distinct.max(1.0) {
            return Check::no(format!(
                "about {rows:.0} right rows for {distinct:.0} keys: too few to pay"
            ));
        }
        Check::Applies
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Aggregate {
            input,
            keys,
            aggs,
            columns,
        } = node
        else {
            return Err(EngineError::Internal(
                "aggregate_below_join: not an aggregate".into(),
            ));
        };
        let LogicalPlan::Join {
            kind,
            left,
            right,
            keys: join_keys,
            ..
        } = *input
        else {
            return Err(EngineError::Internal(
                "aggregate_below_join: not a join".into(),
            ));
        };
        let nl = left.columns().len();
        let to_right = |e: &TExpr| e.clone().map_columns(&|c| c - nl);
        let right_aggs: Vec<_> = aggs
            .iter()
            .map(|a| {
                let mut a = a.clone();
                a.args = a.args.iter().map(to_right).collect();
                a
            })
            .collect();
        let split = AggSplit::new(keys.len(), &right_aggs, columns)?;
        let right_keys: Vec<TExpr> = join_keys.iter().map(|(_, r)| r.clone()).collect();
        let states = split.partial_grouped_by(*right, &right_keys);
        let nk = right_keys.len();
        let join_keys = join_keys
            .into_iter()
            .enumerate()
            .map(|(i, (l, r))| {
                // Over the right input: its states' key columns come first.
                let key = TExpr {
                    kind: ExprKind::Col(i),
                    ty: r.ty,
                };
                (l, key)
            })
            .collect();
        let join = LogicalPlan::Join {
            kind,
            left,
            right: states.boxed(),
            keys: join_keys,
            filter: None,
        };
        // The join's rows in the split's partial layout: the query's keys
        // (over the left columns, which keep their numbers), then the states.
        let joined = join.columns();
        let mut exprs = keys;
        exprs.extend((nl + nk..joined.len()).map(|i| TExpr {
            kind: ExprKind::Col(i),
            ty: joined[i].ty,
        }));
        let partials = LogicalPlan::Project {
            input: join.boxed(),
            exprs,
            columns: split.partial_columns(),
        };
        split.finish(partials)
    }
}
