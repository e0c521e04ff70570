//! An aggregation split into per-task states and their merge.
//!
//! Each task groups its rows by the query's keys plus the arguments of its
//! `COUNT(DISTINCT x)` calls, and keeps for every other aggregate a state
//! that merges by another aggregate over the states:
//!
//! | aggregate          | state per task        | merge                      | finish               |
//! |--------------------|-----------------------|----------------------------|----------------------|
//! | `COUNT(*)`, `COUNT(x)` | the count (BIGINT) | `sum`                      | as BIGINT, 0 if none |
//! | `SUM(x)`           | the sum               | `sum` (same type)          | the sum              |
//! | `MIN(x)`, `MAX(x)` | the minimum, maximum  | `min`, `max`               | the value            |
//! | `AVG(x)`           | `sum(x)`, `count(x)`  | `sum`, `sum`               | sum / count (DOUBLE) |
//! | `COUNT(DISTINCT x)`| `x` as a group key    | `count(DISTINCT x)`        | the count            |
//!
//! Sound: every state is an aggregate that distributes over a union of
//! row sets (a sum of sums is the sum, a count of the union a sum of counts,
//! a minimum of minimums the minimum), and grouping a task's rows by the
//! distinct arguments as well only splits each group into subgroups whose
//! states merge back into it; the distinct values of a group over all tasks
//! are the union of each task's, which the final `count(DISTINCT)` counts.
//! Integer and decimal sums are exact, so those results are too; a sum of
//! floating-point values is added up in another order and may differ in the
//! last bits. Any aggregate without a row here cannot be split (say so).

use crate::agg::func::{AggCall, AggFunc};
use crate::error::{EngineError, Result};
use crate::expr::{ArithOp, ExprKind, TExpr};
use crate::plan::{Column, LogicalPlan};
use crate::value::{LType, Value};

/// How one state column merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Merge {
    /// A count: summed, then narrowed back to BIGINT.
    Count,
    /// Summed.
    Sum,
    /// The smallest.
    Min,
    /// The largest.
    Max,
}

/// How one aggregate of the query is computed from the merged columns.
#[derive(Debug, Clone, Copy)]
enum Finish {
    /// A count: state `i`, 0 when there were no rows.
    Count(usize),
    /// State `i` as it is.
    Same(usize),
    /// `AVG`: state `sum` over state `count`.
    Avg { sum: usize, count: usize },
    /// `COUNT(DISTINCT)` of distinct argument `i`.
    Distinct(usize),
}

/// An aggregation's parts once split.
#[derive(Debug, Clone)]
pub struct AggSplit {
    /// Group keys of the query.
    keys: usize,
    /// The distinct arguments, grouped on by each task after the keys.
    distinct: Vec<TExpr>,
    /// Each state: its call over the task's rows, and how it merges.
    states: Vec<(AggCall, Merge)>,
    /// Each aggregate of the query, from the merged states.
    finish: Vec<Finish>,
    /// The query's aggregate output columns (keys, then aggregates).
    columns: Vec<Column>,
}

impl AggSplit {
    /// Splits an aggregation of `keys` and `aggs` whose output is `columns`.
    pub fn new(keys: usize, aggs: &[AggCall], columns: Vec<Column>) -> Result<AggSplit> {
        let mut distinct: Vec<TExpr> = Vec::new();
        let mut states: Vec<(AggCall, Merge)> = Vec::new();
        let mut finish = Vec::with_capacity(aggs.len());
        let mut state = |call: AggCall, merge: Merge| {
            states.push((call, merge));
            states.len() - 1
        };
        for a in aggs {
            if !a.is_plain() || !matches!(a.param, crate::agg::func::AggParam::None) {
                return Err(EngineError::NotSplittable(format!(
                    "{a} (FILTER, ORDER BY or a parameter inside an aggregate call)"
                )));
            }
            if a.distinct {
                let (AggFunc::Count, Some(arg)) = (a.func, a.arg()) else {
                    return Err(EngineError::NotSplittable(format!(
                        "{}(DISTINCT ...) has no mergeable state",
                        a.func.name()
                    )));
                };
                let i = match distinct.iter().position(|d| d == arg) {
                    Some(i) => i,
                    None => {
                        distinct.push(arg.clone());
                        distinct.len() - 1
                    }
                };
                finish.push(Finish::Distinct(i));
                continue;
            }
            finish.push(match a.func {
                AggFunc::CountStar | AggFunc::Count => {
                    Finish::Count(state(a.clone(), Merge::Count))
                }
                AggFunc::Sum => Finish::Same(state(a.clone(), Merge::Sum)),
                AggFunc::Min => Finish::Same(state(a.clone(), Merge::Min)),
                AggFunc::Max => Finish::Same(state(a.clone(), Merge::Max)),
                AggFunc::Avg => {
                    let arg_ty = a.arg().map_or(LType::Null, |x| x.ty);
                    let sum = AggCall::new(
                        AggFunc::Sum,
                        a.args.clone(),
                        result_type(AggFunc::Sum, arg_ty)?,
                    );
                    let count = AggCall::new(AggFunc::Count, a.args.clone(), LType::Int64);
                    Finish::Avg {
                        sum: state(sum, Merge::Sum),
                        count: state(count, Merge::Count),
                    }
                }
                other => {
                    return Err(EngineError::NotSplittable(format!(
                        "{}() has no mergeable state in split plans yet",
                        other.name()
                    )))
                }
            });
        }
        Ok(AggSplit {
            keys,
            distinct,
            states,
            finish,
            columns,
        })
    }

