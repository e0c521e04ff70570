//! `topk_sorted_values`: `ORDER BY <stored column> LIMIT k` without
//! sorting a block: a fixed-width column's values are stored sorted, so the
//! rows that can reach the top `k` are those of its first values (from the
//! top for DESC), read off their row lists until `k` selected rows are
//! found; a string column's dictionary lists its strings in byte order, so
//! the same walk works through it. Only those rows are loaded and sorted.
//!
//! Sound: every selected row of the block whose value sorts after the last
//! value taken has at least `k` selected rows before it in the block, so it
//! is not among the block's first `k`, hence not among the whole result's.
//! Ties with the last value are all taken. Where NULLs would sort first, or
//! the block has fewer than `k` selected non-NULL rows, the block is sorted
//! whole instead.

use super::{Check, Rule, RuleCtx};
use crate::error::{EngineError, Result};
use crate::plan::{LogicalPlan, TableQuery};
use crate::value::LType;

/// The rule.
pub struct TopkSortedValues;

/// The first ORDER BY key when it is a stored column, whose rows can be
/// read in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeadingColumn {
    /// The column.
    pub col: usize,
    /// Descending.
    pub desc: bool,
    /// NULLS FIRST.
    pub nulls_first: bool,
    /// A string column (walked through its dictionary).
    pub string: bool,
}

/// The table query's first ORDER BY key as a [`LeadingColumn`], if it is a
/// stored column read as its own type.
pub fn leading_column(t: &TableQuery) -> Option<LeadingColumn> {
    if t.aggregation.is_some() {
        return None;
    }
    let o = t.order.first()?;
    let col = o.expr.as_col()?;
    let f = t.table.schema().fields.get(col)?;
    let string = o.expr.ty == LType::Varchar && f.data_type.is_string();
    let fixed = o.expr.ty != LType::Varchar && LType::from_storage(f.data_type) == o.expr.ty;
    (string || fixed).then_some(LeadingColumn {
        col,
        desc: o.desc,
        nulls_first: o.nulls_first,
        string,
    })
}

impl Rule for TopkSortedValues {
    fn name(&self) -> &'static str {
        "topk_sorted_values"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::TableQuery(t) = node else {
            return Check::NotApplicable;
        };
        if t.aggregation.is_some() || t.order.is_empty() || t.strategies.topk_sorted_values {
            return Check::NotApplicable;
        }
        if t.limit.is_none() {
            return Check::no("no LIMIT");
        }
        match leading_column(t) {
            Some(_) => Check::Applies,
            None => Check::no("the first ORDER BY key is not a stored column"),
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        let LogicalPlan::TableQuery(mut t) = node else {
            return Err(EngineError::Internal(
                "topk_sorted_values on another node".into(),
            ));
        };
        t.strategies.topk_sorted_values = true;
        Ok(LogicalPlan::TableQuery(t))
    }
}
