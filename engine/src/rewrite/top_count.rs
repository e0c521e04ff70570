//! `top_count`: `GROUP BY a, b, ... ORDER BY COUNT(*) DESC LIMIT k`: only
//! the groups that can make the cut are aggregated.
//!
//! A group's row count is at most the row count of its value of any one key
//! column `K` (the stored key column with the most distinct values bounds
//! best). So the executor finds, from the blocks' stored counts, a proven
//! lower bound `L` of the `k`-th largest group count, and restricts the
//! aggregation to the `K` values whose counts reach `L` (see
//! `exec::table::top_count` for how `L` and the values are found).
//!
//! Sound: the restriction tests `K` values only, so every group it keeps is
//! whole: counts, other aggregates and order are exact; a group that makes
//! the cut has at least `L` rows, so its `K` value has at least `L` rows and
//! is kept. When no bound narrows enough, the query runs unrestricted.

use super::any_groups::MAX_GROUPS;
use super::{Check, Rule, RuleCtx};
use crate::agg::func::AggFunc;
use crate::error::{EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::table_query::Restriction;
use crate::plan::{LogicalPlan, TableQuery};
use crate::scan::filter::{compile, single_column, Pred};

/// The rule.
pub struct TopCount;

/// What the query looks like to the executor: the `K` column and `k`.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The key column bounding group counts.
    pub col: usize,
    /// Whether it is a string column.
    pub is_str: bool,
    /// Groups the LIMIT and OFFSET take.
    pub k: usize,
    /// Whether `K` is the only key but constants (a group is a `K` value).
    pub only_key: bool,
    /// Whether ORDER BY has keys after the count (ties at `L` may win).
    pub tie_breaks: bool,
}

/// The query's [`Shape`], or why it is not of this kind.
pub fn shape(q: &TableQuery) -> std::result::Result<Shape, &'static str> {
    let agg = q.aggregation.as_ref().ok_or("no aggregation")?;
    if q.having.is_some() {
        return Err("HAVING");
    }
    if agg.keys.is_empty() {
        return Err("no GROUP BY");
    }
    if agg.aggs.iter().any(|a| a.distinct) {
        return Err("a distinct aggregate");
    }
    let first = q.order.first().ok_or("no ORDER BY")?;
    let ExprKind::Ref(slot) = first.expr.kind else {
        return Err("the first ORDER BY key is not an aggregate");
    };
    let counts_rows = slot
        .checked_sub(agg.keys.len())
        .and_then(|a| agg.aggs.get(a))
        .is_some_and(|a| a.func == AggFunc::CountStar);
    if !counts_rows || !first.desc {
        return Err("the first ORDER BY key is not COUNT(*) DESC");
    }
    let k =
        usize::try_from(q.limit.ok_or("no LIMIT")?.saturating_add(q.offset)).unwrap_or(usize::MAX);
    if !(1..=MAX_GROUPS).contains(&k) {
        return Err("LIMIT + OFFSET out of range");
    }
    let table = &q.table;
    // The stored key column with the most distinct values per block.
    let col = agg
        .keys
        .iter()
        .filter_map(TExpr::as_col)
        .max_by_key(|&c| {
            (0..table.num_blocks())
                .map(|b| u64::from(table.stats(b, c).distinct))
                .sum::<u64>()
        })
        .ok_or("no group key is a stored column")?;
    let is_str = table
        .schema()
        .fields
        .get(col)
        .ok_or("no such column")?
        .data_type
        .is_string();
    Ok(Shape {
        col,
        is_str,
        k,
        // Constant keys (`GROUP BY 1, URL` with `SELECT 1, ...`) split no
        // group.
        only_key: agg.keys.iter().filter(|e| !e.columns().is_empty()).count() == 1,
        tie_breaks: q.order.len() > 1,
    })
}

impl Rule for TopCount {
    fn name(&self) -> &'static str {
        "top_count"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        if t.aggregation.is_none() || t.strategies.restriction.is_some() || t.order.is_empty() {
            return Check::NotApplicable;
        }
        let s = match shape(t) {
            Ok(s) => s,
            Err(why) => return Check::no(why),
        };
        // With one key, the restriction pays when neither pass selects
        // rows: no filter, or one testing `K` value by value.
        if let Some(f) = &t.filter {
            let pred = compile(f);
            if s.only_key && pred != Pred::True && single_column(&pred) != Some(s.col) {
                return Check::no("one key and a filter on other columns");
            }
        }
        Check::Applies
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal("top_count on another node".into()));
        };
        t.strategies.restriction = Some(Restriction::TopCount);
        Ok(LogicalPlan::TableQuery(t))
    }
}
