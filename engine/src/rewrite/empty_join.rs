//! `empty_join`: an inner or semi join one of whose integer key pairs can
//! match no row, by the tables' statistics (the two sides' value ranges do
//! not overlap, or a side has no non-NULL key), becomes an empty relation
//! of its columns. Neither input is then read, and no expression below the
//! join is evaluated on rows the join could never keep, as DuckDB, which
//! propagates the same statistics, does not evaluate them.
//!
//! Sound: an inner or semi join keeps only combinations whose keys are
//! equal, and NULL equals nothing. Each side's key values lie within the
//! range [`key_range`] gives (a plan's rows are a subset of its tables',
//! an integer cast keeps a value or fails), so no pair of ranges that do not
//! overlap holds an equal pair.

use super::{Check, Rule, RuleCtx};
use crate::error::Result;
use crate::plan::stats::key_range;
use crate::plan::{JoinKind, LogicalPlan};

/// The rule.
pub struct EmptyJoin;

impl Rule for EmptyJoin {
    fn name(&self) -> &'static str {
        "empty_join"
    }

    fn check(&self, node: &LogicalPlan, _: &RuleCtx) -> Check {
        let LogicalPlan::Join {
            kind: JoinKind::Inner | JoinKind::Semi,
            left,
            right,
            keys,
            ..
        } = node
        else {
            return Check::NotApplicable;
        };
        let never = keys
            .iter()
            .any(|(a, b)| match (key_range(a, left), key_range(b, right)) {
                (Some(x), Some(y)) => x.disjoint(y),
                _ => false,
            });
        if never {
            Check::Applies
        } else {
            Check::NotApplicable
        }
    }

    fn apply(&self, node: LogicalPlan, _: &RuleCtx) -> Result<LogicalPlan> {
        Ok(LogicalPlan::Values {
            rows: Vec::new(),
            columns: node.columns(),
        })
    }
}