    /// The columns of a task's result: the keys, the distinct arguments,
    /// the states.
    pub fn partial_columns(&self) -> Vec<Column> {
        let mut out: Vec<Column> = self.columns[..self.keys].to_vec();
        for (i, d) in self.distinct.iter().enumerate() {
            out.push(Column::new(format!("distinct_{i}"), d.ty));
        }
        for (i, (call, _)) in self.states.iter().enumerate() {
            out.push(Column::new(
                format!("state_{i}_{}", call.func.name()),
                call.ty,
            ));
        }
        out
    }

    /// A task's plan over `input` (the rows below the aggregation).
    pub fn partial(&self, input: LogicalPlan, keys: &[TExpr]) -> LogicalPlan {
        let mut all = keys.to_vec();
        all.extend(self.distinct.iter().cloned());
        LogicalPlan::Aggregate {
            input: input.boxed(),
            keys: all,
            aggs: self.states.iter().map(|(c, _)| c.clone()).collect(),
            columns: self.partial_columns(),
        }
    }

    /// The states over `input`'s rows grouped by `keys` instead of the
    /// query's keys (no distinct arguments): the keys, then the states
    /// (`aggregate_below_join` groups a join's input by its join keys).
    pub fn partial_grouped_by(&self, input: LogicalPlan, keys: &[TExpr]) -> LogicalPlan {
        debug_assert!(self.distinct.is_empty());
        let mut columns: Vec<Column> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| Column::new(format!("key_{i}"), k.ty))
            .collect();
        columns.extend(self.partial_columns().split_off(self.keys));
        LogicalPlan::Aggregate {
            input: input.boxed(),
            keys: keys.to_vec(),
            aggs: self.states.iter().map(|(c, _)| c.clone()).collect(),
            columns,
        }
    }

    /// The merge of each state over `partials` (columns in
    /// [`AggSplit::partial_columns`] order), grouped by the first `keys`
    /// columns; `distinct` adds `count(DISTINCT)` of each distinct argument.
    fn merge(&self, partials: LogicalPlan, keys: usize, distinct: bool) -> Result<LogicalPlan> {
        let cols = partials.columns();
        let col = |i: usize| TExpr {
            kind: ExprKind::Col(i),
            ty: cols[i].ty,
        };
        let first_state = self.keys + self.distinct.len();
        let mut aggs = Vec::new();
        for (i, (call, merge)) in self.states.iter().enumerate() {
            let arg = col(first_state + i);
            let func = match merge {
                Merge::Count | Merge::Sum => AggFunc::Sum,
                Merge::Min => AggFunc::Min,
                Merge::Max => AggFunc::Max,
            };
            let ty = result_type(func, call.ty)?;
            aggs.push(AggCall::new(func, vec![arg], ty));
        }
        if distinct {
            for i in 0..self.distinct.len() {
                let mut count =
                    AggCall::new(AggFunc::Count, vec![col(self.keys + i)], LType::Int64);
                count.distinct = true;
                aggs.push(count);
            }
        }
        let mut columns: Vec<Column> = cols[..keys].to_vec();
        for (i, a) in aggs.iter().enumerate() {
            columns.push(Column::new(format!("merged_{i}"), a.ty));
        }
        Ok(LogicalPlan::Aggregate {
            input: partials.boxed(),
            keys: (0..keys).map(col).collect(),
            aggs,
            columns,
        })
    }

    /// Partial results merged into one partial result (the same columns):
    /// a level of a merge tree.
    pub fn combine(&self, partials: LogicalPlan) -> Result<LogicalPlan> {
        let groups = self.keys + self.distinct.len();
        let merged = self.merge(partials, groups, false)?;
        let types = merged.types();
        let mut exprs: Vec<TExpr> = (0..groups).map(|i| col(i, types[i])).collect();
        for (i, (call, _)) in self.states.iter().enumerate() {
            exprs.push(cast(col(groups + i, types[groups + i]), call.ty));
        }
        Ok(LogicalPlan::Project {
            input: merged.boxed(),
            exprs,
            columns: self.partial_columns(),
        })
    }

    /// Partial results merged and finished: the aggregation's own output.
    pub fn finish(&self, partials: LogicalPlan) -> Result<LogicalPlan> {
        let merged = self.merge(partials, self.keys, true)?;
        let types = merged.types();
        let state = |i: usize| col(self.keys + i, types[self.keys + i]);
        let mut exprs: Vec<TExpr> = (0..self.keys).map(|i| col(i, types[i])).collect();
        for f in &self.finish {
            exprs.push(match *f {
                Finish::Count(i) => zero_if_null(cast(state(i), LType::Int64)),
                Finish::Same(i) => cast(state(i), self.states[i].0.ty),
                Finish::Avg { sum, count } => TExpr {
                    kind: ExprKind::Arith(
                        ArithOp::Div,
                        Box::new(cast(state(sum), LType::Double)),
                        Box::new(cast(state(count), LType::Double)),
                    ),
                    ty: LType::Double,
                },
                Finish::Distinct(i) => state(self.states.len() + i),
            });
        }
        Ok(LogicalPlan::Project {
            input: merged.boxed(),
            exprs,
            columns: self.columns.clone(),
        })
    }
}

