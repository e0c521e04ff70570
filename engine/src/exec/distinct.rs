//! DISTINCT and DISTINCT ON over a batch.

use super::sort::sort_rows;
use super::{Batch, ExecCtx, Operator};
use crate::agg::accumulate::{group_rows, GROUP_BYTES_PER_ROW};
use crate::error::Result;
use crate::expr::{eval, TExpr};
use crate::plan::OrderKey;
use crate::value::Vector;

/// The input's distinct rows (the first of each set of equal rows).
#[derive(Debug)]
pub struct Distinct {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
}

impl Operator for Distinct {
    fn describe(&self) -> String {
        "Distinct (hash)".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let input = ctx.run(self.input.as_ref())?;
        let refs: Vec<&Vector> = input.columns.iter().collect();
        let _groups = ctx.budget.hold(
            GROUP_BYTES_PER_ROW * input.rows as u64,
            "a DISTINCT's group ids",
        )?;
        let g = group_rows(&refs, input.rows)?;
        Ok(input.gather(&g.first))
    }
}

/// The first row of each group of equal `on` values, by `order`.
#[derive(Debug)]
pub struct DistinctOn {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// The values forming groups.
    pub on: Vec<TExpr>,
    /// Which row of a group is first.
    pub order: Vec<OrderKey>,
}

impl Operator for DistinctOn {
    fn describe(&self) -> String {
        "DistinctOn (sort, first of each group)".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let input = ctx.run(self.input.as_ref())?;
        let order = sort_rows(&input, &self.order, None, &ctx.budget)?;
        let sorted = input.gather(&order);
        let mut on: Vec<Vector> = Vec::with_capacity(self.on.len());
        for e in &self.on {
            on.push(eval(e, sorted.rows, &sorted)?.into_owned());
        }
        let refs: Vec<&Vector> = on.iter().collect();
        let g = group_rows(&refs, sorted.rows)?;
        Ok(sorted.gather(&g.first))
    }
}
