//! `aggregate_into_table`: an aggregation directly over a table scan is
//! answered by the sorted-vector engine: per block, groups from the key
//! columns' sorted values (no row pass for one key column), merged across
//! blocks as sorted vectors.
//!
//! Sound: the scan's rows are the table's rows (after its WHERE) through
//! its select list; grouping them by the keys with the select expressions
//! substituted, and aggregating the substituted arguments, forms the same
//! groups with the same aggregates. The table query's output becomes its
//! group slots (keys, then aggregates), as the Aggregate's output was.
//!
//! Only calls the engine keeps a state for qualify
//! ([`StateKind::of`]); all of them skip NULL arguments, so a call's
//! `FILTER (WHERE p)` becomes its argument `CASE WHEN p THEN x END`
//! (`COUNT(*) FILTER (WHERE p)` counts `CASE WHEN p THEN TRUE END`): the
//! rows the filter rejects are NULL and count for nothing, as rejected rows
//! do.

use super::{table_input, take_input, Check, Rule, RuleCtx};
use crate::agg::func::{AggCall, AggFunc, Aggregation};
use crate::agg::layout::StateKind;
use crate::error::{EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::LogicalPlan;
use crate::value::{LType, Value};

/// The rule.
pub struct AggregateIntoTable;

impl Rule for AggregateIntoTable {
    fn name(&self) -> &'static str {
        "aggregate_into_table"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::Aggregate { keys, aggs, .. } = node else {
            return Check::NotApplicable;
        };
        // The table engine keeps group keys and extremes as order-preserving
        // keys; an INTERVAL's key is its total, not its parts.
        let interval = keys.iter().any(|k| k.ty == LType::Interval)
            || aggs
                .iter()
                .any(|a| a.args.iter().any(|x| x.ty == LType::Interval));
        if interval {
            return Check::no("INTERVAL keys or arguments stay in the hash aggregation");
        }
        match table_input(node) {
            None => Check::NotApplicable,
            Some(t) if t.is_row_scan() => {
                let LogicalPlan::Aggregate { aggs, .. } = node else {
                    return Check::NotApplicable;
                };
                match aggs.iter().find_map(|a| StateKind::of(a).err()) {
                    Some(why) => Check::Rejected(format!("{why}: the hash aggregate answers it")),
                    None => Check::Applies,
                }
            }
            Some(_) => Check::no("the table query already aggregates, orders or limits"),
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::Aggregate {
            keys,
            aggs,
            columns,
            ..
        } = &node
        else {
            return Err(EngineError::Internal(
                "aggregate_into_table on another node".into(),
            ));
        };
        let (keys, aggs, columns) = (keys.clone(), aggs.clone(), columns.clone());
        let LogicalPlan::TableQuery(mut t) = take_input(node)? else {
            return Err(EngineError::Internal(
                "aggregate_into_table without a table".into(),
            ));
        };
        let exprs: Vec<TExpr> = t.select.iter().map(|(_, e)| e.clone()).collect();
        let keys: Vec<TExpr> = keys.into_iter().map(|k| k.substitute(&exprs)).collect();
        let aggs: Vec<AggCall> = aggs
            .into_iter()
            .map(|a| fold_filter(a.map_exprs(&mut |x| x.substitute(&exprs))))
            .collect();
        t.select = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    c.name.clone(),
                    TExpr {
                        kind: ExprKind::Ref(i),
                        ty: c.ty,
                    },
                )
            })
            .collect();
        t.aggregation = Some(Aggregation { keys, aggs });
        Ok(LogicalPlan::TableQuery(t))
    }
}

/// A call's FILTER moved into its argument (see the module docs).
fn fold_filter(mut a: AggCall) -> AggCall {
    let Some(p) = a.filter.take() else {
        return a;
    };
    if a.func == AggFunc::CountStar {
        a.func = AggFunc::Count;
        a.args = vec![TExpr::lit(Value::Bool(true), LType::Bool)];
    }
    a.args = a
        .args
        .into_iter()
        .map(|x| {
            let ty = x.ty;
            TExpr {
                kind: ExprKind::Case(vec![(p.clone(), x)], None),
                ty,
            }
        })
        .collect();
    a
}