fn col(i: usize, ty: LType) -> TExpr {
    TExpr {
        kind: ExprKind::Col(i),
        ty,
    }
}

/// `e` as type `ty` (itself when it has that type).
fn cast(e: TExpr, ty: LType) -> TExpr {
    if e.ty == ty {
        return e;
    }
    TExpr {
        kind: ExprKind::Cast(Box::new(e)),
        ty,
    }
}

/// `CASE WHEN e IS NULL THEN 0 ELSE e END` for a BIGINT `e`: a count over
/// no partial rows (a global `COUNT` beside a `COUNT(DISTINCT)`) is 0.
fn zero_if_null(e: TExpr) -> TExpr {
    let is_null = TExpr {
        kind: ExprKind::IsNull(Box::new(e.clone()), false),
        ty: LType::Bool,
    };
    TExpr {
        kind: ExprKind::Case(
            vec![(is_null, TExpr::lit(Value::Int(0), LType::Int64))],
            Some(Box::new(e)),
        ),
        ty: LType::Int64,
    }
}

/// The result type of `func` over one argument of type `arg`.
fn result_type(func: AggFunc, arg: LType) -> Result<LType> {
    let probe = TExpr {
        kind: crate::expr::ExprKind::Col(0),
        ty: arg,
    };
    let cast = |e: TExpr, ty: LType| {
        Ok(TExpr {
            kind: crate::expr::ExprKind::Cast(Box::new(e)),
            ty,
        })
    };
    Ok(func.signature(vec![probe], &cast)?.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(func: AggFunc, arg: Option<TExpr>, distinct: bool, ty: LType) -> AggCall {
        let mut c = AggCall::new(func, arg.into_iter().collect(), ty);
        c.distinct = distinct;
        c
    }

    #[test]
    fn states_of_each_aggregate() {
        let x = col(1, LType::Int32);
        let aggs = [
            call(AggFunc::CountStar, None, false, LType::Int64),
            call(AggFunc::Avg, Some(x.clone()), false, LType::Double),
            call(AggFunc::Count, Some(x.clone()), true, LType::Int64),
            call(AggFunc::Count, Some(x.clone()), true, LType::Int64),
            call(AggFunc::Max, Some(x.clone()), false, LType::Int32),
        ];
        let columns = vec![
            Column::new("k", LType::Varchar),
            Column::new("c", LType::Int64),
            Column::new("a", LType::Double),
            Column::new("d", LType::Int64),
            Column::new("d2", LType::Int64),
            Column::new("m", LType::Int32),
        ];
        let s = AggSplit::new(1, &aggs, columns).unwrap_or_else(|e| panic!("{e}"));
        let cols: Vec<(String, LType)> = s
            .partial_columns()
            .into_iter()
            .map(|c| (c.name, c.ty))
            .collect();
        // The key, one distinct argument (shared by both calls), then the
        // states: count, AVG's sum and count, max.
        assert_eq!(
            cols,
            vec![
                ("k".to_string(), LType::Varchar),
                ("distinct_0".to_string(), LType::Int32),
                ("state_0_count".to_string(), LType::Int64),
                ("state_1_sum".to_string(), LType::HugeInt),
                ("state_2_count".to_string(), LType::Int64),
                ("state_3_max".to_string(), LType::Int32),
            ]
        );
    }

    #[test]
    fn a_distinct_aggregate_other_than_count_cannot_be_split() {
        let x = col(0, LType::Int64);
        let aggs = [call(AggFunc::Sum, Some(x), true, LType::HugeInt)];
        let e = AggSplit::new(0, &aggs, vec![Column::new("s", LType::HugeInt)])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("cannot be split: sum(DISTINCT ...) has no mergeable state")
        );
    }
}
